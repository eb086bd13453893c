#include "app/gui/profile_jobs.h"

#include "core/codegen/flop_count.h"
#include "core/codegen/lower.h"
#include "core/codegen/profile.h"
#include "core/codegen/runner.h"
#include "core/codegen/target_registry.h"
#include "core/codegen/verify.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QPointer>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <mutex>
#include <sstream>

namespace loopscape::gui {

namespace {

/// Plugins are not assumed to be thread-safe: every build goes through this lock (the
/// kernels themselves run in the worker process, outside it).
std::mutex& buildLock() {
  static std::mutex m;
  return m;
}

/// The same search directories as the code view's registry (code_jobs.cpp).
codegen::TargetRegistry& registry() {
  static codegen::TargetRegistry* r = [] {
    std::vector<std::string> dirs = codegen::TargetRegistry::defaultSearchDirs();
    dirs.push_back(LS_BUILD_PLUGIN_DIR);
    return new codegen::TargetRegistry(std::move(dirs));
  }();
  return *r;
}

using Row = views::ProfileRow;

Row failed(Row row, const std::string& stage, const Diagnostic& d) {
  row.status = Row::Status::Error;
  row.message = stage + ": " + d.message;
  row.details = fmt::format("{} failed [{}]\n{}", stage, d.code, renderDiagnostic(d));
  return row;
}

/// `when`: "while compiling", "after 2 of 40 timing repeats".
Row cancelled(Row row, const std::string& when) {
  row.status = Row::Status::Cancelled;
  row.message = "cancelled " + when;
  row.perRepeatMs.clear();
  return row;
}

/// A compiled kernel with its lowered function and size arguments.
struct Built {
  codegen::LoweredFunc func;
  std::unique_ptr<codegen::Kernel> kernel;
  std::vector<std::int64_t> sizeArgs;
};

Expected<Built> build(codegen::Target& target, const ir::PrimFunc& func, const ir::SizeBindings& sizes) {
  std::lock_guard lock(buildLock());
  codegen::LowerOptions lowerOptions;
  lowerOptions.deviceKind = target.deviceKind();
  auto lowered = codegen::lower(func, lowerOptions);
  if (!lowered) return Unexpected(lowered.error());
  auto kernel = target.build(*lowered, codegen::BuildOptions{});
  if (!kernel) return Unexpected(kernel.error());
  auto sizeArgs = codegen::sizeArguments(*lowered, sizes);
  if (!sizeArgs) return Unexpected(sizeArgs.error());
  return Built{std::move(*lowered), std::move(*kernel), std::move(*sizeArgs)};
}

} // namespace

std::string profileStageText(int done, int total) {
  const int repeats = total - 2;
  if (done <= 0) return "compiling";
  if (done == 1) return "verifying";
  if (done < total) return fmt::format("timing repeat {}/{}", done - 1, repeats);
  return "reading the machine peak";
}

Expected<ir::SizeBindings> parseSizeBindings(const ir::PrimFunc& func, const std::string& text) {
  std::vector<std::string> known;
  for (const auto& v : func.sizeVars())
    known.push_back(v.as<ir::Var>()->name);
  std::string spaced = text;
  for (char& c : spaced)
    if (c == ',' || c == ';') c = ' ';
  std::istringstream in(spaced);
  ir::SizeBindings bindings;
  for (std::string item; in >> item;) {
    const auto eq = item.find('=');
    std::int64_t value = 0;
    const char* begin = item.data() + (eq == std::string::npos ? 0 : eq + 1);
    const char* end = item.data() + item.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (eq == std::string::npos || eq == 0 || ec != std::errc() || ptr != end || value < 1)
      return Unexpected(Diagnostic::error(
          "profile.bad-size", fmt::format("size '{}': expected NAME=VALUE with a positive integer VALUE", item)));
    const std::string name = item.substr(0, eq);
    if (std::find(known.begin(), known.end(), name) == known.end())
      return Unexpected(Diagnostic::error(
          "profile.bad-size", fmt::format("size '{}': '{}' is not a symbolic size of the program ({})", item, name,
                                          known.empty() ? "it has none" : fmt::format("{}", fmt::join(known, ", ")))));
    bindings[name] = value;
  }
  for (const auto& name : known)
    if (!bindings.contains(name))
      return Unexpected(Diagnostic::error(
          "profile.unbound-size",
          fmt::format("the symbolic size '{}' has no value; enter it in Sizes (e.g. {}=64)", name, name)));
  return bindings;
}

Row runProfile(const ProfileRequest& request, std::stop_token stop,
               const std::function<void(int done, int total)>& progress) {
  const int total = request.repeat + 2;
  Row row;
  row.step = request.step;
  row.stepLabel = request.stepLabel;
  row.target = request.target;

  // 1. Compile (the sizes and the target are checked first).
  progress(0, total);
  auto sizes = parseSizeBindings(request.original, request.sizes);
  if (!sizes) return failed(row, "sizes", sizes.error());
  codegen::Target* target = nullptr;
  {
    std::lock_guard lock(buildLock());
    auto found = registry().findTarget(request.target);
    if (!found) return failed(row, "target", found.error());
    target = *found;
    const codegen::ToolchainStatus toolchain = target->toolchain();
    if (!toolchain.usable)
      return failed(row, "target",
                    Diagnostic::error("profile.toolchain-unusable", fmt::format("target '{}' cannot build here: {}",
                                                                                request.target, toolchain.message)));
  }
  auto built = build(*target, request.scheduled, *sizes);
  if (!built) return failed(row, "compile", built.error());
  if (stop.stop_requested()) return cancelled(row, "while compiling");

  auto args = codegen::makeArguments(request.original, *sizes, request.seed);
  if (!args) return failed(row, "inputs", args.error());
  codegen::RunOptions runOptions;
  runOptions.timeoutSeconds = request.timeoutSeconds;

  // 2. Verify against the interpreter (or the unscheduled program, compiled, when the
  //    program is too large to interpret).
  row.status = Row::Status::NotVerified;
  row.message = "not verified";
  if (request.verify) {
    progress(1, total);
    // A stop request is seen before each build and run the verification makes.
    const Diagnostic stopped = Diagnostic::error("profile.cancelled", "cancelled");
    auto underTest = [&](std::span<ir::NDArray> a) -> Expected<void> {
      if (stop.stop_requested()) return Unexpected(stopped);
      auto ran = codegen::runKernel(built->func, *built->kernel, a, built->sizeArgs, runOptions);
      if (!ran) return Unexpected(ran.error());
      return {};
    };
    std::shared_ptr<Built> reference;
    auto compiledReference = [&](std::span<ir::NDArray> a) -> Expected<void> {
      if (stop.stop_requested()) return Unexpected(stopped);
      if (!reference) {
        auto b = build(*target, request.original, *sizes);
        if (!b) return Unexpected(b.error());
        reference = std::make_shared<Built>(std::move(*b));
      }
      if (stop.stop_requested()) return Unexpected(stopped);
      auto ran = codegen::runKernel(reference->func, *reference->kernel, a, reference->sizeArgs, runOptions);
      if (!ran) return Unexpected(ran.error());
      return {};
    };
    codegen::VerifyOptions verifyOptions;
    verifyOptions.interpretLimit = request.interpretLimit;
    auto report = codegen::verify(request.original, *sizes, *args, underTest, compiledReference, verifyOptions);
    if (stop.stop_requested()) return cancelled(row, "while verifying");
    if (!report) return failed(row, "verify", report.error());
    std::string checks;
    for (const codegen::OutputCheck& check : report->outputs)
      checks += fmt::format("output {}: {}\n", check.name, check.str());
    checks += "reference: " + report->referenceText;
    row.details = checks;
    if (report->passed()) {
      row.status = Row::Status::Verified;
      row.message = "verified";
    } else {
      row.status = Row::Status::Mismatch;
      for (const codegen::OutputCheck& check : report->outputs)
        if (!check.passed()) {
          row.message = "output " + check.name + ": " + check.str();
          break;
        }
    }
  }

  // 3. Time, one repeat per worker run, so that a stop request is seen between repeats.
  const auto outputs = codegen::outputParams(request.original);
  codegen::TimingResult timing;
  for (int i = 0; i < request.repeat; ++i) {
    if (stop.stop_requested()) return cancelled(row, fmt::format("after {} of {} timing repeats", i, request.repeat));
    progress(2 + i, total);
    std::vector<ir::NDArray> timedArgs;
    for (std::size_t p = 0; p < args->size(); ++p) {
      const ir::NDArray& a = (*args)[p];
      const bool output = std::find(outputs.begin(), outputs.end(), p) != outputs.end();
      timedArgs.push_back(output ? ir::NDArray(a.shape(), a.dtype()) : a.clone());
    }
    codegen::RunOptions timed = runOptions;
    timed.timing = codegen::TimingOptions{1, 1, timing.number, request.minRepeatMs, false};
    auto ran = codegen::runKernel(built->func, *built->kernel, timedArgs, built->sizeArgs, timed);
    if (!ran) return failed(row, fmt::format("timing repeat {}/{}", i + 1, request.repeat), ran.error());
    timing.number = ran->timing.number;
    timing.perRepeat.push_back(ran->timing.perRepeat.front());
  }
  if (stop.stop_requested()) return cancelled(row, fmt::format("after {0} of {0} timing repeats", request.repeat));

  // 4. The work and the machine's peak.
  progress(total, total);
  codegen::ProfileReport profile;
  profile.timing = timing;
  if (auto work = codegen::countFlops(request.original, *sizes)) profile.work = *work;
  if (request.peak)
    profile.peak = request.peak();
  else
    profile.peak = codegen::machinePeak();
  profile.threads = codegen::usesParallelLoops(request.scheduled) ? codegen::coreCount() : 1;
  for (double s : timing.perRepeat)
    row.perRepeatMs.push_back(s * 1e3);
  row.number = timing.number;
  row.medianMs = timing.median() * 1e3;
  row.gflops = profile.gflops();
  if (profile.peak && profile.peakGflops() > 0) row.percentOfPeak = profile.percentOfPeak();
  return row;
}

// ---- ProfileJob ---------------------------------------------------------------------------

ProfileJob::ProfileJob(QObject* parent) : QObject(parent) { setObjectName(QStringLiteral("profileJob")); }

ProfileJob::~ProfileJob() {
  if (!m_watcher) return;
  m_stop->request_stop();
  m_watcher->disconnect(this);
  m_watcher->waitForFinished();
}

bool ProfileJob::start(ProfileRequest request) {
  if (m_running) return false;
  if (!request.peak) request.peak = m_peak;
  m_stop = std::make_shared<std::stop_source>();
  m_running = true;
  Q_EMIT runningChanged(true);
  QPointer<ProfileJob> self(this);
  auto progress = [self](int done, int total) {
    QMetaObject::invokeMethod(
        self.data(),
        [self, done, total] {
          if (self && self->m_running)
            Q_EMIT self->progress(QString::fromStdString(profileStageText(done, total)), done, total);
        },
        Qt::QueuedConnection);
  };
  m_watcher = new QFutureWatcher<views::ProfileRow>(this);
  connect(m_watcher, &QFutureWatcherBase::finished, this, [this] {
    const views::ProfileRow row = m_watcher->result();
    m_watcher->deleteLater();
    m_watcher = nullptr;
    m_running = false;
    Q_EMIT finished(row);
    Q_EMIT runningChanged(false);
  });
  m_watcher->setFuture(QtConcurrent::run([request = std::move(request), token = m_stop->get_token(), progress] {
    return runProfile(request, token, progress);
  }));
  return true;
}

void ProfileJob::cancel() {
  if (m_running && m_stop) m_stop->request_stop();
}

bool ProfileJob::waitForIdle(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (m_running) {
    if (timer.elapsed() > timeoutMs) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if (m_running) QThread::msleep(2);
  }
  return true;
}

} // namespace loopscape::gui
