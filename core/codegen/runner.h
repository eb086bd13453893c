// Running a compiled Kernel on NDArrays, isolated or in process.
//
// Isolated (the default) runs the kernel in a separate `loopscape-worker` process (see
// runner_protocol.h): the arguments travel in POSIX shared memory (a memfd), the worker is
// started with posix_spawn (fork-free, so it is safe from a multi-threaded host and from
// OpenMP), it dlopens Kernel::libraryPath() and calls Kernel::symbol(). The parent waits
// at most `timeoutSeconds` for each kernel call (warm-up and timed calls alike), then
// kills the worker with SIGKILL. Every way
// the worker can fail becomes a Diagnostic and the caller keeps running:
//   runner.crashed     "the kernel crashed with SIGSEGV (segmentation fault)"
//   runner.timeout     "the kernel did not finish within 10 s and was stopped"
//   runner.worker-failed / worker's own codes (library or symbol not loadable, ...)
//   runner.no-worker   the worker executable cannot be found or started
//   runner.no-library  the kernel has no shared library (its target cannot run isolated)
// On success the output buffers (every argument, in fact) are copied back into `args`.
// A stop requested through RunOptions::stop kills the worker at once (SIGKILL, reaped)
// and returns "codegen.cancelled" (cancel.h); no worker process outlives the call.
//
// In process (Isolation::InProcess) calls Kernel::run directly: no protection, no copy,
// for benchmarks and for targets without a shared library; a stop is seen only before
// the calls start.
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/codegen/profile_timer.h"
#include "core/codegen/runner_protocol.h"
#include "core/codegen/target.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"

#include <cstdint>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::codegen {

enum class Isolation { Worker, InProcess };

struct RunOptions {
  Isolation isolation = Isolation::Worker;
  /// Limit on each kernel call in the worker (warm-up and timed calls alike), in seconds.
  double timeoutSeconds = 10;
  /// The worker executable; empty: findWorker().
  std::string workerPath;
  /// How the kernel is called; the default is one single call.
  TimingOptions timing = TimingOptions::single();
  /// TEST ONLY: skip checkArguments() in runKernel(), so a test can hand a kernel buffers
  /// smaller than its shapes (an out-of-bounds kernel) and check the crash is reported.
  bool uncheckedArguments = false;
  /// Cancels the run: the worker is killed (see the file comment).
  std::stop_token stop;
};

struct RunResult {
  TimingResult timing;
  /// What the worker printed on stdout/stderr (the kernel's own printing; empty in process).
  std::string workerOutput;
};

/// The worker executable: $LOOPSCAPE_WORKER if set, else `loopscape-worker` next to the
/// running executable, in ../worker/ (the build tree) or in ../libexec/loopscape/.
/// "runner.no-worker" names the places searched.
Expected<std::string> findWorker();

/// Checks that `args` and `sizes` fit `func`: one array per parameter with the parameter's
/// dtype and the shape its symbolic dimensions take under `sizes` (LoweredFunc::sizeVars
/// order). Codes "runner.arg-count", "runner.size-count", "runner.arg-mismatch".
Expected<void> checkArguments(const LoweredFunc& func, std::span<const ir::NDArray> args,
                              std::span<const std::int64_t> sizes);

/// The size arguments of `func` (LoweredFunc::sizeVars order) from bindings by name;
/// "runner.unbound-size" names a size without a value.
Expected<std::vector<std::int64_t>> sizeArguments(const LoweredFunc& func, const ir::SizeBindings& sizes);

/// Runs `kernel` (built from `func`) on `args` as `options` say; see the file comment.
Expected<RunResult> runKernel(const LoweredFunc& func, Kernel& kernel, std::span<ir::NDArray> args,
                              std::span<const std::int64_t> sizes, const RunOptions& options);

/// Runs the C-ABI function `symbol` of the shared library `libraryPath` in the worker on
/// `args` (copied in and back), with no knowledge of its signature: the caller vouches that
/// the arrays suit the function. `options.isolation` is ignored (always isolated).
Expected<RunResult> runLibraryIsolated(const std::string& libraryPath, const std::string& symbol,
                                       std::span<ir::NDArray> args, std::span<const std::int64_t> sizes,
                                       const RunOptions& options);

/// Runs `calls` in order in the worker over one arena: `arena` is copied into the shared
/// memory, every call's buffer offsets are into it, and it holds the results afterwards
/// (on success). options.timing times the whole sequence as one call; the time limit
/// applies to each call; with several calls result.timing.callSeconds has each one's
/// median time. `options.isolation` is ignored (always isolated).
Expected<RunResult> runCallsIsolated(std::vector<WorkerCall> calls, std::span<std::byte> arena,
                                     const RunOptions& options);

/// "SIGSEGV (segmentation fault)", "SIGFPE (floating-point exception)", ...
std::string describeSignal(int signal);

} // namespace loopscape::codegen
