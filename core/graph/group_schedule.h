// A fused group's schedule from its choice (model_schedule.h): the default for its
// pattern, poly_optimize, the best tuning record or a hand trace, applied to the group's
// PrimFunc under the exact legality policy (a refused step refuses the group, and with it
// the model: "graph.group-schedule" names the group, the step and why).
//
// The default is what TVM's fallback schedules give a group, made from the auto-
// scheduler's own rules (tune/space.h) with fixed decisions: injective producers inlined,
// a reduction tiled for reuse with its accumulator tile written back once (write reuse at
// the inner tile level, register-sized tiles), outer loops fused and parallel, the
// innermost spatial loop vectorised, inner loops unrolled up to 16 steps, the parallel
// decision at the most jobs per core. It is seeded, so one group always gets the same
// trace.
#pragma once

#include "core/graph/model.h"
#include "core/graph/model_schedule.h"
#include "core/schedule/trace.h"

#include <stop_token>

namespace loopscape::graph {

struct GroupScheduleOptions {
  int threads = 0;           ///< threads the kernel runs on (0: all cores)
  bool checkLegality = true; ///< the exact check of every step (default and poly too)
  std::string target;        ///< for tuned records ("" any target)
  std::stop_token stop;
};

struct ScheduledGroup {
  ir::PrimFunc func;     ///< the scheduled program
  schedule::Trace trace; ///< how it was made (replays on the group's PrimFunc)
  std::string source;    ///< GroupChoice::describe(), with the record's figure for tuned
};

Expected<ScheduledGroup> scheduleGroup(const ModelGroup& group, const GroupChoice& choice, const std::string& baseDir,
                                       const GroupScheduleOptions& options);

} // namespace loopscape::graph
