// decompose_reduction and rfactor: printed results against golden files (TVM's printed
// form), interpreter equality with the original program (exact for integer programs,
// within 1e-5 for float sums whose order rfactor changes), and one refused case per
// precondition (code, references, unchanged program and trace).
#include "schedule_test_helpers.h"

#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/ir/substitute.h"
#include "core/schedule/instruction.h"
#include "core/schedule/ir_tree.h"
#include "core/schedule/schedule.h"

#include <QtTest>

using namespace loopscape;
using schedule::RV;
using schedule::Schedule;
using schedule::TraceList;
using schedule::TraceValue;

using testing::expectRefused;
using testing::refNames;

namespace {

const char* const kIntSum = "A = placeholder((16, 64), \"int32\", name=\"A\")\n"
                            "k = reduce_axis((0, 64), name=\"k\")\n"
                            "B = compute((16,), lambda i: sum(A[i, k], axis=k), name=\"B\")\n";
const char* const kIntMatmul = "A = placeholder((8, 12), \"int32\", name=\"A\")\n"
                               "B = placeholder((12, 16), \"int32\", name=\"B\")\n"
                               "k = reduce_axis((0, 12), name=\"k\")\n"
                               "C = compute((8, 16), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";
const char* const kRowSumScaled = "A = placeholder((4, 6), \"int32\", name=\"A\")\n"
                                  "k = reduce_axis((0, 6), name=\"k\")\n"
                                  "S = compute((4,), lambda i: sum(A[i, k], axis=k), name=\"S\")\n"
                                  "C = compute((4, 3), lambda i, j: S[i] * 2, name=\"C\")\n";
const char* const kMaxRows = "A = placeholder((8, 32), \"float32\", name=\"A\")\n"
                             "k = reduce_axis((0, 32), name=\"k\")\n"
                             "B = compute((8,), lambda i: max(A[i, k], axis=k), name=\"B\")\n";

RV one(const Expected<std::vector<RV>>& r) {
  if (!r) qFatal("%s", r.error().message.c_str());
  return r->at(0);
}
std::vector<RV> all(const Expected<std::vector<RV>>& r) {
  if (!r) qFatal("%s", r.error().message.c_str());
  return *r;
}

/// Interpreter results within atol = rtol = 1e-5 (rfactor reorders float sums).
QString compareClose(const ir::PrimFunc& a, const ir::PrimFunc& b) {
  std::vector<ir::NDArray> ra, rb;
  for (auto* args : {&ra, &rb}) {
    const auto& f = args == &ra ? a : b;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      ir::NDArray x(*ir::evalShape(f.params[i], {}), f.params[i]->dtype);
      if (i + 1 < f.params.size()) x.fillRandom(100 + i);
      args->push_back(x);
    }
    auto ok = ir::interpret(f, *args);
    if (!ok) return QString::fromStdString(renderDiagnostic(ok.error()));
  }
  if (auto m = ir::firstMismatch(rb.back(), ra.back(), 1e-5, 1e-5))
    return QString("differs at %1: %2 vs %3").arg(m->index).arg(m->actual).arg(m->expected);
  return {};
}

/// The function with the loop named `loop` turned into `kind`.
ir::PrimFunc withLoopKind(const ir::PrimFunc& f, const std::string& loop, ir::ForKind kind) {
  schedule::IrTree tree(f);
  for (const auto* b : tree.blocks())
    for (const auto* l : tree.loopsAbove(*b))
      if (l->loop()->loopVar.as<ir::Var>()->name == loop) {
        const auto* x = l->loop();
        ir::PrimFunc g = f;
        g.body = schedule::replaceStmt(f.body, l->node, ir::For::make(x->loopVar, x->min, x->extent, kind, x->body));
        return g;
      }
  qFatal("no loop %s", loop.c_str());
}

/// The function with block `name`'s init value replaced by `value`.
ir::PrimFunc withInitValue(const ir::PrimFunc& f, const std::string& name, const ir::Expr& value) {
  schedule::IrTree tree(f);
  const auto* b = tree.findBlock(name)->block();
  const auto* init = b->init.as<ir::BufferStore>();
  ir::PrimFunc g = f;
  g.body = schedule::replaceStmt(
      f.body, b,
      ir::Block::make(b->name, b->iterVars, b->reads, b->writes, b->body,
                      ir::BufferStore::make(init->buffer, value, init->indices), b->allocBuffers, b->annotations));
  return g;
}

} // namespace

