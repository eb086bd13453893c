// ProfileView: runs, verifies and times the current state (the profile job does the work
// in the background; see app/gui/profile_jobs.h) and compares the measured states. A
// bar of options (target plugin, repeat count, verify, symbolic sizes), Run and Cancel
// buttons with a progress bar naming the stage (compiling, verifying, timing repeat i/N),
// the table of measured states (ProfileModel) and a bar chart (Qt Charts, horizontal
// bars, the first row on top) of their GFLOP/s labelled by trace step and target, and
// beside it, on a second tab ("Bars | Roofline"), their roofline plot (roofline_chart.h).
// The view only reports what the user asked for.
#pragma once

#include "views/code_view.h"
#include "views/profile_model.h"
#include "views/roofline_chart.h"

#include <QWidget>

class QChart;
class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QTabWidget;

namespace loopscape::views {

struct ProfileOptions {
  QString target;
  int repeat = 5;
  bool verify = true;
  QString sizes; ///< "n=64 m=8": values of the program's symbolic sizes
};

class ProfileView : public QWidget {
  Q_OBJECT
public:
  explicit ProfileView(QWidget* parent = nullptr);

  ProfileModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  QChart* chart() const { return m_chart; }
  QChartView* chartView() const { return m_chartView; }
  RooflineChart* roofline() const { return m_roofline; }
  /// The "Bars" and "Roofline" tabs (objectName profileCharts).
  QTabWidget* chartTabs() const { return m_chartTabs; }
  /// Brings the roofline (true) or the bar chart (false) to the front.
  void showRoofline(bool roofline);

  /// The plugins found; disabled ones are listed greyed out with the reason.
  void setTargets(const std::vector<TargetEntry>& targets);
  void setCurrentTarget(const QString& name);
  ProfileOptions options() const;
  void setOptions(const ProfileOptions& options);

  /// Running: Run disabled, Cancel enabled, the progress bar shown.
  void setRunning(bool running);
  bool isRunning() const { return m_running; }
  /// The stage of the run in progress ("timing repeat 2/5"), `done` of `total` stages.
  void setProgress(const QString& stage, int done, int total);
  /// The status line (the last result, or why nothing can run).
  void setStatus(const QString& text);
  QString status() const;
  /// Appends a measured state of the current program to the table and the chart.
  void addRow(ProfileRow row);
  /// The program whose runs are shown: `key` identifies it (its absolute path), `name`
  /// is what the view calls it. The rows of the previous program are put aside and come
  /// back when it is shown again; the status says whose runs these are.
  void setProgram(const QString& key, const QString& name);
  QString programName() const { return m_programName; }
  /// Replaces the current program's rows with `rows` (a session's saved runs).
  void restoreRows(std::vector<ProfileRow> rows);
  void setDark(bool dark);

Q_SIGNALS:
  void runRequested();
  /// Profile the original program (step 0), whatever the current step.
  void originalRequested();
  void cancelRequested();

private:
  void rebuildChart();

  ProfileModel* m_model;
  std::vector<TargetEntry> m_targets;
  QComboBox* m_target;
  QSpinBox* m_repeat;
  QCheckBox* m_verify;
  QLineEdit* m_sizes;
  QPushButton* m_run;
  QPushButton* m_cancel;
  QPushButton* m_clear;
  QPushButton* m_original;
  QString m_programKey, m_programName;
  std::map<QString, std::vector<ProfileRow>> m_otherPrograms; ///< rows put aside by setProgram
  QProgressBar* m_progress;
  QLabel* m_status;
  QTableView* m_table;
  QChart* m_chart;
  QChartView* m_chartView;
  RooflineChart* m_roofline;
  QTabWidget* m_chartTabs;
  bool m_running = false;
  bool m_dark = false;
};

} // namespace loopscape::views
