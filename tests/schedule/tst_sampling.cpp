// Tests of the sampling instructions: fixed decisions for a fixed seed, replay with the
// recorded decisions, validation of given decisions, sampled values feeding split.
#include "schedule_test_helpers.h"

#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_error.h"

#include <QtTest>

#include <set>

using namespace loopscape;
using schedule::RV;
using schedule::Schedule;
using schedule::TraceList;
using schedule::TraceValue;

namespace {

std::string refsOf(const Diagnostic& d) {
  std::string out;
  for (const auto& r : d.references) {
    if (!out.empty()) out += ",";
    out += (r.kind == IrReference::Kind::Loop ? "loop:" : r.kind == IrReference::Kind::Block ? "block:" : "buffer:") +
           r.name;
  }
  return out;
}

std::vector<RV> must(Expected<std::vector<RV>> r, const Schedule& sch) {
  if (!r) qFatal("%s", schedule::renderScheduleError(r.error(), sch.func()).c_str());
  return *r;
}

std::vector<std::int64_t> ints(const TraceValue& v) {
  std::vector<std::int64_t> out;
  for (const auto& x : *v.get<TraceList>()) out.push_back(*x.get<std::int64_t>());
  return out;
}

std::vector<std::int64_t> values(const Schedule& sch, const std::vector<RV>& rvs) {
  std::vector<std::int64_t> out;
  for (const auto& rv : rvs) out.push_back(*sch.integer(rv, "test"));
  return out;
}

const char* const kDynamic = "n = var(\"n\")\n"
                             "A = placeholder((n, 8), \"float32\", name=\"A\")\n"
                             "B = compute((n, 8), lambda i, j: A[i, j] + 1.0, name=\"B\")\n";

} // namespace

class TestSampling : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void perfectTileSeeded();
  void perfectTileProperties();
  void perfectTileGivenDecision();
  void perfectTileRefused_data();
  void perfectTileRefused();
  void categoricalSeeded();
  void categoricalRefused_data();
  void categoricalRefused();
  void computeLocation();
};

void TestSampling::perfectTileSeeded() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul), 42);
  RV c = must(sch.apply("get_block", {}, {"C"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {c}), sch);
  auto vi = must(sch.apply("sample_perfect_tile", {loops[0]}, {3, 8}), sch);
  auto vj = must(sch.apply("sample_perfect_tile", {loops[1]}, {2, 16}), sch);
  QCOMPARE(vi.size(), std::size_t(3));
  QCOMPARE(vi[0].kind, schedule::RVKind::Expr);
  // Fixed seed, fixed decisions (the engine's raw outputs only: the same on every platform).
  QCOMPARE(values(sch, vi), (std::vector<std::int64_t>{4, 2, 8}));
  QCOMPARE(values(sch, vj), (std::vector<std::int64_t>{8, 4}));
  QCOMPARE(ints(*sch.trace().instructions[2].decision), values(sch, vi));
  // The sampled factors feed split.
  auto is = must(sch.apply("split", {loops[0], TraceList{vi[0], vi[1], vi[2]}}), sch);
  auto js = must(sch.apply("split", {loops[1], TraceList{vj[0], vj[1]}}), sch);
  must(sch.apply("reorder", {is[0], js[0], is[1], js[1], loops[2], is[2]}), sch);
  QVERIFY2(testing::checkGolden("sampling_perfect_tile_split", ir::printPrimFunc(sch.func())).isEmpty(),
           qPrintable(testing::checkGolden("sampling_perfect_tile_split", ir::printPrimFunc(sch.func()))));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
  // Replay with the recorded decisions under another seed: the same program.
  auto replay = schedule::replayTrace(sch.original(), sch.trace(), 7);
  QVERIFY(replay);
  QVERIFY(ir::structuralEqual(replay->func(), sch.func()));
  QCOMPARE(ints(*replay->trace().instructions[2].decision), values(sch, vi));
  // The same seed gives the same decisions.
  Schedule again(testing::parseProgram(testing::kSmallMatmul), 42);
  RV c2 = must(again.apply("get_block", {}, {"C"}), again)[0];
  auto loops2 = must(again.apply("get_loops", {c2}), again);
  QCOMPARE(values(again, must(again.apply("sample_perfect_tile", {loops2[0]}, {3, 8}), again)), values(sch, vi));
}

