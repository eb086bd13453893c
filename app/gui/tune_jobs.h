// Tuning for the Tune view: the auto-scheduler (core/tune/search.h) run on one program and
// target in the background, as `loopscape-cli tune` runs it (LocalMeasurer: candidates
// built with the target plugin and timed in the isolated worker; the cost model chosen;
// records appended to a log when one is given), from the same settings (tune_settings.h).
//
// TuneJob drives one search at a time from the GUI thread. The search runs on a thread of
// its own (it lasts minutes: it must not hold one of the pool threads the session's short
// jobs run on). Each measured candidate comes back to the GUI thread as a TuneUpdate (a
// copy of its Record: TuneProgress::last is only valid during the search's callback),
// through a queued call; then the TuneOutcome. Every run has a generation id: a discarded
// run's late updates and outcome are dropped. stop() only requests the stop and returns:
// the search ends after the candidate being measured (its worker is killed) and still
// delivers its outcome, with every record measured so far (and written to the log).
//
// The job keeps the records of the workload it last tuned (this window's runs, and the
// log's records a resumed run read): a resumed search starts from them.
#pragma once

#include "core/ir/interpreter.h"
#include "core/ir/prim_func.h"
#include "core/tune/records.h"
#include "core/tune/search.h"
#include "core/tune/tune_settings.h"

#include <QObject>
#include <QString>

#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace loopscape::gui {

struct TuneRequest {
  ir::PrimFunc func;      ///< the original program (candidates' traces apply to it)
  ir::SizeBindings sizes; ///< values of its symbolic sizes
  /// Target, strategy, cost model, trials, batch, population, threads, seed, time budget,
  /// time limit, fast-math: turned into the search's options as `loopscape-cli tune`'s
  /// flags are (tune_settings.h).
  tune::TuneSettings settings;
  std::string recordsPath; ///< "" for none: every measurement is appended to it
  /// Continue from earlier records: the job's (this window's runs on the workload) and,
  /// with a log, the log's. A fresh search (false) starts from nothing.
  bool resume = false;
  double minRepeatMs = 50; ///< least duration of one timed repeat
};

/// One measured candidate: at once the progress alone (`measuring`), at the end of its
/// batch its record (TuneProgress::last).
struct TuneUpdate {
  tune::TuneProgress progress; ///< `last` is null here: the candidate is `record`
  bool measuring = false;      ///< no record yet: `record` is empty
  tune::Record record;
  double predicted = 0; ///< the cost model's score before it was measured (NaN: ranked by the prior)
};

struct TuneOutcome {
  bool ok = false;
  QString error; ///< why the search could not run (rendered diagnostic) when !ok
  bool stopped = false;
  bool budgetSpent = false; ///< stopped by the time budget, not by the user
  /// Ended before its trials: three rounds in a row drew no candidate that was not
  /// measured before (TuneResult::exhausted).
  bool exhausted = false;
  std::optional<tune::Record> best;
  int measured = 0;
  int errors = 0;
  std::map<std::string, int> dropped; ///< reason -> candidates dropped before measuring
  std::map<std::string, int> legalityUnknown; ///< TuneResult::legalityUnknown
  QString model;
  /// The model's rank correlation with the measured GFLOP/s on candidates it had not seen,
  /// over `modelSamples` of them (0: too few to say).
  double modelCorrelation = 0;
  int modelSamples = 0;
  /// The options the search ran with (from the request's settings).
  tune::TuneOptions options;
  QString description; ///< "main on cpu-llvm (1 thread), strategy mixed, model xgb, population 64, seed 1"
  /// What became of the cost model kept beside the log (model_file.h): loaded by a
  /// resumed search, saved at the end; empty without a log.
  QString modelFile;
};

/// The facts of the CLI's progress line: "3/10 trials · best 12.3 GFLOP/s (14 steps, tir) ·
/// 1.20 trials/s · 0 errors · ETA 0m05s".
QString tuneProgressText(const tune::TuneProgress& p);

/// Runs one search (plain C++; the job's thread calls it). `started` gets the description
/// once the measurer is ready, `resumed` the log's records the search starts from beyond
/// `previous`, `measured` each candidate.
TuneOutcome runTuneSearch(const TuneRequest& request, std::vector<tune::Record> previous, std::stop_token stop,
                          const std::function<void(const QString&)>& started,
                          const std::function<void(std::vector<tune::Record>)>& resumed,
                          const std::function<void(TuneUpdate)>& measured);

class TuneJob : public QObject {
  Q_OBJECT
public:
  explicit TuneJob(QObject* parent = nullptr);
  /// Stops a search in progress and waits for it (nothing more is delivered).
  ~TuneJob() override;

  /// Starts `request` in the background; false (nothing started) while a search, or a
  /// stopped one that has not ended yet, is going.
  bool start(TuneRequest request);
  /// Asks the search to stop after the candidate being measured; it still delivers.
  void stop();
  /// Stops the search and drops what it would still deliver; forgets the records.
  void discard();
  bool isRunning() const { return m_running; }
  bool isStopping() const { return m_running && m_stop.stop_requested(); }
  /// Waits (processing events) until no search runs; for tests and screenshots.
  bool waitForIdle(int timeoutMs);

  /// The workload key of the program last tuned (records.h), and its size bindings.
  const std::string& workload() const { return m_workload; }
  const ir::SizeBindings& sizes() const { return m_sizes; }
  /// The records of that workload known to the job, in the order they arrived.
  const std::vector<tune::Record>& records() const { return m_records; }
  std::uint64_t generation() const { return m_generation; }

Q_SIGNALS:
  void runningChanged(bool running);
  /// The measurer is ready and the search begins.
  void started(const QString& description);
  /// Earlier records of the workload read from the log by a resumed search.
  void resumed(const std::vector<loopscape::tune::Record>& records);
  void measured(const loopscape::gui::TuneUpdate& update);
  void finished(const loopscape::gui::TuneOutcome& outcome);

private:
  void onFinished(std::uint64_t generation, const TuneOutcome& outcome);

  bool m_running = false;
  std::uint64_t m_generation = 0;
  std::stop_source m_stop;
  std::thread m_thread;
  std::string m_workload;
  ir::SizeBindings m_sizes;
  std::vector<tune::Record> m_records;
};

} // namespace loopscape::gui
