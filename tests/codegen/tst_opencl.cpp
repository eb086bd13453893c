// The opencl target plugin (plugins/opencl) on this machine's OpenCL platform (PoCL where
// there is no GPU): the GPU sample schedules (samples/traces/matmul_gpu.py and
// conv2d_nchw_gpu.py on small copies of their samples, softmax_gpu.py on
// samples/softmax.te) built, run in the isolated worker and verified against the
// interpreter; the barriers of the shared-memory GEMM are needed (without them its result
// is wrong); above the interpret limit the reference is compiled by a CPU target; the
// printed OpenCL C of a small kernel (golden); `loopscape-cli targets` with and without
// an OpenCL platform.
//
// The running tests skip, saying why, where no OpenCL platform is usable; the whole test
// skips in the sanitizer build (see initTestCase).
#include "gpu_test_helpers.h"

#include "core/codegen/gpu_bound_loop_check.h"
#include "core/codegen/lower.h"
#include "core/codegen/lower_storage_sync.h"
#include "core/codegen/pipeline.h"
#include "core/frontend/te_frontend.h"
#include "core/frontend/tvmscript/tvmscript.h"
#include "core/ir/mutator.h"
#include "core/poly/gpu_bound_loops.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

#include <fstream>
#include <sstream>

#include <unistd.h>

using namespace loopscape;
using namespace loopscape::codegen;

namespace {

using testing::Cli;
using testing::kTwoKernels;
using testing::parse;
using testing::parseScript;
using testing::readSource;
using testing::runCli;
using testing::scheduled;
const char* const kMatmul = testing::kGpuMatmul;

RunOptions isolated() {
  RunOptions o;
  o.workerPath = LS_WORKER_PATH;
  o.timeoutSeconds = 60;
  return o;
}

/// `s` without its barriers. (Removing only one of the GEMM's two barriers does not
/// change the result on PoCL, which runs the work-items of a group one after the other
/// between barriers; without both, each work-item reads tiles the others have not yet
/// copied.)
ir::Stmt withoutBarriers(const ir::Stmt& s) {
  struct Strip final : ir::StmtMutator {
    ir::Stmt visitEvaluate(const ir::Evaluate& op, const ir::Stmt& self) override {
      if (!isBarrier(self)) return ir::StmtMutator::visitEvaluate(op, self);
      return ir::Evaluate::make(ir::intImm(0));
    }
  } strip;
  return strip.mutate(s);
}

} // namespace

class TestOpenCl : public QObject {
  Q_OBJECT

private:
  Pipeline m_pipeline;
  Target* m_target = nullptr;
  QString m_skip; ///< why the running tests skip, or empty

  void requireRun() {
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
  }

  /// Builds `func` (scheduled from `original`), runs and verifies it.
  VerifyReport verifyKernel(const ir::PrimFunc& original, const LoweredFunc& lowered) {
    auto kernel = m_pipeline.build(*m_target, lowered, BuildOptions{});
    if (!kernel) qFatal("%s", renderDiagnostic(kernel.error()).c_str());
    auto args = makeArguments(original, {}, 0);
    if (!args) qFatal("%s", renderDiagnostic(args.error()).c_str());
    auto report = m_pipeline.verify(*kernel, original, {}, *args, isolated(), VerifyOptions{});
    if (!report) qFatal("%s", renderDiagnostic(report.error()).c_str());
    return *report;
  }

private Q_SLOTS:
  void initTestCase() {
    codegen::setBoundLoopCheck(poly::checkBoundLoopDependences); // as the CLI and the workbench
    auto target = m_pipeline.findTarget("opencl");
    QVERIFY2(target, target ? "" : renderDiagnostic(target.error()).c_str());
    m_target = *target;
#if defined(__SANITIZE_ADDRESS__)
    // TODO(#18): besides PoCL (the worker would load it, with its own uninstrumented LLVM),
    // LeakSanitizer reported 152 bytes allocated inside libQt6Core (no symbol) at the exit
    // of this test in about 1 run of 6, not understood yet.
    QSKIP("not run in the sanitizer build: PoCL is not instrumented, and a flaky LeakSanitizer report inside "
          "libQt6Core is not understood yet");
#else
    const ToolchainStatus status = m_target->toolchain();
    if (!status.usable) m_skip = QString::fromStdString("no usable OpenCL platform here: " + status.message);
#endif
  }

