// MainWindow: the workbench window. The TensorIR view is the central widget; the program
// editor, the primitive panel, the trace and the diagnostics are docks (each with an
// objectName, so the layout saved with saveState/restoreState under kStateVersion comes
// back). Menus hold every action, with shortcuts: File (open, samples, recent files,
// sessions, the program file, traces, kernel and TVM script exports, export of the focused
// view as PNG or SVG: view_export.h), Edit (undo/redo,
// copy trace as TVM Python), Schedule (apply, each primitive), Run (profile the current
// state, cancel; tune, stop tuning), View (docks, theme, reset layout), Help (user guide,
// keyboard shortcuts, samples, about).
// The profile dock runs, verifies and times states through a ProfileJob (profile_jobs.h);
// the tune dock searches for fast schedules through a TuneJob (tune_jobs.h). The Model
// dock (main_window_model.cpp) shows a Relay model's graph and groups, opens a clicked
// group in the workbench, and compiles, runs and times the whole model (Run → Profile model).
//
// The window owns the Session (all core state) and the views; it only wires them:
// session results → views, view events → session operations. Nothing heavy runs here.
#pragma once

#include "app/gui/profile_jobs.h"
#include "app/gui/session.h"

#include <QMainWindow>

#include <functional>
#include <memory>
#include <stop_token>

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QToolButton;

namespace loopscape::views {
class CodeView;
class ModelView;
class DiagnosticsView;
class IterationSpaceView;
class PrimitivePanel;
class ProfileView;
class ProgramEditor;
class ScheduleTreeView;
class StatusLabel;
class TensorIrView;
class TraceView;
class TuneView;
} // namespace loopscape::views

namespace loopscape::gui {

class CompareWindow;
struct CompareSpec;
class TuneJob;
struct SpaceJobResult;

struct MainWindowOptions {
  /// Never show modal questions (screenshots, tests): unsaved changes are kept in the
  /// recovery file instead of asking, and no recovery is offered at start.
  bool noPrompts = false;
  /// Read and write the window layout and personal settings (off in tests).
  bool persistSettings = true;
  /// Answers the file dialogs of the File menu's program and export actions instead of
  /// QFileDialog (tests): gets the dialog's title and suggested path, returns the chosen
  /// path ("" = cancelled).
  std::function<QString(const QString& title, const QString& suggestion)> chooseFile;
};

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  static constexpr int kStateVersion = 6; ///< bumped when the set of docks changes
  explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  Session* session() const { return m_session; }
  views::ProgramEditor* editor() const { return m_editor; }
  views::TensorIrView* tensorIrView() const { return m_tensorIr; }
  views::PrimitivePanel* primitivePanel() const { return m_panel; }
  views::TraceView* traceView() const { return m_trace; }
  views::DiagnosticsView* diagnosticsView() const { return m_diagnostics; }
  views::CodeView* codeView() const { return m_code; }
  views::ScheduleTreeView* scheduleTreeView() const { return m_scheduleTree; }
  views::ProfileView* profileView() const { return m_profile; }
  ProfileJob* profileJob() const { return m_profileJob; }
  views::TuneView* tuneView() const { return m_tune; }
  TuneJob* tuneJob() const { return m_tuneJob; }
  views::ModelView* modelView() const { return m_model; }
  views::IterationSpaceView* iterationSpaceView() const { return m_space; }
  /// Shows the iteration space under `request`'s step, before it is applied (the Preview
  /// buttons); false when it is not for the current program (main_window_space.cpp).
  bool previewStep(const views::PrimitiveRequest& request);
  /// Compiles and runs the session's model with its model schedule in the background
  /// (Run → Profile model) on the Profile dock's target; the Model dock's table and chart
  /// show the per-group times. False when there is no model or a run is going.
  bool profileModel();
  bool isProfilingModel() const { return m_modelProfiling; }
  /// File → Save model schedule / Open model schedule.
  bool saveModelScheduleTo(const QString& path);
  bool openModelScheduleFrom(const QString& path);
  /// The Compare window (main_window_compare.cpp), made on first use.
  CompareWindow* compareWindow();
  /// Shows the Compare window on sides `a` and `b` and starts computing them; false when
  /// there is nothing to compare.
  bool openComparison(const CompareSpec& a, const CompareSpec& b);
  /// The Compare window shown at the window's size with a comparison (the last one, else
  /// the sides chosen in it, current trace against poly_auto at first), waited for: what
  /// File → Export view and --export-view compare draw.
  CompareWindow* prepareCompareExport();
  /// Actions by objectName (for tests and the menus).
  QAction* action(const QString& objectName) const;

