// Positive cases of the .te front end: programs that must parse, evaluate and lower as
// TVM's te.create_prim_func does. Checked two ways: the structure of the PrimFunc
// (buffers, blocks, iterator kinds, regions, init values) and the printed TVMScript
// (golden text inline; regenerate by printing parseTe(source) with printPrimFunc and
// reviewing the difference by hand). Every samples/*.te file must parse.
#include "core/frontend/te_frontend.h"
#include "core/ir/printer.h"
#include "core/ir/visitor.h"

#include <QDir>
#include <QFile>
#include <QtTest>

using namespace loopscape;
using loopscape::frontend::parseTe;

namespace {

std::vector<const ir::Block*> blocksOf(const ir::PrimFunc& f) {
  std::vector<const ir::Block*> blocks;
  struct Collector : ir::StmtVisitor {
    std::vector<const ir::Block*>* out;
    void visitBlock(const ir::Block& b, const ir::Stmt& s) override {
      out->push_back(&b);
      ir::StmtVisitor::visitBlock(b, s);
    }
  } c;
  c.out = &blocks;
  c(f.body);
  return blocks;
}

QString regionText(const ir::BufferRegion& r) {
  QString s = QString::fromStdString(r.buffer->name) + QLatin1Char('[');
  for (std::size_t d = 0; d < r.region.size(); ++d) {
    if (d) s += QStringLiteral(", ");
    s += QString::fromStdString(ir::printExpr(r.region[d].min)) + QLatin1Char('+') +
         QString::fromStdString(ir::printExpr(r.region[d].extent));
  }
  return s + QLatin1Char(']');
}

ir::PrimFunc mustParse(const std::string& source) {
  auto r = parseTe(source, "test.te");
  if (!r) qFatal("%s", renderDiagnostic(r.error(), source).c_str());
  return *r;
}

} // namespace

class TstTeParse : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void matmulStructure();
  void printed_data();
  void printed();
  void samples_data();
  void samples();
  void outputsAndIntermediates();
  void dynamicShape();
  void conv2dRegions();
};

void TstTeParse::matmulStructure() {
  auto f = mustParse("A = te.placeholder((128, 64), name=\"A\")\n"
                     "B = te.placeholder((64, 32), dtype=\"float16\", name=\"B\")\n"
                     "k = te.reduce_axis((0, 64), name=\"k\")\n"
                     "C = te.compute((128, 32), lambda i, j: te.sum(float32(A[i, k]) * float32(B[k, j]), axis=k), name=\"C\")\n");
  QCOMPARE(QString::fromStdString(f.name), QStringLiteral("main"));
  QCOMPARE(f.params.size(), std::size_t{3});
  QCOMPARE(QString::fromStdString(f.params[0]->name), QStringLiteral("A"));
  QCOMPARE(QString::fromStdString(f.params[1]->name), QStringLiteral("B"));
  QCOMPARE(QString::fromStdString(f.params[2]->name), QStringLiteral("C"));
  QCOMPARE(f.params[1]->dtype, ir::DataType::float16());
  QCOMPARE(f.params[2]->dtype, ir::DataType::float32());
  QCOMPARE(ir::asConstInt(f.params[2]->shape[0]).value(), 128);
  QCOMPARE(ir::asConstInt(f.params[2]->shape[1]).value(), 32);
  QVERIFY(f.attrs.count("tir.noalias"));
  QCOMPARE(f.attrs.at("tir.noalias").dtype(), ir::DataType::boolean());
  QVERIFY(ir::isConstInt(f.attrs.at("tir.noalias"), 1));
  const auto& root = f.rootBlock();
  QCOMPARE(QString::fromStdString(root.name), QStringLiteral("root"));
  QVERIFY(root.iterVars.empty());
  QVERIFY(root.allocBuffers.empty());
  auto blocks = blocksOf(f);
  QCOMPARE(blocks.size(), std::size_t{2});
  const ir::Block& c = *blocks[1];
  QCOMPARE(QString::fromStdString(c.name), QStringLiteral("C"));
  QCOMPARE(c.iterVars.size(), std::size_t{3});
  QCOMPARE(QString::fromStdString(c.iterVars[0].var.as<ir::Var>()->name), QStringLiteral("v_i"));
  QCOMPARE(QString::fromStdString(c.iterVars[2].var.as<ir::Var>()->name), QStringLiteral("v_k"));
  QVERIFY(c.iterVars[0].kind == ir::IterKind::Spatial);
  QVERIFY(c.iterVars[1].kind == ir::IterKind::Spatial);
  QVERIFY(c.iterVars[2].kind == ir::IterKind::Reduce);
  QCOMPARE(ir::asConstInt(c.iterVars[2].dom.extent).value(), 64);
  QCOMPARE(c.reads.size(), std::size_t{2});
  QCOMPARE(regionText(c.reads[0]), QStringLiteral("A[v_i+1, v_k+1]"));
  QCOMPARE(regionText(c.reads[1]), QStringLiteral("B[v_k+1, v_j+1]"));
  QCOMPARE(c.writes.size(), std::size_t{1});
  QCOMPARE(regionText(c.writes[0]), QStringLiteral("C[v_i+1, v_j+1]"));
  QVERIFY(c.init.defined());
  const auto* init = c.init.as<ir::BufferStore>();
  QVERIFY(init);
  QCOMPARE(QString::fromStdString(ir::printExpr(init->value)), QStringLiteral("T.float32(0)"));
  // Loops i, j, k (serial, from 0) and bindings that are the bare loop variables.
  const auto* loop = f.rootBlock().body.as<ir::For>();
  QStringList loops;
  while (loop) {
    QVERIFY(loop->forKind == ir::ForKind::Serial);
    QVERIFY(ir::isConstInt(loop->min, 0));
    loops << QString::fromStdString(loop->loopVar.as<ir::Var>()->name);
    if (const auto* realize = loop->body.as<ir::BlockRealize>()) {
      QCOMPARE(realize->iterValues.size(), std::size_t{3});
      QVERIFY(realize->iterValues[2].sameAs(loop->loopVar));
    }
    loop = loop->body.as<ir::For>();
  }
  QCOMPARE(loops, (QStringList{QStringLiteral("i"), QStringLiteral("j"), QStringLiteral("k")}));
}

