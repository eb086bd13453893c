// The opencl target: the GPU lowering's kernel printed as OpenCL C (gpu_source.h), run
// through a host library (cl_host.h) compiled by the system compiler against the OpenCL
// ICD loader, on the device that cl_device.h finds (PoCL on a machine without a GPU).
// Formats: "opencl" (the kernel) and "host" (the host library's C source). Without an
// OpenCL platform the plugin still loads, prints source and says why it cannot run
// (toolchain()).
#include "core/codegen/cancel.h"
#include "core/codegen/target.h"
#include "plugins/common/gpu_source.h"
#include "plugins/common/toolchain.h"
#include "plugins/opencl/cl_device.h"
#include "plugins/opencl/cl_host.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace loopscape::codegen::opencl {

namespace {

/// The host library; loaded into this process only when run in process (benchmarks), as
/// the worker loads it otherwise.
class ClKernel final : public Kernel {
public:
  ClKernel(std::string path, std::string symbol, std::size_t buffers, std::size_t sizes)
      : m_path(std::move(path)), m_symbol(std::move(symbol)), m_buffers(buffers), m_sizes(sizes) {}
  ~ClKernel() override {
    if (m_handle) dlclose(m_handle);
  }

  Expected<void> run(std::span<void* const> buffers, std::span<const std::int64_t> sizes) override {
    if (buffers.size() != m_buffers || sizes.size() != m_sizes || m_buffers + m_sizes > 8)
      return Unexpected(Diagnostic::error("opencl.bad-arguments",
                                          fmt::format("{} takes {} buffers and {} sizes, got {} and {} (in process: "
                                                      "at most 8 arguments)",
                                                      m_symbol, m_buffers, m_sizes, buffers.size(), sizes.size())));
    if (!m_handle) {
      m_handle = dlopen(m_path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!m_handle) {
        const char* why = dlerror();
        return Unexpected(Diagnostic::error("opencl.load-failed", "cannot load " + m_path + ": " + (why ? why : "")));
      }
    }
    void* fn = dlsym(m_handle, m_symbol.c_str());
    if (!fn) return Unexpected(Diagnostic::error("opencl.load-failed", m_path + " has no symbol " + m_symbol));
    // Every argument is one 64-bit integer register (a pointer or an int64_t).
    std::uint64_t a[8] = {};
    std::size_t n = 0;
    for (void* b : buffers)
      a[n++] = reinterpret_cast<std::uint64_t>(b);
    for (std::int64_t s : sizes)
      a[n++] = static_cast<std::uint64_t>(s);
    using Fn8 = void (*)(std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t,
                         std::uint64_t, std::uint64_t);
    reinterpret_cast<Fn8>(fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    return {};
  }
  std::string libraryPath() const override { return m_path; }
  std::string symbol() const override { return m_symbol; }

private:
  void* m_handle = nullptr;
  std::string m_path, m_symbol;
  std::size_t m_buffers, m_sizes;
};

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
    return std::make_unique<ClKernel>(*path, func.name, func.flatParams.size(), func.sizeVars.size());
  }
};

} // namespace

} // namespace loopscape::codegen::opencl

extern "C" int loopscape_target_abi_version() { return loopscape::codegen::kTargetAbiVersion; }

extern "C" loopscape::codegen::Target* loopscape_create_target() {
  return new loopscape::codegen::opencl::OpenClTarget();
}
