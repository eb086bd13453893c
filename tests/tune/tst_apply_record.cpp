// Applying a tuning record (core/tune/apply_record.h): the best record of a log, its steps
// applied without the per-step check and its program checked once, an illegal record
// refused with its counterexample, isl's bound (a note for a verified record, a refusal
// otherwise), the user's Unverified policy, a refused step, and the exact check back in
// place for later steps.
#include "core/frontend/te_frontend.h"
#include "core/ir/structural_equal.h"
#include "core/poly/checked_schedule.h"
#include "core/schedule/primitives.h"
#include "core/tune/apply_record.h"
#include "record_test_helpers.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace loopscape;

namespace {

ir::PrimFunc matmul() {
  auto f = frontend::parseTe(R"(from tvm import te
A = te.placeholder((16, 16), dtype="float32", name="A")
B = te.placeholder((16, 16), dtype="float32", name="B")
k = te.reduce_axis((0, 16), name="k")
C = te.compute((16, 16), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)",
                             "mm.te");
  if (!f) qFatal("%s", f.error().message.c_str());
  return *f;
}

/// A record of matmul: k split by 4 and i, j tiled by 4; `swapHalves` puts k's inner half
/// outside its outer half, which reassociates the sums (the RAW dependence on C breaks).
tune::Record record(bool swapHalves, int trial = 7, double seconds = 0.001) {
  schedule::Schedule sch(matmul());
  auto b = schedule::getBlock(sch, "C");
  auto loops = schedule::getLoops(sch, *b);
  auto i = schedule::split(sch, (*loops)[0], {std::nullopt, 4});
  auto j = schedule::split(sch, (*loops)[1], {std::nullopt, 4});
  auto k = schedule::split(sch, (*loops)[2], {std::nullopt, 4});
  if (!i || !j || !k) qFatal("the record's splits do not apply");
  const std::vector<schedule::LoopRV> order = swapHalves
                                                  ? std::vector{(*i)[0], (*j)[0], (*k)[1], (*k)[0], (*i)[1], (*j)[1]}
                                                  : std::vector{(*i)[0], (*j)[0], (*k)[0], (*i)[1], (*k)[1], (*j)[1]};
  if (!schedule::reorder(sch, order)) qFatal("the record's reorder does not apply");
  tune::Record r = testing::tirRecord(sch);
  r.seconds = {seconds};
  r.gflops = 8.2;
  r.trial = trial;
  return r;
}

} // namespace

