#include "run_measure.h"

#include "cli_support.h"

#include "core/codegen/machine_peak.h"

namespace loopscape::cli {

std::optional<BuiltKernel> buildKernel(const codegen::Pipeline& pipeline, const std::string& targetName,
                                       const ir::PrimFunc& scheduled, const codegen::BuildOptions& options,
                                       int& exitCode) {
  auto target = pipeline.findTarget(targetName);
  if (!target) {
    printDiagnostic(target.error());
    exitCode = kExitBadInput;
    return std::nullopt;
  }
  if (auto usable = pipeline.usableTarget(targetName); !usable) {
    printDiagnostic(usable.error());
    exitCode = kExitInternal;
    return std::nullopt;
  }
  auto lowered = pipeline.lower(**target, scheduled);
  if (!lowered) {
    printDiagnostic(lowered.error());
    exitCode = kExitBadInput;
    return std::nullopt;
  }
  auto kernel = pipeline.build(**target, std::move(*lowered), options);
  if (!kernel) {
    printDiagnostic(kernel.error());
    exitCode = kExitInternal;
    return std::nullopt;
  }
  return BuiltKernel{*target, std::move(*kernel)};
}

std::optional<TimedProfile> timeKernel(const codegen::Pipeline& pipeline, const codegen::CompiledKernel& kernel,
                                       const ir::PrimFunc& original, const ir::PrimFunc& scheduled,
                                       const ir::SizeBindings& sizes, std::span<const ir::NDArray> args,
                                       const codegen::RunOptions& run, const codegen::TimingOptions& timing,
                                       int threads, bool withPeak, int& exitCode) {
  codegen::TimeOptions timeOptions;
  timeOptions.timing = timing;
  auto ran = pipeline.time(kernel, original, sizes, args, run, timeOptions);
  if (!ran) {
    printDiagnostic(ran.error());
    exitCode = kExitInternal;
    return std::nullopt;
  }
  codegen::ProfileReport profile = codegen::makeProfile(original, scheduled, sizes, ran->timing, threads);
  profile.mode = run.isolation == codegen::Isolation::InProcess ? "in process" : "isolated worker";
  if (kernel.func.gpu) {
    profile.peakNote = codegen::kGpuPeakNote;
  } else {
    codegen::addModeledTraffic(profile, kernel.func, sizes);
    if (withPeak) profile.peak = codegen::peakFor(profile);
  }
  return TimedProfile{std::move(*ran), std::move(profile)};
}

} // namespace loopscape::cli
