// Session: the one owner of the workbench's core state. It holds the source text, the
// current ProgramState (schedule + the snapshots the views show), the undo stack (one
// command per user step) and the diagnostics; views only adapt what it publishes.
//
// Every heavy operation runs as a background job with a generation id (JobRunner):
// parsing and trace replay after an edit, applying a primitive, replaying a trace prefix
// for the step preview, loading a trace file. A result whose generation is no longer the
// newest is dropped. Results are installed on the GUI thread.
//
// Editing the source re-parses it and re-applies the trace instruction by instruction:
// the steps that still apply are kept; the first step that no longer applies is reported
// in the diagnostics (with the schedule's rendered error) and it and every later step are
// dropped. A refused primitive changes nothing and reports its rendered error.
//
// Sessions are saved as `.lsproj` (session_file.h); the session autosaves to a recovery
// file every 30 s and after every step while it has unsaved changes.
//
// A Relay model (`.relay`, session_model.cpp) is loaded in the background with
// graph::loadModel; the session then works on one fused group at a time: the group's
// PrimFunc is the program (its source, shown read-only, is the group's te program), with
// its own trace and undo history. Switching groups puts the current group's history aside
// (its program states and undo index) and brings the other group's back, or loads it with
// its pending trace the first time. Each group's trace is its schedule in the model
// schedule (graph::ModelSchedule): a group with steps gets a Trace choice with the inline
// trace JSON, unless a choice was set for every group since its last step (poly_auto,
// default schedules) or came from a model schedule file (tuned log, trace file).
#pragma once

#include "app/gui/job_runner.h"
#include "core/frontend/program_source.h"
#include "core/graph/model.h"
#include "core/graph/model_schedule.h"
#include "core/schedule/schedule.h"
#include "core/tune/records.h"
#include "views/code_view.h"
#include "views/diagnostics_model.h"
#include "views/primitive_request.h"
#include "views/program_snapshot.h"
#include "views/trace_model.h"

#include <QJsonObject>
#include <QObject>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

class QUndoStack;

namespace loopscape::gui {

/// One step of the session: the schedule (original and current program states, trace)
/// and the trace snapshot. Immutable once built. What the views show of the program is an
/// analysis of the schedule's current state (views::structureSnapshot, computed when the
/// step is built; views::analysedSnapshot, computed in the background afterwards).
struct ProgramState {
  explicit ProgramState(schedule::Schedule s) : schedule(std::move(s)) {}
  schedule::Schedule schedule;
  std::shared_ptr<const views::TraceSnapshot> trace;
  /// The loop or block the step that made this state produced, when it was applied from
  /// the workbench: its first loop or block output (split's outer loop, fuse's loop), else
  /// its first loop or block input as it is after the step (parallel's loop); null when
  /// the step left nothing selectable (poly steps, a consumed loop). Absent for states
  /// not made by a step (a load, an edit).
  std::optional<const ir::StmtNode*> produced;
  /// The TVMScript spelling the views print the program in: the source file's.
  ir::ScriptDialect dialect = ir::ScriptDialect::Tir;
  /// The snapshot the views show now: the analysed one once it is ready, the structure
  /// snapshot before (never computes on the caller's thread).
  std::shared_ptr<const views::ProgramSnapshot> program() const {
    return views::currentSnapshot(schedule.state(), dialect);
  }
};
using StatePtr = std::shared_ptr<const ProgramState>;

/// Builds the step (and the structure snapshot of its program) of a schedule.
StatePtr makeState(schedule::Schedule sch, ir::ScriptDialect dialect,
                   std::optional<const ir::StmtNode*> produced = std::nullopt);

/// A source or load error as the Diagnostics view lists it, rendered against `source`.
views::DiagnosticItem sourceItem(const Diagnostic& d, const std::string& source);

class Session : public QObject {
  Q_OBJECT
public:
  explicit Session(QObject* parent = nullptr);
  ~Session() override;

  // ---- what the views read ----
  const QString& source() const { return m_source; }
  /// The program file the source came from (may be empty for an unsaved session).
  const QString& sourcePath() const { return m_sourcePath; }
  /// The source's language, told by the program file's extension (.py and .tvmscript are
  /// TVMScript; anything else, or no file, a .te program).
  frontend::SourceLanguage language() const;
  /// The TVMScript module's function the session works on ("": "main", or the only one);
  /// chosen when the file is opened, kept in the session file.
  const QString& function() const { return m_function; }
  /// The .lsproj file of the session (empty until saved or opened).
  const QString& projectPath() const { return m_projectPath; }
  /// The current state; null while no program ever parsed.
  const StatePtr& state() const { return m_state; }
  /// The trace of the session: the current state's, or the one waiting for the source
  /// to parse.
  const schedule::Trace& trace() const { return m_state ? m_state->schedule.trace() : m_pendingTrace; }
  const std::vector<views::DiagnosticItem>& diagnostics() const { return m_diagnostics; }
  QUndoStack* undoStack() const { return m_undo; }
  JobRunner* jobs() const { return m_jobs; }
  bool isBusy() const { return m_jobs->busy(); }
  bool isModified() const;
  QString target() const { return m_target; }
  void setTarget(const QString& target) { m_target = target; }
  QJsonObject viewSettings() const { return m_viewSettings; }
  void setViewSettings(const QJsonObject& settings) { m_viewSettings = settings; }
  /// Title of the session for the window ("matmul.te").
  QString displayName() const;

