// The model schedule: which schedule each fused group of a model gets, kept in a small
// JSON file that the CLI (`relay run --schedule FILE.json`, `--write-schedule`) and the
// workbench both read and write:
//
//   {"version": 1, "model": "resnet18.relay", "alter_layout": true,
//    "default": {"source": "default"},
//    "groups": {"tvmgen_default_fused_nn_conv2d_add_nn_relu": {"source": "poly", "fusion": "smart"},
//               "tvmgen_default_fused_nn_dense": {"source": "trace", "file": "dense.py"},
//               "tvmgen_default_fused_nn_softmax": {"source": "trace", "trace": [...trace JSON...]},
//               "tvmgen_default_fused_add": {"source": "tuned", "log": "bert.log"}}}
//
// Sources: "default" (the built-in schedule for the group's pattern, group_schedule.h),
// "poly" (poly_optimize with a fusion), "tuned" (the fastest record of a tuning log for
// the group's workload), "trace" (a hand-written trace: a file, relative to the schedule
// file, or inline trace JSON). A group not listed takes "default". "alter_layout" (false
// when absent): the model's graph passes include AlterOpLayout (NCHW[x]c convolutions,
// packed dense weights), which gives the groups the names listed.
#pragma once

#include "core/ir/diagnostic.h"

#include <map>
#include <string>

namespace loopscape::graph {

enum class ScheduleSource : std::uint8_t { Default, Poly, Tuned, Trace };
/// "default", "poly", "tuned", "trace".
std::string_view scheduleSourceName(ScheduleSource source);

struct GroupChoice {
  ScheduleSource source = ScheduleSource::Default;
  std::string fusion = "smart"; ///< Poly: poly_optimize's fusion (max, smart, min)
  std::string log;              ///< Tuned: the records file
  std::string traceFile;        ///< Trace: a .py or .json trace file
  std::string traceJson;        ///< Trace without a file: the trace as JSON text
  bool operator==(const GroupChoice&) const = default;
  /// "default", "poly(fusion=smart)", "tuned:bert.log", "trace dense.py", "trace (inline)".
  std::string describe() const;
};

/// `path` as a model schedule in `baseDir` names it: relative paths are under baseDir.
std::string resolvePath(const std::string& baseDir, const std::string& path);

struct ModelSchedule {
  std::string model;    ///< the model file, as written (informational)
  GroupChoice fallback; ///< "default": groups not listed
  std::map<std::string, GroupChoice> groups;
  std::string baseDir; ///< where relative trace and log paths are resolved (the file's folder)
  bool alterLayout = false; ///< the graph passes include AlterOpLayout
  const GroupChoice& choiceFor(const std::string& group) const;
  /// A trace or log path of this file (resolvePath).
  std::string resolve(const std::string& path) const { return resolvePath(baseDir, path); }
};

/// Parses the JSON text; errors "graph.schedule-malformed" name `fileName` and the field.
Expected<ModelSchedule> parseModelSchedule(std::string_view text, const std::string& fileName);
/// Reads a file (baseDir becomes its folder).
Expected<ModelSchedule> readModelSchedule(const std::string& path);
std::string modelScheduleToJson(const ModelSchedule& schedule);
Expected<void> writeModelSchedule(const std::string& path, const ModelSchedule& schedule);

/// The CLI's --schedule value: "default", "poly" (fusion smart), "poly:max", "tuned:LOG"
/// (every group), or a model schedule file FILE.json.
Expected<ModelSchedule> scheduleFromOption(const std::string& option);

} // namespace loopscape::graph
