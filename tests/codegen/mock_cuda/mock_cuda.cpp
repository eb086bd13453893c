// A mock CUDA driver for tests only: built as libcuda.so.1 in a directory of its own
// (build/tests/mock_cuda), so that a process started with LD_LIBRARY_PATH pointing there
// loads it instead of a real driver (there is none on the machines that run the tests).
// It implements the driver API entry points that the cuda plugin's host library uses
// (plugins/cuda/cuda_host.h), computes nothing, and records each call as one line in the
// file named by LOOPSCAPE_MOCK_CUDA_LOG (appended; no recording without it), after the
// process id (NVRTC, in the process that compiles the PTX, loads the driver too and calls
// cuInit and cuGetExportTable; the latter fails here, and NVRTC compiles without it):
//
//   4242 cuModuleLoadDataEx entries=main_kernel(3)   the PTX's .entry names, parameter counts
//   4242 cuMemAlloc buf0 16384                       device buffers numbered as allocated
//   4242 cuMemcpyHtoD buf0 16384
//   4242 cuLaunchKernel main_kernel grid=2,2,1 block=16,16,1 shared=0 args=buf0,buf1,buf2
//
// (a kernel argument that is the address of a live buffer prints as its name, any other
// as its 64-bit value). Device memory is host memory, so the copies really copy; every
// call returns CUDA_SUCCESS, except that with LOOPSCAPE_MOCK_CUDA_FAIL=cuModuleLoadData
// loading a module fails with CUDA_ERROR_INVALID_PTX and a JIT error log.
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using CUresult = int;
constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kInvalidPtx = 218;
constexpr CUresult kNotFound = 500;
constexpr CUresult kNotSupported = 801;

struct Function {
  std::string name;
  int params = 0;
};

struct Module {
  std::vector<Function> functions;
};

/// The live allocations: address -> (number, bytes).
std::map<std::uintptr_t, std::pair<int, std::size_t>>& buffers() {
  static std::map<std::uintptr_t, std::pair<int, std::size_t>> b;
  return b;
}
int nextBuffer = 0;

void record(const char* format, ...) {
  const char* path = std::getenv("LOOPSCAPE_MOCK_CUDA_LOG");
  if (!path || !*path) return;
  FILE* f = std::fopen(path, "a");
  if (!f) return;
  std::fprintf(f, "%ld ", static_cast<long>(getpid()));
  va_list args;
  va_start(args, format);
  std::vfprintf(f, format, args);
  va_end(args);
  std::fputc('\n', f);
  std::fclose(f);
}

std::string bufferName(std::uintptr_t address) {
  auto it = buffers().find(address);
  return it == buffers().end() ? "unknown" : "buf" + std::to_string(it->second.first);
}

bool failing(const char* function) {
  const char* fail = std::getenv("LOOPSCAPE_MOCK_CUDA_FAIL");
  return fail && std::strcmp(fail, function) == 0;
}

/// The modules loaded, kept to the end of the process (as a driver would).
std::vector<std::unique_ptr<Module>>& modules() {
  static std::vector<std::unique_ptr<Module>> m;
  return m;
}

/// The PTX's entries: ".entry <name>(" and the ".param" declarations up to ")".
Module* parsePtx(const char* ptx) {
  Module* m = modules().emplace_back(std::make_unique<Module>()).get();
  const std::string text = ptx ? ptx : "";
  for (std::size_t at = text.find(".entry "); at != std::string::npos; at = text.find(".entry ", at + 1)) {
    const std::size_t open = text.find('(', at);
    if (open == std::string::npos) break;
    Function f;
    f.name = text.substr(at + 7, open - at - 7);
    while (!f.name.empty() && f.name.back() == ' ')
      f.name.pop_back();
    const std::size_t close = text.find(')', open);
    for (std::size_t p = text.find(".param", open); p != std::string::npos && p < close; p = text.find(".param", p + 1))
      ++f.params;
    m->functions.push_back(f);
  }
  return m;
}

CUresult loadModule(void** module, const void* image, const char* api, unsigned int numOptions, int* options,
                    void** values) {
  if (failing("cuModuleLoadData")) {
    record("%s failed (LOOPSCAPE_MOCK_CUDA_FAIL)", api);
    for (unsigned int i = 0; i < numOptions; ++i) {
      if (options[i] != 5) continue; // CU_JIT_ERROR_LOG_BUFFER
      std::size_t size = 0;
      for (unsigned int j = 0; j < numOptions; ++j)
        if (options[j] == 6) size = reinterpret_cast<std::uintptr_t>(values[j]); // ..._SIZE_BYTES
      if (size) std::snprintf(static_cast<char*>(values[i]), size, "ptxas fatal   : mock driver: PTX refused");
    }
    return kInvalidPtx;
  }
  Module* m = parsePtx(static_cast<const char*>(image));
  std::string entries;
  for (const Function& f : m->functions)
    entries += (entries.empty() ? "" : ",") + f.name + "(" + std::to_string(f.params) + ")";
  record("%s entries=%s", api, entries.c_str());
  *module = m;
  return kSuccess;
}

} // namespace

