// Lowering (core/codegen/lower.h): golden lowered IR of a small matmul, init placement
// (hoisted / guarded), flattening with strides, unrolling, vectorization and its fallback
// remark, thread bindings refused on a CPU, symbolic sizes as int64 parameters.
#include "core/codegen/lower.h"
#include "core/frontend/te_frontend.h"
#include "core/ir/printer.h"
#include "core/ir/visitor.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"
#include "gpu_test_helpers.h"

#include <QtTest>

using namespace loopscape;

namespace {

const char* kMatmul = R"(from tvm import te
A = te.placeholder((8, 8), dtype="float32", name="A")
B = te.placeholder((8, 8), dtype="float32", name="B")
k = te.reduce_axis((0, 8), name="k")
C = te.compute((8, 8), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

// A 3-tap sum over a padded copy of A (the padding's condition on the copy's index).
const char* kBlur = R"(from tvm import te
A = te.placeholder((16,), name="A")
P = te.compute((18,), lambda i: te.if_then_else(te.all(i >= 1, i < 17), A[i - 1], te.const(0.0, "float32")), name="P")
r = te.reduce_axis((0, 3), name="r")
B = te.compute((16,), lambda i: te.sum(P[i + r], axis=r), name="B")
)";

ir::PrimFunc parse(const char* text) {
  auto f = frontend::parseTe(text, "test.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), text).c_str());
  return *f;
}

ir::PrimFunc scheduled(const char* program, const char* script) {
  schedule::Schedule sch(parse(program));
  auto ok = schedule::applyScript(sch, script, "test.py");
  if (!ok) qFatal("%s", renderDiagnostic(ok.error(), script).c_str());
  return sch.func();
}

codegen::LoweredFunc lowered(const ir::PrimFunc& f) {
  auto l = codegen::lower(f);
  if (!l) qFatal("%s", renderDiagnostic(l.error()).c_str());
  return *l;
}

struct Census {
  int loops = 0, vectorized = 0, unrolled = 0, parallel = 0, ramps = 0, blocks = 0, ifs = 0;
};

Census census(const ir::Stmt& s) {
  struct V final : ir::StmtVisitor {
    Census c;
    void visitFor(const ir::For& op, const ir::Stmt& self) override {
      ++c.loops;
      c.vectorized += op.forKind == ir::ForKind::Vectorized;
      c.unrolled += op.forKind == ir::ForKind::Unrolled;
      c.parallel += op.forKind == ir::ForKind::Parallel;
      ir::StmtVisitor::visitFor(op, self);
    }
    void visitBlock(const ir::Block& op, const ir::Stmt& self) override {
      ++c.blocks;
      ir::StmtVisitor::visitBlock(op, self);
    }
    void visitIfThenElse(const ir::IfThenElse& op, const ir::Stmt& self) override {
      ++c.ifs;
      ir::StmtVisitor::visitIfThenElse(op, self);
    }
    void visitRamp(const ir::Ramp& op, const ir::Expr& self) override {
      ++c.ramps;
      ir::StmtVisitor::visitRamp(op, self);
    }
  } v;
  v(s);
  return v.c;
}

} // namespace

class TestLower : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void matmulGolden() {
    auto l = lowered(parse(kMatmul));
    QCOMPARE(QString::fromStdString(l.name), QString("main_kernel"));
    QCOMPARE(l.flatParams.size(), std::size_t(3));
    QCOMPARE(QString::fromStdString(ir::printExpr(l.flatParams[2]->shape[0])), QString("64"));
    QVERIFY(l.remarks.empty());
    // The init is hoisted above the reduce loop k; block markers stay as Evaluate("...").
    QCOMPARE(QString::fromStdString(ir::printStmt(l.body)), QString(R"(for i, j in T.grid(8, 8):
    T.evaluate("C.init")
    C[i * 8 + j] = T.float32(0)
    for k in range(8):
        T.evaluate("C")
        C[i * 8 + j] = C[i * 8 + j] + A[i * 8 + k] * B[k * 8 + j]
)"));
  }

