// The cuda target plugin (plugins/cuda): the CUDA C of a small kernel (golden), its PTX
// from NVRTC (golden tests/codegen/golden/cuda_small_sm80.ptx, made with NVRTC 13.0;
// regenerate with LS_UPDATE_GOLDEN=1), ptxas accepting every GPU sample schedule (with
// its barriers and shared memory), and, without a CUDA driver, build() saying that it
// cannot run. The NVRTC and ptxas parts skip, saying why, without the CUDA toolkit and in
// the sanitizer build (NVRTC is not loaded into an ASan process).
#include "core/codegen/gpu_bound_loop_check.h"
#include "core/codegen/pipeline.h"
#include "core/frontend/te_frontend.h"
#include "core/frontend/tvmscript/tvmscript.h"
#include "core/poly/gpu_bound_loops.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace loopscape;
using namespace loopscape::codegen;

namespace {

std::string readSource(const std::string& relative) {
  std::ifstream in(std::string(LS_SOURCE_DIR) + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ir::PrimFunc scheduled(const std::string& program, const std::string& script) {
  auto f = frontend::parseTe(program, "test.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), program).c_str());
  schedule::Schedule sch(*f);
  auto ok = schedule::applyScript(sch, script, "test.py");
  if (!ok) qFatal("%s", renderDiagnostic(ok.error(), script).c_str());
  return sch.func();
}

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

/// Two kernels (bound top loops) in one function.
const char* kTwoKernels = R"(# from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i in T.thread_binding(64, thread="blockIdx.x"):
        for j in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2)
    for i in T.thread_binding(32, thread="blockIdx.x"):
        for j in T.thread_binding(64, thread="threadIdx.x"):
            for r in range(2):
                with T.block("C"):
                    vi = T.axis.spatial(64, i * 2 + r)
                    vj = T.axis.spatial(64, j)
                    T.reads(B[63 - vj, vi])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[63 - vj, vi] + T.float32(1)
)";

} // namespace

class TestCuda : public QObject {
  Q_OBJECT

private:
  Pipeline m_pipeline;
  Target* m_target = nullptr;
  QString m_skip; ///< why the NVRTC/ptxas tests skip, or empty

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
      QSKIP("a CUDA driver is present here (running CUDA kernels is not implemented yet)");
    QVERIFY(!m_target->toolchain().usable);
    auto kernel = m_pipeline.build(*m_target, lowered(kSmall, kSmallSchedule), BuildOptions{});
    QVERIFY(!kernel);
    QCOMPARE(QString::fromStdString(kernel.error().code), QString("cuda.no-driver"));
    QVERIFY2(kernel.error().message.starts_with("cannot run CUDA kernels here: no CUDA driver ("),
             kernel.error().message.c_str());
  }
};

QTEST_GUILESS_MAIN(TestCuda)
#include "tst_cuda.moc"
