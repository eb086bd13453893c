// The cpu-c target: C + OpenMP source (c_emitter.h) compiled by the system compiler
// (c_compiler.h) into a shared object that is dlopen'ed. Formats: "c" (the source) and
// "asm" (the compiler's assembly of the kernel and its OpenMP outlined functions).
#include "core/codegen/cancel.h"
#include "core/codegen/target.h"
#include "plugins/common/toolchain.h"
#include "plugins/cpu-c/c_compiler.h"
#include "plugins/cpu-c/c_emitter.h"

#include <dlfcn.h>
#include <fstream>
#include <sstream>

namespace loopscape::codegen::cpu_c {

namespace {

using PackedFn = void (*)(void* const*, const std::int64_t*);

class CKernel final : public Kernel {
public:
  CKernel(void* handle, PackedFn fn, std::string path, std::string symbol, std::size_t buffers, std::size_t sizes)
      : m_handle(handle), m_fn(fn), m_path(std::move(path)), m_symbol(std::move(symbol)), m_buffers(buffers),
        m_sizes(sizes) {}
  ~CKernel() override { dlclose(m_handle); }

  Expected<void> run(std::span<void* const> buffers, std::span<const std::int64_t> sizes) override {
    if (buffers.size() != m_buffers || sizes.size() != m_sizes)
      return std::unexpected(Diagnostic::error(
          "cpu-c.bad-arguments", m_symbol + " takes " + std::to_string(m_buffers) + " buffers and " +
                                     std::to_string(m_sizes) + " sizes, got " + std::to_string(buffers.size()) +
                                     " and " + std::to_string(sizes.size())));
    m_fn(buffers.data(), sizes.data());
    return {};
  }
  std::string libraryPath() const override { return m_path; }
  std::string symbol() const override { return m_symbol; }

private:
  void* m_handle;
  PackedFn m_fn;
  std::string m_path, m_symbol;
  std::size_t m_buffers, m_sizes;
};

/// The functions of an assembly file whose names start with `prefix` (the kernel, its
/// _packed entry and OpenMP outlined bodies), without .cfi directives.
std::string kernelAssembly(const std::string& text, const std::string& prefix) {
  std::stringstream in(text);
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line.starts_with(prefix) && line.ends_with(":")) {
      inside = true;
      if (!out.empty()) out += "\n";
    }
    if (!inside) continue;
    if (line.starts_with("\t.cfi_")) continue;
    out += line + "\n";
    if (line.starts_with("\t.size\t" + prefix)) inside = false;
  }
  return out;
}

bool cpuHas(const char* feature) {
  __builtin_cpu_init();
  if (std::string_view(feature) == "avx512f") return __builtin_cpu_supports("avx512f");
  if (std::string_view(feature) == "avx2") return __builtin_cpu_supports("avx2");
  return false;
}

class CpuCTarget final : public Target {
public:
  std::string name() const override { return "cpu-c"; }
  std::string deviceKind() const override { return "cpu"; }
  std::string description() const override {
    return "C99 + OpenMP source compiled by the system C compiler (-O3 -march=native -fopenmp), loaded with dlopen";
  }
  TargetCapabilities capabilities() const override {
    TargetCapabilities caps;
    caps.parallel = true;
    caps.vectorBits = cpuHas("avx512f") ? 512 : cpuHas("avx2") ? 256 : 128;
    caps.concurrentBuilds =
        true; // every build is a compiler process and a content-addressed cache file, renamed into place
    return caps;
  }
  ToolchainStatus toolchain() const override { return toolchain::compilerStatus(); }
  std::vector<std::string> sourceFormats() const override { return {"c", "asm"}; }

  Expected<std::string> source(const LoweredFunc& func, const std::string& format,
                               const BuildOptions& options) override {
    if (options.stop.stop_requested()) return std::unexpected(cancelledDiagnostic("building"));
    std::vector<LoopLines> loops;
    const std::string emitted = emitC(func, options.threads, &loops);
    std::string c = applyTestHooks(emitted);
    if (format == "c") {
      // Only the emitted text is mapped (a test hook may have changed it).
      if (options.sourceMap && c == emitted) *options.sourceMap = SourceMap{true, std::move(loops)};
      return c;
    }
    if (format != "asm")
      return std::unexpected(Diagnostic::error("codegen.unknown-format",
                                               "target cpu-c has no source format '" + format + "' (formats: c, asm)"));
    auto path = compile(c, options, /*assembly=*/true);
    if (!path) return std::unexpected(path.error());
    std::ifstream in(*path);
    std::stringstream ss;
    ss << in.rdbuf();
    return kernelAssembly(ss.str(), func.name);
  }

  Expected<std::unique_ptr<Kernel>> build(const LoweredFunc& func, const BuildOptions& options) override {
    if (options.stop.stop_requested()) return std::unexpected(cancelledDiagnostic("building"));
    std::string c = applyTestHooks(emitC(func, options.threads));
    auto path = compile(c, options, /*assembly=*/false);
    if (!path) return std::unexpected(path.error());
    void* handle = dlopen(path->c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      return std::unexpected(Diagnostic::error("cpu-c.load-failed", "cannot load " + *path + ": " + (why ? why : "")));
    }
    auto fn = reinterpret_cast<PackedFn>(dlsym(handle, (func.name + "_packed").c_str()));
    if (!fn) {
      dlclose(handle);
      return std::unexpected(Diagnostic::error("cpu-c.load-failed", *path + " has no symbol " + func.name + "_packed"));
    }
    return std::make_unique<CKernel>(handle, fn, *path, func.name, func.flatParams.size(), func.sizeVars.size());
  }
};

} // namespace

} // namespace loopscape::codegen::cpu_c

extern "C" int loopscape_target_abi_version() { return loopscape::codegen::kTargetAbiVersion; }

extern "C" loopscape::codegen::Target* loopscape_create_target() { return new loopscape::codegen::cpu_c::CpuCTarget(); }