extern "C" {

CUresult cuGetErrorName(CUresult error, const char** name) {
  *name = error == kSuccess        ? "CUDA_SUCCESS"
          : error == kInvalidValue ? "CUDA_ERROR_INVALID_VALUE"
          : error == kInvalidPtx   ? "CUDA_ERROR_INVALID_PTX"
          : error == kNotFound     ? "CUDA_ERROR_NOT_FOUND"
          : error == kNotSupported ? "CUDA_ERROR_NOT_SUPPORTED"
                                   : "CUDA_ERROR_UNKNOWN";
  return kSuccess;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  *text = error == kSuccess        ? "no error"
          : error == kInvalidValue ? "invalid argument"
          : error == kInvalidPtx   ? "a PTX JIT compilation failed"
          : error == kNotFound     ? "named symbol not found"
          : error == kNotSupported ? "operation not supported"
                                   : "unknown error";
  return kSuccess;
}

/// The driver's private tables (NVRTC asks for them): none here.
CUresult cuGetExportTable(const void** table, const void*) {
  record("cuGetExportTable");
  *table = nullptr;
  return kNotSupported;
}

CUresult cuInit(unsigned int flags) {
  record("cuInit %u", flags);
  return kSuccess;
}

CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  return kSuccess;
}

CUresult cuDeviceGet(int* device, int ordinal) {
  record("cuDeviceGet %d", ordinal);
  *device = ordinal;
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRetain(void** context, int device) {
  record("cuDevicePrimaryCtxRetain %d", device);
  static int theContext;
  *context = &theContext;
  return kSuccess;
}

CUresult cuCtxSetCurrent(void* context) {
  record("cuCtxSetCurrent%s", context ? "" : " NULL");
  return kSuccess;
}

CUresult cuCtxSynchronize() {
  record("cuCtxSynchronize");
  return kSuccess;
}

CUresult cuModuleLoadData(void** module, const void* image) {
  return loadModule(module, image, "cuModuleLoadData", 0, nullptr, nullptr);
}

CUresult cuModuleLoadDataEx(void** module, const void* image, unsigned int numOptions, int* options, void** values) {
  return loadModule(module, image, "cuModuleLoadDataEx", numOptions, options, values);
}

CUresult cuModuleGetFunction(void** function, void* module, const char* name) {
  for (Function& f : static_cast<Module*>(module)->functions) {
    if (f.name != name) continue;
    record("cuModuleGetFunction %s", name);
    *function = &f;
    return kSuccess;
  }
  record("cuModuleGetFunction %s: not in the module", name);
  return kNotFound;
}

CUresult cuMemAlloc_v2(unsigned long long* pointer, std::size_t bytes) {
  if (bytes == 0) return kInvalidValue; // as the real driver
  void* p = std::malloc(bytes);
  const int number = nextBuffer++;
  buffers()[reinterpret_cast<std::uintptr_t>(p)] = {number, bytes};
  record("cuMemAlloc buf%d %zu", number, bytes);
  *pointer = reinterpret_cast<std::uintptr_t>(p);
  return kSuccess;
}

CUresult cuMemFree_v2(unsigned long long pointer) {
  record("cuMemFree %s", bufferName(pointer).c_str());
  buffers().erase(pointer);
  std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(pointer)));
  return kSuccess;
}

CUresult cuMemcpyHtoD_v2(unsigned long long device, const void* host, std::size_t bytes) {
  record("cuMemcpyHtoD %s %zu", bufferName(device).c_str(), bytes);
  std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(device)), host, bytes);
  return kSuccess;
}

CUresult cuMemcpyDtoH_v2(void* host, unsigned long long device, std::size_t bytes) {
  record("cuMemcpyDtoH %s %zu", bufferName(device).c_str(), bytes);
  std::memcpy(host, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(device)), bytes);
  return kSuccess;
}

CUresult cuLaunchKernel(void* function, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int shared, void* stream, void** params,
                        void** extra) {
  const Function& f = *static_cast<const Function*>(function);
  std::string args;
  for (int i = 0; i < f.params; ++i) {
    std::uint64_t value = 0;
    std::memcpy(&value, params[i], sizeof value); // every parameter here is 64-bit
    const bool isBuffer = buffers().count(value) != 0;
    args += (i ? "," : "") + (isBuffer ? bufferName(value) : std::to_string(value));
  }
  record("cuLaunchKernel %s grid=%u,%u,%u block=%u,%u,%u shared=%u%s%s args=%s", f.name.c_str(), gx, gy, gz, bx, by, bz,
         shared, stream ? " stream" : "", extra ? " extra" : "", args.c_str());
  return kSuccess;
}

CUresult cuEventCreate(void** event, unsigned int flags) {
  static int events[16];
  static int next = 0;
  record("cuEventCreate %u", flags);
  *event = &events[next++ % 16];
  return kSuccess;
}

CUresult cuEventRecord(void*, void* stream) {
  record("cuEventRecord%s", stream ? " stream" : "");
  return kSuccess;
}

CUresult cuEventSynchronize(void*) {
  record("cuEventSynchronize");
  return kSuccess;
}

CUresult cuEventElapsedTime_v2(float* milliseconds, void*, void*) {
  record("cuEventElapsedTime");
  *milliseconds = 0.25f;
  return kSuccess;
}

} // extern "C"
