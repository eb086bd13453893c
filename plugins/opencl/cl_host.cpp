#include "plugins/opencl/cl_host.h"

#include "plugins/common/gpu_source.h"
#include "plugins/common/toolchain.h"
#include "plugins/opencl/cl_device.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

namespace loopscape::codegen::opencl {

using namespace ir;

namespace {

/// A parameter's element count as C over the size arguments s0, s1, ...
Expected<std::string> sizeExpr(const Expr& e, const LoweredFunc& func) {
  if (auto* i = e.as<IntImm>()) return fmt::format("(int64_t){}", i->value);
  if (e.is<Var>()) {
    for (std::size_t k = 0; k < func.sizeVars.size(); ++k)
      if (func.sizeVars[k].get() == e.get()) return fmt::format("s{}", k);
  }
  auto both = [&](const Expr& a, const Expr& b, const char* op) -> Expected<std::string> {
    auto x = sizeExpr(a, func), y = sizeExpr(b, func);
    if (!x) return x;
    if (!y) return y;
    return "(" + *x + " " + op + " " + *y + ")";
  };
  if (auto* a = e.as<Add>()) return both(a->a, a->b, "+");
  if (auto* s = e.as<Sub>()) return both(s->a, s->b, "-");
  if (auto* m = e.as<Mul>()) return both(m->a, m->b, "*");
  if (auto* c = e.as<Cast>()) return sizeExpr(c->value, func);
  return Unexpected(Diagnostic::error("opencl.unsupported", "cannot size a parameter of shape expression kind " +
                                                                std::string(exprKindName(e.kind()))));
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

} // namespace

Expected<std::string> hostSource(const LoweredFunc& func, const std::string& kernel) {
  LS_ASSERT(func.gpu.has_value(), "opencl: a host library for a CPU function");
  // The kernels, launched in this order (LoweredFunc::moreKernels).
  std::vector<const LoweredFunc*> kernels{&func};
  for (const LoweredFunc& k : func.moreKernels)
    kernels.push_back(&k);
  const std::size_t nk = kernels.size();
  const std::string& name = func.name;
  std::string sig, body;
  const std::size_t nb = func.flatParams.size(), ns = func.sizeVars.size();
  for (std::size_t i = 0; i < nb; ++i)
    sig += fmt::format("{}void* p{}", i ? ", " : "", i);
  for (std::size_t i = 0; i < ns; ++i)
    sig += fmt::format("{}int64_t s{}", i + nb ? ", " : "", i);
  if (sig.empty()) sig = "void";

  body += "  if (!ls_kernel[0]) ls_init();\n  cl_int e;\n";
  for (std::size_t i = 0; i < nb; ++i) {
    const Buffer& b = func.flatParams[i];
    auto count = sizeExpr(b->shape[0], func);
    if (!count) return Unexpected(count.error());
    body += fmt::format("  size_t n{} = (size_t)({}) * sizeof({});\n", i, *count, ctype(b->dtype));
    body +=
        fmt::format("  cl_mem m{} = clCreateBuffer(ls_ctx, CL_MEM_READ_WRITE, n{} ? n{} : 1, NULL, &e);\n", i, i, i);
    body += fmt::format("  if (e != CL_SUCCESS) ls_fail(\"clCreateBuffer\", e);\n");
    body +=
        fmt::format("  if (n{} && (e = clEnqueueWriteBuffer(ls_queue, m{}, CL_TRUE, 0, n{}, p{}, 0, NULL, NULL)) != "
                    "CL_SUCCESS) ls_fail(\"clEnqueueWriteBuffer\", e);\n",
                    i, i, i, i);
    for (std::size_t k = 0; k < nk; ++k)
      body += fmt::format("  LS_CHECK(clSetKernelArg(ls_kernel[{}], {}, sizeof(cl_mem), &m{}), \"clSetKernelArg\");\n",
                          k, i, i);
  }
  for (std::size_t i = 0; i < ns; ++i) {
    body += fmt::format("  cl_long a{} = (cl_long)s{};\n", i, i);
    for (std::size_t k = 0; k < nk; ++k)
      body += fmt::format("  LS_CHECK(clSetKernelArg(ls_kernel[{}], {}, sizeof(cl_long), &a{}), \"clSetKernelArg\");\n",
                          k, nb + i, i);
  }
  body += "  ls_seconds = 0;\n";
  for (std::size_t k = 0; k < nk; ++k) {
    const GpuKernel& g = *kernels[k]->gpu;
    body += "  {\n";
    body += fmt::format("    size_t global[3] = {{{}, {}, {}}};\n", g.grid[0] * g.block[0], g.grid[1] * g.block[1],
                        g.grid[2] * g.block[2]);
    body += fmt::format("    size_t local[3] = {{{}, {}, {}}};\n", g.block[0], g.block[1], g.block[2]);
    body += "    cl_event ev;\n";
    body += fmt::format("    LS_CHECK(clEnqueueNDRangeKernel(ls_queue, ls_kernel[{}], 3, NULL, global, local, 0, NULL, "
                        "&ev), \"clEnqueueNDRangeKernel\");\n",
                        k);
    body += "    LS_CHECK(clWaitForEvents(1, &ev), \"the kernel\");\n"
            "    cl_ulong t0 = 0, t1 = 0;\n"
            "    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);\n"
            "    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);\n"
            "    ls_seconds += (double)(t1 - t0) * 1e-9;\n"
            "    clReleaseEvent(ev);\n"
            "  }\n";
  }
  for (std::size_t i = 0; i < nb; ++i) {
    body += fmt::format("  if (n{} && (e = clEnqueueReadBuffer(ls_queue, m{}, CL_TRUE, 0, n{}, p{}, 0, NULL, NULL)) != "
                        "CL_SUCCESS) ls_fail(\"clEnqueueReadBuffer\", e);\n",
                        i, i, i, i);
    body += fmt::format("  clReleaseMemObject(m{});\n", i);
  }
  body += fmt::format("  if (ls_profile) fprintf(stderr, \"opencl: {} %.4f ms (profiling event)\\n\", ls_seconds * "
                      "1e3);\n",
                      nk == 1 ? "kernel" : fmt::format("{} kernels", nk));

  std::string out = fmt::format("/* Generated by loopscape (target opencl): the host library of kernel {}. */\n", name);
  out += deviceChoiceSource();
  out += "#include <stdint.h>\n\n";
  out += "static const char ls_kernel_source[] =\n" + gpu::cStringLiteral(kernel) + ";\n\n";
  out += fmt::format("static cl_kernel ls_kernel[{}];\n", nk);
  out += R"(static cl_context ls_ctx;
static cl_command_queue ls_queue;
static double ls_seconds;
static int ls_profile;

static void ls_fail(const char* what, cl_int e) {
  fprintf(stderr, "opencl: %s failed (error %d)\n", what, (int)e);
  abort();
}
#define LS_CHECK(call, what) do { cl_int ls_e = (call); if (ls_e != CL_SUCCESS) ls_fail(what, ls_e); } while (0)

static void ls_init(void) {
  cl_platform_id platform;
  cl_device_id device;
  char why[512];
  if (!ls_choose_device(&platform, &device, why, sizeof why)) {
    fprintf(stderr, "opencl: %s\n", why);
    abort();
  }
  const char* env = getenv("LOOPSCAPE_OPENCL_PROFILE");
  ls_profile = env && strcmp(env, "1") == 0;
  cl_int e;
  ls_ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &e);
  if (e != CL_SUCCESS) ls_fail("clCreateContext", e);
  ls_queue = clCreateCommandQueue(ls_ctx, device, CL_QUEUE_PROFILING_ENABLE, &e);
  if (e != CL_SUCCESS) ls_fail("clCreateCommandQueue", e);
  const char* source = ls_kernel_source;
  cl_program program = clCreateProgramWithSource(ls_ctx, 1, &source, NULL, &e);
  if (e != CL_SUCCESS) ls_fail("clCreateProgramWithSource", e);
  e = clBuildProgram(program, 1, &device, "-cl-std=CL1.2", NULL, NULL);
  if (e != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char* log = (char*)calloc(n + 1, 1);
    if (log) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    fprintf(stderr, "opencl: the OpenCL compiler rejected the kernel (error %d):\n%s\n", (int)e, log ? log : "");
    abort();
  }
)";
  for (std::size_t k = 0; k < nk; ++k) {
    out += fmt::format("  ls_kernel[{}] = clCreateKernel(program, \"{}\", &e);\n", k, kernels[k]->name);
    out += "  if (e != CL_SUCCESS) ls_fail(\"clCreateKernel\", e);\n";
  }
  out += "  clReleaseProgram(program);\n}\n\n";
  out += fmt::format("double {}_kernel_seconds(void) {{ return ls_seconds; }}\n\n", name);
  out += fmt::format("void {}({}) {{\n{}}}\n", name, sig, body);
  return out;
}

Expected<std::string> buildHostLibrary(const std::string& host, const BuildOptions& options) {
  if (auto ok = toolchain::requireCompiler("opencl"); !ok) return Unexpected(ok.error());
  auto dir = toolchain::cacheDir(options, "opencl");
  if (!dir) return Unexpected(dir.error());
  const std::vector<std::string> flags = {"-std=gnu11", "-O2", "-fPIC", "-shared"};
  const toolchain::Compiler& cc = toolchain::systemCompiler();
  const std::string base =
      (std::filesystem::path(*dir) / toolchain::contentHash({cc.path, cc.version, "-std=gnu11 -O2 -shared", host}))
          .string();
  return toolchain::cachedOutput("opencl", base + ".so", [&](const std::string& temporary) -> Expected<void> {
    if (!writeText(base + ".c", host))
      return Unexpected(Diagnostic::error("opencl.write-failed", "cannot write " + base + ".c"));
    std::vector<std::string> args = flags;
    args.insert(args.end(), {"-o", temporary, base + ".c", "-lOpenCL"});
    auto ran = toolchain::runCompiler("opencl", args, options.stop);
    if (!ran) return Unexpected(ran.error());
    if (ran->exitStatus == 0) return {};
    auto d =
        Diagnostic::error("opencl.compile-error", "the C compiler rejected the OpenCL host library " + base + ".c");
    d.notes.push_back("compiler output:\n" + ran->output);
    return Unexpected(std::move(d));
  });
}

} // namespace loopscape::codegen::opencl
