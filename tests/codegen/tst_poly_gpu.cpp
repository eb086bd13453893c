// poly_auto(target="gpu") (core/poly/gpu_mapping.h): the mapped matmul printed exactly
// (block and thread bindings, the shared-memory copies), the trace step and its replay;
// matmul (divisible and partial tiles, strided thread loops), a conv2d, softmax and an
// elementwise chain built by the opencl plugin, run on this machine's OpenCL platform
// (PoCL) and verified against the interpreter; the same programs compiled to PTX and
// accepted by ptxas (cuda plugin); the refusal of a program whose outermost band has no
// coincident member; an intermediate two kernels use left global (refused by the
// lowering); bad option values; loopscape-cli print --format opencl and run --verify.
//
// The running tests skip, saying why, without an OpenCL platform, the PTX tests without
// the CUDA toolkit; both skip in the sanitizer build (as tst_opencl and tst_cuda do).
#include "gpu_test_helpers.h"

#include "core/codegen/gpu_bound_loop_check.h"
#include "core/codegen/pipeline.h"
#include "core/ir/printer.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/gpu_bound_loops.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/trace_python.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace loopscape;
using namespace loopscape::codegen;

namespace {

using testing::Cli;
using testing::parse;
using testing::readSource;
using testing::runCli;

/// samples/matmul.te at 64 x 64 x 64, or at other sizes.
std::string matmul(int m, int n, int k) {
  std::string text = readSource("samples/matmul.te");
  const std::string from = "M, N, K = 1024, 1024, 1024";
  const auto at = text.find(from);
  if (at == std::string::npos) qFatal("samples/matmul.te changed");
  return text.replace(at, from.size(),
                      "M, N, K = " + std::to_string(m) + ", " + std::to_string(n) + ", " + std::to_string(k));
}

/// samples/conv2d_nchw.te with 4 -> 8 channels on 30 x 30.
std::string conv2d() {
  std::string text = readSource("samples/conv2d_nchw.te");
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"batch, in_channel, height, width = 1, 64, 56, 56",
                                            "batch, in_channel, height, width = 1, 4, 30, 30"},
        {"out_channel, kernel, pad, stride = 64, 3, 1, 1", "out_channel, kernel, pad, stride = 8, 3, 1, 1"}}) {
    const auto at = text.find(from);
    if (at == std::string::npos) qFatal("samples/conv2d_nchw.te changed");
    text.replace(at, from.size(), to);
  }
  return text;
}

constexpr const char* kChain = R"(from tvm import te
M, N = 40, 72
A = te.placeholder((M, N), dtype="float32", name="A")
B = te.compute((M, N), lambda i, j: A[i, j] * 2.0, name="B")
C = te.compute((M, N), lambda i, j: B[i, j] + 1.0, name="C")
D = te.compute((M, N), lambda i, j: te.max(C[i, j], 0.0), name="D")
)";

/// `original` after `script` (poly steps included), every step checked against the
/// dependences of the original (as the CLI and the workbench apply traces).
Expected<ir::PrimFunc> applied(const ir::PrimFunc& original, const std::string& script) {
  poly::registerPolyInstructionKinds();
  schedule::Schedule sch = poly::makeSchedule(original);
  if (auto ok = schedule::applyScript(sch, script, "test.py"); !ok) return Unexpected(ok.error());
  return sch.func();
}

