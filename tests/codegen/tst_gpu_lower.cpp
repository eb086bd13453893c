// GPU lowering (core/codegen/lower_gpu.h, lower_compact.h, lower_storage_sync.h), no
// plugin: the launch taken from the bound extents, the located errors with their exact
// messages, the caches shrunk to their tiles, the single-thread guard, and the barriers of
// the shared-memory GEMM (samples/traces/matmul_gpu.py) and of the GPU softmax.
#include "gpu_test_helpers.h"

#include "core/codegen/gpu_bound_loop_check.h"
#include "core/codegen/lower.h"
#include "core/codegen/lower_storage_sync.h"
#include "core/frontend/te_frontend.h"
#include "core/frontend/tvmscript/tvmscript.h"
#include "core/ir/printer.h"
#include "core/ir/visitor.h"
#include "core/poly/gpu_bound_loops.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace loopscape;

namespace {

using testing::kTwoKernels;
using testing::parse;
using testing::parseScript;
using testing::readSource;
using testing::scheduled;
const char* const kMatmul = testing::kGpuMatmul;

Expected<codegen::LoweredFunc> lowerGpu(const ir::PrimFunc& f, codegen::GpuLimits limits = {}) {
  codegen::LowerOptions options;
  options.deviceKind = "gpu";
  options.gpuLimits = limits;
  return codegen::lower(f, options);
}

int countBarriers(const ir::Stmt& s) {
  int n = 0;
  struct V final : ir::StmtVisitor {
    int* n;
    void visitEvaluate(const ir::Evaluate&, const ir::Stmt& self) override { *n += codegen::isBarrier(self); }
  } v;
  v.n = &n;
  v(s);
  return n;
}

/// The loop named `name` in `s` (first in pre-order), or null.
const ir::For* findLoop(const ir::Stmt& s, const std::string& name) {
  struct V final : ir::StmtVisitor {
    std::string name;
    const ir::For* found = nullptr;
    void visitFor(const ir::For& op, const ir::Stmt& self) override {
      if (!found && op.loopVar.as<ir::Var>()->name == name) found = &op;
      ir::StmtVisitor::visitFor(op, self);
    }
  } v;
  v.name = name;
  v(s);
  return v.found;
}

const char* kTileHead = R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1 = sch.split(i, [None, 16])
j_0, j_1 = sch.split(j, [None, 16])
sch.reorder(i_0, j_0, i_1, j_1, k)
)";

/// A loop-carried dependence: S(i) reads what S(i - 1) wrote (a prefix sum in place).
const char* kCarried = R"(# from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in T.thread_binding(63, thread="@TAG@"):
        with T.block("S"):
            vi = T.axis.spatial(63, i)
            T.reads(B[vi], A[vi])
            T.writes(B[vi + 1])
            B[vi + 1] = B[vi] + A[vi]
)";

} // namespace

