#include "app/gui/tune_jobs.h"

#include "core/tune/cost_model.h"
#include "core/tune/measure.h"
#include "core/tune/model_file.h"
#include "views/qt_text.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

namespace loopscape::gui {

namespace {

using views::qs;

QString duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return QStringLiteral("?");
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 3600 ? QStringLiteral("%1h%2m").arg(s / 3600).arg(s % 3600 / 60, 2, 10, QChar(u'0'))
                   : QStringLiteral("%1m%2s").arg(s / 60).arg(s % 60, 2, 10, QChar(u'0'));
}

/// What tells two records of a log apart (a log resumed twice holds a record once).
auto recordKey(const tune::Record& r) { return std::tuple(r.trial, r.time, r.sketch, r.gflops, r.error); }

TuneOutcome failedOutcome(const Diagnostic& d) {
  TuneOutcome out;
  out.ok = false;
  out.error = qs(renderDiagnostic(d));
  return out;
}

} // namespace

QString tuneProgressText(const tune::TuneProgress& p) {
  const tune::Rate rate = p.bestRate();
  QString best = QStringLiteral("best %1 %2").arg(rate.value, 0, 'f', 1).arg(QString::fromUtf8(rate.unit));
  if (p.bestSteps > 0 || !p.bestFamily.empty())
    best += QStringLiteral(" (%1 step%2%3)")
                .arg(p.bestSteps)
                .arg(p.bestSteps == 1 ? "" : "s")
                .arg(p.bestFamily.empty() ? QString() : QStringLiteral(", ") + qs(p.bestFamily));
  return QStringLiteral("%1/%2 trials · %3 · %4 trials/s · %5 error%6 · ETA %7")
      .arg(p.trials)
      .arg(p.total)
      .arg(best)
      .arg(p.trialsPerSecond, 0, 'f', 2)
      .arg(p.errors)
      .arg(p.errors == 1 ? "" : "s")
      .arg(duration(p.etaSeconds));
}

TuneOutcome runTuneSearch(const TuneRequest& request, std::vector<tune::Record> previous, std::stop_token stop,
                          const std::function<void(const QString&)>& started,
                          const std::function<void(std::vector<tune::Record>)>& resumed,
                          const std::function<void(TuneUpdate)>& measured) {
  // 1. The options, the model, and the log: read (a resumed search) and opened for appending.
  const tune::TuneSettings& settings = request.settings;
  auto options = tune::makeTuneOptions(settings);
  if (!options) return failedOutcome(options.error());
  auto model = tune::makeCostModel(settings);
  if (!model) return failedOutcome(model.error());
  const std::string workload = tune::workloadKey(request.func, request.sizes);
  if (request.resume && !request.recordsPath.empty()) {
    auto read = tune::readRecords(request.recordsPath);
    if (!read) return failedOutcome(read.error());
    std::set<decltype(recordKey(previous.front()))> known;
    for (const tune::Record& r : previous)
      known.insert(recordKey(r));
    std::vector<tune::Record> fromLog;
    for (tune::Record& r : *read)
      if (r.workload == workload && r.target == settings.target && !known.contains(recordKey(r)))
        fromLog.push_back(std::move(r));
    previous.insert(previous.end(), fromLog.begin(), fromLog.end());
    if (!fromLog.empty()) resumed(std::move(fromLog));
  }
  tune::RecordWriter writer;
  if (!request.recordsPath.empty())
    if (auto opened = writer.open(request.recordsPath); !opened) return failedOutcome(opened.error());
  // The cost model beside the log: a resumed search goes on from it (one that cannot be
  // read is left, and the model starts afresh); every search saves it at the end.
  QStringList modelNotes;
  const QString modelPath =
      request.recordsPath.empty() ? QString() : qs(tune::modelPathBeside(request.recordsPath, **model).string());
  if (request.resume && !request.recordsPath.empty()) {
    auto loaded = tune::loadModelBeside(**model, request.recordsPath);
    if (!loaded)
      modelNotes << QStringLiteral("The cost model in %1 could not be read (%2); it started afresh.")
                        .arg(modelPath, qs(loaded.error().message));
    else if (*loaded)
      modelNotes << QStringLiteral("Cost model loaded from %1.").arg(modelPath);
  }

  // 2. The measurer (the target plugin, the worker, the reference inputs) and the task.
  tune::LocalMeasureOptions mo = tune::makeMeasureOptions(settings);
  mo.timing.minRepeatMs = request.minRepeatMs;
  auto measurer = tune::LocalMeasurer::create(request.func, request.sizes, mo);
  if (!measurer) return failedOutcome(measurer.error());
  const tune::TuneTask task = tune::makeTuneTask(request.func, request.sizes, settings, **measurer);

  const auto resumedCount = std::count_if(previous.begin(), previous.end(), [&](const tune::Record& r) {
    return r.workload == workload && r.target == settings.target;
  });
  TuneOutcome out;
  out.options = *options;
  out.model = qs(std::string((*model)->name()));
  out.description = QStringLiteral("%1 on %2 (%3 thread%4), strategy %5, model %6, population %7, seed %8")
                        .arg(qs(request.func.name), qs(settings.target))
                        .arg(options->space.cores)
                        .arg(options->space.cores == 1 ? "" : "s")
                        .arg(qs(std::string(tune::strategyName(options->strategy))), out.model)
                        .arg(options->population)
                        .arg(options->seed);
  if (options->timeBudgetSeconds > 0)
    out.description += QStringLiteral(", time budget %1 s").arg(options->timeBudgetSeconds);
  if (settings.fastMath) out.description += QStringLiteral(", fast-math");
  if (!settings.warmStart) out.description += QStringLiteral(", no prior");
  started(QStringLiteral("%1, %2 trials%3")
              .arg(out.description)
              .arg(options->trials)
              .arg(resumedCount ? QStringLiteral(", resuming from %1 records").arg(resumedCount) : QString()));

  // 3. The search; each record is copied out while TuneProgress::last is valid.
  auto onProgress = [&](const tune::TuneProgress& p) {
    TuneUpdate update;
    update.progress = p;
    update.progress.last = nullptr;
    update.measuring = !p.last;
    if (p.last) update.record = *p.last;
    update.predicted = p.lastPredicted;
    measured(std::move(update));
  };
  auto result =
      tune::tune(task, **measurer, **model, previous, writer.isOpen() ? &writer : nullptr, *options, onProgress, stop);
  if (!result) return failedOutcome(result.error());
  if (!request.recordsPath.empty()) {
    if (auto saved = tune::saveModelBeside(**model, request.recordsPath); !saved)
      modelNotes << QStringLiteral("The cost model could not be saved: %1.").arg(qs(saved.error().message));
    else
      modelNotes << QStringLiteral("Cost model saved to %1.").arg(modelPath);
  }
  out.modelFile = modelNotes.join(' ');
  out.ok = true;
  out.stopped = result->stopped || stop.stop_requested();
  out.budgetSpent = result->stopped && !stop.stop_requested();
  out.exhausted = result->exhausted;
  out.best = result->best;
  out.measured = static_cast<int>(result->records.size());
  out.errors = result->errors;
  out.dropped = result->dropped;
  out.legalityUnknown = result->legalityUnknown;
  out.modelCorrelation = result->modelCorrelation;
  out.modelSamples = result->modelSamples;
  return out;
}

