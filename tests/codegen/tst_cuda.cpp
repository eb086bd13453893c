// The cuda target plugin (plugins/cuda): the CUDA C of a small kernel (golden), its PTX
// from NVRTC (golden tests/codegen/golden/cuda_small_sm80.ptx, made with NVRTC 13.0;
// regenerate with LS_UPDATE_GOLDEN=1), ptxas accepting every GPU sample schedule (with
// its barriers and shared memory), and, without a CUDA driver, build() saying that it
// cannot run. The NVRTC and ptxas parts skip, saying why, without the CUDA toolkit and in
// the sanitizer build (NVRTC is not loaded into an ASan process).
//
// The run path (plugins/cuda/cuda_host.h): the host library's launch lines, and the host
// library run by loopscape-cli and its worker against the MOCK CUDA driver
// (tests/codegen/mock_cuda: a libcuda.so.1 that records the driver calls, loaded only by
// those child processes through LD_LIBRARY_PATH). That tests the host plumbing (driver
// loading, copies, launch grid and block, arguments, kernel order, error reporting)
// without a GPU; it computes nothing. Only realGpuVerify runs kernels on a real GPU and
// checks their results against the interpreter; it skips where the real driver does not
// load or finds no device (every machine these tests have run on so far).
#include "gpu_test_helpers.h"

#include "core/codegen/gpu_bound_loop_check.h"
#include "core/codegen/pipeline.h"
#include "core/frontend/te_frontend.h"
#include "core/frontend/tvmscript/tvmscript.h"
#include "core/poly/gpu_bound_loops.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <dlfcn.h>

using namespace loopscape;
using namespace loopscape::codegen;

namespace {

using testing::Cli;

/// Whether the CUDA toolkit the plugin finds has cuobjdump (cuda_toolkit.cpp's search).
bool hasCuobjdump() {
  const char* home = std::getenv("CUDA_HOME");
  for (const std::string& root : {std::string(home && *home ? home : ""), std::string("/usr/local/cuda")})
    if (!root.empty() && std::filesystem::exists(root + "/bin/cuobjdump")) return true;
  return false;
}

using testing::kGpuMatmul;
using testing::kTwoKernels;
using testing::parse;
using testing::readSource;
using testing::runCli;
using testing::scheduled;

const char* kSmall = R"(from tvm import te
A = te.placeholder((32, 8), dtype="float32", name="A")
B = te.placeholder((8, 32), dtype="float32", name="B")
k = te.reduce_axis((0, 8), name="k")
C = te.compute((32, 32), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

const char* kSmallSchedule = R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1 = sch.split(i, [None, 16])
j_0, j_1 = sch.split(j, [None, 16])
sch.reorder(i_0, j_0, i_1, j_1, k)
sch.bind(i_0, "blockIdx.y")
sch.bind(j_0, "blockIdx.x")
sch.bind(i_1, "threadIdx.y")
sch.bind(j_1, "threadIdx.x")
)";

// A Vectorized loop of 4: A, B and C accessed as float4 (aligned); Bs is read one
// element past the row start (contiguous, unaligned: scalar loads).
const char* kVector = R"(from tvm import te
A = te.placeholder((64, 64), dtype="float32", name="A")
B = te.placeholder((64, 64), dtype="float32", name="B")
Bs = te.placeholder((64, 65), dtype="float32", name="Bs")
C = te.compute((64, 64), lambda i, j: A[i, j] * 2.0 + B[i, j] + Bs[i, j + 1], name="C")
)";
const char* kVectorSchedule = R"(b = sch.get_block("C")
i, j = sch.get_loops(b)
j_0, j_1, j_2 = sch.split(j, [None, 8, 4])
sch.bind(i, "blockIdx.x")
sch.bind(j_1, "threadIdx.x")
sch.vectorize(j_2)
)";

RunOptions isolated() {
  RunOptions o;
  o.workerPath = LS_WORKER_PATH;
  o.timeoutSeconds = 60;
  return o;
}

