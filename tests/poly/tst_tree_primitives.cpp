// The poly schedule-tree primitives through Schedule::apply: each one regenerates a
// program that computes what the original computes, and each one has a refused case
// (code, message, program and trace unchanged). On the 1-D stencil over time, the skewed
// wavefront is legal and its inner loop carries no dependence, while the interchange of
// the time loop is refused with the counterexample.
#include "poly_codegen_test_util.h"
#include "poly_test_helpers.h"

#include "core/ir/printer.h"
#include "core/poly/dependences.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"

#include <QtTest>

using namespace loopscape;
using namespace loopscape::polytest;
using schedule::TraceList;
using schedule::TraceValue;

namespace {
const char* const kMatmul = "A = placeholder((8, 5), \"float32\", name=\"A\")\n"
                            "B = placeholder((5, 6), \"float32\", name=\"B\")\n"
                            "k = reduce_axis((0, 5), name=\"k\")\n"
                            "C = compute((8, 6), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";
const char* const kTwoStage = "A = placeholder((8, 8), \"float32\", name=\"A\")\n"
                              "B = compute((8, 8), lambda i, j: A[i, j] * 2.0, name=\"B\")\n"
                              "C = compute((8, 8), lambda i, j: B[i, j] + 1.0, name=\"C\")\n";
const char* const kBlur = "A = placeholder((10,), \"float32\", name=\"A\")\n"
                          "B = compute((9,), lambda i: A[i] + A[i + 1], name=\"B\")\n"
                          "C = compute((8,), lambda i: B[i] + B[i + 1], name=\"C\")\n";
} // namespace

class TstTreePrimitives : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { poly::registerPolyInstructionKinds(); }
  void applied_data();
  void applied();
  void refused_data();
  void refused();
  void skewedWavefront();
  void illegalInterchange();
};

void TstTreePrimitives::applied_data() {
  QTest::addColumn<QString>("program");
  QTest::addColumn<QString>("kind");
  QTest::addColumn<QVariantList>("args");
  QTest::addColumn<QString>("expect"); // a piece of the printed result
  auto L = [](std::initializer_list<QVariant> l) { return QVariantList(l); };
  QTest::newRow("tile") << kMatmul << "poly_tile" << L({"i", QVariantList{4, 4}}) << "for i_1";
  QTest::newRow("interchange") << kMatmul << "poly_interchange" << L({"i", QVariantList{1, 0}}) << "for j in range(6):\n      for i in range(8)";
  QTest::newRow("split_band") << kMatmul << "poly_split_band" << L({"i", 1}) << "for i in range(8)";
  QTest::newRow("mark") << kMatmul << "poly_mark" << L({"i", 1, "parallel"}) << "for j in T.parallel(6)";
  QTest::newRow("shift") << kTwoStage << "poly_shift" << L({"C", "i@C", 1}) << "for i in range(1, 9)";
  QTest::newRow("fuse") << kTwoStage << "poly_fuse" << L({"i@B", "i@C"}) << "";
  QTest::newRow("skew") << kMatmul << "poly_skew" << L({"i", 1, 0, 1}) << "";
}

namespace {
std::vector<TraceValue> toTrace(const QVariantList& args) {
  std::vector<TraceValue> out;
  for (const auto& a : args) {
    if (a.typeId() == QMetaType::QString)
      out.push_back(a.toString().toStdString());
    else if (a.typeId() == QMetaType::QVariantList) {
      TraceList l;
      for (const auto& x : a.toList()) l.push_back(std::int64_t(x.toLongLong()));
      out.push_back(l);
    } else
      out.push_back(std::int64_t(a.toLongLong()));
  }
  return out;
}
} // namespace

void TstTreePrimitives::applied() {
  QFETCH(QString, program);
  QFETCH(QString, kind);
  QFETCH(QVariantList, args);
  QFETCH(QString, expect);
  ir::PrimFunc f = parseTe(program.toStdString());
  schedule::Schedule sch(f);
  std::vector<TraceValue> inputs, attrs = toTrace(args);
  if (kind == "poly_fuse") std::swap(inputs, attrs);
  auto r = sch.apply(kind.toStdString(), inputs, attrs);
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  const std::string text = ir::printPrimFunc(sch.func());
  QVERIFY2(text.find(expect.toStdString()) != std::string::npos, text.c_str());
  const std::string diff = compareRuns(f, sch.func(), 1e-5);
  QVERIFY2(diff.empty(), (diff + "\n" + text).c_str());
  QCOMPARE(sch.trace().instructions.size(), std::size_t(1));
}

