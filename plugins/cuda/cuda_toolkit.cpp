#include "plugins/cuda/cuda_toolkit.h"

#include "plugins/common/toolchain.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

namespace loopscape::codegen::cuda {

namespace fs = std::filesystem;

namespace {

// The part of NVRTC's C API the plugin uses (nvrtc.h), declared here so that the plugin
// builds without the toolkit.
using NvrtcResult = int;
using NvrtcProgram = struct NvrtcProgramImpl*;
struct Nvrtc {
  void* handle = nullptr;
  std::string why;
  const char* (*getErrorString)(NvrtcResult) = nullptr;
  NvrtcResult (*version)(int*, int*) = nullptr;
  NvrtcResult (*createProgram)(NvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  NvrtcResult (*destroyProgram)(NvrtcProgram*) = nullptr;
  NvrtcResult (*compileProgram)(NvrtcProgram, int, const char* const*) = nullptr;
  NvrtcResult (*getPtxSize)(NvrtcProgram, std::size_t*) = nullptr;
  NvrtcResult (*getPtx)(NvrtcProgram, char*) = nullptr;
  NvrtcResult (*getLogSize)(NvrtcProgram, std::size_t*) = nullptr;
  NvrtcResult (*getLog)(NvrtcProgram, char*) = nullptr;
};

std::vector<std::string> roots() {
  std::vector<std::string> out;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) out.emplace_back(home);
  out.emplace_back("/usr/local/cuda");
  return out;
}

Toolkit find() {
  Toolkit t;
  for (const std::string& root : roots()) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    if (t.root.empty()) t.root = fs::canonical(root, ec).string();
    if (t.nvrtcPath.empty() && fs::exists(root + "/lib64/libnvrtc.so", ec)) t.nvrtcPath = root + "/lib64/libnvrtc.so";
    if (t.ptxasPath.empty() && fs::exists(root + "/bin/ptxas", ec)) t.ptxasPath = root + "/bin/ptxas";
    if (t.cuobjdumpPath.empty() && fs::exists(root + "/bin/cuobjdump", ec)) t.cuobjdumpPath = root + "/bin/cuobjdump";
  }
  if (t.nvrtcPath.empty()) t.nvrtcPath = "libnvrtc.so"; // the loader's search path, if anywhere
  // The driver: only whether it loads (it stays loaded once found, as a driver does).
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) != nullptr) {
    t.driver = true;
  } else {
    const char* why = dlerror();
    t.driverWhy = why ? why : "libcuda.so.1 not found";
  }
  return t;
}

const Nvrtc& nvrtc() {
  static std::once_flag once;
  static Nvrtc n;
  std::call_once(once, [] {
    n.handle = dlopen(toolkit().nvrtcPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!n.handle) {
      const char* why = dlerror();
      n.why = fmt::format("cannot load NVRTC ({}): {}", toolkit().nvrtcPath, why ? why : "");
      return;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(n.handle, name));
      if (!fn && n.why.empty()) n.why = fmt::format("NVRTC ({}) has no {}", toolkit().nvrtcPath, name);
    };
    sym(n.getErrorString, "nvrtcGetErrorString");
    sym(n.version, "nvrtcVersion");
    sym(n.createProgram, "nvrtcCreateProgram");
    sym(n.destroyProgram, "nvrtcDestroyProgram");
    sym(n.compileProgram, "nvrtcCompileProgram");
    sym(n.getPtxSize, "nvrtcGetPTXSize");
    sym(n.getPtx, "nvrtcGetPTX");
    sym(n.getLogSize, "nvrtcGetProgramLogSize");
    sym(n.getLog, "nvrtcGetProgramLog");
  });
  return n;
}

Diagnostic noNvrtc(const Nvrtc& n) {
  auto d = Diagnostic::error("cuda.no-nvrtc", n.why);
  d.notes.push_back("install the CUDA toolkit (NVRTC) or set CUDA_HOME; the CUDA C format needs nothing");
  return d;
}

} // namespace

const Toolkit& toolkit() {
  static std::once_flag once;
  static Toolkit t;
  std::call_once(once, [] { t = find(); });
  return t;
}

std::string architecture() {
  const char* arch = std::getenv("LOOPSCAPE_CUDA_ARCH");
  return arch && *arch ? arch : "sm_80";
}

