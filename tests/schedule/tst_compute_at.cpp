// compute_at and reverse_compute_at: printed results against golden files (as TVM prints
// them: regenerated loops ax0.., bindings `min + ax`, T.where where the needed region is
// not provably inside the buffer), interpreter equality with the original program, every
// refused precondition with its code, references and message, and that a refusal
// changes nothing.
#include "compute_location_programs.h"
#include "schedule_test_helpers.h"

#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/schedule/schedule_error.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

using namespace loopscape;
using schedule::RV;
using schedule::Schedule;
using schedule::TraceList;
using schedule::TraceValue;

namespace {

// Small copies of samples/softmax.te, layernorm.te and conv_bias_relu.te (as in
// tst_differential.cpp), where the differential test found reverse_compute_at bugs.
const char* const kSoftmax =
    "X = placeholder((4, 8), name=\"X\")\nk1 = reduce_axis((0, 8), name=\"k1\")\n"
    "k2 = reduce_axis((0, 8), name=\"k2\")\n"
    "maxelem = compute((4,), lambda i: max(X[i, k1], axis=k1), name=\"T_softmax_maxelem\")\n"
    "expv = compute((4, 8), lambda i, j: exp(X[i, j] - maxelem[i]), name=\"T_softmax_exp\")\n"
    "expsum = compute((4,), lambda i: sum(expv[i, k2], axis=k2), name=\"T_softmax_expsum\")\n"
    "norm = compute((4, 8), lambda i, j: expv[i, j] / expsum[i], name=\"T_softmax_norm\")\n";
const char* const kLayerNorm =
    "data = placeholder((4, 8), name=\"data\")\ngamma = placeholder((8,), name=\"gamma\")\n"
    "beta = placeholder((8,), name=\"beta\")\nk = reduce_axis((0, 8), name=\"k\")\n"
    "mean = compute((4,), lambda i: sum(data[i, k] / 8, axis=k), name=\"T_mean\")\n"
    "kv = reduce_axis((0, 8), name=\"kv\")\n"
    "var = compute((4,), lambda i: sum((data[i, kv] - mean[i]) * (data[i, kv] - mean[i]) / 8, axis=kv), "
    "name=\"T_var\")\n"
    "out = compute((4, 8), lambda i, j: (data[i, j] - mean[i]) * rsqrt(var[i] + 1e-5) * gamma[j] + beta[j], "
    "name=\"T_layer_norm\")\n";
const char* const kConvBiasRelu =
    "data = placeholder((1, 2, 6, 6), \"int32\", name=\"data\")\n"
    "weight = placeholder((3, 2, 3, 3), \"int32\", name=\"weight\")\n"
    "bias = placeholder((3,), \"int32\", name=\"bias\")\n"
    "pad_temp = compute((1, 2, 8, 8), lambda i0, i1, i2, i3: if_then_else(all(i2 >= 1, i2 < 7, i3 >= 1, i3 < 7), "
    "data[i0, i1, i2 - 1, i3 - 1], 0), name=\"pad_temp\")\n"
    "rc = reduce_axis((0, 2), name=\"rc\")\nry = reduce_axis((0, 3), name=\"ry\")\n"
    "rx = reduce_axis((0, 3), name=\"rx\")\n"
    "conv = compute((1, 3, 6, 6), lambda nn, ff, yy, xx: sum(pad_temp[nn, rc, yy + ry, xx + rx] * "
    "weight[ff, rc, ry, rx], axis=[rc, ry, rx]), name=\"conv2d_nchw\")\n"
    "biased = compute((1, 3, 6, 6), lambda n, f, y, x: conv[n, f, y, x] + bias[f], name=\"T_add\")\n"
    "relu = compute((1, 3, 6, 6), lambda n, f, y, x: max(biased[n, f, y, x], 0), name=\"T_relu\")\n";

/// C = A (loop i, output); P = A; D = P (D writes an intermediate nobody reads).
ir::PrimFunc deadBlockProgram() {
  namespace p = testing::programs;
  auto A = p::buffer1d("A"), C = p::buffer1d("C"), P = p::buffer1d("P"), D = p::buffer1d("D");
  return p::function({A, C}, {P, D},
                     {p::stage("C", [&](const ir::Expr& v) { return p::store(C, v, p::load(A, v)); }),
                      p::stage("P", [&](const ir::Expr& v) { return p::store(P, v, p::load(A, v)); }, 16, "j"),
                      p::stage("D", [&](const ir::Expr& v) { return p::store(D, v, p::load(P, v)); }, 16, "k")});
}

ir::PrimFunc program(const QString& id) {
  namespace p = testing::programs;
  if (id == "softmax") return testing::parseProgram(kSoftmax);
  if (id == "layernorm") return testing::parseProgram(kLayerNorm);
  if (id == "conv-bias-relu") return testing::parseProgram(kConvBiasRelu);
  if (id == "dead-block") return deadBlockProgram();
  if (id == "two-stage") return testing::parseProgram(testing::kTwoStage);
  if (id == "conv") return testing::parseProgram(p::kConv);
  if (id == "matmul-relu") return testing::parseProgram(p::kMatmulRelu);
  if (id == "fan-out") return testing::parseProgram(p::kFanOut);
  if (id == "fan-in") return testing::parseProgram(p::kFanIn);
  if (id == "war") return p::warProgram();
  if (id == "nested") return p::nestedProgram();
  if (id == "in-place") return p::inPlaceProgram();
  if (id == "shifted") return p::shiftedProgram();
  qFatal("unknown program %s", qPrintable(id));
}

RV get(Expected<std::vector<RV>> r, std::size_t k = 0) {
  if (!r) qFatal("%s", r.error().message.c_str());
  return r->at(k);
}

RV block(Schedule& sch, const QString& name) { return get(sch.apply("get_block", {}, {name.toStdString()})); }

std::vector<RV> loops(Schedule& sch, RV b) {
  auto r = sch.apply("get_loops", {b});
  if (!r) qFatal("%s", r.error().message.c_str());
  return *r;
}

QString loopName(const Schedule& sch, RV l) {
  auto node = sch.loop(l, "test");
  if (!node) return QString::fromStdString(node.error().message);
  return QString::fromStdString((*node)->loop()->loopVar.as<ir::Var>()->name);
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

class TestComputeAt : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void twoStage();
  void afterSplitThenSplitAx();
  void nonDivisiblePredicate();
  void conv();
  void reductionProducer();
  void reverseEpilogue();
  void preserveUnitLoopsAndIndex();
  void reverseLayerNorm();
  void rootMarkIsNoOp();
  void inlineMark_data();
  void inlineMark();
  void inlineMarkRefused();
  void afterBlockizeAndInline();
  void refused_data();
  void refused();
};

/// compute_at(B, i) of B -> C: B regenerates the j loop only (i is bound to C's i).
void TestComputeAt::twoStage() {
  const auto f = program("two-stage");
  Schedule sch(f);
  const RV b = block(sch, "B");
  const RV c = block(sch, "C");
  auto ok = sch.apply("compute_at", {b, loops(sch, c)[0]});
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  const auto text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("compute_at_two_stage", text).isEmpty(),
           qPrintable(testing::checkGolden("compute_at_two_stage", text)));
  const std::string diff = testing::compareResults(f, sch.func());
  QVERIFY2(diff.empty(), diff.c_str());
  // The block RV still resolves; the new loops are i (C's) and ax0.
  const auto ls = loops(sch, b);
  QCOMPARE(ls.size(), std::size_t(2));
  QCOMPARE(loopName(sch, ls[0]), QString("i"));
  QCOMPARE(loopName(sch, ls[1]), QString("ax0"));
}

