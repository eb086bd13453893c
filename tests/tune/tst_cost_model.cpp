// Cost models (core/tune/random_model.h, xgb_model.h): the XGBoost model learns to rank a
// synthetic set of matmul schedules whose "measured" throughput is a known monotone
// function of what the features see (vector lanes, unrolled copies, parallel loop), and
// ranks held-out schedules with Spearman > 0.8; save/load round-trips exactly and keeps
// learning; errors are Diagnostics; the random model is deterministic per seed; the rank
// correlation itself; cross-validation on measured programs (model_eval.h): folds that
// partition the set, exact fold scores for an oracle and its reverse, and the replay of
// records into lowered programs.
#include "core/codegen/lower.h"
#include "core/frontend/te_frontend.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"
#include "core/tune/model_eval.h"
#include "core/tune/random_model.h"
#include "core/tune/xgb_model.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

using namespace loopscape;

namespace {

const char* const kMatmul = R"(from tvm import te
A = te.placeholder((16, 16), dtype="float32", name="A")
B = te.placeholder((16, 16), dtype="float32", name="B")
k = te.reduce_axis((0, 16), name="k")
C = te.compute((16, 16), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

struct Candidate {
  codegen::LoweredFunc func;
  double gflops;
};

/// 50 schedules of a 16^3 matmul: j split by f (inner vectorised), k split by g (inner
/// unrolled), i parallel or not; gflops = 10 * sqrt(f) * (1 + 0.3 log2 g) * (1.7 if
/// parallel), a stand-in for measurement that only depends on lanes, unrolled copies and
/// the parallel loop.
std::vector<Candidate> syntheticSet() {
  auto program = frontend::parseTe(kMatmul, "matmul.te");
  if (!program) qFatal("%s", renderDiagnostic(program.error(), kMatmul).c_str());
  std::vector<Candidate> set;
  for (int parallel = 0; parallel < 2; ++parallel) {
    for (int f : {1, 2, 4, 8, 16}) {
      for (int g : {1, 2, 4, 8, 16}) {
        std::string script = "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\n";
        script += "j0, j1 = sch.split(j, factors=[None, " + std::to_string(f) + "])\n";
        script += "k0, k1 = sch.split(k, factors=[None, " + std::to_string(g) + "])\n";
        script += "sch.reorder(i, j0, k0, k1, j1)\n";
        if (f > 1) script += "sch.vectorize(j1)\n";
        if (g > 1) script += "sch.unroll(k1)\n";
        if (parallel) script += "sch.parallel(i)\n";
        schedule::Schedule sch(*program);
        if (auto ok = schedule::applyScript(sch, script, "s.py"); !ok)
          qFatal("%s", renderDiagnostic(ok.error(), script).c_str());
        auto lowered = codegen::lower(sch.func());
        if (!lowered) qFatal("%s", renderDiagnostic(lowered.error()).c_str());
        const double gflops = 10 * std::sqrt(f) * (1 + 0.3 * std::log2(g)) * (parallel ? 1.7 : 1.0);
        set.push_back({std::move(*lowered), gflops});
      }
    }
  }
  return set;
}

struct Split {
  std::vector<const codegen::LoweredFunc*> trainA, trainB, test;
  std::vector<double> gflopsA, gflopsB, gflopsTest;
};

/// Every third candidate is held out; the rest are two training batches.
Split split(const std::vector<Candidate>& set) {
  Split s;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (i % 3 == 0) {
      s.test.push_back(&set[i].func);
      s.gflopsTest.push_back(set[i].gflops);
    } else if (i % 3 == 1) {
      s.trainA.push_back(&set[i].func);
      s.gflopsA.push_back(set[i].gflops);
    } else {
      s.trainB.push_back(&set[i].func);
      s.gflopsB.push_back(set[i].gflops);
    }
  }
  return s;
}

/// A model that knows the answers (`sign` 1) or their reverse (-1), and notes what it
/// was asked to score.
class OracleModel final : public tune::CostModel {
public:
  OracleModel(const std::map<const codegen::LoweredFunc*, double>& truth, double sign,
              std::vector<const codegen::LoweredFunc*>& asked)
      : m_truth(truth), m_sign(sign), m_asked(asked) {}
  std::string_view name() const override { return "oracle"; }
  bool informed() const override { return true; }
  std::vector<double> predict(std::span<const codegen::LoweredFunc* const> candidates) override {
    std::vector<double> out;
    for (const auto* c : candidates) {
      m_asked.push_back(c);
      out.push_back(m_sign * m_truth.at(c));
    }
    return out;
  }
  void update(std::span<const codegen::LoweredFunc* const>, std::span<const double>) override {}
  Expected<void> save(const std::filesystem::path&) const override { return {}; }
  Expected<void> load(const std::filesystem::path&) override { return {}; }

private:
  const std::map<const codegen::LoweredFunc*, double>& m_truth;
  double m_sign;
  std::vector<const codegen::LoweredFunc*>& m_asked;
};

tune::XgbOptions fastOptions() {
  tune::XgbOptions o;
  o.rounds = 60;
  o.threads = 1;
  return o;
}

} // namespace

