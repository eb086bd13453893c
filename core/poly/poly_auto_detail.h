// Internal to core/poly: the isl scheduler step of poly_auto, on an extracted Scop (isl
// types). Split from polyAuto so that callers that already hold the dependences (the
// benchmark, the poly primitives) do not compute them twice.
#pragma once

#include "core/poly/dependences.h"
#include "core/poly/poly_optimize.h"
#include "core/poly/poly_schedule.h"
#include "core/poly/scop.h"

#include <isl/cpp.h>

#include <map>
#include <string>

namespace loopscape::poly {

/// The schedule tree isl computes for `scop` with `options` (dependences computed here).
/// Errors: "schedule.poly_auto.bad-option", "poly.quota", "poly.isl".
Expected<isl::schedule> computeIslSchedule(const Scop& scop, const PolyAutoOptions& options);

/// The same with the dependences of `scop` given: validity = coincidence = RAW + WAR +
/// WAW, proximity = RAW.
Expected<isl::schedule> computeIslSchedule(const Scop& scop, const Dependences& deps, const PolyAutoOptions& options);

namespace detail {

/// poly_optimize's tree: isl's schedule with every outermost band rewritten after its plan.
struct OptimizedSchedule {
  isl::schedule schedule;
  std::vector<std::vector<std::int64_t>> decisions; ///< per band: cache tile sizes, then register tile sizes
  std::vector<std::string> notes;                   ///< the plans in words
  /// Per band with parallel_depth > 1: the names of the tile loops to fuse into one
  /// parallel loop, outermost first (fuseParallelLoops).
  std::vector<std::vector<std::string>> fuseGroups;
};

/// `decided` (a recorded decision) fixes the sizes band by band. `scheduled`, when given,
/// keeps isl's tree for `scop` by fusion: a tree found there is reused, a computed one
/// stored. Errors as computeIslSchedule.
Expected<OptimizedSchedule> optimizeIslSchedule(const Scop& scop, const Dependences& deps,
                                                const PolyOptimizeOptions& options, const MachineModel& machine,
                                                const std::vector<std::vector<std::int64_t>>* decided,
                                                std::map<std::string, isl::schedule>* scheduled = nullptr);

/// The program poly_optimize schedules: `func` after packing (options.pack, packing.h)
/// and the vector tails' separation (options.vectorize, tail_split.h). `changed` says
/// whether it differs from `func`; `notes` are both steps' decisions in words.
struct PreparedProgram {
  ir::PrimFunc func;
  std::vector<std::string> notes;
  bool changed = false;
};
Expected<PreparedProgram> prepareForOptimize(const ir::PrimFunc& func, const PolyOptimizeOptions& options,
                                             const MachineModel& machine);

/// decompose_reduction on every block with an init, at the outermost loop that feeds one
/// of its reduce iterators; `renamed` gets the names of the blocks that became `<b>_update`.
Expected<ir::PrimFunc> hoistReductionInits(const ir::PrimFunc& func, std::vector<std::string>* renamed);

/// Fuses each group's chain of directly nested parallel loops (constant extents from 0,
/// named as the group, outermost first) into one parallel loop `<a>_<b>_fused` whose
/// value v gives back the old ones (a = v // extent(b), b = v % extent(b)). A group whose
/// loops are not such a chain is left as it is and said so in `notes`.
ir::PrimFunc fuseParallelLoops(const ir::PrimFunc& func, const std::vector<std::vector<std::string>>& groups,
                               std::vector<std::string>* notes);

} // namespace detail

} // namespace loopscape::poly
