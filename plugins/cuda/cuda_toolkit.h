// The CUDA toolkit and driver as the cuda plugin finds them at run time, without linking
// either: NVRTC (libnvrtc.so from $CUDA_HOME/lib64, /usr/local/cuda/lib64, then the
// loader's path) is loaded with dlopen on first use to compile CUDA C to PTX; ptxas
// ($CUDA_HOME/bin, /usr/local/cuda/bin) reports a kernel's registers and shared memory and
// assembles the PTX into a cubin whose machine code (SASS) cuobjdump lists, where the
// toolkit has cuobjdump (the CUDA toolkit's, not Debian's nvidia-cuda-toolkit); the driver (libcuda.so.1) is only
// looked for here: running kernels needs it, and the host library (cuda_host.h) loads it again in the worker that runs
// them.
#pragma once

#include "core/ir/diagnostic.h"

#include <stop_token>
#include <string>

namespace loopscape::codegen::cuda {

struct Toolkit {
  std::string root;      ///< "/usr/local/cuda" (resolved: "/usr/local/cuda-13.0"), or ""
  std::string nvrtcPath; ///< the NVRTC library found, or ""
  std::string ptxasPath; ///< ptxas found, or ""
  std::string cuobjdumpPath; ///< cuobjdump found, or "": the "sass" format needs it and ptxas
  bool driver = false;   ///< libcuda.so.1 can be loaded
  std::string driverWhy; ///< why not ("libcuda.so.1: cannot open shared object file ...")
};

/// Found once per process (thread-safe).
const Toolkit& toolkit();

/// The GPU architecture compiled for: $LOOPSCAPE_CUDA_ARCH ("sm_90") or "sm_80".
std::string architecture();

/// NVRTC's version, "13.0", or why NVRTC cannot be loaded ("cuda.no-nvrtc").
Expected<std::string> nvrtcVersion();

/// `source` compiled by NVRTC to PTX for architecture() (compute_XX), with --fmad=false
/// (no FMA contraction: results match the interpreter's operation order). Errors:
/// "cuda.no-nvrtc", "cuda.compile-error" (NVRTC's log as a note).
Expected<std::string> compileToPtx(const std::string& source, const std::string& name);

/// `ptxas -v` of `ptx` for architecture(): its info lines (registers, shared memory,
/// spills). Errors: "cuda.no-ptxas", "cuda.ptxas-error".
Expected<std::string> ptxasUsage(const std::string& ptx, const std::string& workDir, std::stop_token stop);

/// The SASS of `ptx` for architecture(): ptxas assembles it into a cubin, `cuobjdump
/// --dump-sass` lists the cubin. Errors: "cuda.no-ptxas", "cuda.no-cuobjdump",
/// "cuda.ptxas-error", "cuda.cuobjdump-error".
Expected<std::string> sassListing(const std::string& ptx, const std::string& workDir, std::stop_token stop);

} // namespace loopscape::codegen::cuda