class TestCostModel : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { m_set = syntheticSet(); }
  void rankCorrelation_data();
  void rankCorrelation();
  void randomModelDeterministic();
  void randomModelSaveLoad();
  void xgbUntrainedPredictsZero();
  void xgbRanksHeldOut();
  void xgbSaveLoadRoundTrip();
  void xgbKeepsAProgramOnce();
  void xgbLoadErrors();
  void factory();
  void crossValidationFolds();
  void crossValidationRanks();
  void crossValidationErrors();
  void lowerRecordsReplaysTheWorkload();

private:
  std::vector<Candidate> m_set;
};

void TestCostModel::rankCorrelation_data() {
  QTest::addColumn<std::vector<double>>("a");
  QTest::addColumn<std::vector<double>>("b");
  QTest::addColumn<double>("rho");
  QTest::newRow("same order") << std::vector<double>{1, 2, 3, 4} << std::vector<double>{10, 20, 35, 100} << 1.0;
  QTest::newRow("reversed") << std::vector<double>{1, 2, 3, 4} << std::vector<double>{4, 3, 2, 1} << -1.0;
  // Ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4): 4.5 / sqrt(4.5 * 5).
  QTest::newRow("ties") << std::vector<double>{1, 2, 2, 3} << std::vector<double>{1, 2, 3, 4} << 4.5 / std::sqrt(22.5);
  QTest::newRow("constant") << std::vector<double>{1, 1, 1} << std::vector<double>{1, 2, 3} << 0.0;
  QTest::newRow("NaN lowest") << std::vector<double>{std::nan(""), 2, 3} << std::vector<double>{0, 5, 6} << 1.0;
  QTest::newRow("one value") << std::vector<double>{1} << std::vector<double>{2} << 0.0;
}
void TestCostModel::rankCorrelation() {
  QFETCH(std::vector<double>, a);
  QFETCH(std::vector<double>, b);
  QFETCH(double, rho);
  QCOMPARE(tune::rankCorrelation(a, b) + 2, rho + 2); // +2: fuzzy compare near 0
}

void TestCostModel::randomModelDeterministic() {
  std::vector<const codegen::LoweredFunc*> c = {&m_set[0].func, &m_set[1].func, &m_set[2].func};
  tune::RandomModel a(7), b(7), other(8);
  QCOMPARE(QString::fromUtf8(a.name().data(), static_cast<int>(a.name().size())), QString("random"));
  auto first = a.predict(c);
  QCOMPARE(first.size(), std::size_t(3));
  for (double s : first)
    QVERIFY(s >= 0 && s < 1);
  QCOMPARE(b.predict(c), first);
  QVERIFY(other.predict(c) != first);
  a.update(c, std::vector<double>{1, 2, 3}); // learns nothing
  QCOMPARE(a.predict(c), b.predict(c));      // both at their second draws
}

void TestCostModel::randomModelSaveLoad() {
  QTemporaryDir dir;
  const std::filesystem::path path = dir.filePath("random.json").toStdString();
  std::vector<const codegen::LoweredFunc*> c = {&m_set[0].func, &m_set[1].func};
  tune::RandomModel a(123);
  auto first = a.predict(c);
  QVERIFY(a.save(path));
  tune::RandomModel b(5);
  QVERIFY(b.load(path));
  QCOMPARE(b.seed(), std::uint64_t(123));
  QCOMPARE(b.predict(c), first); // reseeded: the draws start again
  std::ofstream(dir.filePath("bad.json").toStdString()) << "{\"model\": \"xgb\"}";
  auto bad = b.load(dir.filePath("bad.json").toStdString());
  QVERIFY(!bad);
  QCOMPARE(QString::fromStdString(bad.error().code), QString("tune.model-format"));
  QCOMPARE(bad.error().message, "'" + dir.filePath("bad.json").toStdString() + "' is not a saved random cost model");
  std::ofstream(dir.filePath("noseed.json").toStdString()) << "{\"model\": \"random\", \"seed\": -1}";
  auto noSeed = b.load(dir.filePath("noseed.json").toStdString());
  QVERIFY(!noSeed);
  QCOMPARE(noSeed.error().message,
           "'" + dir.filePath("noseed.json").toStdString() + "' is not a saved random cost model");
  QCOMPARE(b.seed(), std::uint64_t(123)); // unchanged by the failed loads
  auto missing = b.load(dir.filePath("missing.json").toStdString());
  QVERIFY(!missing);
  QCOMPARE(QString::fromStdString(missing.error().code), QString("tune.model-io"));
}

