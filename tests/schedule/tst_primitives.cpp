// The typed entry points (core/schedule/primitives.h) against applying the same
// instructions by name: every case runs once through the typed API and once through
// Schedule::apply("name", ...) on a fresh schedule of the same program, and the two must
// give the same program, the same trace (as TVM Python and as JSON) and, when refused, the
// same error with the state untouched.
#include "schedule_test_helpers.h"

#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/schedule/instruction.h"
#include "core/schedule/primitives.h"
#include "core/schedule/schedule_error.h"
#include "core/schedule/tile.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_python.h"

#include <QtTest>

#include <functional>

using namespace loopscape;
using namespace loopscape::schedule;

namespace {

using Steps = std::function<Expected<void>(Schedule&)>;

/// Unwraps a typed result inside a case (the error ends the case).
#define TRY(var, expr)                                                                                                 \
  auto var = (expr);                                                                                                   \
  if (!var) return Unexpected(var.error())
#define TRY_VOID(expr)                                                                                                 \
  if (auto ok_ = (expr); !ok_) return Unexpected(ok_.error())

Expected<std::vector<RV>> byName(Schedule& sch, std::string_view kind, std::vector<TraceValue> inputs,
                                 std::vector<TraceValue> attrs = {}, std::optional<TraceValue> decision = {}) {
  return sch.apply(kind, std::move(inputs), std::move(attrs), std::move(decision));
}

/// The result without its value.
template <typename T> Expected<void> done(Expected<T> r) {
  if (!r) return Unexpected(r.error());
  return {};
}

IndexMap transpose() {
  ir::Expr i = ir::Var::make("i"), j = ir::Var::make("j");
  return IndexMap{{i, j}, {j, i}};
}

struct Outcome {
  bool ok = false;
  std::string code;
  std::string program;
  std::string python;
  std::string json;
};

Outcome run(const std::string& source, const Steps& steps) {
  Schedule sch(testing::parseProgram(source));
  auto r = steps(sch);
  Outcome o;
  o.ok = r.has_value();
  if (!r) o.code = r.error().code;
  o.program = ir::printPrimFunc(sch.func());
  o.python = traceToPython(sch.trace());
  o.json = traceToJson(sch.trace());
  return o;
}

} // namespace

Q_DECLARE_METATYPE(Steps)