  void describesItself() {
    QCOMPARE(QString::fromStdString(m_target->deviceKind()), QString("gpu"));
    const TargetCapabilities caps = m_target->capabilities();
    QVERIFY(caps.gpuThreads && caps.sharedMemory);
    QVERIFY(caps.gpu.maxThreadsPerBlock > 0 && caps.gpu.maxSharedBytesPerBlock > 0);
    QCOMPARE(m_target->sourceFormats(), (std::vector<std::string>{"opencl", "host"}));
  }

  void openclSourceGolden() {
    const ir::PrimFunc f = scheduled(parse(R"(from tvm import te
A = te.placeholder((32, 8), dtype="float32", name="A")
B = te.placeholder((8, 32), dtype="float32", name="B")
k = te.reduce_axis((0, 8), name="k")
C = te.compute((32, 32), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)"),
                                     R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1 = sch.split(i, [None, 16])
j_0, j_1 = sch.split(j, [None, 16])
sch.reorder(i_0, j_0, i_1, j_1, k)
sch.bind(i_0, "blockIdx.y")
sch.bind(j_0, "blockIdx.x")
sch.bind(i_1, "threadIdx.y")
sch.bind(j_1, "threadIdx.x")
)");
    auto lowered = m_pipeline.lower(*m_target, f);
    QVERIFY2(lowered, lowered ? "" : renderDiagnostic(lowered.error()).c_str());
    auto text = m_pipeline.source(*m_target, *lowered, "opencl", BuildOptions{});
    QVERIFY2(text, text ? "" : renderDiagnostic(text.error()).c_str());
    QCOMPARE(QString::fromStdString(*text),
             QString(R"(// Generated by loopscape (target opencl): kernel main_kernel (2x2x1 blocks x 16x16x1 threads).
#pragma OPENCL FP_CONTRACT OFF

__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void main_kernel(__global float* restrict A, __global float* restrict B, __global float* restrict C) {
  int blockIdx_x = (int)get_group_id(0);
  int blockIdx_y = (int)get_group_id(1);
  int threadIdx_x = (int)get_local_id(0);
  int threadIdx_y = (int)get_local_id(1);
  // block C.init
  C[((((blockIdx_y * 512) + (threadIdx_y * 32)) + (blockIdx_x * 16)) + threadIdx_x)] = (0.0f);
  for (int k = 0; k < 8; ++k) {
    // block C
    C[((((blockIdx_y * 512) + (threadIdx_y * 32)) + (blockIdx_x * 16)) + threadIdx_x)] = (C[((((blockIdx_y * 512) + (threadIdx_y * 32)) + (blockIdx_x * 16)) + threadIdx_x)] + (A[(((blockIdx_y * 128) + (threadIdx_y * 8)) + k)] * B[(((k * 32) + (blockIdx_x * 16)) + threadIdx_x)]));
  }
}
)"));
    auto host = m_pipeline.source(*m_target, *lowered, "host", BuildOptions{});
    QVERIFY(host);
    QVERIFY(host->find("clEnqueueNDRangeKernel") != std::string::npos);
    QVERIFY(host->find("size_t global[3] = {32, 32, 1};") != std::string::npos);
    QVERIFY(host->find("size_t local[3] = {16, 16, 1};") != std::string::npos);
  }

  /// A Vectorized loop of 4 lanes: float4 loads (vload4) and a float4 store (vstore4)
  /// where aligned, scalar loads where contiguous but unaligned (Bs one past the row
  /// start); the printed kernel exactly, and the result verified on the platform.
  void vectorAccesses() {
    const ir::PrimFunc original = parse(R"(from tvm import te
A = te.placeholder((64, 64), dtype="float32", name="A")
Bs = te.placeholder((64, 65), dtype="float32", name="Bs")
C = te.compute((64, 64), lambda i, j: A[i, j] * 2.0 + Bs[i, j + 1], name="C")
)");
    auto lowered = m_pipeline.lower(*m_target, scheduled(original, R"(b = sch.get_block("C")
i, j = sch.get_loops(b)
j_0, j_1, j_2 = sch.split(j, [None, 8, 4])
sch.bind(i, "blockIdx.x")
sch.bind(j_1, "threadIdx.x")
sch.vectorize(j_2)
)"));
    QVERIFY2(lowered, lowered ? "" : renderDiagnostic(lowered.error()).c_str());
    QVERIFY(lowered->remarks.empty());
    auto text = m_pipeline.source(*m_target, *lowered, "opencl", BuildOptions{});
    QVERIFY2(text, text ? "" : renderDiagnostic(text.error()).c_str());
    QCOMPARE(QString::fromStdString(*text),
             QString(R"(// Generated by loopscape (target opencl): kernel main_kernel (64x1x1 blocks x 8x1x1 threads).
#pragma OPENCL FP_CONTRACT OFF

__kernel __attribute__((reqd_work_group_size(8, 1, 1))) void main_kernel(__global float* restrict A, __global float* restrict Bs, __global float* restrict C) {
  int blockIdx_x = (int)get_group_id(0);
  int threadIdx_x = (int)get_local_id(0);
  for (int j_0 = 0; j_0 < 2; ++j_0) {
    // block C
    {
      const float4 ls_v0 = vload4(0, (A + (((blockIdx_x * 64) + (j_0 * 32)) + (threadIdx_x * 4))));
      float4 ls_r;
      ls_r.x = ((ls_v0.x * (2.0f)) + Bs[((((blockIdx_x * 65) + (j_0 * 32)) + (threadIdx_x * 4)) + 1)]);
      ls_r.y = ((ls_v0.y * (2.0f)) + Bs[(((((blockIdx_x * 65) + (j_0 * 32)) + (threadIdx_x * 4)) + 1) + 1)]);
      ls_r.z = ((ls_v0.z * (2.0f)) + Bs[(((((blockIdx_x * 65) + (j_0 * 32)) + (threadIdx_x * 4)) + 1) + 2)]);
      ls_r.w = ((ls_v0.w * (2.0f)) + Bs[(((((blockIdx_x * 65) + (j_0 * 32)) + (threadIdx_x * 4)) + 1) + 3)]);
      vstore4(ls_r, 0, (C + (((blockIdx_x * 64) + (j_0 * 32)) + (threadIdx_x * 4))));
    }
  }
}
)"));
    requireRun();
    const VerifyReport report = verifyKernel(original, *lowered);
    QCOMPARE(report.reference, ReferenceKind::Interpreter);
    QVERIFY2(report.passed(), report.outputs.empty() ? "" : report.outputs[0].str().c_str());
  }

  /// Two kernels of one function: both printed in one program, the host library creates
  /// and launches both in order, and the result is right (the second reads what other
  /// blocks of the first wrote).
  void severalKernelsRunInOrder() {
    const ir::PrimFunc f = parseScript(kTwoKernels);
    auto lowered = m_pipeline.lower(*m_target, f);
    QVERIFY2(lowered, lowered ? "" : renderDiagnostic(lowered.error()).c_str());
    auto text = m_pipeline.source(*m_target, *lowered, "opencl", BuildOptions{});
    QVERIFY2(text, text ? "" : renderDiagnostic(text.error()).c_str());
    QVERIFY2(text->starts_with("// Generated by loopscape (target opencl): kernels main_kernel (64x1x1 blocks x 64x1x1 "
                               "threads), main_kernel_1 (32x1x1 blocks x 64x1x1 threads), launched in this order.\n"),
             text->c_str());
    QVERIFY2(text->find("void main_kernel_1(__global float* restrict A, __global float* restrict B, __global float* "
                        "restrict C) {") != std::string::npos,
             text->c_str());
    auto host = m_pipeline.source(*m_target, *lowered, "host", BuildOptions{});
    QVERIFY(host);
    const std::size_t first = host->find("ls_kernel[0] = clCreateKernel(program, \"main_kernel\", &e);");
    const std::size_t second = host->find("ls_kernel[1] = clCreateKernel(program, \"main_kernel_1\", &e);");
    QVERIFY2(first != std::string::npos && second != std::string::npos, host->c_str());
    const std::size_t launch0 = host->find("clEnqueueNDRangeKernel(ls_queue, ls_kernel[0]");
    const std::size_t launch1 = host->find("clEnqueueNDRangeKernel(ls_queue, ls_kernel[1]");
    QVERIFY2(launch0 != std::string::npos && launch1 != std::string::npos && launch0 < launch1, host->c_str());
    requireRun();
    const VerifyReport report = verifyKernel(f, *lowered);
    QCOMPARE(int(report.outputs.size()), 2);
    for (const auto& check : report.outputs)
      QVERIFY2(check.passed(), (check.name + ": " + check.str()).c_str());
  }

  void gpuSamplesVerify_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("trace");
    QTest::newRow("matmul_gpu (128 x 128 x 64)") << QString(kMatmul) << "samples/traces/matmul_gpu.py";
    QTest::newRow("matmul_gpu_128 (128 x 128 x 64)") << QString(kMatmul) << "samples/traces/matmul_gpu_128.py";
    QTest::newRow("softmax_gpu") << QString::fromStdString(readSource("samples/softmax.te"))
                                 << "samples/traces/softmax_gpu.py";
    // samples/conv2d_nchw.te with fewer channels and rows (the copy loop's split needs the
    // width of 56).
    QString conv = QString::fromStdString(readSource("samples/conv2d_nchw.te"));
    conv.replace("batch, in_channel, height, width = 1, 64, 56, 56", "batch, in_channel, height, width = 1, 4, 8, 56");
    conv.replace("out_channel, kernel, pad, stride = 64, 3, 1, 1", "out_channel, kernel, pad, stride = 8, 3, 1, 1");
    QVERIFY(conv.contains("1, 4, 8, 56") && conv.contains("8, 3, 1, 1"));
    QTest::newRow("conv2d_nchw_gpu (4 -> 8 channels, 8 x 56)") << conv << "samples/traces/conv2d_nchw_gpu.py";
  }
  void gpuSamplesVerify() {
    requireRun();
    QFETCH(QString, program);
    QFETCH(QString, trace);
    const ir::PrimFunc original = parse(program.toStdString());
    auto lowered = m_pipeline.lower(*m_target, scheduled(original, readSource(trace.toStdString())));
    QVERIFY2(lowered, lowered ? "" : renderDiagnostic(lowered.error()).c_str());
    const VerifyReport report = verifyKernel(original, *lowered);
    QCOMPARE(report.reference, ReferenceKind::Interpreter);
    for (const auto& check : report.outputs)
      QVERIFY2(check.passed(), (check.name + ": " + check.str()).c_str());
  }

  /// Cross-thread reductions (lower_cross_thread.h) beyond the softmax sample: a thread
  /// count that is not a power of two (the tree's first step folds the top 4 of 20), an
  /// enclosing threadIdx.y loop (one tree per row of threads), and a threadIdx.y tag that
  /// the reduction's loops do not bind (each y thread its own tree), for sum, max and min.
  void crossThreadReductionsVerify_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("trace");
    const QString rowSums = R"(from tvm import te
A = te.placeholder((64, 100), dtype="float32", name="A")
k = te.reduce_axis((0, 100), name="k")
B = te.compute((64,), lambda i: te.sum(A[i, k], axis=k), name="B")
)";
    QTest::newRow("sum over 20 threads, 4 rows of threads (threadIdx.y)") << rowSums << R"(b = sch.get_block("B")
i, k = sch.get_loops(b)
i_0, i_1 = sch.split(i, [None, 4])
k_0, k_1 = sch.split(k, [None, 20])
sch.bind(i_0, "blockIdx.x")
sch.bind(i_1, "threadIdx.y")
sch.bind(k_1, "threadIdx.x")
)";
    QTest::newRow("max, bound loop outside the serial one")
        << QString(rowSums).replace("te.sum", "te.max") << R"(b = sch.get_block("B")
i, k = sch.get_loops(b)
k_0, k_1 = sch.split(k, [None, 25])
sch.reorder(i, k_1, k_0)
sch.bind(i, "blockIdx.x")
sch.bind(k_1, "threadIdx.x")
)";
    QTest::newRow("min under blockIdx, normalised by 6 x 16 threads") << R"(from tvm import te
A = te.placeholder((16, 96), dtype="float32", name="A")
k = te.reduce_axis((0, 96), name="k")
B = te.compute((16,), lambda i: te.min(A[i, k], axis=k), name="B")
C = te.compute((16, 96), lambda i, j: A[i, j] - B[i], name="C")
)"
                                                                      << R"(b = sch.get_block("B")
