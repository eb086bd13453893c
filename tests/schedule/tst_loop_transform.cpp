// split, fuse and reorder: printed results against golden files (TVM's output for the
// same schedule), interpreter equality with the original, and one refused case per
// documented precondition (code, referenced loops/blocks, state unchanged).
#include "schedule_test_helpers.h"

#include "core/ir/printer.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_error.h"

#include <QtTest>

using namespace loopscape;
using schedule::RV;
using schedule::Schedule;
using schedule::TraceList;
using schedule::TraceValue;

namespace {

std::vector<RV> must(Expected<std::vector<RV>> r, const Schedule& sch) {
  if (!r) qFatal("%s", schedule::renderScheduleError(r.error(), sch.func()).c_str());
  return *r;
}

std::string refsOf(const Diagnostic& d) {
  std::string out;
  for (const auto& r : d.references) out += (out.empty() ? "" : ",") + r.name;
  return out;
}

/// The loops of block `name`.
std::vector<RV> loopsOf(Schedule& sch, const char* name) {
  auto b = must(sch.apply("get_block", {}, {name}), sch);
  return must(sch.apply("get_loops", {b[0]}), sch);
}

const char* const kFused = "A = placeholder((6, 6), \"float32\", name=\"A\")\n"
                           "k = reduce_axis((0, 6), name=\"k\")\n"
                           "B = compute((6,), lambda j: sum(A[j, k], axis=k), name=\"B\")\n";

} // namespace

