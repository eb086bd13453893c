// The poly schedule-tree primitives through Schedule::apply. Each applied case prints as
// its golden file (tests/poly/golden/prim_<name>.py), computes what the original computes
// (interpreter, same seeded inputs) and records one trace step per primitive; the trace
// replays to the same program. Each refused case (one per documented precondition of
// every primitive) asserts the error code and the blocks/loops it references, and that
// the program and the trace are unchanged. On the 1-D stencil over time, the skewed
// wavefront is legal and its inner loop carries no dependence (so it can be marked
// parallel), while the interchange of the time loop is refused with the counterexample.
#include "poly_codegen_test_util.h"
#include "poly_test_helpers.h"

#include "core/ir/printer.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/dependences.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_python.h"

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

/// One step: the primitive, its inputs (poly_fuse's loops) and its attrs.
struct Step {
  std::string kind;
  std::vector<TraceValue> inputs, attrs;
};
using Steps = std::vector<Step>;

TraceList ints(std::initializer_list<std::int64_t> v) { return TraceList(v.begin(), v.end()); }

std::string refs(const Diagnostic& d) {
  std::string out;
  for (const auto& r : d.references)
    out += std::string(out.empty() ? "" : " ") +
           (r.kind == IrReference::Kind::Block ? "block:" : r.kind == IrReference::Kind::Loop ? "loop:" : "buffer:") + r.name;
  return out;
}
} // namespace

Q_DECLARE_METATYPE(Steps)

class TstTreePrimitives : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { poly::registerPolyInstructionKinds(); }
  void applied_data();
  void applied();
  void refused_data();
  void refused();
  void noSplitBand();
  void skewedWavefront();
  void illegalInterchange();
};

void TstTreePrimitives::applied_data() {
  QTest::addColumn<QString>("program");
  QTest::addColumn<Steps>("steps");
  QTest::addColumn<QString>("golden");
  QTest::newRow("tile") << kMatmul << Steps{{"poly_tile", {}, {"i", ints({4, 4})}}} << "prim_tile";
  QTest::newRow("interchange") << kMatmul << Steps{{"poly_interchange", {}, {"i", ints({1, 0})}}} << "prim_interchange";
  QTest::newRow("skew") << kMatmul << Steps{{"poly_skew", {}, {"i", std::int64_t(1), std::int64_t(0), std::int64_t(1)}}}
                        << "prim_skew";
  QTest::newRow("shift") << kTwoStage << Steps{{"poly_shift", {}, {"C", "i@C", std::int64_t(1)}}} << "prim_shift";
  QTest::newRow("fuse") << kTwoStage << Steps{{"poly_fuse", {"i@B", "i@C"}, {}}} << "prim_fuse";
  QTest::newRow("shift+fuse") << kBlur
                              << Steps{{"poly_shift", {}, {"C", "i@C", std::int64_t(1)}}, {"poly_fuse", {"i@B", "i@C"}, {}}}
                              << "prim_shift_fuse";
  QTest::newRow("fuse+distribute") << kTwoStage
                                   << Steps{{"poly_fuse", {"i@B", "i@C"}, {}}, {"poly_distribute", {}, {"i"}}}
                                   << "prim_fuse_distribute";
  QTest::newRow("mark parallel") << kMatmul << Steps{{"poly_mark", {}, {"i", std::int64_t(1), "parallel"}}}
                                 << "prim_mark_parallel";
  QTest::newRow("mark vectorize") << kTwoStage << Steps{{"poly_mark", {}, {"i@C", std::int64_t(1), "vectorize"}}}
                                  << "prim_mark_vectorize";
  QTest::newRow("mark unroll") << kMatmul << Steps{{"poly_mark", {}, {"i", std::int64_t(2), "unroll"}}}
                               << "prim_mark_unroll";
  QTest::newRow("tile+compute_at_tile")
      << kBlur << Steps{{"poly_tile", {}, {"i@C", ints({4})}}, {"poly_compute_at_tile", {}, {"B", "i_0"}}}
      << "prim_compute_at_tile";
}