constexpr const char* kMatmulMapped = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    A_shared = T.alloc_buffer((64, 64), scope="shared")
    B_shared = T.alloc_buffer((64, 64), scope="shared")
    for i_0 in T.thread_binding(2, thread="blockIdx.y"):
        for j_0 in T.thread_binding(2, thread="blockIdx.x"):
            for k_0 in range(2):
                for ax0 in T.thread_binding(32, thread="threadIdx.y"):
                    for ax1 in T.thread_binding(32, thread="threadIdx.x"):
                        with T.block("A_shared"):
                            v0 = T.axis.spatial(64, i_0 * 32 + ax0)
                            v1 = T.axis.spatial(64, k_0 * 32 + ax1)
                            T.reads(A[v0, v1])
                            T.writes(A_shared[v0, v1])
                            A_shared[v0, v1] = A[v0, v1]
                for ax0 in T.thread_binding(32, thread="threadIdx.y"):
                    for ax1 in T.thread_binding(32, thread="threadIdx.x"):
                        with T.block("B_shared"):
                            v0 = T.axis.spatial(64, k_0 * 32 + ax0)
                            v1 = T.axis.spatial(64, j_0 * 32 + ax1)
                            T.reads(B[v0, v1])
                            T.writes(B_shared[v0, v1])
                            B_shared[v0, v1] = B[v0, v1]
                for i_1 in T.thread_binding(32, thread="threadIdx.y"):
                    for j_1 in T.thread_binding(32, thread="threadIdx.x"):
                        for k_1 in range(32):
                            with T.block("C"):
                                v_i = T.axis.spatial(64, i_0 * 32 + i_1)
                                v_j = T.axis.spatial(64, j_0 * 32 + j_1)
                                v_k = T.axis.reduce(64, k_0 * 32 + k_1)
                                T.reads(A_shared[v_i, v_k], B_shared[v_k, v_j])
                                T.writes(C[v_i, v_j])
                                with T.init():
                                    C[v_i, v_j] = T.float32(0)
                                C[v_i, v_j] = C[v_i, v_j] + A_shared[v_i, v_k] * B_shared[v_k, v_j]
)";

} // namespace

class TestPolyGpu : public QObject {
  Q_OBJECT

private:
  Pipeline m_pipeline;
  Target* m_opencl = nullptr;
  Target* m_cuda = nullptr;
  QString m_skipRun; ///< why the OpenCL runs skip, or empty
  QString m_skipPtx; ///< why the ptxas checks skip, or empty

  /// The programs every backend test takes: te source, trace, and the buffers that must
  /// be in shared memory.
  void programs() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QStringList>("shared");
    QTest::newRow("matmul 64 (tiles 32)")
        << QString::fromStdString(matmul(64, 64, 64)) << "sch.poly_auto(target=\"gpu\")\n"
        << QStringList{"A_shared", "B_shared"};
    QTest::newRow("matmul 128 (tiles 64 x 64 x 16: 32 x 32 threads, 2 x 2 points each)")
        << QString::fromStdString(matmul(128, 128, 64)) << "sch.poly_auto(target=\"gpu\", tile=[64, 64, 16])\n"
        << QStringList{"A_shared", "B_shared"};
    QTest::newRow("matmul 50 x 70 x 45 (partial tiles)")
        << QString::fromStdString(matmul(50, 70, 45)) << "sch.poly_auto(target=\"gpu\")\n"
        << QStringList{};
    QTest::newRow("conv2d_nchw (padding inlined)")
        << QString::fromStdString(conv2d())
        << "sch.compute_inline(sch.get_block(\"pad_temp\"))\nsch.poly_auto(target=\"gpu\", tile=[4, 8, 16])\n"
        << QStringList{"data_shared", "weight_shared"};
    QTest::newRow("softmax (one row per thread, reductions sequential, intermediates local)")
        << QString::fromStdString(readSource("samples/softmax.te")) << "sch.poly_auto(target=\"gpu\")\n"
        << QStringList{};
    QTest::newRow("elementwise chain (intermediates local)") << QString(kChain) << "sch.poly_auto(target=\"gpu\")\n"
                                                             << QStringList{};
  }