/// Split C's i by 8, compute_at B under i_0: B gets ax0 (8) and ax1 (64) with
/// `v_i = i_0 * 8 + ax0`; then the regenerated ax0 splits like any loop.
void TestComputeAt::afterSplitThenSplitAx() {
  const auto f = program("two-stage");
  Schedule sch(f);
  const RV b = block(sch, "B");
  const RV c = block(sch, "C");
  const auto cl = loops(sch, c);
  const RV i0 = get(sch.apply("split", {cl[0], TraceList{nullptr, 8}}), 0);
  QVERIFY(sch.apply("compute_at", {b, i0}));
  QVERIFY2(testing::checkGolden("compute_at_split", ir::printPrimFunc(sch.func())).isEmpty(),
           qPrintable(testing::checkGolden("compute_at_split", ir::printPrimFunc(sch.func()))));
  const auto bl = loops(sch, b);
  QCOMPARE(bl.size(), std::size_t(3));
  QCOMPARE(loopName(sch, bl[0]), QString("i_0"));
  QCOMPARE(loopName(sch, bl[1]), QString("ax0"));
  QCOMPARE(loopName(sch, bl[2]), QString("ax1"));
  auto split = sch.apply("split", {bl[1], TraceList{nullptr, 4}});
  QVERIFY2(split, split ? "" : split.error().message.c_str());
  // C's loops survived both steps; the RV of the split ax0 is stale, as in TVM.
  QCOMPARE(loopName(sch, cl[1]), QString("j"));
  QCOMPARE(loopName(sch, i0), QString("i_0"));
  QVERIFY(loopName(sch, bl[1]).startsWith(QString("loop l%1 ('ax0') no longer exists").arg(bl[1].id)));
  QVERIFY2(testing::checkGolden("compute_at_split_ax", ir::printPrimFunc(sch.func())).isEmpty(),
           qPrintable(testing::checkGolden("compute_at_split_ax", ir::printPrimFunc(sch.func()))));
  const std::string diff = testing::compareResults(f, sch.func());
  QVERIFY2(diff.empty(), diff.c_str());
}

