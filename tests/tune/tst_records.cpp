// Tuning records (core/tune/records.h): workload keys, the JSON line round trip, reading a
// log (a cut last line skipped, a malformed line reported with its line), the best record,
// what a cost model learns from a record.
#include "core/frontend/te_frontend.h"
#include "core/ir/diagnostic.h"
#include "core/schedule/primitives.h"
#include "core/schedule/trace_json.h"
#include "core/tune/records.h"
#include "record_test_helpers.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fmt/format.h>
#include <fstream>

using namespace loopscape;

namespace {

ir::PrimFunc matmul(int n) {
  auto f = frontend::parseTe(fmt::format(R"(from tvm import te
A = te.placeholder(({0}, {0}), dtype="float32", name="A")
B = te.placeholder(({0}, {0}), dtype="float32", name="B")
k = te.reduce_axis((0, {0}), name="k")
C = te.compute(({0}, {0}), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)",
                                         n),
                             "mm.te");
  if (!f) qFatal("%s", f.error().message.c_str());
  return *f;
}

tune::Record sampleRecord() {
  schedule::Schedule sch(matmul(16));
  auto b = schedule::getBlock(sch, "C");
  auto loops = schedule::getLoops(sch, *b);
  auto factors = schedule::samplePerfectTile(sch, (*loops)[0], 2, 16, std::vector<std::int64_t>{4, 4});
  (void)schedule::split(sch, (*loops)[0], *factors);
  tune::Record r = testing::tirRecord(sch);
  r.seconds = {0.0015, 0.00125, 0.0013};
  r.gflops = 6.5;
  r.gbps = 4.25;
  r.trial = 3;
  r.time = "2026-11-27T10:00:00Z";
  r.version = "0.1.0";
  return r;
}

} // namespace

