// Program features for the learned cost model: one fixed-length row of floats per
// BufferStore of a lowered program, after Ansor's per-store features (feature.cc; see
// shared/notes/tvm.md section 7). The cost model predicts one score per row and sums a
// program's rows ("pack-sum"), so each row describes the work of one store statement over
// its whole loop nest: what it computes, how it is vectorised, unrolled and parallelised,
// which memory it touches and how it reuses it.
//
// What a row sees (lowered_func.h states the IR it reads):
//   * loops: every enclosing For; an extent that is not a constant is evaluated with the
//     sizes in FeatureOptions (by size-variable name), unknown names taking
//     `defaultSize` (128), and each enclosing loop variable at its loop's midpoint,
//     min + (extent - 1) / 2 (a partial tile's `min(T, N - c * T)` counts T unless the
//     tile loop has under three iterations; a triangular extent counts its mean). A store under `if v == c` (a
//     conjunction of such tests) on an enclosing loop variable v (the guarded reduction init) runs once per the other
//     loops: v counts with extent 1 everywhere. Any other condition is ignored (the store
//     counts as always running) and sets the `guarded` flag. Loops of extent 1 never
//     count as iterating (no reuse, no stride, not "innermost").
//   * vector lanes: a vectorised body is one store of `lanes` lanes; the lanes act as an
//     innermost pseudo-loop of that extent, whose coefficient in an index is the Ramp's
//     stride (0 for a Broadcast scalar).
//   * unrolled loops are gone: a SeqStmt whose children have the same shape up to integer
//     constants (`x + c` counting as `x`) is taken for unrolled copies; `unroll_copies`
//     is the product of such group sizes around the store (1 when none).
//   * accesses: the store (write) and every BufferLoad in its value and indices (read).
//     Indices are analysed as affine forms in the loop variables (floordiv / div by a
//     constant c scale by 1/c; a product of two loop-dependent terms, mod, min, max or an
//     indirect load count every variable in them with coefficient 1).
//
// Counting conventions (the hand-computed test values in tests/tune/tst_features.cpp
// follow them). Let P = product of the enclosing loop extents, L = the store's lanes,
// eb = element bytes of a buffer:
//   * op counts: operations in the store's value and in all its indices, each counted
//     lanes-of-its-type times, times P. Add/Sub with a Mul operand of the same type counts
//     as one mad (and the Mul is not counted again), as does T.fma. Min/Max and
//     comparisons are "cmp"; FloorDiv/FloorMod/Div are "divmod"; other math calls are
//     "math_func". Ops of an `if` condition are not counted.
//   * bytes(b) = sum over the accesses to b of P * accessLanes * eb (traffic, repeats
//     included). unique_bytes(b) = distinct elements touched over the whole nest * eb.
//   * lines(b) = for each distinct access index, (product of the extents of the loops down
//     to the innermost one whose coefficient is not 0) * min(1, |coefficient| * eb / 64);
//     1 when no loop moves the index. unique_lines(b) = distinct 64-byte lines touched
//     over the whole nest (lines assumed aligned to the start of the buffer).
//   * reuse(b): walking the loops from the innermost outwards (extent-1 loops skipped):
//     the first loop whose variable is in no index of b gives loop-multiple-read reuse,
//     reuse_ct = its extent; otherwise, the first loop whose body has more than one store
//     statement touching b gives serial-multiple-read-write reuse, reuse_ct = (number of
//     such statements - 1). reuse_dis_iter = the product of the extents of the store's
//     loops inside that loop; reuse_dis_bytes = unique bytes of all buffers touched by all
//     stores in one iteration of that loop's body. No such loop: no reuse, all 0.
//   * stride(b): |coefficient| of the innermost iterating loop (the lanes when L > 1) in
//     b's index (the largest over b's accesses).
//   * arithmetic intensity: for each loop level from the innermost outwards, x = float
//     flops (mad = 2) of one innermost iteration times the extents of the loops at or
//     inside the level, y = x / unique bytes of all the store's buffers over those loops;
//     sampled at 10 evenly spaced x up to the whole nest, linear interpolation (Ansor).
//   * buffers are ordered by bytes (descending; first appearance breaks ties: the stored
//     buffer, then loads left to right); only the top kMaxBuffers fill slots, an unused
//     slot is all 0.
//
// Scaling: with FeatureOptions::logScale (the default) every feature except the flags and
// one-hots (marked "flag" below) is stored as log2(1 + x), as Ansor does, so that counts
// spanning many orders of magnitude stay comparable; tests turn it off to check raw values.
//
// | index    | name                     | meaning                                            |
// |----------|--------------------------|----------------------------------------------------|
// | 0        | float_mad                | float multiply-adds (Add/Sub of a Mul, fma)        |
// | 1        | float_addsub             | float Add, Sub                                     |
// | 2        | float_mul                | float Mul                                          |
// | 3        | float_divmod             | float Div, FloorDiv, FloorMod                      |
// | 4        | float_cmp                | float comparisons, Min, Max                        |
// | 5        | float_math_func          | math calls (exp, sqrt, ...; not fma)               |
// | 6        | int_mad                  | integer multiply-adds (index arithmetic mostly)    |
// | 7        | int_addsub               | integer Add, Sub                                   |
// | 8        | int_mul                  | integer Mul                                        |
// | 9        | int_divmod               | integer Div, FloorDiv, FloorMod                    |
// | 10       | int_cmp                  | integer comparisons, Min, Max                      |
// | 11       | bool_op                  | And, Or, Not                                       |
// | 12       | select_op                | Select                                             |
// | 13       | cast_op                  | Cast                                               |
// | 14       | vec_lanes                | L, the store's vector lanes (1 = scalar)           |
// | 15       | unroll_copies            | unrolled copies around the store (1 = none)        |
// | 16       | parallel_num             | number of enclosing Parallel loops                 |
// | 17       | parallel_prod            | product of their extents                           |
// | 18       | parallel_len             | extent of the innermost Parallel loop              |
// | 19..22   | parallel_pos_outer/middle/inner/none | flag: where the outermost Parallel loop |
// |          |                          | sits: first enclosing loop, neither, last, none    |
// | 23       | guarded                  | flag: under a condition other than `v == c`        |
// | 24..113  | buf<s>.<field>           | buffer slot s = 0..4, 18 fields each, at           |
// |          |                          | bufferFeature(s, field):                           |
// |          |   .acc_read/write/readwrite | flag: access type R / W / RW                     |
// |          |   .bytes, .unique_bytes  | see above                                          |
// |          |   .lines, .unique_lines  | see above                                          |
// |          |   .reuse_loop_read / .reuse_serial_rw / .reuse_none | flag: reuse type        |
// |          |   .reuse_dis_iter, .reuse_dis_bytes, .reuse_ct | see above                    |
// |          |   .bytes_d_reuse_ct, .unique_bytes_d_reuse_ct, .lines_d_reuse_ct,             |
// |          |   .unique_lines_d_reuse_ct | the four above divided by reuse_ct (or by 1)     |
// |          |   .stride                | see above                                          |
// | 114..123 | arith_intensity_0..9     | the intensity curve's 10 samples                   |
// | 124      | alloc_size               | bytes of the stored buffer if it is an Allocate    |
// | 125      | alloc_outer_prod         | product of the loop extents around that Allocate   |
// | 126      | alloc_local              | flag: that Allocate is in local (stack) scope      |
// | 127      | outer_prod               | P                                                  |
// | 128      | num_loops                | number of enclosing For loops                      |
#pragma once

