// MainWindow: the Tune dock. Start (or Run → Tune…, then Start) searches for a fast
// schedule of the session's original program on the dock's target with the dock's
// options (the symbolic sizes are the profile dock's); the TuneJob runs the search in the
// background and every measured candidate arrives as a table row, a point of the curve and
// of the prediction scatter. Stop (or Run → Stop tuning) ends it after the candidate being
// measured. Double-clicking a candidate replaces the workbench trace by the candidate's
// trace (a poly candidate's is one poly_optimize step) as one undoable step, its program
// checked once as the tuner checked it (tune::applyRecord); candidates of
// another program than the session's are refused. Opening another program drops the
// search and its candidates.
#include "app/gui/main_window.h"

#include "app/gui/job_runner.h"
#include "app/gui/tune_jobs.h"
#include "views/profile_view.h"
#include "views/tune_view.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QToolBar>

#include <algorithm>
#include <cmath>
#include <optional>

namespace loopscape::gui {

namespace {

views::TuneRow toRow(const tune::Record& r, std::optional<double> predicted, bool byPrior = false) {
  views::TuneRow row;
  row.trial = r.trial;
  row.rate = r.ok() ? r.rate().value : 0;
  row.ms = r.ok() ? r.medianSeconds() * 1e3 : 0;
  row.family = QString::fromStdString(r.family);
  row.sketch = QString::fromStdString(r.sketch);
  row.verified = r.verified;
  row.error = QString::fromStdString(r.error);
  row.predicted = predicted.value_or(0);
  row.hasPrediction = predicted.has_value();
  row.byPrior = byPrior;
  row.trace = r.trace;
  return row;
}

QString summary(const TuneOutcome& o, const QString& records) {
  if (!o.ok) return QStringLiteral("The search could not run: %1").arg(o.error.trimmed());
  const bool ranOut = o.exhausted && !o.stopped;
  QString text = o.stopped ? (o.budgetSpent ? QStringLiteral("Time budget spent") : QStringLiteral("Stopped"))
                 : ranOut  ? QStringLiteral("Search space ran out (three rounds in a row drew no candidate not "
                                             "measured before)")
                           : QStringLiteral("Done");
  if (ranOut)
    text +=
        QStringLiteral(": %1 of %2 trials measured, %3 failed.").arg(o.measured).arg(o.options.trials).arg(o.errors);
  else
    text += QStringLiteral(": %1 candidate%2 measured, %3 failed.")
                .arg(o.measured)
                .arg(o.measured == 1 ? "" : "s")
                .arg(o.errors);
  if (o.best) {
    const tune::Record& b = *o.best;
    text += QStringLiteral(" Best %1 %2 (%3 ms), trial %4: %5%6. Double-click a row to apply its trace.")
                .arg(b.rate().value, 0, 'f', 1)
                .arg(QString::fromUtf8(b.rate().unit))
                .arg(b.medianSeconds() * 1e3, 0, 'g', 3)
                .arg(b.trial)
                .arg(QString::fromStdString(b.sketch))
                .arg(b.verified ? QStringLiteral(", verified") : QString());
  } else {
    text += QStringLiteral(" No candidate ran successfully.");
  }
  if (o.modelSamples > 0)
    text += QStringLiteral(" Model rank correlation %1 (%2 unseen candidates).")
                .arg(o.modelCorrelation, 0, 'f', 2)
                .arg(o.modelSamples);
  if (o.stopped && !records.isEmpty()) text += QStringLiteral(" Every record is kept in %1.").arg(records);
  if (!o.modelFile.isEmpty()) text += ' ' + o.modelFile;
  QStringList dropped;
  for (const auto& [reason, count] : o.dropped)
    dropped << QStringLiteral("%1 × %2").arg(count).arg(QString::fromStdString(reason));
  if (!dropped.isEmpty())
    text += QStringLiteral(" Dropped before measuring: %1.").arg(dropped.join(QStringLiteral(", ")));
  for (const auto& [code, count] : o.legalityUnknown)
    text += QStringLiteral(" %1 new best(s) kept on verification alone: the exact legality check failed (%2).")
                .arg(count)
                .arg(QString::fromStdString(code));
  return text;
}

} // namespace

void MainWindow::createTuneDock() {
  m_tune = new views::TuneView(this);
  m_tuneJob = new TuneJob(this);
  m_tuneDock = new QDockWidget(QStringLiteral("Tune"), this);
  m_tuneDock->setObjectName(QStringLiteral("tuneDock"));
  m_tuneDock->setWidget(m_tune);
  addDockWidget(Qt::BottomDockWidgetArea, m_tuneDock);
  tabifyDockWidget(m_profileDock, m_tuneDock);
  m_diagnosticsDock->raise();

  // Run → Tune… brings the dock up with the keyboard on Start: the options are the dock's.
  connect(makeAction(QStringLiteral("runTune"), QStringLiteral("&Tune…"), QKeySequence(QStringLiteral("Ctrl+T"))),
          &QAction::triggered, this, [this] {
            showTuneDock();
            m_tune->focusStart();
          });
  QAction* stop = makeAction(QStringLiteral("runStopTune"), QStringLiteral("&Stop tuning"),
                             QKeySequence(QStringLiteral("Ctrl+Shift+Y")));
  stop->setEnabled(false);
  connect(stop, &QAction::triggered, this, &MainWindow::stopTuning);
  m_runMenu->addSeparator();
  m_runMenu->addAction(action(QStringLiteral("runTune")));
  m_runMenu->addAction(stop);
  QAction* toggle = m_tuneDock->toggleViewAction();
  toggle->setObjectName(QStringLiteral("viewToggle_tuneDock"));
  toggle->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+8")));
  addAction(toggle);
  auto* runBar = findChild<QToolBar*>(QStringLiteral("runToolBar"));
  m_viewMenu->insertAction(runBar ? runBar->toggleViewAction() : nullptr, toggle);

  connect(m_tune, &views::TuneView::startRequested, this, [this](bool resume) { startTuning(resume); });
  connect(m_tune, &views::TuneView::stopRequested, this, &MainWindow::stopTuning);
  connect(m_tune, &views::TuneView::candidateActivated, this, [this](int row) { applyTuneCandidate(row); });
  connect(m_tuneJob, &TuneJob::runningChanged, this, [this, stop](bool running) {
    m_tune->setRunning(running);
    stop->setEnabled(running);
  });
  connect(m_tuneJob, &TuneJob::started, this,
          [this](const QString& text) { m_tune->setStatus(QStringLiteral("Tuning %1…").arg(text)); });
  connect(m_tuneJob, &TuneJob::resumed, this, [this](const std::vector<tune::Record>& records) {
    for (const tune::Record& r : records) {
      if (r.ok()) m_tune->setRateUnit(QString::fromUtf8(r.rate().unit));
      m_tune->addCandidate(toRow(r, std::nullopt));
    }
  });
  connect(m_tuneJob, &TuneJob::measured, this, [this](const TuneUpdate& u) {
    if (!u.measuring) {
      m_tune->setRateUnit(QString::fromUtf8(u.progress.bestRate().unit));
      // A candidate the prior ranked (the warm start) has no score of the cost model's.
      const bool byPrior = std::isnan(u.predicted);
      m_tune->addCandidate(toRow(u.record, byPrior ? std::nullopt : std::optional(u.predicted), byPrior));
      m_tune->addTrial(u.record.ok() ? u.record.rate().value : 0, u.progress.bestRate().value);
    }
    if (!m_tuneJob->isStopping())
      m_tune->setProgress(u.progress.trials, u.progress.total, tuneProgressText(u.progress));
  });
  connect(m_tuneJob, &TuneJob::finished, this,
          [this](const TuneOutcome& o) { m_tune->setStatus(summary(o, m_tune->options().records)); });
  // Another program: its candidates do not apply here.
  connect(m_session, &Session::sourceReplaced, this, [this] {
    if (!m_tuneJob->isRunning()) m_tune->setCurrentTarget(m_session->target());
    if (!m_tuneJob->isRunning() && m_tune->model()->rowCount() == 0) return;
    m_tuneJob->discard();
    m_tune->clear();
    m_tune->setStatus(
        QStringLiteral("No search on %1 yet: Start searches for a fast schedule.").arg(m_session->displayName()));
  });
  // The outcome of applying a candidate.
  connect(m_session, &Session::stateChanged, this, [this] {
    if (m_tuneApplying <= 0) return;
    m_tune->setStatus(QStringLiteral("Trial %1's trace is the workbench trace now (%2 step(s)); Undo (Ctrl+Z) "
                                     "restores the previous one.")
                          .arg(m_tuneApplying)
                          .arg(m_session->state() ? m_session->state()->trace->stepCount : 0));
    m_tuneApplying = 0;
  });
  connect(m_session, &Session::primitiveRefused, this, [this](const QString& message) {
    if (m_tuneApplying <= 0) return;
    m_tune->setStatus(QStringLiteral("Trial %1's trace does not apply: %2").arg(m_tuneApplying).arg(message));
    m_tuneApplying = 0;
  });
  connect(m_session->jobs(), &JobRunner::cancelled, this, [this] {
    if (m_tuneApplying <= 0) return;
    m_tune->setStatus(QStringLiteral("Applying trial %1's trace was cancelled: the workbench trace is unchanged.")
                          .arg(m_tuneApplying));
    m_tuneApplying = 0;
  });
}

void MainWindow::showTuneDock() {
  m_tuneDock->show();
  m_tuneDock->raise();
  // The charts need some height: a dock squeezed below it grows (once per showing).
  const int wanted = std::clamp(height() / 3, 290, 380);
  if (!m_tuneDock->isFloating() && m_tuneDock->height() < wanted - 40)
    resizeDocks({m_tuneDock}, {wanted}, Qt::Vertical);
}

bool MainWindow::startTuning(bool resume) {
  showTuneDock();
  const StatePtr& state = m_session->state();
  if (!state) {
    m_tune->setStatus(QStringLiteral("Nothing to tune: the program does not parse."));
    return false;
  }
  if (m_tuneJob->isRunning()) {
    m_tune->setStatus(m_tuneJob->isStopping() ? QStringLiteral("The previous search is still stopping…")
                                              : QStringLiteral("A search is running: stop it first."));
    return false;
  }
  const views::TuneViewOptions o = m_tune->options();
  if (o.target.isEmpty()) {
    m_tune->setStatus(QStringLiteral("No usable target plugin."));
    return false;
  }
  TuneRequest request;
  request.func = state->schedule.original();
  auto sizes = parseSizeBindings(request.func, m_profile->options().sizes.toStdString());
  if (!sizes) {
    m_tune->setStatus(
        QStringLiteral("%1 (the sizes are the Profile dock's)").arg(QString::fromStdString(sizes.error().message)));
    return false;
  }
  request.sizes = *sizes;
  // The settings as `loopscape-cli tune` takes them (the worker's time limit its default).
  tune::TuneSettings& settings = request.settings;
  settings.target = o.target.toStdString();
  settings.strategy = o.strategy.toStdString();
  settings.model = o.model.toStdString();
  settings.trials = o.trials;
  settings.batch = o.batch;
  settings.population = o.population;
  settings.threads = o.threads;
  settings.seed = o.seed;
  settings.timeBudget = o.timeBudget;
  settings.fastMath = o.fastMath;
  settings.warmStart = o.warmStart;
  if (auto checked = tune::makeTuneOptions(settings); !checked) {
    m_tune->setStatus(QString::fromStdString(checked.error().message));
    return false;
  }
  request.recordsPath = o.records.toStdString();
  request.resume = resume;
  // A fresh search, or one on another program, starts with empty charts.
  if (!resume || tune::workloadKey(request.func, request.sizes) != m_tuneJob->workload()) m_tune->clear();
  m_session->setTarget(o.target);
  m_tune->setStatus(QStringLiteral("Starting: loading the target and making the reference inputs…"));
  return m_tuneJob->start(std::move(request));
}

void MainWindow::stopTuning() {
  if (!m_tuneJob->isRunning() || m_tuneJob->isStopping()) return;
  m_tuneJob->stop();
  m_tune->setStopping();
}

bool MainWindow::applyTuneCandidate(int row) {
  if (row < 0 || row >= m_tune->model()->rowCount()) return false;
  const views::TuneRow& r = m_tune->model()->row(row);
  const StatePtr& state = m_session->state();
  if (!state) {
    m_tune->setStatus(QStringLiteral("The program does not parse: no trace can apply."));
    return false;
  }
  if (tune::workloadKey(state->schedule.original(), m_tuneJob->sizes()) != m_tuneJob->workload()) {
    m_tune->setStatus(
        QStringLiteral("Trial %1 was tuned for another version of the program: start a new search.").arg(r.trial));
    return false;
  }
  m_tuneApplying = r.trial;
  m_tune->setStatus(QStringLiteral("Applying trial %1's trace…").arg(r.trial));
  const QString undo = r.ok() ? QStringLiteral("apply tuned trial %1 (%2 %3)")
                                    .arg(r.trial)
                                    .arg(r.rate, 0, 'f', 1)
                                    .arg(m_tune->model()->rateUnit())
                              : QStringLiteral("apply tuned trial %1").arg(r.trial);
  // The record's program is checked once, as the tuner checked it, not after each step.
  tune::Record record;
  record.trial = r.trial;
  record.trace = r.trace;
  record.verified = r.verified;
  m_session->applyTuningRecord(record, undo);
  return true;
}

} // namespace loopscape::gui
