#include "core/codegen/pipeline.h"

#include "core/codegen/cancel.h"
#include "core/codegen/lower.h"

#include <fmt/format.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

namespace loopscape::codegen {

namespace {

/// The target's lock (target.h's policy), waited for while no stop is requested; none
/// (an empty lock) for source() and build() of a target with concurrent builds.
Expected<std::unique_lock<std::mutex>> lockTarget(const TargetRegistry& registry, const Target& target,
                                                  const std::stop_token& stop, bool concurrentOk = false) {
  if (concurrentOk && target.capabilities().concurrentBuilds) return std::unique_lock<std::mutex>();
  std::unique_lock lock(registry.targetLock(target), std::defer_lock);
  while (!lock.try_lock()) {
    if (stop.stop_requested()) return Unexpected(cancelledDiagnostic("building"));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return lock;
}

/// `result`, or the cancellation of `stage` when a stop was requested meanwhile (the stop
/// may be why it failed).
template <typename T> Expected<T> unlessStopped(Expected<T> result, const std::stop_token& stop, const char* stage) {
  if (stop.stop_requested()) return Unexpected(cancelledDiagnostic(stage));
  return result;
}

} // namespace

Pipeline::Pipeline() : m_registry(&TargetRegistry::global()) {}

Pipeline::Pipeline(TargetRegistry& registry) : m_registry(&registry) {}

Expected<Target*> Pipeline::findTarget(std::string_view name) const { return m_registry->findTarget(name); }

Expected<Target*> Pipeline::usableTarget(std::string_view name) const {
  auto target = findTarget(name);
  if (!target) return target;
  const ToolchainStatus toolchain = (*target)->toolchain();
  if (!toolchain.usable)
    return Unexpected(Diagnostic::error("codegen.toolchain-unusable",
                                        fmt::format("target '{}' cannot build here: {}", name, toolchain.message)));
  return target;
}

Expected<LoweredFunc> Pipeline::lower(const Target& target, const ir::PrimFunc& func, std::stop_token stop) const {
  LowerOptions options;
  options.deviceKind = target.deviceKind();
  options.gpuLimits = target.capabilities().gpu;
  options.maskedLoads = target.capabilities().maskedLoads;
  options.stop = std::move(stop);
  return codegen::lower(func, options);
}

Expected<std::string> Pipeline::source(Target& target, const LoweredFunc& func, const std::string& format,
                                       BuildOptions options, std::stop_token stop) const {
  auto lock = lockTarget(*m_registry, target, stop, /*concurrentOk=*/true);
  if (!lock) return Unexpected(lock.error());
  options.stop = stop;
  return unlessStopped(target.source(func, format, options), stop, "building");
}

Expected<CompiledKernel> Pipeline::build(Target& target, LoweredFunc func, BuildOptions options,
                                         std::stop_token stop) const {
  auto lock = lockTarget(*m_registry, target, stop, /*concurrentOk=*/true);
  if (!lock) return Unexpected(lock.error());
  options.stop = stop;
  auto kernel = unlessStopped(target.build(func, options), stop, "building");
  if (!kernel) return Unexpected(kernel.error());
  return CompiledKernel{&target, std::move(func), std::shared_ptr<Kernel>(std::move(*kernel))};
}

Expected<CompiledKernel> Pipeline::compile(Target& target, const ir::PrimFunc& func, BuildOptions options,
                                           std::stop_token stop) const {
  auto lowered = lower(target, func, stop);
  if (!lowered) return Unexpected(lowered.error());
  return build(target, std::move(*lowered), std::move(options), std::move(stop));
}

Expected<ExportResult> Pipeline::exportKernel(Target& target, const ir::PrimFunc& func, const LoweredFunc& lowered,
                                              ExportOptions options, std::stop_token stop) const {
  auto lock = lockTarget(*m_registry, target, stop);
  if (!lock) return Unexpected(lock.error());
  options.build.stop = stop;
  return unlessStopped(codegen::exportKernel(target, func, lowered, options), stop, "building");
}

Expected<RunResult> Pipeline::run(const CompiledKernel& kernel, std::span<ir::NDArray> args,
                                  const ir::SizeBindings& sizes, RunOptions options, std::stop_token stop) const {
  auto sizeArgs = sizeArguments(kernel.func, sizes);
  if (!sizeArgs) return Unexpected(sizeArgs.error());
  options.stop = stop;
  return unlessStopped(runKernel(kernel.func, *kernel.kernel, args, *sizeArgs, options), stop, "running");
}

RunOnArgs Pipeline::runner(const CompiledKernel& kernel, const ir::SizeBindings& sizes, RunOptions options,
                           std::stop_token stop) const {
  options.timing = TimingOptions::single();
  return [self = *this, &kernel, sizes, options, stop](std::span<ir::NDArray> args) -> Expected<void> {
    auto ran = self.run(kernel, args, sizes, options, stop);
    if (!ran) return Unexpected(ran.error());
    return {};
  };
}

RunOnArgs Pipeline::compiledReference(Target& target, const ir::PrimFunc& original, const ir::SizeBindings& sizes,
                                      RunOptions options, std::stop_token stop) const {
  auto built = std::make_shared<std::optional<CompiledKernel>>();
  return [self = *this, &target, original, sizes, options, stop, built](std::span<ir::NDArray> args) -> Expected<void> {
    if (!*built) {
      auto compiled = self.compile(target, original, BuildOptions{}, stop);
      if (!compiled) return Unexpected(compiled.error());
      *built = std::move(*compiled);
    }
    return self.runner(**built, sizes, options, stop)(args);
  };
}

Expected<VerifyReport> Pipeline::verify(const CompiledKernel& kernel, const ir::PrimFunc& original,
                                        const ir::SizeBindings& sizes, std::span<const ir::NDArray> args,
                                        const RunOptions& run, VerifyOptions options, std::stop_token stop) const {
  options.stop = stop;
  // A GPU target cannot compile the unscheduled program (no bound loops): a CPU target
  // compiles the reference (the first usable of cpu-c, cpu-llvm); none: no reference.
  Target* reference = kernel.target;
  if (kernel.target->deviceKind() == "gpu") {
    reference = nullptr;
    for (const char* name : {"cpu-c", "cpu-llvm"})
      if (auto t = usableTarget(name); t && (*t)->deviceKind() == "cpu") {
        reference = *t;
        break;
      }
    if (reference) options.compiledReferenceBy = reference->name();
  }
  RunOnArgs referenceRun = reference ? compiledReference(*reference, original, sizes, run, stop) : RunOnArgs();
  return codegen::verify(original, sizes, args, runner(kernel, sizes, run, stop), referenceRun, options);
}

Expected<TimedRun> Pipeline::time(const CompiledKernel& kernel, const ir::PrimFunc& original,
                                  const ir::SizeBindings& sizes, std::span<const ir::NDArray> args,
                                  const RunOptions& run, const TimeOptions& options, std::stop_token stop) const {
  const auto outputs = outputParams(original);
  TimedRun out;
  RunOptions timed = run;
  if (!options.runPerRepeat) {
    out.args = freshCopies(args, outputs);
    timed.timing = options.timing;
    auto ran = this->run(kernel, out.args, sizes, timed, stop);
    if (!ran) return Unexpected(ran.error());
    out.timing = std::move(ran->timing);
    out.workerOutput = std::move(ran->workerOutput);
    return out;
  }
  for (int i = 0; i < options.timing.repeat; ++i) {
    if (options.onRepeat) options.onRepeat(i);
    if (stop.stop_requested()) return Unexpected(cancelledDiagnostic("running"));
    out.args = freshCopies(args, outputs);
    timed.timing = options.timing;
    timed.timing.repeat = 1;
    timed.timing.number = i == 0 ? options.timing.number : out.timing.number;
    auto ran = this->run(kernel, out.args, sizes, timed, stop);
    if (!ran) return Unexpected(ran.error());
    out.timing.number = ran->timing.number;
    out.timing.perRepeat.push_back(ran->timing.perRepeat.front());
    out.timing.counters = ran->timing.counters;
    out.timing.countersRequested = ran->timing.countersRequested;
    out.workerOutput += ran->workerOutput;
  }
  return out;
}

} // namespace loopscape::codegen