void TestSampling::perfectTileProperties() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul), 3);
  RV c = must(sch.apply("get_block", {}, {"C"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {c}), sch);
  std::set<std::vector<std::int64_t>> seen;
  for (int round = 0; round < 200; ++round) {
    auto v = values(sch, must(sch.apply("sample_perfect_tile", {loops[2]}, {4, 4}), sch)); // extent 48
    QCOMPARE(v[0] * v[1] * v[2] * v[3], std::int64_t(48));
    QVERIFY(v[3] <= 4);
    seen.insert(v);
  }
  QVERIFY(seen.size() > 20); // many tilings are reached
  // No bound with max_innermost_factor=-1: the innermost may be 48.
  bool large = false;
  for (int round = 0; round < 200 && !large; ++round)
    large = values(sch, must(sch.apply("sample_perfect_tile", {loops[2]}, {2, -1}), sch))[1] > 16;
  QVERIFY(large);
}

void TestSampling::perfectTileGivenDecision() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {c}), sch);
  auto v = must(sch.apply("sample_perfect_tile", {loops[0]}, {3, 16}, TraceValue(TraceList{2, 8, 4})), sch);
  QCOMPARE(values(sch, v), (std::vector<std::int64_t>{2, 8, 4}));
  QCOMPARE(ints(*sch.trace().instructions.back().decision), (std::vector<std::int64_t>{2, 8, 4}));
}

void TestSampling::perfectTileRefused_data() {
  QTest::addColumn<QString>("program");
  QTest::addColumn<int>("n");
  QTest::addColumn<int>("maxInner");
  QTest::addColumn<QVariantList>("decision"); // empty: none
  QTest::addColumn<QString>("code");
  QTest::addColumn<QString>("message");
  const QString mm = testing::kSmallMatmul;
  const QString bad = "the decision is not a perfect tiling of loop 'i': it needs 3 positive factors whose product is "
                      "the extent 64, the last at most 16";
  QTest::newRow("wrong product") << mm << 3 << 16 << QVariantList{4, 4, 2} << "schedule.sample_perfect_tile.bad-decision"
                                 << bad;
  QTest::newRow("innermost too large") << mm << 3 << 16 << QVariantList{1, 2, 32}
                                       << "schedule.sample_perfect_tile.bad-decision" << bad;
  QTest::newRow("wrong length") << mm << 3 << 16 << QVariantList{8, 8} << "schedule.sample_perfect_tile.bad-decision"
                                << bad;
  QTest::newRow("zero factor") << mm << 3 << 16 << QVariantList{0, 8, 8}
                               << "schedule.sample_perfect_tile.bad-decision" << bad;
  QTest::newRow("n = 1") << mm << 1 << 16 << QVariantList{} << "schedule.sample_perfect_tile.bad-arguments"
                         << "sample_perfect_tile needs n >= 2 and max_innermost_factor -1 or >= 1";
  QTest::newRow("max 0") << mm << 2 << 0 << QVariantList{} << "schedule.sample_perfect_tile.bad-arguments" << "";
  QTest::newRow("symbolic") << QString(kDynamic) << 2 << 16 << QVariantList{}
                            << "schedule.sample_perfect_tile.symbolic-extent"
                            << "the extent of loop 'i' is n, not a constant; sample_perfect_tile needs a constant "
                               "extent";
}

void TestSampling::perfectTileRefused() {
  QFETCH(QString, program);
  QFETCH(int, n);
  QFETCH(int, maxInner);
  QFETCH(QVariantList, decision);
  QFETCH(QString, code);
  QFETCH(QString, message);
  Schedule sch(testing::parseProgram(program.toStdString()));
  RV b = must(sch.apply("get_block", {}, {program.contains("C = ") ? "C" : "B"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {b}), sch);
  std::optional<TraceValue> d;
  if (!decision.isEmpty()) {
    TraceList list;
    for (const auto& x : decision) list.emplace_back(x.toInt());
    d.emplace(std::move(list));
  }
  const auto before = sch.func();
  auto r = sch.apply("sample_perfect_tile", {loops[0]}, {n, maxInner}, d);
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), code);
  QCOMPARE(QString::fromStdString(refsOf(r.error())), QString("loop:i"));
  if (!message.isEmpty()) QCOMPARE(QString::fromStdString(r.error().message), message);
  QVERIFY(sch.func().body.sameAs(before.body));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(2));
}

