// A model of the memory traffic of a lowered function: the bytes that move between one
// cache level (by default this core's L2) and memory when the function runs once. Unlike
// the compulsory bytes (every parameter once, flop_count.h), it depends on the schedule:
// a tiled matmul moves less than an untiled one, which is what the roofline's "modeled
// traffic" intensity shows.
//
// The model, exactly (a cache of C bytes, lines of L bytes, elements of E bytes):
//   * Accesses. Every BufferLoad and BufferStore on a global buffer (a parameter, or an
//     Allocate in global scope) is an access; local, shared and stack buffers are never
//     counted. Its flat index is read as an affine form sum(coef * loopVar) + constant
//     (a Ramp adds its lanes as one more term, coefficient = stride, extent = lanes;
//     sizes take their bound values; lets are substituted), then split back into the
//     buffer's dimensions (row-major strides of its shape): a term goes to the outermost
//     dimension whose stride divides its coefficient, the constant is split by
//     truncating division. floordiv(x, c) and floormod(x, c) of an affine x are exact
//     where the part of x that c does not divide stays in [0, c); else they are terms of
//     their own whose extent follows from the span of x's iterating terms (floormod: at
//     most c values; floordiv: span / c + 1, one more when x's fixed part may be
//     misaligned). Any other index that is not affine (a load, a select, min/max)
//     touches the whole buffer as soon as one of its loop variables iterates.
//   * Footprint of a statement S (in lines): the loops inside S iterate, the ones around
//     it are fixed. For one access, each dimension d spans
//       range_d = sum over its iterating terms of |coef| * (extent - 1) + 1
//     elements and holds count_d = min(range_d, product of those extents) distinct ones
//     (both capped by the dimension's size). Accesses of S to one buffer with the same
//     coefficients (on every loop, iterating or not) and different constant offsets make
//     one box whose range_d widens by the spread of their offsets in d (count_d grows by
//     the number of distinct offsets, still at most range_d); accesses with different
//     coefficients add up. A box covers
//       lines = product over d < last of count_d  x  min(count_last, ceil(range_last * E / L))
//     lines (a last-dimension stride of at least a line: one line per element). A buffer
//     counts at most all its lines; footprint(S) = the sum over buffers.
//   * Traffic, recursively on the statement tree:
//       traffic(S) = footprint(S) * L                    when footprint(S) * L <= C;
//       otherwise, for a loop whose body fits:  min(footprint(loop) * L, extent *
//                  traffic(body)) (the loop streams: consecutive iterations share what
//                  they have in common, each line of its footprint comes in once);
//       for a loop whose body does not fit:     extent * traffic(body);
//       for a sequence (or an if's branches):   the sum of its children's traffic;
//       for a single statement:                 footprint(S) * L.
//     Parallel loops count as serial (the total traffic of every core together, with one
//     cache); a GPU kernel's thread indices are loops around its body (blockIdx outside
//     threadIdx), and its later kernels follow in sequence.
// Limits: a bounding box over-counts skewed or strided accesses and ignores alignment (a
// row of 16 floats is one line even where it straddles two); reuse between iterations
// further apart than the cache holds is assumed kept when the loop's body fits (a loop
// that streams a working set just under C is optimistic); conflict misses, prefetching,
// write-allocate and the other cache levels are not modeled. Both branches of an if
// count; loop variables are taken to start at 0. The result is an estimate for comparing
// schedules, not a measurement.
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/ir/interpreter.h"

#include <cstdint>
#include <string>

namespace loopscape::codegen {

struct TrafficOptions {
  std::int64_t cacheBytes = 0; ///< 0: hostL2CacheBytes()
  std::int64_t lineBytes = 64;
};

struct TrafficEstimate {
  double bytes = 0;            ///< modeled bytes between the cache and memory
  std::int64_t cacheBytes = 0; ///< the cache size the model used
  std::int64_t lineBytes = 64;
  /// The model in a few words, for labels: "beyond a 1 MiB cache, 64-byte lines".
  std::string model;
};

/// This core's L2 (level 2, type Unified or Data) from
/// /sys/devices/system/cpu/cpu0/cache/index*/, or 1 MiB when sysfs does not say.
std::int64_t hostL2CacheBytes();

/// "1 MiB", "512 KiB", "1000 bytes".
std::string cacheSizeText(std::int64_t bytes);

/// The modeled traffic of `func` under `sizes` (see the file comment).
TrafficEstimate estimateTraffic(const LoweredFunc& func, const ir::SizeBindings& sizes, TrafficOptions options = {});

} // namespace loopscape::codegen
