// JIT-loaded kernels and their shared libraries (see jit_kernel.h).
#include "jit_kernel.h"

#include "ir_gen.h"
#include "parallel_runtime_source.h"
#include "plugins/common/toolchain.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <mutex>

namespace loopscape::codegen::cpullvm {

namespace fs = std::filesystem;

namespace {

Diagnostic linkError(std::string message) { return Diagnostic::error("cpu-llvm.link", std::move(message)); }

class JitKernel final : public Kernel {
public:
  JitKernel(std::unique_ptr<llvm::orc::LLJIT> jit, KernelSpec spec, void (*entry)(void* const*, const std::int64_t*))
      : m_jit(std::move(jit)), m_spec(std::move(spec)), m_entry(entry) {}

  Expected<void> run(std::span<void* const> buffers, std::span<const std::int64_t> sizes) override {
    if (buffers.size() != m_spec.buffers || sizes.size() != m_spec.sizes)
      return Unexpected(Diagnostic::error(
          "cpu-llvm.arg-count", fmt::format("kernel {} takes {} buffers and {} sizes, got {} and {}", m_spec.symbol,
                                            m_spec.buffers, m_spec.sizes, buffers.size(), sizes.size())));
    m_entry(buffers.data(), sizes.data());
    return {};
  }

  std::string libraryPath() const override {
    std::lock_guard lock(m_linkLock); // a failed (or cancelled) link is tried again
    if (m_library.empty())
      if (auto path = linkSharedLibrary(m_spec.object, m_spec.workDir, m_spec.stop)) m_library = *path;
    return m_library;
  }
  std::string symbol() const override { return m_spec.symbol; }

private:
  std::unique_ptr<llvm::orc::LLJIT> m_jit;
  KernelSpec m_spec;
  void (*m_entry)(void* const*, const std::int64_t*);
  mutable std::mutex m_linkLock;
  mutable std::string m_library;
};

} // namespace

Expected<std::unique_ptr<Kernel>> makeJitKernel(KernelSpec spec) {
  auto fail = [](llvm::Error e) { return Unexpected(Diagnostic::error("cpu-llvm.jit", llvm::toString(std::move(e)))); };
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) return fail(jit.takeError());
  llvm::orc::JITDylib& main = (*jit)->getMainJITDylib();
  // libc/libm symbols from the process, the parallel runtime from this plugin.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return fail(process.takeError());
  main.addGenerator(std::move(*process));
  llvm::orc::SymbolMap runtime;
  runtime[(*jit)->mangleAndIntern(kParallelForSymbol)] = llvm::JITEvaluatedSymbol(
      llvm::pointerToJITTargetAddress(&loopscape_parallel_for), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  if (auto e = main.define(llvm::orc::absoluteSymbols(std::move(runtime)))) return fail(std::move(e));
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(spec.object.data(), spec.object.size()),
                                                     spec.symbol + ".o");
  if (auto e = (*jit)->addObjectFile(std::move(buffer))) return fail(std::move(e));
  auto address = (*jit)->lookup(spec.packedSymbol);
  if (!address) return fail(address.takeError());
  auto entry = address->toPtr<void (*)(void* const*, const std::int64_t*)>();
  return std::unique_ptr<Kernel>(std::make_unique<JitKernel>(std::move(*jit), std::move(spec), entry));
}

Expected<std::string> linkSharedLibrary(const std::vector<char>& object, const std::string& workDir,
                                        std::stop_token stop) {
  BuildOptions where;
  where.workDir = workDir;
  auto dir = toolchain::cacheDir(where, "cpu-llvm");
  if (!dir) return Unexpected(dir.error());
  const std::string hash = toolchain::contentHash(
      {std::string_view(object.data(), object.size()), std::string_view(kParallelRuntimeSource)});
  const fs::path library = fs::path(*dir) / ("libkernel_" + hash + ".so");
  return toolchain::cachedOutput("cpu-llvm", library.string(), [&](const std::string& temporary) -> Expected<void> {
    // The inputs get names unique to this output, removed afterwards.
    const fs::path objectPath = temporary + ".o";
    const fs::path runtimePath = temporary + "_runtime.c";
    {
      std::ofstream out(objectPath, std::ios::binary);
      out.write(object.data(), static_cast<std::streamsize>(object.size()));
      std::ofstream rt(runtimePath);
      rt << kParallelRuntimeSource;
      if (!out || !rt) return Unexpected(linkError("cannot write the kernel object to " + *dir));
    }
    const std::vector<std::string> args = {"-shared",
                                           "-fPIC",
                                           "-fopenmp",
                                           "-O2",
                                           "-fvisibility=hidden",
                                           "-o",
                                           temporary,
                                           objectPath.string(),
                                           runtimePath.string(),
                                           "-lm"};
    auto ran = toolchain::runCompiler("cpu-llvm", args, stop);
    std::error_code ec;
    fs::remove(objectPath, ec);
    fs::remove(runtimePath, ec);
    if (!ran) return Unexpected(ran.error());
    if (ran->exitStatus != 0)
      return Unexpected(linkError(fmt::format("`{} {}` failed (status {}):\n{}", toolchain::systemCompiler().command,
                                              fmt::join(args, " "), ran->exitStatus, ran->output)));
    return {};
  });
}

} // namespace loopscape::codegen::cpullvm