class TestGpuLower : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { codegen::setBoundLoopCheck(poly::checkBoundLoopDependences); }

  void launchFromBoundExtents() {
    auto l = lowerGpu(scheduled(kMatmul, std::string(kTileHead) + R"(sch.bind(i_0, "blockIdx.y")
sch.bind(j_0, "blockIdx.x")
sch.bind(i_1, "threadIdx.y")
sch.bind(j_1, "threadIdx.x")
)"));
    QVERIFY2(l, l ? "" : renderDiagnostic(l.error()).c_str());
    QVERIFY(l->gpu.has_value());
    QCOMPARE(l->gpu->grid, (std::array<std::int64_t, 3>{8, 8, 1}));
    QCOMPARE(l->gpu->block, (std::array<std::int64_t, 3>{16, 16, 1}));
    QCOMPARE(int(l->gpu->axes.size()), 4);
    QCOMPARE(QString::fromStdString(l->gpu->axes[0].tag), QString("blockIdx.x"));
    // No bound loop is left: only k.
    QVERIFY(!findLoop(l->body, "i_0") && !findLoop(l->body, "j_1"));
    QVERIFY(findLoop(l->body, "k"));
    QCOMPARE(countBarriers(l->body), 0);
    QVERIFY(l->gpu->shared.empty());
  }

  void vthreadRunsSeriallyVectorizeVectorizes() {
    auto l = lowerGpu(scheduled(kMatmul, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1, i_2 = sch.split(i, [None, 2, 16])
j_0, j_1, j_2 = sch.split(j, [None, 16, 4])
sch.reorder(i_0, j_0, i_1, i_2, j_1, k, j_2)
sch.bind(i_0, "blockIdx.y")
sch.bind(j_0, "blockIdx.x")
sch.bind(i_1, "vthread.x")
sch.bind(i_2, "threadIdx.y")
sch.bind(j_1, "threadIdx.x")
sch.vectorize(j_2)
)"));
    QVERIFY2(l, l ? "" : renderDiagnostic(l.error()).c_str());
    // The vthread is no launch dimension: 4 x 2 blocks of 16 x 16 threads.
    QCOMPARE(l->gpu->grid, (std::array<std::int64_t, 3>{2, 4, 1}));
    QCOMPARE(l->gpu->block, (std::array<std::int64_t, 3>{16, 16, 1}));
    const ir::For* vthread = findLoop(l->body, "i_1");
    QVERIFY(vthread);
    QCOMPARE(vthread->forKind, ir::ForKind::Serial);
    QCOMPARE(vthread->extent.as<ir::IntImm>()->value, std::int64_t(2));
    // The vectorized loop is gone: its body works on 4 lanes (C and B contiguous in j_2).
    QVERIFY(!findLoop(l->body, "j_2"));
    const std::string text = ir::printStmt(l->body);
    QVERIFY2(text.find("T.Broadcast(A[") != std::string::npos, text.c_str());
    QCOMPARE(int(l->remarks.size()), 1);
    QCOMPARE(QString::fromStdString(l->remarks[0].loop), QString("i_1"));
    QCOMPARE(QString::fromStdString(l->remarks[0].message), QString("the vthread loop runs serially in each thread"));
  }
  void vectorizeWiderThanFourFallsBack() {
    auto l = lowerGpu(scheduled(kMatmul, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
j_0, j_1 = sch.split(j, [None, 8])
sch.reorder(i, j_0, k, j_1)
sch.bind(i, "blockIdx.x")
sch.bind(j_0, "threadIdx.x")
sch.vectorize(j_1)
)"));
    QVERIFY2(l, l ? "" : renderDiagnostic(l.error()).c_str());
    const ir::For* vector = findLoop(l->body, "j_1");
    QVERIFY(vector);
    QCOMPARE(vector->forKind, ir::ForKind::Serial);
    QCOMPARE(int(l->remarks.size()), 1);
    QCOMPARE(QString::fromStdString(l->remarks[0].loop), QString("j_1"));
  }

  void errors_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("reference");
    QTest::newRow("unbound outer loop")
        << kMatmul << "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nsch.bind(j, \"threadIdx.x\")\n"
        << "codegen.gpu-unbound-loop"
        << "loop 'i' of block 'C' is not bound to a GPU thread axis but encloses the bound loop 'j' (threadIdx.x): "
           "the kernel would run inside a host loop"
        << "i";
    QTest::newRow("no binding") << kMatmul << ""
                                << "codegen.gpu-no-binding"
                                << "block 'C' is outside every bound loop: a GPU target runs only code under loops "
                                   "bound to blockIdx/threadIdx"
                                << "C";
    QTest::newRow("inconsistent extents")
        << kMatmul << R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1 = sch.split(i, [None, 4])
j_0, j_1 = sch.split(j, [None, 2])
sch.reorder(i_0, j_0, i_1, j_1, k)
sch.bind(i_0, "blockIdx.x")
sch.bind(j_0, "blockIdx.y")
sch.bind(i_1, "threadIdx.x")
sch.bind(j_1, "threadIdx.x")
)"
        << "codegen.gpu-inconsistent-extent"
        << "loop 'j_1' binds threadIdx.x with extent 2, but loop 'i_1' binds it with extent 4; every loop bound to "
           "one thread axis must have the same extent"
        << "j_1";
    QTest::newRow("threads per block")
        << kMatmul << R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1 = sch.split(i, [None, 32])
j_0, j_1 = sch.split(j, [None, 64])
sch.reorder(i_0, j_0, i_1, j_1, k)
sch.bind(i_0, "blockIdx.y")
sch.bind(j_0, "blockIdx.x")
sch.bind(i_1, "threadIdx.y")
sch.bind(j_1, "threadIdx.x")
)"
        << "codegen.gpu-thread-limit"
        << "2048 threads per block (loops 'j_1' threadIdx.x = 64, 'i_1' threadIdx.y = 32) exceed the target's limit "
           "of 1024"
        << "j_1";
    QTest::newRow("threadIdx.z extent") << kMatmul << R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
sch.bind(i, "blockIdx.x")
sch.bind(j, "threadIdx.z")
)"
                                        << "codegen.gpu-thread-limit"
                                        << "loop 'j' binds threadIdx.z with extent 128, over the target's limit of 64"
                                        << "j";
    QTest::newRow("nested binding")
        << kMatmul << R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1 = sch.split(i, [None, 16])
