// The search space of the auto-scheduler: sketches and their candidates.
//
// A sketch is a schedule with holes, as MetaSchedule's design space: a fixed sequence of
// primitives whose tile sizes, unroll depth and compute locations are sampling
// instructions (sample_perfect_tile, sample_categorical, sample_compute_location), or one
// poly_optimize step whose decision (tile and register sizes per band) is sampled. A
// candidate is a sketch plus its decisions: `generate` re-runs the sketch's rules on the
// original program, taking each decision in order from the given list and sampling the
// missing ones, so every candidate is an ordinary trace that replays anywhere
// (`print --trace`, the workbench, TVM for the TIR family).
//
// The TIR family (MetaSchedule's CPU rules, visited from the last block to the first):
//   auto-inline     an injective spatial producer that is not an output: compute_inline
//                   (not one computing a conditional value, e.g. a padding: as
//                   MetaSchedule's disallow_if_then_else, it gets a compute location);
//   multi-level     a block with a reduction and data reuse: every spatial loop split in
//     tiling        4 (sample_perfect_tile, innermost <= max_innermost_factor), every reduce
//                   loop in 2, reordered SSRSRS (i0 j0 i1 j1 k0 i2 j2 k1 i3 j3); write
//                   reuse at tile level 1 or 2 (one sketch each, and one without). Half of
//                   the tile decisions (guidedTileProbability) are drawn with the register
//                   tile in mind: the innermost spatial loop's last factor a divisor in
//                   [vectorLanes, max_innermost_factor] (whole vectors), the other spatial
//                   loops' last factor at most 8 (rows of accumulators), the rest of each
//                   extent spread at random as sample_perfect_tile spreads it; the decision
//                   is recorded like a sampled one. An
//                   elementwise consumer is moved there with reverse_compute_at, otherwise
//                   a cache_write "global" block is;
//     + packing     (ours, not MetaSchedule's: a second sketch per write level) an input
//                   parameter indexed by distinct block iterators, its last index the
//                   innermost spatial iterator j and another a reduce iterator (B[k, j]
//                   of a matmul) is copied first into panels as wide as j's register tile
//                   w (its last tile factor): cache_read "global" + transform_layout
//                   (..., j) -> (j // w, ..., j % w), the copy's j split by w and its
//                   panel loop made outermost, so that the tile's inner loops read w
//                   contiguous floats per reduce step (the hand-tuned matmul_tuned.py's
//                   packing); no decision of its own, none when w is 1 or all of j;
//   add-rfactor     a reduction whose spatial extent is small (at most
//                   max_jobs_per_core * cores) and smaller than its reduce extent: the
//                   reduce loops fused, split in 2 by sample_perfect_tile, rfactor on the
//                   outer (a second sketch), the rest tiled as above;
//   compute location every other block that has consumers: sample_compute_location, then
//                   compute_at (or compute_inline for the inline mark);
// then the post-steps (MetaSchedule's postprocessors, applied as primitives):
//   parallel        with several cores: jobs per core sampled from {0 (none), 1, 4,
//                   max_jobs_per_core} with weights {1, 1, 2, 16} (MetaSchedule starts at
//                   max_jobs_per_core and mutates from there); the outer loops of each nest that feed no reduce
//                   iterator, fused while their product is at most jobs * cores (the first
//                   always), marked parallel;
//   decompose       each reduction's init hoisted to its outermost reduce loop;
//   vectorize       the innermost loop of each block when it is spatial for every block
//                   below it and its extent is a constant <= max_vectorize_extent;
//   unroll          depth sampled from unroll_steps (sample_categorical): the innermost
//                   serial loops of each block, outward while the product of their extents
//                   stays within the depth, are unrolled (TVM's auto_unroll_max_step,
//                   written as explicit unroll steps).
//
// The polyhedral family: poly_optimize with fusion max, smart or min (one sketch each),
// its decision (cache and register tile sizes per band) sampled around the cost model's
// choice; its own parallel, vector and unroll-and-jam marks are the post-steps.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/schedule/schedule.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace loopscape::tune {

enum class Family : std::uint8_t { Tir, Poly };
/// "tir", "poly".
std::string_view familyName(Family family);

struct SpaceOptions {
  int cores = 1;               ///< threads the kernel will run on
  int maxJobsPerCore = 16;     ///< parallel extent bound per core
  int maxVectorizeExtent = 64; ///< largest vectorized loop
  int maxInnermostFactor = 64; ///< sample_perfect_tile's bound on the innermost tile
  int vectorLanes = 8;         ///< float32 lanes of this machine's vector registers
  /// Share of tile decisions drawn with the register tile in mind (the rest uniformly,
  /// as sample_perfect_tile does): see "multi-level tiling" above.
  double guidedTileProbability = 0.5;
  std::vector<std::int64_t> unrollSteps{0, 16, 64, 512};
  bool tir = true;  ///< generate the TIR family
  bool poly = true; ///< generate the polyhedral family
};

/// One sketch: how a candidate is made, without its decisions.
struct Sketch {
  std::string name; ///< "tir(C: tile write@1)", "poly(fusion=smart)": unique in a space, kept in records
  Family family = Family::Tir;
  enum class Rule : std::uint8_t { Skip, Inline, Tile, RFactor, ComputeLocation };
  struct BlockPlan {
    std::string block;
    Rule rule = Rule::Skip;
    int writeLevel = 0; ///< Tile: 0 no write reuse, 1 or 2 the tile level
    std::string pack;   ///< Tile: the input copied into panels first (empty: none)
  };
  std::vector<BlockPlan> plans; ///< TIR: one per block, last block first
  std::string fusion;           ///< poly: "max", "smart", "min"
};

/// The sketches of `func` under `options` (the TIR ones first). Never empty when a family
/// is enabled: a program no rule applies to still gets the post-steps' sketch.
std::vector<Sketch> generateSketches(const ir::PrimFunc& func, const SpaceOptions& options);

/// A decision of a sampling instruction, as the trace records it.
using Decisions = std::vector<schedule::TraceValue>;

/// `sketch` applied to `original` (a fresh schedule, no legality verifier: the search
/// checks the result once with checkLegality). `forced[i]` is used for the i-th sampling
/// decision (a None or an entry past the end is sampled from `seed`; a forced value the
/// instruction refuses is sampled too).
Expected<schedule::Schedule> generate(const ir::PrimFunc& original, const Sketch& sketch, const SpaceOptions& options,
                                      const Decisions& forced, std::uint64_t seed);

/// The decisions of a generated schedule's trace, in order.
Decisions decisionsOf(const schedule::Trace& trace);

/// `decisions` with one decision changed (MetaSchedule's mutators: a tile size factor
/// moved between two levels (probability 0.9), the unroll depth, a compute location; for
/// poly_optimize one tile or register size doubled or halved). Nullopt when nothing in
/// `decisions` can change. `trace` is the schedule the decisions came from (it says which
/// instruction each belongs to).
std::optional<Decisions> mutate(const schedule::Trace& trace, const SpaceOptions& options, std::mt19937_64& rng);

} // namespace loopscape::tune