class TestApplyRecord : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void bestOfALog() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("log.jsonl").toStdString();
    tune::Record slow = record(false, 1, 0.002), fast = record(false, 2, 0.001), failed = record(false, 3, 0.0001),
                 other = record(false, 4, 0.0001);
    failed.seconds.clear();
    failed.error = "timeout: over 10 s";
    other.workload = "other:0000000000000000";
    {
      tune::RecordWriter writer;
      QVERIFY(writer.open(path));
      for (const auto* r : {&slow, &fast, &failed, &other})
        QVERIFY(writer.append(*r));
    }
    auto best = tune::bestRecordOf(matmul(), path);
    QVERIFY(best);
    QCOMPARE(best->trial, 2);
    QCOMPARE(tune::recordSummary(*best),
             std::string("trial 2 (tir(C: tile)), 8.2 GFLOP/s on cpu-llvm with 2 thread(s), "
                         "verified"));
    best->verified = false;
    QCOMPARE(tune::recordSummary(*best),
             std::string("trial 2 (tir(C: tile)), 8.2 GFLOP/s on cpu-llvm with 2 thread(s)"));
    // A program without floating-point work is summed up in GB/s.
    best->gflops = 0;
    best->gbps = 3.3;
    QCOMPARE(tune::recordSummary(*best), std::string("trial 2 (tir(C: tile)), 3.3 GB/s on cpu-llvm with 2 thread(s)"));

    auto missing = tune::bestRecordOf(matmul(), dir.filePath("none.jsonl").toStdString());
    QVERIFY(!missing);
    QCOMPARE(missing.error().code, std::string("file.not-found"));
    QCOMPARE(missing.error().message, "'" + dir.filePath("none.jsonl").toStdString() + "': no such tuning log");

    const std::string others = dir.filePath("others.jsonl").toStdString();
    std::ofstream(others) << tune::recordToJson(other) << "\n" << tune::recordToJson(failed) << "\n";
    auto none = tune::bestRecordOf(matmul(), others);
    QVERIFY(!none);
    QCOMPARE(none.error().code, std::string("tune.no-record"));
    QCOMPARE(none.error().message, "'" + others + "' has no successful record of this program (workload " +
                                       tune::workloadKey(matmul()) + "; 2 records)");
  }

  void legalRecordIsCheckedOnceAndLaterStepsAgain() {
    const tune::Record r = record(false);
    schedule::Schedule sch = poly::makeSchedule(matmul());
    auto notes = tune::applyRecord(sch, r, "best:log");
    QVERIFY2(notes, notes ? "" : notes.error().message.c_str());
    QVERIFY(notes->empty());
    QVERIFY(sch.notes().empty());
    QCOMPARE(sch.trace().instructions.size(), r.trace.instructions.size());
    auto replayed = poly::replaySchedule(matmul(), r.trace);
    QVERIFY(replayed);
    QVERIFY(ir::structuralEqual(sch.func(), replayed->func()));
    // The exact check is back: a later step that breaks a dependence is refused.
    QCOMPARE(sch.legalityPolicy(), schedule::LegalityPolicy::Exact);
    auto b = schedule::getBlock(sch, "C");
    auto loops = schedule::getLoops(sch, *b);
    QVERIFY(loops && loops->size() == 6);
    auto swapped = schedule::reorder(sch, {(*loops)[4], (*loops)[2]}); // k's inner half outside its outer
    QVERIFY(!swapped);
    QCOMPARE(swapped.error().message,
             std::string("reorder is illegal: the RAW dependence from C(v_i=0, v_j=0, v_k=3) to C(v_i=0, v_j=0, "
                         "v_k=4) on C[0, 0] is violated: before, C(v_i=0, v_j=0, v_k=3) ran at (i=0, j=0, k=3) and "
                         "C(v_i=0, v_j=0, v_k=4) after it at (i=0, j=0, k=4); now C(v_i=0, v_j=0, v_k=4) runs at "
                         "(i_0=0, j_0=0, k_1=0, i_1=0, k_0=1, j_1=0), before C(v_i=0, v_j=0, v_k=3) at (i_0=0, "
                         "j_0=0, k_1=3, i_1=0, k_0=0, j_1=0)"));
    QCOMPARE(sch.trace().instructions.size(), r.trace.instructions.size() + 2); // get_block, get_loops
  }

  void illegalRecordIsRefusedWithItsCounterexample() {
    schedule::Schedule sch = poly::makeSchedule(matmul());
    auto refused = tune::applyRecord(sch, record(true), "best:log");
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, std::string("tune.record-illegal"));
    QCOMPARE(refused.error().message,
             std::string("best:log: the record's program is illegal: the RAW dependence from C(v_i=0, v_j=0, v_k=3) "
                         "to C(v_i=0, v_j=0, v_k=4) on C[0, 0] is violated: before, C(v_i=0, v_j=0, v_k=3) ran at "
                         "(i=0, j=0, k=3) and C(v_i=0, v_j=0, v_k=4) after it at (i=0, j=0, k=4); now C(v_i=0, "
                         "v_j=0, v_k=4) runs at (i_0=0, j_0=0, k_1=0, k_0=1, i_1=0, j_1=0), before C(v_i=0, v_j=0, "
                         "v_k=3) at (i_0=0, j_0=0, k_1=3, k_0=0, i_1=0, j_1=0)"));
    // The user's Unverified policy applies it unchecked.
    schedule::Schedule unchecked = poly::makeSchedule(matmul(), schedule::LegalityPolicy::Unverified);
    auto applied = tune::applyRecord(unchecked, record(true), "best:log");
    QVERIFY(applied && applied->empty());
    QCOMPARE(unchecked.trace().instructions.size(), record(true).trace.instructions.size());
  }

  void checkPastIslsBound() {
    // A verified record applies with a note saying why it is unchecked; a record not
    // verified when it was tuned is refused.
    tune::Record r = record(false);
    schedule::Schedule sch = poly::makeSchedule(matmul());
    auto notes = tune::applyRecord(sch, r, "best:log", 100);
    QVERIFY2(notes, notes ? "" : notes.error().message.c_str());
    QCOMPARE(notes->size(), std::size_t{1});
    QCOMPARE(notes->front().severity, Severity::Note);
    const std::string bound = "best:log: the record's program could not be checked for legality: the legality check "
                              "exceeded the bound of 100 isl operations: the schedule is too complex to check exactly";
    QCOMPARE(notes->front().message, bound + "; its output was verified against the reference when it was tuned, "
                                             "so it applies unchecked, as the tuner accepted it");
    QCOMPARE(sch.trace().instructions.size(), r.trace.instructions.size());
    r.verified = false;
    schedule::Schedule again = poly::makeSchedule(matmul());
    auto refused = tune::applyRecord(again, r, "best:log", 100);
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, std::string("tune.legality-unchecked"));
    QCOMPARE(refused.error().message, bound);
  }

  void refusedStepLeavesTheScheduleBeforeIt() {
    tune::Record r = record(false);
    r.trace.instructions[0].attrs[0] = std::string("D"); // get_block("D"): no such block
    schedule::Schedule sch = poly::makeSchedule(matmul());
    auto refused = tune::applyRecord(sch, r, "best:log");
    QVERIFY(!refused);
    QCOMPARE(refused.error().message, std::string("there is no block named 'D'; the blocks are: C"));
    QCOMPARE(refused.error().location.file, std::string("best:log"));
    QVERIFY(sch.trace().instructions.empty());
    QCOMPARE(sch.legalityPolicy(), schedule::LegalityPolicy::Exact);
  }
};

QTEST_GUILESS_MAIN(TestApplyRecord)
#include "tst_apply_record.moc"
