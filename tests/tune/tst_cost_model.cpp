// Cost models (core/tune/random_model.h, xgb_model.h): the XGBoost model learns to rank a
// synthetic set of matmul schedules whose "measured" throughput is a known monotone
// function of what the features see (vector lanes, unrolled copies, parallel loop), and
// ranks held-out schedules with Spearman > 0.8; save/load round-trips exactly and keeps
// learning; errors are Diagnostics; the random model is deterministic per seed; the rank
// correlation itself.
#include "core/codegen/lower.h"
#include "core/frontend/te_frontend.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"
#include "core/tune/random_model.h"
#include "core/tune/xgb_model.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

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

QTEST_GUILESS_MAIN(TestCostModel)
#include "tst_cost_model.moc"
