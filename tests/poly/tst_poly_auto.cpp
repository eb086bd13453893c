// poly_auto: the isl scheduler on every sample (small copies), with every fusion setting,
// with tiling, and fusion max also on the exact (not simplified) dependences; the
// regenerated program must compute what the original computes (exact for integer
// programs, rtol 1e-5 for floats whose reductions may be reordered), and must be legal
// against the original dependences. A step on a cached analysis of its program gives what
// polyAuto computes from scratch. Bad options and an exhausted operation bound are refused
// with their codes.
#include "poly_codegen_test_util.h"

#include "core/ir/printer.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/legality.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_python.h"

#include <QtTest>

using namespace loopscape;
using namespace loopscape::polytest;

class TstPolyAuto : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { poly::registerPolyInstructionKinds(); }
  void samples_data();
  void samples();
  void goldens_data();
  void goldens();
  void instructionAndTrace();
  void stepUsesCachedAnalysis();
  void badOption();
  void quota();
};

const auto& kSamples = kSmallSamples;

void TstPolyAuto::samples_data() {
  QTest::addColumn<int>("index");
  QTest::addColumn<QString>("fusion");
  QTest::addColumn<bool>("tile");
  QTest::addColumn<bool>("simplify");
  for (int i = 0; i < int(std::size(kSamples)); ++i)
    for (const char* fusion : {"max", "smart", "min"})
      for (bool tile : {false, true})
        for (bool simplify : {true, false}) {
          // smart and min compute the same trees on exact and simplified dependences
          if (!simplify && std::string(fusion) != "max") continue;
          QTest::newRow(qPrintable(
              QString("%1/%2%3%4").arg(kSamples[i].file, fusion, tile ? "/tile" : "", simplify ? "" : "/exact")))
              << i << fusion << tile << simplify;
        }
}

void TstPolyAuto::samples() {
  QFETCH(int, index);
  QFETCH(QString, fusion);
  QFETCH(bool, tile);
  QFETCH(bool, simplify);
  const Small& s = kSamples[index];
  ir::PrimFunc f = parseTe(smallSample(s.file, s.from, s.to));
  if (s.from2) {
    std::string text = smallSample(s.file, s.from, s.to);
    text.replace(text.find(s.from2), std::string(s.from2).size(), s.to2);
    f = parseTe(text);
  }
  poly::PolyAutoOptions o;
  o.fusion = fusion.toStdString();
  o.simplifyDependences = simplify;
  if (tile) o.tile = {2, 2};
  auto g = poly::polyAuto(f, o);
  QVERIFY2(g.has_value(), g ? "" : renderDiagnostic(g.error()).c_str());
  const std::string diff = compareRuns(f, *g, s.integer ? 0.0 : 1e-5);
  QVERIFY2(diff.empty(), (diff + "\n" + ir::printPrimFunc(*g)).c_str());
  auto legal = poly::checkLegality(f, *g);
  QVERIFY2(legal.has_value(), legal ? "" : renderDiagnostic(legal.error()).c_str());
  QVERIFY2(legal->legal, legal->legal ? "" : poly::counterexampleMessage(*legal->counterexample).c_str());
}

void TstPolyAuto::goldens_data() {
  QTest::addColumn<int>("index");
  QTest::addColumn<QString>("fusion");
  QTest::addColumn<bool>("tile");
  QTest::addColumn<bool>("simplify");
  QTest::addColumn<QString>("golden");
  auto find = [](const char* file) {
    for (int i = 0; i < int(std::size(kSamples)); ++i)
      if (std::string(kSamples[i].file) == file) return i;
    return -1;
  };
  // Fusion max on the exact dependences (PPCG's input) puts the whole chain in one nest
  // (pad_temp computed inside the conv's window, at ry == 1, the conv shifted by 2), one
  // copy of each block; on the simplified ones (Polly's), ff comes inside the rc, yy + ry,
  // xx + rx nest, where it is parallel.
  const int conv = find("conv_bias_relu.te");
  QTest::newRow("conv_bias_relu max") << conv << "max" << false << true << "auto_conv_bias_relu_max";
  QTest::newRow("conv_bias_relu max exact") << conv << "max" << false << false << "auto_conv_bias_relu_max_exact";
  QTest::newRow("conv_bias_relu min") << conv << "min" << false << true << "auto_conv_bias_relu_min";
  QTest::newRow("conv_bias_relu min exact") << conv << "min" << false << false << "auto_conv_bias_relu_min";
  // matvec_chain: on the exact dependences, fusion max skews y by 5 after Bx into one
  // nest; on the simplified ones it fuses them without a skew: Bx[j] is computed, then
  // y accumulates column j of A times it.
  QTest::newRow("matvec_chain max") << find("matvec_chain.te") << "max" << false << true << "auto_matvec_chain_max";
  QTest::newRow("matvec_chain max exact")
      << find("matvec_chain.te") << "max" << false << false << "auto_matvec_chain_max_exact";
  QTest::newRow("stencil1d max tile") << find("stencil1d.te") << "max" << true << true << "auto_stencil1d_max_tile";
}

