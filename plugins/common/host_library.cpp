#include "plugins/common/host_library.h"

#include "core/codegen/c_abi_call.h"
#include "plugins/common/toolchain.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

namespace loopscape::codegen::hostlib {

using namespace ir;

namespace {

/// A parameter's element count as C over the size arguments s0, s1, ...
Expected<std::string> sizeExpr(const Expr& e, const LoweredFunc& func, std::string_view plugin) {
  if (auto* i = e.as<IntImm>()) return fmt::format("(int64_t){}", i->value);
  if (e.is<Var>()) {
    for (std::size_t k = 0; k < func.sizeVars.size(); ++k)
      if (func.sizeVars[k].get() == e.get()) return fmt::format("s{}", k);
  }
  auto both = [&](const Expr& a, const Expr& b, const char* op) -> Expected<std::string> {
    auto x = sizeExpr(a, func, plugin), y = sizeExpr(b, func, plugin);
    if (!x) return x;
    if (!y) return y;
    return "(" + *x + " " + op + " " + *y + ")";
  };
  if (auto* a = e.as<Add>()) return both(a->a, a->b, "+");
  if (auto* s = e.as<Sub>()) return both(s->a, s->b, "-");
  if (auto* m = e.as<Mul>()) return both(m->a, m->b, "*");
  if (auto* c = e.as<Cast>()) return sizeExpr(c->value, func, plugin);
  return Unexpected(
      Diagnostic::error(std::string(plugin) + ".unsupported",
                        "cannot size a parameter of shape expression kind " + std::string(exprKindName(e.kind()))));
}

std::string ctype(DataType t) {
  if (t.isFloat()) return t.bits() == 64 ? "double" : t.bits() == 16 ? "uint16_t" : "float";
  if (t.isBool()) return "uint8_t";
  return fmt::format("{}int{}_t", t.isUInt() ? "u" : "", t.bits());
}

bool writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

/// The host library; loaded into this process only when run in process (benchmarks), as
/// the worker loads it otherwise.
class HostKernel final : public Kernel {
public:
  HostKernel(std::string plugin, std::string path, std::string symbol, std::size_t buffers, std::size_t sizes)
      : m_plugin(std::move(plugin)), m_path(std::move(path)), m_symbol(std::move(symbol)), m_buffers(buffers),
        m_sizes(sizes) {}
  ~HostKernel() override {
    if (m_handle) dlclose(m_handle);
  }

  Expected<void> run(std::span<void* const> buffers, std::span<const std::int64_t> sizes) override {
    if (buffers.size() != m_buffers || sizes.size() != m_sizes ||
        m_buffers + m_sizes > static_cast<std::size_t>(kWorkerMaxArgs))
      return Unexpected(
          Diagnostic::error(m_plugin + ".bad-arguments",
                            fmt::format("{} takes {} buffers and {} sizes, got {} and {} (at most {} "
                                        "arguments)",
                                        m_symbol, m_buffers, m_sizes, buffers.size(), sizes.size(), kWorkerMaxArgs)));
    if (!m_handle) {
      m_handle = dlopen(m_path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!m_handle) {
        const char* why = dlerror();
        return Unexpected(
            Diagnostic::error(m_plugin + ".load-failed", "cannot load " + m_path + ": " + (why ? why : "")));
      }
    }
    void* fn = dlsym(m_handle, m_symbol.c_str());
    if (!fn) return Unexpected(Diagnostic::error(m_plugin + ".load-failed", m_path + " has no symbol " + m_symbol));
    // Every argument is one 64-bit integer register (a pointer or an int64_t): c_abi_call.h.
    std::vector<std::uint64_t> a;
    for (void* b : buffers)
      a.push_back(reinterpret_cast<std::uint64_t>(b));
    for (std::int64_t s : sizes)
      a.push_back(static_cast<std::uint64_t>(s));
    callCAbi(fn, a);
    return {};
  }
  std::string libraryPath() const override { return m_path; }
  std::string symbol() const override { return m_symbol; }

private:
  void* m_handle = nullptr;
  std::string m_plugin, m_path, m_symbol;
  std::size_t m_buffers, m_sizes;
};

} // namespace

std::vector<const LoweredFunc*> kernelsInOrder(const LoweredFunc& func) {
  std::vector<const LoweredFunc*> kernels{&func};
  for (const LoweredFunc& k : func.moreKernels)
    kernels.push_back(&k);
  return kernels;
}

std::string signature(const LoweredFunc& func) {
  std::string sig;
  const std::size_t nb = func.flatParams.size(), ns = func.sizeVars.size();
  for (std::size_t i = 0; i < nb; ++i)
    sig += fmt::format("{}void* p{}", i ? ", " : "", i);
  for (std::size_t i = 0; i < ns; ++i)
    sig += fmt::format("{}int64_t s{}", i + nb ? ", " : "", i);
  return sig.empty() ? "void" : sig;
}

Expected<std::string> byteSize(const LoweredFunc& func, std::size_t i, std::string_view plugin) {
  const Buffer& b = func.flatParams[i];
  auto count = sizeExpr(b->shape[0], func, plugin);
  if (!count) return Unexpected(count.error());
  return fmt::format("(size_t)({}) * sizeof({})", *count, ctype(b->dtype));
}

Expected<std::string> buildLibrary(std::string_view plugin, std::string_view what, const std::string& source,
                                   const std::vector<std::string>& libs, const BuildOptions& options) {
  if (auto ok = toolchain::requireCompiler(plugin); !ok) return Unexpected(ok.error());
  auto dir = toolchain::cacheDir(options, plugin);
  if (!dir) return Unexpected(dir.error());
  std::string flags = "-std=gnu11 -O2 -shared";
  for (const std::string& lib : libs)
    flags += " " + lib;
  const toolchain::Compiler& cc = toolchain::systemCompiler();
  const std::string base =
      (std::filesystem::path(*dir) / toolchain::contentHash({cc.path, cc.version, flags, source})).string();
  const std::string name(plugin);
  return toolchain::cachedOutput(plugin, base + ".so", [&](const std::string& temporary) -> Expected<void> {
    if (!writeText(base + ".c", source))
      return Unexpected(Diagnostic::error(name + ".write-failed", "cannot write " + base + ".c"));
    std::vector<std::string> args = {"-std=gnu11", "-O2", "-fPIC", "-shared", "-o", temporary, base + ".c"};
    args.insert(args.end(), libs.begin(), libs.end());
    auto ran = toolchain::runCompiler(plugin, args, options.stop);
    if (!ran) return Unexpected(ran.error());
    if (ran->exitStatus == 0) return {};
    auto d = Diagnostic::error(name + ".compile-error", fmt::format("the C compiler rejected the {} {}.c", what, base));
    d.notes.push_back("compiler output:\n" + ran->output);
    return Unexpected(std::move(d));
  });
}

std::unique_ptr<Kernel> makeKernel(std::string plugin, std::string path, std::string symbol, std::size_t buffers,
                                   std::size_t sizes) {
  return std::make_unique<HostKernel>(std::move(plugin), std::move(path), std::move(symbol), buffers, sizes);
}

} // namespace loopscape::codegen::hostlib
