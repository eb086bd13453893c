// compute_inline and reverse_compute_inline: printed results against golden files (the
// inlined value substituted without simplification, the consumer's regions derived again,
// the buffer's allocation gone), interpreter equality with the original program, every
// refused precondition with its code, references and message, and that a refusal
// changes nothing.
#include "compute_location_programs.h"
#include "schedule_test_helpers.h"

#include "core/ir/printer.h"
#include "core/schedule/schedule_error.h"
#include "core/schedule/trace_script.h"
#include "core/ir/structural_equal.h"

#include <QtTest>

using namespace loopscape;
using schedule::RV;
using schedule::Schedule;
using schedule::TraceList;

namespace {

ir::PrimFunc program(const QString& id) {
  namespace p = testing::programs;
  if (id == "two-stage") return testing::parseProgram(testing::kTwoStage);
  if (id == "conv") return testing::parseProgram(p::kConv);
  if (id == "matmul-relu") return testing::parseProgram(p::kMatmulRelu);
  if (id == "scale-relu") return testing::parseProgram(p::kScaleRelu);
  if (id == "fan-out") return testing::parseProgram(p::kFanOut);
  if (id == "fan-in") return testing::parseProgram(p::kFanIn);
  if (id == "size-in-value") return testing::parseProgram(p::kSizeInValue);
  if (id == "two-loads") return testing::parseProgram(p::kTwoLoads);
  if (id == "war") return p::warProgram();
  if (id == "in-place") return p::inPlaceProgram();
  if (id == "two-writers") return p::twoWritersProgram();
  if (id == "two-outputs") return p::twoOutputsProgram();
  if (id == "lone") return p::loneProgram();
  if (id == "overcomputed")
    // B is computed on 8 x 8 elements, C reads only 7 x 7 of them (TVM's test
    // elementwise_overcomputed_producer): inlining C into B would store past C's end.
    return testing::parseProgram("A = placeholder((8, 8), name=\"A\")\n"
                                 "B = compute((8, 8), lambda i, j: A[i, j] * 2.0, name=\"B\")\n"
                                 "C = compute((7, 7), lambda i, j: B[i, j] + 1.0, name=\"C\")\n");
  qFatal("unknown program %s", qPrintable(id));
}

RV block(Schedule& sch, const QString& name) {
  auto r = sch.apply("get_block", {}, {name.toStdString()});
  if (!r) qFatal("%s", r.error().message.c_str());
  return r->front();
}

QString refs(const Diagnostic& d) {
  QStringList out;
  for (const auto& r : d.references)
    out << QString("%1:%2")
               .arg(r.kind == IrReference::Kind::Block  ? "block"
                    : r.kind == IrReference::Kind::Loop ? "loop"
                                                        : "buffer")
               .arg(QString::fromStdString(r.name));
  return out.join(",");
}

} // namespace

class TestComputeInline : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void inlined_data();
  void inlined();
  void blockRVGoesStale();
  void inlineAfterComputeAt();
  void refused_data();
  void refused();
  void reverseIntoOpaqueProducer();
};

void TestComputeInline::inlined_data() {
  QTest::addColumn<QString>("prog");
  QTest::addColumn<QString>("prim");
  QTest::addColumn<QString>("blockName");
  QTest::addColumn<QString>("golden");
  QTest::newRow("two-stage") << "two-stage" << "compute_inline" << "B" << "compute_inline_two_stage";
  QTest::newRow("conv padding") << "conv" << "compute_inline" << "pad_temp" << "compute_inline_conv";
  QTest::newRow("reverse two-stage") << "two-stage" << "reverse_compute_inline" << "C"
                                     << "compute_inline_reverse_two_stage";
  QTest::newRow("reverse relu epilogue") << "scale-relu" << "reverse_compute_inline" << "F"
                                         << "compute_inline_reverse_relu";
}

void TestComputeInline::inlined() {
  QFETCH(QString, prog);
  QFETCH(QString, prim);
  QFETCH(QString, blockName);
  QFETCH(QString, golden);
  const auto f = program(prog);
  Schedule sch(f);
  auto ok = sch.apply(prim.toStdString(), {block(sch, blockName)});
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  const auto text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden(golden, text).isEmpty(), qPrintable(testing::checkGolden(golden, text)));
  const std::string diff = testing::compareResults(f, sch.func());
  QVERIFY2(diff.empty(), diff.c_str());
  QCOMPARE(sch.trace().instructions.size(), std::size_t(2));
}

