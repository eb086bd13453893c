// The opencl target: the GPU lowering's kernel printed as OpenCL C (gpu_source.h), run
// through a host library (cl_host.h) compiled by the system compiler against the OpenCL
// ICD loader, on the device that cl_device.h finds (PoCL on a machine without a GPU).
// Formats: "opencl" (the kernel) and "host" (the host library's C source). Without an
// OpenCL platform the plugin still loads, prints source and says why it cannot run
// (toolchain()).
#include "core/codegen/cancel.h"
#include "core/codegen/target.h"
#include "plugins/common/gpu_source.h"
#include "plugins/common/host_library.h"
#include "plugins/common/toolchain.h"
#include "plugins/opencl/cl_device.h"
#include "plugins/opencl/cl_host.h"

#include <fmt/format.h>

namespace loopscape::codegen::opencl {

namespace {

class OpenClTarget final : public Target {
public:
  std::string name() const override { return "opencl"; }
  std::string deviceKind() const override { return "gpu"; }
  std::string description() const override {
    return "OpenCL C through the OpenCL ICD loader (any platform; PoCL runs it on the CPU), in a host library "
           "compiled by the system C compiler";
  }
  TargetCapabilities capabilities() const override {
    TargetCapabilities caps;
    caps.gpuThreads = true;
    caps.sharedMemory = true;
    caps.concurrentBuilds = true; // each build is a compiler process and a content-addressed cache file
    if (device().usable) caps.gpu = device().limits;
    return caps;
  }
  ToolchainStatus toolchain() const override {
    const DeviceInfo& d = device();
    if (!d.usable) return {false, d.why};
    return {true, fmt::format("device {} ({}, {} threads per group, {} KiB local memory) on {}; host library by {}",
                              d.device, d.type, d.limits.maxThreadsPerBlock, d.limits.maxSharedBytesPerBlock / 1024,
                              d.platform, toolchain::compilerStatus().message)};
  }
  std::vector<std::string> sourceFormats() const override { return {"opencl", "host"}; }

  Expected<std::string> source(const LoweredFunc& func, const std::string& format,
                               const BuildOptions& options) override {
    if (options.stop.stop_requested()) return Unexpected(cancelledDiagnostic("building"));
    if (format != "opencl" && format != "host")
      return Unexpected(Diagnostic::error("codegen.unknown-format", "target opencl has no source format '" + format +
                                                                        "' (formats: opencl, host)"));
    auto kernel = gpu::printKernel(func, gpu::Dialect::OpenCL);
    if (!kernel) return Unexpected(kernel.error());
    if (format == "opencl") return kernel->text;
    return hostSource(func, kernel->text);
  }

  Expected<std::unique_ptr<Kernel>> build(const LoweredFunc& func, const BuildOptions& options) override {
    if (options.stop.stop_requested()) return Unexpected(cancelledDiagnostic("building"));
    auto kernel = gpu::printKernel(func, gpu::Dialect::OpenCL);
    if (!kernel) return Unexpected(kernel.error());
    auto host = hostSource(func, kernel->text);
    if (!host) return Unexpected(host.error());
    auto path = buildHostLibrary(*host, options);
    if (!path) return Unexpected(path.error());
    return hostlib::makeKernel("opencl", *path, func.name, func.flatParams.size(), func.sizeVars.size());
  }
};

} // namespace

} // namespace loopscape::codegen::opencl

extern "C" int loopscape_target_abi_version() { return loopscape::codegen::kTargetAbiVersion; }

extern "C" loopscape::codegen::Target* loopscape_create_target() {
  return new loopscape::codegen::opencl::OpenClTarget();
}
