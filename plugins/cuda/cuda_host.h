// The host library of a CUDA kernel (cuda plugin), built like the opencl plugin's
// (host_library.h): build() compiles, with the system compiler, a small C shared library
// that embeds the kernel's PTX and exports
//
//   void <name>(void* p0, ..., void* pN, int64_t s0, ...);   // the kernel's C ABI
//
// so that the isolated runner's `loopscape-worker` calls it exactly like a cpu-c kernel.
// It links nothing but the C library and needs no CUDA header: on its first call it
// loads the driver (libcuda.so.1) with dlopen and looks up the few driver API entry points
// it uses (the `_v2` symbols where the driver exports them: cuMemAlloc_v2, cuMemFree_v2,
// cuMemcpyHtoD_v2, cuMemcpyDtoH_v2, cuEventDestroy_v2, cuEventElapsedTime_v2 falling back
// to cuEventElapsedTime on a driver older than 12.8), initialises device 0 and makes its
// primary context current, loads the PTX with cuModuleLoadDataEx (the JIT's error log
// kept) and gets every kernel of the function (kept for later calls). Each call copies
// every parameter to a device buffer, launches the kernels in order (LoweredFunc::gpu, then
// moreKernels; grid and block from each launch, no dynamic shared memory: shared buffers
// are static in the CUDA C), waits for each, copies every parameter back and frees the
// buffers. A driver error is printed on stderr as
// "cuda: <function>: <error name>: <error string>" (the JIT log on a line after it) and
// the call aborts, which the runner reports with that output. Each launch is timed with
// CUDA events; with LOOPSCAPE_CUDA_PROFILE=1 in the environment each call prints
// "cuda: kernel 0.0123 ms (CUDA events)" ("cuda: 2 kernels ..." for several), and
// <name>_kernel_seconds() returns the last call's time.
#pragma once

#include "core/codegen/target.h"

#include <string>

namespace loopscape::codegen::cuda {

/// The host library's C source for `func` (a GPU LoweredFunc) and its `ptx`. Errors:
/// "cuda.unsupported" for a parameter shape it cannot size.
Expected<std::string> hostSource(const LoweredFunc& func, const std::string& ptx);

/// Compiles `host` into a cached shared library (linked with -ldl); its path. Errors:
/// "cuda.no-compiler", "cuda.compile-error" (with the compiler's output),
/// "codegen.cancelled".
Expected<std::string> buildHostLibrary(const std::string& host, const BuildOptions& options);

} // namespace loopscape::codegen::cuda
