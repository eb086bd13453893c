// The compile-and-measure path that `run` and `compare --run` share: a program built by a
// target plugin through the codegen pipeline, then timed with its profile (useful work,
// compulsory and modeled bytes, cores, the machine's peak). Failures print their
// diagnostic to stderr and set the command's exit status.
#pragma once

#include "core/codegen/pipeline.h"
#include "core/codegen/profile.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/prim_func.h"

#include <optional>
#include <span>
#include <string>

namespace loopscape::cli {

struct BuiltKernel {
  codegen::Target* target = nullptr;
  codegen::CompiledKernel kernel;
};

/// `scheduled` lowered and built by the target plugin `targetName`. On failure prints the
/// diagnostic and sets `exitCode`: an unknown target or a program the target cannot lower
/// is bad input; a toolchain that cannot build here, or a failed build, an internal
/// failure.
std::optional<BuiltKernel> buildKernel(const codegen::Pipeline& pipeline, const std::string& targetName,
                                       const ir::PrimFunc& scheduled, const codegen::BuildOptions& options,
                                       int& exitCode);

struct TimedProfile {
  codegen::TimedRun run;          ///< the timing and the arguments after the last call
  codegen::ProfileReport profile; ///< with the mode and, unless left out, the peak
};

/// Times `kernel` (built from `scheduled`, a schedule of `original`) on copies of `args`
/// and makes its profile (codegen::makeProfile; `threads` as BuildOptions::threads; the
/// modeled traffic of the kernel's lowered function, codegen::addModeledTraffic), with
/// profile.mode from `run` and the machine's peak when `withPeak` (its cacheNote is left
/// for the caller to print). On failure prints the diagnostic and sets `exitCode`
/// (internal failure).
std::optional<TimedProfile> timeKernel(const codegen::Pipeline& pipeline, const codegen::CompiledKernel& kernel,
                                       const ir::PrimFunc& original, const ir::PrimFunc& scheduled,
                                       const ir::SizeBindings& sizes, std::span<const ir::NDArray> args,
                                       const codegen::RunOptions& run, const codegen::TimingOptions& timing,
                                       int threads, bool withPeak, int& exitCode);

} // namespace loopscape::cli