void TstTreePrimitives::refused_data() {
  QTest::addColumn<QString>("program");
  QTest::addColumn<QString>("kind");
  QTest::addColumn<QVariantList>("args");
  QTest::addColumn<QString>("code");
  auto L = [](std::initializer_list<QVariant> l) { return QVariantList(l); };
  QTest::newRow("tile size") << kMatmul << "poly_tile" << L({"i", QVariantList{0, 4}}) << "schedule.poly_tile.bad-size";
  QTest::newRow("tile band") << kMatmul << "poly_tile" << L({"q", QVariantList{4}}) << "schedule.poly_tile.no-band";
  QTest::newRow("tile depth") << kMatmul << "poly_tile" << L({"k", QVariantList{2, 2}})
                              << "schedule.poly_tile.not-perfectly-nested";
  QTest::newRow("interchange perm") << kMatmul << "poly_interchange" << L({"i", QVariantList{0, 0}})
                                    << "schedule.poly_interchange.bad-permutation";
  QTest::newRow("skew factor") << kMatmul << "poly_skew" << L({"i", 1, 0, 0}) << "schedule.poly_skew.bad-factor";
  QTest::newRow("shift statement") << kTwoStage << "poly_shift" << L({"Z", "i", 1}) << "schedule.poly_shift.no-statement";
  QTest::newRow("shift illegal") << kBlur << "poly_fuse" << L({"i@B", "i@C"}) << "schedule.poly_fuse.illegal";
  QTest::newRow("split pos") << kMatmul << "poly_split_band" << L({"i", 3}) << "schedule.poly_split_band.not-perfectly-nested";
  QTest::newRow("fuse few") << kTwoStage << "poly_fuse" << L({"i"}) << "schedule.poly_fuse.too-few";
  QTest::newRow("distribute") << kMatmul << "poly_distribute" << L({"i"}) << "schedule.poly_distribute.not-over-sequence";
  QTest::newRow("mark kind") << kMatmul << "poly_mark" << L({"i", 0, "gpu"}) << "schedule.poly_mark.bad-kind";
  QTest::newRow("mark illegal") << kMatmul << "poly_mark" << L({"i", 2, "parallel"}) << "schedule.poly_mark.illegal";
  QTest::newRow("compute_at_tile") << kTwoStage << "poly_compute_at_tile" << L({"Z", "i"})
                                   << "schedule.poly_compute_at_tile.no-statement";
}

void TstTreePrimitives::refused() {
  QFETCH(QString, program);
  QFETCH(QString, kind);
  QFETCH(QVariantList, args);
  QFETCH(QString, code);
  ir::PrimFunc f = parseTe(program.toStdString());
  schedule::Schedule sch(f);
  std::vector<TraceValue> inputs, attrs = toTrace(args);
  if (kind == "poly_fuse") std::swap(inputs, attrs);
  auto r = sch.apply(kind.toStdString(), inputs, attrs);
  QVERIFY(!r.has_value());
  QCOMPARE(QString::fromStdString(r.error().code), code);
  QVERIFY(!r.error().message.empty());
  QVERIFY(sch.func().body.sameAs(f.body));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(0));
}

void TstTreePrimitives::skewedWavefront() {
  ir::PrimFunc f = stencil1d(5, 10);
  schedule::Schedule sch(f);
  auto scop0 = poly::extractScop(f);
  QVERIFY(scop0.has_value());
  const std::string outer = scop0->loops[0].name, inner = scop0->loops[1].name;
  auto r = sch.apply("poly_skew", {}, {outer, 1, 0, 1});
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  QVERIFY(compareRuns(f, sch.func()).empty());
  // The inner loop of the skewed program carries no dependence.
  auto scop = poly::extractScop(sch.func());
  QVERIFY(scop.has_value());
  auto deps = poly::computeDependences(*scop);
  QVERIFY(deps.has_value());
  auto loops = poly::loopDependences(*scop, *deps);
  QVERIFY(loops.has_value());
  QCOMPARE(scop->loops.size(), std::size_t(2));
  QVERIFY(!(*loops)[0].parallel);
  QVERIFY((*loops)[1].parallel);
  // ... so marking it parallel is accepted.
  auto m = sch.apply("poly_mark", {}, {outer, 1, "parallel"});
  QVERIFY2(m.has_value(), m ? "" : renderDiagnostic(m.error()).c_str());
  QVERIFY(ir::printPrimFunc(sch.func()).find("T.parallel") != std::string::npos);
  Q_UNUSED(inner);
}

void TstTreePrimitives::illegalInterchange() {
  ir::PrimFunc f = stencil1d(5, 10);
  auto scop0 = poly::extractScop(f);
  QVERIFY(scop0.has_value());
  schedule::Schedule sch(f);
  auto r = sch.apply("poly_interchange", {}, {scop0->loops[0].name, TraceList{1, 0}});
  QVERIFY(!r.has_value());
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.poly_interchange.illegal"));
  const std::string msg = r.error().message;
  QVERIFY2(msg.find("poly_interchange is illegal") != std::string::npos, msg.c_str());
  QVERIFY2(msg.find("stencil(") != std::string::npos, msg.c_str());
  QVERIFY(sch.func().body.sameAs(f.body));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(0));
}

QTEST_GUILESS_MAIN(TstTreePrimitives)
#include "tst_tree_primitives.moc"
