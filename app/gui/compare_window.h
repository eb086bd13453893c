// CompareWindow: two states of the open program side by side (issue 19). Each side is
// chosen by a CompareSpec: the current trace, a step of it, poly_auto's result, a trace
// file, the best record of a tuning log, or the original program. Compare computes both in
// the background (compare_jobs.h) and shows, aligned and linked:
//   - the TensorIR of both with the structural diff marked (core/ir/program_diff: loops
//     and blocks only in A red, only in B green, changed amber, the changes as tooltips);
//   - tabs: the generated code of both for one target (lines only in A / only in B marked
//     from a line diff), the schedule trees' bands paired, every loop's parallelism and
//     the dependences it carries, and the measurements (median ms, GFLOP/s, % of peak,
//     verified; a bar chart), run in the background through a ProfileJob with progress and
//     Cancel.
// Selecting a loop or block on one side selects its match on the other (and its row in the
// loops tables, its lines in the code); scrolling one side scrolls the other to the
// matching place. "Current vs poly_auto" (also Run → Compare with poly_auto) is the
// classic comparison in one click. The window reads the session; it changes nothing in it.
#pragma once

#include "app/gui/compare_jobs.h"
#include "app/gui/profile_jobs.h"

#include <QWidget>

#include <functional>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QTableWidget;
class QToolButton;

namespace loopscape::views {
class CodeHighlighter;
class CompareChart;
class TensorIrView;
} // namespace loopscape::views

namespace loopscape::gui {

class JobRunner;
class Session;

class CompareWindow : public QWidget {
  Q_OBJECT
public:
  explicit CompareWindow(Session* session, QWidget* parent = nullptr);
  ~CompareWindow() override;

  /// Sets both sides' choosers (nothing is computed until compare()).
  void setSpecs(const CompareSpec& a, const CompareSpec& b);
  /// What side A (`first`) or B is set to in its chooser.
  CompareSpec spec(bool first) const;
  /// Computes the comparison of the chosen sides in the background; false (with the
  /// status saying why) when the session has no program.
  bool compare();
  /// The current trace against poly_auto, computed at once.
  bool compareWithPolyAuto();
  /// Measures both sides (A, then B) in the background on the chosen target; false when
  /// there is no comparison or a run is going.
  bool measure();
  /// Stops the comparison or the measurement in progress.
  void cancel();
  bool isBusy() const;
  /// Waits (events processed) until nothing runs; for tests and screenshots.
  bool waitIdle(int timeoutMs = 60000);
  /// The comparison shown (null before the first one arrives).
  const CompareResult* result() const { return m_result.get(); }
  /// The measured rows of A and B of the last measurement (empty before one).
  const std::vector<views::ProfileRow>& measuredRows() const { return m_rows; }

  views::TensorIrView* programView(bool first) const { return first ? m_irA : m_irB; }
  QPlainTextEdit* codeView(bool first) const { return first ? m_codeA : m_codeB; }
  QTableWidget* loopsTable(bool first) const { return first ? m_loopsA : m_loopsB; }
  QTableWidget* pairsTable() const { return m_pairs; }
  QTableWidget* measureTable() const { return m_measureTable; }
  views::CompareChart* chart() const { return m_chart; }
  QTabWidget* tabs() const { return m_tabs; }
  QString status() const;
  /// Picks the tab by name: code, trees, loops, measure.
  bool showTab(const QString& name);

  void setDark(bool dark);
  /// Answers the Browse buttons instead of QFileDialog (tests): title and suggestion in,
  /// the chosen path out ("" = cancelled).
  void setChooseFile(std::function<QString(const QString&, const QString&)> choose) { m_choose = std::move(choose); }
  /// Replaces codegen::machinePeak() for the measurements (tests).
  void setPeakProvider(PeakProvider provider);

Q_SIGNALS:
  /// A comparison arrived and is shown.
  void comparisonReady();
  /// Both sides were measured (or the measurement stopped); measuredRows() has the rows.
  void measurementFinished();
  /// The Export… button: File → Export view of this window (the main window connects it).
  void exportRequested();

private:
  QWidget* makeSideChooser(bool first);
  QWidget* makeCodeTab();
  QWidget* makeLoopsTab();
  QWidget* makeMeasureTab();
  void updateChooser(bool first);
  void browse(bool first);
  void display(std::shared_ptr<const CompareResult> result);
  void showCode();
  void showTrees();
  void showLoops();
  void showMeasurements();
  void applyMarks();
  void onNodeSelected(bool first, int index);
  void syncProgramScroll(bool fromFirst);
  void syncCodeScroll(bool fromFirst);
  void startMeasuring(int side);
  void setBusyUi();
  void setStatus(const QString& text);

  Session* m_session;
  JobRunner* m_jobs;
  ProfileJob* m_profile;
  std::shared_ptr<const CompareResult> m_result;
  std::uint64_t m_generation = 0;
  std::uint64_t m_measureGeneration = 0; ///< the comparison the measurement runs on
  std::vector<views::ProfileRow> m_rows;
  int m_measuring = -1; ///< the side being measured (0 A, 1 B), -1 none
  bool m_syncing = false;
  bool m_dark = false;
  std::function<QString(const QString&, const QString&)> m_choose;

  struct Chooser {
    QComboBox* kind = nullptr;
    QSpinBox* step = nullptr;
    QLineEdit* path = nullptr;
    QToolButton* browse = nullptr;
  } m_choosers[2];
  QPushButton* m_compareButton;
  QPushButton* m_polyButton;
  QLabel* m_status;
  QLabel* m_titleA;
  QLabel* m_titleB;
  views::TensorIrView* m_irA;
  views::TensorIrView* m_irB;
  QSplitter* m_vertical;
  QTabWidget* m_tabs;
  QComboBox* m_target;
  QPlainTextEdit* m_codeA;
  QPlainTextEdit* m_codeB;
  QLabel* m_codeStatus;
  views::CodeHighlighter* m_highlightA;
  views::CodeHighlighter* m_highlightB;
  QTableWidget* m_pairs;
  QLabel* m_treeStatus;
  QTableWidget* m_loopsA;
  QTableWidget* m_loopsB;
  QLabel* m_loopsSummaryA;
  QLabel* m_loopsSummaryB;
  QLineEdit* m_sizes;
  QSpinBox* m_repeat;
  QPushButton* m_measureButton;
  QPushButton* m_cancelButton;
  QLabel* m_measureStatus;
  QTableWidget* m_measureTable;
  views::CompareChart* m_chart;
};

} // namespace loopscape::gui
