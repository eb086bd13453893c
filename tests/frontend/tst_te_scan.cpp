// The recurrence of the .te language, scan(init, update, state, inputs=[...]) as TVM's
// te.scan: structure of the lowered PrimFunc (one buffer written by an init block and an
// update block whose time loop starts at the number of initial steps, all iterators
// spatial, the update reading the buffer it writes), interpreter results against
// hand-written C++ loops doing the same operations in the same order (exact), and every
// scan diagnostic with its exact rendered text.
#include "core/frontend/te_frontend.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/printer.h"
#include "core/ir/visitor.h"

#include <QFile>
#include <QtTest>

#include <cstdint>
#include <functional>
#include <vector>

using namespace loopscape;
using loopscape::frontend::parseTe;

namespace {

ir::PrimFunc mustParse(const std::string& source) {
  auto r = parseTe(source, "test.te");
  if (!r) qFatal("%s", renderDiagnostic(r.error(), source).c_str());
  return *r;
}

std::vector<const ir::Block*> blocksOf(const ir::PrimFunc& f) {
  std::vector<const ir::Block*> blocks;
  struct Collector : ir::StmtVisitor {
    std::vector<const ir::Block*>* out;
    void visitBlock(const ir::Block& b, const ir::Stmt& s) override {
      if (b.name != "root") out->push_back(&b);
      ir::StmtVisitor::visitBlock(b, s);
    }
  } c;
  c.out = &blocks;
  c(f.body);
  return blocks;
}

/// The loops around block `block`, outermost first.
std::vector<ir::Stmt> loopsOf(const ir::PrimFunc& f, const std::string& block) {
  std::vector<ir::Stmt> stack, found;
  std::function<void(const ir::Stmt&)> walk = [&](const ir::Stmt& s) {
    if (const auto* loop = s.as<ir::For>()) {
      stack.push_back(s);
      walk(loop->body);
      stack.pop_back();
    } else if (const auto* seq = s.as<ir::SeqStmt>()) {
      for (const auto& x : seq->seq) walk(x);
    } else if (const auto* realize = s.as<ir::BlockRealize>()) {
      const auto* b = realize->block.as<ir::Block>();
      if (b->name == block) found = stack;
      walk(b->body);
    }
  };
  walk(f.body);
  return found;
}

const ir::For& loop(const ir::Stmt& s) { return *s.as<ir::For>(); }

/// Exact text comparison that shows the whole actual text when it differs.
bool sameText(const std::string& actual, const char* expected) {
  if (actual == expected) return true;
  qWarning().noquote() << "actual:\n" << QString::fromStdString(actual);
  return false;
}

std::string readSample(const char* name) {
  QFile f(QStringLiteral(LS_SOURCE_DIR "/samples/") + QLatin1String(name));
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open sample %s", name);
  return f.readAll().toStdString();
}

/// Inputs from fillRandom(seed + i), outputs zero; runs the interpreter.
std::vector<ir::NDArray> run(const ir::PrimFunc& func, std::size_t inputs, std::uint64_t seed = 3) {
  std::vector<ir::NDArray> args;
  for (std::size_t i = 0; i < func.params.size(); ++i) {
    auto shape = ir::evalShape(func.params[i], {});
    if (!shape) qFatal("%s", renderDiagnostic(shape.error()).c_str());
    ir::NDArray a(*shape, func.params[i]->dtype);
    if (i < inputs) a.fillRandom(seed + i);
    args.push_back(std::move(a));
  }
  if (auto r = ir::interpret(func, args); !r) qFatal("%s", renderDiagnostic(r.error()).c_str());
  return args;
}

// The example of TVM's te.scan documentation, verbatim (default names, symbolic sizes).
const char* kTvmDocScan = R"(import tvm
from tvm import te
m = te.var("m")
n = te.var("n")
X = te.placeholder((m, n), name="X")
s_state = te.placeholder((m, n))
s_init = te.compute((1, n), lambda _, i: X[0, i])
s_update = te.compute((m, n), lambda t, i: s_state[t-1, i] + X[t, i])
s_scan = tvm.te.scan(s_init, s_update, s_state, inputs=[X])
)";