QString readText(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

/// The calls that the mock driver recorded in `path` ("<pid> <call>" lines) by the
/// processes that loaded a module (the worker running the host library), without the pid;
/// the CLI's own lines (NVRTC's cuInit and cuGetExportTable) are left out.
QString workerCalls(const QString& path) {
  QStringList order;
  QMap<QString, QString> calls;
  for (const QString& line : readText(path).split('\n', Qt::SkipEmptyParts)) {
    const QString pid = line.section(' ', 0, 0);
    if (!calls.contains(pid)) order << pid;
    calls[pid] += line.section(' ', 1) + "\n";
  }
  QString out;
  for (const QString& pid : order)
    if (calls[pid].contains("cuModuleLoadData")) out += calls[pid];
  return out;
}

/// Why the real CUDA driver cannot run kernels in this process, or "" when it loads and
/// finds a device (cuInit, cuDeviceGetCount > 0). LD_LIBRARY_PATH is never set in this
/// process, so the mock driver is not what it finds.
[[maybe_unused]] QString realGpuMissing() {
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    const char* why = ::dlerror();
    return QString::fromUtf8(why ? why : "libcuda.so.1 not found");
  }
  using InitFn = int (*)(unsigned int);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(::dlsym(driver, "cuInit"));
  auto count = reinterpret_cast<CountFn>(::dlsym(driver, "cuDeviceGetCount"));
  if (!init || !count) return "libcuda.so.1 has no cuInit or cuDeviceGetCount";
  if (int e = init(0); e != 0) return QString("cuInit failed with error %1").arg(e);
  int devices = 0;
  if (int e = count(&devices); e != 0) return QString("cuDeviceGetCount failed with error %1").arg(e);
  if (devices <= 0) return "the CUDA driver finds no device";
  return {};
}

} // namespace

class TestCuda : public QObject {
  Q_OBJECT

private:
  Pipeline m_pipeline;
  Target* m_target = nullptr;
  QString m_skip;  ///< why the NVRTC/ptxas tests skip, or empty
  QString m_noGpu; ///< why realGpuVerify skips, or empty

  LoweredFunc lowered(const std::string& program, const std::string& script) {
    auto l = m_pipeline.lower(*m_target, scheduled(program, script));
    if (!l) qFatal("%s", renderDiagnostic(l.error()).c_str());
    return *l;
  }

private Q_SLOTS:
  void initTestCase() {
    codegen::setBoundLoopCheck(poly::checkBoundLoopDependences); // as the CLI and the workbench
    qunsetenv("LOOPSCAPE_CUDA_ARCH");
    auto target = m_pipeline.findTarget("cuda");
    QVERIFY2(target, target ? "" : renderDiagnostic(target.error()).c_str());
    m_target = *target;
#if defined(__SANITIZE_ADDRESS__)
    m_skip = "not run in the sanitizer build: NVRTC is not loaded into an ASan process";
#else
    const std::string status = m_target->toolchain().message;
    if (status.starts_with("no CUDA toolkit")) m_skip = QString::fromStdString(status);
#endif
#if defined(__SANITIZE_ADDRESS__)
    m_noGpu = "the driver is not loaded into an ASan process";
#else
    m_noGpu = realGpuMissing();
#endif
  }

  void describesItself() {
    QCOMPARE(QString::fromStdString(m_target->deviceKind()), QString("gpu"));
    QCOMPARE(m_target->sourceFormats(), hasCuobjdump()
                                            ? (std::vector<std::string>{"cuda", "ptx", "ptxas", "sass", "host"})
                                            : (std::vector<std::string>{"cuda", "ptx", "ptxas", "host"}));
  }

  /// The "sass" format: ptxas's cubin listed by cuobjdump where the toolkit has it; else
  /// not a format, and the error says what it needs.
  void sassListing() {
    const LoweredFunc l = lowered(kSmall, kSmallSchedule);
    auto sass = m_pipeline.source(*m_target, l, "sass", BuildOptions{});
    if (!hasCuobjdump()) {
      QVERIFY(!sass);
      QCOMPARE(QString::fromStdString(sass.error().message),
               QString("target cuda has no source format 'sass' (formats: cuda, ptx, ptxas, host); sass needs "
                       "cuobjdump from the CUDA toolkit"));
      QSKIP("no cuobjdump in the CUDA toolkit here: only the error is tested");
    }
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    QVERIFY2(sass, sass ? "" : renderDiagnostic(sass.error()).c_str());
    QVERIFY2(sass->find("Function : main_kernel") != std::string::npos, sass->c_str());
    QVERIFY2(sass->find("code for sm_80") != std::string::npos, sass->c_str());
    QVERIFY2(sass->find("EXIT") != std::string::npos, sass->c_str());
  }