j_0, j_1 = sch.split(j, [None, 16])
k_0, k_1 = sch.split(k, [None, 16])
sch.reorder(i_0, j_0, i_1, j_1, k_0, k_1)
sch.bind(i_0, "blockIdx.y")
sch.bind(j_0, "blockIdx.x")
sch.bind(i_1, "threadIdx.y")
sch.bind(j_1, "threadIdx.x")
a = sch.cache_read(b, 0, "shared")
sch.compute_at(a, k_0)
_, _, _, _, _, ax0 = sch.get_loops(a)
sch.bind(ax0, "threadIdx.y")
)"
        << "codegen.gpu-nested-binding"
        << "loop 'ax0' is bound to threadIdx.y inside loop 'i_1', which is bound to threadIdx.y too, and its body "
           "uses 'i_1': on the GPU both are one thread index"
        << "ax0";
    QTest::newRow("global intermediate")
        << readSource("samples/softmax.te").c_str() << R"(b = sch.get_block("T_softmax_norm")
i, j = sch.get_loops(b)
sch.bind(i, "blockIdx.x")
)"
        << "codegen.gpu-global-intermediate"
        << "buffer 'T_softmax_maxelem' is an intermediate in global memory; a GPU kernel allocates only \"shared\" "
           "and \"local\" buffers"
        << "T_softmax_maxelem";
    QTest::newRow("cross-thread: spatial loop inside the reduce loops")
        << kMatmul << R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
k_0, k_1 = sch.split(k, [None, 16])
sch.reorder(i, k_0, j, k_1)
sch.bind(i, "blockIdx.x")
sch.bind(k_1, "threadIdx.x")
)"
        << "codegen.gpu-cross-thread-reduction"
        << "block 'C' reduces over loop 'k_1' bound to threadIdx.x, but loop 'j' inside its reduce loops feeds a "
           "spatial iterator; a cross-thread reduction needs only reduce loops between its outermost reduce loop and "
           "the block"
        << "C";
    QTest::newRow("cross-thread: two reduce loops bound")
        << kMatmul << R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
k_0, k_1, k_2 = sch.split(k, [None, 4, 8])
sch.bind(i, "blockIdx.x")
sch.bind(j, "blockIdx.y")
sch.bind(k_1, "threadIdx.y")
sch.bind(k_2, "threadIdx.x")
)"
        << "codegen.gpu-cross-thread-reduction"
        << "block 'C' reduces over two loops bound to threads, 'k_1' (threadIdx.y) and 'k_2' (threadIdx.x); a "
           "cross-thread reduction binds one reduce loop"
        << "C";
    QTest::newRow("cross-thread: reduce loop holding other statements")
        << kMatmul << R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