void TstPolyAuto::goldens() {
  QFETCH(int, index);
  QFETCH(QString, fusion);
  QFETCH(bool, tile);
  QFETCH(bool, simplify);
  QFETCH(QString, golden);
  const Small& s = kSamples[index];
  ir::PrimFunc f = parseTe(smallSample(s.file, s.from, s.to));
  poly::PolyAutoOptions o;
  o.fusion = fusion.toStdString();
  o.simplifyDependences = simplify;
  if (tile) o.tile = {2, 2};
  auto g = poly::polyAuto(f, o);
  QVERIFY2(g.has_value(), g ? "" : renderDiagnostic(g.error()).c_str());
  const QString msg = checkPolyGolden(golden, ir::printPrimFunc(*g));
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
}

void TstPolyAuto::instructionAndTrace() {
  ir::PrimFunc f = parseTe(smallSample("matvec_chain.te", "N = 512", "N = 6"));
  schedule::Schedule sch = poly::makeSchedule(f);
  auto r = sch.apply("poly_auto", {}, {"min", false, true, "isl", schedule::TraceList{}});
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  QCOMPARE(sch.trace().instructions.size(), std::size_t(1));
  QCOMPARE(
      QString::fromStdString(schedule::traceToPython(sch.trace())),
      QString("# from tvm import tir\n"
              "sch.poly_auto(fusion=\"min\", outer_coincidence=False, maximize_band_depth=True, algorithm=\"isl\", "
              "tile=[], simplify_deps=True, target=\"cpu\")\n"));
  auto replay = schedule::replayTrace(f, sch.trace());
  QVERIFY(replay.has_value());
  QCOMPARE(ir::printPrimFunc(replay->func()), ir::printPrimFunc(sch.func()));
}

void TstPolyAuto::stepUsesCachedAnalysis() {
  // A poly step takes the Scop and dependences of its program from the thread's cached
  // analysis (program_analysis.h); the result is the program polyAuto computes from
  // scratch, whether the original was analysed before the step (by a legality check) or
  // not, and so is a second step on the result.
  ir::PrimFunc f = parseTe(smallSample("conv_bias_relu.te", "N, C, H, W = 1, 16, 32, 32", "N, C, H, W = 1, 2, 4, 4"));
  for (const char* fusion : {"max", "min"}) {
    poly::PolyAutoOptions o;
    o.fusion = fusion;
    auto fresh = poly::polyAuto(f, o);
    QVERIFY2(fresh.has_value(), fresh ? "" : renderDiagnostic(fresh.error()).c_str());
    for (bool cachedBefore : {false, true}) {
      poly::clearLegalityCache();
      if (cachedBefore) QVERIFY(poly::checkLegality(f, f).has_value());
      schedule::Schedule sch = poly::makeSchedule(f);
      auto r = sch.apply("poly_auto", {}, {std::string(fusion), false, true, "isl", schedule::TraceList{}});
      QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
      QCOMPARE(ir::printPrimFunc(sch.func()), ir::printPrimFunc(*fresh));
      auto again = sch.apply("poly_auto", {}, {std::string(fusion), false, true, "isl", schedule::TraceList{}});
      QVERIFY2(again.has_value(), again ? "" : renderDiagnostic(again.error()).c_str());
      auto expected = poly::polyAuto(*fresh, o);
      QVERIFY(expected.has_value());
      QCOMPARE(ir::printPrimFunc(sch.func()), ir::printPrimFunc(*expected));
    }
  }
}

void TstPolyAuto::badOption() {
  ir::PrimFunc f = parseTe(smallSample("matmul.te", "M, N, K = 1024, 1024, 1024", "M, N, K = 8, 6, 5"));
  schedule::Schedule sch = poly::makeSchedule(f);
  auto r = sch.apply("poly_auto", {}, {"medium", false, true, "isl", schedule::TraceList{}});
  QVERIFY(!r.has_value());
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.poly_auto.bad-option"));
  QVERIFY(sch.func().body.sameAs(f.body));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(0));
}

void TstPolyAuto::quota() {
  ir::PrimFunc f = parseTe(smallSample("conv_bias_relu.te", "N, C, H, W = 1, 16, 32, 32", "N, C, H, W = 1, 2, 5, 5"));
  poly::PolyAutoOptions o;
  o.maxOperations = 100;
  auto g = poly::polyAuto(f, o);
  QVERIFY(!g.has_value());
  QCOMPARE(QString::fromStdString(g.error().code), QString("poly.quota"));
}

QTEST_GUILESS_MAIN(TstPolyAuto)
#include "tst_poly_auto.moc"
