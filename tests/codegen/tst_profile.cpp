// Profiling: FLOP counts from the IR (exact values for matmul, conv-like, predicated and
// dynamic programs), compulsory bytes, timing statistics, the counters fallback note, the
// machine-peak cache, and the timing table parsed for sanity (never for speed).
#include "core/codegen/flop_count.h"
#include "core/codegen/machine_peak.h"
#include "core/codegen/profile.h"
#include "core/codegen/profile_counters.h"
#include "core/frontend/te_frontend.h"
#include "core/schedule/trace_script.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <thread>

using namespace loopscape;
using namespace loopscape::codegen;

namespace {

ir::PrimFunc parse(const std::string& text) {
  auto f = frontend::parseTe(text, "test.te");
  LS_ASSERT(f.has_value(), "{}", f ? "" : f.error().message);
  return *f;
}

const char* kMatmul = R"(from tvm import te
A = te.placeholder((64, 48), dtype="float32", name="A")
B = te.placeholder((48, 32), dtype="float32", name="B")
k = te.reduce_axis((0, 48), name="k")
C = te.compute((64, 32), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

const char* kDense = R"(from tvm import te
n = te.var("n")
data = te.placeholder((n, 32), name="data")
weight = te.placeholder((24, 32), name="weight")
k = te.reduce_axis((0, 32), name="k")
out = te.compute((n, 24), lambda i, j: te.sum(data[i, k] * weight[j, k], axis=k), name="out")
)";

const char* kElementwise = R"(from tvm import te
A = te.placeholder((100,), dtype="float32", name="A")
B = te.compute((100,), lambda i: te.exp(A[i]) * 2.0 + A[i], name="B")
)";

} // namespace