  void cudaSourceGolden() {
    auto text = m_pipeline.source(*m_target, lowered(kSmall, kSmallSchedule), "cuda", BuildOptions{});
    QVERIFY2(text, text ? "" : renderDiagnostic(text.error()).c_str());
    QCOMPARE(QString::fromStdString(*text),
             QString(R"(// Generated by loopscape (target cuda): kernel main_kernel (2x2x1 blocks x 16x16x1 threads).

extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C) {
  int blockIdx_x = (int)blockIdx.x;
  int blockIdx_y = (int)blockIdx.y;
  int threadIdx_x = (int)threadIdx.x;
  int threadIdx_y = (int)threadIdx.y;
  // block C.init
  C[((((blockIdx_y * 512) + (threadIdx_y * 32)) + (blockIdx_x * 16)) + threadIdx_x)] = (0.0f);
  for (int k = 0; k < 8; ++k) {
    // block C
    C[((((blockIdx_y * 512) + (threadIdx_y * 32)) + (blockIdx_x * 16)) + threadIdx_x)] = (C[((((blockIdx_y * 512) + (threadIdx_y * 32)) + (blockIdx_x * 16)) + threadIdx_x)] + (A[(((blockIdx_y * 128) + (threadIdx_y * 8)) + k)] * B[(((k * 32) + (blockIdx_x * 16)) + threadIdx_x)]));
  }
}
)"));
  }

  /// float4 loads and stores in the CUDA C and the PTX where the access is aligned; the
  /// unaligned Bs stays four scalar loads.
  void vectorAccesses() {
    const LoweredFunc l = lowered(kVector, kVectorSchedule);
    auto text = m_pipeline.source(*m_target, l, "cuda", BuildOptions{});
    QVERIFY2(text, text ? "" : renderDiagnostic(text.error()).c_str());
    QVERIFY2(text->find("const float4 ls_v0 = *(const float4*)(A + (((blockIdx_x * 64) + (j_0 * 32)) + (threadIdx_x "
                        "* 4)));") != std::string::npos,
             text->c_str());
    QVERIFY2(text->find("ls_r.w = (((ls_v0.w * (2.0f)) + ls_v1.w) + Bs[(((((blockIdx_x * 65) + (j_0 * 32)) + "
                        "(threadIdx_x * 4)) + 1) + 3)]);") != std::string::npos,
             text->c_str());
    QVERIFY2(text->find("*(float4*)(C + (((blockIdx_x * 64) + (j_0 * 32)) + (threadIdx_x * 4))) = ls_r;") !=
                 std::string::npos,
             text->c_str());
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    auto ptx = m_pipeline.source(*m_target, l, "ptx", BuildOptions{});
    QVERIFY2(ptx, ptx ? "" : renderDiagnostic(ptx.error()).c_str());
    auto count = [&](const std::string& what) {
      int n = 0;
      for (std::size_t at = ptx->find(what); at != std::string::npos; at = ptx->find(what, at + 1))
        ++n;
      return n;
    };
    // Two iterations of j_0 (unrolled or not), each two v4 loads and one v4 store.
    QVERIFY2(count("ld.global.nc.v4.f32") >= 2 && count("st.global.v4.f32") >= 1, ptx->c_str());
    QCOMPARE(count("ld.global.nc.v4.f32"), 2 * count("st.global.v4.f32"));
  }

  /// Two kernels of one function: both in the CUDA C, both entries accepted by ptxas.
  void severalKernels() {
    auto parsed = frontend::parseTvmScript(kTwoKernels, "two.py");
    QVERIFY(parsed);
    auto f = frontend::selectFunction(*parsed, "", "two.py");
    QVERIFY(f);
    auto l = m_pipeline.lower(*m_target, *f);
    QVERIFY2(l, l ? "" : renderDiagnostic(l.error()).c_str());
    auto text = m_pipeline.source(*m_target, *l, "cuda", BuildOptions{});
    QVERIFY2(text, text ? "" : renderDiagnostic(text.error()).c_str());
    QVERIFY2(text->find("extern \"C\" __global__ void __launch_bounds__(64) main_kernel_1(") != std::string::npos,
             text->c_str());
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    auto usage = m_pipeline.source(*m_target, *l, "ptxas", BuildOptions{});
    QVERIFY2(usage, usage ? "" : renderDiagnostic(usage.error()).c_str());
    QVERIFY2(usage->find("Compiling entry function 'main_kernel' for 'sm_80'") != std::string::npos, usage->c_str());
    QVERIFY2(usage->find("Compiling entry function 'main_kernel_1' for 'sm_80'") != std::string::npos, usage->c_str());
  }