void TstTreePrimitives::applied() {
  QFETCH(QString, program);
  QFETCH(Steps, steps);
  QFETCH(QString, golden);
  ir::PrimFunc f = parseTe(program.toStdString());
  schedule::Schedule sch = poly::makeSchedule(f);
  for (const auto& s : steps) {
    auto r = sch.apply(s.kind, s.inputs, s.attrs);
    QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  }
  const std::string text = ir::printPrimFunc(sch.func());
  const QString msg = checkPolyGolden(golden, text);
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
  const std::string diff = compareRuns(f, sch.func());
  QVERIFY2(diff.empty(), (diff + "\n" + text).c_str());
  QCOMPARE(sch.trace().instructions.size(), steps.size());
  auto replay = schedule::replayTrace(f, sch.trace());
  QVERIFY2(replay.has_value(), replay ? "" : renderDiagnostic(replay.error()).c_str());
  QCOMPARE(QString::fromStdString(ir::printPrimFunc(replay->func())), QString::fromStdString(text));
}

void TstTreePrimitives::refused_data() {
  QTest::addColumn<QString>("program");
  QTest::addColumn<Steps>("before"); // applied first (must succeed)
  QTest::addColumn<Steps>("steps");  // the refused step
  QTest::addColumn<QString>("code");
  QTest::addColumn<QString>("references");
  auto one = [](std::string kind, std::vector<TraceValue> inputs, std::vector<TraceValue> attrs) {
    return Steps{{std::move(kind), std::move(inputs), std::move(attrs)}};
  };
  const std::int64_t z = 0, o = 1, two = 2, three = 3;
  // poly_tile
  QTest::newRow("tile bad-size") << kMatmul << Steps{} << one("poly_tile", {}, {"i", ints({0, 4})})
                                 << "schedule.poly_tile.bad-size" << "loop:i";
  QTest::newRow("tile no-band") << kMatmul << Steps{} << one("poly_tile", {}, {"q", ints({4})})
                                << "schedule.poly_tile.no-band" << "loop:q";
  QTest::newRow("tile not-perfectly-nested") << kMatmul << Steps{} << one("poly_tile", {}, {"k", ints({2, 2})})
                                             << "schedule.poly_tile.not-perfectly-nested" << "loop:k";
  // poly_interchange
  QTest::newRow("interchange bad-permutation") << kMatmul << Steps{} << one("poly_interchange", {}, {"i", ints({0, 0})})
                                               << "schedule.poly_interchange.bad-permutation" << "loop:i";
  QTest::newRow("interchange no-band") << kMatmul << Steps{} << one("poly_interchange", {}, {"x", ints({1, 0})})
                                       << "schedule.poly_interchange.no-band" << "loop:x";
  QTest::newRow("interchange not-perfectly-nested")
      << kTwoStage << Steps{} << one("poly_interchange", {}, {"j@C", ints({1, 0})})
      << "schedule.poly_interchange.not-perfectly-nested" << "loop:j";
  // poly_interchange illegal: illegalInterchange (the stencil's time loop).
  // poly_skew
  QTest::newRow("skew bad-member") << kMatmul << Steps{} << one("poly_skew", {}, {"i", o, o, o})
                                   << "schedule.poly_skew.bad-member" << "loop:i";
  QTest::newRow("skew bad-factor") << kMatmul << Steps{} << one("poly_skew", {}, {"i", o, z, z})
                                   << "schedule.poly_skew.bad-factor" << "loop:i";
  QTest::newRow("skew no-band") << kMatmul << Steps{} << one("poly_skew", {}, {"q", o, z, o})
                                << "schedule.poly_skew.no-band" << "loop:q";
  QTest::newRow("skew not-perfectly-nested") << kMatmul << Steps{} << one("poly_skew", {}, {"j", two, z, o})
                                             << "schedule.poly_skew.not-perfectly-nested" << "loop:j";
  // poly_shift
  QTest::newRow("shift no-statement") << kTwoStage << Steps{} << one("poly_shift", {}, {"Z", "i", o})
                                      << "schedule.poly_shift.no-statement" << "block:Z";
  QTest::newRow("shift no-band") << kTwoStage << Steps{} << one("poly_shift", {}, {"C", "q", o})
                                 << "schedule.poly_shift.no-band" << "loop:q";
  QTest::newRow("shift not-in-band") << kTwoStage << Steps{} << one("poly_shift", {}, {"C", "i@B", o})
                                     << "schedule.poly_shift.not-in-band" << "block:C loop:i";
  QTest::newRow("shift illegal") << kTwoStage << Steps{{"poly_fuse", {"i@B", "i@C"}, {}}}
                                 << one("poly_shift", {}, {"B", "i", o}) << "schedule.poly_shift.illegal"
                                 << "block:B block:C";
  // poly_fuse
  QTest::newRow("fuse too-few") << kTwoStage << Steps{} << one("poly_fuse", {"i"}, {}) << "schedule.poly_fuse.too-few"
                                << "";
  QTest::newRow("fuse no-band") << kTwoStage << Steps{} << one("poly_fuse", {"i@B", "q"}, {})
                                << "schedule.poly_fuse.no-band" << "loop:q";
  QTest::newRow("fuse not-siblings") << kTwoStage << Steps{} << one("poly_fuse", {"i@B", "j@C"}, {})
                                     << "schedule.poly_fuse.not-siblings" << "loop:j";
  QTest::newRow("fuse illegal") << kBlur << Steps{} << one("poly_fuse", {"i@B", "i@C"}, {})
                                << "schedule.poly_fuse.illegal" << "block:B block:C";
  // poly_distribute
  QTest::newRow("distribute no-band") << kMatmul << Steps{} << one("poly_distribute", {}, {"q"})
                                      << "schedule.poly_distribute.no-band" << "loop:q";
  QTest::newRow("distribute not-over-sequence") << kMatmul << Steps{} << one("poly_distribute", {}, {"i"})
                                                << "schedule.poly_distribute.not-over-sequence" << "loop:i";
  // poly_mark
  QTest::newRow("mark bad-kind") << kMatmul << Steps{} << one("poly_mark", {}, {"i", z, "gpu"})
                                 << "schedule.poly_mark.bad-kind" << "loop:i";
  QTest::newRow("mark bad-member") << kMatmul << Steps{} << one("poly_mark", {}, {"i", std::int64_t(-1), "parallel"})
                                   << "schedule.poly_mark.bad-member" << "loop:i";
  QTest::newRow("mark not-perfectly-nested") << kMatmul << Steps{} << one("poly_mark", {}, {"i", three, "parallel"})
                                             << "schedule.poly_mark.not-perfectly-nested" << "loop:i";
  QTest::newRow("mark illegal") << kMatmul << Steps{} << one("poly_mark", {}, {"i", two, "parallel"})
                                << "schedule.poly_mark.illegal" << "block:C block:C";
  // poly_compute_at_tile
  QTest::newRow("compute_at_tile no-statement") << kTwoStage << Steps{} << one("poly_compute_at_tile", {}, {"Z", "i"})
                                                << "schedule.poly_compute_at_tile.no-statement" << "block:Z";
  QTest::newRow("compute_at_tile no-band") << kTwoStage << Steps{} << one("poly_compute_at_tile", {}, {"B", "q"})
                                           << "schedule.poly_compute_at_tile.no-band" << "loop:q";
  QTest::newRow("compute_at_tile not-needed") << kTwoStage << Steps{} << one("poly_compute_at_tile", {}, {"C", "i@B"})
                                              << "schedule.poly_compute_at_tile.not-needed" << "block:C loop:i";
  // poly_auto
  QTest::newRow("auto bad-option") << kMatmul << Steps{}
                                   << one("poly_auto", {}, {"medium", false, true, "isl", TraceList{}})
                                   << "schedule.poly_auto.bad-option" << "";
  QTest::newRow("auto bad-size") << kMatmul << Steps{} << one("poly_auto", {}, {"max", false, true, "isl", ints({0})})
                                 << "schedule.poly_auto.bad-size" << "";
}

