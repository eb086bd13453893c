// The Target plugin interface. A plugin is a shared library that exports
//
//   extern "C" int loopscape_target_abi_version();          // must return kTargetAbiVersion
//   extern "C" loopscape::codegen::Target* loopscape_create_target();
//
// The registry (target_registry.h) checks the version before calling the factory and
// refuses a mismatch with a message naming the file and both versions. A plugin turns a
// LoweredFunc into source text for the code view and into a runnable Kernel. A missing
// toolchain or device makes the plugin say so through toolchain(), never crash the host.
//
// Threads (the one lock policy): a Target need not be thread-safe in source() and build().
// The host never calls source() or build() of one Target from two threads at once: every
// such call goes through codegen::Pipeline (pipeline.h), which holds that target's lock
// (TargetRegistry::targetLock) for the duration of the call; calls into different targets
// may run in parallel. A plugin whose source() and build() are thread-safe says so with
// TargetCapabilities::concurrentBuilds, and then gets no lock for them. name(),
// deviceKind(), description(), capabilities(), toolchain() and sourceFormats() may be
// called from any thread at any time without the lock (plugins compute them once or from
// immutable state). A Kernel is used by one thread at a time and may outlive the call
// that built it; its run() and libraryPath() need no lock.
//
// Cancellation: BuildOptions::stop is checked by source() and build() between their
// steps, and a compiler process they start is killed when a stop is requested; they
// then return codegen::cancelledDiagnostic("building") (cancel.h).
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/ir/diagnostic.h"

#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::codegen {

/// Bumped whenever Target, Kernel, LoweredFunc, BuildOptions or the IR node layout changes.
inline constexpr int kTargetAbiVersion = 7;

/// What a GPU target allows one kernel (TVM's VerifyGPUCode limits); the GPU lowering
/// (lower_gpu.h) checks a kernel against them. Zero means "no limit known".
struct GpuLimits {
  std::int64_t maxThreadsPerBlock = 1024;                  ///< product of the threadIdx extents
  std::int64_t maxThreadDim[3] = {1024, 1024, 64};         ///< threadIdx.x, .y, .z
  std::int64_t maxGridDim[3] = {2147483647, 65535, 65535}; ///< blockIdx.x, .y, .z
  std::int64_t maxSharedBytesPerBlock = 48 * 1024;         ///< all "shared" buffers of a kernel
  std::int64_t maxLocalBytesPerThread = 16 * 1024;         ///< all "local" buffers of one thread
};

struct TargetCapabilities {
  bool parallel = false;     ///< runs Parallel loops on several threads
  int vectorBits = 0;        ///< widest vector register (512 for AVX-512), 0 if none
  bool gpuThreads = false;   ///< supports ThreadBinding loops
  bool sharedMemory = false; ///< has a "shared" scope distinct from global
  GpuLimits gpu;             ///< limits of one kernel (deviceKind "gpu" only)
  /// source() and build() may run on several threads at once (the plugin keeps no state
  /// between calls): the pipeline takes no lock for them, and the tuner builds a batch of
  /// candidates in parallel.
  bool concurrentBuilds = false;
  /// A vector load in a branch of a vector Select touches only the lanes that branch is
  /// taken for (LowerOptions::maskedLoads: the lowering then vectorizes such loops).
  bool maskedLoads = false;
};

struct ToolchainStatus {
  bool usable = false;
  std::string message; ///< "gcc 12.2.0 at /usr/bin/cc", or why it is not usable
};

/// Lines of a source() text that one loop of the LoweredFunc produced (the code view's
/// links from a loop to its code). The key is the loop's For::loopVar: the lowering passes
/// keep it, so it is also the identity of the loop in the PrimFunc that was lowered (two
/// loops `i` of two blocks have two Vars).
struct LoopLines {
  const ir::ExprNode* loopVar = nullptr;
  int firstLine = 0, lastLine = 0; ///< 1-based, inclusive
};

/// What source() says about its text's lines, when asked (BuildOptions::sourceMap).
struct SourceMap {
  /// The plugin mapped the text: every loop that has lines of its own in it is in `loops`
  /// (a loop unrolled or vectorized away has none). False: the format is not mapped.
  bool linked = false;
  /// Ordered by firstLine; one loop may have several ranges (e.g. a parallel loop's header
  /// and its outlined body), and ranges nest like the loops.
  std::vector<LoopLines> loops;
};

struct BuildOptions {
  bool fastMath = false; ///< allow reassociation etc. (only when the user asks)
  int threads = 0;       ///< parallel loop threads; 0 = all cores
  std::string workDir;   ///< where generated files go (a temporary dir if empty)
  std::stop_token stop;  ///< cancels source() and build() (see the file comment)
  /// When set, source() fills it for the text it returns (build() ignores it).
  SourceMap* sourceMap = nullptr;
};

/// A compiled function. `run` takes one pointer per parameter (flat row-major data of the
/// parameter's dtype) and one value per size variable, in LoweredFunc order.
class Kernel {
public:
  virtual ~Kernel() = default;
  virtual Expected<void> run(std::span<void* const> buffers, std::span<const std::int64_t> sizes) = 0;
  /// Path of a shared library holding the kernel as a C-ABI function, if the target makes
  /// one (used by the out-of-process runner and by export); empty otherwise.
  virtual std::string libraryPath() const { return {}; }
  /// Symbol of the kernel function in libraryPath().
  virtual std::string symbol() const { return {}; }
};

class Target {
public:
  virtual ~Target() = default;
  virtual std::string name() const = 0;        ///< "cpu-c", "cpu-llvm", "cuda"
  virtual std::string deviceKind() const = 0;  ///< "cpu", "gpu"
  virtual std::string description() const = 0; ///< one line for `loopscape-cli targets`
  virtual TargetCapabilities capabilities() const = 0;
  virtual ToolchainStatus toolchain() const = 0;
  /// Formats source() accepts, e.g. {"c", "asm"} or {"llvm", "asm"}.
  virtual std::vector<std::string> sourceFormats() const = 0;
  virtual Expected<std::string> source(const LoweredFunc& func, const std::string& format,
                                       const BuildOptions& options) = 0;
  virtual Expected<std::unique_ptr<Kernel>> build(const LoweredFunc& func, const BuildOptions& options) = 0;
};

} // namespace loopscape::codegen

extern "C" {
using LoopscapeTargetAbiVersionFn = int (*)();
using LoopscapeCreateTargetFn = loopscape::codegen::Target* (*)();
}