void TestCostModel::xgbUntrainedPredictsZero() {
  tune::XgbModel model(fastOptions());
  QCOMPARE(QString::fromUtf8(model.name().data(), static_cast<int>(model.name().size())), QString("xgb"));
  QVERIFY(!model.trained());
  std::vector<const codegen::LoweredFunc*> c = {&m_set[0].func, &m_set[1].func};
  QCOMPARE(model.predict(c), (std::vector<double>{0, 0}));
  QVERIFY(!model.lastError());
}

void TestCostModel::xgbRanksHeldOut() {
  const Split s = split(m_set);
  tune::XgbModel model(fastOptions());
  model.update(s.trainA, s.gflopsA);
  QVERIFY2(!model.lastError(), model.lastError() ? model.lastError()->message.c_str() : "");
  QVERIFY(model.trained());
  model.update(s.trainB, s.gflopsB); // retrained on both batches
  QVERIFY(!model.lastError());
  QCOMPARE(model.programCount(), s.trainA.size() + s.trainB.size());
  const auto predicted = model.predict(s.test);
  QVERIFY(!model.lastError());
  const double rho = tune::rankCorrelation(predicted, s.gflopsTest);
  qInfo("held-out Spearman %.3f over %zu programs", rho, s.test.size());
  QVERIFY2(rho > 0.8, qPrintable(QString("Spearman %1").arg(rho)));
  // Training is deterministic: the same data gives the same predictions.
  tune::XgbModel again(fastOptions());
  again.update(s.trainA, s.gflopsA);
  again.update(s.trainB, s.gflopsB);
  QCOMPARE(again.predict(s.test), predicted);
  // The random model does not rank.
  tune::RandomModel random(1);
  QVERIFY(tune::rankCorrelation(random.predict(s.test), s.gflopsTest) < rho);
}

void TestCostModel::xgbSaveLoadRoundTrip() {
  const Split s = split(m_set);
  QTemporaryDir dir;
  const std::filesystem::path path = dir.filePath("model.json").toStdString();
  tune::XgbModel model(fastOptions());
  model.update(s.trainA, s.gflopsA);
  auto saved = model.save(path);
  QVERIFY2(saved, saved ? "" : saved.error().message.c_str());
  QVERIFY(std::filesystem::exists(path));
  QVERIFY(std::filesystem::exists(path.string() + ".data"));
  {
    std::ifstream in(path);
    QCOMPARE(in.get(), int('{')); // XGBoost's JSON model
  }
  tune::XgbModel loaded(fastOptions());
  auto ok = loaded.load(path);
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  QVERIFY(loaded.trained());
  QCOMPARE(loaded.programCount(), model.programCount());
  QCOMPARE(loaded.predict(s.test), model.predict(s.test));
  // Both keep learning from the same data to the same model.
  model.update(s.trainB, s.gflopsB);
  loaded.update(s.trainB, s.gflopsB);
  QCOMPARE(loaded.predict(s.test), model.predict(s.test));
  // An untrained model saves and loads as untrained.
  const std::filesystem::path empty = dir.filePath("empty.json").toStdString();
  QVERIFY(tune::XgbModel(fastOptions()).save(empty));
  QVERIFY(loaded.load(empty));
  QVERIFY(!loaded.trained());
  QCOMPARE(loaded.programCount(), std::size_t(0));
  QCOMPARE(loaded.predict(s.test), std::vector<double>(s.test.size(), 0.0));
}

void TestCostModel::xgbKeepsAProgramOnce() {
  const Split s = split(m_set);
  tune::XgbModel once(fastOptions());
  once.update(s.trainA, s.gflopsA);
  tune::XgbModel twice(fastOptions());
  twice.update(s.trainA, s.gflopsA);
  twice.update(s.trainA, s.gflopsA); // a resumed search presenting the same records
  QCOMPARE(twice.programCount(), once.programCount());
  QCOMPARE(twice.predict(s.test), once.predict(s.test));
  // A program measured again takes the new measure.
  std::vector<double> reversed(s.gflopsA.rbegin(), s.gflopsA.rend());
  twice.update(s.trainA, reversed);
  QCOMPARE(twice.programCount(), once.programCount());
  tune::XgbModel fresh(fastOptions());
  fresh.update(s.trainA, reversed);
  QCOMPARE(twice.predict(s.test), fresh.predict(s.test));
  QVERIFY(twice.predict(s.test) != once.predict(s.test));
}