class TestRecords : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void workloadKeys() {
    const std::string a = tune::workloadKey(matmul(16));
    QCOMPARE(a, tune::workloadKey(matmul(16))); // structural: parsed twice, same key
    QVERIFY(a != tune::workloadKey(matmul(32)));
    QVERIFY(a.starts_with("main:"));
    QCOMPARE(a.size(), std::string("main:").size() + 16);
    QCOMPARE(tune::workloadKey(matmul(16), {{"n", 64}, {"m", 2}}), a + "[m=2,n=64]");
  }

  void roundTrip() {
    const tune::Record r = sampleRecord();
    const std::string line = tune::recordToJson(r);
    QVERIFY(line.find('\n') == std::string::npos);
    QVERIFY(line.starts_with("{\"workload\":\"main:"));
    auto back = tune::recordFromJson(line, "log.json", 1);
    QVERIFY(back);
    QCOMPARE(back->workload, r.workload);
    QCOMPARE(back->target, r.target);
    QCOMPARE(back->threads, 2);
    QCOMPARE(back->family, std::string("tir"));
    QCOMPARE(back->sketch, r.sketch);
    QCOMPARE(back->seconds, r.seconds);
    QCOMPARE(back->gflops, 6.5);
    QCOMPARE(back->gbps, 4.25);
    QVERIFY(line.find(R"("gflops":6.5,"gbps":4.25,)") != std::string::npos);
    QCOMPARE(back->verified, true);
    QCOMPARE(back->trial, 3);
    QCOMPARE(schedule::traceToJson(back->trace), schedule::traceToJson(r.trace));
    QCOMPARE(back->medianSeconds(), 0.0013);
    QCOMPARE(tune::recordToJson(*back), line);
    // A line written before "gbps" existed reads as 0 GB/s.
    std::string old = line;
    old.erase(old.find(R"("gbps":4.25,)"), std::string(R"("gbps":4.25,)").size());
    QCOMPARE(tune::recordFromJson(old, "log.json", 1)->gbps, 0.0);
  }

  void throughputAndTask() {
    tune::Record r = sampleRecord();
    QCOMPARE(r.throughput(), 6.5);
    QCOMPARE(r.rate().value, 6.5);
    QCOMPARE(std::string(r.rate().unit), std::string("GFLOP/s"));
    r.gflops = 0; // a program without floating-point work: calls per nanosecond, shown in GB/s
    QCOMPARE(r.throughput(), 1e-9 / 0.0013);
    QCOMPARE(r.rate().value, 4.25);
    QCOMPARE(std::string(r.rate().unit), std::string("GB/s"));
    r.gbps = 0; // nothing known: 0 GFLOP/s
    QCOMPARE(std::string(r.rate().unit), std::string("GFLOP/s"));
    r.error = "timeout: over 10 s";
    QCOMPARE(r.throughput(), 0.0);
    QVERIFY(r.isFor(r.workload, "cpu-llvm", 2));
    QVERIFY(!r.isFor(r.workload, "cpu-llvm", 1));
    QVERIFY(!r.isFor(r.workload, "cpu-c", 2));
    QVERIFY(!r.isFor(tune::workloadKey(matmul(32)), "cpu-llvm", 2));
  }

  void readingALog() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("log.json").toStdString();
    QCOMPARE(tune::readRecords(path)->size(), std::size_t{0}); // no file: no records

    tune::Record fast = sampleRecord(), slow = sampleRecord(), failed = sampleRecord(), other = sampleRecord();
    fast.seconds = {0.001};
    fast.trial = 1;
    slow.seconds = {0.002};
    slow.trial = 2;
    failed.seconds = {};
    failed.error = "crash: the kernel crashed with SIGSEGV (segmentation fault)";
    failed.trial = 3;
    other.workload = "other:0000000000000000";
    other.seconds = {0.0001};
    {
      tune::RecordWriter writer;
      QVERIFY(writer.open(path));
      for (const auto* r : {&slow, &fast, &failed, &other})
        QVERIFY(writer.append(*r));
    }
    // A search stopped while writing leaves a cut line: it is skipped.
    const std::string cut = tune::recordToJson(fast);
    std::ofstream(path, std::ios::app) << cut.substr(0, cut.size() / 2);
    auto records = tune::readRecords(path);
    QVERIFY(records);
    QCOMPARE(records->size(), std::size_t{4});
    QVERIFY(!(*records)[2].ok());
    auto best = tune::bestRecord(*records, fast.workload, "cpu-llvm");
    QVERIFY(best);
    QCOMPARE(best->trial, 1);
    QVERIFY(!tune::bestRecord(*records, fast.workload, "cpu-c"));

    // A malformed line before the last is an error naming its line.
    std::ofstream(path, std::ios::app) << "\n" << tune::recordToJson(slow) << "\n";
    auto broken = tune::readRecords(path);
    QVERIFY(!broken);
    QCOMPARE(broken.error().code, std::string("tune.record-malformed"));
    QCOMPARE(broken.error().location.line, 5);
    QCOMPARE(broken.error().location.file, path);
  }

  void malformedRecords() {
    QCOMPARE(tune::recordFromJson("[1, 2]", "f", 1).error().message,
             std::string("tuning record malformed: not a JSON object"));
    auto noTarget = tune::recordFromJson(R"({"workload": "w", "trace": [[], []]})", "f", 1);
    QVERIFY(!noTarget);
    QCOMPARE(noTarget.error().code, std::string("tune.record-malformed"));
    auto badTime =
        tune::recordFromJson(R"({"workload": "w", "target": "t", "trace": [[], []], "seconds": [-1]})", "f", 1);
    QVERIFY(!badTime);
    QCOMPARE(badTime.error().message,
             std::string("tuning record malformed: a time in \"seconds\" is not a positive number"));
    auto badTrace = tune::recordFromJson(
        R"({"workload": "w", "target": "t", "trace": [[["NoSuchKind", [], [], []]], []]})", "f", 1);
    QVERIFY(!badTrace);
    QVERIFY(badTrace.error().message.starts_with("tuning record malformed: its trace: "));
  }
};

QTEST_GUILESS_MAIN(TestRecords)
#include "tst_records.moc"