  /// Opens a .te or .lsproj file; shows a message box on error unless noPrompts, and
  /// says why in `error` when given.
  /// Opens a program or session file; `function` picks a TVMScript module's function.
  bool openPath(const QString& path, QString* error = nullptr, const QString& function = {});
  bool loadTracePath(const QString& path);
  bool saveSessionTo(const QString& path);
  /// Writes the program editor's text to `path` (File → Save program); the session's
  /// program file becomes `path`. Refuses a path inside samplesDir().
  bool saveProgramTo(const QString& path);
  /// Exports the current state's kernel (kernel.c, kernel.h, libkernel.so, README.txt) into
  /// `dir` with the session's target, in the background; the status bar and Diagnostics
  /// say how it went. False when there is no program.
  bool exportKernelTo(const QString& dir);
  /// Writes the runnable TVM script of the original program and the trace
  /// (core/schedule/tvm_script_export.h) to `path`.
  bool exportTvmScriptTo(const QString& path);
  /// Where the File menu's dialogs start: the last folder used, else the user's Documents;
  /// never the samples directory.
  QString fileDialogStartDir() const;
  /// Whether `path` is inside samplesDir() (never written to).
  static bool isInSamplesDir(const QString& path);
  /// Profiles the current state (the shown trace step while previewing one), or with
  /// `original` the program before any step, with the profile view's options (Run →
  /// Profile); false when there is no program or a profile run is already going.
  bool profileCurrentState(bool original = false);
  /// Starts a search on the session's original program with the tune dock's options (the
  /// dock's Start, or Resume with `resume`); false when there is no program, a search is
  /// going or the options are unusable (the dock's status says why).
  bool startTuning(bool resume = false);
  /// Asks the search to stop after the candidate being measured.
  void stopTuning();
  /// Replaces the workbench trace by the trace of the tune table's row `row`, as one undo
  /// step (asynchronous, as loading a trace); false when it cannot apply here.
  bool applyTuneCandidate(int row);
  /// Waits for background jobs and a profile run (events processed). For tests,
  /// screenshots, shutdown.
  bool waitIdle(int timeoutMs = 30000);
  /// Offers to restore the recovery file if it is newer than the last clean exit.
  void offerRecovery();
  void setDarkTheme(bool dark);
  bool isDarkTheme() const { return m_dark; }
  /// Directory of the sample programs (install share dir, else the source tree).
  static QString samplesDir();
  /// Whether the TensorIR view shows a trace step instead of the current state.
  bool isPreviewing() const { return m_previewing; }

protected:
  void closeEvent(QCloseEvent* event) override;

private:
  void createViews();
  void createDocks();
  void createActions();
  void createMenus();
  void createStatusBar();
  void wireSession();
  void onStateChanged();
  /// The current state's dependence facts arrived: the views take the analysed snapshot
  /// (same text and nodes; selection kept).
  void onAnalysisReady();
  void onNodeClicked(int index);
  void showPreview(std::shared_ptr<const views::ProgramSnapshot> program, int row);
  void leavePreview();
  void showNodeInStatus(int index);
  void refreshCode();
  void wireProfile();
  void createTuneDock();
  void createModelDock();
  void createCompareActions();
  /// The Iteration space dock and its jobs (main_window_space.cpp).
  void createSpaceDock();
  void refreshSpace();
  std::shared_ptr<std::stop_source> startSpaceJob();
  void runSpaceJob(const QString& label, std::function<SpaceJobResult(std::stop_token)> work);
  /// The Model dock's rows from the session's model, model schedule and the last run.
  void refreshModelRows();
  /// Shows and raises the tune dock, taller when it is too short for its charts.
  void showTuneDock();
  void updateTitle();
  void addRecentFile(const QString& path);
  void rebuildRecentMenu();
  void restoreLayout();
  void saveLayout();
  bool maybeSave();
  QAction* makeAction(const QString& objectName, const QString& text, const QKeySequence& shortcut = {});
  enum class Ask { Open, Save, Folder };
  /// Asks for a file to open or to write, or a folder, through options.chooseFile or
  /// QFileDialog. `suggestion` is a file name, placed in fileDialogStartDir(), or an
  /// absolute path outside the samples, kept. Remembers the chosen folder; "" = cancelled.
  QString askPath(Ask ask, const QString& title, const QString& suggestion, const QString& filter = {});
  void rememberDir(const QString& path);
  void createHelpActions();

