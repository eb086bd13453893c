// The one compile-run-verify-profile pipeline: every front end (the CLI's run, export
// and print, the workbench's code view and profile view, the benchmark) goes through it
// to find a target, lower a program, have the plugin build it or print its source, run
// the kernel (isolated in the worker or in process), verify it against the reference and
// time it. The stages, each a member function:
//
//   findTarget / usableTarget   the process-wide registry (TargetRegistry::global())
//   lower                       lower.h's passes for the target's device
//   source / build / compile    the plugin, under the target's lock (target.h's policy;
//   exportKernel                this class is the one place that takes it)
//   run                         runner.h, arguments checked, sizes from bindings
//   verify                      verify.h against the interpreter, or the unscheduled
//                               program compiled through this pipeline when too large
//   time                        profile_timer.h in the worker (or in process), on fresh
//                               outputs, one run or one run per repeat
//
// Cancellation: every stage takes a std::stop_token. A stop requested before or during a
// stage makes it return promptly with codegen::cancelledDiagnostic (cancel.h: "cancelled
// while lowering", "... building", "... running", "... verifying"): the passes check it
// between them, the plugins between their steps (a compiler they started is killed), the
// runner kills the worker, the interpreter checks it in its loops. Waiting for a target's
// lock also gives way to a stop request.
#pragma once

#include "core/codegen/export.h"
#include "core/codegen/lowered_func.h"
#include "core/codegen/runner.h"
#include "core/codegen/target.h"
#include "core/codegen/target_registry.h"
#include "core/codegen/verify.h"
#include "core/ir/interpreter.h"

#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::codegen {

/// A program built by one target: its lowered function and the runnable kernel.
struct CompiledKernel {
  Target* target = nullptr;
  LoweredFunc func;
  std::shared_ptr<Kernel> kernel;
};

struct TimeOptions {
  TimingOptions timing;
  /// One run per repeat (each with its own timing.warmup calls; `number` is chosen by the
  /// first and kept), so that `onRepeat` can report progress; otherwise one run for all.
  bool runPerRepeat = false;
  /// With runPerRepeat: called before repeat `i` (0-based) starts, i.e. when `i` repeats
  /// are done (also when a stop request then ends the timing).
  std::function<void(int i)> onRepeat;
};

/// What time() measured, and the arguments after the last timed call (the outputs).
struct TimedRun {
  TimingResult timing;
  std::vector<ir::NDArray> args;
  std::string workerOutput; ///< what the kernel printed (isolated runs)
};

class Pipeline {
public:
  /// Over the process-wide registry, TargetRegistry::global().
  Pipeline();
  /// Over `registry` (tests of other plugin directories); it must outlive the pipeline.
  explicit Pipeline(TargetRegistry& registry);

  TargetRegistry& registry() const { return *m_registry; }

  /// The enabled target `name` (TargetRegistry::findTarget's errors).
  Expected<Target*> findTarget(std::string_view name) const;
  /// findTarget, and "codegen.toolchain-unusable" ("target 'cpu-c' cannot build here:
  /// <why>") when its toolchain cannot build here.
  Expected<Target*> usableTarget(std::string_view name) const;

  /// `func` lowered for `target`'s device kind.
  Expected<LoweredFunc> lower(const Target& target, const ir::PrimFunc& func, std::stop_token stop = {}) const;
  /// The plugin's source text of `func` in `format`, under the target's lock.
  Expected<std::string> source(Target& target, const LoweredFunc& func, const std::string& format, BuildOptions options,
                               std::stop_token stop = {}) const;
  /// The plugin's kernel for `func`, under the target's lock.
  Expected<CompiledKernel> build(Target& target, LoweredFunc func, BuildOptions options,
                                 std::stop_token stop = {}) const;
  /// lower, then build.
  Expected<CompiledKernel> compile(Target& target, const ir::PrimFunc& func, BuildOptions options,
                                   std::stop_token stop = {}) const;
  /// export.h's exportKernel, under the target's lock.
  Expected<ExportResult> exportKernel(Target& target, const ir::PrimFunc& func, const LoweredFunc& lowered,
                                      ExportOptions options, std::stop_token stop = {}) const;

  /// Runs `kernel` on `args` (checked against its parameters; sizes from `sizes`).
  Expected<RunResult> run(const CompiledKernel& kernel, std::span<ir::NDArray> args, const ir::SizeBindings& sizes,
                          RunOptions options, std::stop_token stop = {}) const;
  /// One call of `kernel` per use (the kernel under test of verify.h).
  RunOnArgs runner(const CompiledKernel& kernel, const ir::SizeBindings& sizes, RunOptions options,
                   std::stop_token stop = {}) const;
  /// The unscheduled program `original` compiled by `target` (default BuildOptions) on
  /// first use, then one call per use: the compiled reference of verify.h.
  RunOnArgs compiledReference(Target& target, const ir::PrimFunc& original, const ir::SizeBindings& sizes,
                              RunOptions options, std::stop_token stop = {}) const;

  /// Verifies `kernel` (built from a schedule of `original`) on copies of `args` against
  /// the interpreter, or above options.interpretLimit against compiledReference() (by the
  /// kernel's target; for a GPU target by cpu-c, else cpu-llvm, named in the report).
  Expected<VerifyReport> verify(const CompiledKernel& kernel, const ir::PrimFunc& original,
                                const ir::SizeBindings& sizes, std::span<const ir::NDArray> args, const RunOptions& run,
                                VerifyOptions options, std::stop_token stop = {}) const;

  /// Times `kernel` on copies of `args` whose outputs (outputParams(original)) start at
  /// zero, as `options` say.
  Expected<TimedRun> time(const CompiledKernel& kernel, const ir::PrimFunc& original, const ir::SizeBindings& sizes,
                          std::span<const ir::NDArray> args, const RunOptions& run, const TimeOptions& options,
                          std::stop_token stop = {}) const;

private:
  TargetRegistry* m_registry;
};

} // namespace loopscape::codegen
