// The cuda target: the GPU lowering's kernel printed as CUDA C (gpu_source.h), compiled to
// PTX by NVRTC and checked by `ptxas -v` (cuda_toolkit.h: the toolkit found at run time,
// loaded with dlopen). Formats: "cuda" (the kernel), "ptx" (NVRTC's PTX for
// LOOPSCAPE_CUDA_ARCH, default sm_80) and "ptxas" (ptxas -v: registers, shared memory).
// Running needs the driver (libcuda.so.1); without it build() says so after compiling
// the PTX. With a driver, running is not implemented yet either (TODO(#18)): no machine
// here has a GPU to test it on.
#include "core/codegen/cancel.h"
#include "core/codegen/target.h"
#include "plugins/common/gpu_source.h"
#include "plugins/common/toolchain.h"
#include "plugins/cuda/cuda_toolkit.h"

#include <fmt/format.h>

namespace loopscape::codegen::cuda {

namespace {

class CudaTarget final : public Target {
public:
  std::string name() const override { return "cuda"; }
  std::string deviceKind() const override { return "gpu"; }
  std::string description() const override {
    return "CUDA C compiled to PTX by NVRTC and checked by ptxas (toolkit and driver loaded at run time)";
  }
  TargetCapabilities capabilities() const override {
    TargetCapabilities caps;
    caps.gpuThreads = true;
    caps.sharedMemory = true;
    return caps; // GpuLimits' defaults are CUDA's (1024 threads, 48 KiB static shared memory)
  }
  ToolchainStatus toolchain() const override {
    const Toolkit& t = toolkit();
    if (t.root.empty())
      return {false, "no CUDA toolkit (looked in $CUDA_HOME and /usr/local/cuda): only the cuda format works"};
    const std::string compiles = fmt::format("toolkit at {} (NVRTC, {}) compiles to PTX for {}", t.root,
                                             t.ptxasPath.empty() ? "no ptxas" : "ptxas", architecture());
    if (!t.driver) return {false, compiles + "; cannot run: no CUDA driver (" + t.driverWhy + ")"};
    return {false, compiles + "; a CUDA driver is present, but running kernels is not implemented yet"};
  }
  std::vector<std::string> sourceFormats() const override { return {"cuda", "ptx", "ptxas"}; }

  Expected<std::string> source(const LoweredFunc& func, const std::string& format,
                               const BuildOptions& options) override {
    if (options.stop.stop_requested()) return Unexpected(cancelledDiagnostic("building"));
    if (format != "cuda" && format != "ptx" && format != "ptxas")
      return Unexpected(Diagnostic::error("codegen.unknown-format", "target cuda has no source format '" + format +
                                                                        "' (formats: cuda, ptx, ptxas)"));
    auto kernel = gpu::printKernel(func, gpu::Dialect::Cuda);
    if (!kernel) return Unexpected(kernel.error());
    if (format == "cuda") return kernel->text;
    auto ptx = compileToPtx(kernel->text, func.name);
    if (!ptx || format == "ptx") return ptx;
    auto dir = toolchain::cacheDir(options, "cuda");
    if (!dir) return Unexpected(dir.error());
    return ptxasUsage(*ptx, *dir, options.stop);
  }

  Expected<std::unique_ptr<Kernel>> build(const LoweredFunc& func, const BuildOptions& options) override {
    auto ptx = source(func, "ptx", options);
    if (!ptx) return Unexpected(ptx.error());
    const Toolkit& t = toolkit();
    if (!t.driver)
      return Unexpected(
          Diagnostic::error("cuda.no-driver", "cannot run CUDA kernels here: no CUDA driver (" + t.driverWhy +
                                                  "); the cuda, ptx and ptxas formats work without a GPU"));
    return Unexpected(Diagnostic::error("cuda.cannot-run", "running CUDA kernels is not implemented yet (the PTX "
                                                           "compiles; print it with --format ptx)"));
  }
};

} // namespace

} // namespace loopscape::codegen::cuda

extern "C" int loopscape_target_abi_version() { return loopscape::codegen::kTargetAbiVersion; }

extern "C" loopscape::codegen::Target* loopscape_create_target() { return new loopscape::codegen::cuda::CudaTarget(); }
