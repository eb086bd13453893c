// The isolated runner: kernels from hand-written C shared objects (compiled here with
// `cc -shared`) run in loopscape-worker; results come back through shared memory; a crash,
// an endless loop, a missing library or symbol become Diagnostics with exact messages and
// this test process keeps running. Also the in-process mode and argument checking.
#include "core/codegen/runner.h"
#include "core/codegen/runner_protocol.h"

#include "core/ir/buffer.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>

using namespace loopscape;
using namespace loopscape::codegen;

namespace {

const char* kKernels = R"C(
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
void add_one(const float* a, float* b, int64_t n) { for (int64_t i = 0; i < n; ++i) b[i] = a[i] + 1.0f; }
void write_null(float* a) { (void)a; *(volatile float*)0 = 1.0f; }
void write_far(float* a, int64_t n) { a[n + ((int64_t)1 << 40)] = 1.0f; }
void loop_forever(float* a) { for (;;) { a[0] += 1.0f; __asm__ volatile("" ::: "memory"); } }
void divide(int32_t* a) { volatile int32_t d = a[1]; a[0] = a[0] / d; }
void do_abort(float* a) { (void)a; abort(); }
#include <time.h>
void slow_call(float* a) { struct timespec t = {0, 300000000}; nanosleep(&t, 0); a[0] += 1.0f; }
void chatty(float* a) { printf("hello from the kernel %g\n", a[0]); fflush(stdout); }
void sum_many(float* a0, float* a1, float* a2, float* a3, float* a4, float* a5, float* a6, float* a7,
              float* out, int64_t s0, int64_t s1, int64_t s2) {
  out[0] = a0[0] + a1[0] + a2[0] + a3[0] + a4[0] + a5[0] + a6[0] + a7[0] + (float)(s0 * 100 + s1 * 10 + s2);
}
)C";

ir::NDArray filled(std::vector<std::int64_t> shape, float start) {
  ir::NDArray a(std::move(shape), ir::DataType::float32());
  for (std::int64_t i = 0; i < a.numel(); ++i)
    a.setDouble(i, start + static_cast<double>(i));
  return a;
}

/// A Kernel whose run() is an in-process counter, with an optional shared library.
class FakeKernel final : public Kernel {
public:
  int calls = 0;
  std::string library, sym;
  Expected<void> run(std::span<void* const> buffers, std::span<const std::int64_t>) override {
    ++calls;
    static_cast<float*>(buffers[1])[0] = 42.0f;
    return {};
  }
  std::string libraryPath() const override { return library; }
  std::string symbol() const override { return sym; }
};

LoweredFunc addOneFunc() {
  LoweredFunc f;
  f.name = "add_one";
  const ir::Expr n = ir::Var::make("n", ir::DataType::int64());
  f.params = {ir::makeBuffer("A", ir::DataType::float32(), {n}), ir::makeBuffer("B", ir::DataType::float32(), {n})};
  f.flatParams = f.params;
  f.sizeVars = {n};
  return f;
}

} // namespace