void TestSampling::categoricalSeeded() {
  Schedule sch(testing::parseProgram(testing::kTwoStage), 42);
  std::vector<std::int64_t> drawn;
  for (int k = 0; k < 8; ++k) {
    RV v = must(sch.apply("sample_categorical", {}, {TraceList{1, 2, 4, 8}, TraceList{0.1, 0.2, 0.3, 0.4}}), sch)[0];
    drawn.push_back(*sch.integer(v, "test"));
  }
  QCOMPARE(drawn, (std::vector<std::int64_t>{8, 8, 8, 2, 8, 1, 4, 4}));
  // The decision is the index of the candidate.
  const auto& last = sch.trace().instructions.back();
  const std::vector<std::int64_t> candidates{1, 2, 4, 8};
  QCOMPARE(*last.decision->get<std::int64_t>(),
           std::int64_t(std::find(candidates.begin(), candidates.end(), drawn.back()) - candidates.begin()));
  // A zero probability is never drawn.
  for (int k = 0; k < 50; ++k) {
    RV v = must(sch.apply("sample_categorical", {}, {TraceList{3, 5, 7}, TraceList{0, 1, 0}}), sch)[0];
    QCOMPARE(*sch.integer(v, "test"), std::int64_t(5));
  }
  // A given decision is reused; replay reproduces every value.
  RV given = must(sch.apply("sample_categorical", {}, {TraceList{1, 2, 4, 8}, TraceList{1, 1, 1, 1}}, TraceValue(2)),
                  sch)[0];
  QCOMPARE(*sch.integer(given, "test"), std::int64_t(4));
  auto replay = schedule::replayTrace(sch.original(), sch.trace(), 99);
  QVERIFY(replay);
  for (std::size_t i = 0; i < sch.trace().instructions.size(); ++i)
    QCOMPARE(*replay->integer(replay->trace().instructions[i].outputs[0], "test"),
             *sch.integer(sch.trace().instructions[i].outputs[0], "test"));
}

void TestSampling::categoricalRefused_data() {
  QTest::addColumn<QVariantList>("candidates");
  QTest::addColumn<QVariantList>("probs");
  QTest::addColumn<int>("decision"); // -100: none
  QTest::addColumn<QString>("code");
  QTest::addColumn<QString>("message");
  QTest::newRow("length mismatch") << QVariantList{1, 2} << QVariantList{0.5} << -100
                                   << "schedule.sample_categorical.bad-arguments"
                                   << "sample_categorical needs a non-empty list of candidates and as many "
                                      "probabilities; got 2 candidates and 1 probabilities";
  QTest::newRow("empty") << QVariantList{} << QVariantList{} << -100 << "schedule.sample_categorical.bad-arguments"
                         << "";
  QTest::newRow("negative") << QVariantList{1, 2} << QVariantList{0.5, -0.1} << -100
                            << "schedule.sample_categorical.bad-probability"
                            << "sample_categorical probabilities must be non-negative numbers";
  QTest::newRow("all zero") << QVariantList{1, 2} << QVariantList{0.0, 0.0} << -100
                            << "schedule.sample_categorical.bad-probability"
                            << "sample_categorical probabilities sum to 0";
  QTest::newRow("decision out of range") << QVariantList{1, 2} << QVariantList{0.5, 0.5} << 2
                                         << "schedule.sample_categorical.bad-decision"
                                         << "the decision must be an index in [0, 2)";
  QTest::newRow("negative decision") << QVariantList{1, 2} << QVariantList{0.5, 0.5} << -1
                                     << "schedule.sample_categorical.bad-decision" << "";
}

