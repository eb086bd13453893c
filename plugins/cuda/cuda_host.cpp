#include "plugins/cuda/cuda_host.h"

#include "plugins/common/gpu_source.h"
#include "plugins/common/host_library.h"

#include <fmt/format.h>

namespace loopscape::codegen::cuda {

namespace {

/// The driver API the host library uses, as in cuda.h (CUDA 13), without the header: the
/// handle types, the values it passes, and one function pointer per entry point, filled by
/// ls_load() from libcuda.so.1.
constexpr const char* kDriverApi = R"(#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult; /* CUDA_SUCCESS is 0 */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUevent_st* CUevent;
typedef struct CUstream_st* CUstream;
typedef int CUjit_option;
#define LS_CU_JIT_ERROR_LOG_BUFFER 5
#define LS_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6

static CUresult (*ls_cuGetErrorName)(CUresult, const char**);
static CUresult (*ls_cuGetErrorString)(CUresult, const char**);
static CUresult (*ls_cuInit)(unsigned int);
static CUresult (*ls_cuDeviceGet)(CUdevice*, int);
static CUresult (*ls_cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
static CUresult (*ls_cuCtxSetCurrent)(CUcontext);
static CUresult (*ls_cuCtxSynchronize)(void);
static CUresult (*ls_cuModuleLoadDataEx)(CUmodule*, const void*, unsigned int, CUjit_option*, void**);
static CUresult (*ls_cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
static CUresult (*ls_cuMemAlloc)(CUdeviceptr*, size_t);
static CUresult (*ls_cuMemFree)(CUdeviceptr);
static CUresult (*ls_cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
static CUresult (*ls_cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
static CUresult (*ls_cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                                     unsigned int, unsigned int, CUstream, void**, void**);
static CUresult (*ls_cuEventCreate)(CUevent*, unsigned int);
static CUresult (*ls_cuEventRecord)(CUevent, CUstream);
static CUresult (*ls_cuEventSynchronize)(CUevent);
static CUresult (*ls_cuEventElapsedTime)(float*, CUevent, CUevent);

/* "cuda: <function>: <error name>: <error string>", then `log` if any, and abort. */
static void ls_fail_log(const char* what, CUresult e, const char* log) {
  const char* name = NULL;
  const char* text = NULL;
  if (ls_cuGetErrorName) ls_cuGetErrorName(e, &name);
  if (ls_cuGetErrorString) ls_cuGetErrorString(e, &text);
  fprintf(stderr, "cuda: %s: %s: %s\n", what, name ? name : "unknown error", text ? text : "no description");
  if (log && log[0]) fprintf(stderr, "cuda: the PTX JIT's error log:\n%s\n", log);
  fflush(stderr);
  abort();
}
static void ls_fail(const char* what, CUresult e) { ls_fail_log(what, e, NULL); }
#define LS_CHECK(call, what) do { CUresult ls_e = (call); if (ls_e != 0) ls_fail(what, ls_e); } while (0)

/* The entry point `name` (else `fallback`, a driver's older name for it); aborts if neither. */
static void* ls_symbol(void* driver, const char* name, const char* fallback) {
  void* p = dlsym(driver, name);
  if (!p && fallback) p = dlsym(driver, fallback);
  if (!p) {
    fprintf(stderr, "cuda: the CUDA driver (libcuda.so.1) has no %s\n", name);
    abort();
  }
  return p;
}
#define LS_LOAD(fn, name, fallback) *(void**)&ls_##fn = ls_symbol(driver, name, fallback)

static void ls_load(void) {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    const char* why = dlerror();
    fprintf(stderr, "cuda: cannot load the CUDA driver: %s\n", why ? why : "libcuda.so.1 not found");
    abort();
  }
  LS_LOAD(cuGetErrorName, "cuGetErrorName", NULL);
  LS_LOAD(cuGetErrorString, "cuGetErrorString", NULL);
  LS_LOAD(cuInit, "cuInit", NULL);
  LS_LOAD(cuDeviceGet, "cuDeviceGet", NULL);
  LS_LOAD(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL);
  LS_LOAD(cuCtxSetCurrent, "cuCtxSetCurrent", NULL);
  LS_LOAD(cuCtxSynchronize, "cuCtxSynchronize", NULL);
  LS_LOAD(cuModuleLoadDataEx, "cuModuleLoadDataEx", NULL);
  LS_LOAD(cuModuleGetFunction, "cuModuleGetFunction", NULL);
  LS_LOAD(cuMemAlloc, "cuMemAlloc_v2", NULL);
  LS_LOAD(cuMemFree, "cuMemFree_v2", NULL);
  LS_LOAD(cuMemcpyHtoD, "cuMemcpyHtoD_v2", NULL);
  LS_LOAD(cuMemcpyDtoH, "cuMemcpyDtoH_v2", NULL);
  LS_LOAD(cuLaunchKernel, "cuLaunchKernel", NULL);
  LS_LOAD(cuEventCreate, "cuEventCreate", NULL);
  LS_LOAD(cuEventRecord, "cuEventRecord", NULL);
  LS_LOAD(cuEventSynchronize, "cuEventSynchronize", NULL);
  LS_LOAD(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
}
)";

} // namespace

Expected<std::string> hostSource(const LoweredFunc& func, const std::string& ptx) {
  LS_ASSERT(func.gpu.has_value(), "cuda: a host library for a CPU function");
  const std::vector<const LoweredFunc*> kernels = hostlib::kernelsInOrder(func);
  const std::size_t nk = kernels.size();
  const std::size_t nb = func.flatParams.size(), ns = func.sizeVars.size();
  const std::string& name = func.name;

  // One call: buffers in, the launches, buffers out.
  std::string body = "  if (!ls_kernel[0]) ls_init();\n";
  for (std::size_t i = 0; i < nb; ++i) {
    auto bytes = hostlib::byteSize(func, i, "cuda");
    if (!bytes) return Unexpected(bytes.error());
    body += fmt::format("  size_t n{} = {};\n", i, *bytes);
    body += fmt::format("  CUdeviceptr d{} = 0;\n", i);
    body += fmt::format("  LS_CHECK(ls_cuMemAlloc(&d{}, n{} ? n{} : 1), \"cuMemAlloc\");\n", i, i, i);
    body += fmt::format("  if (n{}) LS_CHECK(ls_cuMemcpyHtoD(d{}, p{}, n{}), \"cuMemcpyHtoD\");\n", i, i, i, i);
  }
  for (std::size_t i = 0; i < ns; ++i)
    body += fmt::format("  long long a{} = (long long)s{};\n", i, i);
  // The kernel's parameters: the device pointers, then the sizes (gpu_source.h).
  std::string args;
  for (std::size_t i = 0; i < nb; ++i)
    args += fmt::format("{}&d{}", i ? ", " : "", i);
  for (std::size_t i = 0; i < ns; ++i)
    args += fmt::format("{}&a{}", i + nb ? ", " : "", i);
  body += args.empty() ? "  void** args = NULL;\n" : "  void* args[] = {" + args + "};\n";
  body += "  ls_seconds = 0;\n";
  for (std::size_t k = 0; k < nk; ++k) {
    const GpuKernel& g = *kernels[k]->gpu;
    body += "  {\n";
    body += "    float ms = 0;\n";
    body += "    LS_CHECK(ls_cuEventRecord(ls_start, NULL), \"cuEventRecord\");\n";
    body += fmt::format("    LS_CHECK(ls_cuLaunchKernel(ls_kernel[{}], {}, {}, {}, {}, {}, {}, 0, NULL, args, NULL), "
                        "\"cuLaunchKernel\");\n",
                        k, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2]);
    body += "    LS_CHECK(ls_cuEventRecord(ls_end, NULL), \"cuEventRecord\");\n"
            "    LS_CHECK(ls_cuEventSynchronize(ls_end), \"cuEventSynchronize\");\n"
            "    LS_CHECK(ls_cuEventElapsedTime(&ms, ls_start, ls_end), \"cuEventElapsedTime\");\n"
            "    ls_seconds += (double)ms * 1e-3;\n"
            "  }\n";
  }
  body += "  LS_CHECK(ls_cuCtxSynchronize(), \"cuCtxSynchronize\");\n";
  for (std::size_t i = 0; i < nb; ++i) {
    body += fmt::format("  if (n{}) LS_CHECK(ls_cuMemcpyDtoH(p{}, d{}, n{}), \"cuMemcpyDtoH\");\n", i, i, i, i);
    body += fmt::format("  LS_CHECK(ls_cuMemFree(d{}), \"cuMemFree\");\n", i);
  }
  body += fmt::format("  if (ls_profile) fprintf(stderr, \"cuda: {} %.4f ms (CUDA events)\\n\", ls_seconds * 1e3);\n",
                      nk == 1 ? "kernel" : fmt::format("{} kernels", nk));

  std::string out = fmt::format("/* Generated by loopscape (target cuda): the host library of kernel {}. */\n", name);
  out += kDriverApi;
  out += "\nstatic const char ls_ptx[] =\n" + gpu::cStringLiteral(ptx) + ";\n\n";
  out += fmt::format("static CUfunction ls_kernel[{}];\n", nk);
  out += R"(static CUevent ls_start, ls_end;
static double ls_seconds;
static int ls_profile;

static void ls_init(void) {
  ls_load();
  const char* env = getenv("LOOPSCAPE_CUDA_PROFILE");
  ls_profile = env && strcmp(env, "1") == 0;
  LS_CHECK(ls_cuInit(0), "cuInit");
  CUdevice device;
  LS_CHECK(ls_cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  LS_CHECK(ls_cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  LS_CHECK(ls_cuCtxSetCurrent(context), "cuCtxSetCurrent");
  static char log[8192];
  CUjit_option options[2] = {LS_CU_JIT_ERROR_LOG_BUFFER, LS_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[2] = {log, (void*)(uintptr_t)sizeof log};
  CUmodule module;
  CUresult e = ls_cuModuleLoadDataEx(&module, ls_ptx, 2, options, values);
  log[sizeof log - 1] = 0;
  if (e != 0) ls_fail_log("cuModuleLoadDataEx", e, log);
)";
  for (std::size_t k = 0; k < nk; ++k)
    out += fmt::format("  LS_CHECK(ls_cuModuleGetFunction(&ls_kernel[{}], module, \"{}\"), \"cuModuleGetFunction\");\n",
                       k, kernels[k]->name);
  out += "  LS_CHECK(ls_cuEventCreate(&ls_start, 0), \"cuEventCreate\");\n"
         "  LS_CHECK(ls_cuEventCreate(&ls_end, 0), \"cuEventCreate\");\n"
         "}\n\n";
  out += fmt::format("double {}_kernel_seconds(void) {{ return ls_seconds; }}\n\n", name);
  out += fmt::format("void {}({}) {{\n{}}}\n", name, hostlib::signature(func), body);
  return out;
}

Expected<std::string> buildHostLibrary(const std::string& host, const BuildOptions& options) {
  return hostlib::buildLibrary("cuda", "CUDA host library", host, {"-ldl"}, options);
}

} // namespace loopscape::codegen::cuda