/// The inlined block is gone: its RV and the RVs of its loops no longer resolve.
void TestComputeInline::blockRVGoesStale() {
  Schedule sch(program("two-stage"));
  const RV b = block(sch, "B");
  const auto loops = sch.apply("get_loops", {b});
  QVERIFY(loops);
  QVERIFY(sch.apply("compute_inline", {b}));
  auto again = sch.apply("get_loops", {b});
  QVERIFY(!again);
  QCOMPARE(QString::fromStdString(again.error().code), QString("schedule.get_loops.stale-rv"));
  QVERIFY(!sch.loop(loops->front(), "test"));
  QVERIFY(sch.tree().findBlock("C"));
  QCOMPARE(sch.func().rootBlock().allocBuffers.size(), std::size_t(0));
}

/// compute_at then compute_inline of the same producer: the moved block inlines from its
/// new place, and the ax loops that held only it disappear.
void TestComputeInline::inlineAfterComputeAt() {
  const auto f = program("conv");
  Schedule sch(f);
  const RV pad = block(sch, "pad_temp");
  const RV conv = block(sch, "conv2d_nchw");
  const auto loops = sch.apply("get_loops", {conv});
  QVERIFY(loops);
  QVERIFY(sch.apply("compute_at", {pad, (*loops)[2]}));
  QVERIFY(sch.apply("compute_inline", {pad}));
  Schedule direct(f);
  QVERIFY(direct.apply("compute_inline", {block(direct, "pad_temp")}));
  QCOMPARE(QString::fromStdString(ir::printPrimFunc(sch.func())),
           QString::fromStdString(ir::printPrimFunc(direct.func())));
  QVERIFY(testing::compareResults(f, sch.func()).empty());
}

void TestComputeInline::refused_data() {
  QTest::addColumn<QString>("prog");
  QTest::addColumn<QString>("prim");
  QTest::addColumn<QString>("blockName");
  QTest::addColumn<QString>("code");
  QTest::addColumn<QString>("references");
  QTest::addColumn<QString>("message");

  QTest::newRow("reduction-block")
      << "matmul-relu" << "compute_inline" << "C" << "schedule.compute_inline.reduction-block" << "block:C"
      << "compute_inline: block 'C' is a reduction block (it has the reduce iterator 'v_k'); only a complete block "
         "can be inlined";
  QTest::newRow("not-single-write")
      << "two-outputs" << "compute_inline" << "B" << "schedule.compute_inline.not-single-write" << "block:B"
      << "compute_inline: block 'B' writes 2 buffers; it must write exactly one";
  QTest::newRow("not-stage-pipeline")
      << "war" << "compute_inline" << "B" << "schedule.compute_inline.not-stage-pipeline" << "block:B,block:W"
      << "compute_inline: the scope of block 'B' (block 'root') is not a stage pipeline: block 'W' writes 'X' after "
         "block 'B' reads it (a write-after-read dependency)";
  QTest::newRow("output-block")
      << "two-stage" << "compute_inline" << "C" << "schedule.compute_inline.output-block" << "block:C"
      << "compute_inline: block 'C' is an output block: it writes 'C', a parameter of the function; only a block "
         "writing a buffer allocated in its scope can be inlined";
  QTest::newRow("not-complete")
      << "two-writers" << "compute_inline" << "B1" << "schedule.compute_inline.not-complete" << "block:B1"
      << "compute_inline: block 'B1' is not a complete block: it is not the only writer of 'B' in its scope (block "
         "'B2' writes it too)";
  QTest::newRow("body-pattern")
      << "size-in-value" << "compute_inline" << "B" << "schedule.compute_inline.body-pattern" << "block:B"
      << "compute_inline: the body of block 'B' must be a single store to 'B' whose indices are distinct variables, "
         "the only variables of the store; it is 'B[v_i] = ...'";
  QTest::newRow("only-leaf")
      << "lone" << "compute_inline" << "B" << "schedule.compute_inline.only-leaf" << "block:B"
      << "compute_inline: block 'B' is the only leaf of its scope 'root' and cannot be removed";

  QTest::newRow("reverse:reduction-block")
      << "matmul-relu" << "reverse_compute_inline" << "C" << "schedule.reverse_compute_inline.reduction-block"
      << "block:C"
      << "reverse_compute_inline: block 'C' is a reduction block (it has the reduce iterator 'v_k'); only a complete "
         "block can be inlined";
  QTest::newRow("reverse:not-stage-pipeline")
      << "war" << "reverse_compute_inline" << "C" << "schedule.reverse_compute_inline.not-stage-pipeline"
      << "block:C,block:B,block:W"
      << "reverse_compute_inline: the scope of block 'C' (block 'root') is not a stage pipeline: block 'W' writes 'X' "
         "after block 'B' reads it (a write-after-read dependency)";
  QTest::newRow("reverse:not-single-read")
      << "fan-in" << "reverse_compute_inline" << "D" << "schedule.reverse_compute_inline.not-single-read"
      << "block:D"
      << "reverse_compute_inline: block 'D' must read exactly one buffer written in its scope; it reads 'B', 'E'";
  QTest::newRow("reverse:not-complete")
      << "in-place" << "reverse_compute_inline" << "C" << "schedule.reverse_compute_inline.not-complete" << "block:C"
      << "reverse_compute_inline: block 'C' is not a complete block: it is not the only writer of 'C' in its scope "
         "(block 'U' writes it too)";
  QTest::newRow("reverse:producer-not-complete")
      << "matmul-relu" << "reverse_compute_inline" << "D" << "schedule.reverse_compute_inline.not-single-producer"
      << "block:D,block:C"
      << "reverse_compute_inline: the producer 'C' of block 'D' is not a complete block: it has the reduce iterator "
         "'v_k'";
  QTest::newRow("reverse:producer-has-other-consumer")
      << "fan-out" << "reverse_compute_inline" << "C" << "schedule.reverse_compute_inline.not-single-producer"
      << "block:C,block:B,block:D"
      << "reverse_compute_inline: the producer 'B' of block 'C' has another consumer, block 'D'; it must feed only "
         "the inlined block";
  QTest::newRow("reverse:overcomputed-producer")
      << "overcomputed"
      << "reverse_compute_inline"
      << "C"
      << "schedule.reverse_compute_inline.overcomputed-producer"
      << "block:C,block:B"
      << "reverse_compute_inline: block 'C' reads 'B' in dimension 0 over [0, 7), but its producer 'B' writes it over "
         "[0, 8): the inlined store would also run where 'C' computes nothing";
  QTest::newRow("reverse:body-pattern")
      << "two-loads" << "reverse_compute_inline" << "C" << "schedule.reverse_compute_inline.body-pattern"
      << "block:C"
      << "reverse_compute_inline: block 'C' must have no predicate and a body that is a single store whose loads of "
         "'B' all use the same indices, distinct variables that are the only variables of the store";
}