/// 64 split by 10: the last i_0 tile needs rows 60..69, only 60..63 exist: T.where.
void TestComputeAt::nonDivisiblePredicate() {
  const auto f = program("two-stage");
  Schedule sch(f);
  const RV b = block(sch, "B");
  const RV c = block(sch, "C");
  const RV i0 = get(sch.apply("split", {loops(sch, c)[0], TraceList{nullptr, 10}}), 0);
  QVERIFY(sch.apply("compute_at", {b, i0}));
  const auto text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("compute_at_predicate", text).isEmpty(),
           qPrintable(testing::checkGolden("compute_at_predicate", text)));
  const std::string diff = testing::compareResults(f, sch.func());
  QVERIFY2(diff.empty(), diff.c_str());
}

/// pad_temp under the conv's yy loop: 3 padded rows per output row, all channels and
/// columns; the unit batch loop is dropped (v_i0 = 0).
void TestComputeAt::conv() {
  const auto f = program("conv");
  Schedule sch(f);
  const RV pad = block(sch, "pad_temp");
  const RV conv = block(sch, "conv2d_nchw");
  QVERIFY(sch.apply("compute_at", {pad, loops(sch, conv)[2]}));
  const auto text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("compute_at_conv", text).isEmpty(),
           qPrintable(testing::checkGolden("compute_at_conv", text)));
  const std::string diff = testing::compareResults(f, sch.func());
  QVERIFY2(diff.empty(), diff.c_str());
}

/// A reduction producer (C = A @ B) moved under its consumer's i loop regenerates its
/// spatial j and its whole reduce k.
void TestComputeAt::reductionProducer() {
  auto f = program("matmul-relu");
  Schedule sch(f);
  const RV c = block(sch, "C");
  const RV d = block(sch, "D");
  QVERIFY(sch.apply("compute_at", {c, loops(sch, d)[0]}));
  const auto text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("compute_at_reduction", text).isEmpty(),
           qPrintable(testing::checkGolden("compute_at_reduction", text)));
  const std::string diff = testing::compareResults(f, sch.func());
  QVERIFY2(diff.empty(), diff.c_str());
}

/// Matmul + bias/relu epilogue: split C's j by 16, reverse_compute_at D under j_0.
void TestComputeAt::reverseEpilogue() {
  const auto f = program("matmul-relu");
  Schedule sch(f);
  const RV c = block(sch, "C");
  const RV d = block(sch, "D");
  const RV j0 = get(sch.apply("split", {loops(sch, c)[1], TraceList{nullptr, 16}}), 0);
  auto ok = sch.apply("reverse_compute_at", {d, j0});
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  const auto text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("compute_at_reverse_epilogue", text).isEmpty(),
           qPrintable(testing::checkGolden("compute_at_reverse_epilogue", text)));
  const std::string diff = testing::compareResults(f, sch.func());
  QVERIFY2(diff.empty(), diff.c_str());
  // The epilogue's regenerated loop splits.
  QVERIFY(sch.apply("split", {loops(sch, d).back(), TraceList{nullptr, 4}}));
  QVERIFY(testing::compareResults(f, sch.func()).empty());
}