  // ---- operations (asynchronous; results arrive as signals) ----
  /// Replaces the whole session with `source` from `path` and applies `trace` to it.
  void openSource(const QString& source, const QString& path, const schedule::Trace& trace = {});
  /// Opens a program file, .te or TVMScript (`function` picks a module's function), or an
  /// .lsproj through openProject. False with `error` when unreadable.
  bool openFile(const QString& path, QString* error, const QString& function = {});
  /// The user edited the source: re-parse and re-apply the trace.
  void editSource(const QString& source);
  /// Applies a primitive to the current state (one undo step).
  void applyPrimitive(const views::PrimitiveRequest& request);
  /// The source was written to `path` (File → Save program): it is now the program file.
  /// Without a session file the source no longer counts as unsaved (the trace still may).
  void sourceSavedAs(const QString& path);
  /// Replaces the trace by a trace file's (.json or TVM Python .py), as one undo step,
  /// named `undoText` ("load trace FILE" when empty; the tune view's "apply tuned trial 7").
  void loadTrace(const QString& text, const QString& fileName, const QString& undoText = {});
  bool loadTraceFile(const QString& path, QString* error);
  /// Replaces the trace by a tuning record's, checked once as the tuner checked it
  /// (tune::applyRecord), as one undo step named `undoText`.
  void applyTuningRecord(const tune::Record& record, const QString& undoText);
  /// Generates the code of the current program for `target` in `format`; delivered by
  /// codeReady. The target is remembered in the session (saved in .lsproj).
  void requestCode(const QString& target, const QString& format);
  /// The program after instruction `row` of the current trace (-1: the original
  /// program); delivered by previewReady.
  void previewInstruction(int row);

  // ---- files ----
  bool saveProject(const QString& path, QString* error);
  bool openProject(const QString& path, QString* error);
  /// Recovery file (AppDataLocation/recovery.lsproj).
  static QString recoveryPath();
  void writeRecovery();
  void removeRecovery();
  /// Opens the recovery file; the restored session counts as unsaved.
  bool restoreRecovery(QString* error);
  /// Applies a state without touching the undo stack (undo commands use it).
  /// Makes `state` current; `afterStep` when it is the result of a step (applied or
  /// redone), so that the views select what the step produced (selectionHint).
  void install(const StatePtr& state, bool afterStep = false);
  /// What the views should select in the current state: the node the step produced when
  /// the state was installed by a step, nullopt to keep the selection by tree position.
  std::optional<const ir::StmtNode*> selectionHint() const;

