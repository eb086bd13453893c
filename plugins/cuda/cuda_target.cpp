// The cuda target: the GPU lowering's kernel printed as CUDA C (gpu_source.h), compiled to
// PTX by NVRTC and checked by `ptxas -v` (cuda_toolkit.h: the toolkit found at run time,
// loaded with dlopen), and run through a host library (cuda_host.h: C compiled by the
// system compiler, embedding the PTX and loading the driver itself) in the isolated
// worker, like the opencl target. Formats: "cuda" (the kernel), "ptx" (NVRTC's PTX for
// LOOPSCAPE_CUDA_ARCH, default sm_80), "ptxas" (ptxas -v: registers, shared memory),
// "sass" (the machine code, by ptxas and cuobjdump; listed only where the toolkit has
// cuobjdump) and "host" (the host library's C source). Running needs the driver (libcuda.so.1); without
// it build() says so after compiling the PTX ("cuda.no-driver"), and toolchain() says the
// target cannot run. Whether a device is there is found on the first call (a driver
// without a GPU fails there: "cuda: cuInit: CUDA_ERROR_NO_DEVICE: ...").
#include "core/codegen/cancel.h"
#include "core/codegen/target.h"
#include "plugins/common/gpu_source.h"
#include "plugins/common/host_library.h"
#include "plugins/common/toolchain.h"
#include "plugins/cuda/cuda_host.h"
#include "plugins/cuda/cuda_toolkit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace loopscape::codegen::cuda {

namespace {

class CudaTarget final : public Target {
public:
  std::string name() const override { return "cuda"; }
  std::string deviceKind() const override { return "gpu"; }
  std::string description() const override {
    return "CUDA C compiled to PTX by NVRTC and checked by ptxas, run through a host library that loads the CUDA "
           "driver (toolkit and driver found at run time)";
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
    const ToolchainStatus cc = toolchain::compilerStatus();
    if (!cc.usable) return {false, compiles + "; a CUDA driver is present, but no host library: " + cc.message};
    return {true, compiles + "; runs on device 0 of the CUDA driver (libcuda.so.1); host library by " + cc.message};
  }
  std::vector<std::string> sourceFormats() const override {
    if (toolkit().cuobjdumpPath.empty()) return {"cuda", "ptx", "ptxas", "host"};
    return {"cuda", "ptx", "ptxas", "sass", "host"};
  }

  Expected<std::string> source(const LoweredFunc& func, const std::string& format,
                               const BuildOptions& options) override {
    if (options.stop.stop_requested()) return Unexpected(cancelledDiagnostic("building"));
    const auto formats = sourceFormats();
    if (std::ranges::find(formats, format) == formats.end())
      return Unexpected(Diagnostic::error(
          "codegen.unknown-format",
          fmt::format("target cuda has no source format '{}' (formats: {}){}", format, fmt::join(formats, ", "),
                      format == "sass" ? "; sass needs cuobjdump from the CUDA toolkit" : "")));
    auto kernel = gpu::printKernel(func, gpu::Dialect::Cuda);
    if (!kernel) return Unexpected(kernel.error());
    if (format == "cuda") return kernel->text;
    auto ptx = compileToPtx(kernel->text, func.name);
    if (!ptx || format == "ptx") return ptx;
    if (format == "host") return hostSource(func, *ptx);
    auto dir = toolchain::cacheDir(options, "cuda");
    if (!dir) return Unexpected(dir.error());
    if (format == "sass") return sassListing(*ptx, *dir, options.stop);
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
    auto host = hostSource(func, *ptx);
    if (!host) return Unexpected(host.error());
    auto path = buildHostLibrary(*host, options);
    if (!path) return Unexpected(path.error());
    return hostlib::makeKernel("cuda", *path, func.name, func.flatParams.size(), func.sizeVars.size());
  }
};

} // namespace

} // namespace loopscape::codegen::cuda

extern "C" int loopscape_target_abi_version() { return loopscape::codegen::kTargetAbiVersion; }

extern "C" loopscape::codegen::Target* loopscape_create_target() { return new loopscape::codegen::cuda::CudaTarget(); }
