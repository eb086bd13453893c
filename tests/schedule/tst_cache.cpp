// Tests of the caching family: cache_read, cache_write, set_scope, storage_align. Each
// scheduled program is compared with a golden file (what TVM prints for the same
// schedule) and run by the interpreter against the original; every documented
// precondition has a refused case (code, references, unchanged program and trace).
#include "schedule_test_helpers.h"

#include "core/ir/mutator.h"
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/ir/substitute.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_error.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

#include <functional>

using namespace loopscape;
using schedule::RV;
using schedule::Schedule;
using schedule::TraceList;
using schedule::TraceValue;

namespace {

// Two consumers of one intermediate: B = A * 2; C = B + 1; D = B * 3.
const char* const kTwoConsumers = "A = placeholder((32, 16), \"float32\", name=\"A\")\n"
                                  "B = compute((32, 16), lambda i, j: A[i, j] * 2.0, name=\"B\")\n"
                                  "C = compute((32, 16), lambda i, j: B[i, j] + 1.0, name=\"C\")\n"
                                  "D = compute((32, 16), lambda i, j: B[i, j] * 3.0, name=\"D\")\n";

RV blockRV(Schedule& sch, const char* name) {
  auto b = sch.apply("get_block", {}, {name});
  if (!b) qFatal("no block %s", name);
  return (*b)[0];
}

QString fail(const Schedule& sch, const Diagnostic& d) {
  return QString::fromStdString(schedule::renderScheduleError(d, sch.func()));
}

/// Rewrites every statement of `f`'s root body with `fn` applied to the root block.
ir::PrimFunc withRoot(const ir::PrimFunc& f, const std::function<ir::Stmt(const ir::Block&)>& fn) {
  ir::PrimFunc out = f;
  const auto* realize = f.body.as<ir::BlockRealize>();
  out.body = ir::BlockRealize::make(realize->iterValues, realize->predicate, fn(realize->blockNode()));
  return out;
}

/// kTwoStage with a second writer "B2" of the intermediate B (a copy of B's loop nest
/// with fresh loop variables), between B and C.
ir::PrimFunc twoWriters() {
  return withRoot(testing::parseProgram(testing::kTwoStage), [](const ir::Block& root) {
    const auto& seq = root.body.as<ir::SeqStmt>()->seq;
    const auto* outer = seq[0].as<ir::For>();
    const auto* inner = outer->body.as<ir::For>();
    ir::Expr i2 = ir::Var::make("i2"), j2 = ir::Var::make("j2");
    struct Rename final : ir::StmtMutator {
      ir::Expr visitExpr(const ir::Expr& e) override { return e; }
      ir::Stmt visitBlock(const ir::Block& op, const ir::Stmt&) override {
        return ir::Block::make("B2", op.iterVars, op.reads, op.writes, op.body, op.init, op.allocBuffers,
                               op.annotations);
      }
    } rename;
    ir::Stmt body = ir::substitute(rename.mutate(inner->body), {{outer->loopVar.get(), i2}, {inner->loopVar.get(), j2}});
    body = ir::For::make(i2, outer->min, outer->extent, ir::ForKind::Serial,
                         ir::For::make(j2, inner->min, inner->extent, ir::ForKind::Serial, body));
    return ir::Block::make(root.name, root.iterVars, root.reads, root.writes, ir::SeqStmt::make({seq[0], body, seq[1]}),
                           root.init, root.allocBuffers, root.annotations);
  });
}

/// kTwoStage whose intermediate B is declared by an Allocate statement, not alloc_buffer.
ir::PrimFunc allocateStatement() {
  return withRoot(testing::parseProgram(testing::kTwoStage), [](const ir::Block& root) {
    return ir::Block::make(root.name, root.iterVars, root.reads, root.writes,
                           ir::Allocate::make(root.allocBuffers.at(0), root.body), root.init, {}, root.annotations);
  });
}

/// kTwoStage whose block B carries a "buffer_dim_align" annotation we did not write.
ir::PrimFunc foreignAlignAnnotation() {
  ir::PrimFunc f = testing::parseProgram(testing::kTwoStage);
  struct Annotate final : ir::StmtMutator {
    ir::Expr visitExpr(const ir::Expr& e) override { return e; }
    ir::Stmt visitBlock(const ir::Block& op, const ir::Stmt& self) override {
      if (op.name != "B") return StmtMutator::visitBlock(op, self);
      ir::Annotations ann = op.annotations;
      ann["buffer_dim_align"] = ir::intImm(3);
      return ir::Block::make(op.name, op.iterVars, op.reads, op.writes, op.body, op.init, op.allocBuffers, ann);
    }
  } annotate;
  f.body = annotate.mutate(f.body);
  return f;
}

QStringList refs(const Diagnostic& d) {
  QStringList out;
  for (const auto& r : d.references) {
    const char* kind = r.kind == IrReference::Kind::Block ? "block" : r.kind == IrReference::Kind::Loop ? "loop" : "buffer";
    out << QString("%1:%2").arg(kind, QString::fromStdString(r.name));
  }
  return out;
}

} // namespace

