// TuneView: the auto-scheduler's dock (the search runs in the background: see
// app/gui/tune_jobs.h). A bar of options, the flags of `loopscape-cli tune` (target
// plugin, strategy, cost model, trials, batch, population, threads, seed, time budget,
// fast-math, an optional records log), wrapping onto as many rows as the dock's width
// needs, with Start (a fresh search), Resume (continue from the candidates measured so
// far and the log's) and Stop; a progress bar and a status line with the facts of the
// CLI's progress line; the table of the measured candidates, fastest first (TuneModel); a
// chart of the best GFLOP/s (GB/s for a program without floating-point work) against
// trials (each trial a dot) and a scatter of the cost model's prediction against the
// measured rate, TIR and poly candidates apart (empty, and its axis says why, while the
// prior ranks the first batch).
// Double-clicking a candidate (or Apply) asks to make its trace the workbench trace. The
// view only reports what the user asked for.
#pragma once

#include "views/code_view.h"
#include "views/tune_model.h"

#include <QWidget>

class QChart;
class QChartView;
class QCheckBox;
class QComboBox;
class QLineEdit;
class QLineSeries;
class QLabel;
class QProgressBar;
class QPushButton;
class QScatterSeries;
class QSpinBox;
class QTableView;
class QTimer;
class QToolButton;
class QValueAxis;

namespace loopscape::views {

/// The dock's options; the defaults are `loopscape-cli tune`'s.
struct TuneViewOptions {
  QString target;
  QString strategy = QStringLiteral("mixed"); ///< evolutionary, annealing, poly, mixed, random
  QString model = QStringLiteral("xgb");      ///< the cost model: xgb, prior, random
  int trials = 64;
  int batch = 16;
  int population = 64;   ///< candidates evolved per round
  int threads = 0;       ///< 0: all cores
  quint64 seed = 1;      ///< the search's and the cost model's
  double timeBudget = 0; ///< seconds; 0: no limit
  bool fastMath = false;
  bool warmStart = true; ///< the first batch ranked by the prior (`loopscape-cli tune --no-prior`: false)
  QString records; ///< the log; "" for none
};

class TuneView : public QWidget {
  Q_OBJECT
public:
  explicit TuneView(QWidget* parent = nullptr);

  TuneModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  QChart* curveChart() const { return m_curveChart; }
  QChart* scatterChart() const { return m_scatterChart; }
  /// Best rate against trials: a step at each trial that found a better one.
  QLineSeries* curveSeries() const { return m_best; }
  /// Trials on the curve.
  int curveTrials() const { return m_curveTrials; }
  /// Points of the prediction scatter (both families).
  int scatterPointCount() const;

  /// The plugins found; disabled ones are listed greyed out with the reason.
  void setTargets(const std::vector<TargetEntry>& targets);
  void setCurrentTarget(const QString& name);
  TuneViewOptions options() const;
  void setOptions(const TuneViewOptions& options);

  /// Running: Start and Resume disabled, Stop enabled, the progress bar shown.
  void setRunning(bool running);
  bool isRunning() const { return m_running; }
  /// Gives the keyboard focus to Start (Run → Tune…).
  void focusStart();
  /// `stopping`: Stop was pressed, the candidate being measured is finishing.
  void setStopping();
  /// Trials measured of the run, with the progress line's text.
  void setProgress(int done, int total, const QString& text);
  void setStatus(const QString& text);
  QString status() const;

  /// Forgets every candidate and empties the charts (a fresh search or another program).
  void clear();
  /// A measured candidate: a table row and, when it ran and was predicted, a scatter point.
  void addCandidate(TuneRow row);
  /// The next trial of the curve: its measured rate (0 when it failed) and the best so far.
  void addTrial(double rate, double bestRate);
  /// "GFLOP/s" (the default, and after clear()) or "GB/s" for a program without
  /// floating-point work: the unit of the rows' and the trials' rates, in the titles.
  void setRateUnit(const QString& unit);
  void setDark(bool dark);

Q_SIGNALS:
  /// Start (`resume` false) or Resume (true).
  void startRequested(bool resume);
  void stopRequested();
  /// Make the trace of the candidate in model row `row` the workbench trace.
  void candidateActivated(int row);

protected:
  void resizeEvent(QResizeEvent* event) override;

private:
  void updateButtons();
  void styleCharts();

  TuneModel* m_model;
  std::vector<TargetEntry> m_targets;
  QWidget* m_bar; ///< the options, the records log and the buttons (a FlowLayout)
  QComboBox* m_target;
  QComboBox* m_strategy;
  QComboBox* m_costModel;
  QSpinBox* m_trials;
  QSpinBox* m_batch;
  QSpinBox* m_population;
  QSpinBox* m_threads;
  QSpinBox* m_seed;
  QSpinBox* m_timeBudget;
  QCheckBox* m_fastMath;
  QCheckBox* m_warmStart;
  QLineEdit* m_records;
  QToolButton* m_browse;
  QPushButton* m_start;
  QPushButton* m_resume;
  QPushButton* m_stop;
  QPushButton* m_apply;
  QProgressBar* m_progress;
  QLabel* m_status;
  QTableView* m_table;
  /// Fits the columns to their cells once the rows that arrived together are in.
  QTimer* m_fitColumns;
  QChart* m_curveChart;
  QChart* m_scatterChart;
  QChartView* m_curveView;
  QChartView* m_scatterView;
  QLineSeries* m_best;
  QScatterSeries* m_trialsSeries;
  QScatterSeries* m_tirPoints;
  QScatterSeries* m_polyPoints;
  QValueAxis* m_curveX;
  QValueAxis* m_curveY;
  QValueAxis* m_scatterX;
  QValueAxis* m_scatterY;
  int m_curveTrials = 0;
  double m_curveTop = 0;
  double m_predictedMin = 0, m_predictedMax = 0, m_measuredTop = 0;
  bool m_havePrediction = false;
  int m_priorRanked = 0; ///< candidates measured that the prior ranked
  bool m_running = false;
  bool m_dark = false;
};

} // namespace loopscape::views