class TestRunner : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_dir;
  std::string m_lib;
  RunOptions options(double timeout = 10) const {
    RunOptions o;
    o.workerPath = LS_WORKER_PATH;
    o.timeoutSeconds = timeout;
    return o;
  }

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString src = m_dir.filePath("kernels.c");
    std::ofstream(src.toStdString()) << kKernels;
    m_lib = m_dir.filePath("libkernels.so").toStdString();
    QProcess cc;
    cc.start("cc", {"-O1", "-shared", "-fPIC", "-o", QString::fromStdString(m_lib), src});
    QVERIFY(cc.waitForFinished(60000));
    QVERIFY2(cc.exitCode() == 0, cc.readAllStandardError().constData());
  }

  void runsAndCopiesResultsBack() {
    std::vector<ir::NDArray> args = {filled({1000}, 0), ir::NDArray({1000}, ir::DataType::float32())};
    const std::vector<std::int64_t> sizes = {1000};
    auto r = runLibraryIsolated(m_lib, "add_one", args, sizes, options());
    QVERIFY2(r.has_value(), r ? "" : r.error().message.c_str());
    for (std::int64_t i : {0, 1, 500, 999})
      QCOMPARE(args[1].getDouble(i), static_cast<double>(i) + 1.0);
    QCOMPARE(r->timing.perRepeat.size(), std::size_t(1));
    QCOMPARE(r->timing.number, 1);
    QVERIFY(r->timing.perRepeat[0] > 0);
  }

  void timingRepeatsAndNumber() {
    std::vector<ir::NDArray> args = {filled({4096}, 0), ir::NDArray({4096}, ir::DataType::float32())};
    const std::vector<std::int64_t> sizes = {4096};
    auto o = options();
    o.timing = {1, 4, 3, 0, true};
    auto r = runLibraryIsolated(m_lib, "add_one", args, sizes, o);
    QVERIFY2(r.has_value(), r ? "" : r.error().message.c_str());
    QCOMPARE(r->timing.perRepeat.size(), std::size_t(4));
    QCOMPARE(r->timing.number, 3);
    QVERIFY(r->timing.min() > 0);
    QVERIFY(r->timing.min() <= r->timing.median() && r->timing.median() <= r->timing.max());
    QVERIFY(r->timing.countersRequested);
    if (!r->timing.counters.available)
      QVERIFY(r->timing.counters.note.starts_with("hardware counters unavailable: perf_event_open failed with "));
    else
      QVERIFY(r->timing.counters.values.cycles > 0);

    // number = 0: chosen so that a repeat lasts at least minRepeatMs.
    o.timing = {0, 2, 0, 5, false};
    r = runLibraryIsolated(m_lib, "add_one", args, sizes, o);
    QVERIFY(r.has_value());
    // The worker chose `number` (tst_profile checks the calibration's bounds with calls of
    // a known least duration); how many depends on the machine's load, so no lower bound.
    QVERIFY(r->timing.number >= 1);
    QCOMPARE(r->timing.perRepeat.size(), std::size_t(2));
  }

  void manyArguments() {
    std::vector<ir::NDArray> args;
    for (int i = 0; i < 8; ++i)
      args.push_back(filled({1}, static_cast<float>(i + 1)));
    args.push_back(ir::NDArray({1}, ir::DataType::float32()));
    const std::vector<std::int64_t> sizes = {1, 2, 3};
    auto r = runLibraryIsolated(m_lib, "sum_many", args, sizes, options());
    QVERIFY2(r.has_value(), r ? "" : r.error().message.c_str());
    QCOMPARE(args[8].getDouble(0), 36.0 + 123.0);
  }

  void failures_data() {
    QTest::addColumn<QString>("symbol");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("null write") << "write_null"
                                << "runner.crashed"
                                << "the kernel crashed with SIGSEGV (segmentation fault)";
    QTest::newRow("far out of bounds") << "write_far"
                                       << "runner.crashed"
                                       << "the kernel crashed with SIGSEGV (segmentation fault)";
    QTest::newRow("integer division by zero") << "divide"
                                              << "runner.crashed"
                                              << "the kernel crashed with SIGFPE (floating-point exception)";
    QTest::newRow("abort") << "do_abort"
                           << "runner.crashed"
                           << "the kernel crashed with SIGABRT (aborted)";
    QTest::newRow("missing symbol") << "no_such_kernel"
                                    << "worker.no-symbol"
                                    << "the kernel library '@LIB@' has no function 'no_such_kernel'";
  }
  void failures() {
    QFETCH(QString, symbol);
    QFETCH(QString, code);
    QFETCH(QString, message);
    ir::NDArray a({4}, ir::DataType::int32());
    a.setInt(0, 7);
    a.setInt(1, 0);
    std::vector<ir::NDArray> args = {symbol == "divide" ? a : filled({4}, 0)};
    std::vector<std::int64_t> sizes;
    if (symbol == "write_far") sizes.push_back(4);
    auto r = runLibraryIsolated(m_lib, symbol.toStdString(), args, sizes, options());
    QVERIFY(!r.has_value());
    QCOMPARE(QString::fromStdString(r.error().code), code);
    QCOMPARE(QString::fromStdString(r.error().message), message.replace("@LIB@", QString::fromStdString(m_lib)));
  }

  void timeoutStopsTheKernel() {
    std::vector<ir::NDArray> args = {filled({4}, 0)};
    QElapsedTimer timer;
    timer.start();
    auto r = runLibraryIsolated(m_lib, "loop_forever", args, {}, options(1));
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("runner.timeout"));
    QCOMPARE(r.error().message, std::string("the kernel did not finish within 1 s and was stopped"));
    QVERIFY(timer.elapsed() >= 1000);
    QVERIFY(timer.elapsed() < 5000);
    // The inputs are left as they were: nothing is copied back from a failed run.
    QCOMPARE(args[0].getDouble(0), 0.0);
  }

  // The limit applies to each call: five calls of 0.3 s each (1.5 s in all) pass a 1 s limit.
  void timeoutIsPerCall() {
    std::vector<ir::NDArray> args = {filled({4}, 0)};
    RunOptions o = options(1);
    o.timing.warmup = 0;
    o.timing.repeat = 5;
    o.timing.number = 1;
    o.timing.counters = false;
    auto r = runLibraryIsolated(m_lib, "slow_call", args, {}, o);
    QVERIFY2(r.has_value(), r ? "" : r.error().message.c_str());
    QCOMPARE(args[0].getDouble(0), 5.0);
  }

  void missingLibrary() {
    std::vector<ir::NDArray> args = {filled({4}, 0)};
    auto r = runLibraryIsolated(m_dir.filePath("nope.so").toStdString(), "add_one", args, {}, options());
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("worker.cannot-load"));
    QVERIFY(r.error().message.starts_with("cannot load the kernel library: "));
    QVERIFY(r.error().message.find("nope.so") != std::string::npos);
  }

  void missingWorker() {
    std::vector<ir::NDArray> args = {filled({4}, 0)};
    auto o = options();
    o.workerPath = m_dir.filePath("no-worker").toStdString();
    auto r = runLibraryIsolated(m_lib, "add_one", args, {}, o);
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("runner.no-worker"));
    QVERIFY(r.error().message.starts_with("cannot start the worker '"));
  }

  void kernelOutputIsCaptured() {
    std::vector<ir::NDArray> args = {filled({1}, 2.5f)};
    auto r = runLibraryIsolated(m_lib, "chatty", args, {}, options());
    QVERIFY(r.has_value());
    QCOMPARE(r->workerOutput, std::string("hello from the kernel 2.5\n"));
  }

  void runKernelChecksArguments() {
    const LoweredFunc f = addOneFunc();
    FakeKernel k;
    k.library = m_lib;
    k.sym = "add_one";
    std::vector<ir::NDArray> args = {filled({8}, 0), ir::NDArray({8}, ir::DataType::float32())};
    std::vector<std::int64_t> sizes = {8};
    auto r = runKernel(f, k, args, sizes, options());
    QVERIFY2(r.has_value(), r ? "" : r.error().message.c_str());
    QCOMPARE(args[1].getDouble(7), 8.0);

    sizes = {9};
    r = runKernel(f, k, args, sizes, options());
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("runner.arg-mismatch"));
    QCOMPARE(r.error().message, std::string("argument 'A' is float32(8), but the kernel expects float32(9)"));

    std::vector<std::int64_t> none;
    r = runKernel(f, k, args, none, options());
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().message, std::string("the kernel 'add_one' takes 1 sizes, 0 given"));
  }

  void uncheckedOutOfBoundsKernelCrashes() {
    // TEST ONLY: the kernel is told n = 2^28 but gets 8-element buffers; it runs off the
    // end of the shared mapping and the worker dies, not this process.
    const LoweredFunc f = addOneFunc();
    FakeKernel k;
    k.library = m_lib;
    k.sym = "add_one";
    std::vector<ir::NDArray> args = {filled({8}, 0), ir::NDArray({8}, ir::DataType::float32())};
    const std::vector<std::int64_t> sizes = {std::int64_t(1) << 28};
    auto o = options();
    QVERIFY(!runKernel(f, k, args, sizes, o).has_value()); // checked: refused
    o.uncheckedArguments = true;
    auto r = runKernel(f, k, args, sizes, o);
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("runner.crashed"));
    QVERIFY2(r.error().message == "the kernel crashed with SIGSEGV (segmentation fault)" ||
                 r.error().message == "the kernel crashed with SIGBUS (bus error)",
             r.error().message.c_str());
  }

  void inProcessCallsKernelRun() {
    const LoweredFunc f = addOneFunc();
    FakeKernel k;
    std::vector<ir::NDArray> args = {filled({8}, 0), ir::NDArray({8}, ir::DataType::float32())};
    const std::vector<std::int64_t> sizes = {8};
    auto o = options();
    auto r = runKernel(f, k, args, sizes, o);
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("runner.no-library"));
    o.isolation = Isolation::InProcess;
    o.timing = {2, 3, 4, 0, false};
    r = runKernel(f, k, args, sizes, o);
    QVERIFY(r.has_value());
    QCOMPARE(k.calls, 2 + 3 * 4);
    QCOMPARE(args[1].getDouble(0), 42.0);
  }

  void describeSignals_data() {
    QTest::addColumn<int>("sig");
    QTest::addColumn<QString>("text");
    QTest::newRow("segv") << SIGSEGV << "SIGSEGV (segmentation fault)";
    QTest::newRow("bus") << SIGBUS << "SIGBUS (bus error)";
    QTest::newRow("fpe") << SIGFPE << "SIGFPE (floating-point exception)";
    QTest::newRow("ill") << SIGILL << "SIGILL (illegal instruction)";
    QTest::newRow("kill") << SIGKILL << "SIGKILL (killed)";
    QTest::newRow("usr1") << SIGUSR1 << "SIGUSR1 (User defined signal 1)";
  }
  void describeSignals() {
    QFETCH(int, sig);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(describeSignal(sig)), text);
  }

  void protocolRoundTrip() {
    WorkerRequest req;
    req.calls.push_back(
        {.library = "/tmp/lib x.so", .symbol = "k", .buffers = {{0, 100}, {128, 128}}, .sizes = {3, -1}});
    req.shmBytes = 256 + kWorkerProgressBytes; // buffers, then the progress counter
    req.timing = {2, 7, 0, 12.5, true};
    auto back = decodeWorkerArgs(encodeWorkerArgs(req));
    QVERIFY(back.has_value());
    QCOMPARE(back->calls.size(), std::size_t(1));
    QCOMPARE(back->calls[0].library, req.calls[0].library);
    QCOMPARE(back->calls[0].buffers[1].offset, std::uint64_t(128));
    QCOMPARE(back->calls[0].sizes, req.calls[0].sizes);
    QCOMPARE(back->timing.repeat, 7);
    QCOMPARE(back->timing.minRepeatMs, 12.5);
    QCOMPARE(back->timing.slowCutoffSeconds, 0.0);
    QVERIFY(back->timing.counters);
    req.timing.slowCutoffSeconds = 0.25;
    QCOMPARE(decodeWorkerArgs(encodeWorkerArgs(req))->timing.slowCutoffSeconds, 0.25);

    // Several calls: each --library starts one, in order.
    auto two = req;
    two.calls.push_back({.library = "/tmp/b.so", .symbol = "g", .buffers = {{128, 64}}, .sizes = {}});
    auto backTwo = decodeWorkerArgs(encodeWorkerArgs(two));
    QVERIFY(backTwo.has_value());
    QCOMPARE(backTwo->calls.size(), std::size_t(2));
    QCOMPARE(backTwo->calls[1].symbol, std::string("g"));
    QCOMPARE(backTwo->calls[1].buffers.size(), std::size_t(1));
    QVERIFY(backTwo->calls[1].sizes.empty());
    auto orphan = decodeWorkerArgs({"--shm-bytes", "128", "--symbol", "k", "--library", "a.so"});
    QVERIFY(!orphan.has_value());
    QCOMPARE(orphan.error().message, std::string("--symbol before the first --library"));

    req.calls[0].buffers.push_back({200, 100});
    auto bad = decodeWorkerArgs(encodeWorkerArgs(req));
    QVERIFY(!bad.has_value());
    QCOMPARE(bad.error().message, std::string("buffer 200:100 lies outside the 256 shared argument bytes"));

    TimingResult t;
    t.number = 5;
    t.perRepeat = {1.5e-3, 0.1, 3.0 / 7.0};
    t.countersRequested = true;
    t.counters.note = "hardware counters unavailable: x";
    auto decoded = decodeWorkerReply(encodeWorkerReply(t));
    QVERIFY(decoded.has_value());
    QCOMPARE(decoded->perRepeat, t.perRepeat); // hex floats: bit-exact
    QCOMPARE(decoded->counters.note, t.counters.note);
    QVERIFY(decoded->callSeconds.empty());
    t.callSeconds = {2.5e-4, 1.0 / 3.0};
    QCOMPARE(decodeWorkerReply(encodeWorkerReply(t))->callSeconds, t.callSeconds);
    QVERIFY(!decodeWorkerReply("ok\nnumber 1\nrepeat 0x1p-3\n").has_value()); // truncated
  }
};

QTEST_GUILESS_MAIN(TestRunner)
#include "tst_runner.moc"