/// preserve_unit_loops keeps the extent-1 loops (E: ax0, ax1 of extent 1, bindings
/// `i + ax0`); index=-2 inserts after the last producer (B has none: first position),
/// index=-1 before the first consumer.
void TestComputeAt::preserveUnitLoopsAndIndex() {
  const auto f = program("fan-in");
  Schedule sch(f);
  const RV b = block(sch, "B");
  const RV e = block(sch, "E");
  const RV d = block(sch, "D");
  const auto dl = loops(sch, d);
  // E under D's j (E first, then D), then B at index -2 (before E: B has no producer).
  QVERIFY(sch.apply("compute_at", {e, dl[1]}, {true, -1}));
  QVERIFY(sch.apply("compute_at", {b, dl[1]}, {false, -2}));
  const auto text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("compute_at_unit_loops_index", text).isEmpty(),
           qPrintable(testing::checkGolden("compute_at_unit_loops_index", text)));
  QVERIFY(testing::compareResults(f, sch.func()).empty());
  QCOMPARE(sch.trace().instructions.back().attrs.size(), std::size_t(2));
}

/// Layernorm: T_var, then T_layer_norm (reading T_mean and T_var) reverse-computed at
/// T_mean's i: the reduce kv and the spatial j are regenerated whole, v_i is i (bit-exact
/// with the original).
void TestComputeAt::reverseLayerNorm() {
  const auto f = program("layernorm");
  Schedule sch(f);
  const RV mean = block(sch, "T_mean");
  const RV var = block(sch, "T_var");
  const RV out = block(sch, "T_layer_norm");
  const RV i = loops(sch, mean)[0];
  auto ok = sch.apply("reverse_compute_at", {var, i});
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  ok = sch.apply("reverse_compute_at", {out, i});
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  const auto text = ir::printPrimFunc(sch.func());
  QVERIFY2(testing::checkGolden("compute_at_reverse_layernorm", text).isEmpty(),
           qPrintable(testing::checkGolden("compute_at_reverse_layernorm", text)));
  const std::string diff = testing::compareResults(f, sch.func());
  QVERIFY2(diff.empty(), diff.c_str());
}

/// The root mark of sample_compute_location (decision -1): compute_at and
/// reverse_compute_at leave the block where it is and are recorded (TVM: "do nothing").
void TestComputeAt::rootMarkIsNoOp() {
  const auto f = program("two-stage");
  Schedule sch(f);
  const RV b = block(sch, "B");
  const RV root = get(sch.apply("sample_compute_location", {b}, {}, TraceValue(std::int64_t{-1})));
  QCOMPARE(sch.loopMark(root), schedule::LoopMark::Root);
  const ir::Stmt before = sch.func().body;
  const std::size_t length = sch.trace().instructions.size();
  auto ok = sch.apply("compute_at", {b, root});
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  ok = sch.apply("reverse_compute_at", {block(sch, "C"), root});
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  QVERIFY(sch.func().body.sameAs(before));
  QCOMPARE(sch.trace().instructions.size(), length + 3); // compute_at, get_block, reverse_compute_at
  auto replay = schedule::replayTrace(f, sch.trace());
  QVERIFY2(replay, replay ? "" : replay.error().message.c_str());
  QVERIFY(ir::structuralEqual(replay->func(), sch.func()));
}

/// The inline mark (decision -2): compute_at inlines the producer, reverse_compute_at
/// inlines the consumer into its producer, exactly as compute_inline /
/// reverse_compute_inline do.
void TestComputeAt::inlineMark_data() {
  QTest::addColumn<QString>("prim");
  QTest::addColumn<QString>("blockName");
  QTest::addColumn<QString>("equivalent");
  QTest::newRow("compute_at") << "compute_at" << "B" << "compute_inline";
  QTest::newRow("reverse_compute_at") << "reverse_compute_at" << "C" << "reverse_compute_inline";
}