void TstTreePrimitives::refused() {
  QFETCH(QString, program);
  QFETCH(Steps, before);
  QFETCH(Steps, steps);
  QFETCH(QString, code);
  QFETCH(QString, references);
  ir::PrimFunc f = parseTe(program.toStdString());
  schedule::Schedule sch = poly::makeSchedule(f);
  for (const auto& s : before) {
    auto r = sch.apply(s.kind, s.inputs, s.attrs);
    QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  }
  const ir::Stmt body = sch.func().body;
  const std::size_t traceLength = sch.trace().instructions.size();
  const auto& s = steps.front();
  auto r = sch.apply(s.kind, s.inputs, s.attrs);
  QVERIFY(!r.has_value());
  QCOMPARE(QString::fromStdString(r.error().code), code);
  QCOMPARE(QString::fromStdString(refs(r.error())), references);
  QVERIFY(!r.error().message.empty());
  QVERIFY(sch.func().body.sameAs(body));
  QCOMPARE(sch.trace().instructions.size(), traceLength);
}

void TstTreePrimitives::noSplitBand() {
  // A band split has no visible effect when every step re-extracts one band per loop
  // (poly_schedule.h), so the primitive is not offered.
  ir::PrimFunc f = parseTe(kMatmul);
  schedule::Schedule sch = poly::makeSchedule(f);
  auto r = sch.apply("poly_split_band", {}, {"i", std::int64_t(1)});
  QVERIFY(!r.has_value());
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.unknown-primitive"));
}

