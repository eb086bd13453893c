// The codegen pipeline (core/codegen/pipeline.h) end to end, on the process-wide registry:
// every small sample (small_samples.h) with its schedule compiled through cpu-c and
// cpu-llvm, run in the isolated worker, verified against the interpreter and timed; and
// cancellation: a stop requested before each stage (lowering, building, running,
// verifying) returns "codegen.cancelled" at once, and one requested during a stage (the
// lowering between passes, the compiler of a cpu-c build, a long kernel in the worker,
// the interpreter of a verification) returns it promptly, leaving no child process
// (compiler or worker) behind. The plugins' compiler is $CC, a wrapper of the system's.
#include "core/codegen/cancel.h"
#include "core/codegen/lower.h"
#include "core/codegen/pipeline.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"
#include "small_samples.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <unistd.h>

using namespace loopscape;
using namespace loopscape::codegen;
using Clock = std::chrono::steady_clock;

namespace {

/// A matmul of the given size, unscheduled (so the naive kernel and the interpreter are
/// slow enough to be stopped in the middle).
std::string matmulOf(int n) {
  return fmt::format(R"(from tvm import te
A = te.placeholder(({0}, {0}), dtype="float32", name="A")
B = te.placeholder(({0}, {0}), dtype="float32", name="B")
k = te.reduce_axis((0, {0}), name="k")
C = te.compute(({0}, {0}), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)",
                     n);
}

/// The processes whose parent is this one (zombies included).
std::vector<int> childProcesses() {
  std::vector<int> out;
  const std::string self = std::to_string(getpid());
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.empty() || !std::isdigit(static_cast<unsigned char>(pid[0]))) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
    std::istringstream rest(line.substr(line.rfind(')') + 1));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid == self) out.push_back(std::stoi(pid));
  }
  return out;
}

/// Requests a stop `delay` after `ready()` first holds (polled every millisecond), and
/// records when it did.
class Stopper {
public:
  Stopper(std::function<bool()> ready, std::chrono::milliseconds delay)
      : m_thread([this, ready = std::move(ready), delay](std::stop_token done) {
          while (!done.stop_requested() && !ready())
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          if (done.stop_requested()) return;
          std::this_thread::sleep_for(delay);
          m_when = Clock::now();
          m_fired = true;
          m_source.request_stop();
        }) {}
  std::stop_token token() const { return m_source.get_token(); }
  bool fired() const { return m_fired; }
  /// Seconds from the stop request to now.
  double secondsSinceStop() const { return std::chrono::duration<double>(Clock::now() - m_when).count(); }

private:
  std::stop_source m_source;
  std::atomic<bool> m_fired{false};
  Clock::time_point m_when;
  std::jthread m_thread; // last: joined before the members it uses go
};

constexpr double kPrompt = 1.5; // seconds from a stop request to the cancelled result

} // namespace

class TestPipeline : public QObject {
  Q_OBJECT

private:
  Pipeline m_pipeline;
  QTemporaryDir m_dir;