c = sch.get_block("C")
i, j = sch.get_loops(c)
j_0, j_1, j_2 = sch.split(j, [None, 6, 16])
sch.compute_at(b, i)
sch.set_scope(b, 0, "shared")
sch.bind(i, "blockIdx.x")
sch.bind(j_1, "threadIdx.y")
sch.bind(j_2, "threadIdx.x")
_, k = sch.get_loops(b)
k_0, k_1 = sch.split(k, [None, 16])
sch.bind(k_1, "threadIdx.x")
)";
  }
  void crossThreadReductionsVerify() {
    requireRun();
    QFETCH(QString, program);
    QFETCH(QString, trace);
    const ir::PrimFunc original = parse(program.toStdString());
    auto lowered = m_pipeline.lower(*m_target, scheduled(original, trace.toStdString()));
    QVERIFY2(lowered, lowered ? "" : renderDiagnostic(lowered.error()).c_str());
    const VerifyReport report = verifyKernel(original, *lowered);
    QCOMPARE(report.reference, ReferenceKind::Interpreter);
    for (const auto& check : report.outputs)
      QVERIFY2(check.passed(), (check.name + ": " + check.str()).c_str());
  }

  void compiledReferenceByCpu() {
    // Above the interpret limit the reference is the unscheduled program, which a GPU
    // target cannot compile (no bound loops): a CPU target compiles it.
    requireRun();
    const ir::PrimFunc original = parse(kMatmul);
    auto lowered = m_pipeline.lower(*m_target, scheduled(original, readSource("samples/traces/matmul_gpu.py")));
    QVERIFY(lowered);
    auto kernel = m_pipeline.build(*m_target, *lowered, BuildOptions{});
    QVERIFY2(kernel, kernel ? "" : renderDiagnostic(kernel.error()).c_str());
    if (!m_pipeline.usableTarget("cpu-c") && !m_pipeline.usableTarget("cpu-llvm"))
      QSKIP("no CPU target to compile the reference");
    auto args = makeArguments(original, {}, 0);
    QVERIFY(args);
    VerifyOptions options;
    options.interpretLimit = 1000;
    auto report = m_pipeline.verify(*kernel, original, {}, *args, isolated(), options);
    QVERIFY2(report, report ? "" : renderDiagnostic(report.error()).c_str());
    QCOMPARE(report->reference, ReferenceKind::CompiledUnscheduled);
    QVERIFY2(report->referenceText.starts_with("the unscheduled program compiled by cpu-"),
             report->referenceText.c_str());
    QVERIFY2(report->passed(), report->referenceText.c_str());
  }

  /// The barriers are needed: without them the result is wrong. For the GEMM, the tile
  /// copies race with the compute; for the softmax, the steps of the cross-thread
  /// reduction trees read slots the other threads have not written yet.
  void barriersAreNeeded_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("trace");
    QTest::newRow("matmul_gpu") << QString(kMatmul) << "samples/traces/matmul_gpu.py";
    QTest::newRow("softmax_gpu") << QString::fromStdString(readSource("samples/softmax.te"))
                                 << "samples/traces/softmax_gpu.py";
  }
  void barriersAreNeeded() {
    requireRun();
    QFETCH(QString, program);
    QFETCH(QString, trace);
    const ir::PrimFunc original = parse(program.toStdString());
    auto lowered = m_pipeline.lower(*m_target, scheduled(original, readSource(trace.toStdString())));
    QVERIFY(lowered);
    QVERIFY(verifyKernel(original, *lowered).passed());
    LoweredFunc broken = *lowered;
    broken.body = withoutBarriers(broken.body);
    const VerifyReport report = verifyKernel(original, broken);
    QCOMPARE(int(report.outputs.size()), 1);
    QVERIFY2(report.outputs[0].mismatches > 0, "the kernel without its barriers computed the right result");
  }

  void targetsListsIt() {
    const Cli r = runCli({"targets"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("opencl  ("), qPrintable(r.out));
    QVERIFY2(r.out.contains("  limits: "), qPrintable(r.out));
    QVERIFY2(r.out.contains("  formats: opencl, host"), qPrintable(r.out));
  }

  /// `run --target opencl` times the kernel without this machine's CPU peak or cache
  /// model, and says why (the GPU number is not a fraction of the CPU's roof).
  void runHasNoCpuPeak() {
    if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
    const Cli r = runCli({"run", "samples/softmax.te", "--trace", "samples/traces/softmax_gpu.py", "--target", "opencl",
                          "--repeat", "1"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    QVERIFY2(
        r.out.contains("\npeak: not modeled for a GPU kernel (this machine's CPU peak and cache do not apply); the "
                       "time per call includes the device allocations, the copies both ways and the launch\n"),
        qPrintable(r.out));
    QVERIFY2(!r.out.contains("modeled traffic:") && !r.out.contains("roofline bound"), qPrintable(r.out));
  }

  void noPlatformSaysWhy() {
    // An empty vendor directory and no ICD file names: the ICD loader finds no platform.
    char pattern[] = "/tmp/ls-no-opencl-XXXXXX";
    QVERIFY(::mkdtemp(pattern) != nullptr);
    const QString emptyDir = QString::fromUtf8(pattern);
    struct Remove {
      const char* path;
      ~Remove() { ::rmdir(path); }
    } remove{pattern};
    // OCL_ICD_FILENAMES would load its libraries whatever the vendor directory (a CUDA
    // container sets it to "libpocl.so.2:libnvidia-opencl.so.1"): unset.
    const QStringList noPlatform = {"--unset=OCL_ICD_FILENAMES", "OCL_ICD_VENDORS=" + emptyDir};
    const Cli list = runCli({"targets"}, noPlatform);
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(list.out.contains("opencl  (not usable)"), qPrintable(list.out));
    QVERIFY2(list.out.contains("  toolchain: no OpenCL platform found (clGetPlatformIDs: -1001); install an OpenCL "
                               "driver, e.g. Debian's pocl-opencl-icd"),
             qPrintable(list.out));
    const Cli run = runCli(
        {"run", "samples/softmax.te", "--trace", "samples/traces/softmax_gpu.py", "--target", "opencl"}, noPlatform);
    QVERIFY(run.exitCode != 0);
    QVERIFY2(run.out.contains("error: target 'opencl' cannot build here: no OpenCL platform found"),
             qPrintable(run.out));
    // Printing the source needs no platform.
    const Cli print = runCli(
        {"print", "samples/softmax.te", "--trace", "samples/traces/softmax_gpu.py", "--format", "opencl"}, noPlatform);
    QCOMPARE(print.exitCode, 0);
    QVERIFY2(print.out.contains("barrier(CLK_LOCAL_MEM_FENCE);"), qPrintable(print.out));
  }
};

QTEST_GUILESS_MAIN(TestOpenCl)
#include "tst_opencl.moc"
