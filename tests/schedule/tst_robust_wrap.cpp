// Integer wrapping and mixed index types in the TIR primitives (issue 13). Each refused
// case is a reproducer of the fuzzing campaign that the legality check used to sign off
// (a split whose extents wrapped to negative numbers, a None factor of FloorDiv(3, 0), a
// factor of 2^31 that became -2^31): the message names the factor or the product and the
// loop's type, and the program and the trace are unchanged. Accepted cases compute what
// the original computes (interpreter, same seeded inputs). The index-type cases check
// TVM's promotion of integer operands where a substitution makes one side wider (the
// compute_inline that aborted on "GE operands have different types: int64 and int32").
#include "schedule_test_helpers.h"

#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/substitute.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_error.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

using namespace loopscape;
using schedule::RV;
using schedule::Schedule;
using schedule::TraceList;
using schedule::TraceValue;

namespace {

const char* const kFour = "A = placeholder((4,), \"float32\", name=\"A\")\n"
                          "B = compute((4,), lambda i: A[i] * 2.0, name=\"B\")\n";
const char* const kSymbolic = "n = var(\"n\")\n"
                              "A = placeholder((n,), \"float32\", name=\"A\")\n"
                              "B = compute((n,), lambda i: A[i] * 2.0, name=\"B\")\n";

std::vector<RV> must(Expected<std::vector<RV>> r, const Schedule& sch) {
  if (!r) qFatal("%s", schedule::renderScheduleError(r.error(), sch.func()).c_str());
  return *r;
}

std::vector<RV> loopsOf(Schedule& sch, const char* block) {
  auto b = must(sch.apply("get_block", {}, {block}), sch);
  return must(sch.apply("get_loops", {b[0]}), sch);
}

/// Applies `kind` expecting a refusal with `code` that leaves the program and the trace
/// unchanged; returns the message.
std::string refused(Schedule& sch, const char* kind, std::vector<TraceValue> inputs, std::vector<TraceValue> attrs,
                    const std::string& code) {
  const ir::Stmt before = sch.func().body;
  const std::size_t steps = sch.trace().instructions.size();
  auto r = sch.apply(kind, std::move(inputs), std::move(attrs));
  if (r) return "(applied)";
  if (r.error().code != code) return "(code " + r.error().code + ") " + r.error().message;
  if (!sch.func().body.sameAs(before) || sch.trace().instructions.size() != steps) return "(state changed)";
  return r.error().message;
}

using I = std::int64_t;

} // namespace