  MainWindowOptions m_options;
  Session* m_session;
  views::ProgramEditor* m_editor = nullptr;
  views::TensorIrView* m_tensorIr = nullptr;
  views::PrimitivePanel* m_panel = nullptr;
  views::TraceView* m_trace = nullptr;
  views::DiagnosticsView* m_diagnostics = nullptr;
  views::CodeView* m_code = nullptr;
  views::ScheduleTreeView* m_scheduleTree = nullptr;
  views::ProfileView* m_profile = nullptr;
  ProfileJob* m_profileJob = nullptr;
  views::TuneView* m_tune = nullptr;
  TuneJob* m_tuneJob = nullptr;
  views::ModelView* m_model = nullptr;
  CompareWindow* m_compare = nullptr;
  QDockWidget* m_modelDock = nullptr;
  views::IterationSpaceView* m_space = nullptr;
  QDockWidget* m_spaceDock = nullptr;
  bool m_spaceStale = true;
  std::uint64_t m_spaceGeneration = 0;
  std::shared_ptr<std::stop_source> m_spaceStop; ///< stops the running space job
  /// The last model run's milliseconds per group (empty: no run of this model).
  std::vector<double> m_modelTimes;
  std::vector<std::string> m_modelVerified; ///< per group, after a verified Profile model
  bool m_modelProfiling = false;
  std::uint64_t m_modelRunGeneration = 0;
  QLabel* m_previewBanner = nullptr;
  QDockWidget* m_programDock = nullptr;
  QDockWidget* m_primitivesDock = nullptr;
  QDockWidget* m_traceDock = nullptr;
  QDockWidget* m_diagnosticsDock = nullptr;
  QDockWidget* m_codeDock = nullptr;
  QDockWidget* m_treeDock = nullptr;
  QDockWidget* m_profileDock = nullptr;
  QDockWidget* m_tuneDock = nullptr;
  int m_tuneApplying = 0; ///< the trial whose trace is being applied, 0 for none
  bool m_codeStale = true;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_viewMenu = nullptr;
  QMenu* m_scheduleMenu = nullptr;
  QMenu* m_runMenu = nullptr;
  QProgressBar* m_progress = nullptr;
  QToolButton* m_cancel = nullptr;
  views::StatusLabel* m_statusLabel = nullptr;
  QByteArray m_defaultState;
  bool m_dark = false;
  bool m_previewing = false;
  int m_previewRow = -2;
  bool m_firstState = true;
  /// The loop or block a session opened with selected, selected when its program is shown.
  QString m_pendingSelection;
  bool m_codePending = false; ///< a code job was requested and has not delivered
  QString m_lastDir;          ///< the File dialogs' last folder (also in QSettings "files/lastDir")
  bool m_exporting = false;   ///< a kernel export is running
};

} // namespace loopscape::gui
