// What the GPU plugins' host libraries share (opencl: cl_host.h, cuda: cuda_host.h). A
// GPU plugin does not run its device API in the host process: build() compiles, with the
// system compiler, a small C shared library that embeds the kernel (OpenCL C, PTX) and
// exports the kernel's C ABI
//
//   void <name>(void* p0, ..., void* pN, int64_t s0, ...);
//
// so that the isolated runner's `loopscape-worker` calls it exactly like a cpu-c kernel.
// Shared here: the kernels of a function in launch order, that C signature, each
// parameter's size in bytes as C over the size arguments, compiling the source into a
// cached shared library (toolchain.h's cache), and the Kernel handle of the library.
#pragma once

#include "core/codegen/target.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::codegen::hostlib {

/// `func` and then its moreKernels: the kernels in the order they are launched.
std::vector<const LoweredFunc*> kernelsInOrder(const LoweredFunc& func);

/// The exported function's parameter list: "void* p0, void* p1, int64_t s0" ("void"
/// when there are none).
std::string signature(const LoweredFunc& func);

/// The byte size of parameter `i` (flatParams[i]) as C over the size arguments s0, s1, ...:
/// "(size_t)((int64_t)4096) * sizeof(float)". Error "<plugin>.unsupported" for a shape
/// expression it cannot print.
Expected<std::string> byteSize(const LoweredFunc& func, std::size_t i, std::string_view plugin);

/// Compiles `source` (C, -std=gnu11 -O2) into a cached shared library linked with `libs`
/// ("-lOpenCL", "-ldl"); its path. `what` names the library in errors ("OpenCL host
/// library"). Errors: "<plugin>.no-compiler", "<plugin>.write-failed",
/// "<plugin>.compile-error" (with the compiler's output), "codegen.cancelled".
Expected<std::string> buildLibrary(std::string_view plugin, std::string_view what, const std::string& source,
                                   const std::vector<std::string>& libs, const BuildOptions& options);

/// The Kernel of a host library at `path` exporting `symbol`, with `buffers` pointer and
/// `sizes` int64 arguments. The worker loads the library itself; Kernel::run (in process,
/// for benchmarks) loads it into this process on first use. Its errors are
/// "<plugin>.bad-arguments" and "<plugin>.load-failed".
std::unique_ptr<Kernel> makeKernel(std::string plugin, std::string path, std::string symbol, std::size_t buffers,
                                   std::size_t sizes);

} // namespace loopscape::codegen::hostlib