class TestProfile : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void flops_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("trace");
    QTest::addColumn<double>("flops");
    QTest::addColumn<double>("instances");
    QTest::addColumn<bool>("exact");
    // 64*32 inits (0 FLOP) + 64*32*48 updates of 2 FLOPs (add, mul).
    QTest::newRow("matmul") << kMatmul << "" << 2.0 * 64 * 32 * 48 << 64.0 * 32 + 64.0 * 32 * 48 << true;
    // exp (1) + mul (1) + add (1) per element.
    QTest::newRow("elementwise") << kElementwise << "" << 300.0 << 100.0 << true;
    // A split by 7 that does not divide 64: the predicate keeps the count exact.
    QTest::newRow("predicated split") << kMatmul << R"(def apply_trace(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i_0, i_1 = sch.split(i, factors=[None, 7])
)" << 2.0 * 64 * 32 * 48 << 64.0 * 32 + 64.0 * 32 * 48
                                      << true;
  }
  void flops() {
    QFETCH(QString, program);
    QFETCH(QString, trace);
    QFETCH(double, flops);
    QFETCH(double, instances);
    QFETCH(bool, exact);
    ir::PrimFunc f = parse(program.toStdString());
    if (!trace.isEmpty()) {
      schedule::Schedule sch(f);
      auto ok = schedule::applyScript(sch, trace.toStdString(), "t.py");
      QVERIFY2(ok.has_value(), ok ? "" : ok.error().message.c_str());
      f = sch.func();
    }
    auto count = countFlops(f, {});
    QVERIFY2(count.has_value(), count ? "" : count.error().message.c_str());
    QCOMPARE(count->flops, flops);
    QCOMPARE(count->instances, instances);
    QCOMPARE(count->exact, exact);
  }

  void dynamicSizes() {
    const auto f = parse(kDense);
    auto missing = countFlops(f, {});
    QVERIFY(!missing.has_value());
    QCOMPARE(missing.error().code, std::string("flops.unbound-size"));
    QCOMPARE(missing.error().message, std::string("cannot count operations: symbolic size 'n' is not bound"));
    auto count = countFlops(f, {{"n", 10}});
    QVERIFY(count.has_value());
    QCOMPARE(count->flops, 2.0 * 10 * 24 * 32);
    QCOMPARE(count->statements.size(), std::size_t(2));
    QVERIFY(count->statements[0].init);
    QCOMPARE(count->statements[0].instances, 240.0);
    QCOMPARE(count->statements[1].flopsPerInstance, 2.0);
    auto bytes = compulsoryBytes(f, {{"n", 10}});
    QVERIFY(bytes.has_value());
    QCOMPARE(*bytes, 4.0 * (10 * 32 + 24 * 32 + 10 * 24));
  }

  void fmaCountsTwo() {
    const auto x = ir::Var::make("x", ir::DataType::float32());
    const auto call = ir::Call::make(ir::DataType::float32(), ir::CallOp::Fma, {x, x, x});
    QCOMPARE(countValueOps(call).first, 2.0);
    const auto i = ir::Var::make("i", ir::DataType::int32());
    QCOMPARE(countValueOps(ir::Add::make(i, i)), (std::pair<double, double>{0, 1}));
  }

  void timingStatistics() {
    TimingResult t;
    t.perRepeat = {3e-3, 1e-3, 2e-3, 10e-3};
    QCOMPARE(t.min(), 1e-3);
    QCOMPARE(t.max(), 10e-3);
    QCOMPARE(t.median(), 2.5e-3);
    QCOMPARE(t.mean(), 4e-3);
    QCOMPARE(t.spread(), 9e-3 / 2.5e-3);

    int calls = 0;
    auto timed = timeCalls(
        [&]() -> Expected<void> {
          ++calls;
          return {};
        },
        {1, 3, 0, 2, false});
    QVERIFY(timed.has_value());
    QCOMPARE(timed->perRepeat.size(), std::size_t(3));
    QVERIFY(timed->number > 1);
    QVERIFY(calls >= 1 + 3 * timed->number);

    // A call slower than the cutoff is the only repeat: with a warm-up, the second call
    // (the first is cold), confirming the first; with none, the first calibration call.
    for (int warmup : {1, 0}) {
      calls = 0;
      TimingOptions cut{warmup, 3, 0, 2, false};
      cut.slowCutoffSeconds = 0.005;
      auto slow = timeCalls(
          [&]() -> Expected<void> {
            ++calls;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            return {};
          },
          cut);
      QVERIFY(slow.has_value());
      QCOMPARE(calls, warmup == 1 ? 2 : 1);
      QCOMPARE(slow->number, 1);
      QCOMPARE(slow->perRepeat.size(), std::size_t(1));
      QVERIFY(slow->perRepeat[0] >= 0.02);
    }
    // Only the first call slow (a cold start): timed as a fast kernel.
    calls = 0;
    TimingOptions cold{1, 3, 0, 2, false};
    cold.slowCutoffSeconds = 0.005;
    auto warm = timeCalls(
        [&]() -> Expected<void> {
          if (calls++ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
          return {};
        },
        cold);
    QVERIFY(warm.has_value());
    QCOMPARE(warm->perRepeat.size(), std::size_t(3));
    QVERIFY(calls > 2);
    for (double perCall : warm->perRepeat)
      QVERIFY(perCall < 0.005);
    // Calls of at least 1 ms calibrated for 5 ms a repeat: a round of n calls lasts at
    // least n ms, so a round short of 5 ms has n <= 4 and the next n is at most
    // max(ceil(5 / (took / n) + 1), ceil(n * 1.618)) <= max(6, 7). A loaded machine only
    // slows calls: fewer of them, never more.
    calls = 0;
    auto sleeping = timeCalls(
        [&]() -> Expected<void> {
          ++calls;
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          return {};
        },
        {0, 2, 0, 5, false});
    QVERIFY(sleeping.has_value());
    QVERIFY(sleeping->number >= 1 && sleeping->number <= 7);
    QCOMPARE(sleeping->perRepeat.size(), std::size_t(2));
    for (double perCall : sleeping->perRepeat)
      QVERIFY(perCall >= 0.001);
    QVERIFY(calls >= 1 + 2 * sleeping->number);

    TimingOptions generous{1, 3, 0, 2, false};
    generous.slowCutoffSeconds = 10;
    auto fast = timeCalls([]() -> Expected<void> { return {}; }, generous);
    QCOMPARE(fast->perRepeat.size(), std::size_t(3));

    auto failing =
        timeCalls([]() -> Expected<void> { return Unexpected(Diagnostic::error("x.y", "boom")); }, {0, 1, 1, 0, false});
    QVERIFY(!failing.has_value());
    QCOMPARE(failing.error().message, std::string("boom"));
  }

  void countersNote() {
    QCOMPARE(countersUnavailableNote(ENOENT),
             std::string("hardware counters unavailable: perf_event_open failed with ENOENT (no PMU in this VM)"));
    QCOMPARE(countersUnavailableNote(ENOSYS),
             std::string("hardware counters unavailable: perf_event_open failed with ENOSYS (the kernel has no perf "
                         "events)"));
    QVERIFY(countersUnavailableNote(EACCES).starts_with(
        "hardware counters unavailable: perf_event_open failed with EACCES (not permitted: "
        "/proc/sys/kernel/perf_event_paranoid is "));
    HardwareCounters counters;
    counters.start();
    volatile double x = 0;
    for (int i = 0; i < 100000; ++i)
      x = x + 1;
    const auto report = counters.stop();
    if (report.available) {
      QVERIFY(report.values.instructions > 0);
    } else {
      QVERIFY(report.note.starts_with("hardware counters unavailable: perf_event_open failed with "));
      QCOMPARE(report.note, counters.note());
    }
  }

  void machinePeakIsMeasuredOnceAndCached() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("sub/machine.json").toStdString();
    const auto first = machinePeak({path, false});
    QVERIFY(!first.fromCache);
    QVERIFY(first.gflopsPerCore > 0);
    // Positive only: how the all-cores figure compares with one core depends on what else
    // runs (under CTest -j2 beside an ASan test it measured less than half of one core).
    QVERIFY(first.gflopsAllCores > 0);
    QVERIFY(first.bandwidthGBs > 0);
    QCOMPARE(first.cpuModel, cpuModelName());
    QCOMPARE(first.cores, coreCount());
    const auto second = machinePeak({path, false});
    QVERIFY(second.fromCache);
    QCOMPARE(second.gflopsPerCore, first.gflopsPerCore);
    QCOMPARE(second.bandwidthGBs, first.bandwidthGBs);
    // A damaged file is replaced with a note.
    std::ofstream(path) << "{ not json";
    const auto third = machinePeak({path, false});
    QVERIFY(!third.fromCache);
    QVERIFY(third.cacheNote.find("is not valid JSON") != std::string::npos);
    QVERIFY(machinePeak({path, false}).fromCache);
    // An entry an unoptimised build measured (5.5 GFLOP/s on a Zen 5 core from the Debug
    // tree) is measured again by an optimised build, and kept by an unoptimised one. Whether
    // the library is optimised is what it wrote itself (this test's own code is compiled
    // at -O0 in every build).
    nlohmann::json poisoned = nlohmann::json::parse(std::ifstream(path));
    const bool optimisedLibrary = poisoned["machines"][0]["optimised"].get<bool>();
    for (auto& m : poisoned["machines"]) {
      m["optimised"] = false;
      m["fp32_gflops_per_core"] = 0.5;
    }
    std::ofstream(path) << poisoned.dump();
    const auto fourth = machinePeak({path, false});
    if (optimisedLibrary) {
      QVERIFY(!fourth.fromCache);
      QVERIFY(fourth.gflopsPerCore > 0.5);
      QCOMPARE(nlohmann::json::parse(std::ifstream(path))["machines"][0]["optimised"].get<bool>(), true);
    } else {
      QVERIFY(fourth.fromCache);
      QCOMPARE(fourth.gflopsPerCore, 0.5);
    }
  }

  void aLowCachedPeakIsMeasuredAgain() {
    // A cached peak below what a kernel reached was measured while other work ran: the
    // kernel's report has it measured again, and the cache keeps the higher figures.
    QTemporaryDir dir;
    const std::string path = dir.filePath("machine.json").toStdString();
    const auto measured = machinePeak({path, false});
    auto setPerCore = [&](double gflops) {
      nlohmann::json doc = nlohmann::json::parse(std::ifstream(path));
      doc["machines"][0]["fp32_gflops_per_core"] = gflops;
      std::ofstream(path) << doc.dump();
    };
    ProfileReport report;
    report.threads = 1;
    // Figures far below any real peak: under ASan on a busy machine the measured peak
    // once fell below 2 GFLOP/s, the kernel's figure this test used before.
    report.work.flops = 1e6;
    report.timing.perRepeat = {0.5}; // 0.002 GFLOP/s
    setPerCore(0.001);
    const auto again = peakFor(report, {path, false});
    QVERIFY(!again.fromCache);
    QVERIFY(again.gflopsPerCore > 0.002);
    QCOMPARE(nlohmann::json::parse(std::ifstream(path))["machines"][0]["fp32_gflops_per_core"].get<double>(),
             again.gflopsPerCore);
    // Below the cached peak, the cache is read as it is.
    QVERIFY(peakFor(report, {path, false}).fromCache);
    // Measuring again never lowers a figure.
    setPerCore(measured.gflopsPerCore * 1000);
    const auto higher = machinePeak({path, true});
    QVERIFY(!higher.fromCache);
    QCOMPARE(higher.gflopsPerCore, measured.gflopsPerCore * 1000);
  }

  void tableIsSane() {
    ProfileReport r;
    r.timing.perRepeat = {2e-3, 1e-3, 4e-3};
    r.timing.number = 10;
    r.timing.countersRequested = true;
    r.timing.counters.note = countersUnavailableNote(ENOENT);
    r.work.flops = 2e6;
    r.bytes = 1e5;
    MachinePeak peak;
    peak.cores = 2;
    peak.isa = "avx512f";
    peak.gflopsPerCore = 100;
    peak.gflopsAllCores = 200;
    peak.bandwidthGBs = 10;
    r.peak = peak;
    r.threads = 1;
    r.mode = "isolated worker";
    QCOMPARE(r.gflops(), 1.0);
    QCOMPARE(r.arithmeticIntensity(), 20.0);
    QCOMPARE(r.percentOfPeak(), 1.0);
    QCOMPARE(r.rooflineGflops(), 100.0);
    r.threads = 2;
    QCOMPARE(r.peakGflops(), 200.0);
    QCOMPARE(r.rooflineGflops(), 200.0);
    const std::string text = formatProfile(r, 1);
    const QStringList lines = QString::fromStdString(text).split('\n');
    QCOMPARE(lines[0], QString("timing: isolated worker, 3 repeats x 10 calls, 1 warm-up"));
    QCOMPARE(lines[1].split(' ', Qt::SkipEmptyParts).join(' '),
             QString("min ms median ms max ms spread GFLOP/s % of peak AI FLOP/B"));
    const QStringList values = lines[2].split(' ', Qt::SkipEmptyParts);
    QCOMPARE(values, (QStringList{"1.0000", "2.0000", "4.0000", "150.0%", "1.00", "0.5", "20.000"}));
    QCOMPARE(lines[3], QString("work: 2000000 FLOP (exact), 100000 bytes compulsory"));
    QCOMPARE(lines[4],
             QString("peak: 200.0 GFLOP/s fp32 on 2 cores (avx512f), 10.0 GB/s; roofline bound 200.0 GFLOP/s"));
    QCOMPARE(
        lines[5],
        QString("counters: hardware counters unavailable: perf_event_open failed with ENOENT (no PMU in this VM)"));
  }
};

QTEST_GUILESS_MAIN(TestProfile)
#include "tst_profile.moc"
