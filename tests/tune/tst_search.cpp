// The search (core/tune/search.h) with real measurement: a short search on a small matmul
// beats the unscheduled program and records every trial; a second search resumes from the
// records; a stop request ends a search; failed measurements are recorded as errors; a
// batch's new bests are checked fastest first, after the batch; the prior ranks the first
// batch.
#include "core/codegen/pipeline.h"
#include "core/frontend/te_frontend.h"
#include "core/ir/structural_equal.h"
#include "core/poly/checked_schedule.h"
#include "core/schedule/instruction.h"
#include "core/tune/prior_model.h"
#include "core/tune/search.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <set>

using namespace loopscape;

namespace {

ir::PrimFunc matmul(int n) {
  auto f = frontend::parseTe(fmt::format(R"(from tvm import te
A = te.placeholder(({0}, {0}), dtype="float32", name="A")
B = te.placeholder(({0}, {0}), dtype="float32", name="B")
k = te.reduce_axis((0, {0}), name="k")
C = te.compute(({0}, {0}), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)",
                                         n),
                             "mm.te");
  if (!f) qFatal("%s", f.error().message.c_str());
  return *f;
}

/// Fails every third program with a crash, times the rest as 1 ms (no worker needed).
class FlakyMeasurer final : public tune::Measurer {
public:
  int calls = 0;
  std::vector<tune::MeasureResult> measure(std::span<const codegen::LoweredFunc> programs,
                                           const std::vector<bool>& verify, std::stop_token,
                                           const tune::OnMeasured& onMeasured) override {
    std::vector<tune::MeasureResult> out;
    bool ended = false;
    for (std::size_t i = 0; i < programs.size(); ++i) {
      tune::MeasureResult r;
      if (ended)
        r.error = "cancelled: the search was stopped";
      else if (++calls % 3 == 0)
        r.error = "crash: the kernel crashed with SIGSEGV (segmentation fault)";
      else
        r.seconds = {0.001 * (1 + calls % 5)};
      r.verified = i < verify.size() && verify[i] && r.error.empty();
      out.push_back(r);
      if (!ended && onMeasured && !onMeasured(i, out.back())) ended = true;
    }
    return out;
  }
};

/// Times the programs of a batch 10, 9.5, 9, ... ms, each faster than the one before; a
/// verification run (a single program) fails with "wrong: ..." the first time and times
/// 1 ms after. Counts the verification runs.
class FasterAndFasterMeasurer final : public tune::Measurer {
public:
  int timed = 0;
  int verifications = 0;
  std::vector<tune::MeasureResult> measure(std::span<const codegen::LoweredFunc> programs,
                                           const std::vector<bool>& verify, std::stop_token,
                                           const tune::OnMeasured& onMeasured) override {
    std::vector<tune::MeasureResult> out;
    for (std::size_t i = 0; i < programs.size(); ++i) {
      tune::MeasureResult r;
      if (verify[i] && ++verifications == 1)
        r.error = "wrong: C[0, 0] is 1 where the reference has 2";
      else
        r.seconds = {verify[i] ? 0.001 : 0.010 - 0.0005 * timed++};
      out.push_back(r);
      if (onMeasured && !onMeasured(i, out.back())) break;
    }
    return out;
  }
};

/// Times each program by the prior's estimate (1 ns a cycle) and keeps the estimates of
/// the programs timed (not the verification runs), in order.
class PriorTimedMeasurer final : public tune::Measurer {
public:
  tune::PriorModel prior{tune::PriorOptions::host(2)};
  std::vector<double> cycles;
  std::vector<tune::MeasureResult> measure(std::span<const codegen::LoweredFunc> programs,
                                           const std::vector<bool>& verify, std::stop_token,
                                           const tune::OnMeasured& onMeasured) override {
    std::vector<tune::MeasureResult> out;
    for (std::size_t i = 0; i < programs.size(); ++i) {
      const double c = prior.cycles(programs[i]);
      if (!verify[i]) cycles.push_back(c);
      tune::MeasureResult r;
      r.seconds = {1e-6 + c * 1e-9};
      r.verified = verify[i];
      out.push_back(r);
      if (onMeasured && !onMeasured(i, out.back())) break;
    }
    return out;
  }
};

} // namespace