const char* kStencil1dSmall = R"(from tvm import te
T, N = 7, 12
X0 = te.placeholder((N,), name="X0")
state = te.placeholder((T, N), name="state")
init = te.compute((1, N), lambda _, i: X0[i], name="heat_init")
update = te.compute(
    (T, N),
    lambda t, i: te.if_then_else(
        te.all(i > 0, i < N - 1),
        0.25 * state[t - 1, i - 1] + 0.5 * state[t - 1, i] + 0.25 * state[t - 1, i + 1],
        state[t - 1, i],
    ),
    name="heat_update",
)
heat = te.scan(init, update, state, inputs=[X0], name="heat")
)";

const char* kStencil2dSmall = R"(from tvm import te
T, H, W = 4, 6, 5
A = te.placeholder((H, W), name="A")
S = te.placeholder((T, H, W), name="S")
init = te.compute((1, H, W), lambda _, i, j: A[i, j], name="jacobi_init")
update = te.compute(
    (T, H, W),
    lambda t, i, j: te.if_then_else(
        te.all(i > 0, i < H - 1, j > 0, j < W - 1),
        0.2 * (S[t - 1, i, j] + S[t - 1, i - 1, j] + S[t - 1, i + 1, j] + S[t - 1, i, j - 1] + S[t - 1, i, j + 1]),
        S[t - 1, i, j],
    ),
    name="jacobi_update",
)
jacobi = te.scan(init, update, S, inputs=[A], name="jacobi")
)";

const char* kPrefixSumSmall = R"(from tvm import te
N = 37
x = te.placeholder((N,), dtype="int32", name="x")
state = te.placeholder((N,), dtype="int32", name="state")
init = te.compute((1,), lambda t: x[0], name="psum_init")
update = te.compute((N,), lambda t: state[t - 1] + x[t], name="psum_update")
psum = te.scan(init, update, state, inputs=[x], name="psum")
)";

const char* kMatvecChainSmall = R"(from tvm import te
N = 9
A = te.placeholder((N, N), name="A")
B = te.placeholder((N, N), name="B")
x = te.placeholder((N,), name="x")
k = te.reduce_axis((0, N), name="k")
Bx = te.compute((N,), lambda i: te.sum(B[i, k] * x[k], axis=k), name="Bx")
j = te.reduce_axis((0, N), name="j")
y = te.compute((N,), lambda i: te.sum(A[i, j] * Bx[j], axis=j), name="y")
)";

} // namespace

class TstTeScan : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void tvmDocExample();
  void stencilStructure();
  void secondOrderInit();
  void scanConsumedLater();
  void stencil1dInterpreted();
  void stencil2dInterpreted();
  void prefixSumInterpreted();
  void fibonacciInterpreted();
  void reductionUpdateInterpreted();
  void matvecChainInterpreted();
  void diagnostics_data();
  void diagnostics();
};