#include "core/codegen/lowered_func.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loopscape::tune {

namespace feature {
enum Index : int {
  kFloatMad,
  kFloatAddSub,
  kFloatMul,
  kFloatDivMod,
  kFloatCmp,
  kFloatMathFunc,
  kIntMad,
  kIntAddSub,
  kIntMul,
  kIntDivMod,
  kIntCmp,
  kBoolOp,
  kSelectOp,
  kCastOp,
  kVecLanes,
  kUnrollCopies,
  kParallelNum,
  kParallelProd,
  kParallelLen,
  kParallelPosOuter,
  kParallelPosMiddle,
  kParallelPosInner,
  kParallelPosNone,
  kGuarded,
  kBufferBase, // 24: first buffer slot
};

/// The fields of one buffer slot, in order.
enum BufferField : int {
  kAccRead,
  kAccWrite,
  kAccReadWrite,
  kBytes,
  kUniqueBytes,
  kLines,
  kUniqueLines,
  kReuseLoopRead,
  kReuseSerialRW,
  kReuseNone,
  kReuseDisIter,
  kReuseDisBytes,
  kReuseCt,
  kBytesDReuseCt,
  kUniqueBytesDReuseCt,
  kLinesDReuseCt,
  kUniqueLinesDReuseCt,
  kStride,
  kBufferFieldCount, // 18
};

constexpr int kMaxBuffers = 5;
constexpr int kArithIntensityBase = kBufferBase + kMaxBuffers * kBufferFieldCount; // 114
constexpr int kArithIntensitySamples = 10;
constexpr int kAllocSize = kArithIntensityBase + kArithIntensitySamples; // 124
constexpr int kAllocOuterProd = kAllocSize + 1;
constexpr int kAllocLocal = kAllocSize + 2;
constexpr int kOuterProd = kAllocSize + 3; // 127
constexpr int kNumLoops = kAllocSize + 4;

/// Index of `field` of buffer slot `slot` (0 = the buffer with the most bytes).
constexpr int bufferFeature(int slot, BufferField field) { return kBufferBase + slot * kBufferFieldCount + field; }
} // namespace feature

/// Length of every feature row.
constexpr int kFeatureCount = feature::kNumLoops + 1; // 129

struct FeatureOptions {
  /// Values of symbolic sizes, by the size variable's name ("n" -> 1024).
  std::map<std::string, std::int64_t> sizes;
  /// The value of a size (or any variable in an extent or shape) not in `sizes`.
  std::int64_t defaultSize = 128;
  /// Store features as log2(1 + x) (all but the flags); off: raw values.
  bool logScale = true;
};

/// The feature names in index order ("float_mad", ..., "buf0.bytes", ..., "num_loops").
const std::vector<std::string>& featureNames();

/// One row of kFeatureCount floats per BufferStore of `func.body`, in program order
/// (pre-order). A program without stores gives no rows.
std::vector<std::vector<float>> extractFeatures(const codegen::LoweredFunc& func, const FeatureOptions& options = {});

} // namespace loopscape::tune