  void ptxGolden() {
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    auto ptx = m_pipeline.source(*m_target, lowered(kSmall, kSmallSchedule), "ptx", BuildOptions{});
    QVERIFY2(ptx, ptx ? "" : renderDiagnostic(ptx.error()).c_str());
    QVERIFY2(ptx->find(".visible .entry main_kernel(") != std::string::npos, ptx->c_str());
    QVERIFY2(ptx->find(".target sm_80") != std::string::npos, ptx->c_str());
    const std::string golden = std::string(LS_SOURCE_DIR) + "/tests/codegen/golden/cuda_small_sm80.ptx";
    if (std::getenv("LS_UPDATE_GOLDEN")) {
      std::ofstream(golden, std::ios::binary | std::ios::trunc) << *ptx;
      return;
    }
    if (ptx->find("Cuda compilation tools, release 13.0,") == std::string::npos)
      QSKIP("the PTX golden was made with NVRTC 13.0; this NVRTC differs (its PTX was checked for the entry above)");
    QCOMPARE(QString::fromStdString(*ptx),
             QString::fromStdString(readSource("tests/codegen/golden/cuda_small_sm80.ptx")));
  }

  void ptxasAcceptsGpuSamples_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("usage");
    QString matmul = QString::fromStdString(readSource("samples/matmul.te"));
    matmul.replace("M, N, K = 1024, 1024, 1024", "M, N, K = 128, 128, 64");
    QTest::newRow("matmul_gpu") << matmul << "samples/traces/matmul_gpu.py"
                                << "used 1 barriers, 8192 bytes smem";
    QTest::newRow("matmul_gpu_128") << matmul << "samples/traces/matmul_gpu_128.py"
                                    << "used 1 barriers, 8192 bytes smem";
    QTest::newRow("softmax_gpu") << QString::fromStdString(readSource("samples/softmax.te"))
                                 << "samples/traces/softmax_gpu.py"
                                 << "used 1 barriers, 1032 bytes smem";
    QTest::newRow("conv2d_nchw_gpu") << QString::fromStdString(readSource("samples/conv2d_nchw.te"))
                                     << "samples/traces/conv2d_nchw_gpu.py"
                                     << "used 1 barriers, 504 bytes smem";
  }
  void ptxasAcceptsGpuSamples() {
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    QFETCH(QString, program);
    QFETCH(QString, trace);
    QFETCH(QString, usage);
    const LoweredFunc l = lowered(program.toStdString(), readSource(trace.toStdString()));
    auto text = m_pipeline.source(*m_target, l, "ptxas", BuildOptions{});
    QVERIFY2(text, text ? "" : renderDiagnostic(text.error()).c_str());
    QVERIFY2(text->find("Compiling entry function 'main_kernel' for 'sm_80'") != std::string::npos, text->c_str());
    QVERIFY2(text->find(usage.toStdString()) != std::string::npos, text->c_str());
  }

  void cannotRunWithoutDriver() {
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    const std::string status = m_target->toolchain().message;
    if (status.find("cannot run: no CUDA driver") == std::string::npos)
      QSKIP("a CUDA driver is present here (realGpuVerify runs kernels with it)");
    QVERIFY(!m_target->toolchain().usable);
    auto kernel = m_pipeline.build(*m_target, lowered(kSmall, kSmallSchedule), BuildOptions{});
    QVERIFY(!kernel);
    QCOMPARE(QString::fromStdString(kernel.error().code), QString("cuda.no-driver"));
    QVERIFY2(kernel.error().message.starts_with("cannot run CUDA kernels here: no CUDA driver ("),
             kernel.error().message.c_str());
  }
  /// The host library's C (format "host"): the PTX embedded, the driver entry points
  /// looked up by their _v2 names, each parameter copied in and out, and one launch line
  /// per kernel with its grid and block, in order.
  void hostSourceLaunches() {
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    const LoweredFunc small = lowered(kSmall, kSmallSchedule);
    auto host = m_pipeline.source(*m_target, small, "host", BuildOptions{});
    QVERIFY2(host, host ? "" : renderDiagnostic(host.error()).c_str());
    auto ptx = m_pipeline.source(*m_target, small, "ptx", BuildOptions{});
    QVERIFY(ptx);
    auto has = [&](const std::string& line) { return host->find(line) != std::string::npos; };
    QVERIFY2(has("/* Generated by loopscape (target cuda): the host library of kernel main_kernel. */\n"),
             host->c_str());
    // The PTX, line by line, as a C string literal.
    QVERIFY2(has("static const char ls_ptx[] =\n\"//\\n\"\n"), host->c_str());
    QVERIFY2(has("\".visible .entry main_kernel(\\n\"\n"), host->c_str());
    QVERIFY(ptx->find(".visible .entry main_kernel(\n") != std::string::npos);
    QVERIFY2(has("LS_LOAD(cuMemAlloc, \"cuMemAlloc_v2\", NULL);"), host->c_str());
    QVERIFY2(has("LS_LOAD(cuEventElapsedTime, \"cuEventElapsedTime_v2\", \"cuEventElapsedTime\");"), host->c_str());
    QVERIFY2(has("void main_kernel(void* p0, void* p1, void* p2) {\n  if (!ls_kernel[0]) ls_init();\n"
                 "  size_t n0 = (size_t)((int64_t)256) * sizeof(float);\n"
                 "  CUdeviceptr d0 = 0;\n"
                 "  LS_CHECK(ls_cuMemAlloc(&d0, n0 ? n0 : 1), \"cuMemAlloc\");\n"
                 "  if (n0) LS_CHECK(ls_cuMemcpyHtoD(d0, p0, n0), \"cuMemcpyHtoD\");\n"),
             host->c_str());
    QVERIFY2(has("  size_t n2 = (size_t)((int64_t)1024) * sizeof(float);\n"), host->c_str());
    QVERIFY2(has("  void* args[] = {&d0, &d1, &d2};\n"), host->c_str());
    QVERIFY2(has("    LS_CHECK(ls_cuLaunchKernel(ls_kernel[0], 2, 2, 1, 16, 16, 1, 0, NULL, args, NULL), "
                 "\"cuLaunchKernel\");\n"),
             host->c_str());
    QVERIFY2(has("  LS_CHECK(ls_cuModuleGetFunction(&ls_kernel[0], module, \"main_kernel\"), "
                 "\"cuModuleGetFunction\");\n"),
             host->c_str());
    QVERIFY2(has("  if (n2) LS_CHECK(ls_cuMemcpyDtoH(p2, d2, n2), \"cuMemcpyDtoH\");\n"
                 "  LS_CHECK(ls_cuMemFree(d2), \"cuMemFree\");\n"
                 "  if (ls_profile) fprintf(stderr, \"cuda: kernel %.4f ms (CUDA events)\\n\", ls_seconds * 1e3);\n"
                 "}\n"),
             host->c_str());

    // Two kernels: both looked up, launched in order, each with its own grid.
    auto two = m_pipeline.lower(*m_target, testing::parseScript(kTwoKernels));
    QVERIFY2(two, two ? "" : renderDiagnostic(two.error()).c_str());
    auto host2 = m_pipeline.source(*m_target, *two, "host", BuildOptions{});
    QVERIFY2(host2, host2 ? "" : renderDiagnostic(host2.error()).c_str());
    const std::size_t get0 = host2->find("ls_cuModuleGetFunction(&ls_kernel[0], module, \"main_kernel\")");
    const std::size_t get1 = host2->find("ls_cuModuleGetFunction(&ls_kernel[1], module, \"main_kernel_1\")");
    QVERIFY2(get0 != std::string::npos && get1 != std::string::npos, host2->c_str());
    const std::size_t launch0 = host2->find("ls_cuLaunchKernel(ls_kernel[0], 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL)");
    const std::size_t launch1 = host2->find("ls_cuLaunchKernel(ls_kernel[1], 32, 1, 1, 64, 1, 1, 0, NULL, args, NULL)");
    QVERIFY2(launch0 != std::string::npos && launch1 != std::string::npos && launch0 < launch1, host2->c_str());
    QVERIFY2(host2->find("cuda: 2 kernels %.4f ms (CUDA events)") != std::string::npos, host2->c_str());
  }

  /// With the mock driver, `loopscape-cli targets` says the cuda target can run.
  void mockDriverTargets() {
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    const Cli r = runCli({"targets"}, {"LD_LIBRARY_PATH=" LS_MOCK_CUDA_DIR});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("; runs on device 0 of the CUDA driver (libcuda.so.1); host library by "),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(hasCuobjdump() ? "  formats: cuda, ptx, ptxas, sass, host"
                                           : "  formats: cuda, ptx, ptxas, host"),
             qPrintable(r.out));
  }

  /// `loopscape-cli run --target cuda` against the mock driver: the plugin builds the host
  /// library, the worker calls it once, and the mock's record of the driver calls is
  /// exactly the expected sequence (device setup once, then per call: allocate and copy in
  /// every parameter, each launch with its grid, block and arguments, copy out and free).
  void mockDriverRecordsCalls_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("profile");
    const QString setup = "cuInit 0\ncuDeviceGet 0\ncuDevicePrimaryCtxRetain 0\ncuCtxSetCurrent\n";
    const QString timed = "cuEventRecord\n%1\ncuEventRecord\ncuEventSynchronize\ncuEventElapsedTime\n";
    QTest::newRow("matmul_gpu (128 x 128 x 64)")
        << "matmul.te" << QString(kGpuMatmul) << "samples/traces/matmul_gpu.py"
        << setup +
               "cuModuleLoadDataEx entries=main_kernel(3)\ncuModuleGetFunction main_kernel\n"
               "cuEventCreate 0\ncuEventCreate 0\n"
               "cuMemAlloc buf0 32768\ncuMemcpyHtoD buf0 32768\n"
               "cuMemAlloc buf1 32768\ncuMemcpyHtoD buf1 32768\n"
               "cuMemAlloc buf2 65536\ncuMemcpyHtoD buf2 65536\n" +
               QString(timed).arg("cuLaunchKernel main_kernel grid=2,2,1 block=16,16,1 shared=0 args=buf0,buf1,buf2") +
               "cuCtxSynchronize\n"
               "cuMemcpyDtoH buf0 32768\ncuMemFree buf0\n"
               "cuMemcpyDtoH buf1 32768\ncuMemFree buf1\n"
               "cuMemcpyDtoH buf2 65536\ncuMemFree buf2\n"
        << "cuda: kernel 0.2500 ms (CUDA events)";
    QTest::newRow("two kernels") << "two.py" << QString(kTwoKernels) << ""
                                 << setup +
                                        "cuModuleLoadDataEx entries=main_kernel(3),main_kernel_1(3)\n"
                                        "cuModuleGetFunction main_kernel\ncuModuleGetFunction main_kernel_1\n"
                                        "cuEventCreate 0\ncuEventCreate 0\n"
                                        "cuMemAlloc buf0 16384\ncuMemcpyHtoD buf0 16384\n"
                                        "cuMemAlloc buf1 16384\ncuMemcpyHtoD buf1 16384\n"
                                        "cuMemAlloc buf2 16384\ncuMemcpyHtoD buf2 16384\n" +
                                        QString(timed).arg("cuLaunchKernel main_kernel grid=64,1,1 block=64,1,1 "
                                                           "shared=0 args=buf0,buf1,buf2") +
                                        QString(timed).arg("cuLaunchKernel main_kernel_1 grid=32,1,1 block=64,1,1 "
                                                           "shared=0 args=buf0,buf1,buf2") +
                                        "cuCtxSynchronize\n"
                                        "cuMemcpyDtoH buf0 16384\ncuMemFree buf0\n"
                                        "cuMemcpyDtoH buf1 16384\ncuMemFree buf1\n"
                                        "cuMemcpyDtoH buf2 16384\ncuMemFree buf2\n"
                                 << "cuda: 2 kernels 0.5000 ms (CUDA events)";
  }
  void mockDriverRecordsCalls() {
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    QFETCH(QString, file);
    QFETCH(QString, program);
    QFETCH(QString, trace);
    QFETCH(QString, expected);
    QFETCH(QString, profile);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString source = dir.filePath(file), log = dir.filePath("calls.log");
    {
      QFile f(source);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(program.toUtf8());
    }
    QStringList args = {"run", source, "--target", "cuda", "--warmup", "0", "--repeat", "1", "--number", "1"};
    if (!trace.isEmpty()) args << "--trace" << trace;
    const Cli r = runCli(
        args, {"LD_LIBRARY_PATH=" LS_MOCK_CUDA_DIR, "LOOPSCAPE_MOCK_CUDA_LOG=" + log, "LOOPSCAPE_CUDA_PROFILE=1"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    QVERIFY2(r.out.contains(profile), qPrintable(r.out));
    QCOMPARE(workerCalls(log), expected);
  }

  /// A driver error aborts the call with "cuda: <function>: <name>: <string>" (and the
  /// JIT's log), which the CLI reports.
  void mockDriverErrorIsReported() {
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString log = dir.filePath("calls.log");
    const Cli r = runCli({"run", "samples/softmax.te", "--trace", "samples/traces/softmax_gpu.py", "--target", "cuda",
                          "--warmup", "0", "--repeat", "1", "--number", "1"},
                         {"LD_LIBRARY_PATH=" LS_MOCK_CUDA_DIR, "LOOPSCAPE_MOCK_CUDA_LOG=" + log,
                          "LOOPSCAPE_MOCK_CUDA_FAIL=cuModuleLoadData"});
    QVERIFY2(r.exitCode != 0, qPrintable(r.out));
    QVERIFY2(r.out.contains("error: the kernel crashed with SIGABRT (aborted)\nnote: the kernel's output: "
                            "cuda: cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed\n"
                            "cuda: the PTX JIT's error log:\nptxas fatal   : mock driver: PTX refused\n"),
             qPrintable(r.out));
    QCOMPARE(workerCalls(log), QString("cuInit 0\ncuDeviceGet 0\ncuDevicePrimaryCtxRetain 0\ncuCtxSetCurrent\n"
                                       "cuModuleLoadDataEx failed (LOOPSCAPE_MOCK_CUDA_FAIL)\n"));
  }

  /// On a real GPU: the GPU sample schedules (small copies) and the two-kernel program
  /// built, run in the worker and verified against the interpreter.
  void realGpuVerify_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("trace");
    QTest::newRow("matmul_gpu (128 x 128 x 64)") << QString(kGpuMatmul) << "samples/traces/matmul_gpu.py";
    QTest::newRow("matmul_gpu_128 (128 x 128 x 64)") << QString(kGpuMatmul) << "samples/traces/matmul_gpu_128.py";
    QTest::newRow("softmax_gpu") << QString::fromStdString(readSource("samples/softmax.te"))
                                 << "samples/traces/softmax_gpu.py";
    // samples/conv2d_nchw.te with fewer channels and rows, as tst_opencl.
    QString conv = QString::fromStdString(readSource("samples/conv2d_nchw.te"));
    conv.replace("batch, in_channel, height, width = 1, 64, 56, 56", "batch, in_channel, height, width = 1, 4, 8, 56");
    conv.replace("out_channel, kernel, pad, stride = 64, 3, 1, 1", "out_channel, kernel, pad, stride = 8, 3, 1, 1");
    QVERIFY(conv.contains("1, 4, 8, 56") && conv.contains("8, 3, 1, 1"));
    QTest::newRow("conv2d_nchw_gpu (4 -> 8 channels, 8 x 56)") << conv << "samples/traces/conv2d_nchw_gpu.py";
    QTest::newRow("two kernels") << QString(kTwoKernels) << "";
  }
  void realGpuVerify() {
    if (!m_noGpu.isEmpty())
      QSKIP(qPrintable("no CUDA GPU here (" + m_noGpu + "): the CUDA run path is tested against the mock driver only"));
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    QFETCH(QString, program);
    QFETCH(QString, trace);
    const ir::PrimFunc original =
        trace.isEmpty() ? testing::parseScript(program.toStdString()) : parse(program.toStdString());
    const ir::PrimFunc func = trace.isEmpty() ? original : scheduled(original, readSource(trace.toStdString()));
    auto l = m_pipeline.lower(*m_target, func);
    QVERIFY2(l, l ? "" : renderDiagnostic(l.error()).c_str());
    auto kernel = m_pipeline.build(*m_target, *l, BuildOptions{});
    QVERIFY2(kernel, kernel ? "" : renderDiagnostic(kernel.error()).c_str());
    auto args = makeArguments(original, {}, 0);
    QVERIFY2(args, args ? "" : renderDiagnostic(args.error()).c_str());
    auto report = m_pipeline.verify(*kernel, original, {}, *args, isolated(), VerifyOptions{});
    QVERIFY2(report, report ? "" : renderDiagnostic(report.error()).c_str());
    QCOMPARE(report->reference, ReferenceKind::Interpreter);
    QVERIFY(!report->outputs.empty());
    for (const auto& check : report->outputs)
      QVERIFY2(check.passed(), (check.name + ": " + check.str()).c_str());
  }
};

QTEST_GUILESS_MAIN(TestCuda)
#include "tst_cuda.moc"
