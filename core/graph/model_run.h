// Running a compiled model: the inputs and constants bound once in one arena laid out by
// the graph plan, then one kernel call per group in execution order. Isolated (default):
// in `loopscape-worker` as one multi-call request (runner.h's runCallsIsolated), so a
// crashing kernel is an error, not a crash, and each group is timed inside the worker;
// in process: the kernels' libraries loaded here and called directly.
//
// Timing as TVM's time evaluator: `warmup` runs, then `repeat` timed runs of the whole
// model; the end-to-end latency is the median of the repeats, each group's time the median
// of its calls.
//
// Verification (verifyModel) runs the model once without storage reuse, so every group's
// result is kept, and checks each group on the inputs the compiled predecessors produced:
// against the reference interpreter when the group's unscheduled program has at most
// `interpretLimit` statement instances; above it, against the unscheduled group compiled
// by the same target (which checks the schedule, not the code generator), plus the
// interpreter on sampled output elements (verify_sample.h) when one element costs little
// enough (a fused group's producer stages run whole for each element, so a convolution
// with its epilogue usually does not). The first failing group is named with its max
// abs/rel error.
#pragma once

#include "core/codegen/runner.h"
#include "core/codegen/verify.h"
#include "core/graph/compiled_model.h"

namespace loopscape::graph {

struct ModelRunOptions {
  codegen::Isolation isolation = codegen::Isolation::Worker;
  int warmup = 1;
  int repeat = 10;
  double timeoutSeconds = 60; ///< per kernel call, isolated
  std::stop_token stop;
};

struct GroupTime {
  std::size_t group = 0;
  double seconds = 0; ///< median per call (one call per group per run)
};

struct ModelRun {
  std::vector<ir::NDArray> outputs;
  std::vector<double> perRepeat; ///< seconds of each timed run of the whole model
  std::vector<GroupTime> groups; ///< one per planned call, in execution order
  double medianSeconds() const;
};

Expected<ModelRun> runModel(const Model& model, const CompiledModel& compiled, const std::vector<ir::NDArray>& inputs,
                            const ModelRunOptions& options);

struct GroupCheck {
  std::size_t group = 0;
  codegen::ReferenceKind reference = codegen::ReferenceKind::Interpreter;
  codegen::OutputCheck check; ///< the whole output against the reference
  /// With CompiledUnscheduled: the interpreter on sampled elements (sampledElements of
  /// them; none, with `skipped` saying why, when one element costs too much).
  std::optional<codegen::OutputCheck> sampledCheck;
  int sampledElements = 0;
  std::string skipped;
  bool passed() const { return check.passed() && (!sampledCheck || sampledCheck->passed()); }
};

struct ModelVerifyOptions {
  double interpretLimit = 5e7; ///< statement instances interpreted whole per group
  int sampleElements = 32;     ///< otherwise, elements interpreted per group
  std::optional<codegen::Tolerance> tolerance;
  std::string cacheDir; ///< the compiled references' cache (compiled_model.h's)
  bool useCache = true;
  codegen::Isolation isolation = codegen::Isolation::Worker;
  double timeoutSeconds = 60;
  std::function<void(std::size_t done, std::size_t total)> progress;
  std::stop_token stop;
};

struct ModelVerifyReport {
  std::vector<GroupCheck> groups; ///< in execution order
  /// A model small enough to interpret whole (every group's unscheduled instances together
  /// within interpretLimit): its outputs against the interpreted model, one per output.
  std::vector<codegen::OutputCheck> model;
  bool passed() const;
  bool modelPassed() const;
  /// The first group that failed, or null.
  const GroupCheck* firstFailure() const;
};

Expected<ModelVerifyReport> verifyModel(const Model& model, const CompiledModel& compiled,
                                        const std::vector<ir::NDArray>& inputs, const ModelVerifyOptions& options);

} // namespace loopscape::graph