void TstTeScan::tvmDocExample() {
  auto f = mustParse(kTvmDocScan);
  QVERIFY(sameText(ir::printPrimFunc(f), R"(# from tvm.script import tir as T

@T.prim_func
def main(var_X: T.handle, var_scan: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    m = T.int32()
    n = T.int32()
    X = T.match_buffer(var_X, (m, n))
    scan = T.match_buffer(var_scan, (m, n))
    # with T.block("root"):
    for _, i in T.grid(1, n):
        with T.block("compute"):
            v__, v_i = T.axis.remap("SS", [_, i])
            T.reads(X[0, v_i])
            T.writes(scan[v__, v_i])
            scan[v__, v_i] = X[0, v_i]
    for t in range(1, 1 + (m - 1)):
        for i in range(n):
            with T.block("compute_1"):
                v_t, v_i = T.axis.remap("SS", [t, i])
                T.reads(scan[v_t - 1, v_i], X[v_t, v_i])
                T.writes(scan[v_t, v_i])
                scan[v_t, v_i] = scan[v_t - 1, v_i] + X[v_t, v_i]
)"));
  // The state placeholder is no parameter; the scan is the output.
  QCOMPARE(f.params.size(), std::size_t{2});
  QCOMPARE(QString::fromStdString(f.params[1]->name), QStringLiteral("scan"));
  // Runs: scan[t, i] = sum of X[0..t, i].
  auto args = [&] {
    std::vector<ir::NDArray> a;
    a.emplace_back(std::vector<std::int64_t>{5, 3}, ir::DataType::float32());
    a.emplace_back(std::vector<std::int64_t>{5, 3}, ir::DataType::float32());
    a[0].fillRandom(11);
    return a;
  }();
  QVERIFY(ir::interpret(f, args).has_value());
  const float* x = args[0].data<float>();
  const float* s = args[1].data<float>();
  for (int i = 0; i < 3; ++i) {
    float acc = x[i];
    QCOMPARE(s[i], acc);
    for (int t = 1; t < 5; ++t) {
      acc = acc + x[t * 3 + i];
      QCOMPARE(s[t * 3 + i], acc);
    }
  }
}

void TstTeScan::stencilStructure() {
  auto f = mustParse(readSample("stencil1d.te"));
  auto blocks = blocksOf(f);
  QCOMPARE(blocks.size(), std::size_t{2});
  QCOMPARE(QString::fromStdString(blocks[0]->name), QStringLiteral("heat_init"));
  QCOMPARE(QString::fromStdString(blocks[1]->name), QStringLiteral("heat_update"));
  QStringList params;
  for (const auto& p : f.params) params << QString::fromStdString(p->name);
  QCOMPARE(params, (QStringList{"X0", "heat"}));
  QVERIFY(f.rootBlock().allocBuffers.empty());
  const ir::Buffer& heat = f.params[1];
  // Both blocks write the one buffer; the update also reads it (at t - 1).
  for (const auto* b : blocks) {
    QCOMPARE(b->writes.size(), std::size_t{1});
    QVERIFY(b->writes[0].buffer.sameAs(heat));
    for (const auto& iv : b->iterVars) QVERIFY(iv.kind == ir::IterKind::Spatial);
    QVERIFY(!b->init.defined());
  }
  const ir::Block& update = *blocks[1];
  QCOMPARE(update.reads.size(), std::size_t{1});
  QVERIFY(update.reads[0].buffer.sameAs(heat));
  QCOMPARE(QString::fromStdString(ir::printExpr(update.reads[0].region[0].min)), QStringLiteral("v_t - 1"));
  QCOMPARE(QString::fromStdString(ir::printExpr(update.reads[0].region[1].min)), QStringLiteral("v_i - 1"));
  QVERIFY(ir::isConstInt(update.reads[0].region[1].extent, 3));
  // Time loop of the update from the number of initial steps (1) to 64; iterator domain
  // equal to the loop's range, bound to the loop variable.
  auto loops = loopsOf(f, "heat_update");
  QCOMPARE(loops.size(), std::size_t{2});
  QCOMPARE(QString::fromStdString(loop(loops[0]).loopVar.as<ir::Var>()->name), QStringLiteral("t"));
  QVERIFY(ir::isConstInt(loop(loops[0]).min, 1));
  QVERIFY(ir::isConstInt(loop(loops[0]).extent, 63));
  QVERIFY(ir::isConstInt(loop(loops[1]).min, 0));
  QVERIFY(ir::isConstInt(loop(loops[1]).extent, 1024));
  QVERIFY(ir::isConstInt(update.iterVars[0].dom.min, 1));
  QVERIFY(ir::isConstInt(update.iterVars[0].dom.extent, 63));
  auto initLoops = loopsOf(f, "heat_init");
  QCOMPARE(initLoops.size(), std::size_t{2});
  QVERIFY(ir::isConstInt(loop(initLoops[0]).min, 0));
  QVERIFY(ir::isConstInt(loop(initLoops[0]).extent, 1));
  // The 2-D sample: three spatial iterators, reads and writes "jacobi".
  auto g = mustParse(readSample("stencil2d.te"));
  auto blocks2 = blocksOf(g);
  QCOMPARE(blocks2.size(), std::size_t{2});
  QCOMPARE(QString::fromStdString(blocks2[1]->name), QStringLiteral("jacobi_update"));
  QCOMPARE(blocks2[1]->iterVars.size(), std::size_t{3});
  QVERIFY(blocks2[1]->reads[0].buffer.sameAs(blocks2[1]->writes[0].buffer));
  QCOMPARE(QString::fromStdString(blocks2[1]->writes[0].buffer->name), QStringLiteral("jacobi"));
  QVERIFY(ir::isConstInt(loop(loopsOf(g, "jacobi_update")[0]).min, 1));
}

void TstTeScan::secondOrderInit() {
  // Two initial steps: the update loop starts at 2 and may read t - 1 and t - 2; a
  // constant index below 2 reads an initial step.
  auto f = mustParse(R"(n = te.var("n")
X = placeholder((n, 4), name="X")
S = placeholder((n, 4), name="S")
i0 = compute((2, 4), lambda t, i: X[t, i], name="i0")
up = compute((n, 4), lambda t, i: S[t - 1, i] - S[t - 2, i] * S[1, i], name="up")
Rec = scan(i0, up, S, name="Rec", tag="recurrence", attrs={"note": "second order"})
)");
  auto loops = loopsOf(f, "up");
  QCOMPARE(loops.size(), std::size_t{2});
  QVERIFY(ir::isConstInt(loop(loops[0]).min, 2));
  QCOMPARE(QString::fromStdString(ir::printExpr(loop(loops[0]).extent)), QStringLiteral("n - 2"));
  auto blocks = blocksOf(f);
  QCOMPARE(QString::fromStdString(ir::printExpr(blocks[1]->iterVars[0].dom.extent)), QStringLiteral("n - 2"));
  QVERIFY(sameText(ir::printPrimFunc(f), R"(# from tvm.script import tir as T

@T.prim_func
def main(var_X: T.handle, var_Rec: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    n = T.int32()
    X = T.match_buffer(var_X, (n, 4))
    Rec = T.match_buffer(var_Rec, (n, 4))
    # with T.block("root"):
    for t, i in T.grid(2, 4):
        with T.block("i0"):
            v_t, v_i = T.axis.remap("SS", [t, i])
            T.reads(X[v_t, v_i])
            T.writes(Rec[v_t, v_i])
            T.block_attr({"note": "second order"})
            Rec[v_t, v_i] = X[v_t, v_i]
    for t in range(2, 2 + (n - 2)):
        for i in range(4):
            with T.block("up"):
                v_t, v_i = T.axis.remap("SS", [t, i])
                T.reads(Rec[0:n, v_i])
                T.writes(Rec[v_t, v_i])
                T.block_attr({"note": "second order"})
                Rec[v_t, v_i] = Rec[v_t - 1, v_i] - Rec[v_t - 2, v_i] * Rec[1, v_i]
)"));
  // The scan's attrs go on both blocks.
  QVERIFY(blocks[0]->annotations.count("note"));
}

void TstTeScan::scanConsumedLater() {
  // A compute reading the scan makes it an intermediate (alloc_buffer), as any compute.
  auto f = mustParse(std::string(kPrefixSumSmall) + "last = te.compute((1,), lambda i: psum[N - 1] * 2, name=\"last\")\n");
  QStringList params;
  for (const auto& p : f.params) params << QString::fromStdString(p->name);
  QCOMPARE(params, (QStringList{"x", "last"}));
  QCOMPARE(f.rootBlock().allocBuffers.size(), std::size_t{1});
  QCOMPARE(QString::fromStdString(f.rootBlock().allocBuffers[0]->name), QStringLiteral("psum"));
  auto args = run(f, 1);
  const std::int32_t* x = args[0].data<std::int32_t>();
  std::int32_t total = 0;
  for (int t = 0; t < 37; ++t) total += x[t];
  QCOMPARE(args[1].data<std::int32_t>()[0], total * 2);
  // outputs= may list the scan and the reader.
  auto g = mustParse(std::string(kPrefixSumSmall) + "last = te.compute((1,), lambda i: psum[N - 1], name=\"last\")\noutputs = [psum, last]\n");
  QCOMPARE(g.params.size(), std::size_t{3});
  QVERIFY(g.rootBlock().allocBuffers.empty());
}

void TstTeScan::stencil1dInterpreted() {
  auto f = mustParse(kStencil1dSmall);
  auto args = run(f, 1);
  const int T = 7, N = 12;
  const float* x0 = args[0].data<float>();
  std::vector<float> s(T * N);
  for (int i = 0; i < N; ++i) s[i] = x0[i];
  for (int t = 1; t < T; ++t)
    for (int i = 0; i < N; ++i) {
      const float* p = &s[(t - 1) * N];
      s[t * N + i] = i > 0 && i < N - 1 ? 0.25f * p[i - 1] + 0.5f * p[i] + 0.25f * p[i + 1] : p[i];
    }
  const float* got = args[1].data<float>();
  for (int e = 0; e < T * N; ++e) QCOMPARE(got[e], s[e]);
  // Not trivially equal to the input: the interior changed.
  QVERIFY(got[(T - 1) * N + 5] != x0[5]);
}

void TstTeScan::stencil2dInterpreted() {
  auto f = mustParse(kStencil2dSmall);
  auto args = run(f, 1);
  const int T = 4, H = 6, W = 5;
  const float* a = args[0].data<float>();
  std::vector<float> s(T * H * W);
  for (int e = 0; e < H * W; ++e) s[e] = a[e];
  for (int t = 1; t < T; ++t)
    for (int i = 0; i < H; ++i)
      for (int j = 0; j < W; ++j) {
        auto p = [&](int y, int x) { return s[((t - 1) * H + y) * W + x]; };
        s[(t * H + i) * W + j] = i > 0 && i < H - 1 && j > 0 && j < W - 1
                                     ? 0.2f * (p(i, j) + p(i - 1, j) + p(i + 1, j) + p(i, j - 1) + p(i, j + 1))
                                     : p(i, j);
      }
  const float* got = args[1].data<float>();
  for (int e = 0; e < T * H * W; ++e) QCOMPARE(got[e], s[e]);
}

void TstTeScan::prefixSumInterpreted() {
  auto f = mustParse(kPrefixSumSmall);
  auto args = run(f, 1);
  const std::int32_t* x = args[0].data<std::int32_t>();
  const std::int32_t* got = args[1].data<std::int32_t>();
  std::int32_t acc = 0;
  bool anyNonZero = false;
  for (int t = 0; t < 37; ++t) {
    acc += x[t];
    anyNonZero = anyNonZero || acc != 0;
    QCOMPARE(got[t], acc);
  }
  QVERIFY(anyNonZero);
}

void TstTeScan::fibonacciInterpreted() {
  // Two initial steps, exact int32: F[0] = F[1] = 1, F[t] = F[t-1] + F[t-2].
  auto f = mustParse(R"(F = placeholder((20,), dtype="int32", name="F")
init = compute((2,), lambda t: int32(1), name="fib_init")
update = compute((20,), lambda t: F[t - 1] + F[t - 2], name="fib_update")
fib = scan(init, update, F, name="fib")
)");
  QCOMPARE(f.params.size(), std::size_t{1});
  auto args = run(f, 0);
  const std::int32_t* got = args[0].data<std::int32_t>();
  std::int32_t a = 1, b = 1;
  QCOMPARE(got[0], 1);
  QCOMPARE(got[1], 1);
  for (int t = 2; t < 20; ++t) {
    std::int32_t c = a + b;
    QCOMPARE(got[t], c);
    a = b;
    b = c;
  }
  QCOMPARE(got[19], 6765);
}

void TstTeScan::reductionUpdateInterpreted() {
  // Power iteration x_t = A x_{t-1}: a reduction as the update (T.init per step).
  auto f = mustParse(R"(N, T = 5, 4
A = placeholder((N, N), name="A")
x0 = placeholder((N,), name="x0")
X = placeholder((T, N), name="X")
k = reduce_axis((0, N), name="k")
init = compute((1, N), lambda _, i: x0[i], name="x_init")
update = compute((T, N), lambda t, i: sum(A[i, k] * X[t - 1, k], axis=k), name="x_update")
xs = scan(init, update, X, inputs=[A, x0], name="xs")
)");
  auto blocks = blocksOf(f);
  QCOMPARE(blocks.size(), std::size_t{2});
  QVERIFY(blocks[1]->init.defined());
  QVERIFY(blocks[1]->iterVars[2].kind == ir::IterKind::Reduce);
  auto args = run(f, 2);
  const float* a = args[0].data<float>();
  const float* x0 = args[1].data<float>();
  std::vector<float> s(4 * 5);
  for (int i = 0; i < 5; ++i) s[i] = x0[i];
  for (int t = 1; t < 4; ++t)
    for (int i = 0; i < 5; ++i) {
      float acc = 0.0f;
      for (int k = 0; k < 5; ++k) acc = acc + a[i * 5 + k] * s[(t - 1) * 5 + k];
      s[t * 5 + i] = acc;
    }
  const float* got = args[2].data<float>();
  for (int e = 0; e < 20; ++e) QCOMPARE(got[e], s[e]);
}

void TstTeScan::matvecChainInterpreted() {
  auto f = mustParse(kMatvecChainSmall);
  auto args = run(f, 3);
  const int N = 9;
  const float* a = args[0].data<float>();
  const float* b = args[1].data<float>();
  const float* x = args[2].data<float>();
  std::vector<float> u(N);
  for (int i = 0; i < N; ++i) {
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) acc = acc + b[i * N + k] * x[k];
    u[i] = acc;
  }
  const float* got = args[3].data<float>();
  for (int i = 0; i < N; ++i) {
    float acc = 0.0f;
    for (int j = 0; j < N; ++j) acc = acc + a[i * N + j] * u[j];
    QCOMPARE(got[i], acc);
  }
}

void TstTeScan::diagnostics_data() {
  QTest::addColumn<QString>("source");
  QTest::addColumn<QString>("code");
  QTest::addColumn<QString>("rendered");
  QTest::newRow("init_not_compute") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(X, U, S, name="R")
)te")
      << QStringLiteral("te.scan-argument")
      << QString::fromUtf8(R"te(test.te:4:10: error: the init of scan() must be a compute, got tensor 'X' (a placeholder)
  R = scan(X, U, S, name="R")
           ^
)te");
  QTest::newRow("state_not_placeholder") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, U, name="R")
)te")
      << QStringLiteral("te.scan-argument")
      << QString::fromUtf8(R"te(test.te:5:16: error: the state of scan() must be a placeholder standing for the scan's result, got tensor 'U' (a compute)
  R = scan(I, U, U, name="R")
                 ^
)te");
  QTest::newRow("missing_state") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = te.scan(I, U, inputs=[X])
)te")
      << QStringLiteral("te.argument-count")
      << QString::fromUtf8(R"te(test.te:5:5: error: scan() missing required argument 'state_placeholder'
  R = te.scan(I, U, inputs=[X])
      ^~~~~~~~~~~~~~~~~~~~~~~~~
)te");
  QTest::newRow("state_shape_mismatch") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 5), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-shape")
      << QString::fromUtf8(R"te(test.te:5:13: error: the update 'U' has shape (8, 4) but the state 'S' has shape (8, 5); they must be equal
  R = scan(I, U, S, name="R")
              ^
)te");
  QTest::newRow("reads_current_step") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-time-index")
      << QString::fromUtf8(R"te(test.te:4:34: error: the update reads S[t, ...] at the current or a later time step; a recurrence may only read earlier steps
  U = compute((8, 4), lambda t, i: S[t, i] + X[t, i], name="U")
                                   ^~~~~~~
)te");
  QTest::newRow("reads_later_step") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + S[t + 1, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-time-index")
      << QString::fromUtf8(R"te(test.te:4:48: error: the update reads S[t + 1, ...] at the current or a later time step; a recurrence may only read earlier steps
  U = compute((8, 4), lambda t, i: S[t - 1, i] + S[t + 1, i], name="U")
                                                 ^~~~~~~~~~~
)te");
  QTest::newRow("reads_before_init") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + S[t - 2, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-time-index")
      << QString::fromUtf8(R"te(test.te:4:48: error: the update reads S[t - 2, ...] but the init covers only 1 time step: at t = 1 it would read step -1
  U = compute((8, 4), lambda t, i: S[t - 1, i] + S[t - 2, i], name="U")
                                                 ^~~~~~~~~~~
)te");
  QTest::newRow("non_affine_time") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t // 2, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-time-index")
      << QString::fromUtf8(R"te(test.te:4:34: error: the update reads S[t // 2, ...]: a time index must be t - c for a constant c >= 1
  U = compute((8, 4), lambda t, i: S[t // 2, i], name="U")
                                   ^~~~~~~~~~~~
)te");
  QTest::newRow("constant_step_not_initial") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[3, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-time-index")
      << QString::fromUtf8(R"te(test.te:4:34: error: the update reads S[3, ...], which is not an initial step (the init gives step 0); read computed steps as t - c
  U = compute((8, 4), lambda t, i: S[3, i], name="U")
                                   ^~~~~~~
)te");
  QTest::newRow("init_missing_time_dim") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((4,), lambda i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-shape")
      << QString::fromUtf8(R"te(test.te:5:10: error: the init 'I' has 1 dimension but the state 'S' has 2
  R = scan(I, U, S, name="R")
           ^
note: the first dimension of the init counts the initial time steps, e.g. shape (1, 4)
)te");
  QTest::newRow("init_dim_mismatch") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 3), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-shape")
      << QString::fromUtf8(R"te(test.te:5:10: error: dimension 1 of the init 'I' is 3 but the state 'S' has 4
  R = scan(I, U, S, name="R")
           ^
)te");
  QTest::newRow("init_covers_all_steps") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((8, 4), lambda t, i: X[t, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-shape")
      << QString::fromUtf8(R"te(test.te:5:10: error: the init 'I' covers 8 time steps but the state 'S' has only 8: the update would never run
  R = scan(I, U, S, name="R")
           ^
)te");
  QTest::newRow("init_symbolic_steps") << QString::fromUtf8(R"te(n = te.var("n")
X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((n, 4), lambda t, i: X[t, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-shape")
      << QString::fromUtf8(R"te(test.te:6:10: error: the number of initial time steps (dimension 0 of the init 'I') must be a constant, got n
  R = scan(I, U, S, name="R")
           ^
)te");
  QTest::newRow("dtype_mismatch") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), dtype="int32", name="S")
I = compute((1, 4), lambda _, i: int32(X[0, i]), name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.type-mismatch")
      << QString::fromUtf8(R"te(test.te:5:13: error: the update 'U' computes float32 but the state 'S' is int32
  R = scan(I, U, S, name="R")
              ^
note: cast the value, e.g. int32(...)
)te");
  QTest::newRow("state_read_elsewhere") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
Y = compute((8, 4), lambda t, i: S[t, i] * 2.0, name="Y")
)te")
      << QStringLiteral("te.scan-state-use")
      << QString::fromUtf8(R"te(test.te:6:34: error: compute 'Y' reads 'S', the state of scan 'R'; only the scan's update may read its state: read the scan's result 'R' instead
  Y = compute((8, 4), lambda t, i: S[t, i] * 2.0, name="Y")
                                   ^~~~~~~
)te");
  QTest::newRow("init_reads_state") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: S[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
)te")
      << QStringLiteral("te.scan-state-use")
      << QString::fromUtf8(R"te(test.te:3:34: error: compute 'I' reads 'S', the state of scan 'R'; only the scan's update may read its state: read the scan's result 'R' instead
  I = compute((1, 4), lambda _, i: S[0, i], name="I")
                                   ^~~~~~~
)te");
  QTest::newRow("update_read_elsewhere") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
Y = compute((8, 4), lambda t, i: U[t, i], name="Y")
)te")
      << QStringLiteral("te.scan-state-use")
      << QString::fromUtf8(R"te(test.te:6:34: error: compute 'Y' reads 'U', the update of scan 'R'; read the scan's result 'R' instead
  Y = compute((8, 4), lambda t, i: U[t, i], name="Y")
                                   ^~~~~~~
)te");
  QTest::newRow("update_in_outputs") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
outputs = [R, U]
)te")
      << QStringLiteral("te.bad-outputs")
      << QString::fromUtf8(R"te(test.te:6:15: error: compute 'U' is the update of scan 'R'; list the scan 'R' in outputs instead
  outputs = [R, U]
                ^
)te");
  QTest::newRow("update_in_two_scans") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="R")
I2 = compute((1, 4), lambda _, i: X[1, i], name="I2")
S2 = placeholder((8, 4), name="S2")
R2 = scan(I2, U, S2, name="R2")
)te")
      << QStringLiteral("te.scan-argument")
      << QString::fromUtf8(R"te(test.te:8:15: error: 'U' already belongs to scan 'R'; a compute or placeholder can be part of one scan only
  R2 = scan(I2, U, S2, name="R2")
                ^
)te");
  QTest::newRow("several_states") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan([I, I], [U, U], [S, S], name="R")
)te")
      << QStringLiteral("te.unsupported")
      << QString::fromUtf8(R"te(test.te:5:10: error: scan() over 2 states is not supported: give one init (write one scan per state)
  R = scan([I, I], [U, U], [S, S], name="R")
           ^~~~~~
)te");
  QTest::newRow("inputs_not_tensors") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, inputs=[X, 3], name="R")
)te")
      << QStringLiteral("te.scan-argument")
      << QString::fromUtf8(R"te(test.te:5:30: error: inputs= must be a list of tensors, but this element is int 3
  R = scan(I, U, S, inputs=[X, 3], name="R")
                               ^
)te");
  QTest::newRow("state_in_inputs") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, inputs=[X, S], name="R")
)te")
      << QStringLiteral("te.scan-argument")
      << QString::fromUtf8(R"te(test.te:5:30: error: the state 'S' is not an input of the scan; list the tensors the init and update read
  R = scan(I, U, S, inputs=[X, S], name="R")
                               ^
)te");
  QTest::newRow("scan_in_lambda") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