void TestCostModel::xgbLoadErrors() {
  QTemporaryDir dir;
  tune::XgbModel model(fastOptions());
  auto missing = model.load(dir.filePath("none.json").toStdString());
  QVERIFY(!missing);
  QCOMPARE(QString::fromStdString(missing.error().code), QString("tune.model-io"));

  const std::string garbage = dir.filePath("garbage.json").toStdString();
  std::ofstream(garbage) << "not a model";
  auto refused = model.load(garbage);
  QVERIFY(!refused);
  QCOMPARE(QString::fromStdString(refused.error().code), QString("tune.xgboost"));
  QVERIFY(refused.error().message.starts_with("XGBoost failed to load the model"));

  std::ofstream(garbage + ".data") << "LSXGBD01\x05";
  auto truncated = model.load(garbage);
  QVERIFY(!truncated);
  QCOMPARE(QString::fromStdString(truncated.error().code), QString("tune.model-format"));
  QVERIFY(!model.trained()); // unchanged
}

void TestCostModel::factory() {
  auto xgb = tune::makeCostModel("xgb", 3);
  QVERIFY(xgb && *xgb);
  QCOMPARE(QString::fromUtf8((*xgb)->name().data(), static_cast<int>((*xgb)->name().size())), QString("xgb"));
  QCOMPARE(static_cast<tune::XgbModel&>(**xgb).options().seed, std::uint64_t(3));
  auto random = tune::makeCostModel("random", 9);
  QVERIFY(random && *random);
  QCOMPARE(static_cast<tune::RandomModel&>(**random).seed(), std::uint64_t(9));
  auto bad = tune::makeCostModel("mlp", 0);
  QVERIFY(!bad);
  QCOMPARE(QString::fromStdString(bad.error().code), QString("tune.bad-model"));
}

void TestCostModel::crossValidationFolds() {
  // 50 programs, the last 5 failed (0 GFLOP/s): learnt from, never scored.
  std::vector<const codegen::LoweredFunc*> programs;
  std::vector<double> gflops;
  std::map<const codegen::LoweredFunc*, double> truth;
  for (std::size_t i = 0; i < m_set.size(); ++i) {
    programs.push_back(&m_set[i].func);
    gflops.push_back(i >= 45 ? 0.0 : m_set[i].gflops);
    truth[&m_set[i].func] = gflops.back();
  }
  std::vector<const codegen::LoweredFunc*> asked;
  auto oracle =
      tune::crossValidate(programs, gflops, 5, 7, [&] { return std::make_unique<OracleModel>(truth, 1.0, asked); });
  QVERIFY(oracle.has_value());
  QCOMPARE(oracle->model, std::string("oracle"));
  QCOMPARE(oracle->programs, 50);
  // Each program is held out exactly once: the folds partition the set.
  QCOMPARE(asked.size(), std::size_t(50));
  QCOMPARE(std::set<const codegen::LoweredFunc*>(asked.begin(), asked.end()).size(), std::size_t(50));
  QCOMPARE(oracle->folds.size(), std::size_t(5));
  int scored = 0;
  for (const auto& fold : oracle->folds) {
    scored += fold.programs;
    QCOMPARE(fold.correlation, 1.0);
    QCOMPARE(fold.topPick, 1.0);
  }
  QCOMPARE(scored, 45);
  QCOMPARE(oracle->meanCorrelation(), 1.0);
  QCOMPARE(oracle->meanTopPick(), 1.0);

  // The reverse oracle: correlation -1, and its first choice is each fold's slowest.
  asked.clear();
  auto reverse =
      tune::crossValidate(programs, gflops, 5, 7, [&] { return std::make_unique<OracleModel>(truth, -1.0, asked); });
  QVERIFY(reverse.has_value());
  QCOMPARE(reverse->meanCorrelation(), -1.0);
  // Folds are the same for the same seed: the same programs in the same order.
  std::vector<const codegen::LoweredFunc*> first(asked);
  asked.clear();
  QVERIFY(
      tune::crossValidate(programs, gflops, 5, 7, [&] { return std::make_unique<OracleModel>(truth, 1.0, asked); }));
  QCOMPARE(asked, first);
  std::size_t at = 0;
  for (const auto& fold : reverse->folds) {
    double lo = 1e300, hi = 0;
    for (int seen = 0; seen < fold.programs; ++at)
      if (truth.at(first[at]) > 0) {
        lo = std::min(lo, truth.at(first[at]));
        hi = std::max(hi, truth.at(first[at]));
        ++seen;
      }
    while (at < first.size() && truth.at(first[at]) == 0)
      ++at;
    QCOMPARE(fold.topPick, lo / hi);
  }
}

