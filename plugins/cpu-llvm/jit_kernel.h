// The Kernel of the cpu-llvm plugin (internal): one position-independent object file
// loaded into its own ORC LLJIT instance for in-process runs, and, on first request, linked
// by the system compiler into a shared library for the out-of-process runner and export.
//
// The JIT resolves loopscape_parallel_for to the plugin's own copy of the runtime (an
// absolute symbol in the main JITDylib) and libm/libc functions (tanhf, aligned_alloc,
// ...) from the process. The shared library is `cc -shared -fopenmp` (the system compiler
// of plugins/common/toolchain.h, $CC honoured) of the same object plus parallel_runtime.c
// (shipped inside the plugin as a string); it is cached by a hash of the object bytes in
// the "cpu-llvm" cache directory (toolchain::cacheDir). The link happens on the first
// libraryPath() call and honours the stop token of the build that made the kernel.
#pragma once

#include "core/codegen/target.h"

#include <memory>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::codegen::cpullvm {

struct KernelSpec {
  std::vector<char> object;  ///< ELF object holding `symbol` and `packedSymbol`
  std::string symbol;        ///< kernel function, C ABI: pointers then int64 sizes
  std::string packedSymbol;  ///< void(void* const* buffers, const int64_t* sizes)
  std::size_t buffers = 0;
  std::size_t sizes = 0;
  std::string workDir;       ///< BuildOptions::workDir
  std::stop_token stop;      ///< BuildOptions::stop: cancels the link
};

/// Loads the object into a fresh LLJIT. Errors: "cpu-llvm.jit" with LLVM's message.
Expected<std::unique_ptr<Kernel>> makeJitKernel(KernelSpec spec);

/// Links `object` and the parallel runtime into a shared library (cached by content hash)
/// and returns its path. Errors: "cpu-llvm.link" with the compiler's output,
/// "cpu-llvm.no-compiler", "codegen.cancelled" (the compiler is killed).
Expected<std::string> linkSharedLibrary(const std::vector<char>& object, const std::string& workDir,
                                        std::stop_token stop);

} // namespace loopscape::codegen::cpullvm

extern "C" {
/// The parallel-for runtime (parallel_runtime.c).
void loopscape_parallel_for(std::int64_t extent, void (*body)(std::int64_t, std::int64_t, void*), void* closure,
                            std::int32_t threads);
}
