// MainWindow: the profile dock. Run → Profile current state (Ctrl+R) hands the current
// state (or, while the TensorIR view shows a trace step, that step's program; or with Run
// original the program before any step) and the profile view's options to the ProfileJob; its progress and its row come
// back to the view. One run at a time; Cancel (the view's button or Ctrl+Shift+R) stops it at the next stage and leaves
// a "cancelled" row.
#include "app/gui/main_window.h"

#include "views/profile_view.h"
#include "views/tensorir_view.h"

#include <QAction>
#include <QDockWidget>
#include <QStatusBar>

namespace loopscape::gui {

void MainWindow::wireProfile() {
  connect(m_profile, &views::ProfileView::runRequested, this, [this] { profileCurrentState(); });
  connect(m_profile, &views::ProfileView::originalRequested, this, [this] { profileCurrentState(true); });
  connect(m_profile, &views::ProfileView::cancelRequested, m_profileJob, &ProfileJob::cancel);
  connect(m_profileJob, &ProfileJob::runningChanged, this, [this](bool running) {
    m_profile->setRunning(running);
    action(QStringLiteral("runCancelProfile"))->setEnabled(running);
    action(QStringLiteral("runProfile"))->setEnabled(!running);
  });
  connect(m_profileJob, &ProfileJob::progress, m_profile, &views::ProfileView::setProgress);
  connect(m_profileJob, &ProfileJob::finished, this, [this](const views::ProfileRow& row) {
    QString text = QStringLiteral("%1 on %2: %3")
                       .arg(QString::fromStdString(row.stepLabel), QString::fromStdString(row.target),
                            QString::fromStdString(row.message));
    if (row.timed())
      text += QStringLiteral(" · median %1 ms · %2 GFLOP/s").arg(row.medianMs, 0, 'g', 4).arg(row.gflops, 0, 'f', 2);
    m_profile->setStatus(text);
    m_profile->addRow(row);
  });
}

bool MainWindow::profileCurrentState(bool original) {
  const StatePtr& state = m_session->state();
  m_profileDock->show();
  m_profileDock->raise();
  if (!state) {
    m_profile->setStatus(QStringLiteral("Nothing to profile: the program does not parse."));
    return false;
  }
  if (m_profileJob->isRunning()) return false;
  const views::ProfileOptions options = m_profile->options();
  if (options.target.isEmpty()) {
    m_profile->setStatus(QStringLiteral("No usable target plugin."));
    return false;
  }
  ProfileRequest request;
  request.original = state->schedule.original();
  request.scheduled = state->schedule.func();
  request.step = state->trace->stepCount;
  request.stepLabel = "original";
  if (request.step > 0 && !state->trace->rows.empty())
    request.stepLabel = std::to_string(request.step) + " · " + state->trace->rows.back().kind;
  if (original) {
    request.scheduled = request.original;
    request.step = 0;
    request.stepLabel = "original";
  } else if (m_previewing && m_tensorIr->snapshot()) {
    // While the TensorIR view shows a trace step, that step is what is measured.
    request.scheduled = m_tensorIr->snapshot()->func;
    request.step = 0;
    request.stepLabel = "original";
    if (m_previewRow >= 0 && m_previewRow < static_cast<int>(state->trace->rows.size())) {
      const views::TraceRow& row = state->trace->rows[m_previewRow];
      request.step = row.step;
      request.stepLabel = std::to_string(row.step) + " · " + row.kind;
    }
  }
  request.target = options.target.toStdString();
  request.repeat = options.repeat;
  request.verify = options.verify;
  request.sizes = options.sizes.toStdString();
  m_session->setTarget(options.target);
  m_profile->setStatus(
      QStringLiteral("Profiling %1 on %2…").arg(QString::fromStdString(request.stepLabel), options.target));
  return m_profileJob->start(std::move(request));
}

} // namespace loopscape::gui
