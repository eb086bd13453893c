// The analyses of a program state (report.h, tree_description.h, legality.h): the
// isl-free ones are computed once per state and shared by every thread; the isl form
// (program_analysis.h) is each thread's own. Another thread working on the same state
// must get exactly what the first one got: the dependence report (the same object), the
// schedule tree, the legality verdicts and the programs poly_auto makes.
#include "poly_codegen_test_util.h"

#include "core/ir/printer.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/legality.h"
#include "core/poly/poly_schedule.h"
#include "core/poly/report.h"
#include "core/poly/tree_description.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

#include <thread>

using namespace loopscape;
using loopscape::polytest::parseTe;
using loopscape::polytest::smallSample;

namespace {

/// Runs `f` on a new thread (a fresh isl context and empty per-thread caches).
template <class F> auto onNewThread(F&& f) {
  decltype(f()) result{};
  std::thread([&] { result = f(); }).join();
  return result;
}

std::string treeText(const schedule::ProgramState& state) {
  auto t = poly::describeScheduleTree(state);
  return t ? poly::renderTree(**t) : "error: " + t.error().message;
}

std::string autoText(const schedule::StatePtr& state, const std::string& fusion) {
  schedule::Schedule sch = poly::makeSchedule(state);
  auto r = sch.apply("poly_auto", {}, {fusion, false, true, "isl", schedule::TraceList{2, 2}});
  return r ? ir::printPrimFunc(sch.func()) : "error: " + r.error().message;
}

} // namespace