void TestSampling::categoricalRefused() {
  QFETCH(QVariantList, candidates);
  QFETCH(QVariantList, probs);
  QFETCH(int, decision);
  QFETCH(QString, code);
  QFETCH(QString, message);
  Schedule sch(testing::parseProgram(testing::kTwoStage));
  TraceList cs, ps;
  for (const auto& c : candidates) cs.push_back(c.toInt());
  for (const auto& p : probs) ps.push_back(p.toDouble());
  std::optional<TraceValue> d;
  if (decision != -100) d = TraceValue(decision);
  const auto rng = sch.rng();
  auto r = sch.apply("sample_categorical", {}, {cs, ps}, d);
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), code);
  if (!message.isEmpty()) QCOMPARE(QString::fromStdString(r.error().message), message);
  QCOMPARE(sch.trace().instructions.size(), std::size_t(0));
  QVERIFY(sch.rng() == rng);
}

void TestSampling::computeLocation() {
  // B (producer) feeds C under loops i, j. Candidates: -2 (B can be inlined), -1 (root),
  // 0 (C's loop i), 1 (C's loop j).
  Schedule sch(testing::parseProgram(testing::kTwoStage), 5);
  RV b = must(sch.apply("get_block", {}, {"B"}), sch)[0];
  RV c = must(sch.apply("get_block", {}, {"C"}), sch)[0];
  auto loopsC = must(sch.apply("get_loops", {c}), sch);
  std::set<std::int64_t> decisions;
  for (int k = 0; k < 60; ++k) {
    must(sch.apply("sample_compute_location", {b}), sch);
    decisions.insert(*sch.trace().instructions.back().decision->get<std::int64_t>());
  }
  QCOMPARE(decisions, (std::set<std::int64_t>{-2, -1, 0, 1}));

  auto at = [&](std::int64_t decision) {
    auto r = must(sch.apply("sample_compute_location", {b}, {}, TraceValue(decision)), sch);
    return std::make_pair(r[0], *sch.trace().instructions.back().decision->get<std::int64_t>());
  };
  auto [l0, d0] = at(0);
  QCOMPARE(d0, std::int64_t(0));
  QCOMPARE(*sch.loop(l0, "test"), *sch.loop(loopsC[0], "test"));
  auto [l1, d1] = at(1);
  QCOMPARE(*sch.loop(l1, "test"), *sch.loop(loopsC[1], "test"));
  (void)d1;
  // A decision past the candidates falls back to the nearest smaller one (TVM).
  auto [l5, d5] = at(5);
  QCOMPARE(d5, std::int64_t(1));
  QCOMPARE(*sch.loop(l5, "test"), *sch.loop(loopsC[1], "test"));
  // Root and inline marks are loop RVs that are not loops.
  auto [root, dr] = at(-1);
  QCOMPARE(dr, std::int64_t(-1));
  QCOMPARE(sch.loopMark(root), schedule::LoopMark::Root);
  auto [inl, di] = at(-2);
  QCOMPARE(di, std::int64_t(-2));
  QCOMPARE(sch.loopMark(inl), schedule::LoopMark::Inline);
  auto notLoop = sch.apply("split", {root, TraceList{nullptr, 4}});
  QVERIFY(!notLoop);
  QCOMPARE(QString::fromStdString(notLoop.error().code), QString("schedule.split.loop-mark"));
  // A sampled loop feeds compute_at.
  must(sch.apply("compute_at", {b, l1}), sch);
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
  auto replay = schedule::replayTrace(sch.original(), sch.trace(), 1234);
  QVERIFY(replay);
  QVERIFY(ir::structuralEqual(replay->func(), sch.func()));
  // Invalid decision.
  const auto length = sch.trace().instructions.size();
  auto bad = sch.apply("sample_compute_location", {b}, {}, TraceValue(-3));
  QVERIFY(!bad);
  QCOMPARE(QString::fromStdString(bad.error().code), QString("schedule.sample_compute_location.bad-decision"));
  QCOMPARE(QString::fromStdString(refsOf(bad.error())), QString("block:B"));
  QCOMPARE(sch.trace().instructions.size(), length);

  // Output block without consumers: only root (and no inline: C writes the output).
  Schedule out(testing::parseProgram(testing::kTwoStage), 5);
  RV oc = must(out.apply("get_block", {}, {"C"}), out)[0];
  for (int k = 0; k < 10; ++k) {
    RV l = must(out.apply("sample_compute_location", {oc}), out)[0];
    QCOMPARE(out.loopMark(l), schedule::LoopMark::Root);
  }
}

QTEST_GUILESS_MAIN(TestSampling)
#include "tst_sampling.moc"