  void initGuardedWhenReduceLoopIsNotInnermost() {
    auto f = scheduled(kMatmul, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
sch.reorder(k, i, j)
)");
    auto l = lowered(f);
    QCOMPARE(QString::fromStdString(ir::printStmt(l.body)), QString(R"(for k, i, j in T.grid(8, 8, 8):
    if k == 0:
        T.evaluate("C.init")
        C[i * 8 + j] = T.float32(0)
    T.evaluate("C")
    C[i * 8 + j] = C[i * 8 + j] + A[i * 8 + k] * B[k * 8 + j]
)"));
  }

  void splitReduceLoopsHoistTogether() {
    auto f = scheduled(kMatmul, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
k0, k1 = sch.split(k, factors=[2, 4])
)");
    auto l = lowered(f);
    QCOMPARE(QString::fromStdString(ir::printStmt(l.body)), QString(R"(for i, j in T.grid(8, 8):
    T.evaluate("C.init")
    C[i * 8 + j] = T.float32(0)
    for k_0, k_1 in T.grid(2, 4):
        T.evaluate("C")
        C[i * 8 + j] = C[i * 8 + j] + A[i * 8 + k_0 * 4 + k_1] * B[k_0 * 32 + k_1 * 8 + j]
)"));
  }

  void vectorizeBecomesRamps() {
    auto f = scheduled(kMatmul, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
sch.reorder(i, k, j)
sch.vectorize(j)
sch.parallel(i)
)");
    auto l = lowered(f);
    QVERIFY(l.remarks.empty());
    Census c = census(l.body);
    QCOMPARE(c.vectorized, 0);
    QCOMPARE(c.parallel, 1);
    QCOMPARE(c.loops, 2); // i (parallel) and k; j became 8-lane vectors
    QVERIFY(c.ramps >= 3);
    QCOMPARE(QString::fromStdString(ir::printStmt(l.body)), QString(R"(for i in T.parallel(8):
    for k in range(8):
        if k == 0:
            T.evaluate("C.init")
            C[i * 8:i * 8 + 8] = T.Broadcast(T.float32(0), 8)
        T.evaluate("C")
        C[i * 8:i * 8 + 8] = C[i * 8:i * 8 + 8] + T.Broadcast(A[i * 8 + k], 8) * B[k * 8:k * 8 + 8]
)"));
  }

  void vectorizeAroundInnerLoops() {
    // The vector loop holds the reduction loop: k runs once, on vectors of j.
    auto f = scheduled(kMatmul, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
sch.vectorize(j)
)");
    auto l = lowered(f);
    QVERIFY(l.remarks.empty());
    QCOMPARE(QString::fromStdString(ir::printStmt(l.body)), QString(R"(for i in range(8):
    T.evaluate("C.init")
    C[i * 8:i * 8 + 8] = T.Broadcast(T.float32(0), 8)
    for k in range(8):
        T.evaluate("C")
        C[i * 8:i * 8 + 8] = C[i * 8:i * 8 + 8] + T.Broadcast(A[i * 8 + k], 8) * B[k * 8:k * 8 + 8]
)"));
  }

  void vectorizeFallbackRemark_data() {
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("loop");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("partitioned"); // the remark of a partitioned loop before it, if any
    // j_0 is partitioned where the split's predicate is decided: [0, 2) vectorizes, the
    // tail j_0 = 2 keeps the predicate and falls back.
    QTest::newRow("predicate depends on the loop")
        << "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nj0, j1 = sch.split(j, factors=[None, 3])\n"
           "sch.reorder(i, j0, k, j1)\nsch.vectorize(j1)\n"
        << "j_1"
        << "vectorize fell back to a scalar loop: the condition j_1 + 6 < 8 depends on the vectorized loop"
        << "j_0: partitioned into [0, 2), [2, 3): each part decides conditions on the loop (padding, borders) that the "
           "whole range leaves to every iteration";
    QTest::newRow("strided store")
        << "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nsch.reorder(j, k, i)\nsch.vectorize(i)\n"
        << "i"
        << "vectorize fell back to a scalar loop: the store to C is not contiguous in the loop variable"
        << "";
    QTest::newRow("store moving with a loop in the body")
        << "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nj0, j1 = sch.split(j, factors=[2, 4])\n"
           "sch.reorder(i, j1, j0, k)\nsch.vectorize(j1)\n"
        << "j_1"
        << "vectorize fell back to a scalar loop: the store to C moves with the inner loop 'j_0' (its lanes would be "
           "reordered)"
        << "";
  }
  void vectorizeFallbackRemark() {
    QFETCH(QString, script);
    QFETCH(QString, loop);
    QFETCH(QString, message);
    QFETCH(QString, partitioned);
    auto l = lowered(scheduled(kMatmul, script.toUtf8().constData()));
    QCOMPARE(l.remarks.size(), std::size_t(partitioned.isEmpty() ? 1 : 2));
    if (!partitioned.isEmpty())
      QCOMPARE(QString::fromStdString(l.remarks[0].loop + ": " + l.remarks[0].message), partitioned);
    QCOMPARE(QString::fromStdString(l.remarks.back().loop), loop);
    QCOMPARE(QString::fromStdString(l.remarks.back().message), message);
    QCOMPARE(census(l.body).vectorized, 0); // stays a Serial loop
  }

  void vectorizeFallbackOnMathCall() {
    const char* softmaxExp = R"(from tvm import te
X = te.placeholder((4, 16), name="X")
E = te.compute((4, 16), lambda i, j: te.exp(X[i, j]), name="E")
)";
    auto l = lowered(scheduled(softmaxExp, R"(b = sch.get_block("E")
i, j = sch.get_loops(b)
sch.vectorize(j)
)"));
    QCOMPARE(l.remarks.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(l.remarks[0].loop), QString("j"));
    QCOMPARE(QString::fromStdString(l.remarks[0].message),
             QString("vectorize fell back to a scalar loop: the body calls T.exp"));
  }

  void partitionAtThePadding() {
    // The padding's condition is decided on [0, 1), [1, 17) and [17, 18): three loops,
    // the interior without a select.
    const char* pad = R"(from tvm import te
A = te.placeholder((16,), name="A")
P = te.compute((18,), lambda i: te.if_then_else(te.all(i >= 1, i < 17), A[i - 1], te.const(0.0, "float32")), name="P")
)";
    auto l = lowered(parse(pad));
    QCOMPARE(QString::fromStdString(ir::printStmt(l.body)), QString(R"(for i in range(1):
    T.evaluate("P")
    P[0] = T.float32(0)
for i in range(1, 17):
    T.evaluate("P")
    P[i] = A[i - 1]
for i in range(17, 18):
    T.evaluate("P")
    P[17] = T.float32(0)
)"));
    QCOMPARE(l.remarks.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(l.remarks[0].loop), QString("i"));
    QCOMPARE(QString::fromStdString(l.remarks[0].message),
             QString("partitioned into [0, 1), [1, 17), [17, 18): each part decides conditions on the loop (padding, "
                     "borders) that the whole range leaves to every iteration"));
  }

  void partitionLetsTheInteriorVectorize() {
    // A 3-tap sum over an inlined padding, split by 4: i_0 in [1, 3) reads no padding and
    // its i_1 vectorizes; the border copies keep a select each and fall back (one remark
    // for both).
    auto l = lowered(scheduled(kBlur, R"(sch.compute_inline(sch.get_block("P"))
i, r = sch.get_loops(sch.get_block("B"))
i_0, i_1 = sch.split(i, factors=[None, 4])
sch.unroll(r)
sch.vectorize(i_1)
)"));
    QStringList remarks;
    for (const auto& r : l.remarks)
      remarks << QString::fromStdString(r.loop + ": " + r.message);
    QCOMPARE(remarks, (QStringList{"i_0: partitioned into [0, 1), [1, 3), [3, 4): each part decides conditions on the "
                                   "loop (padding, borders) that the whole range leaves to every iteration",
                                   "i_1: vectorize fell back to a scalar loop: a load sits in a branch of "
                                   "T.if_then_else / T.Select and would be evaluated for every lane"}));
    const QString text = QString::fromStdString(ir::printStmt(l.body));
    QVERIFY2(text.contains(R"(for i_0 in range(1, 3):
    T.evaluate("B.init")
    B[i_0 * 4:i_0 * 4 + 4] = T.Broadcast(T.float32(0), 4)
    T.evaluate("B")
    B[i_0 * 4:i_0 * 4 + 4] = B[i_0 * 4:i_0 * 4 + 4] + A[i_0 * 4 - 1:i_0 * 4 - 1 + 4]
)"),
             qPrintable(text));
    QCOMPARE(text.count("T.if_then_else"), 2); // r = 0 at i_0 = 0, r = 2 at i_0 = 3: the others are decided
  }

  void maskedLoadsVectorizeTheBorders() {
    // For a target that masks loads (cpu-llvm) the border copies vectorize too: their
    // select keeps a vector load of A, loaded for the lanes whose condition holds only.
    codegen::LowerOptions options;
    options.maskedLoads = true;
    auto l = codegen::lower(scheduled(kBlur, R"(sch.compute_inline(sch.get_block("P"))
i, r = sch.get_loops(sch.get_block("B"))
i_0, i_1 = sch.split(i, factors=[None, 4])
sch.unroll(r)
sch.vectorize(i_1)
)"),
                            options);
    QVERIFY(l);
    QStringList remarks;
    for (const auto& r : l->remarks)
      remarks << QString::fromStdString(r.loop + ": " + r.message);
    QCOMPARE(remarks, (QStringList{"i_0: partitioned into [0, 1), [1, 3), [3, 4): each part decides conditions on the "
                                   "loop (padding, borders) that the whole range leaves to every iteration"}));
    const QString text = QString::fromStdString(ir::printStmt(l->body));
    // At i_0 = 0 the first tap reads A[-1:3] under the mask 1 <= i (A[-1] is not touched).
    QVERIFY2(text.contains("B[0:4] = B[0:4] + T.if_then_else(T.Broadcast(1, 4) <= T.Ramp(0, 1, 4), A[-1:3], "
                           "T.Broadcast(T.float32(0), 4))\n"),
             qPrintable(text));
    QCOMPARE(text.count("T.if_then_else"), 2);

    // A load every lane shares is not masked: the loop falls back, saying why.
    const char* shared = R"(from tvm import te
A = te.placeholder((16,), name="A")
B = te.compute((16, 8), lambda i, j: te.if_then_else(A[i] > 0, A[i], te.const(0.0, "float32")), name="B")
)";
    auto s = codegen::lower(scheduled(shared, R"(i, j = sch.get_loops(sch.get_block("B"))
sch.vectorize(j)
)"),
                            options);
    QVERIFY(s);
    QCOMPARE(s->remarks.size(), std::size_t{1});
    QCOMPARE(s->remarks[0].message, std::string("vectorize fell back to a scalar loop: the load from A in a branch of "
                                                "T.if_then_else / T.Select is the same for every lane (it cannot be "
                                                "masked)"));
  }

  void partitionLeavesMostlyUnconditionalLoops() {
    // The padding computed at i_0: each iteration of i_0 pads 6 elements under a condition
    // and sums 16 without one, so i_0 is not copied for the padding's sake; the padding's
    // own loop ax0 (all conditional) is partitioned.
    auto l = lowered(scheduled(kBlur, R"(i, r = sch.get_loops(sch.get_block("B"))
i_0, i_1 = sch.split(i, factors=[None, 4])
sch.compute_at(sch.get_block("P"), i_0)
)"));
    QCOMPARE(l.remarks.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(l.remarks[0].loop), QString("ax0"));
    QVERIFY(QString::fromStdString(l.remarks[0].message).startsWith("partitioned into [0, 1), [1, 5), [5, 6): "));
    const QString text = QString::fromStdString(ir::printStmt(l.body));
    QCOMPARE(text.count("for i_0 in range(4):"), 1);
    QCOMPARE(text.count("T.if_then_else"), 2); // ax0 = 0 and ax0 = 5
  }

  void partitionCopiesAreBounded() {
    // Padding on three axes: i (3 parts) and j (3 parts in each) are partitioned; k would
    // make 27 copies of the body, past the 9 allowed, and stays one loop.
    const char* pad3 = R"(from tvm import te
A = te.placeholder((4, 4, 4), name="A")
P = te.compute((6, 6, 6), lambda i, j, k: te.if_then_else(
    te.all(i >= 1, i < 5, j >= 1, j < 5, k >= 1, k < 5), A[i - 1, j - 1, k - 1], te.const(0.0, "float32")), name="P")
)";
    auto l = lowered(parse(pad3));
    QCOMPARE(l.remarks.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(l.remarks[0].loop), QString("j"));
    QCOMPARE(QString::fromStdString(l.remarks[1].loop), QString("i"));
    QCOMPARE(census(l.body).loops, 3 + 9 + 9);
  }

  void threadBindingRefusedOnCpu() {
    auto f = scheduled(kMatmul, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
sch.bind(i, "blockIdx.x")
)");
    auto l = codegen::lower(f);
    QVERIFY(!l);
    QCOMPARE(QString::fromStdString(l.error().code), QString("codegen.thread-binding-on-cpu"));
    QCOMPARE(QString::fromStdString(l.error().message),
             QString("loop 'i' is bound to blockIdx.x, but target device 'cpu' has no GPU threads"));
    QCOMPARE(l.error().references.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(l.error().references[0].name), QString("i"));
    codegen::LowerOptions gpu;
    gpu.deviceKind = "gpu";
    QVERIFY(codegen::lower(f, gpu).has_value());
  }

  void unrollConstantExtent() {
    auto l = lowered(scheduled(kMatmul, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
k0, k1 = sch.split(k, factors=[None, 4])
sch.unroll(k1)
)"));
    Census c = census(l.body);
    QCOMPARE(c.unrolled, 0);
    QCOMPARE(c.loops, 3); // i, j, k_0
    QString text = QString::fromStdString(ir::printStmt(l.body));
    QCOMPARE(text.count("T.evaluate(\"C\")"), 4);
    QVERIFY2(text.contains("A[i * 8 + k_0 * 4 + 3]"), qPrintable(text));
  }

  void partialUnrolledTilesGetTwoVersions() {
    // Rows of 4 over 10 (poly_optimize's register tile that does not divide its extent):
    // the unrolled loop's extent is 4 except on the last tile (2). The test goes above k,
    // which the extent does not use, and stops at i_0, which it does: the whole tiles
    // unroll, the partial one runs the serial loop.
    const char* text = R"(from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((10, 3), "float32"), B: T.Buffer((3, 4), "float32"), C: T.Buffer((10, 4), "float32")):
    for i_0, k in T.grid(3, 3):
        for i_1 in T.unroll(T.min(3, 9 - i_0 * 4) + 1):
            for j in T.vectorized(4):
                with T.block("C"):
                    vi = T.axis.spatial(10, i_0 * 4 + i_1)
                    vj = T.axis.spatial(4, j)
                    vk = T.axis.reduce(3, k)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";
    auto l = lowered(testing::parseScript(text));
    QCOMPARE(l.remarks.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(l.remarks[0].loop + ": " + l.remarks[0].message),
             QString("i_1: unrolled by 4 where its extent T.min(3, 9 - i_0 * 4) + 1 is 4 (whole tiles), a serial "
                     "loop where it is less (a partial tile)"));
    QCOMPARE(QString::fromStdString(ir::printStmt(l.body)), QString(R"(for i_0 in range(3):
    if T.min(3, 9 - i_0 * 4) + 1 == 4:
        for k in range(3):
            T.evaluate("C")
            C[i_0 * 16:i_0 * 16 + 4] = C[i_0 * 16:i_0 * 16 + 4] + T.Broadcast(A[i_0 * 12 + k], 4) * B[k * 4:k * 4 + 4]
            T.evaluate("C")
            C[i_0 * 16 + 4:i_0 * 16 + 4 + 4] = C[i_0 * 16 + 4:i_0 * 16 + 4 + 4] + T.Broadcast(A[i_0 * 12 + k + 3], 4) * B[k * 4:k * 4 + 4]
            T.evaluate("C")
            C[i_0 * 16 + 8:i_0 * 16 + 8 + 4] = C[i_0 * 16 + 8:i_0 * 16 + 8 + 4] + T.Broadcast(A[i_0 * 12 + k + 6], 4) * B[k * 4:k * 4 + 4]
            T.evaluate("C")
            C[i_0 * 16 + 12:i_0 * 16 + 12 + 4] = C[i_0 * 16 + 12:i_0 * 16 + 12 + 4] + T.Broadcast(A[i_0 * 12 + k + 9], 4) * B[k * 4:k * 4 + 4]
    else:
        for k, i_1 in T.grid(3, T.min(3, 9 - i_0 * 4) + 1):
            T.evaluate("C")
            C[i_0 * 16 + i_1 * 4:i_0 * 16 + i_1 * 4 + 4] = C[i_0 * 16 + i_1 * 4:i_0 * 16 + i_1 * 4 + 4] + T.Broadcast(A[i_0 * 12 + i_1 * 3 + k], 4) * B[k * 4:k * 4 + 4]
)"));
  }

  void symbolicSizesAndPredicate() {
    const char* dense = R"(from tvm import te
n = te.var("n")
data = te.placeholder((n, 8), name="data")
weight = te.placeholder((6, 8), name="weight")
k = te.reduce_axis((0, 8), name="k")
T = te.compute((n, 6), lambda i, j: te.sum(data[i, k] * weight[j, k], axis=k), name="T_matmul_NT")
)";
    auto l = lowered(scheduled(dense, R"(b = sch.get_block("T_matmul_NT")
i, j, k = sch.get_loops(b)
i0, i1 = sch.split(i, factors=[None, 4])
)"));
    QCOMPARE(l.sizeVars.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(l.sizeVars[0].as<ir::Var>()->name), QString("n"));
    QVERIFY(l.sizeVars[0].dtype() == ir::DataType::int64());
    // The flat extent of data is n * 8 in int64; the predicate of the split guards the block.
    QCOMPARE(QString::fromStdString(ir::printExpr(l.flatParams[0]->shape[0])), QString("n * T.int64(8)"));
    QCOMPARE(census(l.body).ifs, 2); // the hoisted init and the update, each under the predicate
    QVERIFY(QString::fromStdString(ir::printStmt(l.body)).contains("if i_0 * 4 + i_1 < T.Cast(\"int32\", n):"));
  }

  void stridedBuffersUseTheirStrides() {
    // A buffer with explicit strides (storage_align pads rows) flattens with them.
    ir::Buffer b = ir::makeBuffer("S", ir::DataType::float32(), {ir::intImm(4), ir::intImm(3)}, ir::MemoryScope::Global,
                                  {ir::intImm(5), ir::intImm(1)});
    ir::Expr i = ir::Var::make("i"), j = ir::Var::make("j");
    ir::Stmt store = ir::BufferStore::make(b, ir::floatImm(1), {i, j});
    ir::Stmt loops = ir::For::make(i, ir::intImm(0), ir::intImm(4), ir::ForKind::Serial,
                                   ir::For::make(j, ir::intImm(0), ir::intImm(3), ir::ForKind::Serial, store));
    ir::Stmt root = ir::BlockRealize::make({}, ir::boolImm(true),
                                           ir::Block::make("root", {}, {}, {}, loops));
    ir::PrimFunc f{"strided", {b}, root, {}};
    auto l = lowered(f);
    QCOMPARE(QString::fromStdString(ir::printExpr(l.flatParams[0]->shape[0])), QString("18"));
    QVERIFY2(QString::fromStdString(ir::printStmt(l.body)).contains("S[i * 5 + j] = T.float32(1)"),
             qPrintable(QString::fromStdString(ir::printStmt(l.body))));
  }

  void traceLogsEveryPass() {
    codegen::LowerOptions opt;
    opt.trace = true;
    QStringList passes;
    opt.log = [&](std::string_view pass, std::string_view) { passes << QString::fromUtf8(pass.data(), pass.size()); };
    QVERIFY(codegen::lower(parse(kMatmul), opt).has_value());
    QCOMPARE(passes, (QStringList{"lowerBlocks", "flattenBuffers", "versionPartialUnrolls", "unrollLoops", "simplify",
                                  "partitionLoops", "vectorizeLoops"}));
  }
};

QTEST_GUILESS_MAIN(TestLower)
#include "tst_lower.moc"