private Q_SLOTS:
  void initTestCase() {
    codegen::setBoundLoopCheck(poly::checkBoundLoopDependences); // as the CLI and the workbench
    auto opencl = m_pipeline.findTarget("opencl");
    QVERIFY2(opencl, opencl ? "" : renderDiagnostic(opencl.error()).c_str());
    m_opencl = *opencl;
    auto cuda = m_pipeline.findTarget("cuda");
    QVERIFY2(cuda, cuda ? "" : renderDiagnostic(cuda.error()).c_str());
    m_cuda = *cuda;
#if defined(__SANITIZE_ADDRESS__)
    m_skipRun = "not run in the sanitizer build: PoCL is not instrumented";
    m_skipPtx = "not run in the sanitizer build: NVRTC is not loaded into an ASan process";
#else
    if (const ToolchainStatus s = m_opencl->toolchain(); !s.usable)
      m_skipRun = QString::fromStdString("no usable OpenCL platform here: " + s.message);
    if (const std::string s = m_cuda->toolchain().message; s.starts_with("no CUDA toolkit"))
      m_skipPtx = QString::fromStdString(s);
#endif
  }

  /// The tiled band's coincident tile loops on blocks (innermost -> x), its point loops on
  /// threads, k tile and point loops sequential, A and B tiles copied by all threads.
  void matmulMappedExactly() {
    const ir::PrimFunc original = parse(matmul(64, 64, 64));
    poly::registerPolyInstructionKinds();
    schedule::Schedule sch = poly::makeSchedule(original);
    poly::PolyAutoOptions o;
    o.target = "gpu";
    auto ok = poly::polyAuto(sch, o);
    QVERIFY2(ok, ok ? "" : renderDiagnostic(ok.error()).c_str());
    QCOMPARE(QString::fromStdString(ir::printPrimFunc(sch.func())), QString(kMatmulMapped));
    QCOMPARE(QString::fromStdString(schedule::traceToPython(sch.trace())),
             QString("# from tvm import tir\n"
                     "sch.poly_auto(fusion=\"max\", outer_coincidence=False, maximize_band_depth=True, "
                     "algorithm=\"isl\", tile=[], simplify_deps=True, target=\"gpu\")\n"));
    auto replay = poly::replaySchedule(original, sch.trace());
    QVERIFY2(replay, replay ? "" : renderDiagnostic(replay.error()).c_str());
    QCOMPARE(ir::printPrimFunc(replay->func()), ir::printPrimFunc(sch.func()));
    // The isl-free entry point makes the same program.
    auto direct = poly::polyAuto(original, o);
    QVERIFY2(direct, direct ? "" : renderDiagnostic(direct.error()).c_str());
    QCOMPARE(ir::printPrimFunc(*direct), ir::printPrimFunc(sch.func()));
    // The bound loops carry no dependence (what the GPU lowering checks).
    auto bound = poly::checkBoundLoopDependences(sch.func());
    QVERIFY2(bound, bound ? "" : renderDiagnostic(bound.error()).c_str());
  }

  /// The copies are followed by a barrier, and the next k tile's copies wait for the
  /// last reads of the tile (PPCG's two synchronisations).
  void matmulBarriers() {
    auto f = applied(parse(matmul(64, 64, 64)), "sch.poly_auto(target=\"gpu\")\n");
    QVERIFY2(f, f ? "" : renderDiagnostic(f.error()).c_str());
    auto lowered = m_pipeline.lower(*m_opencl, *f);
    QVERIFY2(lowered, lowered ? "" : renderDiagnostic(lowered.error()).c_str());
    auto text = m_pipeline.source(*m_opencl, *lowered, "opencl", BuildOptions{});
    QVERIFY2(text, text ? "" : renderDiagnostic(text.error()).c_str());
    const std::string body = text->substr(text->find("for (int k_0 = 0; k_0 < 2; ++k_0) {"));
    const std::string barrier = "barrier(CLK_LOCAL_MEM_FENCE);";
    const auto first = body.find(barrier);
    QVERIFY2(first != std::string::npos, text->c_str());
    QVERIFY2(body.find("B_shared[") < first && body.find("for (int k_1") > first, text->c_str());
    const auto second = body.find(barrier, first + 1);
    QVERIFY2(second != std::string::npos && second > body.find("for (int k_1"), text->c_str());
    QVERIFY2(body.find(barrier, second + 1) == std::string::npos, text->c_str());
  }

  void verifiedOnOpencl_data() { programs(); }
  void verifiedOnOpencl() {
    QFETCH(QString, program);
    QFETCH(QString, trace);
    QFETCH(QStringList, shared);
    const ir::PrimFunc original = parse(program.toStdString());
    auto f = applied(original, trace.toStdString());
    QVERIFY2(f, f ? "" : renderDiagnostic(f.error()).c_str());
    const QString printed = QString::fromStdString(ir::printPrimFunc(*f));
    QVERIFY2(printed.contains("thread=\"threadIdx.x\""), qPrintable(printed));
    for (const QString& buffer : shared)
      QVERIFY2(printed.contains(buffer + " = T.alloc_buffer") && printed.contains("scope=\"shared\""),
               qPrintable(printed));
    if (shared.isEmpty()) QVERIFY2(!printed.contains("scope=\"shared\""), qPrintable(printed));
    if (!m_skipRun.isEmpty()) QSKIP(qPrintable(m_skipRun));
    auto lowered = m_pipeline.lower(*m_opencl, *f);
    QVERIFY2(lowered, lowered ? "" : renderDiagnostic(lowered.error()).c_str());
    auto kernel = m_pipeline.build(*m_opencl, *lowered, BuildOptions{});
    QVERIFY2(kernel, kernel ? "" : renderDiagnostic(kernel.error()).c_str());
    auto args = makeArguments(original, {}, 0);
    QVERIFY2(args, args ? "" : renderDiagnostic(args.error()).c_str());
    RunOptions run;
    run.workerPath = LS_WORKER_PATH;
    run.timeoutSeconds = 60;
    auto report = m_pipeline.verify(*kernel, original, {}, *args, run, VerifyOptions{});
    QVERIFY2(report, report ? "" : renderDiagnostic(report.error()).c_str());
    QCOMPARE(report->reference, ReferenceKind::Interpreter);
    QVERIFY(!report->outputs.empty());
    for (const auto& check : report->outputs)
      QVERIFY2(check.passed(), (check.name + ": " + check.str()).c_str());
  }

  void ptxAccepted_data() { programs(); }
  void ptxAccepted() {
    QFETCH(QString, program);
    QFETCH(QString, trace);
    QFETCH(QStringList, shared);
    if (!m_skipPtx.isEmpty()) QSKIP(qPrintable(m_skipPtx));
    auto f = applied(parse(program.toStdString()), trace.toStdString());
    QVERIFY2(f, f ? "" : renderDiagnostic(f.error()).c_str());
    auto lowered = m_pipeline.lower(*m_cuda, *f);
    QVERIFY2(lowered, lowered ? "" : renderDiagnostic(lowered.error()).c_str());
    auto text = m_pipeline.source(*m_cuda, *lowered, "ptxas", BuildOptions{});
    QVERIFY2(text, text ? "" : renderDiagnostic(text.error()).c_str());
    QVERIFY2(text->find("Compiling entry function 'main_kernel' for 'sm_80'") != std::string::npos, text->c_str());
    // Shared tiles: one barrier; none without.
    const std::string usage = shared.isEmpty() ? "used 0 barriers" : "used 1 barriers";
    QVERIFY2(text->find(usage) != std::string::npos, text->c_str());
  }

  /// A scan (its only loop carries the recurrence), and a block that runs once (no loop
  /// to map).
  void refused_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("prefix sum") << QString::fromStdString(readSource("samples/prefix_sum.te"))
                                << "schedule.poly_auto.no-coincident-member"
                                << "poly_auto(target=\"gpu\"): the outermost band (t) of blocks 'psum_init', "
                                   "'psum_update' has no coincident member: its first loop 't' carries a dependence, "
                                   "so no loop of it can be mapped to blockIdx (the iterations of a bound loop run at "
                                   "the same time)";
    QTest::newRow("one instance") << R"(from tvm import te
