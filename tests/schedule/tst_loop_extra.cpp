// Tests of add_unit_loop, loop_partition (TVM's partition structure and naming) and the
// tile helper (split + reorder, recorded as those instructions).
#include "schedule_test_helpers.h"

#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_error.h"
#include "core/schedule/tile.h"

#include <QtTest>

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

QString golden(const char* name, const Schedule& sch) {
  return testing::checkGolden(name, ir::printPrimFunc(sch.func()));
}

const char* const kVector = "A = placeholder((100,), \"float32\", name=\"A\")\n"
                            "B = compute((100,), lambda i: A[i] * 2.0, name=\"B\")\n";

const char* const kDynamic = "n = var(\"n\")\n"
                             "A = placeholder((n, 8), \"float32\", name=\"A\")\n"
                             "B = compute((n, 8), lambda i, j: A[i, j] + 1.0, name=\"B\")\n";

const char* const kIntMatmul = "A = placeholder((8, 12), \"int32\", name=\"A\")\n"
                               "B = placeholder((12, 16), \"int32\", name=\"B\")\n"
                               "k = reduce_axis((0, 12), name=\"k\")\n"
                               "C = compute((8, 16), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";

} // namespace

class TestLoopExtra : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void addUnitLoopOnBlockAndLoop();
  void partitionWithNone();
  void partitionRemainder();
  void partitionMatmulReplays();
  void partitionRegionsThenCacheWrite();
  void partitionRefused_data();
  void partitionRefused();
  void tileMatmul();
  void tileRefusedIsAtomic();
};

