// Code generation from an isl schedule back to TensorIR: the identity schedule of a
// program regenerates a program that prints as expected (golden files) and computes the
// same results in the interpreter.
#include "poly_codegen_test_util.h"

#include "core/ir/printer.h"
#include "core/poly/poly_schedule.h"

#include <QtTest>

using namespace loopscape;
using namespace loopscape::polytest;

class TstAstToTir : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void identity_data();
  void identity();
  void matmulKeepsInit();
};

void TstAstToTir::identity_data() {
  QTest::addColumn<QString>("sample");
  QTest::addColumn<QString>("from");
  QTest::addColumn<QString>("to");
  QTest::addColumn<QString>("golden");
  QTest::newRow("matmul") << "matmul.te" << "M, N, K = 1024, 1024, 1024" << "M, N, K = 8, 6, 5" << "identity_matmul";
  QTest::newRow("conv2d") << "conv2d_nchw.te" << "batch, in_channel, height, width = 1, 64, 56, 56"
                          << "batch, in_channel, height, width = 1, 2, 5, 5" << "identity_conv2d";
  QTest::newRow("softmax") << "softmax.te" << "m, n = 128, 1024" << "m, n = 4, 6" << "";
  QTest::newRow("stencil1d") << "stencil1d.te" << "T, N = 64, 1024" << "T, N = 4, 9" << "";
  QTest::newRow("prefix_sum") << "prefix_sum.te" << "N = 1024" << "N = 10" << "";
}

void TstAstToTir::identity() {
  QFETCH(QString, sample);
  QFETCH(QString, from);
  QFETCH(QString, to);
  QFETCH(QString, golden);
  ir::PrimFunc f = parseTe(smallSample(sample.toStdString(), from.toStdString(), to.toStdString()));
  auto g = poly::regenerateIdentity(f);
  QVERIFY2(g.has_value(), g ? "" : renderDiagnostic(g.error()).c_str());
  const std::string diff = compareRuns(f, *g);
  QVERIFY2(diff.empty(), diff.c_str());
  if (!golden.isEmpty()) {
    const QString msg = checkPolyGolden(golden, ir::printPrimFunc(*g));
    QVERIFY2(msg.isEmpty(), qPrintable(msg));
  }
}

void TstAstToTir::matmulKeepsInit() {
  // The identity schedule keeps the init right before the reduce loop: one block with T.init.
  ir::PrimFunc f = parseTe(smallSample("matmul.te", "M, N, K = 1024, 1024, 1024", "M, N, K = 8, 6, 5"));
  auto g = poly::regenerateIdentity(f);
  QVERIFY(g.has_value());
  const std::string text = ir::printPrimFunc(*g);
  QVERIFY2(text.find("with T.init():") != std::string::npos, text.c_str());
  QVERIFY2(text.find("C_init") == std::string::npos, text.c_str());
}

QTEST_GUILESS_MAIN(TstAstToTir)
#include "tst_ast_to_tir.moc"