class TestPrimitives : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void typedEqualsByName_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<Steps>("typed");
    QTest::addColumn<Steps>("named");
    QTest::addColumn<bool>("succeeds");
    const QString matmul = QString::fromLatin1(testing::kSmallMatmul);
    const QString twoStage = QString::fromLatin1(testing::kTwoStage);

    QTest::newRow("split fuse reorder") << matmul << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, getBlock(sch, "C"));
      TRY(l, getLoops(sch, *b));
      TRY(parts, split(sch, (*l)[0], {std::nullopt, 16}));
      TRY(fused, fuse(sch, {(*parts)[1], (*l)[1]}));
      return reorder(sch, {(*l)[2], *fused});
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, byName(sch, "get_block", {}, {"C", "main"}));
      TRY(l, byName(sch, "get_loops", {(*b)[0]}));
      TRY(parts, byName(sch, "split", {(*l)[0], TraceList{nullptr, 16}}));
      TRY(fused, byName(sch, "fuse", {(*parts)[1], (*l)[1]}));
      return done(byName(sch, "reorder", {(*l)[2], (*fused)[0]}));
    }) << true;
    QTest::newRow("loop kinds and annotations") << matmul << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, getBlock(sch, "C"));
      TRY(l, getLoops(sch, *b));
      TRY_VOID(parallel(sch, (*l)[0]));
      TRY_VOID(unroll(sch, (*l)[2]));
      TRY_VOID(annotate(sch, *b, "key", 16));
      TRY_VOID(annotate(sch, (*l)[1], "s", "x"));
      return unannotate(sch, *b, "key");
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, byName(sch, "get_block", {}, {"C"}));
      TRY(l, byName(sch, "get_loops", {(*b)[0]}));
      TRY_VOID(byName(sch, "parallel", {(*l)[0]}));
      TRY_VOID(byName(sch, "unroll", {(*l)[2]}));
      TRY_VOID(byName(sch, "annotate", {(*b)[0], 16}, {"key"}));
      TRY_VOID(byName(sch, "annotate", {(*l)[1], "x"}, {"s"}));
      return done(byName(sch, "unannotate", {(*b)[0]}, {"key"}));
    }) << true;
    QTest::newRow("bind vectorize") << matmul << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, getBlock(sch, "C"));
      TRY(l, getLoops(sch, *b));
      TRY_VOID(bind(sch, (*l)[0], "blockIdx.x"));
      return vectorize(sch, (*l)[1]);
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, byName(sch, "get_block", {}, {"C"}));
      TRY(l, byName(sch, "get_loops", {(*b)[0]}));
      TRY_VOID(byName(sch, "bind", {(*l)[0]}, {"blockIdx.x"}));
      return done(byName(sch, "vectorize", {(*l)[1]}));
    }) << true;
    QTest::newRow("sampling") << matmul << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, getBlock(sch, "C"));
      TRY(l, getLoops(sch, *b));
      TRY(f, samplePerfectTile(sch, (*l)[0], 2, 16));
      TRY_VOID(split(sch, (*l)[0], *f));
      TRY(g, samplePerfectTile(sch, (*l)[1], 2, 8, std::vector<std::int64_t>{4, 8}));
      TRY_VOID(split(sch, (*l)[1], *g));
      TRY(v, sampleCategorical(sch, {4, 8}, {0.5, 0.5}));
      TRY_VOID(annotate(sch, *b, "unroll", RV(*v)));
      TRY(w, sampleCategorical(sch, {1, 2, 3}, {1.0, 1.0, 1.0}, 2));
      return annotate(sch, *b, "other", RV(*w));
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, byName(sch, "get_block", {}, {"C"}));
      TRY(l, byName(sch, "get_loops", {(*b)[0]}));
      TRY(f, byName(sch, "sample_perfect_tile", {(*l)[0]}, {2, 16}));
      TRY_VOID(byName(sch, "split", {(*l)[0], TraceList((*f).begin(), (*f).end())}));
      TRY(g, byName(sch, "sample_perfect_tile", {(*l)[1]}, {2, 8}, TraceList{4, 8}));
      TRY_VOID(byName(sch, "split", {(*l)[1], TraceList((*g).begin(), (*g).end())}));
      TRY(v, byName(sch, "sample_categorical", {}, {TraceList{4, 8}, TraceList{0.5, 0.5}}));
      TRY_VOID(byName(sch, "annotate", {(*b)[0], (*v)[0]}, {"unroll"}));
      TRY(w, byName(sch, "sample_categorical", {}, {TraceList{1, 2, 3}, TraceList{1.0, 1.0, 1.0}}, 2));
      return done(byName(sch, "annotate", {(*b)[0], (*w)[0]}, {"other"}));
    }) << true;
    QTest::newRow("compute_at and sample_compute_location") << twoStage << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, getBlock(sch, "B"));
      TRY(c, getBlock(sch, "C"));
      TRY(where, sampleComputeLocation(sch, *b));
      TRY(l, getLoops(sch, *c));
      return computeAt(sch, *b, (*l)[1]);
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, byName(sch, "get_block", {}, {"B"}));
      TRY(c, byName(sch, "get_block", {}, {"C"}));
      TRY(where, byName(sch, "sample_compute_location", {(*b)[0]}));
      TRY(l, byName(sch, "get_loops", {(*c)[0]}));
      return done(byName(sch, "compute_at", {(*b)[0], (*l)[1]}));
    }) << true;
    QTest::newRow("reverse_compute_at") << twoStage << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, getBlock(sch, "B"));
      TRY(c, getBlock(sch, "C"));
      TRY(l, getLoops(sch, *b));
      return reverseComputeAt(sch, *c, (*l)[0], true);
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, byName(sch, "get_block", {}, {"B"}));
      TRY(c, byName(sch, "get_block", {}, {"C"}));
      TRY(l, byName(sch, "get_loops", {(*b)[0]}));
      return done(byName(sch, "reverse_compute_at", {(*c)[0], (*l)[0]}, {true}));
    }) << true;
    QTest::newRow("compute_inline") << twoStage << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, getBlock(sch, "B"));
      return computeInline(sch, *b);
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, byName(sch, "get_block", {}, {"B"}));
      return done(byName(sch, "compute_inline", {(*b)[0]}));
    }) << true;
    QTest::newRow("reverse_compute_inline") << twoStage << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, getBlock(sch, "C"));
      return reverseComputeInline(sch, *c);
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, byName(sch, "get_block", {}, {"C"}));
      return done(byName(sch, "reverse_compute_inline", {(*c)[0]}));
    }) << true;
    QTest::newRow("caches") << matmul << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, getBlock(sch, "C"));
      TRY_VOID(cacheRead(sch, *c, 0, "shared"));
      TRY_VOID(cacheRead(sch, *c, 1, "shared", std::vector<BlockRV>{}));
      return done(cacheWrite(sch, *c, 0, "local"));
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, byName(sch, "get_block", {}, {"C"}));
      TRY_VOID(byName(sch, "cache_read", {(*c)[0], nullptr}, {0, "shared"}));
      TRY_VOID(byName(sch, "cache_read", {(*c)[0], TraceList{}}, {1, "shared"}));
      return done(byName(sch, "cache_write", {(*c)[0], nullptr}, {0, "local"}));
    }) << true;
    QTest::newRow("storage") << twoStage << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, getBlock(sch, "B"));
      TRY_VOID(setScope(sch, *b, 0, "shared"));
      return storageAlign(sch, *b, 0, 0, 32, 1);
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, byName(sch, "get_block", {}, {"B"}));
      TRY_VOID(byName(sch, "set_scope", {(*b)[0]}, {0, "shared"}));
      return done(byName(sch, "storage_align", {(*b)[0]}, {0, 0, 32, 1}));
    }) << true;
    QTest::newRow("reductions") << matmul << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, getBlock(sch, "C"));
      TRY(l, getLoops(sch, *c));
      TRY(parts, split(sch, (*l)[2], {std::nullopt, 4}));
      TRY_VOID(rfactor(sch, (*parts)[1], 0));
      TRY(c2, getBlock(sch, "C"));
      TRY(l2, getLoops(sch, *c2));
      return done(decomposeReduction(sch, *c2, (*l2)[0]));
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, byName(sch, "get_block", {}, {"C"}));
      TRY(l, byName(sch, "get_loops", {(*c)[0]}));
      TRY(parts, byName(sch, "split", {(*l)[2], TraceList{nullptr, 4}}));
      TRY_VOID(byName(sch, "rfactor", {(*parts)[1]}, {0}));
      TRY(c2, byName(sch, "get_block", {}, {"C"}));
      TRY(l2, byName(sch, "get_loops", {(*c2)[0]}));
      return done(byName(sch, "decompose_reduction", {(*c2)[0], (*l2)[0]}));
    }) << true;
    QTest::newRow("blockize unit loop partition") << matmul << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, getBlock(sch, "C"));
      TRY_VOID(addUnitLoop(sch, *c));
      TRY(l, getLoops(sch, *c));
      TRY_VOID(blockize(sch, (*l)[2]));
      return done(loopPartition(sch, (*l)[0], {std::nullopt, 16}));
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, byName(sch, "get_block", {}, {"C"}));
      TRY_VOID(byName(sch, "add_unit_loop", {(*c)[0]}));
      TRY(l, byName(sch, "get_loops", {(*c)[0]}));
      TRY_VOID(byName(sch, "blockize", {(*l)[2]}));
      return done(byName(sch, "loop_partition", {(*l)[0], TraceList{nullptr, 16}}));
    }) << true;
    QTest::newRow("transform_layout and queries") << twoStage << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, getBlock(sch, "B"));
      TRY(l, getLoops(sch, *b));
      TRY_VOID(getChildBlocks(sch, (*l)[0]));
      TRY_VOID(getConsumers(sch, *b));
      TRY(c, getBlock(sch, "C"));
      TRY_VOID(getProducers(sch, *c));
      return transformLayout(sch, *b, {BufferIndex::Kind::Write, 0}, transpose());
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(b, byName(sch, "get_block", {}, {"B"}));
      TRY(l, byName(sch, "get_loops", {(*b)[0]}));
      TRY_VOID(byName(sch, "get_child_blocks", {(*l)[0]}));
      TRY_VOID(byName(sch, "get_consumers", {(*b)[0]}));
      TRY(c, byName(sch, "get_block", {}, {"C"}));
      TRY_VOID(byName(sch, "get_producers", {(*c)[0]}));
      return done(byName(sch, "transform_layout", {(*b)[0], TraceList{"write", 0}, transpose()}));
    }) << true;
    // Refusals are the same refusals: a block RV where a loop is expected, and an
    // illegal compute_at (B under a loop of its own nest).
    QTest::newRow("refused: a block for a loop") << matmul << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, getBlock(sch, "C"));
      return parallel(sch, LoopRV(RV(*c)));
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, byName(sch, "get_block", {}, {"C"}));
      return done(byName(sch, "parallel", {(*c)[0]}));
    }) << false;
    QTest::newRow("refused: split factors") << matmul << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, getBlock(sch, "C"));
      TRY(l, getLoops(sch, *c));
      return done(split(sch, (*l)[0], {std::nullopt, std::nullopt}));
    }) << Steps([](Schedule& sch) -> Expected<void> {
      TRY(c, byName(sch, "get_block", {}, {"C"}));
      TRY(l, byName(sch, "get_loops", {(*c)[0]}));
      return done(byName(sch, "split", {(*l)[0], TraceList{nullptr, nullptr}}));
    }) << false;
  }

  void typedEqualsByName() {
    QFETCH(QString, source);
    QFETCH(Steps, typed);
    QFETCH(Steps, named);
    QFETCH(bool, succeeds);
    const Outcome a = run(source.toStdString(), typed);
    const Outcome b = run(source.toStdString(), named);
    QVERIFY2(a.ok == succeeds, a.code.c_str());
    QCOMPARE(b.ok, a.ok);
    QCOMPARE(b.code, a.code);
    QCOMPARE(a.program, b.program);
    QCOMPARE(a.python, b.python);
    QCOMPARE(a.json, b.json);
  }

  void refusedTypedCallChangesNothing() {
    Schedule sch(testing::parseProgram(testing::kSmallMatmul));
    auto c = getBlock(sch, "C");
    QVERIFY(c);
    const std::string before = traceToPython(sch.trace());
    const std::string program = ir::printPrimFunc(sch.func());
    auto r = computeInline(sch, *c); // C writes the output: it cannot be inlined
    QVERIFY(!r);
    QCOMPARE(traceToPython(sch.trace()), before);
    QCOMPARE(ir::printPrimFunc(sch.func()), program);
  }

  void tileRecordsTypedSplitsAndReorder() {
    Schedule sch(testing::parseProgram(testing::kSmallMatmul));
    auto c = getBlock(sch, "C");
    QVERIFY(c);
    auto l = getLoops(sch, *c);
    QVERIFY(l);
    auto tiled = tile(sch, {(*l)[0], (*l)[1]}, {16, 8});
    QVERIFY(tiled);
    const std::string python = traceToPython(sch.trace());
    QVERIFY2(python.find("sch.split(loop=l1, factors=[None, 16]") != std::string::npos, python.c_str());
    QVERIFY2(python.find("sch.reorder(l4, l6, l5, l7)") != std::string::npos, python.c_str());
  }

  void everyKindCarriesItsMetadata() {
    for (const InstructionKind* k : instructionKinds()) {
      QCOMPARE(k->inputSpecs.size(), k->inputNames.size());
      QVERIFY2(!k->description.empty(), k->name.data());
      for (const AttrSpec& a : k->attrs)
        QVERIFY2(a.kind != ParamKind::Auto, a.name.data());
      // A kind the views offer for a selection is a step with a shortcut; lookups and
      // sampling are offered for none and join the next step.
      QCOMPARE(k->appliesTo != AppliesTo::Nothing, k->isStep);
      if (k->isStep) QVERIFY2(!k->shortcut.empty(), k->name.data());
    }
  }
};

QTEST_GUILESS_MAIN(TestPrimitives)
#include "tst_primitives.moc"