// ---- TuneJob ------------------------------------------------------------------------------

TuneJob::TuneJob(QObject* parent) : QObject(parent) { setObjectName(QStringLiteral("tuneJob")); }

TuneJob::~TuneJob() {
  if (!m_thread.joinable()) return;
  ++m_generation;
  m_stop.request_stop();
  m_thread.join(); // the search ends after the candidate in flight; its worker is killed
}

bool TuneJob::start(TuneRequest request) {
  if (m_running) return false;
  if (m_thread.joinable()) m_thread.join(); // a finished run whose end was not delivered yet
  const std::string workload = tune::workloadKey(request.func, request.sizes);
  if (!request.resume || workload != m_workload) m_records.clear();
  m_workload = workload;
  m_sizes = request.sizes;
  const std::uint64_t generation = ++m_generation;
  m_stop = std::stop_source();
  m_running = true;
  Q_EMIT runningChanged(true);

  // Everything the search reports is posted to this object's thread and dropped there when
  // the run is no longer the current one.
  auto post = [this, generation](auto fn) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, fn = std::move(fn)]() mutable {
          if (generation == m_generation) fn();
        },
        Qt::QueuedConnection);
  };
  auto started = [this, post](const QString& text) { post([this, text] { Q_EMIT this->started(text); }); };
  auto resumed = [this, post](std::vector<tune::Record> records) {
    post([this, records = std::move(records)] {
      m_records.insert(m_records.begin(), records.begin(), records.end());
      Q_EMIT this->resumed(records);
    });
  };
  auto measured = [this, post](TuneUpdate update) {
    post([this, update = std::move(update)] {
      if (!update.measuring) m_records.push_back(update.record);
      Q_EMIT this->measured(update);
    });
  };
  m_thread = std::thread([this, generation, request = std::move(request), previous = m_records,
                          token = m_stop.get_token(), started, resumed, measured]() mutable {
    TuneOutcome outcome = runTuneSearch(request, std::move(previous), token, started, resumed, measured);
    QMetaObject::invokeMethod(
        this, [this, generation, outcome = std::move(outcome)] { onFinished(generation, outcome); },
        Qt::QueuedConnection);
  });
  return true;
}

void TuneJob::onFinished(std::uint64_t generation, const TuneOutcome& outcome) {
  if (m_thread.joinable()) m_thread.join(); // it has posted this as its last act
  m_running = false;
  if (generation == m_generation) Q_EMIT finished(outcome);
  Q_EMIT runningChanged(false);
}

void TuneJob::stop() {
  if (m_running) m_stop.request_stop();
}

void TuneJob::discard() {
  ++m_generation;
  m_records.clear();
  m_workload.clear();
  m_sizes.clear();
  stop();
}

bool TuneJob::waitForIdle(int timeoutMs) {
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