  // ---- Relay model (session_model.cpp) ----
  /// Whether the session is a Relay model (also while it loads).
  bool isModel() const { return !m_modelPath.isEmpty(); }
  /// The loaded model (null while loading, after a load error, or without a model).
  const std::shared_ptr<const graph::Model>& model() const { return m_model; }
  const QString& modelPath() const { return m_modelPath; }
  /// The group open in the workbench (-1: none).
  int currentGroup() const { return m_group; }
  /// Loads the .relay file in the background, then opens group `group` (a name; "" the
  /// first group). `schedule` gives every group's choice and pending trace.
  void openModel(const QString& path, const graph::ModelSchedule& schedule = {}, const QString& group = {});
  /// Opens group `index`: the current group's program states and undo history are put
  /// aside, the other group's come back (or it is loaded with its trace the first time).
  void selectGroup(int index);
  /// The trace of group `index`: its current state's, or the one waiting to be loaded.
  schedule::Trace groupTrace(int index) const;
  /// The model schedule the session's groups make (see the header comment).
  graph::ModelSchedule modelSchedule() const;
  /// Replaces every group's choice and trace by `schedule`'s (File → Open model schedule):
  /// a Trace choice with inline JSON becomes the group's trace, the others its choice. The
  /// current group is loaded again; a schedule with the other layout (alter_layout) loads
  /// the model again with it. False with `error` when a trace cannot be read.
  bool setModelSchedule(const graph::ModelSchedule& schedule, QString* error);
  /// Every group's choice becomes `source` (Default or Poly): the groups' steps are kept
  /// but not used until the group's next step.
  void setAllGroupSources(graph::ScheduleSource source);
  /// Whether the model was loaded with AlterOpLayout (NCHW[x]c convolutions, packed
  /// dense weights).
  bool modelAlterLayout() const { return m_alterLayout; }
  /// Loads the model again with or without AlterOpLayout: the groups change (and their
  /// names), so the choices and traces of the old groups are dropped.
  void setModelAlterLayout(bool on);

Q_SIGNALS:
  /// The current program/trace changed.
  void stateChanged();
  void diagnosticsChanged();
  /// The source text was replaced by the session (file or project opened).
  void sourceReplaced(const QString& source);
  void previewReady(std::shared_ptr<const loopscape::views::ProgramSnapshot> program, int row);
  void modifiedChanged(bool modified);
  /// The generated code (or the rendered error), with the lines each loop produced.
  void codeReady(bool ok, const QString& text, const QString& status, const loopscape::views::CodeMap& map);
  /// A primitive was refused (after diagnosticsChanged).
  void primitiveRefused(const QString& message);
  /// Emitted after each job result has been installed (tests wait on it).
  void jobDone();
  /// A model was opened (model() null while it loads or when it failed) or closed.
  void modelChanged();
  /// Another group of the model is open in the workbench.
  void groupChanged();
  /// A group's choice or trace changed (the model schedule is different).
  void modelScheduleChanged();
  /// The current state's program snapshot now carries the dependence facts (the loops'
  /// parallel/carried facts, the schedule tree's member flags): same program, same nodes.
  void analysisReady();

private:
  struct LoadResult;
  void startLoad(const QString& source, const schedule::Trace& trace, bool replaceHistory, bool openedFile);
  void finishLoad(LoadResult result, bool openedFile);
  void setDiagnostics(std::vector<views::DiagnosticItem> source, std::vector<views::DiagnosticItem> action);
  void updateModified();
  /// Replaces the trace in the background by what `apply` makes of a fresh schedule of the
  /// original (the notes it returns are shown), as one undo step; `source` is the trace's
  /// text, quoted by a refusal's detail, and `refusalPrefix` begins a refusal's message.
  void replaceTrace(const QString& label, const QString& undoText, std::string source, std::string refusalPrefix,
                    std::function<Expected<std::vector<Diagnostic>>(schedule::Schedule&)> apply);
  /// Starts the background dependence analysis of the current state unless it has one.
  void analyseCurrent();
  /// One group's program states and undo history while another group is open.
  struct GroupEdit {
    StatePtr base;                ///< the group's program (null: never opened)
    std::vector<StatePtr> afters; ///< after each step of its undo history
    std::vector<QString> texts;   ///< the steps' undo texts
    int index = 0;                ///< the undo index
    schedule::Trace pending;      ///< never opened: the trace it is loaded with
  };
  /// Puts the open group's history aside in m_groupEdits.
  void stashGroup();
  /// Forgets the model (another program or session is opened).
  void closeModel();
  /// The current group's trace changed by a step, undo or redo: its hand trace is its
  /// schedule again.
  void groupStepped();
  /// Takes `schedule`'s choices and traces for every group (histories dropped); false with
  /// `error`, and nothing changed, when a trace cannot be read.
  bool applyScheduleChoices(const graph::ModelSchedule& schedule, QString* error);

  QString m_source, m_sourcePath, m_projectPath, m_function;
  QString m_target = QStringLiteral("cpu-c");
  QJsonObject m_viewSettings;
  StatePtr m_state;
  bool m_installedByStep = false; ///< m_state came from a step (selectionHint)
  StatePtr m_analysing; ///< the state whose analysis is running
  bool m_loadInFlight = false; ///< the latest parse (open, edit) has not delivered its result yet
  /// The trace waiting for a source that parses (a session opened with a broken source).
  schedule::Trace m_pendingTrace;
  QUndoStack* m_undo;
  JobRunner* m_jobs;
  QTimer m_autosave;
  std::vector<views::DiagnosticItem> m_sourceDiagnostics, m_actionDiagnostics, m_diagnostics;
  std::uint64_t m_loadGeneration = 0, m_applyGeneration = 0, m_previewGeneration = 0, m_codeGeneration = 0;
  bool m_sourceDirty = false;
  bool m_dirtyAfterOpen = false;
  // Relay model
  QString m_modelPath;
  std::shared_ptr<const graph::Model> m_model;
  int m_group = -1;
  std::vector<GroupEdit> m_groupEdits;
  std::map<std::string, graph::GroupChoice> m_choices; ///< explicit choices (else the group's trace)
  std::string m_scheduleBaseDir;                       ///< relative logs and trace files of those choices
  std::optional<ir::PrimFunc> m_groupFunc;             ///< the program being loaded instead of a parse
  bool m_modelDirty = false;                           ///< a group changed since the last save
  bool m_alterLayout = false;                          ///< the model's passes include AlterOpLayout
  std::uint64_t m_modelGeneration = 0;
  bool m_lastModified = false;
};

} // namespace loopscape::gui