class TestLoopTransform : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void splitDivisible() {
    Schedule sch(testing::parseProgram(testing::kSmallMatmul));
    auto l = loopsOf(sch, "C");
    must(sch.apply("split", {l[0], TraceList{nullptr, 16}}), sch);
    QVERIFY2(testing::checkGolden("loop_split_divisible", ir::printPrimFunc(sch.func())).isEmpty(),
             qPrintable(testing::checkGolden("loop_split_divisible", ir::printPrimFunc(sch.func()))));
    QCOMPARE(testing::compareResults(sch.original(), sch.func()), std::string());
  }

  void splitNonDivisibleAddsPredicate() {
    Schedule sch(testing::parseProgram(testing::kSmallMatmul));
    auto l = loopsOf(sch, "C");
    auto parts = must(sch.apply("split", {l[2], TraceList{nullptr, 5}}), sch); // 48 = 10 x 5 - 2
    QCOMPARE(parts.size(), std::size_t(2));
    const auto text = ir::printPrimFunc(sch.func());
    QVERIFY(text.find("T.where(k_0 * 5 + k_1 < 48)") != std::string::npos);
    QVERIFY2(testing::checkGolden("loop_split_predicate", text).isEmpty(),
             qPrintable(testing::checkGolden("loop_split_predicate", text)));
    QCOMPARE(testing::compareResults(sch.original(), sch.func()), std::string());
  }

  void fuseAndReorder() {
    Schedule sch(testing::parseProgram(testing::kSmallMatmul));
    auto l = loopsOf(sch, "C");
    auto i = must(sch.apply("split", {l[0], TraceList{nullptr, 8}}), sch);
    must(sch.apply("reorder", {i[0], l[1], i[1]}), sch);
    auto fused = must(sch.apply("fuse", {i[0], l[1]}), sch);
    QCOMPARE(fused.size(), std::size_t(1));
    const auto text = ir::printPrimFunc(sch.func());
    QVERIFY(text.find("for i_0_j_fused, i_1, k in T.grid(256, 8, 48):") != std::string::npos);
    QVERIFY2(testing::checkGolden("loop_fuse_reorder", text).isEmpty(),
             qPrintable(testing::checkGolden("loop_fuse_reorder", text)));
    QCOMPARE(testing::compareResults(sch.original(), sch.func()), std::string());
  }

  void refused_data() {
    QTest::addColumn<QString>("step");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("refs");
    QTest::newRow("split annotated") << "split-annotated" << "schedule.split.annotated-loop" << "i";
    QTest::newRow("split two None") << "split-none" << "schedule.split.multiple-none" << "i";
    QTest::newRow("split zero factor") << "split-zero" << "schedule.split.bad-factor" << "i";
    QTest::newRow("split too small") << "split-product" << "schedule.split.factor-product" << "i";
    QTest::newRow("split nonzero min") << "split-min" << "schedule.split.nonzero-min" << "i1";
    QTest::newRow("fuse not nested") << "fuse-nested" << "schedule.fuse.not-nested" << "i,k";
    QTest::newRow("fuse annotated") << "fuse-annotated" << "schedule.fuse.annotated-loop" << "i";
    QTest::newRow("reorder duplicate") << "reorder-duplicate" << "schedule.reorder.duplicate-loop" << "i";
    QTest::newRow("reorder two blocks") << "reorder-chain" << "schedule.reorder.not-single-chain" << "i,i";
    QTest::newRow("reorder mixed loop") << "reorder-mixed" << "schedule.reorder.mixed-loop" << "j_k_fused_1,B";
  }
  void refused() {
    QFETCH(QString, step);
    QFETCH(QString, code);
    QFETCH(QString, refs);
    const char* source = step == "reorder-chain" ? testing::kTwoStage
                         : step == "reorder-mixed" ? kFused
                                                   : testing::kSmallMatmul;
    Schedule sch(testing::parseProgram(source));
    auto l = loopsOf(sch, step == "reorder-mixed" ? "B" : "C");
    Expected<std::vector<RV>> r;
    auto attempt = [&](const char* name, std::vector<TraceValue> in, std::vector<TraceValue> attrs = {}) {
      const auto body = sch.func().body;
      const auto steps = sch.trace().instructions.size();
      r = sch.apply(name, std::move(in), std::move(attrs));
      QVERIFY(!r.has_value());
      QVERIFY(sch.func().body.sameAs(body)); // a refused primitive changes nothing
      QCOMPARE(sch.trace().instructions.size(), steps);
    };
    if (step == "split-annotated") {
      must(sch.apply("annotate", {l[0], 1}, {"pragma"}), sch);
      attempt("split", {l[0], TraceList{nullptr, 4}});
    } else if (step == "split-none") {
      attempt("split", {l[0], TraceList{nullptr, nullptr}});
    } else if (step == "split-zero") {
      attempt("split", {l[0], TraceList{0, 64}});
    } else if (step == "split-product") {
      attempt("split", {l[0], TraceList{4, 4}});
    } else if (step == "split-min") {
      auto parts = must(sch.apply("loop_partition", {l[0], TraceList{nullptr, 8}}), sch);
      attempt("split", {parts[1], TraceList{nullptr, 4}});
    } else if (step == "fuse-nested") {
      attempt("fuse", {l[0], l[2]});
    } else if (step == "fuse-annotated") {
      must(sch.apply("annotate", {l[0], 1}, {"pragma"}), sch);
      attempt("fuse", {l[0], l[1]});
    } else if (step == "reorder-duplicate") {
      attempt("reorder", {l[0], l[1], l[0]});
    } else if (step == "reorder-chain") {
      auto other = loopsOf(sch, "B");
      attempt("reorder", {l[0], other[0]});
    } else if (step == "reorder-mixed") {
      auto fused = must(sch.apply("fuse", {l[0], l[1]}), sch);
      auto parts = must(sch.apply("split", {fused[0], TraceList{nullptr, 4}}), sch);
      attempt("reorder", {parts[1], parts[0]});
    }
    QVERIFY(!r.has_value());
    QCOMPARE(QString::fromStdString(r.error().code), code);
    QCOMPARE(QString::fromStdString(refsOf(r.error())), refs);
  }
};

QTEST_GUILESS_MAIN(TestLoopTransform)
#include "tst_loop_transform.moc"
