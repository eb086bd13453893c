// Tests of the loop-kind and annotation family: parallel, vectorize, unroll, bind,
// annotate, unannotate (golden programs, interpreter equality, every refusal).
#include "schedule_test_helpers.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_error.h"

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

RV must(Expected<std::vector<RV>> r, const Schedule& sch, std::size_t i = 0) {
  if (!r) qFatal("%s", schedule::renderScheduleError(r.error(), sch.func()).c_str());
  return i < r->size() ? (*r)[i] : RV{};
}

std::vector<RV> mustAll(Expected<std::vector<RV>> r, const Schedule& sch) {
  if (!r) qFatal("%s", schedule::renderScheduleError(r.error(), sch.func()).c_str());
  return *r;
}

/// The matmul with block C's init removed (a block with a reduce iterator and no init is
/// neither complete nor a reduction block).
ir::PrimFunc withoutInit(ir::PrimFunc f) {
  struct Dropper final : ir::StmtMutator {
    ir::Expr visitExpr(const ir::Expr& e) override { return e; }
    ir::Stmt visitBlock(const ir::Block& op, const ir::Stmt& self) override {
      if (op.name != "C") return StmtMutator::visitBlock(op, self);
      return ir::Block::make(op.name, op.iterVars, op.reads, op.writes, op.body, {}, op.allocBuffers, op.annotations);
    }
  } d;
  f.body = d.mutate(f.body);
  return f;
}

/// The matmul with C's first binding v_i = i replaced by i * i (not affine).
ir::PrimFunc squaredBinding(ir::PrimFunc f) {
  struct Squarer final : ir::StmtMutator {
    ir::Expr visitExpr(const ir::Expr& e) override { return e; }
    ir::Stmt visitBlockRealize(const ir::BlockRealize& op, const ir::Stmt& self) override {
      if (op.blockNode().name != "C") return StmtMutator::visitBlockRealize(op, self);
      auto values = op.iterValues;
      values[0] = values[0] * values[0];
      return ir::BlockRealize::make(values, op.predicate, op.block);
    }
  } s;
  f.body = s.mutate(f.body);
  return f;
}

} // namespace

class TestAnnotate : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void cpuSchedule();
  void gpuBinding();
  void annotateRoundTrip();
  void unrollDropsBinding();
  void refused_data();
  void refused();
  void notCompactDataflow();
  void nonAffineBinding();
};

void TestAnnotate::cpuSchedule() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch);
  auto loops = mustAll(sch.apply("get_loops", {c}), sch);
  auto io = mustAll(sch.apply("split", {loops[0], TraceList{nullptr, 16}}), sch);
  must(sch.apply("parallel", {io[0]}), sch);
  must(sch.apply("vectorize", {loops[1]}), sch);
  must(sch.apply("unroll", {loops[2]}), sch);
  must(sch.apply("annotate", {c, "SSRSRS"}, {"meta_schedule.tiling_structure"}), sch);
  must(sch.apply("annotate", {io[0], 16}, {"pragma_auto_unroll_max_step"}), sch);
  must(sch.apply("annotate", {loops[2], 0.5}, {"weight"}), sch);
  const auto* root = sch.func().body.as<ir::BlockRealize>();
  QVERIFY(root);
  const auto* outer = root->blockNode().body.as<ir::For>();
  QVERIFY(outer);
  QCOMPARE(outer->forKind, ir::ForKind::Parallel);
  QCOMPARE(*ir::asConstInt(outer->annotations.at("pragma_auto_unroll_max_step")), std::int64_t(16));
  QCOMPARE(outer->annotations.at("pragma_auto_unroll_max_step").dtype(), ir::DataType::int32());
  QVERIFY2(testing::checkGolden("annotate_matmul_cpu", ir::printPrimFunc(sch.func())).isEmpty(),
           qPrintable(testing::checkGolden("annotate_matmul_cpu", ir::printPrimFunc(sch.func()))));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
  QCOMPARE(sch.trace().instructions.size(), std::size_t(9));
  QCOMPARE(sch.trace().instructions[6].kind->jsonName, std::string_view("Annotate"));
}

