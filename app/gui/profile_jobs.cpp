#include "app/gui/profile_jobs.h"

#include "core/codegen/cancel.h"
#include "core/codegen/pipeline.h"
#include "core/codegen/profile.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QPointer>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <sstream>

namespace loopscape::gui {

namespace {

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
  // A stage that fails because of a stop request reports the cancellation.
  const auto failedOr = [&](const std::string& stage, const std::string& when, const Diagnostic& d) {
    return codegen::isCancelled(d) ? cancelled(row, when) : failed(row, stage, d);
  };

  // 1. Compile (the sizes and the target are checked first).
  progress(0, total);
  auto sizes = parseSizeBindings(request.original, request.sizes);
  if (!sizes) return failed(row, "sizes", sizes.error());
  const codegen::Pipeline pipeline;
  auto target = pipeline.usableTarget(request.target);
  if (!target) return failed(row, "target", target.error());
  auto built = pipeline.compile(**target, request.scheduled, codegen::BuildOptions{}, stop);
  if (!built) return failedOr("compile", "while compiling", built.error());
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
    codegen::VerifyOptions verifyOptions;
    verifyOptions.interpretLimit = request.interpretLimit;
    auto report = pipeline.verify(*built, request.original, *sizes, *args, runOptions, verifyOptions, stop);
    if (stop.stop_requested()) return cancelled(row, "while verifying");
    if (!report) return failedOr("verify", "while verifying", report.error());
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

  // 3. Time, one repeat per worker run, so that each repeat reports its progress.
  int completed = 0; // repeats finished before the current one
  codegen::TimeOptions timeOptions;
  timeOptions.timing = codegen::TimingOptions{1, request.repeat, 0, request.minRepeatMs, false};
  timeOptions.runPerRepeat = true;
  timeOptions.onRepeat = [&](int i) {
    completed = i;
    progress(2 + i, total);
  };
  auto timed = pipeline.time(*built, request.original, *sizes, *args, runOptions, timeOptions, stop);
  const auto afterRepeats = [&](int done) {
    return fmt::format("after {} of {} timing repeats", done, request.repeat);
  };
  if (!timed && (stop.stop_requested() || codegen::isCancelled(timed.error())))
    return cancelled(row, afterRepeats(completed));
  if (!timed) return failed(row, fmt::format("timing repeat {}/{}", completed + 1, request.repeat), timed.error());
  if (stop.stop_requested()) return cancelled(row, afterRepeats(request.repeat));

  // 4. The work and the machine's peak.
  progress(total, total);
  codegen::ProfileReport profile =
      codegen::makeProfile(request.original, request.scheduled, *sizes, timed->timing, /*threads=*/0);
  if (!built->func.gpu) { // this machine's CPU peak and cache model say nothing of a GPU kernel
    codegen::addModeledTraffic(profile, built->func, *sizes, codegen::TrafficOptions{request.trafficCacheBytes, 64});
    profile.peak = request.peak ? request.peak() : codegen::peakFor(profile);
  }
  for (double s : timed->timing.perRepeat)
    row.perRepeatMs.push_back(s * 1e3);
  row.number = timed->timing.number;
  row.medianMs = timed->timing.median() * 1e3;
  row.gflops = profile.gflops();
  if (profile.peak && profile.peakGflops() > 0) row.percentOfPeak = profile.percentOfPeak();
  // The roofline's inputs: the useful work per compulsory byte and per modeled byte of
  // this schedule's traffic (traffic_model.h), and this state's roof.
  if (profile.arithmeticIntensity() > 0) row.intensity = profile.arithmeticIntensity();
  if (profile.modeledIntensity() > 0) {
    row.modeledBytes = profile.modeledBytes;
    row.modeledIntensity = profile.modeledIntensity();
    row.trafficModel = profile.trafficModel;
  }
  if (profile.peak && profile.peakGflops() > 0) row.peakGflops = profile.peakGflops();
  if (profile.peak && profile.peak->bandwidthGBs > 0) row.bandwidthGBs = profile.peak->bandwidthGBs;
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