void TstTeParse::printed_data() {
  QTest::addColumn<QString>("source");
  QTest::addColumn<QString>("expected");
  QTest::newRow("prefixes_and_syntax") << QString::fromUtf8(R"te(import tvm
from tvm import te
# comments and blank lines are fine

n, m = 8, 4; k = tvm.te.reduce_axis((0, m), name="k")
A = tvm.te.placeholder((n, m), name="A")
B = T.compute((n,), lambda i: \
    te.sum(A[i, k] * 2, axis=k),
    name="B")
)te")
      << QString::fromUtf8(R"te(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, k in T.grid(8, 4):
        with T.block("B"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(A[v_i, v_k])
            T.writes(B[v_i])
            with T.init():
                B[v_i] = T.float32(0)
            B[v_i] = B[v_i] + A[v_i, v_k] * T.float32(2)
)te");
  QTest::newRow("symbolic_shape") << QString::fromUtf8(R"te(n = var("n")
A = placeholder((n * 2, 64), "float16", "A")
B = compute(A.shape, lambda i, j: A[i, j] + 1, name="B")
)te")
      << QString::fromUtf8(R"te(# from tvm.script import tir as T

@T.prim_func
def main(var_A: T.handle, var_B: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    n = T.int32()
    A = T.match_buffer(var_A, (n * 2, 64), "float16")
    B = T.match_buffer(var_B, (n * 2, 64), "float16")
    # with T.block("root"):
    for i, j in T.grid(n * 2, 64):
        with T.block("B"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j])
            T.writes(B[v_i, v_j])
            B[v_i, v_j] = A[v_i, v_j] + T.float16(1)
)te");
  QTest::newRow("promotion") << QString::fromUtf8(R"te(A = placeholder((4,), dtype="int32", name="A")
X = placeholder((4,), dtype="float32", name="X")
L = placeholder((4,), dtype="int64", name="L")
B = compute((4,), lambda i: X[i] * A[i] + 0.5 * A[i], name="B")
C = compute((4,), lambda i: L[i] + A[i] * 3 - i, name="C")
D = compute((4,), lambda i: if_then_else(0 < i < 3 and not i == 2, -X[i], float32(i) ** 2.0), name="D")
)te") << QString::fromUtf8(R"te(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "int32"), X: T.Buffer((4,), "float32"), L: T.Buffer((4,), "int64"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "int64"), D: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(4):
        with T.block("B"):
            v_i = T.axis.spatial(4, i)
            T.reads(X[v_i], A[v_i])
            T.writes(B[v_i])
            B[v_i] = X[v_i] * T.Cast("float32", A[v_i]) + T.float32(0.5) * T.Cast("float32", A[v_i])
    for i in range(4):
        with T.block("C"):
            v_i = T.axis.spatial(4, i)
            T.reads(L[v_i], A[v_i])
            T.writes(C[v_i])
            C[v_i] = L[v_i] + T.Cast("int64", A[v_i] * 3) - T.Cast("int64", v_i)
    for i in range(4):
        with T.block("D"):
            v_i = T.axis.spatial(4, i)
            T.reads(X[v_i])
            T.writes(D[v_i])
            D[v_i] = T.if_then_else(0 < v_i and v_i < 3 and not v_i == 2, X[v_i] * T.float32(-1), T.pow(T.Cast("float32", v_i), T.float32(2)))
)te");
  QTest::newRow("max_min_int_init") << QString::fromUtf8(R"te(A = placeholder((8, 8), dtype="int32", name="A")
r = reduce_axis((2, 8), name="r")
s = reduce_axis((0, 8), name="s")
Mx = compute((8,), lambda i: max(A[i, r], axis=r), name="Mx")
Mn = compute((8,), lambda i: min(A[s, i] // 2 % 3, axis=s), name="Mn")
outputs = [Mx, Mn]
)te")
      << QString::fromUtf8(R"te(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8), "int32"), Mx: T.Buffer((8,), "int32"), Mn: T.Buffer((8,), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(8):
        for r in range(2, 8):
            with T.block("Mx"):
                v_i, v_r = T.axis.remap("SR", [i, r])
                T.reads(A[v_i, v_r])
                T.writes(Mx[v_i])
                with T.init():
                    Mx[v_i] = -2147483648
                Mx[v_i] = T.max(Mx[v_i], A[v_i, v_r])
    for i, s in T.grid(8, 8):
        with T.block("Mn"):
            v_i, v_s = T.axis.remap("SR", [i, s])
            T.reads(A[v_s, v_i])
            T.writes(Mn[v_i])
            with T.init():
                Mn[v_i] = 2147483647
            Mn[v_i] = T.min(Mn[v_i], A[v_s, v_i] // 2 % 3)
)te");
  QTest::newRow("hull_regions") << QString::fromUtf8(R"te(A = placeholder((16, 16), name="A")
W = placeholder((16,), name="W")
B = compute((14, 16), lambda i, j: A[i, j] + A[i + 2, j] + A[i + 1, j] + W[j] + W[15 - j], name="B")
C = compute((14, 16), lambda i, j: B[i, j] * 2, name="C", attrs={"schedule_rule": "none", "level": 2})
outputs = [B, C]
)te")
      << QString::fromUtf8(R"te(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), W: T.Buffer((16,), "float32"), B: T.Buffer((14, 16), "float32"), C: T.Buffer((14, 16), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j in T.grid(14, 16):
        with T.block("B"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i:v_i + 3, v_j], W[0:16])
            T.writes(B[v_i, v_j])
            B[v_i, v_j] = A[v_i, v_j] + A[v_i + 2, v_j] + A[v_i + 1, v_j] + W[v_j] + W[15 - v_j]
    for i, j in T.grid(14, 16):
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(B[v_i, v_j])
            T.writes(C[v_i, v_j])
            T.block_attr({"level": 2, "schedule_rule": "none"})
            C[v_i, v_j] = B[v_i, v_j] * T.float32(2)
)te");
  QTest::newRow("multi_axis_reduction") << QString::fromUtf8(R"te(A = placeholder((4, 6, 8), name="A")
ry = reduce_axis((0, 6), "ry")
rx = reduce_axis((0, 8), "rx")
S = compute((4,), lambda b: sum(exp(A[b, ry, rx]) + sigmoid(A[b, ry, rx]), axis=[ry, rx]), name="S")
)te")
      << QString::fromUtf8(R"te(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 6, 8), "float32"), S: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for b, ry, rx in T.grid(4, 6, 8):
        with T.block("S"):
            v_b, v_ry, v_rx = T.axis.remap("SRR", [b, ry, rx])
            T.reads(A[v_b, v_ry, v_rx])
            T.writes(S[v_b])
            with T.init():
                S[v_b] = T.float32(0)
            S[v_b] = S[v_b] + (T.exp(A[v_b, v_ry, v_rx]) + T.sigmoid(A[v_b, v_ry, v_rx]))
)te");
}

void TstTeParse::printed() {
  QFETCH(QString, source);
  QFETCH(QString, expected);
  auto f = mustParse(source.toStdString());
  QCOMPARE(QString::fromStdString(ir::printPrimFunc(f)), expected);
}

void TstTeParse::samples_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<QStringList>("blocks");
  QTest::addColumn<QStringList>("params");
  QTest::newRow("matmul") << "matmul.te" << QStringList{"C"} << QStringList{"A", "B", "C"};
  QTest::newRow("conv2d_nchw") << "conv2d_nchw.te" << QStringList{"pad_temp", "conv2d_nchw"}
                               << QStringList{"data", "weight", "conv2d_nchw"};
  QTest::newRow("depthwise_conv2d") << "depthwise_conv2d.te" << QStringList{"PaddedInput", "DepthwiseConv2d"}
                                    << QStringList{"Input", "Filter", "DepthwiseConv2d"};
  QTest::newRow("softmax") << "softmax.te"
                           << QStringList{"T_softmax_maxelem", "T_softmax_exp", "T_softmax_expsum", "T_softmax_norm"}
                           << QStringList{"X", "T_softmax_norm"};
  QTest::newRow("layernorm") << "layernorm.te" << QStringList{"T_mean", "T_var", "T_layer_norm"}
                             << QStringList{"data", "gamma", "beta", "T_layer_norm"};
  QTest::newRow("batch_matmul") << "batch_matmul.te" << QStringList{"batch_matmul"} << QStringList{"A", "B", "batch_matmul"};
  QTest::newRow("conv_bias_relu") << "conv_bias_relu.te" << QStringList{"pad_temp", "conv2d_nchw", "T_add", "T_relu"}
                                  << QStringList{"data", "weight", "bias", "T_relu"};
  QTest::newRow("dense_dynamic") << "dense_dynamic.te" << QStringList{"T_matmul_NT"}
                                 << QStringList{"data", "weight", "T_matmul_NT"};
  // Recurrences (te.scan): the init and update blocks write the scan's buffer; the
  // state placeholder is no parameter.
  QTest::newRow("stencil1d") << "stencil1d.te" << QStringList{"heat_init", "heat_update"} << QStringList{"X0", "heat"};
  QTest::newRow("stencil2d") << "stencil2d.te" << QStringList{"jacobi_init", "jacobi_update"} << QStringList{"A", "jacobi"};
  QTest::newRow("prefix_sum") << "prefix_sum.te" << QStringList{"psum_init", "psum_update"} << QStringList{"x", "psum"};
  QTest::newRow("matvec_chain") << "matvec_chain.te" << QStringList{"Bx", "y"} << QStringList{"A", "B", "x", "y"};
}

void TstTeParse::samples() {
  QFETCH(QString, file);
  QFETCH(QStringList, blocks);
  QFETCH(QStringList, params);
  QFile f(QStringLiteral(LS_SOURCE_DIR "/samples/") + file);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const std::string source = f.readAll().toStdString();
  QVERIFY2(source.rfind("# ", 0) == 0, "a sample starts with a comment saying what it is");
  QVERIFY2(source.find("# try:") != std::string::npos, "a sample says what to try");
  auto r = parseTe(source, file.toStdString());
  if (!r) QFAIL(renderDiagnostic(r.error(), source).c_str());
  QStringList gotBlocks;
  for (const auto* b : blocksOf(*r))
    if (b->name != "root") gotBlocks << QString::fromStdString(b->name);
  QCOMPARE(gotBlocks, blocks);
  QStringList gotParams;
  for (const auto& p : r->params) gotParams << QString::fromStdString(p->name);
  QCOMPARE(gotParams, params);
  // Every sample file in the folder is covered by this table.
  const QStringList all = QDir(QStringLiteral(LS_SOURCE_DIR "/samples")).entryList({QStringLiteral("*.te")}, QDir::Files);
  QCOMPARE(all.size(), 12);
}

void TstTeParse::outputsAndIntermediates() {
  // Without `outputs`, computes consumed by another compute become alloc_buffers.
  const std::string base = "A = placeholder((4,), name=\"A\")\n"
                           "B = compute((4,), lambda i: A[i] + 1.0, name=\"B\")\n"
                           "C = compute((4,), lambda i: B[i] * 2.0, name=\"C\")\n"
                           "D = compute((4,), lambda i: B[i] - 1.0, name=\"D\")\n";
  auto f = mustParse(base);
  QCOMPARE(f.params.size(), std::size_t{3});
  QCOMPARE(QString::fromStdString(f.params[1]->name), QStringLiteral("C"));
  QCOMPARE(QString::fromStdString(f.params[2]->name), QStringLiteral("D"));
  QCOMPARE(f.rootBlock().allocBuffers.size(), std::size_t{1});
  QCOMPARE(QString::fromStdString(f.rootBlock().allocBuffers[0]->name), QStringLiteral("B"));
  // `outputs` overrides: B becomes an output, C an intermediate; order as listed.
  auto g = mustParse(base + "outputs = [D, B]\n");
  QStringList params;
  for (const auto& p : g.params) params << QString::fromStdString(p->name);
  QCOMPARE(params, (QStringList{"A", "D", "B"}));
  QCOMPARE(g.rootBlock().allocBuffers.size(), std::size_t{1});
  QCOMPARE(QString::fromStdString(g.rootBlock().allocBuffers[0]->name), QStringLiteral("C"));
  // Blocks stay in definition order.
  QStringList blocks;
  for (const auto* b : blocksOf(g)) blocks << QString::fromStdString(b->name);
  QCOMPARE(blocks, (QStringList{"root", "B", "C", "D"}));
}

void TstTeParse::dynamicShape() {
  auto f = mustParse("n = te.size_var(\"n\")\nm = n // 2 + 1\n"
                     "A = placeholder((n, m), name=\"A\")\n"
                     "B = compute((n, m), lambda i, j: A[i, j] * 2.0, name=\"B\")\n");
  auto vars = f.sizeVars();
  QCOMPARE(vars.size(), std::size_t{1});
  QCOMPARE(QString::fromStdString(vars[0].as<ir::Var>()->name), QStringLiteral("n"));
  QCOMPARE(QString::fromStdString(ir::printExpr(f.params[0]->shape[1])), QStringLiteral("n // 2 + 1"));
  const auto* loop = f.rootBlock().body.as<ir::For>();
  QVERIFY(loop);
  QVERIFY(loop->extent.sameAs(f.params[0]->shape[0]));
  QCOMPARE(QString::fromStdString(ir::printExpr(loop->body.as<ir::For>()->extent)), QStringLiteral("n // 2 + 1"));
}

void TstTeParse::conv2dRegions() {
  QFile file(QStringLiteral(LS_SOURCE_DIR "/samples/conv2d_nchw.te"));
  QVERIFY(file.open(QIODevice::ReadOnly));
  auto f = mustParse(file.readAll().toStdString());
  auto blocks = blocksOf(f);
  QCOMPARE(blocks.size(), std::size_t{3});
  const ir::Block& pad = *blocks[1];
  QCOMPARE(regionText(pad.reads[0]), QStringLiteral("data[v_i0+1, v_i1+1, v_i2 - 1+1, v_i3 - 1+1]"));
  const ir::Block& conv = *blocks[2];
  QString kinds;
  for (const auto& iv : conv.iterVars) kinds += iv.kind == ir::IterKind::Spatial ? QLatin1Char('S') : QLatin1Char('R');
  QCOMPARE(kinds, QStringLiteral("SSSSRRR"));
  QCOMPARE(regionText(conv.reads[0]), QStringLiteral("pad_temp[v_nn+1, v_rc+1, v_yy + v_ry+1, v_xx + v_rx+1]"));
  QCOMPARE(regionText(conv.reads[1]), QStringLiteral("weight[v_ff+1, v_rc+1, v_ry+1, v_rx+1]"));
  QCOMPARE(f.rootBlock().allocBuffers.size(), std::size_t{1});
  QCOMPARE(ir::asConstInt(f.rootBlock().allocBuffers[0]->shape[2]).value(), 58);
}

QTEST_GUILESS_MAIN(TstTeParse)
#include "tst_te_parse.moc"