class TestCache : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void matmulSharedAndLocal();
  void cacheReadConsumerBlocks();
  void cacheReadAllConsumers();
  void cacheWriteConsumerBlocks();
  void cacheAfterNonDividingSplit_data();
  void cacheAfterNonDividingSplit();
  void cacheWriteUnderPredicatedLoop();
  void cacheReadScopeRegionClipped();
  void setScope();
  void setScopeSameScopeIsNoOp();
  void storageAlign();
  void freshNames();
  void refused_data();
  void refused();
  void refusedAfterSteps_data();
  void refusedAfterSteps();
};

// The classic GPU staging: A and B into shared memory, the accumulator C in local.
void TestCache::matmulSharedAndLocal() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul));
  RV c = blockRV(sch, "C");
  auto a = sch.apply("cache_read", {c, TraceList{}}, {0, "shared"});
  QVERIFY2(a, a ? "" : qPrintable(fail(sch, a.error())));
  auto b = sch.apply("cache_read", {c, TraceList{}}, {1, "shared"});
  QVERIFY2(b, b ? "" : qPrintable(fail(sch, b.error())));
  auto w = sch.apply("cache_write", {c, TraceList{}}, {0, "local"});
  QVERIFY2(w, w ? "" : qPrintable(fail(sch, w.error())));
  // The returned RVs are the new blocks.
  QCOMPARE((*sch.block((*a)[0], "t"))->block()->name, std::string("A_shared"));
  QCOMPARE((*sch.block((*b)[0], "t"))->block()->name, std::string("B_shared"));
  QCOMPARE((*sch.block((*w)[0], "t"))->block()->name, std::string("C_local"));
  QCOMPARE((*sch.block(c, "t"))->block()->name, std::string("C"));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(4));
  QVERIFY2(testing::checkGolden("cache_matmul", ir::printPrimFunc(sch.func())).isEmpty(),
           qPrintable(testing::checkGolden("cache_matmul", ir::printPrimFunc(sch.func()))));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
  // The trace replays to the same program.
  auto replay = schedule::replayTrace(sch.original(), sch.trace());
  QVERIFY(replay);
  QCOMPARE(ir::printPrimFunc(replay->func()), ir::printPrimFunc(sch.func()));
}