void TestComputeAt::inlineMark() {
  QFETCH(QString, prim);
  QFETCH(QString, blockName);
  QFETCH(QString, equivalent);
  const auto f = program("two-stage");
  Schedule sch(f);
  const RV mark = get(sch.apply("sample_compute_location", {block(sch, "B")}, {}, TraceValue(std::int64_t{-2})));
  QCOMPARE(sch.loopMark(mark), schedule::LoopMark::Inline);
  auto ok = sch.apply(prim.toStdString(), {block(sch, blockName), mark});
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  Schedule direct(f);
  QVERIFY(direct.apply(equivalent.toStdString(), {block(direct, blockName)}));
  QVERIFY(ir::structuralEqual(sch.func(), direct.func()));
  QVERIFY(testing::compareResults(f, sch.func()).empty());
  auto replay = schedule::replayTrace(f, sch.trace());
  QVERIFY2(replay, replay ? "" : replay.error().message.c_str());
  QVERIFY(ir::structuralEqual(replay->func(), sch.func()));
}

/// compute_at to the inline mark refuses what compute_inline refuses, with its error.
void TestComputeAt::inlineMarkRefused() {
  Schedule sch(program("two-stage"));
  const RV mark = get(sch.apply("sample_compute_location", {block(sch, "B")}, {}, TraceValue(std::int64_t{-2})));
  const ir::Stmt before = sch.func().body;
  const std::size_t length = sch.trace().instructions.size();
  auto r = sch.apply("compute_at", {block(sch, "C"), mark});
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), QString("schedule.compute_inline.output-block"));
  QVERIFY(sch.func().body.sameAs(before));
  QCOMPARE(sch.trace().instructions.size(), length + 1); // the get_block only
}