class TestStateAnalysis : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void rereadEqualsComputed_data() {
    QTest::addColumn<QString>("source");
    QTest::newRow("matmul") << QString::fromStdString(
        smallSample("matmul.te", "M, N, K = 1024, 1024, 1024", "M, N, K = 8, 6, 5"));
    QTest::newRow("conv_bias_relu") << QString::fromStdString(
        smallSample("conv_bias_relu.te", "N, C, H, W = 1, 16, 32, 32", "N, C, H, W = 1, 2, 4, 4"));
    QTest::newRow("matvec_chain") << QString::fromStdString(smallSample("matvec_chain.te", "N = 512", "N = 6"));
    QTest::newRow("stencil1d") << QString::fromStdString(smallSample("stencil1d.te", "T, N = 64, 1024", "T, N = 3, 8"));
  }
  void rereadEqualsComputed() {
    QFETCH(QString, source);
    const schedule::StatePtr state = schedule::ProgramState::make(parseTe(source.toStdString()));
    // This thread computes the analyses; a new thread shares the isl-free ones and
    // computes its own isl form.
    auto report = poly::analyzeDependences(*state);
    QVERIFY2(report.has_value(), report ? "" : report.error().message.c_str());
    const std::string here = poly::renderDependenceReport(**report);
    const std::string tree = treeText(*state);
    const std::string scheduled = autoText(state, "max");
    QVERIFY(!scheduled.starts_with("error"));

    QCOMPARE(onNewThread([&] {
               auto r = poly::analyzeDependences(*state);
               return r ? r->get() : nullptr;
             }),
             report->get()); // the report itself is shared, not recomputed
    // Poly steps and the tree description on the new thread analyse the state there.
    QCOMPARE(onNewThread([&] { return autoText(state, "max"); }), scheduled);
    QCOMPARE(onNewThread([&] { return treeText(*schedule::ProgramState::make(state->func())); }), tree);
    QCOMPARE(onNewThread([&] { return poly::renderDependenceReport(*poly::analyzeDependences(state->func())); }), here);
  }

  void legalityVerdictsAgreeAcrossThreads() {
    const auto f = parseTe(smallSample("stencil1d.te", "T, N = 64, 1024", "T, N = 3, 8"));
    const schedule::StatePtr original = schedule::ProgramState::make(f);
    schedule::Schedule sch = poly::makeSchedule(original, schedule::LegalityPolicy::Unverified);
    QVERIFY(
        schedule::applyScript(sch, "t, i = sch.get_loops(sch.get_block(\"heat_update\"))\nsch.reorder(i, t)\n", "t.py")
            .has_value());
    auto verdict = [&] {
      auto r = poly::checkLegality(*original, *sch.state());
      return r ? (r->legal ? std::string("legal") : poly::counterexampleMessage(*r->counterexample))
               : r.error().message;
    };
    const std::string here = verdict();
    QVERIFY(here.starts_with("the RAW dependence from heat_update("));
    QCOMPARE(onNewThread(verdict), here);
    QCOMPARE(here, poly::counterexampleMessage(*poly::checkLegalityUncached(f, sch.func())->counterexample));
  }

  void policyOfTheFactory() {
    const auto f = parseTe(smallSample("stencil1d.te", "T, N = 64, 1024", "T, N = 3, 8"));
    const char* step = "t, i = sch.get_loops(sch.get_block(\"heat_update\"))\nsch.reorder(i, t)\n";
    schedule::Schedule checked = poly::makeSchedule(f);
    QCOMPARE(checked.legalityPolicy(), schedule::LegalityPolicy::Exact);
    auto refused = schedule::applyScript(checked, step, "t.py");
    QVERIFY(!refused.has_value());
    QCOMPARE(refused.error().code, std::string("schedule.reorder.illegal"));
    QCOMPARE(refused.error().subject, DiagnosticSubject::Program);
    // The counterexample stays structured in the diagnostic.
    QVERIFY(refused.error().counterexample);
    QCOMPARE(refused.error().counterexample->kind, std::string("RAW"));
    QCOMPARE(refused.error().counterexample->source.statement, std::string("heat_update"));
    QCOMPARE(refused.error().references.size(), std::size_t(2));

    schedule::Schedule unchecked = poly::makeSchedule(f, schedule::LegalityPolicy::Unverified);
    QCOMPARE(unchecked.legalityPolicy(), schedule::LegalityPolicy::Unverified);
    QVERIFY(schedule::applyScript(unchecked, step, "t.py").has_value());
    QCOMPARE(std::string(poly::legalityPolicyName(unchecked.legalityPolicy())),
             std::string("legality not verified (--no-verify-legality)"));

    // A program the analysis cannot decide (a loop bound `n * m`): the step is accepted
    // with a note that says why.
    const auto nonAffine = parseTe("n = var(\"n\")\nm = var(\"m\")\nA = placeholder((n * m,), name=\"A\")\n"
                                   "B = compute((n * m,), lambda i: A[i] + 1.0, name=\"B\")\n");
    schedule::Schedule undecided = poly::makeSchedule(nonAffine);
    auto split =
        schedule::applyScript(undecided, "i, = sch.get_loops(sch.get_block(\"B\"))\nsch.split(i, [None, 4])\n", "t.py");
    QVERIFY2(split.has_value(), split ? "" : split.error().message.c_str());
    QCOMPARE(undecided.notes().size(), std::size_t(1));
    QCOMPARE(undecided.notes()[0].instruction, std::size_t(2));
    QCOMPARE(undecided.notes()[0].note.code, std::string("legality.undecided"));
    QCOMPARE(undecided.notes()[0].note.message,
             std::string("split was not checked against the dependences: block 'B': the bound of loop 'i', `n * m` is "
                         "not quasi-affine; the polyhedral model cannot represent it"));
  }

  void stopCancelsAPolyStep() {
    const auto f = parseTe(smallSample("conv_bias_relu.te", "N, C, H, W = 1, 16, 32, 32", "N, C, H, W = 1, 2, 4, 4"));
    schedule::Schedule sch = poly::makeSchedule(f);
    std::stop_source stop;
    stop.request_stop();
    sch.setStopToken(stop.get_token());
    auto r = sch.apply("poly_auto", {}, {"max", false, true, "isl", schedule::TraceList{2, 2}});
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("cancelled"));
    QCOMPARE(r.error().message, std::string("poly_auto was cancelled; the program is unchanged"));
    QVERIFY(sch.func().body.sameAs(f.body));
    QCOMPARE(sch.trace().instructions.size(), std::size_t(0));
    // The isl context is usable again afterwards: the same step without the stop succeeds.
    sch.setStopToken({});
    auto again = sch.apply("poly_auto", {}, {"max", false, true, "isl", schedule::TraceList{2, 2}});
    QVERIFY2(again.has_value(), again ? "" : again.error().message.c_str());
  }
};

QTEST_GUILESS_MAIN(TestStateAnalysis)
#include "tst_state_analysis.moc"