void TestCostModel::crossValidationRanks() {
  std::vector<const codegen::LoweredFunc*> programs;
  std::vector<double> gflops;
  for (const auto& c : m_set) {
    programs.push_back(&c.func);
    gflops.push_back(c.gflops);
  }
  auto xgb =
      tune::crossValidate(programs, gflops, 5, 1, [] { return std::make_unique<tune::XgbModel>(fastOptions()); });
  QVERIFY(xgb.has_value());
  qInfo("xgb: held-out Spearman %.3f, top pick %.3f", xgb->meanCorrelation(), xgb->meanTopPick());
  QCOMPARE(xgb->model, std::string("xgb"));
  QCOMPARE(xgb->folds.size(), std::size_t(5));
  QVERIFY2(xgb->meanCorrelation() > 0.8, qPrintable(QString("Spearman %1").arg(xgb->meanCorrelation())));
  QVERIFY(xgb->meanTopPick() > 0.8 && xgb->meanTopPick() <= 1.0);
  auto random = tune::crossValidate(programs, gflops, 5, 1, [] { return std::make_unique<tune::RandomModel>(1); });
  QVERIFY(random.has_value());
  QVERIFY(random->meanCorrelation() < xgb->meanCorrelation() - 0.5);
}

void TestCostModel::crossValidationErrors() {
  std::vector<const codegen::LoweredFunc*> programs = {&m_set[0].func, &m_set[1].func, &m_set[2].func};
  std::vector<double> gflops = {1, 2, 3};
  auto make = [] { return std::make_unique<tune::RandomModel>(1); };
  auto few = tune::crossValidate(programs, gflops, 5, 1, make);
  QVERIFY(!few);
  QCOMPARE(few.error().code, std::string("tune.model-eval"));
  QCOMPARE(
      few.error().message,
      std::string("cannot cross-validate 3 measured programs in 5 folds (at least 2 folds, and a program per fold)"));
  auto one = tune::crossValidate(programs, gflops, 1, 1, make);
  QVERIFY(!one);
  QCOMPARE(
      one.error().message,
      std::string("cannot cross-validate 3 measured programs in 1 folds (at least 2 folds, and a program per fold)"));
}

void TestCostModel::lowerRecordsReplaysTheWorkload() {
  auto program = frontend::parseTe(kMatmul, "matmul.te");
  QVERIFY(program.has_value());
  tune::TuneTask task;
  task.func = *program;
  task.target = "cpu-llvm";
  task.threads = 2;
  task.lower = [](const ir::PrimFunc& f) { return codegen::lower(f); };
  schedule::Schedule sch(*program);
  QVERIFY(
      schedule::applyScript(sch, "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nsch.parallel(i)\n", "s.py"));
  tune::Record ok;
  ok.workload = tune::workloadKey(*program);
  ok.target = "cpu-llvm";
  ok.threads = 2;
  ok.trace = sch.trace();
  ok.seconds = {0.002, 0.001, 0.003};
  ok.gflops = 4.5;
  tune::Record failed = ok;
  failed.seconds.clear();
  failed.error = "wrong: C differs";
  tune::Record otherThreads = ok;
  otherThreads.threads = 1;
  tune::Record otherTarget = ok;
  otherTarget.target = "cpu-c";
  tune::Record stale = ok; // a trace naming a block the program no longer has
  schedule::Schedule other(*program);
  QVERIFY(schedule::applyScript(other, "b = sch.get_block(\"C\")\n", "s.py"));
  stale.trace = other.trace();
  stale.trace.instructions.front().attrs.front() = schedule::TraceValue("D");
  std::vector<int> progress;
  auto lowered = tune::lowerRecords(task, {ok, otherThreads, failed, otherTarget, stale}, 2,
                                    [&](int done, int total) { progress.push_back(done * 100 + total); });
  QCOMPARE(lowered.programs.size(), std::size_t(2));
  QCOMPARE(lowered.gflops, (std::vector<double>{4.5, 0.0}));
  QCOMPARE(lowered.skipped, 1);
  std::sort(progress.begin(), progress.end());
  QCOMPARE(progress, (std::vector<int>{103, 203, 303}));
  QVERIFY(lowered.programs[0].body.defined());
}

QTEST_GUILESS_MAIN(TestCostModel)
#include "tst_cost_model.moc"