void TestComputeAt::refused_data() {
  QTest::addColumn<QString>("prog");
  QTest::addColumn<QString>("prim");
  QTest::addColumn<QString>("blockName");
  QTest::addColumn<QString>("loopBlock");
  QTest::addColumn<int>("loopIndex");
  QTest::addColumn<int>("index");
  QTest::addColumn<QString>("code");
  QTest::addColumn<QString>("references");
  QTest::addColumn<QString>("message");

  QTest::newRow("not-in-same-scope")
      << "nested" << "compute_at" << "B" << "C" << 0 << -1 << "schedule.compute_at.not-in-same-scope"
      << "block:B,loop:j"
      << "compute_at: block 'B' and loop 'j' are not in the same scope: the block is in the scope of block 'root', "
         "the loop in the scope of block 'outer'";
  QTest::newRow("loop-is-ancestor")
      << "two-stage" << "compute_at" << "B" << "B" << 1 << -1 << "schedule.compute_at.loop-is-ancestor"
      << "block:B,loop:j"
      << "compute_at: loop 'j' is an ancestor of block 'B'; the block can only move under a loop that does not "
         "already enclose it";
  QTest::newRow("not-stage-pipeline")
      << "war" << "compute_at" << "B" << "C" << 0 << -1 << "schedule.compute_at.not-stage-pipeline"
      << "block:B,loop:i,block:W"
      << "compute_at: the scope of block 'B' (block 'root') is not a stage pipeline: block 'W' writes 'X' after "
         "block 'B' reads it (a write-after-read dependency)";
  QTest::newRow("not-compact-dataflow")
      << "in-place" << "compute_at" << "B" << "C" << 0 << -1 << "schedule.compute_at.not-compact-dataflow"
      << "block:B,loop:i,block:C"
      << "compute_at: the scope of block 'B' (block 'root') does not have compact dataflow: block 'C' is neither a "
         "complete block nor a reduction block: it is not the only writer of 'C' in its scope (block 'U' writes it "
         "too)";
  QTest::newRow("output-block")
      << "two-stage" << "compute_at" << "C" << "B" << 0 << -1 << "schedule.compute_at.output-block"
      << "block:C,loop:i"
      << "compute_at: block 'C' is an output block: it writes 'C', a parameter of the function; only blocks writing "
         "buffers allocated in the scope can move";
  QTest::newRow("consumer-not-under-loop")
      << "fan-out" << "compute_at" << "B" << "C" << 1 << -1 << "schedule.compute_at.consumer-not-under-loop"
      << "block:B,loop:j,block:D"
      << "compute_at: every consumer of block 'B' must be under loop 'j', but its consumer 'D' is not";
  QTest::newRow("bad-index")
      << "two-stage" << "compute_at" << "B" << "C" << 0 << 3 << "schedule.compute_at.bad-index" << "block:B,loop:i"
      << "compute_at: index 3 is not valid for block 'B' under loop 'i'; valid: -1, -2 or 0 to 0";
  QTest::newRow("unsupported-region")
      << "shifted" << "compute_at" << "B" << "C" << 0 << -1 << "schedule.compute_at.unsupported-region"
      << "block:B,loop:i"
      << "compute_at: block 'B' writes 'B' at dimension 0 as 'v_i + 1'; only a constant, an iterator, iterator * "
         "constant or iterator // constant can be solved for the region its consumers need";
  QTest::newRow("reverse:not-in-same-scope")
      << "nested" << "reverse_compute_at" << "C" << "B" << 0 << -1
      << "schedule.reverse_compute_at.not-in-same-scope" << "block:C,loop:i"
      << "reverse_compute_at: block 'C' and loop 'i' are not in the same scope: the block is in the scope of block "
         "'outer', the loop in the scope of block 'root'";
  QTest::newRow("reverse:loop-is-ancestor")
      << "two-stage" << "reverse_compute_at" << "C" << "C" << 0 << -1
      << "schedule.reverse_compute_at.loop-is-ancestor" << "block:C,loop:i"
      << "reverse_compute_at: loop 'i' is an ancestor of block 'C'; the block can only move under a loop that does "
         "not already enclose it";
  QTest::newRow("reverse:not-stage-pipeline")
      << "war" << "reverse_compute_at" << "C" << "B" << 0 << -1 << "schedule.reverse_compute_at.not-stage-pipeline"
      << "block:C,loop:i,block:B,block:W"
      << "reverse_compute_at: the scope of block 'C' (block 'root') is not a stage pipeline: block 'W' writes 'X' "
         "after block 'B' reads it (a write-after-read dependency)";
  QTest::newRow("reverse:not-compact-dataflow")
      << "in-place" << "reverse_compute_at" << "C" << "B" << 0 << -1
      << "schedule.reverse_compute_at.not-compact-dataflow" << "block:C,loop:i"
      << "reverse_compute_at: the scope of block 'C' (block 'root') does not have compact dataflow: block 'C' is "
         "neither a complete block nor a reduction block: it is not the only writer of 'C' in its scope (block 'U' "
         "writes it too)";
  QTest::newRow("reverse:producer-not-under-loop")
      << "fan-in" << "reverse_compute_at" << "D" << "B" << 1 << -1
      << "schedule.reverse_compute_at.producer-not-under-loop" << "block:D,loop:j,block:E"
      << "reverse_compute_at: every producer of block 'D' must be under loop 'j', but its producer 'E' is not";
  QTest::newRow("producer-after-loop")
      << "dead-block" << "compute_at" << "D" << "C" << 0 << -1 << "schedule.compute_at.producer-after-loop"
      << "block:D,loop:i,block:P"
      << "compute_at: block 'D' under loop 'i' would run before its producer 'P', which runs outside the loop";
  // Regressions of the differential test: T_softmax_maxelem (no producer) moved after the
  // block that reads it; pad_temp moved after the convolution (sequence 150).
  QTest::newRow("reverse:consumer-before-loop")
      << "softmax" << "reverse_compute_at" << "T_softmax_maxelem" << "T_softmax_expsum" << 1 << -1
      << "schedule.reverse_compute_at.consumer-before-loop" << "block:T_softmax_maxelem,loop:k2,block:T_softmax_exp"
      << "reverse_compute_at: block 'T_softmax_maxelem' under loop 'k2' would run after its consumer "
         "'T_softmax_exp', which runs outside the loop";
  QTest::newRow("reverse:consumer-before-loop:conv")
      << "conv-bias-relu" << "reverse_compute_at" << "pad_temp" << "T_relu" << 3 << -1
      << "schedule.reverse_compute_at.consumer-before-loop" << "block:pad_temp,loop:x,block:conv2d_nchw"
      << "reverse_compute_at: block 'pad_temp' under loop 'x' would run after its consumer 'conv2d_nchw', which "
         "runs outside the loop";
  QTest::newRow("reverse:producer-not-complete")
      << "layernorm" << "reverse_compute_at" << "T_var" << "T_mean" << 1 << -1
      << "schedule.reverse_compute_at.producer-not-complete" << "block:T_var,loop:k,block:T_mean"
      << "reverse_compute_at: the producer 'T_mean' of block 'T_var' is not complete under loop 'k': its reduce "
         "iterator 'v_k' does not cover its whole domain inside the loop, so block 'T_var' would read partial results";
  QTest::newRow("reverse:bad-index")
      << "two-stage" << "reverse_compute_at" << "C" << "B" << 1 << 0 << "schedule.reverse_compute_at.bad-index"
      << "block:C,loop:j"
      << "reverse_compute_at: index 0 is not valid for block 'C' under loop 'j'; valid: -1, -2 or 1 to 1";
}

