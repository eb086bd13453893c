// JIT-loaded kernels and their shared libraries (see jit_kernel.h).
#include "jit_kernel.h"

#include "ir_gen.h"
#include "parallel_runtime_source.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sys/wait.h>
#include <unistd.h>

namespace loopscape::codegen::cpullvm {

namespace fs = std::filesystem;

namespace {

std::uint64_t fnv1a(const char* data, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

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
    std::call_once(m_linkOnce, [this] {
      if (auto path = linkSharedLibrary(m_spec.object, m_spec.workDir)) m_library = *path;
    });
    return m_library;
  }
  std::string symbol() const override { return m_spec.symbol; }

private:
  std::unique_ptr<llvm::orc::LLJIT> m_jit;
  KernelSpec m_spec;
  void (*m_entry)(void* const*, const std::int64_t*);
  mutable std::once_flag m_linkOnce;
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

Expected<std::string> linkSharedLibrary(const std::vector<char>& object, const std::string& workDir) {
  const std::uint64_t hash = fnv1a(kParallelRuntimeSource, sizeof(kParallelRuntimeSource) - 1, fnv1a(object.data(), object.size()));
  std::error_code ec;
  fs::path dir = workDir.empty() ? fs::temp_directory_path(ec) / fmt::format("loopscape-cpu-llvm-{}", getuid()) : fs::path(workDir);
  fs::create_directories(dir, ec);
  if (ec) return Unexpected(linkError(fmt::format("cannot create {}: {}", dir.string(), ec.message())));
  const std::string stem = fmt::format("kernel_{:016x}", hash);
  const fs::path library = dir / ("lib" + stem + ".so");
  if (fs::exists(library, ec)) return library.string();

  // Unique names for the inputs and the output, renamed into place at the end, so that
  // concurrent builds of the same kernel never see a half-written library.
  const std::string tag = fmt::format("{}.{}", stem, getpid());
  const fs::path objectPath = dir / (tag + ".o");
  const fs::path runtimePath = dir / (tag + "_runtime.c");
  const fs::path partial = dir / (tag + ".so.partial");
  {
    std::ofstream out(objectPath, std::ios::binary);
    out.write(object.data(), static_cast<std::streamsize>(object.size()));
    std::ofstream rt(runtimePath);
    rt << kParallelRuntimeSource;
    if (!out || !rt) return Unexpected(linkError("cannot write the kernel object to " + dir.string()));
  }
  const std::string command =
      fmt::format("cc -shared -fPIC -fopenmp -O2 -fvisibility=hidden -o {} {} {} -lm 2>&1", shellQuote(partial.string()),
                  shellQuote(objectPath.string()), shellQuote(runtimePath.string()));
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return Unexpected(linkError("cannot run the system compiler (cc)"));
  char chunk[512];
  while (std::size_t n = std::fread(chunk, 1, sizeof chunk, pipe)) output.append(chunk, n);
  const int status = pclose(pipe);
  fs::remove(objectPath, ec);
  fs::remove(runtimePath, ec);
  if (status != 0) {
    fs::remove(partial, ec);
    return Unexpected(linkError(fmt::format("`{}` failed (status {}):\n{}", command, WEXITSTATUS(status), output)));
  }
  fs::rename(partial, library, ec);
  if (ec) return Unexpected(linkError(fmt::format("cannot move the library to {}: {}", library.string(), ec.message())));
  return library.string();
}

} // namespace loopscape::codegen::cpullvm