k_0, k_1 = sch.split(k, [None, 16])
sch.bind(i, "blockIdx.x")
sch.bind(j, "blockIdx.y")
sch.bind(k_1, "threadIdx.x")
a = sch.cache_read(b, 0, "shared")
sch.compute_at(a, k_0)
)"
        << "codegen.gpu-cross-thread-reduction"
        << "block 'C' reduces over loop 'k_1' bound to threadIdx.x, but its reduce loop 'k_0' holds other "
           "statements: a cross-thread reduction needs its reduce loops directly around the block"
        << "C";
  }
  void errors() {
    QFETCH(QString, program);
    QFETCH(QString, script);
    QFETCH(QString, code);
    QFETCH(QString, message);
    QFETCH(QString, reference);
    auto l = lowerGpu(scheduled(program.toStdString(), script.toStdString()));
    QVERIFY(!l);
    QCOMPARE(QString::fromStdString(l.error().code), code);
    QCOMPARE(QString::fromStdString(l.error().message), message);
    QVERIFY(!l.error().references.empty());
    QCOMPARE(QString::fromStdString(l.error().references.front().name), reference);
  }

  /// A loop bound to blockIdx/threadIdx that carries a dependence is refused (the check of
  /// core/poly/gpu_bound_loops.h through the hook), naming the loop and the blocks; a
  /// cross-thread reduction's own dependence is not.
  void boundLoopCarriesDependence_data() {
    QTest::addColumn<QString>("tag");
    QTest::newRow("threadIdx.x") << "threadIdx.x";
    QTest::newRow("blockIdx.x") << "blockIdx.x";
  }
  void boundLoopCarriesDependence() {
    QFETCH(QString, tag);
    const std::string program = QString(kCarried).replace("@TAG@", tag).toStdString();
    auto l = lowerGpu(parseScript(program));
    QVERIFY(!l);
    QCOMPARE(QString::fromStdString(l.error().code), QString("codegen.gpu-bound-loop-dependence"));
    QCOMPARE(QString::fromStdString(l.error().message),
             QString("loop 'i' is bound to %1 but carries a RAW dependence on 'B' from block 'S' to block 'S': S(i=0) "
                     "and S(i=1), in different iterations of 'i', touch the same element; the iterations of a bound "
                     "loop run at the same time on the GPU")
                 .arg(tag));
    QCOMPARE(int(l.error().references.size()), 2);
    QCOMPARE(QString::fromStdString(l.error().references[0].name), QString("i"));
    QCOMPARE(QString::fromStdString(l.error().references[1].name), QString("S"));
    // Without the hook the lowering has no dependences to check: it lowers (wrongly).
    codegen::setBoundLoopCheck({});
    QVERIFY(lowerGpu(parseScript(program)));
    codegen::setBoundLoopCheck(poly::checkBoundLoopDependences);
  }
  /// A cross-thread reduction whose init is not the identity of its combiner (each
  /// thread's part would start from it) is refused, naming the block and the loop.
  void crossThreadInitNotIdentity() {
    auto l = lowerGpu(parseScript(R"(# from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((4, 64), "float32"), B: T.Buffer((4,), "float32")):
    for i in T.thread_binding(4, thread="blockIdx.x"):
        for k in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(5)
                B[vi] = B[vi] + A[vi, vk]
)"));
    QVERIFY(!l);
    QCOMPARE(QString::fromStdString(l.error().code), QString("codegen.gpu-cross-thread-reduction"));
    QCOMPARE(QString::fromStdString(l.error().message),
             QString("block 'B' reduces over loop 'k' bound to threadIdx.x, but its init is not the identity of its "
                     "combiner (+): every thread's part would start from it"));
    QCOMPARE(QString::fromStdString(l.error().references[0].name), QString("B"));
    QCOMPARE(QString::fromStdString(l.error().references[1].name), QString("k"));
  }
  void crossThreadReductionIsNoCarriedDependence() {
    // softmax_gpu.py binds both reduce loops to threadIdx.x: their dependences on the
    // reduction outputs are carried by those loops, and allowed.
    auto l = lowerGpu(scheduled(readSource("samples/softmax.te"), readSource("samples/traces/softmax_gpu.py")));
    QVERIFY2(l, l ? "" : renderDiagnostic(l.error()).c_str());
  }

  void severalKernels() {
    auto l = lowerGpu(scheduled(readSource("samples/softmax.te"), R"(b0 = sch.get_block("T_softmax_maxelem")
b3 = sch.get_block("T_softmax_norm")
b1 = sch.get_block("T_softmax_exp")
b2 = sch.get_block("T_softmax_expsum")
sch.set_scope(b0, 0, "shared")
sch.set_scope(b1, 0, "shared")
sch.set_scope(b2, 0, "shared")
sch.bind(sch.get_loops(b0)[0], "blockIdx.x")
sch.bind(sch.get_loops(b1)[0], "blockIdx.x")
sch.bind(sch.get_loops(b2)[0], "blockIdx.x")
sch.bind(sch.get_loops(b3)[0], "blockIdx.x")
)"));
    // Four kernels, but the shared maximum of the first is read by the second.
    QVERIFY(!l);
    QCOMPARE(QString::fromStdString(l.error().code), QString("codegen.gpu-buffer-across-kernels"));
    QCOMPARE(QString::fromStdString(l.error().message),
             QString("buffer 'T_softmax_maxelem_shared' (\"shared\") is used by kernel 1 (loop 'i') and kernel 2 (loop "
                     "'i'): a buffer does not outlive its kernel, and a GPU target allocates no global intermediates"));
    QCOMPARE(int(l.error().references.size()), 3);
    QCOMPARE(QString::fromStdString(l.error().references[0].name), QString("T_softmax_maxelem_shared"));
  }

  /// Two bound top loops: two kernels, lowered alone and launched in order.
  void twoKernels() {
    auto l = lowerGpu(parseScript(kTwoKernels));
    QVERIFY2(l, l ? "" : renderDiagnostic(l.error()).c_str());
    QCOMPARE(QString::fromStdString(l->name), QString("main_kernel"));
    QCOMPARE(l->gpu->grid, (std::array<std::int64_t, 3>{64, 1, 1}));
    QCOMPARE(int(l->moreKernels.size()), 1);
    const codegen::LoweredFunc& second = l->moreKernels[0];
    QCOMPARE(QString::fromStdString(second.name), QString("main_kernel_1"));
    QCOMPARE(second.gpu->grid, (std::array<std::int64_t, 3>{32, 1, 1}));
    QCOMPARE(second.gpu->block, (std::array<std::int64_t, 3>{64, 1, 1}));
    QCOMPARE(int(second.flatParams.size()), 3);
    QVERIFY(findLoop(second.body, "r"));
    QVERIFY(!findLoop(l->body, "r"));
  }

  void sharedLimit() {
    codegen::GpuLimits limits;
    limits.maxSharedBytesPerBlock = 4096;
    auto l = lowerGpu(scheduled(kMatmul, readSource("samples/traces/matmul_gpu.py")), limits);
    QVERIFY(!l);
    QCOMPARE(QString::fromStdString(l.error().code), QString("codegen.gpu-shared-limit"));
    QCOMPARE(QString::fromStdString(l.error().message),
             QString("shared buffers 'A_shared', 'B_shared' take 8192 bytes per block, over the target's limit of "
                     "4096"));
  }

  void matmulTilesAndBarriers() {
    auto l = lowerGpu(scheduled(kMatmul, readSource("samples/traces/matmul_gpu.py")));
    QVERIFY2(l, l ? "" : renderDiagnostic(l.error()).c_str());
    const codegen::GpuKernel& k = *l->gpu;
    QCOMPARE(k.grid, (std::array<std::int64_t, 3>{2, 2, 1}));
    QCOMPARE(k.block, (std::array<std::int64_t, 3>{16, 16, 1}));
    // The caches hold one tile: A 64 x 16, B 16 x 64, C_local 4 x 4 per thread.
    QCOMPARE(int(k.shared.size()), 2);
    QCOMPARE(k.sharedBytes, std::int64_t(2 * 1024 * 4));
    QCOMPARE(k.localBytes, std::int64_t(16 * 4));
    // The k tile loop: copy A, copy B, barrier, compute, barrier.
    const ir::For* k0 = findLoop(l->body, "k_0");
    QVERIFY(k0);
    auto* seq = k0->body.as<ir::SeqStmt>();
    QVERIFY(seq);
    QCOMPARE(int(seq->seq.size()), 5);
    QVERIFY(seq->seq[0].is<ir::For>() && seq->seq[1].is<ir::For>() && seq->seq[3].is<ir::For>());
    QVERIFY(codegen::isBarrier(seq->seq[2]));
    QVERIFY(codegen::isBarrier(seq->seq[4]));
    QCOMPARE(countBarriers(l->body), 2);
  }

  /// samples/traces/softmax_gpu.py: both reductions are cross-thread reductions
  /// (lower_cross_thread.h); the kernel after every pass, golden
  /// (tests/codegen/golden/softmax_gpu_kernel.txt, regenerate with LS_UPDATE_GOLDEN=1).
  void softmaxCrossThreadReductions() {
    auto l = lowerGpu(scheduled(readSource("samples/softmax.te"), readSource("samples/traces/softmax_gpu.py")));
    QVERIFY2(l, l ? "" : renderDiagnostic(l.error()).c_str());
    QCOMPARE(l->gpu->grid, (std::array<std::int64_t, 3>{128, 1, 1}));
    QCOMPARE(l->gpu->block, (std::array<std::int64_t, 3>{128, 1, 1}));
    // Two one-element results and two 128-element trees.
    QCOMPARE(l->gpu->sharedBytes, std::int64_t(8 + 2 * 128 * 4));
    QCOMPARE(l->gpu->localBytes, std::int64_t(2 * 4));
    const std::string text = ir::printStmt(l->body);
    const std::string path = std::string(LS_SOURCE_DIR) + "/tests/codegen/golden/softmax_gpu_kernel.txt";
    if (std::getenv("LS_UPDATE_GOLDEN")) {
      std::ofstream(path) << text;
      QSKIP("golden file written");
    }
    QCOMPARE(QString::fromStdString(text),
             QString::fromStdString(readSource("tests/codegen/golden/softmax_gpu_kernel.txt")));
  }
};

QTEST_GUILESS_MAIN(TestGpuLower)
#include "tst_gpu_lower.moc"
