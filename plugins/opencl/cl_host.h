// The host library of an OpenCL kernel (opencl plugin). The plugin does not run OpenCL in
// the host process: build() compiles, with the system compiler against the ICD loader
// (-lOpenCL), a small C shared library that embeds the OpenCL C source and exports
//
//   void <name>(void* p0, ..., void* pN, int64_t s0, ...);   // the kernel's C ABI
//
// so that the isolated runner's `loopscape-worker` calls it exactly like a cpu-c kernel
// (what the cuda plugin's host library shares with it: plugins/common/host_library.h).
// On its first call it picks the device (cl_device.h's choice), creates a context and a
// profiling queue and builds the program (kept for later calls); each call copies every
// parameter to a device buffer, launches the NDRange of the lowered launch (global =
// grid x block, local = block), waits, and copies every parameter back. An OpenCL error
// (the program's build log included) is printed on stderr as "opencl: ..." and the call
// aborts, which the runner reports with that output. With LOOPSCAPE_OPENCL_PROFILE=1 in
// the environment each call prints the kernel's time from its profiling event
// ("opencl: kernel 0.0123 ms (profiling event)"), and <name>_kernel_seconds() returns the
// last one.
#pragma once

#include "core/codegen/target.h"

#include <string>

namespace loopscape::codegen::opencl {

/// The host library's C source for `func` (a GPU LoweredFunc) and its OpenCL C `kernel`.
/// Errors: "opencl.unsupported" for a parameter shape it cannot size.
Expected<std::string> hostSource(const LoweredFunc& func, const std::string& kernel);

/// Compiles `host` into a cached shared library; its path. Errors: "opencl.no-compiler",
/// "opencl.compile-error" (with the compiler's output), "codegen.cancelled".
Expected<std::string> buildHostLibrary(const std::string& host, const BuildOptions& options);

} // namespace loopscape::codegen::opencl
