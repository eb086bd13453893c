#include "app/gui/job_runner.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

namespace loopscape::gui {

JobRunner::JobRunner(QObject* parent) : QObject(parent) { setObjectName(QStringLiteral("jobRunner")); }

JobRunner::~JobRunner() {
  cancelAll();
  // Results of running jobs refer to nothing of ours once dropped, but let the pool
  // finish them before the watchers go away.
  waitForIdle(10000);
}

void JobRunner::cancelAll() {
  for (const auto& stop : m_stops) stop->request_stop();
}

bool JobRunner::waitForIdle(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (m_active > 0) {
    if (timer.elapsed() > timeoutMs) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if (m_active > 0) QThread::msleep(2);
  }
  return true;
}

void JobRunner::jobStarted(const QString& label) {
  if (m_active++ == 0) Q_EMIT busyChanged(true);
  Q_EMIT started(label);
}

void JobRunner::jobFinished() {
  if (--m_active == 0) Q_EMIT busyChanged(false);
}

} // namespace loopscape::gui