void TstTreePrimitives::skewedWavefront() {
  ir::PrimFunc f = stencil1d(5, 10);
  auto scop0 = poly::extractScop(f);
  QVERIFY(scop0.has_value());
  QCOMPARE(scop0->loops.size(), std::size_t(2));
  const std::string t = scop0->loops[0].name, i = scop0->loops[1].name;
  schedule::Schedule sch = poly::makeSchedule(f);
  // i := i + t: the dependences (1, -1), (1, 0), (1, 1) become (1, 0), (1, 1), (1, 2).
  auto r = sch.apply("poly_skew", {}, {t, std::int64_t(1), std::int64_t(0), std::int64_t(1)});
  QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
  QVERIFY(compareRuns(f, sch.func()).empty());
  auto scop = poly::extractScop(sch.func());
  QVERIFY(scop.has_value());
  auto deps = poly::computeDependences(*scop);
  QVERIFY(deps.has_value());
  auto loops = poly::loopDependences(*scop, *deps);
  QVERIFY(loops.has_value());
  QCOMPARE(scop->loops.size(), std::size_t(2));
  QVERIFY(!(*loops)[0].parallel);
  QVERIFY((*loops)[1].parallel);
  // The inner loop (i + t) carries nothing: every point of a time step runs in parallel,
  // so marking it parallel is accepted.
  auto m = sch.apply("poly_mark", {}, {t, std::int64_t(1), "parallel"});
  QVERIFY2(m.has_value(), m ? "" : renderDiagnostic(m.error()).c_str());
  const std::string text = ir::printPrimFunc(sch.func());
  const QString msg = checkPolyGolden("prim_stencil_wavefront", text);
  QVERIFY2(msg.isEmpty(), qPrintable(msg));
  QVERIFY(compareRuns(f, sch.func()).empty());
  QCOMPARE(QString::fromStdString(schedule::traceToPython(sch.trace())),
           QString::fromStdString("# from tvm import tir\n"
                                  "sch.poly_skew(band=\"" + t + "\", member=1, by_member=0, factor=1)\n"
                                  "sch.poly_mark(band=\"" + t + "\", member=1, kind=\"parallel\")\n"));
}

void TstTreePrimitives::illegalInterchange() {
  ir::PrimFunc f = stencil1d(5, 10);
  auto scop0 = poly::extractScop(f);
  QVERIFY(scop0.has_value());
  schedule::Schedule sch = poly::makeSchedule(f);
  auto r = sch.apply("poly_interchange", {}, {scop0->loops[0].name, ints({1, 0})});
  QVERIFY(!r.has_value());
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.poly_interchange.illegal"));
  QCOMPARE(QString::fromStdString(refs(r.error())), QString("block:stencil block:stencil"));
  // stencil(t=0, i=2) writes A[1, 2], which stencil(t=1, i=1) reads (its A[t, i + 1]);
  // with i outer, (i=1, t=1) runs before (i=2, t=0).
  QCOMPARE(QString::fromStdString(r.error().message),
           QString("poly_interchange is illegal: the RAW dependence from stencil(v_t=0, v_i=2) to stencil(v_t=1, v_i=1) "
                   "on A[1, 2] is violated: before, stencil(v_t=0, v_i=2) ran at (t=0, i=2) and stencil(v_t=1, v_i=1) "
                   "after it at (t=1, i=1); now stencil(v_t=1, v_i=1) runs at (i=1, t=1), before stencil(v_t=0, v_i=2) "
                   "at (i=2, t=0)"));
  QVERIFY(sch.func().body.sameAs(f.body));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(0));
}

QTEST_GUILESS_MAIN(TstTreePrimitives)
#include "tst_tree_primitives.moc"