class TestRobustWrap : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // ---------------------------------------------------------------------------- split
  void splitFactorThatDoesNotFitTheLoopType() {
    Schedule sch(testing::parseProgram(kFour));
    auto l = loopsOf(sch, "B");
    QCOMPARE(
        refused(sch, "split", {l[0], TraceList{I(3037000500), I(3037000500), nullptr}}, {}, "schedule.split.too-large"),
        std::string("split factor 3037000500 of loop 'i' does not fit int32 (the loop's type); use a value of at "
                    "most 2147483647"));
  }

  void splitProductThatDoesNotFitTheLoopType() {
    Schedule sch(testing::parseProgram(kFour));
    auto l = loopsOf(sch, "B");
    // Once made the None factor's extent T.FloorDiv(3, 0).
    QCOMPARE(refused(sch, "split", {l[0], TraceList{I(65536), I(65536), nullptr}}, {}, "schedule.split.too-large"),
             std::string("split of loop 'i': the factors 65536, 65536, None multiply to 4294967296, which does not "
                         "fit int32 (the loop's type); choose factors whose product is at most 2147483647"));
    // Once legal, then 19 s in `check` and out-of-bounds writes from cpu-c.
    QCOMPARE(refused(sch, "split", {l[0], TraceList{I(2147483647), I(2147483647)}}, {}, "schedule.split.too-large"),
             std::string("split of loop 'i': the factors 2147483647, 2147483647 multiply to 4611686014132420609, "
                         "which does not fit int32 (the loop's type); choose factors whose product is at most "
                         "2147483647"));
  }

  void splitProductOverflowingInt64() {
    Schedule sch(testing::parseProgram(kFour));
    auto l = loopsOf(sch, "B");
    QCOMPARE(refused(sch, "split", {l[0], TraceList{I(2147483647), I(2147483647), I(2147483647)}}, {},
                     "schedule.split.too-large"),
             std::string("split of loop 'i': the factors 2147483647, 2147483647, 2147483647 multiply to more than "
                         "9223372036854775807, "
                         "which does not fit int32 (the loop's type); choose factors whose product is at most "
                         "2147483647"));
  }

  void splitInferredFactorCountsInTheProduct() {
    Schedule sch(testing::parseProgram("A = placeholder((1073741825,), \"float32\", name=\"A\")\n"
                                       "B = compute((1073741825,), lambda i: A[i] * 2.0, name=\"B\")\n"));
    auto l = loopsOf(sch, "B");
    QCOMPARE(refused(sch, "split", {l[0], TraceList{I(1073741824), nullptr}}, {}, "schedule.split.too-large"),
             std::string("split of loop 'i': the factors 1073741824, None (= 2) multiply to 2147483648, which does "
                         "not fit int32 (the loop's type); choose factors whose product is at most 2147483647"));
  }

  void splitSymbolicExtentFactors() {
    Schedule sch(testing::parseProgram(kSymbolic));
    auto l = loopsOf(sch, "B");
    // Once a factor of -2^31, and 4294967297 silently 1.
    QCOMPARE(refused(sch, "split", {l[0], TraceList{nullptr, I(2147483648)}}, {}, "schedule.split.too-large"),
             std::string("split factor 2147483648 of loop 'i' does not fit int32 (the loop's type); use a value of at "
                         "most 2147483647"));
    QCOMPARE(refused(sch, "split", {l[0], TraceList{nullptr, I(4294967297)}}, {}, "schedule.split.too-large"),
             std::string("split factor 4294967297 of loop 'i' does not fit int32 (the loop's type); use a value of at "
                         "most 2147483647"));
    auto parts = must(sch.apply("split", {l[0], TraceList{nullptr, I(8)}}), sch);
    QCOMPARE(parts.size(), std::size_t(2));
    QCOMPARE(testing::compareResults(sch.original(), sch.func(), {{"n", 13}}), std::string());
  }

  void largeFittingFactorsStillSplit() {
    Schedule sch(testing::parseProgram(kFour));
    auto l = loopsOf(sch, "B");
    must(sch.apply("split", {l[0], TraceList{I(65536), nullptr}}), sch);
    QVERIFY(ir::printPrimFunc(sch.func()).find("T.grid(65536, 1)") != std::string::npos);
    QCOMPARE(testing::compareResults(sch.original(), sch.func()), std::string());
  }

  // ---------------------------------------------------------------------------- other primitives
  void fuseWhoseExtentDoesNotFit() {
    Schedule sch(testing::parseProgram("A = placeholder((65536, 65536), \"float32\", name=\"A\")\n"
                                       "B = compute((65536, 65536), lambda i, j: A[i, j] * 2.0, name=\"B\")\n"));
    auto l = loopsOf(sch, "B");
    QCOMPARE(refused(sch, "fuse", {l[0], l[1]}, {}, "schedule.fuse.too-large"),
             std::string("fuse: the loops 'i', 'j' have 4294967296 iterations together, which does not fit int32 (the "
                         "loops' type); fuse fewer loops or split them first"));
  }

  void loopPartitionWhoseFactorsOverflow() {
    Schedule sch(testing::parseProgram(kFour));
    auto l = loopsOf(sch, "B");
    QCOMPARE(refused(sch, "loop_partition", {l[0], TraceList{I(4611686018427387904), I(4611686018427387904)}}, {},
                     "schedule.loop_partition.factor-sum"),
             std::string("loop_partition of loop 'i': the factors sum to more than 9223372036854775807, which is not "
                         "less than the extent 4"));
  }

  void perfectTileDecisionThatWraps() {
    Schedule sch(testing::parseProgram(kFour));
    auto l = loopsOf(sch, "B");
    // (2^62 + 1) * 4 wraps to 4 in int64: it once passed as a perfect tiling of 4.
    auto r =
        sch.apply("sample_perfect_tile", {l[0]}, {I(2), I(-1)}, TraceValue(TraceList{I(4611686018427387905), I(4)}));
    QVERIFY(!r);
    QCOMPARE(r.error().code, std::string("schedule.sample_perfect_tile.bad-decision"));
    QCOMPARE(refused(sch, "sample_perfect_tile", {l[0]}, {std::int64_t(1000000000), std::int64_t(-1)},
                     "schedule.sample_perfect_tile.too-large"),
             std::string("sample_perfect_tile of loop 'i' asks for n = 1000000000 tiles; at most 200 loops may be "
                         "nested, so use a smaller n"));
  }

  void annotationIntegersKeepTheirValue() {
    Schedule sch(testing::parseProgram(kFour));
    auto l = loopsOf(sch, "B");
    must(sch.apply("annotate", {l[0], std::int64_t(4294967296)}, {std::string("pragma_big")}), sch);
    must(sch.apply("annotate", {l[0], std::int64_t(16)}, {std::string("pragma_small")}), sch);
    const auto text = ir::printPrimFunc(sch.func());
    QVERIFY2(text.find("\"pragma_big\": T.int64(4294967296)") != std::string::npos, text.c_str());
    QVERIFY2(text.find("\"pragma_small\": 16") != std::string::npos, text.c_str());
  }

  void storageAlignWhoseLayoutDoesNotFit() {
    Schedule sch(testing::parseProgram(testing::kTwoStage));
    auto b = must(sch.apply("get_block", {}, {"B"}), sch);
    QCOMPARE(refused(sch, "storage_align", {b[0]},
                     {std::int64_t(0), std::int64_t(0), std::int64_t(2147483647), std::int64_t(0)},
                     "schedule.storage_align.too-large"),
             std::string("storage_align: with factor 2147483647 and offset 0 the padded layout of buffer 'B' has more "
                         "elements than int32 (its index type) can count; use a smaller factor"));
  }

  void transformLayoutPaddingBeyondTheEnumerationLimit() {
    // Fuzz finding F6: a non-permutation map whose new shape has more than 2^24 elements
    // (a 1024x1024 C to 1024x32737) overran the injectivity check's table.
    Schedule sch(testing::parseProgram("A = placeholder((1024, 8), \"float32\", name=\"A\")\n"
                                       "B = placeholder((8, 1024), \"float32\", name=\"B\")\n"
                                       "k = reduce_axis((0, 8), name=\"k\")\n"
                                       "C = compute((1024, 1024), lambda i, j: sum(A[i, k] * B[k, j], axis=k), "
                                       "name=\"C\")\n"));
    const ir::Stmt before = sch.func().body;
    auto r = schedule::applyScript(sch,
                                   "b = sch.get_block(\"C\")\n"
                                   "sch.transform_layout(b, (\"write\", 0), lambda i, j: (i, j * 32))\n",
                                   "t.py");
    QVERIFY(!r);
    QCOMPARE(r.error().code, std::string("schedule.transform_layout.padding"));
    QCOMPARE(r.error().message,
             std::string("the index map introduces padding: the new shape of buffer 'C' has 33522688 elements, the "
                         "buffer 1048576; transform_layout without pad_value needs a bijection"));
    QVERIFY(sch.func().body.sameAs(before));
  }

  // ---------------------------------------------------------------------------- index types
  void computeInlineWithAnInt64Index() {
    const char* source = "A = placeholder((4,), \"float32\", name=\"A\")\n"
                         "P = compute((4,), lambda i: if_then_else(i >= 1, A[i], 0.0), name=\"P\")\n"
                         "B = compute((1,), lambda i: P[4294967296 * i], name=\"B\")\n";
    Schedule sch(testing::parseProgram(source));
    auto p = must(sch.apply("get_block", {}, {"P"}), sch);
    must(sch.apply("compute_inline", {p[0]}), sch);
    const auto text = ir::printPrimFunc(sch.func());
    QVERIFY2(text.find("T.if_then_else(T.int64(1) <= T.int64(4294967296) * T.Cast(\"int64\", v_i)") !=
                 std::string::npos,
             text.c_str());
    QCOMPARE(testing::compareResults(sch.original(), sch.func()), std::string());
  }

  void computeInlineReproducerAsReported() {
    Schedule sch(testing::parseProgram("A = placeholder((4,), \"float32\", name=\"A\")\n"
                                       "P = compute((4,), lambda i: if_then_else(i >= 1, A[i], 0.0), name=\"P\")\n"
                                       "B = compute((4,), lambda i: P[4294967296 * i], name=\"B\")\n"));
    auto ok = schedule::applyScript(sch, "sch.compute_inline(sch.get_block(\"P\"))\n", "t.py");
    QVERIFY2(ok.has_value(), ok ? "" : ok.error().message.c_str());
  }

  void substituteWidensTheOperations() {
    const ir::Expr v = ir::Var::make("v", ir::DataType::int32());
    const ir::Expr wide = ir::Var::make("w", ir::DataType::int64());
    const ir::Expr e = ir::substitute(v * 2 + 1 >= 1, {{v.get(), wide}});
    QCOMPARE(ir::printExpr(e), std::string("w * T.int64(2) + T.int64(1) >= T.int64(1)"));
    QVERIFY(e.as<ir::GE>()->a.dtype() == ir::DataType::int64());
  }

  void operatorsPromoteIntegerWidths() {
    const ir::Expr v = ir::Var::make("v", ir::DataType::int32());
    const ir::Expr w = ir::Var::make("w", ir::DataType::int64());
    QVERIFY((v + w).dtype() == ir::DataType::int64());
    QVERIFY((w < v).as<ir::LT>()->b.dtype() == ir::DataType::int64());
    // A literal that int32 cannot hold makes the operation int64 instead of wrapping.
    QVERIFY((v * std::int64_t(4294967296)).dtype() == ir::DataType::int64());
    QCOMPARE(ir::printExpr(v * std::int64_t(4294967296)), std::string("T.Cast(\"int64\", v) * T.int64(4294967296)"));
    QVERIFY((v * 4).dtype() == ir::DataType::int32());
  }
};

QTEST_GUILESS_MAIN(TestRobustWrap)
#include "tst_robust_wrap.moc"