class TstReduction : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void decomposeAtOutermost() {
    const auto f = testing::parseProgram(testing::kSmallMatmul);
    Schedule sch(f);
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto loops = all(sch.apply("get_loops", {c}));
    const RV init = one(sch.apply("decompose_reduction", {c, loops[0]}));
    QVERIFY2(testing::checkGolden("reduction_decompose_i", ir::printPrimFunc(sch.func())).isEmpty(),
             qPrintable(testing::checkGolden("reduction_decompose_i", ir::printPrimFunc(sch.func()))));
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
    // The returned RV is the init block; the old RV follows the renamed update block.
    QVERIFY(sch.block(init, "test").value()->block()->name == "C_init");
    QVERIFY(sch.block(c, "test").value()->block()->name == "C_update");
    QCOMPARE(all(sch.apply("get_loops", {c})).size(), std::size_t{3});
    // The trace replays to the same program.
    auto replay = schedule::replayTrace(f, sch.trace());
    QVERIFY(replay);
    QVERIFY(ir::structuralEqual(replay->func(), sch.func()));
  }

  void decomposeAtReduceLoop() {
    const auto f = testing::parseProgram(testing::kSmallMatmul);
    Schedule sch(f);
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto loops = all(sch.apply("get_loops", {c}));
    const auto parts = all(sch.apply("split", {loops[1], TraceList{nullptr, 8}}));
    sch.apply("reorder", {parts[0], loops[2], parts[1]}).value();
    // loops: i, j_0, k, j_1: decompose at k copies j_1 for the init.
    one(sch.apply("decompose_reduction", {c, loops[2]}));
    const auto text = ir::printPrimFunc(sch.func());
    QVERIFY2(testing::checkGolden("reduction_decompose_k", text).isEmpty(),
             qPrintable(testing::checkGolden("reduction_decompose_k", text)));
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void decomposeRefused() {
    const auto f = testing::parseProgram(testing::kSmallMatmul);
    Schedule sch(f);
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto loops = all(sch.apply("get_loops", {c}));
    sch.apply("reorder", {loops[2], loops[1]}).value(); // i, k, j
    // 3. j is below k, which feeds the reduce iterator.
    expectRefused(sch, "decompose_reduction", {c, loops[1]}, {}, "schedule.decompose_reduction.below-reduce-loop",
                  {"j", "C", "k"});
    // 1. a loop of another nest.
    const auto g = testing::parseProgram(testing::kTwoStage);
    Schedule two(g);
    const RV b = one(two.apply("get_block", {}, {"B"}));
    const RV cc = one(two.apply("get_block", {}, {"C"}));
    const auto cl = all(two.apply("get_loops", {cc}));
    expectRefused(two, "decompose_reduction", {b, cl[0]}, {}, "schedule.decompose_reduction.not-ancestor",
                  {"i", "B"});
    // 2. not a reduction block.
    const auto bl = all(two.apply("get_loops", {b}));
    expectRefused(two, "decompose_reduction", {b, bl[0]}, {}, "schedule.decompose_reduction.not-reduction", {"B"});
  }

  void decomposeRefusesRedundantLoop() {
    // Regression (differential test): after compute_at under C's loop j, the reduction S
    // is recomputed for every j (j feeds no iterator of S). An init placed before j would
    // run once per i while the update accumulates three times; TVM produces that program.
    const auto f = testing::parseProgram(kRowSumScaled);
    Schedule sch(f);
    const RV s = one(sch.apply("get_block", {}, {"S"}));
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto cl = all(sch.apply("get_loops", {c}));
    all(sch.apply("compute_at", {s, cl[1]}));
    const auto sl = all(sch.apply("get_loops", {s})); // i, j, ax0
    QCOMPARE(sl.size(), std::size_t{3});
    expectRefused(sch, "decompose_reduction", {s, sl[1]}, {}, "schedule.decompose_reduction.redundant-loop",
                  {"j", "S", "j"});
    expectRefused(sch, "decompose_reduction", {s, sl[0]}, {}, "schedule.decompose_reduction.redundant-loop",
                  {"i", "S", "j"});
    // Below j the init runs once per recomputation: legal, and the results are exact.
    one(sch.apply("decompose_reduction", {s, sl[2]}));
    const auto text = ir::printPrimFunc(sch.func());
    QVERIFY2(testing::checkGolden("reduction_decompose_after_compute_at", text).isEmpty(),
             qPrintable(testing::checkGolden("reduction_decompose_after_compute_at", text)));
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void decomposeRefusesReduceLoopOutsideScope() {
    // Regression (differential test): with k outside, partitioning i leaves the reduce
    // loop k above the partition blocks. An init decomposed inside a partition would
    // restart the sum at every k.
    const auto f = testing::parseProgram(kRowSumScaled);
    Schedule sch(f);
    const RV s = one(sch.apply("get_block", {}, {"S"}));
    const auto sl = all(sch.apply("get_loops", {s}));
    sch.apply("reorder", {sl[1], sl[0]}).value(); // k, i
    all(sch.apply("loop_partition", {sl[0], TraceList{2}}));
    const RV s0 = one(sch.apply("get_block", {}, {"S_i0"}));
    const auto inner = all(sch.apply("get_loops", {s0})); // i0 (the scope is S_i0_partition)
    QCOMPARE(inner.size(), std::size_t{1});
    expectRefused(sch, "decompose_reduction", {s0, inner[0]}, {}, "schedule.decompose_reduction.below-reduce-loop",
                  {"i0", "S_i0", "k"});
  }

  void rfactorMatmul() {
    const auto f = testing::parseProgram(testing::kSmallMatmul);
    Schedule sch(f);
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto loops = all(sch.apply("get_loops", {c}));
    const auto k = all(sch.apply("split", {loops[2], TraceList{nullptr, 4}}));
    const RV rf = one(sch.apply("rfactor", {k[1]}, {0}));
    const auto text = ir::printPrimFunc(sch.func());
    QVERIFY2(testing::checkGolden("reduction_rfactor_matmul", text).isEmpty(),
             qPrintable(testing::checkGolden("reduction_rfactor_matmul", text)));
    QCOMPARE(compareClose(f, sch.func()), QString());
    QVERIFY(sch.block(rf, "test").value()->block()->name == "C_rf");
    // The old RV is the write-back block, the loop RV its k_1 loop.
    QVERIFY(sch.block(c, "test").value()->block()->name == "C");
    QCOMPARE(all(sch.apply("get_loops", {c})).size(), std::size_t{3});
    QCOMPARE(all(sch.apply("get_loops", {rf})).size(), std::size_t{4});
    auto replay = schedule::replayTrace(f, sch.trace());
    QVERIFY(replay);
    QVERIFY(ir::structuralEqual(replay->func(), sch.func()));
  }

  void rfactorIntExact_data() {
    QTest::addColumn<int>("factorAxis");
    QTest::addColumn<QString>("golden");
    QTest::newRow("axis 0") << 0 << "reduction_rfactor_int_axis0";
    QTest::newRow("axis -1") << -1 << "reduction_rfactor_int_axis1";
  }
  void rfactorIntExact() {
    QFETCH(int, factorAxis);
    QFETCH(QString, golden);
    const auto f = testing::parseProgram(kIntSum);
    Schedule sch(f);
    const RV b = one(sch.apply("get_block", {}, {"B"}));
    const auto loops = all(sch.apply("get_loops", {b}));
    const auto k = all(sch.apply("split", {loops[1], TraceList{8, nullptr}}));
    one(sch.apply("rfactor", {k[0]}, {factorAxis}));
    const auto text = ir::printPrimFunc(sch.func());
    QVERIFY2(testing::checkGolden(golden, text).isEmpty(), qPrintable(testing::checkGolden(golden, text)));
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void rfactorKeepsPredicates() {
    // Regression (differential test): j (16) and k (12) split by 5 do not divide. The rf
    // block keeps the whole predicate (as TVM); the write-back block keeps the conjunct
    // over its own loops (j_0 * 5 + j_1 < 16: TVM drops it and writes v_j = 16) and drops
    // the one over the removed loop k_0.
    const auto f = testing::parseProgram(kIntMatmul);
    Schedule sch(f);
    const RV c = one(sch.apply("get_block", {}, {"C"}));
    const auto loops = all(sch.apply("get_loops", {c}));
    all(sch.apply("split", {loops[1], TraceList{nullptr, 5}}));
    const auto k = all(sch.apply("split", {loops[2], TraceList{nullptr, 5}}));
    one(sch.apply("rfactor", {k[1]}, {0}));
    const auto text = ir::printPrimFunc(sch.func());
    QVERIFY2(testing::checkGolden("reduction_rfactor_predicates", text).isEmpty(),
             qPrintable(testing::checkGolden("reduction_rfactor_predicates", text)));
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void rfactorMax() {
    const auto f = testing::parseProgram(kMaxRows);
    Schedule sch(f);
    const RV b = one(sch.apply("get_block", {}, {"B"}));
    const auto loops = all(sch.apply("get_loops", {b}));
    one(sch.apply("rfactor", {loops[1]}, {0}));
    const auto text = ir::printPrimFunc(sch.func());
    QVERIFY2(testing::checkGolden("reduction_rfactor_max", text).isEmpty(),
             qPrintable(testing::checkGolden("reduction_rfactor_max", text)));
    // max is exact whatever the order.
    QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
  }

  void rfactorRefused() {
    const auto f = testing::parseProgram(testing::kSmallMatmul);
    {
      Schedule sch(f);
      const RV c = one(sch.apply("get_block", {}, {"C"}));
      const auto loops = all(sch.apply("get_loops", {c}));
      // 11. factor_axis out of [-3, 2].
      expectRefused(sch, "rfactor", {loops[2]}, {3}, "schedule.rfactor.bad-factor-axis", {});
      // 7. i feeds a data-parallel iterator.
      expectRefused(sch, "rfactor", {loops[0]}, {0}, "schedule.rfactor.not-reduction-loop", {"i", "C"});
      // 1. after decompose_reduction at k, j holds two blocks.
      one(sch.apply("decompose_reduction", {c, loops[2]}));
      expectRefused(sch, "rfactor", {loops[1]}, {0}, "schedule.rfactor.not-single-block", {"j"});
      // 3. C_update has no init any more.
      expectRefused(sch, "rfactor", {loops[2]}, {0}, "schedule.rfactor.not-reduction", {"C_update"});
    }
    {
      // 4. an unrolled loop.
      Schedule sch(withLoopKind(f, "k", ir::ForKind::Unrolled));
      const RV c = one(sch.apply("get_block", {}, {"C"}));
      const auto loops = all(sch.apply("get_loops", {c}));
      expectRefused(sch, "rfactor", {loops[2]}, {0}, "schedule.rfactor.not-serial", {"k"});
    }
    {
      // 6. a loop feeding both kinds: fuse i and k.
      Schedule sch(f);
      const RV c = one(sch.apply("get_block", {}, {"C"}));
      const auto loops = all(sch.apply("get_loops", {c}));
      sch.apply("reorder", {loops[2], loops[1]}).value();
      one(sch.apply("fuse", {loops[0], loops[2]}));
      expectRefused(sch, "rfactor", {loops[1]}, {0}, "schedule.rfactor.mixed-loop", {"i_k_fused", "C"});
    }
    {
      // 5. the producer D computed at loop i comes first in it.
      const auto g = testing::parseProgram("A = placeholder((8, 32), \"float32\", name=\"A\")\n"
                                           "D = compute((8, 32), lambda i, k: A[i, k] * 2.0, name=\"D\")\n"
                                           "k = reduce_axis((0, 32), name=\"k\")\n"
                                           "C = compute((8,), lambda i: sum(D[i, k], axis=k), name=\"C\")\n");
      Schedule sch(g);
      const RV d = one(sch.apply("get_block", {}, {"D"}));
      const RV c = one(sch.apply("get_block", {}, {"C"}));
      const auto loops = all(sch.apply("get_loops", {c}));
      QVERIFY(sch.apply("compute_at", {d, loops[0]}));
      expectRefused(sch, "rfactor", {loops[1]}, {0}, "schedule.rfactor.not-first-child", {"i", "C"});
    }
    {
      // 10. init value that is not the identity of +.
      Schedule sch(withInitValue(f, "C", ir::floatImm(1.0)));
      const RV c = one(sch.apply("get_block", {}, {"C"}));
      const auto loops = all(sch.apply("get_loops", {c}));
      expectRefused(sch, "rfactor", {loops[2]}, {0}, "schedule.rfactor.no-reducer", {"C"});
    }
  }
};

QTEST_GUILESS_MAIN(TstReduction)
#include "tst_reduction.moc"