// consumer_blocks: only D reads the cache; the copy goes right before D.
void TestCache::cacheReadConsumerBlocks() {
  Schedule sch(testing::parseProgram(kTwoConsumers));
  RV c = blockRV(sch, "C");
  RV d = blockRV(sch, "D");
  auto r = sch.apply("cache_read", {c, TraceList{d}}, {0, "local"});
  QVERIFY2(r, r ? "" : qPrintable(fail(sch, r.error())));
  const std::string text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("cache_read_consumer_blocks", text).isEmpty(),
           qPrintable(testing::checkGolden("cache_read_consumer_blocks", text)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

// Without consumer_blocks every reader of the buffer is redirected; the copy goes right
// after the producer, before the first consumer.
void TestCache::cacheReadAllConsumers() {
  Schedule sch(testing::parseProgram(kTwoConsumers));
  RV d = blockRV(sch, "D");
  auto r = sch.apply("cache_read", {d, TraceList{}}, {0, "shared"});
  QVERIFY2(r, r ? "" : qPrintable(fail(sch, r.error())));
  const std::string text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("cache_read_all_consumers", text).isEmpty(),
           qPrintable(testing::checkGolden("cache_read_all_consumers", text)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

// cache_write with consumer_blocks: C reads the cache directly, the write-back goes
// before D (the first reader not in consumer_blocks).
void TestCache::cacheWriteConsumerBlocks() {
  Schedule sch(testing::parseProgram(kTwoConsumers));
  RV b = blockRV(sch, "B");
  RV c = blockRV(sch, "C");
  auto r = sch.apply("cache_write", {b, TraceList{c}}, {0, "shared"});
  QVERIFY2(r, r ? "" : qPrintable(fail(sch, r.error())));
  const std::string text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("cache_write_consumer_blocks", text).isEmpty(),
           qPrintable(testing::checkGolden("cache_write_consumer_blocks", text)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

// A split whose factors do not divide the extent widens the loops (3 -> 2 * 2) and adds a
// predicate; the cache covers the buffer, (3, 6), not the widened loops' (4, 6), as TVM
// clips the region (its upper bound under the predicate, covered by the buffer).
void TestCache::cacheAfterNonDividingSplit_data() {
  QTest::addColumn<QString>("primitive");
  QTest::addColumn<QString>("golden");
  QTest::newRow("cache_read") << "cache_read" << "cache_read_nondividing_split";
  QTest::newRow("cache_write") << "cache_write" << "cache_write_nondividing_split";
}

void TestCache::cacheAfterNonDividingSplit() {
  QFETCH(QString, primitive);
  QFETCH(QString, golden);
  const char* const source = "A = placeholder((3, 6), \"int32\", name=\"A\")\n"
                             "B = compute((3, 6), lambda i, j: A[i, j] * 2, name=\"B\")\n"
                             "C = compute((3, 6), lambda i, j: B[i, j] + 1, name=\"C\")\n";
  Schedule sch(testing::parseProgram(source));
  RV b = blockRV(sch, "B");
  auto ls = sch.apply("get_loops", {b});
  QVERIFY(ls);
  QVERIFY(sch.apply("split", {(*ls)[0], TraceList{nullptr, 2}}));
  auto r = primitive == "cache_read" ? sch.apply("cache_read", {blockRV(sch, "C"), TraceList{}}, {0, "shared"})
                                     : sch.apply("cache_write", {b, TraceList{}}, {0, "local"});
  QVERIFY2(r, r ? "" : qPrintable(fail(sch, r.error())));
  const ir::Buffer& cache = sch.func().rootBlock().allocBuffers.back();
  QCOMPARE(cache->shape.size(), std::size_t(2));
  QCOMPARE(ir::printExpr(cache->shape[0]), std::string("3"));
  QCOMPARE(ir::printExpr(cache->shape[1]), std::string("6"));
  const std::string text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden(golden, text).isEmpty(), qPrintable(testing::checkGolden(golden, text)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

// B computed at C's i_1 after a split of 3 by 2: the write-back under i_1 copies the row
// i_0 * 2 + i_1, which does not exist for the last tile; it is predicated as B is (TVM
// copies without a predicate and reads row 3 of a 3-row buffer).
void TestCache::cacheWriteUnderPredicatedLoop() {
  const char* const source = "A = placeholder((3, 6), \"int32\", name=\"A\")\n"
                             "B = compute((3, 6), lambda i, j: A[i, j] * 2, name=\"B\")\n"
                             "C = compute((3, 6), lambda i, j: B[i, j] + 1, name=\"C\")\n";
  Schedule sch(testing::parseProgram(source));
  RV b = blockRV(sch, "B");
  auto ls = sch.apply("get_loops", {blockRV(sch, "C")});
  QVERIFY(ls);
  auto split = sch.apply("split", {(*ls)[0], TraceList{nullptr, 2}});
  QVERIFY(split);
  QVERIFY(sch.apply("compute_at", {b, (*split)[1]}));
  auto r = sch.apply("cache_write", {b, TraceList{}}, {0, "local"});
  QVERIFY2(r, r ? "" : qPrintable(fail(sch, r.error())));
  const auto* stage = sch.tree().findBlock("B_local");
  QVERIFY(stage);
  QCOMPARE(ir::printExpr(stage->realize.as<ir::BlockRealize>()->predicate), std::string("i_0 * 2 + i_1 < 3"));
  const std::string text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("cache_write_predicated_stage", text).isEmpty(),
           qPrintable(testing::checkGolden("cache_write_predicated_stage", text)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

// An input buffer read by a scope block whose declared read region exceeds the buffer
// (A[0:20] of a 16-element A, as a region relaxed over widened loops can be): the cache
// and the copy cover the buffer, A[0:16].
void TestCache::cacheReadScopeRegionClipped() {
  const ir::Buffer A = ir::makeBuffer("A", ir::DataType::float32(), {ir::intImm(16)});
  const ir::Buffer C = ir::makeBuffer("C", ir::DataType::float32(), {ir::intImm(16)});
  ir::Expr i = ir::Var::make("i"), v = ir::Var::make("v_i");
  ir::Stmt inner = ir::Block::make("C", {{v, {ir::intImm(0), ir::intImm(16)}, ir::IterKind::Spatial}},
                                   {{A, {{v, ir::intImm(1)}}}}, {{C, {{v, ir::intImm(1)}}}},
                                   ir::BufferStore::make(C, ir::BufferLoad::make(A, {v}), {v}));
  inner = ir::For::make(i, ir::intImm(0), ir::intImm(16), ir::ForKind::Serial,
                        ir::BlockRealize::make({i}, ir::boolImm(true), inner));
  ir::Stmt outer = ir::Block::make("outer", {}, {{A, {{ir::intImm(0), ir::intImm(20)}}}},
                                   {{C, {{ir::intImm(0), ir::intImm(16)}}}}, inner);
  ir::PrimFunc f;
  f.name = "main";
  f.params = {A, C};
  f.body = ir::BlockRealize::make({}, ir::boolImm(true),
                                  ir::Block::make("root", {}, {}, {}, ir::BlockRealize::make({}, ir::boolImm(true), outer)));
  Schedule sch(f);
  auto r = sch.apply("cache_read", {blockRV(sch, "C"), TraceList{}}, {0, "local"});
  QVERIFY2(r, r ? "" : qPrintable(fail(sch, r.error())));
  const ir::Buffer& cache = sch.tree().findBlock("outer")->block()->allocBuffers.back();
  QCOMPARE(ir::printExpr(cache->shape[0]), std::string("16"));
  const auto* copy = sch.tree().findBlock("A_local");
  QVERIFY(copy);
  QCOMPARE(ir::printExpr(copy->parent->loop()->extent), std::string("16"));
  QCOMPARE(QString::fromStdString(testing::compareResults(f, sch.func())), QString());
}

void TestCache::setScope() {
  Schedule sch(testing::parseProgram(testing::kTwoStage));
  RV b = blockRV(sch, "B");
  auto r = sch.apply("set_scope", {b}, {0, "shared"});
  QVERIFY2(r, r ? "" : qPrintable(fail(sch, r.error())));
  const std::string text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("cache_set_scope", text).isEmpty(),
           qPrintable(testing::checkGolden("cache_set_scope", text)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
  QCOMPARE(sch.func().rootBlock().allocBuffers.at(0)->scope, ir::MemoryScope::Shared);
}

void TestCache::setScopeSameScopeIsNoOp() {
  Schedule sch(testing::parseProgram(testing::kTwoStage));
  RV b = blockRV(sch, "B");
  const ir::Stmt before = sch.func().body;
  auto r = sch.apply("set_scope", {b}, {0, "global"});
  QVERIFY(r);
  QVERIFY(sch.func().body.sameAs(before));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(2));
}

// storage_align of a shared cache: the annotation TVM records, and the padded strides
// (row stride 48 -> 65 = 2*32 + 1) that the interpreter runs.
void TestCache::storageAlign() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul));
  RV c = blockRV(sch, "C");
  auto a = sch.apply("cache_read", {c, TraceList{}}, {0, "shared"});
  QVERIFY(a);
  auto r = sch.apply("storage_align", {(*a)[0]}, {0, 0, 32, 1});
  QVERIFY2(r, r ? "" : qPrintable(fail(sch, r.error())));
  const ir::Buffer& cache = sch.func().rootBlock().allocBuffers.at(0);
  QCOMPARE(cache->name, std::string("A_shared"));
  QCOMPARE(cache->strides.size(), std::size_t(2));
  QCOMPARE(ir::asConstInt(cache->strides[0]), std::optional<std::int64_t>(65));
  QCOMPARE(ir::asConstInt(cache->strides[1]), std::optional<std::int64_t>(1));
  const std::string text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("cache_storage_align", text).isEmpty(),
           qPrintable(testing::checkGolden("cache_storage_align", text)));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());

  // A second call on the same axis replaces the entry; a negative axis counts from the end.
  auto again = sch.apply("storage_align", {(*a)[0]}, {0, -2, 16, 3});
  QVERIFY(again);
  const auto* block = (*sch.block((*a)[0], "t"))->block();
  QCOMPARE(block->annotations.at("buffer_dim_align").as<ir::StringImm>()->value, std::string("[[0, 0, 16, 3]]"));
  const ir::Buffer& cache2 = sch.func().rootBlock().allocBuffers.at(0);
  QCOMPARE(ir::asConstInt(cache2->strides[0]), std::optional<std::int64_t>(51)); // 48 -> 51 = 3*16 + 3
  auto inner = sch.apply("storage_align", {(*a)[0]}, {0, 1, 4, 2});
  QVERIFY(inner);
  const auto* block2 = (*sch.block((*a)[0], "t"))->block();
  QCOMPARE(block2->annotations.at("buffer_dim_align").as<ir::StringImm>()->value,
           std::string("[[0, 0, 16, 3], [0, 1, 4, 2]]"));
  const ir::Buffer& cache3 = sch.func().rootBlock().allocBuffers.at(0);
  QCOMPARE(ir::asConstInt(cache3->strides[1]), std::optional<std::int64_t>(2));  // 1 -> 2
  QCOMPARE(ir::asConstInt(cache3->strides[0]), std::optional<std::int64_t>(99)); // 96 -> 99
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

// Caching the same buffer twice: the second copy block gets a fresh name, the buffer
// keeps TVM's name (the printer disambiguates it as TVM's does).
void TestCache::freshNames() {
  Schedule sch(testing::parseProgram(kTwoConsumers));
  RV c = blockRV(sch, "C");
  RV d = blockRV(sch, "D");
  auto first = sch.apply("cache_read", {c, TraceList{c}}, {0, "local"});
  QVERIFY(first);
  auto second = sch.apply("cache_read", {d, TraceList{d}}, {0, "local"});
  QVERIFY2(second, second ? "" : qPrintable(fail(sch, second.error())));
  QCOMPARE((*sch.block((*first)[0], "t"))->block()->name, std::string("B_local"));
  QCOMPARE((*sch.block((*second)[0], "t"))->block()->name, std::string("B_local_1"));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

void TestCache::refused_data() {
  QTest::addColumn<QString>("scenario");
  QTest::addColumn<QString>("code");
  QTest::addColumn<QStringList>("references");
  auto row = [](const char* scenario, const char* code, QStringList r) {
    QTest::newRow(scenario) << QString(scenario) << QString(code) << r;
  };
  row("read-bad-scope", "schedule.cache_read.bad-scope", {});
  row("read-index", "schedule.cache_read.index-out-of-range", {"block:C"});
  row("read-multiple-writers", "schedule.cache_read.multiple-writers", {"block:B", "block:B2", "buffer:B"});
  row("read-not-a-consumer", "schedule.cache_read.not-a-consumer", {"block:C", "buffer:A"});
  row("write-bad-scope", "schedule.cache_write.bad-scope", {});
  row("write-index", "schedule.cache_write.index-out-of-range", {"block:B"});
  row("write-multiple-writers", "schedule.cache_write.multiple-writers", {"block:B", "block:B2", "buffer:B"});
  row("write-not-a-consumer", "schedule.cache_write.not-a-consumer", {"block:B", "buffer:B"});
  row("scope-index", "schedule.set_scope.index-out-of-range", {"block:B"});
  row("scope-bad-scope", "schedule.set_scope.bad-scope", {});
  row("scope-is-parameter", "schedule.set_scope.is-parameter", {"block:C", "buffer:C"});
  row("scope-not-allocated", "schedule.set_scope.not-allocated", {"block:B", "buffer:B"});
  row("align-index", "schedule.storage_align.index-out-of-range", {"block:B"});
  row("align-bad-factor", "schedule.storage_align.bad-factor", {"block:B", "buffer:B"});
  row("align-bad-offset", "schedule.storage_align.bad-offset", {"block:B", "buffer:B"});
  row("align-axis", "schedule.storage_align.axis-out-of-range", {"block:B", "buffer:B"});
  row("align-is-parameter", "schedule.storage_align.is-parameter", {"block:C", "buffer:C"});
  row("align-not-allocated", "schedule.storage_align.not-allocated", {"block:B", "buffer:B"});
  row("align-bad-annotation", "schedule.storage_align.bad-annotation", {"block:B"});
}

void TestCache::refused() {
  QFETCH(QString, scenario);
  QFETCH(QString, code);
  QFETCH(QStringList, references);
  ir::PrimFunc program = testing::parseProgram(testing::kTwoStage);
  if (scenario.endsWith("multiple-writers")) program = twoWriters();
  if (scenario.endsWith("not-allocated")) program = allocateStatement();
  if (scenario == "align-bad-annotation") program = foreignAlignAnnotation();
  Schedule sch(program);
  RV b = blockRV(sch, "B");
  RV c = blockRV(sch, "C");
  const ir::Stmt before = sch.func().body;
  const std::size_t traceLength = sch.trace().instructions.size();

  using Step = std::tuple<const char*, std::vector<TraceValue>, std::vector<TraceValue>>;
  const std::map<QString, Step> steps = {
      {"read-bad-scope", {"cache_read", {c, TraceList{}}, {0, "texture"}}},
      {"read-index", {"cache_read", {c, TraceList{}}, {1, "shared"}}},
      {"read-multiple-writers", {"cache_read", {c, TraceList{}}, {0, "shared"}}},
      {"read-not-a-consumer", {"cache_read", {b, TraceList{c}}, {0, "shared"}}},
      {"write-bad-scope", {"cache_write", {b, TraceList{}}, {0, "warp"}}},
      {"write-index", {"cache_write", {b, TraceList{}}, {-1, "local"}}},
      {"write-multiple-writers", {"cache_write", {b, TraceList{}}, {0, "local"}}},
      {"write-not-a-consumer", {"cache_write", {b, TraceList{b}}, {0, "local"}}},
      {"scope-index", {"set_scope", {b}, {1, "shared"}}},
      {"scope-bad-scope", {"set_scope", {b}, {0, "register"}}},
      {"scope-is-parameter", {"set_scope", {c}, {0, "shared"}}},
      {"scope-not-allocated", {"set_scope", {b}, {0, "shared"}}},
      {"align-index", {"storage_align", {b}, {2, 0, 32, 1}}},
      {"align-bad-factor", {"storage_align", {b}, {0, 0, 0, 0}}},
      {"align-bad-offset", {"storage_align", {b}, {0, 0, 32, 32}}},
      {"align-axis", {"storage_align", {b}, {0, 2, 32, 1}}},
      {"align-is-parameter", {"storage_align", {c}, {0, 0, 32, 1}}},
      {"align-not-allocated", {"storage_align", {b}, {0, 0, 32, 1}}},
      {"align-bad-annotation", {"storage_align", {b}, {0, 0, 32, 1}}},
  };
  const auto& [kind, inputs, attrs] = steps.at(scenario);
  auto r = sch.apply(kind, inputs, attrs);
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), code);
  QCOMPARE(refs(r.error()), references);
  QVERIFY(!r.error().message.empty());
  QVERIFY(sch.func().body.sameAs(before));
  QCOMPARE(sch.trace().instructions.size(), traceLength);
  // The report renders against the program (underlines the referenced blocks).
  const std::string report = schedule::renderScheduleError(r.error(), sch.func());
  QVERIFY(report.find("Error message: " + r.error().message) != std::string::npos);
}

// Regressions from the differential test: cache_write would have produced a wrong
// program; it refuses instead. `steps` prepare the schedule, `last` is refused.
void TestCache::refusedAfterSteps_data() {
  QTest::addColumn<QString>("source");
  QTest::addColumn<QString>("steps");
  QTest::addColumn<QString>("last");
  QTest::addColumn<QString>("code");
  QTest::addColumn<QStringList>("references");
  // Seed 11, sequence 1280: the region of C_i_11 is symbolic in i_0 and relaxed over
  // i_11; widened to C[0:8, 0:16], the write-back copied rows the block never writes.
  QTest::newRow("inexact-region")
      << "A = placeholder((8, 12), \"int32\", name=\"A\")\nB = placeholder((12, 16), \"int32\", name=\"B\")\n"
         "k = reduce_axis((0, 12), name=\"k\")\n"
         "C = compute((8, 16), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n"
      << "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\ni0, i1 = sch.split(i, factors=[3, None])\n"
         "parts = sch.loop_partition(i1, factors=[1])\nc = sch.get_block(\"C_i_11\")\n"
      << "sch.cache_write(c, 0, \"local\")\n"
      << "schedule.cache_write.inexact-region" << QStringList{"block:C_i_11", "buffer:C"};
  // Seed 11, sequence 881: the cache_read copy data_shared of a partition block runs over
  // a loop of symbolic extent (0 for the first row); its region bounded by constants was
  // copied back into the 0-row buffer.
  QTest::newRow("inexact-region-symbolic-loop")
      << "data = placeholder((1, 2, 6, 6), \"int32\", name=\"data\")\n"
         "weight = placeholder((4, 2, 3, 3), \"int32\", name=\"weight\")\n"
         "pad_temp = compute((1, 2, 8, 8), lambda i0, i1, i2, i3: if_then_else(all(i2 >= 1, i2 < 7, i3 >= 1, i3 < 7), "
         "data[i0, i1, i2 - 1, i3 - 1], 0), name=\"pad_temp\")\n"
         "rc = reduce_axis((0, 2), name=\"rc\")\nry = reduce_axis((0, 3), name=\"ry\")\n"
         "rx = reduce_axis((0, 3), name=\"rx\")\n"
         "conv = compute((1, 4, 6, 6), lambda nn, ff, yy, xx: sum(pad_temp[nn, rc, yy + ry, xx + rx] * "
         "weight[ff, rc, ry, rx], axis=[rc, ry, rx]), name=\"conv2d_nchw\")\n"
      << "b = sch.get_block(\"pad_temp\")\nl1, l2, l3, l4 = sch.get_loops(b)\n"
         "l21, l22 = sch.split(l1, factors=[1, 1])\nl24, l25, l26, l27, l28 = sch.get_loops(b)\n"
         "l29, l30 = sch.loop_partition(l28, factors=[None, 2])\n"
         "b31 = sch.get_block(\"pad_temp_i31\")\nb32 = sch.cache_read(b31, 0, \"shared\")\n"
         "b33 = sch.get_block(\"data_shared\")\n"
      << "sch.cache_write(b33, 0, \"shared\")\n"
      << "schedule.cache_write.inexact-region" << QStringList{"block:data_shared", "buffer:data_shared"};
  // Seed 5, sequence 1954: the inner block of a twice-blockized depthwise convolution
  // accumulates into its output without an init; its cache would be read unfilled.
  QTest::newRow("reads-own-output")
      << "data = placeholder((1, 3, 8, 8), \"int32\", name=\"data\")\n"
         "kernel = placeholder((3, 1, 3, 3), \"int32\", name=\"kernel\")\n"
         "di = reduce_axis((0, 3), name=\"di\")\ndj = reduce_axis((0, 3), name=\"dj\")\n"
         "out = compute((1, 3, 6, 6), lambda b, c, i, j: sum(data[b, c, i + di, j + dj] * kernel[c, 0, di, dj], "
         "axis=[di, dj]), name=\"DepthwiseConv2d\")\n"
      << "b = sch.get_block(\"DepthwiseConv2d\")\nloops = sch.get_loops(b)\nouter = sch.blockize(loops[0])\n"
         "loops = sch.get_loops(b)\ninner = sch.blockize(loops[-1])\nb = sch.get_block(\"DepthwiseConv2d\")\n"
      << "sch.cache_write(b, 0, \"local\")\n"
      << "schedule.cache_write.reads-own-output" << QStringList{"block:DepthwiseConv2d", "buffer:DepthwiseConv2d"};
}

void TestCache::refusedAfterSteps() {
  QFETCH(QString, source);
  QFETCH(QString, steps);
  QFETCH(QString, last);
  QFETCH(QString, code);
  QFETCH(QStringList, references);
  // `prepared` runs only the steps; `sch` runs them and the refused call, which must
  // leave the program and the trace as the steps left them.
  Schedule prepared(testing::parseProgram(source.toStdString()));
  auto ok = schedule::applyScript(prepared, steps.toStdString(), "steps.py");
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  Schedule sch(testing::parseProgram(source.toStdString()));
  auto r = schedule::applyScript(sch, (steps + last).toStdString(), "steps.py");
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), code);
  QCOMPARE(refs(r.error()), references);
  QVERIFY(!r.error().message.empty());
  QVERIFY(ir::structuralEqual(sch.func(), prepared.func()));
  QCOMPARE(sch.trace().instructions.size(), prepared.trace().instructions.size());
}

QTEST_GUILESS_MAIN(TestCache)
#include "tst_cache.moc"