void TestLoopExtra::addUnitLoopOnBlockAndLoop() {
  Schedule sch(testing::parseProgram(testing::kTwoStage));
  RV b = must(sch.apply("get_block", {}, {"B"}), sch)[0];
  RV c = must(sch.apply("get_block", {}, {"C"}), sch)[0];
  RV u1 = must(sch.apply("add_unit_loop", {b}), sch)[0];
  auto loopsC = must(sch.apply("get_loops", {c}), sch);
  RV u2 = must(sch.apply("add_unit_loop", {loopsC[0]}), sch)[0];
  QCOMPARE(u1.kind, schedule::RVKind::Loop);
  auto loopsB = must(sch.apply("get_loops", {b}), sch);
  QCOMPARE(loopsB.size(), std::size_t(3));
  auto uB = sch.loop(u1, "test");
  QVERIFY(uB);
  QCOMPARE((*uB)->loop()->loopVar.as<ir::Var>()->name, std::string("u"));
  QCOMPARE(*ir::asConstInt((*uB)->loop()->extent), std::int64_t(1));
  auto uC = sch.loop(u2, "test");
  QVERIFY(uC);
  QCOMPARE(sch.tree().loopsAbove(*sch.tree().findBlock("C")).front(), *uC);
  QVERIFY2(golden("loop_extra_add_unit_loop", sch).isEmpty(), qPrintable(golden("loop_extra_add_unit_loop", sch)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

void TestLoopExtra::partitionWithNone() {
  Schedule sch(testing::parseProgram(kVector));
  RV b = must(sch.apply("get_block", {}, {"B"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {b}), sch);
  auto parts = must(sch.apply("loop_partition", {loops[0], TraceList{nullptr, 32}}), sch);
  QCOMPARE(parts.size(), std::size_t(2));
  // [0, 68) and [68, 100), loop variables i0 and i1, blocks B_i0 and B_i1.
  auto p0 = sch.loop(parts[0], "test");
  auto p1 = sch.loop(parts[1], "test");
  QVERIFY(p0 && p1);
  QCOMPARE((*p0)->loop()->loopVar.as<ir::Var>()->name, std::string("i0"));
  QCOMPARE(*ir::asConstInt((*p0)->loop()->min), std::int64_t(0));
  QCOMPARE(*ir::asConstInt((*p0)->loop()->extent), std::int64_t(68));
  QCOMPARE(*ir::asConstInt((*p1)->loop()->min), std::int64_t(68));
  QCOMPARE(*ir::asConstInt((*p1)->loop()->extent), std::int64_t(32));
  QVERIFY(sch.tree().findBlock("B_i0"));
  QVERIFY(sch.tree().findBlock("B_i1"));
  QVERIFY(sch.tree().findBlock("B_i_common"));
  QVERIFY(sch.tree().findBlock("B_i0_partition"));
  QVERIFY(!sch.tree().findBlock("B"));
  const auto& iv = sch.tree().findBlock("B_i1")->block()->iterVars[0];
  QCOMPARE(*ir::asConstInt(iv.dom.min), std::int64_t(68));
  QCOMPARE(*ir::asConstInt(iv.dom.extent), std::int64_t(32));
  QVERIFY2(golden("loop_extra_partition_none", sch).isEmpty(), qPrintable(golden("loop_extra_partition_none", sch)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
  // The old block RV is gone.
  auto stale = sch.apply("get_loops", {b});
  QVERIFY(!stale);
  QCOMPARE(QString::fromStdString(stale.error().code), QString("schedule.get_loops.stale-rv"));
}

void TestLoopExtra::partitionRemainder() {
  Schedule sch(testing::parseProgram(kVector));
  RV b = must(sch.apply("get_block", {}, {"B"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {b}), sch);
  // No None: a third range covers the remainder [40, 100).
  auto parts = must(sch.apply("loop_partition", {loops[0], TraceList{16, 24}}), sch);
  QCOMPARE(parts.size(), std::size_t(3));
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  for (const auto& p : parts) {
    auto l = sch.loop(p, "test");
    QVERIFY(l);
    ranges.emplace_back(*ir::asConstInt((*l)->loop()->min), *ir::asConstInt((*l)->loop()->extent));
  }
  QCOMPARE(ranges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 16}, {16, 24}, {40, 60}}));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

void TestLoopExtra::partitionMatmulReplays() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {c}), sch);
  auto parts = must(sch.apply("loop_partition", {loops[1], TraceList{nullptr, 12}}), sch);
  // The partition loops are ordinary loops: split one, parallelize the other.
  must(sch.apply("split", {parts[0], TraceList{nullptr, 4}}), sch);
  must(sch.apply("parallel", {loops[0]}), sch);
  QVERIFY2(golden("loop_extra_partition_matmul", sch).isEmpty(),
           qPrintable(golden("loop_extra_partition_matmul", sch)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
  auto replay = schedule::replayTrace(sch.original(), sch.trace());
  QVERIFY(replay);
  QVERIFY(ir::structuralEqual(replay->func(), sch.func()));
}

void TestLoopExtra::partitionRegionsThenCacheWrite() {
  // Regression (differential test): the copies declared their iterators' whole domains
  // (C[0:8, 0:13] for one element), so cache_write copied back elements the block never
  // wrote. The copies keep their exact regions; the partition blocks declare what their
  // loop accesses, and the common block what the whole loop accesses.
  Schedule sch(testing::parseProgram(kIntMatmul));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {c}), sch);
  must(sch.apply("loop_partition", {loops[1], TraceList{nullptr, 3}}), sch);
  const auto* copy = sch.tree().findBlock("C_j0");
  QVERIFY(copy);
  QCOMPARE(QString::fromStdString(ir::printExpr(copy->block()->writes[0].region[1].min)), QString("v_j"));
  QVERIFY(ir::isConstInt(copy->block()->writes[0].region[1].extent, 1));
  RV c0 = must(sch.apply("get_block", {}, {"C_j0"}), sch)[0];
  must(sch.apply("cache_write", {c0, TraceList{}}, {0, "shared"}), sch);
  QVERIFY2(golden("loop_extra_partition_cache_write", sch).isEmpty(),
           qPrintable(golden("loop_extra_partition_cache_write", sch)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

void TestLoopExtra::partitionRefused_data() {
  QTest::addColumn<QString>("program");
  QTest::addColumn<int>("setup"); // 0 none, 1 annotate the loop, 3 add a block named B_i0, 4 matmul's loop k
  QTest::addColumn<QVariantList>("factors"); // -1: None
  QTest::addColumn<QString>("code");
  QTest::addColumn<QString>("refs");
  QTest::addColumn<QString>("message");
  QTest::newRow("symbolic") << kDynamic << 0 << QVariantList{-1, 2} << "schedule.loop_partition.symbolic-shape"
                            << "loop:i" << "the min and extent of loop 'i' must be constants; its extent is n";
  QTest::newRow("two None") << kVector << 0 << QVariantList{-1, -1} << "schedule.loop_partition.multiple-none"
                            << "loop:i" << "loop_partition of loop 'i': at most one factor may be None";
  QTest::newRow("zero factor") << kVector << 0 << QVariantList{0, 10} << "schedule.loop_partition.bad-factor"
                               << "loop:i" << "loop_partition factor 0 of loop 'i' is not positive";
  QTest::newRow("sum too large") << kVector << 0 << QVariantList{60, 40} << "schedule.loop_partition.factor-sum"
                                 << "loop:i"
                                 << "loop_partition of loop 'i': the factors sum to 100, which is not less than the "
                                    "extent 100";
  QTest::newRow("None leaves nothing") << kVector << 0 << QVariantList{-1, 100}
                                       << "schedule.loop_partition.factor-sum" << "loop:i" << "";
  QTest::newRow("annotated") << kVector << 1 << QVariantList{-1, 10} << "schedule.loop_partition.annotated-loop"
                             << "loop:i"
                             << "the loop 'i' has annotations; loop_partition needs a loop without annotations or "
                                "thread binding";
  QTest::newRow("reduce loop") << testing::kSmallMatmul << 4 << QVariantList{-1, 16}
                               << "schedule.loop_partition.reduce-loop" << "loop:k,block:C"
                               << "the loop 'k' is bound to the reduce iterator 'v_k' of block 'C', which has an init: "
                                  "every partition would restart the reduction";
  QTest::newRow("name clash") << kVector << 3 << QVariantList{-1, 10} << "schedule.loop_partition.name-clash"
                              << "loop:i,block:B_i0" << "";
}

void TestLoopExtra::partitionRefused() {
  QFETCH(QString, program);
  QFETCH(int, setup);
  QFETCH(QVariantList, factors);
  QFETCH(QString, code);
  QFETCH(QString, refs);
  QFETCH(QString, message);
  std::string source = program.toStdString();
  if (setup == 3) source += "B_i0 = compute((100,), lambda i: B[i] + 1.0, name=\"B_i0\")\n";
  Schedule sch(testing::parseProgram(source));
  RV b = must(sch.apply("get_block", {}, {setup == 4 ? "C" : "B"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {b}), sch);
  if (setup == 4) loops = {loops[2]};
  if (setup == 1) must(sch.apply("annotate", {loops[0], 1}, {"k"}), sch);
  TraceList fs;
  for (const auto& f : factors) fs.push_back(f.toInt() < 0 ? TraceValue() : TraceValue(f.toInt()));
  const ir::PrimFunc before = sch.func();
  const auto length = sch.trace().instructions.size();
  auto r = sch.apply("loop_partition", {loops[0], fs});
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), code);
  QCOMPARE(QString::fromStdString(refsOf(r.error())), refs);
  if (!message.isEmpty()) QCOMPARE(QString::fromStdString(r.error().message), message);
  QVERIFY(sch.func().body.sameAs(before.body));
  QCOMPARE(sch.trace().instructions.size(), length);
}

void TestLoopExtra::tileMatmul() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {c}), sch);
  auto tiles = schedule::tile(sch, {loops[0], loops[1]}, {16, 8});
  QVERIFY(tiles);
  QCOMPARE(tiles->size(), std::size_t(4));
  auto names = [&](const RV& rv) { return (*sch.loop(rv, "test"))->loop()->loopVar.as<ir::Var>()->name; };
  QCOMPARE(names((*tiles)[0]), std::string("i_0"));
  QCOMPARE(names((*tiles)[1]), std::string("j_0"));
  QCOMPARE(names((*tiles)[2]), std::string("i_1"));
  QCOMPARE(names((*tiles)[3]), std::string("j_1"));
  // Recorded as split, split, reorder: a plain TVM trace.
  std::vector<std::string_view> kinds;
  for (const auto& inst : sch.trace().instructions) kinds.push_back(inst.kind->name);
  QCOMPARE(kinds, (std::vector<std::string_view>{"get_block", "get_loops", "split", "split", "reorder"}));
  QVERIFY2(golden("loop_extra_tile_matmul", sch).isEmpty(), qPrintable(golden("loop_extra_tile_matmul", sch)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

void TestLoopExtra::tileRefusedIsAtomic() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch)[0];
  auto loops = must(sch.apply("get_loops", {c}), sch);
  const ir::PrimFunc before = sch.func();
  auto bad = schedule::tile(sch, {loops[0], loops[1]}, {16});
  QVERIFY(!bad);
  QCOMPARE(QString::fromStdString(bad.error().code), QString("schedule.tile.bad-arguments"));
  // The second split fails after the first succeeded: nothing is kept.
  auto zero = schedule::tile(sch, {loops[0], loops[1]}, {16, 0});
  QVERIFY(!zero);
  QCOMPARE(QString::fromStdString(zero.error().code), QString("schedule.split.bad-factor"));
  QVERIFY(sch.func().body.sameAs(before.body));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(2));
  auto stillThere = sch.loop(loops[0], "test");
  QVERIFY(stillThere);
}

QTEST_GUILESS_MAIN(TestLoopExtra)
#include "tst_loop_extra.moc"
