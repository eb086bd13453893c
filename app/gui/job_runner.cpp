#include "app/gui/job_runner.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

#include <algorithm>

namespace loopscape::gui {

JobRunner::JobRunner(QObject* parent) : QObject(parent) { setObjectName(QStringLiteral("jobRunner")); }

JobRunner::~JobRunner() { shutdown(); }

void JobRunner::shutdown() {
  for (const auto& stop : m_stops) stop->request_stop();
  for (QFutureWatcherBase* w : m_watchers) {
    w->disconnect(this);
    w->waitForFinished();
  }
  m_watchers.clear();
  if (m_active > 0) {
    m_active = 0;
    Q_EMIT busyChanged(false);
  }
}

void JobRunner::cancelAll() {
  bool any = false;
  for (const auto& stop : m_stops) {
    if (std::ranges::find(m_shutdownOnly, stop) != m_shutdownOnly.end() || stop->stop_requested()) continue;
    stop->request_stop();
    any = true;
  }
  if (any) Q_EMIT cancelled();
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