void TestComputeAt::refused() {
  QFETCH(QString, prog);
  QFETCH(QString, prim);
  QFETCH(QString, blockName);
  QFETCH(QString, loopBlock);
  QFETCH(int, loopIndex);
  QFETCH(int, index);
  QFETCH(QString, code);
  QFETCH(QString, references);
  QFETCH(QString, message);

  Schedule sch(program(prog));
  const RV b = block(sch, blockName);
  const RV l = loops(sch, block(sch, loopBlock)).at(loopIndex);
  const ir::Stmt before = sch.func().body;
  const std::size_t traceLength = sch.trace().instructions.size();
  auto r = sch.apply(prim.toStdString(), {b, l}, {false, index});
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), code);
  QCOMPARE(refs(r.error()), references);
  QCOMPARE(QString::fromStdString(r.error().message), message);
  QVERIFY(sch.func().body.sameAs(before));
  QCOMPARE(sch.trace().instructions.size(), traceLength);
  // The report renders against the program and underlines the references.
  const std::string report = schedule::renderScheduleError(r.error(), sch.func());
  QVERIFY(report.find("^") != std::string::npos);
}

// Regression (differential test, seed 6 sequence 1395): compute_inline re-derives the
// regions of the blockize outer block T_softmax_expsum_o from its body, which holds only
// nested blocks; the regions came out empty, so compute_at saw no consumer of
// T_softmax_maxelem and moved it behind its consumer. The nested blocks' regions,
// relaxed over the loops inside the outer block, are its regions.
void TestComputeAt::afterBlockizeAndInline() {
  const std::string source = "X = placeholder((4, 8), name=\"X\")\nk1 = reduce_axis((0, 8), name=\"k1\")\n"
                             "k2 = reduce_axis((0, 8), name=\"k2\")\n"
                             "maxelem = compute((4,), lambda i: max(X[i, k1], axis=k1), name=\"T_softmax_maxelem\")\n"
                             "expv = compute((4, 8), lambda i, j: exp(X[i, j] - maxelem[i]), name=\"T_softmax_exp\")\n"
                             "expsum = compute((4,), lambda i: sum(expv[i, k2], axis=k2), name=\"T_softmax_expsum\")\n"
                             "norm = compute((4, 8), lambda i, j: expv[i, j] / expsum[i], name=\"T_softmax_norm\")\n";
  Schedule sch(testing::parseProgram(source));
  auto ok = schedule::applyScript(sch,
                                  "b3 = sch.get_block(\"T_softmax_expsum\")\nl4, l5 = sch.get_loops(b3)\n"
                                  "b6 = sch.blockize(l4)\nsch.compute_inline(sch.get_block(\"T_softmax_exp\"))\n",
                                  "steps.py");
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  const auto* outer = sch.tree().findBlock("T_softmax_expsum_o");
  QVERIFY(outer);
  QCOMPARE(outer->block()->reads.size(), std::size_t(2));
  QCOMPARE(QString::fromStdString(ir::printStmt(sch.tree().findBlock("T_softmax_expsum_o")->handle)).count("T.reads(X[0:4, 0:8], T_softmax_maxelem[0:4])"), 1);
  auto r = schedule::applyScript(sch, "b9 = sch.get_block(\"T_softmax_maxelem\")\nl10 = sch.sample_compute_location(b9, decision=0)\n"
                                      "sch.compute_at(b9, l10)\n", "steps.py");
  QVERIFY2(r, r ? "" : r.error().message.c_str());
  QCOMPARE(QString::fromStdString(testing::compareResults(sch.original(), sch.func())), QString());
}

QTEST_GUILESS_MAIN(TestComputeAt)
#include "tst_compute_at.moc"