class TestSearch : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_dir;
  ir::PrimFunc m_func = matmul(64);
  std::unique_ptr<tune::LocalMeasurer> m_measurer;

  tune::TuneTask task() {
    tune::TuneTask t;
    t.func = m_func;
    t.target = "cpu-llvm";
    t.threads = 2;
    const codegen::Target& target = m_measurer->target();
    const codegen::Pipeline& pipeline = m_measurer->pipeline();
    t.lower = [&target, &pipeline](const ir::PrimFunc& f) { return pipeline.lower(target, f); };
    return t;
  }
  static tune::TuneOptions options(int trials) {
    tune::TuneOptions o;
    o.trials = trials;
    o.batchSize = 4;
    o.population = 12;
    o.generations = 1;
    o.space.cores = 2;
    o.seed = 5;
    return o;
  }

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    tune::LocalMeasureOptions mo;
    mo.workerPath = LS_WORKER_PATH;
    mo.build.threads = 2;
    mo.timing = {1, 3, 0, 5, false};
    auto m = tune::LocalMeasurer::create(m_func, {}, mo);
    if (!m) QSKIP("the cpu-llvm plugin is needed");
    m_measurer = std::move(*m);
  }

  void aBuildPastItsTimeLimitIsThatCandidatesError() {
    // The limit stops the build (between LLVM's passes) and the batch goes on: the next
    // program is built and measured, not cancelled.
    tune::LocalMeasureOptions mo;
    mo.workerPath = LS_WORKER_PATH;
    mo.timing = {0, 1, 0, 0, false};
    mo.buildTimeoutSeconds = 1e-6;
    auto m = tune::LocalMeasurer::create(m_func, {}, mo);
    QVERIFY(m);
    auto lowered = (*m)->pipeline().lower((*m)->target(), m_func);
    QVERIFY(lowered);
    const codegen::LoweredFunc two[] = {*lowered, *lowered};
    auto results = (*m)->measure(two, {false, false}, {});
    QCOMPARE(results.size(), std::size_t{2});
    for (const auto& r : results)
      QCOMPARE(r.error, std::string("build: the build took more than 1e-06 s and was stopped"));
  }

  void shortSearchRecordsEveryTrialAndKeepsTheFastest() {
    const std::string log = m_dir.filePath("mm.json").toStdString();
    tune::RecordWriter writer;
    QVERIFY(writer.open(log));
    auto model = tune::makeCostModel("xgb", 1);
    QVERIFY(model);
    int reports = 0;
    auto result = tune::tune(task(), *m_measurer, **model, {}, &writer, options(12), [&](const tune::TuneProgress& p) {
      QCOMPARE(p.total, 12);
      if (!p.last) return;
      ++reports;
      QCOMPARE(p.trials, reports);
    });
    QVERIFY(result);
    QCOMPARE(reports, 12);
    QCOMPARE(result->records.size(), std::size_t{12});
    QCOMPARE(result->curve.size(), std::size_t{12});
    QVERIFY(result->best);
    QVERIFY(result->best->verified);
    auto onDisk = tune::readRecords(log);
    QVERIFY(onDisk);
    QCOMPARE(onDisk->size(), std::size_t{12});
    // Every record's trace replays to a distinct program.
    std::set<std::uint64_t> programs;
    for (const auto& r : *onDisk) {
      auto sch = poly::replaySchedule(m_func, r.trace, schedule::LegalityPolicy::Unverified);
      QVERIFY2(sch, r.sketch.c_str());
      programs.insert(ir::structuralHash(sch->func()));
    }
    QCOMPARE(programs.size(), std::size_t{12});

    // The best is the fastest verified record, and the curve ends at it. (Whether it beats
    // the unscheduled program is a timing, measured by bench/tune.py, not asserted here: on
    // a loaded machine a 12-trial search's parallel candidates can time slower.)
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto& r : result->records)
      if (r.verified && r.ok()) fastest = std::min(fastest, r.medianSeconds());
    QCOMPARE(result->best->medianSeconds(), fastest);
    QVERIFY(result->curve.back().bestGflops > 0);
    QCOMPARE(result->curve.back().trial, 12);
  }

  void aBatchsNewBestsAreCheckedFastestFirstAfterTheBatch() {
    // Four trials, each faster than the one before: each was a new best when it came, and
    // each took a legality check and a verification run. Now the batch's fastest is checked
    // first (its verification fails), then the next (it passes, and its second run of 1 ms
    // brings its median to 5 ms), and the two slower ones not at all.
    FasterAndFasterMeasurer measurer;
    auto model = tune::makeCostModel("random", 1);
    auto o = options(4);
    o.strategy = tune::Strategy::Evolutionary;
    std::vector<std::pair<int, double>> interim, finished;
    auto result = tune::tune(task(), measurer, **model, {}, nullptr, o, [&](const tune::TuneProgress& p) {
      (p.last ? finished : interim).emplace_back(p.trials, p.bestGflops);
      if (p.last) QCOMPARE(p.last->trial, p.trials);
    });
    QVERIFY(result);
    QCOMPARE(measurer.verifications, 2);
    QCOMPARE(result->records.size(), std::size_t{4});
    const auto& r = result->records;
    QCOMPARE(r[3].error, std::string("wrong: C[0, 0] is 1 where the reference has 2"));
    QVERIFY(r[3].seconds.empty());
    QVERIFY(r[2].verified);
    QCOMPARE(r[2].seconds.size(), std::size_t{2});
    QCOMPARE(r[2].seconds[0], 0.009);
    QCOMPARE(r[2].seconds[1], 0.001);
    for (int i : {0, 1}) {
      QVERIFY(r[i].ok());
      QVERIFY(!r[i].verified);
      QCOMPARE(r[i].seconds.size(), std::size_t{1});
    }
    QVERIFY(result->best);
    QCOMPARE(result->best->trial, 3);
    QCOMPARE(result->errors, 1);
    QCOMPARE(result->best->gflops, 2.0 * 64 * 64 * 64 / 0.005 / 1e9);
    const double best = result->best->gflops;
    // The curve steps up at the trial that found the best, not at the end of the batch.
    QCOMPARE(result->curve.size(), std::size_t{4});
    const double curve[] = {0, 0, best, best};
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(result->curve[i].trial, i + 1);
      QCOMPARE(result->curve[i].bestGflops, curve[i]);
    }
    // Each trial is reported as it is measured, then with its record after the checks.
    QCOMPARE(interim, (std::vector<std::pair<int, double>>{{1, 0}, {2, 0}, {3, 0}, {4, 0}}));
    QCOMPARE(finished, (std::vector<std::pair<int, double>>{{1, 0}, {2, 0}, {3, best}, {4, best}}));
  }

  void theFirstBatchIsRankedByThePrior() {
    // Until the model learns, the prior ranks: the first batch is measured best estimate
    // first, and its reports carry no score of the model's (NaN). Without the warm start
    // the untrained model scores every candidate 0.
    for (bool warm : {true, false}) {
      PriorTimedMeasurer measurer;
      auto model = tune::makeCostModel("xgb", 1);
      auto o = options(8);
      o.strategy = tune::Strategy::Evolutionary;
      o.epsGreedy = 0;
      o.warmStart = warm;
      std::vector<double> predicted;
      auto result = tune::tune(task(), measurer, **model, {}, nullptr, o, [&](const tune::TuneProgress& p) {
        if (p.last) predicted.push_back(p.lastPredicted);
      });
      QVERIFY(result);
      QCOMPARE(predicted.size(), std::size_t{8});
      QCOMPARE(measurer.cycles.size(), std::size_t{8});
      for (int i = 0; i < 4; ++i)
        QVERIFY(warm ? std::isnan(predicted[i]) : predicted[i] == 0);
      for (int i = 4; i < 8; ++i)
        QVERIFY(std::isfinite(predicted[i]));
      if (warm) QVERIFY(std::is_sorted(measurer.cycles.begin(), measurer.cycles.begin() + 4));
    }
  }

  void whileThePriorRanksTheFamiliesTakeTurns() {
    // Mixed: after poly_optimize's own choices, the first batch alternates between TIR and
    // polyhedral candidates, starting with the family whose best the prior scores higher.
    PriorTimedMeasurer measurer;
    auto model = tune::makeCostModel("xgb", 1);
    auto o = options(8);
    o.batchSize = 8;
    o.strategy = tune::Strategy::Mixed;
    o.epsGreedy = 0;
    auto result = tune::tune(task(), measurer, **model, {}, nullptr, o);
    QVERIFY(result);
    QCOMPARE(result->records.size(), std::size_t{8});
    std::string families;
    for (const auto& r : result->records)
      families += r.family == "poly" ? 'p' : 't';
    // A candidate that does not lower or breaks a dependence is dropped, not measured, so
    // the turns need not be exact in the records; but no family has three in a row (without
    // the turns this search measures "pptppptt").
    QVERIFY2(families.find("ttt") == std::string::npos && families.find("ppp") == std::string::npos, families.c_str());
  }

  void resumesFromTheRecords() {
    const std::string log = m_dir.filePath("mm.json").toStdString();
    auto previous = tune::readRecords(log);
    QVERIFY(previous && previous->size() == 12);
    const auto oldBest = tune::bestRecord(*previous, tune::workloadKey(m_func));
    tune::RecordWriter writer;
    QVERIFY(writer.open(log));
    auto model = tune::makeCostModel("xgb", 1);
    auto result = tune::tune(task(), *m_measurer, **model, *previous, &writer, options(4));
    QVERIFY(result);
    QCOMPARE(result->records.size(), std::size_t{4});
    QCOMPARE(result->records.front().trial, 13); // numbering continues
    QVERIFY(result->best);
    QVERIFY(result->best->gflops >= oldBest->gflops);
    // Nothing measured before is measured again.
    auto all = tune::readRecords(log);
    QCOMPARE(all->size(), std::size_t{16});
    std::set<std::uint64_t> programs;
    for (const auto& r : *all)
      programs.insert(
          ir::structuralHash(poly::replaySchedule(m_func, r.trace, schedule::LegalityPolicy::Unverified)->func()));
    QCOMPARE(programs.size(), std::size_t{16});
  }

  void aRecordTheSketchNoLongerTakesIsItsOwnTrace() {
    // A record whose decisions its sketch does not take as they are (rules changed since
    // it was written; here its first decision is out of range) is not made again from its
    // sketch (that would attach its time to another program): its own trace is replayed,
    // and this one does not replay, so it cannot be the best.
    const std::string log = m_dir.filePath("mm.json").toStdString();
    auto previous = tune::readRecords(log);
    QVERIFY(previous && previous->size() == 16);
    auto best = tune::bestRecord(*previous, tune::workloadKey(m_func));
    QVERIFY(best);
    const int bestTrial = best->trial;
    bool tampered = false;
    for (auto& r : *previous)
      if (r.trial == bestTrial)
        for (auto& inst : r.trace.instructions)
          if (inst.kind && inst.kind->isSampling && inst.decision && !tampered) {
            inst.decision = schedule::TraceValue(std::int64_t{99});
            tampered = true;
          }
    QVERIFY(tampered);
    for (const auto& r : *previous)
      if (r.trial == bestTrial) QVERIFY(!poly::replaySchedule(m_func, r.trace, schedule::LegalityPolicy::Unverified));
    auto model = tune::makeCostModel("xgb", 1);
    auto result = tune::tune(task(), *m_measurer, **model, *previous, nullptr, options(1));
    QVERIFY(result);
    QVERIFY(result->best);
    QVERIFY(result->best->trial != bestTrial);
  }

  void stopEndsTheSearch() {
    std::stop_source stop;
    auto model = tune::makeCostModel("random", 1);
    auto result = tune::tune(
        task(), *m_measurer, **model, {}, nullptr, options(40),
        [&](const tune::TuneProgress& p) {
          if (p.trials == 2) stop.request_stop();
        },
        stop.get_token());
    QVERIFY(result);
    QVERIFY(result->stopped);
    QCOMPARE(result->records.size(), std::size_t{2});
  }

  void failuresAreRecorded() {
    FlakyMeasurer flaky;
    auto model = tune::makeCostModel("random", 2);
    auto o = options(9);
    o.strategy = tune::Strategy::Evolutionary;
    auto result = tune::tune(task(), flaky, **model, {}, nullptr, o);
    QVERIFY(result);
    QCOMPARE(result->records.size(), std::size_t{9});
    int crashed = 0;
    for (const auto& r : result->records) {
      QCOMPARE(r.family, std::string("tir"));
      if (!r.ok()) {
        ++crashed;
        QCOMPARE(r.error, std::string("crash: the kernel crashed with SIGSEGV (segmentation fault)"));
        QCOMPARE(r.gflops, 0.0);
      }
    }
    QCOMPARE(result->errors, crashed);
    QVERIFY(crashed >= 2);
    // A new best is timed again in its verification run; its record keeps both times and
    // is ranked by their median (each measure() here times a program once).
    QVERIFY(result->best);
    QCOMPARE(result->best->seconds.size(), std::size_t{2});
    QCOMPARE(result->best->medianSeconds(), (result->best->seconds[0] + result->best->seconds[1]) / 2);
    for (const auto& r : result->records)
      QCOMPARE(r.seconds.size(), static_cast<std::size_t>(r.ok() && r.verified ? 2 : r.ok() ? 1 : 0));
  }

  void strategies() {
    QCOMPARE(tune::strategyName(*tune::parseStrategy("annealing")), std::string_view("annealing"));
    auto bad = tune::parseStrategy("greedy");
    QVERIFY(!bad);
    QCOMPARE(bad.error().message,
             std::string("unknown search strategy 'greedy': use evolutionary, annealing, poly, mixed or random"));
    // Annealing and poly run and record their family.
    FlakyMeasurer flaky;
    for (auto s : {tune::Strategy::Annealing, tune::Strategy::Poly}) {
      auto model = tune::makeCostModel("xgb", 3);
      auto o = options(4);
      o.strategy = s;
      auto result = tune::tune(task(), flaky, **model, {}, nullptr, o);
      QVERIFY(result);
      QCOMPARE(result->records.size(), std::size_t{4});
      for (const auto& r : result->records)
        QCOMPARE(r.family, std::string(s == tune::Strategy::Poly ? "poly" : "tir"));
    }
  }

  void mixedSharesFollowTheFamilyBests() {
    // Half each until both families have run; then by their bests squared, within
    // [0.1, 0.9]: matmul (TIR 308, poly 416 GFLOP/s) leans to poly, the conv layer (TIR
    // 276, poly 41) gives poly only the exploration floor.
    QCOMPARE(tune::polyShare(0, 0), 0.5);
    QCOMPARE(tune::polyShare(300, 0), 0.5);
    QCOMPARE(tune::polyShare(0, 300), 0.5);
    QCOMPARE(tune::polyShare(200, 200), 0.5);
    QVERIFY(std::abs(tune::polyShare(308, 416) - 416.0 * 416 / (416.0 * 416 + 308.0 * 308)) < 1e-12);
    QCOMPARE(tune::polyShare(276, 41), 0.1);
    QCOMPARE(tune::polyShare(41, 276), 0.9);
  }
};

QTEST_GUILESS_MAIN(TestSearch)
#include "tst_search.moc"