void TestAnnotate::gpuBinding() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch);
  auto loops = mustAll(sch.apply("get_loops", {c}), sch);
  must(sch.apply("bind", {loops[0]}, {"blockIdx.x"}), sch);
  must(sch.apply("bind", {loops[1]}, {"threadIdx.x"}), sch);
  // threadIdx may feed the reduce iterator: cross-thread reduction.
  must(sch.apply("bind", {loops[2]}, {"threadIdx.y"}), sch);
  QVERIFY2(testing::checkGolden("annotate_matmul_gpu", ir::printPrimFunc(sch.func())).isEmpty(),
           qPrintable(testing::checkGolden("annotate_matmul_gpu", ir::printPrimFunc(sch.func()))));
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

void TestAnnotate::annotateRoundTrip() {
  Schedule sch(testing::parseProgram(testing::kTwoStage));
  RV b = must(sch.apply("get_block", {}, {"B"}), sch);
  auto loops = mustAll(sch.apply("get_loops", {b}), sch);
  must(sch.apply("annotate", {b, 1}, {"k"}), sch);
  must(sch.apply("annotate", {b, 2}, {"k"}), sch); // overwrites
  must(sch.apply("annotate", {loops[0], "x"}, {"s"}), sch);
  const auto* block = sch.tree().findBlock("B")->block();
  QCOMPARE(block->annotations.size(), std::size_t(1));
  QCOMPARE(*ir::asConstInt(block->annotations.at("k")), std::int64_t(2));
  QVERIFY(!ir::structuralEqual(sch.func(), sch.original()));
  must(sch.apply("unannotate", {b}, {"k"}), sch);
  must(sch.apply("unannotate", {loops[0]}, {"s"}), sch);
  QVERIFY(ir::structuralEqual(sch.func(), sch.original()));
  // A sampled value is stored as its int32 constant.
  RV v = must(sch.apply("sample_categorical", {}, {TraceList{4, 8}, TraceList{0.0, 1.0}}), sch);
  must(sch.apply("annotate", {b, v}, {"meta_schedule.unroll_explicit"}), sch);
  QCOMPARE(*ir::asConstInt(sch.tree().findBlock("B")->block()->annotations.at("meta_schedule.unroll_explicit")),
           std::int64_t(8));
}

void TestAnnotate::unrollDropsBinding() {
  Schedule sch(testing::parseProgram(testing::kSmallMatmul));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch);
  auto loops = mustAll(sch.apply("get_loops", {c}), sch);
  must(sch.apply("bind", {loops[0]}, {"blockIdx.x"}), sch);
  must(sch.apply("unroll", {loops[0]}), sch); // "requires nothing", as in TVM
  const auto* f = sch.tree().loopsAbove(*sch.tree().findBlock("C"))[0]->loop();
  QCOMPARE(f->forKind, ir::ForKind::Unrolled);
  QCOMPARE(f->threadTag, std::string());
}

void TestAnnotate::refused_data() {
  QTest::addColumn<QString>("primitive");
  QTest::addColumn<int>("loop"); // index into get_loops(C), -1: the block C
  QTest::addColumn<QString>("attr");
  QTest::addColumn<QString>("code");
  QTest::addColumn<QString>("refs");
  QTest::addColumn<QString>("message");
  QTest::newRow("parallel reduce loop")
      << "parallel" << 2 << "" << "schedule.parallel.reduce-iter" << "loop:k,block:C"
      << "the loop 'k' is bound to the reduce iterator 'v_k' of block 'C'; parallel needs a loop that only feeds "
         "spatial (data-parallel) iterators";
  QTest::newRow("vectorize reduce loop") << "vectorize" << 2 << "" << "schedule.vectorize.reduce-iter"
                                         << "loop:k,block:C" << "";
  QTest::newRow("bind reduce loop to blockIdx")
      << "bind" << 2 << "blockIdx.x" << "schedule.bind.reduce-iter" << "loop:k,block:C"
      << "the loop 'k' is bound to the reduce iterator 'v_k' of block 'C'; binding to this thread axis needs a loop "
         "that only feeds spatial (data-parallel) iterators";
  QTest::newRow("bind vthread reduce") << "bind" << 2 << "vthread.x" << "schedule.bind.reduce-iter"
                                       << "loop:k,block:C" << "";
  QTest::newRow("bind unknown axis")
      << "bind" << 0 << "warp.x" << "schedule.bind.invalid-thread-axis" << "loop:i"
      << "'warp.x' is not a thread axis; the valid ones are: blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, "
         "threadIdx.y, threadIdx.z, vthread.x, vthread.y, vthread.z";
  QTest::newRow("parallel bound loop")
      << "parallel" << 1 << "" << "schedule.parallel.thread-bound" << "loop:j"
      << "the loop 'j' is already bound to 'threadIdx.x'; parallel needs a loop without thread binding";
  QTest::newRow("bind bound loop") << "bind" << 1 << "threadIdx.y" << "schedule.bind.thread-bound" << "loop:j" << "";
  QTest::newRow("annotate bool") << "annotate" << -1 << "k" << "schedule.annotate.bad-annotation-value"
                                 << "block:C"
                                 << "the value of annotation 'k' on block 'C' must be an int, a float, a string or "
                                    "a sampled integer";
  QTest::newRow("unannotate missing") << "unannotate" << -1 << "nope" << "schedule.unannotate.no-such-annotation"
                                      << "block:C"
                                      << "block 'C' has no annotation 'nope'; its annotations are: 'tag'";
  QTest::newRow("unannotate loop none") << "unannotate" << 0 << "nope" << "schedule.unannotate.no-such-annotation"
                                        << "loop:i" << "loop 'i' has no annotation 'nope'; its annotations are: (none)";
}