Y = compute((8, 4), lambda t, i: scan(I, U, S)[t, i], name="Y")
)te")
      << QStringLiteral("te.unsupported")
      << QString::fromUtf8(R"te(test.te:5:34: error: scan() cannot be called inside a compute lambda
  Y = compute((8, 4), lambda t, i: scan(I, U, S)[t, i], name="Y")
                                   ^~~~~~~~~~~~~
)te");
  QTest::newRow("scan_name_taken") << QString::fromUtf8(R"te(X = placeholder((8, 4), name="X")
S = placeholder((8, 4), name="S")
I = compute((1, 4), lambda _, i: X[0, i], name="I")
U = compute((8, 4), lambda t, i: S[t - 1, i] + X[t, i], name="U")
R = scan(I, U, S, name="X")
)te")
      << QStringLiteral("te.duplicate-name")
      << QString::fromUtf8(R"te(test.te:5:24: error: a tensor named 'X' is already defined
  R = scan(I, U, S, name="X")
                         ^~~
note: 'X' was first defined at line 1, column 5
)te");
}

void TstTeScan::diagnostics() {
  QFETCH(QString, source);
  QFETCH(QString, code);
  QFETCH(QString, rendered);
  const std::string src = source.toStdString();
  auto result = parseTe(src, "test.te");
  QVERIFY2(!result, "expected a diagnostic");
  const QString actual = QString::fromStdString(renderDiagnostic(result.error(), src));
  if (actual != rendered) qWarning().noquote() << "actual:\n" << actual;
  QCOMPARE(QString::fromStdString(result.error().code), code);
  QCOMPARE(actual, rendered);
}

QTEST_GUILESS_MAIN(TstTeScan)
#include "tst_te_scan.moc"