  Target& target(const char* name) {
    auto t = m_pipeline.usableTarget(name);
    if (!t) qFatal("%s", renderDiagnostic(t.error()).c_str());
    return **t;
  }
  static RunOptions isolated() {
    RunOptions o;
    o.workerPath = LS_WORKER_PATH;
    o.timeoutSeconds = 60;
    return o;
  }
  /// Build outputs in a fresh directory per call (no cache hit: the compiler really runs).
  BuildOptions freshBuild() {
    static int n = 0;
    BuildOptions o;
    o.workDir = m_dir.filePath(QString("build%1").arg(n++)).toStdString();
    return o;
  }
  static void verifyCancelled(const Diagnostic& d, const char* stage) {
    QCOMPARE(d.code, std::string(kCancelledCode));
    QCOMPARE(d.message, std::string("cancelled while ") + stage);
    QVERIFY(isCancelled(d));
  }

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // The plugins' compiler ($CC, read on first use): the system's, or with LS_SLOW_CC set
    // a command that never finishes by itself, so that only a kill ends a build.
    const QString cc = m_dir.filePath("test-cc");
    std::ofstream(cc.toStdString()) << "#!/bin/sh\nif [ -n \"$LS_SLOW_CC\" ]; then exec sleep 60; fi\nexec cc \"$@\"\n";
    QVERIFY(QFile::setPermissions(cc, QFile::permissions(cc) | QFileDevice::ExeOwner));
    qputenv("CC", cc.toUtf8());
    for (const char* name : {"cpu-c", "cpu-llvm"})
      if (!m_pipeline.usableTarget(name)) QSKIP("the cpu-c and cpu-llvm plugins are needed");
  }

  void samplesCompileRunAndVerify_data() {
    QTest::addColumn<QString>("target");
    QTest::addColumn<int>("sample");
    for (const char* t : {"cpu-c", "cpu-llvm"})
      for (std::size_t i = 0; i < std::size(test::kSmallSamples); ++i)
        QTest::newRow(fmt::format("{} {}", t, test::kSmallSamples[i].name).c_str()) << QString(t) << int(i);
  }
  void samplesCompileRunAndVerify() {
    QFETCH(QString, target);
    QFETCH(int, sample);
    const test::Sample& s = test::kSmallSamples[sample];
    const ir::PrimFunc original = test::parseSample(s.program);
    schedule::Schedule sch(original);
    auto applied = schedule::applyScript(sch, s.schedule, "schedule.py");
    QVERIFY2(applied.has_value(), applied ? "" : applied.error().message.c_str());
    Target& t = this->target(target.toStdString().c_str());

    auto kernel = m_pipeline.compile(t, sch.func(), BuildOptions{});
    QVERIFY2(kernel.has_value(), kernel ? "" : renderDiagnostic(kernel.error()).c_str());
    QCOMPARE(kernel->target, &t);
    auto args = makeArguments(original, s.sizes, 0);
    QVERIFY(args.has_value());
    auto report = m_pipeline.verify(*kernel, original, s.sizes, *args, isolated(), VerifyOptions{});
    QVERIFY2(report.has_value(), report ? "" : renderDiagnostic(report.error()).c_str());
    QCOMPARE(report->reference, ReferenceKind::Interpreter);
    for (const auto& check : report->outputs)
      QVERIFY2(check.passed(), (check.name + ": " + check.str()).c_str());

    // Timed one run per repeat, each reported; the outputs of the timed calls are right too.
    TimeOptions timeOptions;
    timeOptions.timing = TimingOptions{0, 2, 1, 0, false};
    timeOptions.runPerRepeat = true;
    std::vector<int> repeats;
    timeOptions.onRepeat = [&](int i) { repeats.push_back(i); };
    auto timed = m_pipeline.time(*kernel, original, s.sizes, *args, isolated(), timeOptions);
    QVERIFY2(timed.has_value(), timed ? "" : renderDiagnostic(timed.error()).c_str());
    QCOMPARE(repeats, (std::vector<int>{0, 1}));
    QCOMPARE(timed->timing.perRepeat.size(), std::size_t(2));
    for (std::size_t i : outputParams(original))
      QCOMPARE(timed->args[i].checksum().hash, report->actual[i].checksum().hash);
    QVERIFY(childProcesses().empty());
  }

  void concurrentBuilds_data() {
    QTest::addColumn<QString>("target");
    QTest::newRow("cpu-c") << QString("cpu-c");
    QTest::newRow("cpu-llvm") << QString("cpu-llvm");
  }
  void concurrentBuilds() {
    // Both plugins say their builds may run at once (the tuner builds a batch in
    // parallel): every sample built on its own thread at the same time gives a kernel
    // that verifies.
    QFETCH(QString, target);
    Target& t = this->target(target.toStdString().c_str());
    QVERIFY(t.capabilities().concurrentBuilds);
    const std::size_t n = std::size(test::kSmallSamples);
    std::vector<ir::PrimFunc> originals, scheduled;
    std::vector<BuildOptions> options;
    for (const test::Sample& s : test::kSmallSamples) {
      originals.push_back(test::parseSample(s.program));
      schedule::Schedule sch(originals.back());
      QVERIFY(schedule::applyScript(sch, s.schedule, "schedule.py"));
      scheduled.push_back(sch.func());
      options.push_back(freshBuild());
    }
    std::vector<std::optional<Expected<CompiledKernel>>> kernels(n);
    {
      std::vector<std::jthread> threads;
      for (std::size_t i = 0; i < n; ++i)
        threads.emplace_back([&, i] { kernels[i] = m_pipeline.compile(t, scheduled[i], options[i]); });
    }
    for (std::size_t i = 0; i < n; ++i) {
      const test::Sample& s = test::kSmallSamples[i];
      QVERIFY2(*kernels[i], kernels[i]->has_value() ? "" : renderDiagnostic(kernels[i]->error()).c_str());
      auto args = makeArguments(originals[i], s.sizes, 0);
      QVERIFY(args);
      auto report = m_pipeline.verify(**kernels[i], originals[i], s.sizes, *args, isolated(), VerifyOptions{});
      QVERIFY2(report && report->passed(), s.name);
    }
  }

  void unusableOrUnknownTarget() {
    auto unknown = m_pipeline.usableTarget("no-such");
    QVERIFY(!unknown);
    QCOMPARE(unknown.error().code, std::string("codegen.unknown-target"));
    // The one process-wide registry: every pipeline sees the same targets.
    QCOMPARE(&Pipeline().registry(), &TargetRegistry::global());
    QCOMPARE(*Pipeline().findTarget("cpu-c"), &target("cpu-c"));
  }

  void stopBeforeEachStage_data() {
    QTest::addColumn<QString>("target");
    for (const char* t : {"cpu-c", "cpu-llvm"})
      QTest::newRow(t) << QString(t);
  }
  void stopBeforeEachStage() {
    QFETCH(QString, target);
    Target& t = this->target(target.toStdString().c_str());
    const ir::PrimFunc f = test::parseSample(matmulOf(16));
    std::stop_source stopped;
    stopped.request_stop();

    auto lowered = m_pipeline.lower(t, f, stopped.get_token());
    QVERIFY(!lowered);
    verifyCancelled(lowered.error(), "lowering");
    auto built = m_pipeline.compile(t, f, freshBuild(), stopped.get_token());
    QVERIFY(!built);
    verifyCancelled(built.error(), "lowering");
    auto plain = m_pipeline.lower(t, f);
    QVERIFY(plain.has_value());
    auto direct = m_pipeline.build(t, *plain, freshBuild(), stopped.get_token());
    QVERIFY(!direct);
    verifyCancelled(direct.error(), "building");
    auto source = m_pipeline.source(t, *plain, t.sourceFormats().back(), freshBuild(), stopped.get_token());
    QVERIFY(!source);
    verifyCancelled(source.error(), "building");
    // The plugin itself refuses too (a stop request in BuildOptions).
    BuildOptions options = freshBuild();
    options.stop = stopped.get_token();
    auto byPlugin = t.build(*plain, options);
    QVERIFY(!byPlugin);
    verifyCancelled(byPlugin.error(), "building");

    auto kernel = m_pipeline.build(t, *plain, BuildOptions{});
    QVERIFY2(kernel.has_value(), kernel ? "" : kernel.error().message.c_str());
    auto args = makeArguments(f, {}, 0);
    auto ran = m_pipeline.run(*kernel, *args, {}, isolated(), stopped.get_token());
    QVERIFY(!ran);
    verifyCancelled(ran.error(), "running");
    RunOptions inProcess;
    inProcess.isolation = Isolation::InProcess;
    ran = m_pipeline.run(*kernel, *args, {}, inProcess, stopped.get_token());
    QVERIFY(!ran);
    verifyCancelled(ran.error(), "running");
    auto timed = m_pipeline.time(*kernel, f, {}, *args, isolated(), TimeOptions{}, stopped.get_token());
    QVERIFY(!timed);
    verifyCancelled(timed.error(), "running");
    auto report = m_pipeline.verify(*kernel, f, {}, *args, isolated(), VerifyOptions{}, stopped.get_token());
    QVERIFY(!report);
    verifyCancelled(report.error(), "verifying");
    QVERIFY(childProcesses().empty());
  }

  void stopDuringLowering() {
    // The lowering's log hook requests the stop after the first pass: the next is not run.
    std::stop_source source;
    LowerOptions options;
    options.trace = true;
    options.stop = source.get_token();
    std::vector<std::string> passes;
    options.log = [&](std::string_view pass, std::string_view) {
      passes.emplace_back(pass);
      source.request_stop();
    };
    auto lowered = lower(test::parseSample(matmulOf(16)), options);
    QVERIFY(!lowered);
    verifyCancelled(lowered.error(), "lowering");
    QCOMPARE(passes, std::vector<std::string>{"lowerBlocks"});
  }

  void stopDuringCompilerRun() {
    // cpu-c runs the compiler ($CC) as a child process, here one that would run a minute:
    // the stop kills it.
    Target& t = target("cpu-c");
    auto lowered = m_pipeline.lower(t, test::parseSample(matmulOf(64)));
    QVERIFY(lowered.has_value());
    qputenv("LS_SLOW_CC", "1");
    const BuildOptions options = freshBuild();
    Stopper stopper([] { return !childProcesses().empty(); }, std::chrono::milliseconds(100));
    auto built = m_pipeline.build(t, *lowered, options, stopper.token());
    qunsetenv("LS_SLOW_CC");
    QVERIFY(stopper.fired());
    QVERIFY(!built);
    verifyCancelled(built.error(), "building");
    QVERIFY2(stopper.secondsSinceStop() < kPrompt, std::to_string(stopper.secondsSinceStop()).c_str());
    QVERIFY(childProcesses().empty());
    // Nothing half-written stays in the cache: the same build again compiles and runs.
    auto again = m_pipeline.build(t, *lowered, options);
    QVERIFY2(again.has_value(), again ? "" : again.error().message.c_str());
    auto args = makeArguments(test::parseSample(matmulOf(64)), {}, 0);
    auto ran = m_pipeline.run(*again, *args, {}, isolated());
    QVERIFY2(ran.has_value(), ran ? "" : ran.error().message.c_str());
  }

  void stopDuringWorkerRun_data() {
    QTest::addColumn<QString>("target");
    for (const char* t : {"cpu-c", "cpu-llvm"})
      QTest::newRow(t) << QString(t);
  }
  void stopDuringWorkerRun() {
    // The naive 1536^3 matmul takes seconds: the worker is killed 200 ms after it started.
    QFETCH(QString, target);
    Target& t = this->target(target.toStdString().c_str());
    const ir::PrimFunc f = test::parseSample(matmulOf(1536));
    auto kernel = m_pipeline.compile(t, f, BuildOptions{});
    QVERIFY2(kernel.has_value(), kernel ? "" : kernel.error().message.c_str());
    (void)kernel->kernel->libraryPath(); // cpu-llvm links on first use: not part of the run
    auto args = makeArguments(f, {}, 0);
    QVERIFY(args.has_value());
    Stopper stopper([] { return !childProcesses().empty(); }, std::chrono::milliseconds(200));
    auto ran = m_pipeline.run(*kernel, *args, {}, isolated(), stopper.token());
    QVERIFY(stopper.fired());
    QVERIFY(!ran);
    verifyCancelled(ran.error(), "running");
    QVERIFY2(stopper.secondsSinceStop() < kPrompt, std::to_string(stopper.secondsSinceStop()).c_str());
    QVERIFY(childProcesses().empty());
  }

  void stopDuringVerification() {
    // The interpreter on a 512^3 matmul (134 million statement instances) takes seconds;
    // the stop reaches it inside its loops.
    Target& t = target("cpu-c");
    const ir::PrimFunc f = test::parseSample(matmulOf(512));
    auto kernel = m_pipeline.compile(t, f, BuildOptions{});
    QVERIFY2(kernel.has_value(), kernel ? "" : kernel.error().message.c_str());
    auto args = makeArguments(f, {}, 0);
    const auto start = Clock::now();
    Stopper stopper([&] { return Clock::now() - start > std::chrono::milliseconds(100); },
                    std::chrono::milliseconds(0));
    auto report = m_pipeline.verify(*kernel, f, {}, *args, isolated(), VerifyOptions{}, stopper.token());
    QVERIFY(stopper.fired());
    QVERIFY(!report);
    verifyCancelled(report.error(), "verifying");
    QVERIFY2(stopper.secondsSinceStop() < kPrompt, std::to_string(stopper.secondsSinceStop()).c_str());
    QVERIFY(childProcesses().empty());
  }
};

QTEST_GUILESS_MAIN(TestPipeline)
#include "tst_pipeline.moc"
