// tile: a Halide-style convenience over the TIR schedule. It is not a TVM primitive and is
// not an instruction kind: it applies `split(loop, [None, size])` to each loop, then one
// `reorder(outer..., inner...)`, and records exactly those instructions, so the trace
// stays a valid TVM schedule that replays anywhere.
#pragma once

#include "core/schedule/schedule.h"

#include <cstdint>
#include <vector>

namespace loopscape::schedule {

/// Tiles `loops` (a perfectly nested chain, outermost first, as reorder requires) by
/// `tileSizes` (one positive size per loop). Returns the outer loops then the inner loops,
/// in the order of `loops`. All or nothing: on error (code "schedule.tile.bad-arguments"
/// or the error of the failing split/reorder) the schedule and its trace are unchanged.
Expected<std::vector<RV>> tile(Schedule& sch, const std::vector<RV>& loops, const std::vector<std::int64_t>& tileSizes);

} // namespace loopscape::schedule
