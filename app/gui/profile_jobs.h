// Profiling for the profile view: compile the current state with a target plugin, run it
// in the isolated loopscape-worker (a crash or a time-out is an error row, never a crash
// of the workbench), verify its outputs against the reference, time it, and express the
// median as GFLOP/s and percent of this machine's peak, with the modeled traffic of the
// compiled kernel (core/codegen/traffic_model.h) for the roofline. Every stage goes
// through the codegen pipeline (core/codegen/pipeline.h); this file turns its results
// into a row.
//
// runProfile is plain C++ run in a background thread: it gets a std::stop_token and
// reports its stage through a callback. Its stages, in order, are compiling, verifying
// (when asked) and timing repeat 1..N; the peak is read last (codegen::machinePeak: cached
// per machine, measured once, about a second, the first time). Each repeat is one worker
// run (one warm-up call, then `number` timed calls, `number` chosen by the first repeat to
// last at least minRepeatMs). A stop request reaches every stage (the compiler and the
// worker are killed, the interpreter stops in its loops), and the result is a row saying
// "cancelled" and when ("cancelled while compiling", "... while verifying", "... after 2
// of 40 timing repeats").
//
// ProfileJob drives one run at a time from the GUI thread: progress and the finished row
// arrive as signals on the GUI thread; a cancelled run still delivers its row.
#pragma once

#include "core/codegen/machine_peak.h"
#include "core/ir/diagnostic.h"
#include "core/ir/interpreter.h"
#include "core/ir/prim_func.h"
#include "views/profile_model.h"

#include <QFutureWatcher>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

namespace loopscape::gui {

/// Where the machine's peak comes from; returning nullopt leaves "% of peak" empty.
using PeakProvider = std::function<std::optional<codegen::MachinePeak>()>;

struct ProfileRequest {
  ir::PrimFunc original;  ///< the unscheduled program: the reference and the useful work
  ir::PrimFunc scheduled; ///< the state to measure
  int step = 0;           ///< its trace step (0: the original program)
  std::string stepLabel;  ///< "original", "3 · split"
  std::string target;     ///< plugin name
  std::string sizes;      ///< "n=64 m=8": values of the symbolic sizes
  int repeat = 5;
  bool verify = true;
  double minRepeatMs = 100;    ///< least duration of one repeat
  double timeoutSeconds = 10;  ///< limit of each worker run
  double interpretLimit = 2e7; ///< above: the compiled unscheduled program is the reference
  std::uint64_t seed = 0;
  PeakProvider peak; ///< empty: codegen::machinePeak()
  /// The cache of the modeled traffic (core/codegen/traffic_model.h); 0: this core's L2.
  std::int64_t trafficCacheBytes = 0;
};

/// Stage `done` of `total` (as ProgressFn reports them): 0 compiling, 1 verifying,
/// 2 + i timing repeat i + 1 of total - 2, total reading the peak.
std::string profileStageText(int done, int total);

/// Bindings of the symbolic sizes of `func` from "n=64, m=8"; every size must be bound.
Expected<ir::SizeBindings> parseSizeBindings(const ir::PrimFunc& func, const std::string& text);

/// Compiles, verifies and times `request.scheduled`; see the file comment.
views::ProfileRow runProfile(const ProfileRequest& request, std::stop_token stop,
                             const std::function<void(int done, int total)>& progress);

class ProfileJob : public QObject {
  Q_OBJECT
public:
  explicit ProfileJob(QObject* parent = nullptr);
  /// Stops a run in progress and waits for it (its row is not delivered).
  ~ProfileJob() override;

  /// Starts `request` in the background; false (nothing started) while a run is going.
  bool start(ProfileRequest request);
  /// Asks the run to stop; it delivers a "cancelled" row at its next stage boundary.
  void cancel();
  bool isRunning() const { return m_running; }
  /// Waits (processing events) until no run is in progress; for tests and screenshots.
  bool waitForIdle(int timeoutMs);
  /// Replaces codegen::machinePeak() for the requests that have no provider (tests).
  void setPeakProvider(PeakProvider provider) { m_peak = std::move(provider); }

Q_SIGNALS:
  void runningChanged(bool running);
  /// The run reached stage `done` of `total` (see profileStageText).
  void progress(const QString& stage, int done, int total);
  void finished(const loopscape::views::ProfileRow& row);

private:
  bool m_running = false;
  std::shared_ptr<std::stop_source> m_stop;
  QFutureWatcher<views::ProfileRow>* m_watcher = nullptr;
  PeakProvider m_peak;
};

} // namespace loopscape::gui