Expected<std::string> nvrtcVersion() {
  const Nvrtc& n = nvrtc();
  if (!n.why.empty()) return Unexpected(noNvrtc(n));
  int major = 0, minor = 0;
  n.version(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

Expected<std::string> compileToPtx(const std::string& source, const std::string& name) {
  const Nvrtc& n = nvrtc();
  if (!n.why.empty()) return Unexpected(noNvrtc(n));
  NvrtcProgram program = nullptr;
  if (NvrtcResult r = n.createProgram(&program, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr); r != 0)
    return Unexpected(
        Diagnostic::error("cuda.compile-error", fmt::format("nvrtcCreateProgram failed: {}", n.getErrorString(r))));
  std::string arch = architecture();
  if (arch.starts_with("sm_")) arch = "compute_" + arch.substr(3);
  const std::string archOption = "--gpu-architecture=" + arch;
  const char* options[] = {archOption.c_str(), "--fmad=false"};
  const NvrtcResult compiled = n.compileProgram(program, 2, options);
  std::size_t logSize = 0;
  n.getLogSize(program, &logSize);
  std::string log(logSize, '\0');
  if (logSize) n.getLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  if (compiled != 0) {
    n.destroyProgram(&program);
    auto d = Diagnostic::error("cuda.compile-error",
                               fmt::format("NVRTC rejected the generated CUDA C: {}", n.getErrorString(compiled)));
    d.notes.push_back("NVRTC log:\n" + log);
    return Unexpected(std::move(d));
  }
  std::size_t size = 0;
  n.getPtxSize(program, &size);
  std::string ptx(size, '\0');
  n.getPtx(program, ptx.data());
  n.destroyProgram(&program);
  while (!ptx.empty() && ptx.back() == '\0')
    ptx.pop_back();
  return ptx;
}

namespace {

Expected<std::string> writePtx(const std::string& ptx, const std::string& workDir) {
  if (toolkit().ptxasPath.empty())
    return Unexpected(
        Diagnostic::error("cuda.no-ptxas", "ptxas not found (looked in $CUDA_HOME/bin, /usr/local/cuda/bin)"));
  const std::string path = (fs::path(workDir) / (toolchain::contentHash({ptx}) + ".ptx")).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << ptx;
  if (!out) return Unexpected(Diagnostic::error("cuda.write-failed", "cannot write " + path));
  return path;
}

/// Runs `argv`; its output, or `code` with `what` and the output as a note.
Expected<std::string> runTool(const std::vector<std::string>& argv, std::stop_token stop, const char* code,
                              const std::string& what) {
  auto ran = toolchain::runProgram("cuda", argv, stop);
  if (!ran) return Unexpected(ran.error());
  if (ran->exitStatus != 0) {
    auto d = Diagnostic::error(code, what);
    d.notes.push_back(fs::path(argv.front()).filename().string() + " output:\n" + ran->output);
    return Unexpected(std::move(d));
  }
  return ran->output;
}

} // namespace

Expected<std::string> ptxasUsage(const std::string& ptx, const std::string& workDir, std::stop_token stop) {
  auto path = writePtx(ptx, workDir);
  if (!path) return path;
  return runTool({toolkit().ptxasPath, "-v", "--gpu-name", architecture(), *path, "-o", "/dev/null"}, stop,
                 "cuda.ptxas-error", "ptxas rejected the PTX of " + *path);
}

Expected<std::string> sassListing(const std::string& ptx, const std::string& workDir, std::stop_token stop) {
  if (toolkit().cuobjdumpPath.empty())
    return Unexpected(Diagnostic::error("cuda.no-cuobjdump",
                                        "cuobjdump not found (looked in $CUDA_HOME/bin, /usr/local/cuda/bin): the "
                                        "sass format needs it"));
  auto path = writePtx(ptx, workDir);
  if (!path) return path;
  const std::string cubin = fs::path(*path).replace_extension(architecture() + ".cubin").string();
  auto assembled = runTool({toolkit().ptxasPath, "--gpu-name", architecture(), *path, "-o", cubin}, stop,
                           "cuda.ptxas-error", "ptxas rejected the PTX of " + *path);
  if (!assembled) return assembled;
  return runTool({toolkit().cuobjdumpPath, "--dump-sass", cubin}, stop, "cuda.cuobjdump-error",
                 "cuobjdump could not list " + cubin);
}

} // namespace loopscape::codegen::cuda