A = te.placeholder((1,), dtype="float32", name="A")
B = te.compute((1,), lambda i: A[i] * 2.0, name="B")
)"
                                  << "schedule.poly_auto.no-band"
                                  << "poly_auto(target=\"gpu\"): block 'B' runs under no loop of the schedule, so it "
                                     "cannot be mapped to GPU blocks and threads";
  }
  void refused() {
    QFETCH(QString, program);
    QFETCH(QString, code);
    QFETCH(QString, message);
    auto f = applied(parse(program.toStdString()), "sch.poly_auto(target=\"gpu\")\n");
    QVERIFY(!f);
    QCOMPARE(QString::fromStdString(f.error().code), code);
    QCOMPARE(QString::fromStdString(f.error().message), message);
  }

  /// Fusion smart keeps conv2d's padding stage a nest (a kernel) of its own: pad_temp
  /// stays a global intermediate (on-chip memory does not outlive a kernel), which the
  /// lowering refuses, naming it.
  void intermediateAcrossKernelsStaysGlobal() {
    auto f = applied(parse(conv2d()), "sch.poly_auto(fusion=\"smart\", target=\"gpu\")\n");
    QVERIFY2(f, f ? "" : renderDiagnostic(f.error()).c_str());
    const QString printed = QString::fromStdString(ir::printPrimFunc(*f));
    QVERIFY2(printed.contains("pad_temp = T.alloc_buffer((1, 4, 32, 32))\n"), qPrintable(printed));
    auto lowered = m_pipeline.lower(*m_opencl, *f);
    QVERIFY(!lowered);
    QCOMPARE(QString::fromStdString(lowered.error().code), QString("codegen.gpu-buffer-across-kernels"));
  }

  void badOptions_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("message");
    QTest::newRow("target") << "sch.poly_auto(target=\"tpu\")\n"
                            << "target must be \"cpu\" or \"gpu\", not \"tpu\"";
    QTest::newRow("tile size") << "sch.poly_auto(target=\"gpu\", tile=[0, 32])\n"
                               << "with target=\"gpu\" every tile size must be positive (the tile of a thread "
                                  "block), not 0";
  }
  void badOptions() {
    QFETCH(QString, trace);
    QFETCH(QString, message);
    const ir::PrimFunc original = parse(matmul(64, 64, 64));
    auto f = applied(original, trace.toStdString());
    QVERIFY(!f);
    QCOMPARE(QString::fromStdString(f.error().code), QString("schedule.poly_auto.bad-option"));
    QCOMPARE(QString::fromStdString(f.error().message), message);
  }

  /// loopscape-cli print --format opencl on the full-size sample, and run --verify on a
  /// small copy.
  void cli() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString trace = dir.filePath("gpu.py");
    std::ofstream(trace.toStdString()) << "sch.poly_auto(target=\"gpu\")\n";
    Cli printed = runCli({"print", "samples/matmul.te", "--trace", trace, "--format", "opencl"});
    QVERIFY2(printed.exitCode == 0, qPrintable(printed.out));
    QVERIFY2(printed.out.contains("kernel main_kernel (32x32x1 blocks x 32x32x1 threads)") &&
                 printed.out.contains("__local float A_shared[1024];") &&
                 printed.out.contains("__local float B_shared[1024];") &&
                 printed.out.count("barrier(CLK_LOCAL_MEM_FENCE);") == 2,
             qPrintable(printed.out));
    if (!m_skipRun.isEmpty()) QSKIP(qPrintable(m_skipRun));
    const QString small = dir.filePath("matmul.te");
    std::ofstream(small.toStdString()) << matmul(64, 64, 64);
    Cli run = runCli({"run", small, "--trace", trace, "--target", "opencl", "--verify", "--repeat", "1"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.out));
    QVERIFY2(run.out.contains(QRegularExpression("output C +float32  \\(64, 64\\) +ok")), qPrintable(run.out));
  }
};

QTEST_GUILESS_MAIN(TestPolyGpu)
#include "tst_poly_gpu.moc"
