// JobRunner: runs heavy work (parsing, trace replay, printing, primitive application) off
// the GUI thread through QtConcurrent and delivers the result back on the GUI thread.
// Work functions are plain C++: they get a std::stop_token (cancellation) and a progress
// callback (done, total), never a Qt type. Callers keep a generation id per kind of job
// and drop results that are stale when they arrive; the runner only tracks how many jobs
// are in flight (busy) and forwards progress to the status bar.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>

#include <functional>
#include <memory>
#include <stop_token>

namespace loopscape::gui {

using ProgressFn = std::function<void(int done, int total)>;

/// Whether the user's Cancel stops a job: the work they asked for (parsing, a primitive,
/// code generation) does; the work that completes what the views show (the dependence
/// facts of the current state, the plugin scan) only stops on shutdown.
enum class JobCancel { ByUser, OnShutdown };

class JobRunner : public QObject {
  Q_OBJECT
public:
  explicit JobRunner(QObject* parent = nullptr);
  ~JobRunner() override;

  /// Runs `work` on the thread pool; `done` runs on this object's thread with the result
  /// unless the job was cancelled.
  template <typename R>
  void run(const QString& label, std::function<R(std::stop_token, const ProgressFn&)> work,
           std::function<void(R)> done, JobCancel cancel = JobCancel::ByUser) {
    auto stop = std::make_shared<std::stop_source>();
    m_stops.push_back(stop);
    if (cancel == JobCancel::OnShutdown) m_shutdownOnly.push_back(stop);
    auto* watcher = new QFutureWatcher<std::shared_ptr<R>>(this);
    m_watchers.push_back(watcher);
    jobStarted(label);
    QPointer<JobRunner> self(this);
    ProgressFn progress = [self, label](int d, int t) {
      QMetaObject::invokeMethod(
          self.data(), [self, label, d, t] { if (self) Q_EMIT self->progress(label, d, t); }, Qt::QueuedConnection);
    };
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, stop, done = std::move(done)] {
      std::erase(m_stops, stop);
      std::erase(m_shutdownOnly, stop);
      std::erase(m_watchers, watcher);
      std::shared_ptr<R> result = watcher->result();
      watcher->deleteLater();
      if (!stop->stop_requested() && result) done(std::move(*result));
      jobFinished();
    });
    watcher->setFuture(QtConcurrent::run([work = std::move(work), token = stop->get_token(), progress] {
      return std::make_shared<R>(work(token, progress));
    }));
  }

  bool busy() const { return m_active > 0; }
  int activeJobs() const { return m_active; }
  /// Requests every running job the user may cancel (JobCancel::ByUser) to stop; their
  /// results are dropped. Emits cancelled() when there was one.
  void cancelAll();
  /// Waits (processing events) until no job is in flight; for tests and screenshots.
  bool waitForIdle(int timeoutMs);
  /// Cancels every job and blocks until the pool has finished them, without processing
  /// events and without delivering results: for destructors.
  void shutdown();

Q_SIGNALS:
  void busyChanged(bool busy);
  void progress(const QString& label, int done, int total);
  void started(const QString& label);
  /// cancelAll stopped at least one job: whoever waited for a result will not get it.
  void cancelled();

private:
  void jobStarted(const QString& label);
  void jobFinished();
  int m_active = 0;
  std::vector<std::shared_ptr<std::stop_source>> m_stops;
  std::vector<std::shared_ptr<std::stop_source>> m_shutdownOnly; ///< JobCancel::OnShutdown
  std::vector<QFutureWatcherBase*> m_watchers;
};

} // namespace loopscape::gui
