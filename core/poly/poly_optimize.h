// poly_optimize: the polyhedral pipeline in one step, as Pluto's, PPCG's and Polly's
// defaults are one flag away. The isl scheduler (poly_auto's options) computes the bands;
// then, per outermost permutable band, the cost model of tile_model.h decides and the
// tree is rewritten:
//   1. cache tiling (sizes from L1/L2 of this machine, or given);
//   2. intra-tile reordering: the point loops are permuted so the vector (or stride-1)
//      member is innermost;
//   3. register tiling / unroll-and-jam: the point band is tiled again, the accumulator's
//      member outside, the jam member unrolled ("unroll" mark) and the vector member
//      vectorized ("vectorized" mark) by W lanes;
//   4. parallel marking: the outermost coincident tile loop with two tiles or more, and
//      with parallel_depth N the next coincident tile loops, up to N in all, fused with it
//      into one parallel loop (PPCG's and Pluto's --parallel);
// A band with no coincident member (a time-iterated stencil, which isl skews into one
// permutable band) is tiled in time only when one time step's writes do not fit in L2;
// otherwise the time loop stays outermost and sequential and the statement's other loops,
// in their original order, form the band below it that steps 1-4 optimise (wavefront=True
// or given tile sizes keep the time tiling). A loop of at most 4 iterations there that a
// condition of the block tests (fdtd-2d's field of one te.scan state) is split off and
// unrolled below the step's parallel loop, so each copy computes its own branch. A band whose block loads inside a
// branch of T.if_then_else gets no vector mark (the vector lowering would leave the loop
// scalar): its stride-1 loop goes innermost, whole, for the compiler's vectorizer.
// Before the scheduler, with pack=True (packing.h), an input a reduction reads with a
// non-unit stride along the output's contiguous iterator, and reuses enough, is copied
// into a buffer with that dimension last (the NT dense's weight is transposed), so the
// vector loop reads it with stride 1. With vectorize=True, a nest whose vector member's
// extent is not a multiple of the machine's lanes is split into a full part and a tail
// copy `<block>_tail` (tail_split.h), so the full part gets whole vectors.
// then the program is regenerated and each reduction's init is hoisted out of its
// reduction loops (decompose_reduction at the outermost loop that feeds a reduce
// iterator: scalar replacement, so the compiler keeps the register tile's accumulators in
// registers across the reduction). The result is checked against the original program's
// dependences like every step.
//
// Trace form (Loopscape-only):
//   sch.poly_optimize(fusion="smart", tile=[], unroll_jam=[], parallel=True, wavefront=False,
//                     vectorize=True, machine="", pack=True, parallel_depth=1,
//                     decision=[[64, 256, 256, 8, 256, 32]])
// `machine` "" is this machine (MachineModel::host); the decision records, per optimised
// band, the cache tile and register tile sizes the model chose ([1] for a stencil band kept
// with its time loop outside, followed by the decisions of the bands below it), so a trace
// replays to the same program on any machine.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/poly/tile_model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::schedule {
class Schedule;
}

namespace loopscape::poly {

struct PolyOptimizeOptions {
  /// poly_auto's fusion; smart (PPCG's default) by default: fusion max puts a reduction's
  /// consumer in the reduction's spatial band, leaving the reduce loop in a band of its
  /// own below a sequence, where it cannot join the tile (gemm's k).
  std::string fusion = "smart";
  std::vector<std::int64_t> tile;      ///< cache tile sizes (leading members); empty: from the model
  std::vector<std::int64_t> unrollJam; ///< {Ru} or {Ru, W}; empty: from the model; {1}: no unroll-and-jam
  bool parallel = true;
  bool wavefront = false; ///< tiles of a band with no coincident member in parallel wavefronts
  bool vectorize = true;
  bool pack = true;                    ///< copy reused, badly strided inputs first (packing.h)
  int parallelDepth = 1;               ///< coincident tile loops fused into the parallel loop (1..8)
  std::optional<MachineModel> machine; ///< nullopt: this machine
};

/// What poly_optimize decided, band by band, in words (the CLI prints it as comments).
struct PolyOptimizeReport {
  MachineModel machine;
  std::vector<std::string> lines;
};

/// The decisions poly_optimize makes on `func` (the isl scheduler runs). Errors as poly_auto's.
Expected<PolyOptimizeReport> explainPolyOptimize(const ir::PrimFunc& func, const PolyOptimizeOptions& options);

/// Applies poly_optimize through Schedule::apply (recorded in the trace with its decision).
Expected<void> polyOptimize(schedule::Schedule& sch, const PolyOptimizeOptions& options);

} // namespace loopscape::poly