void TestAnnotate::refused() {
  QFETCH(QString, primitive);
  QFETCH(int, loop);
  QFETCH(QString, attr);
  QFETCH(QString, code);
  QFETCH(QString, refs);
  QFETCH(QString, message);
  Schedule sch(testing::parseProgram(testing::kSmallMatmul));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch);
  auto loops = mustAll(sch.apply("get_loops", {c}), sch);
  must(sch.apply("bind", {loops[1]}, {"threadIdx.x"}), sch);
  must(sch.apply("annotate", {c, "v"}, {"tag"}), sch);
  const ir::PrimFunc before = sch.func();
  const std::size_t traceLength = sch.trace().instructions.size();
  TraceValue target = loop < 0 ? c : loops[loop];
  std::vector<TraceValue> inputs{target};
  std::vector<TraceValue> attrs;
  if (primitive == "annotate") inputs.push_back(true);
  if (!attr.isEmpty()) attrs.push_back(attr.toStdString());
  auto r = sch.apply(primitive.toStdString(), inputs, attrs);
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), code);
  QCOMPARE(QString::fromStdString(refsOf(r.error())), refs);
  if (!message.isEmpty()) QCOMPARE(QString::fromStdString(r.error().message), message);
  QVERIFY(sch.func().body.sameAs(before.body));
  QCOMPARE(sch.trace().instructions.size(), traceLength);
}

void TestAnnotate::notCompactDataflow() {
  Schedule sch(withoutInit(testing::parseProgram(testing::kSmallMatmul)));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch);
  auto loops = mustAll(sch.apply("get_loops", {c}), sch);
  const ir::PrimFunc before = sch.func();
  for (const char* prim : {"parallel", "vectorize"}) {
    auto r = sch.apply(prim, {loops[0]});
    QVERIFY(!r);
    QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.%1.not-compact-dataflow").arg(prim));
    QCOMPARE(QString::fromStdString(refsOf(r.error())), QString("loop:i,block:C"));
    QCOMPARE(QString::fromStdString(r.error().message),
             QString("the block 'C' under loop 'i' is neither a complete block nor a reduction block: it has reduce "
                     "iterators but no init statement"));
  }
  auto r = sch.apply("bind", {loops[0]}, {"blockIdx.x"});
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.bind.not-compact-dataflow"));
  QVERIFY(sch.func().body.sameAs(before.body));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(2));

}

void TestAnnotate::nonAffineBinding() {
  Schedule sch(squaredBinding(testing::parseProgram(testing::kSmallMatmul)));
  RV c = must(sch.apply("get_block", {}, {"C"}), sch);
  auto loops = mustAll(sch.apply("get_loops", {c}), sch);
  const ir::PrimFunc before = sch.func();
  auto r = sch.apply("parallel", {loops[1]});
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.parallel.non-affine-binding"));
  QCOMPARE(QString::fromStdString(refsOf(r.error())), QString("loop:j,block:C"));
  QCOMPARE(QString::fromStdString(r.error().message),
           QString("the block 'C' under loop 'j' binds its iterator 'v_i' to i * i, which is not an affine "
                   "expression of the loops"));
  QVERIFY(sch.func().body.sameAs(before.body));
  QCOMPARE(sch.trace().instructions.size(), std::size_t(2));
}

QTEST_GUILESS_MAIN(TestAnnotate)
#include "tst_annotate.moc"