void TestComputeInline::refused() {
  QFETCH(QString, prog);
  QFETCH(QString, prim);
  QFETCH(QString, blockName);
  QFETCH(QString, code);
  QFETCH(QString, references);
  QFETCH(QString, message);

  Schedule sch(program(prog));
  const RV b = block(sch, blockName);
  const ir::Stmt before = sch.func().body;
  const std::size_t traceLength = sch.trace().instructions.size();
  auto r = sch.apply(prim.toStdString(), {b});
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), code);
  QCOMPARE(refs(r.error()), references);
  QCOMPARE(QString::fromStdString(r.error().message), message);
  QVERIFY(sch.func().body.sameAs(before));
  QCOMPARE(sch.trace().instructions.size(), traceLength);
  const std::string report = schedule::renderScheduleError(r.error(), sch.func());
  QVERIFY(report.find("^") != std::string::npos);
}

// Regression (differential test, seed 11 sequence 704): after cache_write and a partition
// of j, the producer of C_local is the opaque block C_j_common; rewriting its stores left
// the loads and the allocation of C_local. Refused.
void TestComputeInline::reverseIntoOpaqueProducer() {
  const std::string source = "A = placeholder((8, 12), \"int32\", name=\"A\")\n"
                             "B = placeholder((12, 16), \"int32\", name=\"B\")\n"
                             "k = reduce_axis((0, 12), name=\"k\")\n"
                             "C = compute((8, 16), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";
  const std::string steps = "b = sch.get_block(\"C\")\nw = sch.cache_write(b, 0, \"local\")\n"
                            "i, j, k = sch.get_loops(b)\nparts = sch.loop_partition(j, factors=[5])\n";
  Schedule prepared(testing::parseProgram(source));
  auto ok = schedule::applyScript(prepared, steps, "steps.py");
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  Schedule sch(testing::parseProgram(source));
  auto r = schedule::applyScript(sch, steps + "sch.reverse_compute_inline(w)\n", "steps.py");
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.reverse_compute_inline.opaque-producer"));
  QCOMPARE(refs(r.error()), QString("block:C_local,block:C_j_common"));
  QCOMPARE(QString::fromStdString(r.error().message),
           QString("reverse_compute_inline: the producer 'C_j_common' of block 'C_local' must be a leaf block whose "
                   "body is a single store to 'C_local'; it contains the nested block 'C_j0_partition'"));
  QVERIFY(ir::structuralEqual(sch.func(), prepared.func()));
  QCOMPARE(sch.trace().instructions.size(), prepared.trace().instructions.size());
}

QTEST_GUILESS_MAIN(TestComputeInline)
#include "tst_compute_inline.moc"
