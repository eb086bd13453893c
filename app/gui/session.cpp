#include "app/gui/session.h"

#include "app/gui/code_jobs.h"
#include "app/gui/session_file.h"
#include "app/gui/step_builder.h"
#include "app/gui/undo_commands.h"
#include "core/codegen/gpu_bound_loop_check.h"
#include "core/frontend/program_source.h"
#include "core/ir/file_read.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/gpu_bound_loops.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule_error.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_script.h"
#include "core/tune/apply_record.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>
#include <QUndoStack>

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace loopscape::gui {

using views::DiagnosticItem;

StatePtr makeState(schedule::Schedule sch, ir::ScriptDialect dialect, std::optional<const ir::StmtNode*> produced) {
  auto state = std::make_shared<ProgramState>(std::move(sch));
  state->produced = produced;
  state->dialect = dialect;
  (void)views::structureSnapshot(state->schedule.state(), dialect);
  state->trace = views::makeTraceSnapshot(state->schedule.trace());
  return state;
}

namespace {

/// The node a step produced (ProgramState::produced): its first loop or block output, else
/// its first loop or block input as it is after the step; null when neither resolves.
const ir::StmtNode* producedNode(const schedule::Schedule& sch, const schedule::Instruction& inst) {
  auto resolve = [&](const schedule::TraceValue& v) -> const ir::StmtNode* {
    const schedule::RV* rv = v.get<schedule::RV>();
    if (rv == nullptr || (rv->kind != schedule::RVKind::Loop && rv->kind != schedule::RVKind::Block)) return nullptr;
    auto found = sch.blockOrLoop(v, "selection");
    return found ? (*found)->node : nullptr;
  };
  for (const schedule::RV& rv : inst.outputs)
    if (const ir::StmtNode* n = resolve(schedule::TraceValue(rv))) return n;
  for (const schedule::TraceValue& v : inst.inputs)
    if (const ir::StmtNode* n = resolve(v)) return n;
  return nullptr;
}

/// The text of a program, trace or session file, within the size limit of input files
/// (ir::readSourceFile); nullopt with `error` saying why ("cannot read 'X': it is a
/// directory", "...: it is larger than 16 MiB ...").
std::optional<QString> readInputFile(const QString& path, QString* error) {
  auto text = ir::readSourceFile(path.toStdString());
  if (!text) {
    if (error) *error = QString::fromStdString(text.error().message);
    return std::nullopt;
  }
  return QString::fromUtf8(text->data(), static_cast<qsizetype>(text->size()));
}

} // namespace

DiagnosticItem sourceItem(const Diagnostic& d, const std::string& source) {
  DiagnosticItem item;
  item.origin = DiagnosticItem::Origin::Source;
  item.isError = d.severity == Severity::Error;
  item.code = d.code;
  item.message = d.message;
  item.file = d.location.file;
  item.line = d.location.line;
  item.column = d.location.column;
  item.length = d.location.length;
  item.detail = renderDiagnostic(d, source);
  return item;
}

namespace {

DiagnosticItem scheduleItem(const Diagnostic& d, const ir::PrimFunc& func, DiagnosticItem::Origin origin,
                            std::string messagePrefix = {}, std::string_view sourceText = {}) {
  DiagnosticItem item;
  item.origin = origin;
  item.code = d.code;
  item.message = messagePrefix + d.message;
  item.file = d.location.file;
  item.line = d.location.line;
  item.column = d.location.column;
  item.detail = (messagePrefix.empty() ? std::string() : messagePrefix + "\n\n") +
                schedule::renderStepDiagnostic(d, func, sourceText);
  std::vector<std::string> places;
  for (const IrReference& ref : d.references) {
    const char* kind = ref.kind == IrReference::Kind::Block  ? "block"
                       : ref.kind == IrReference::Kind::Loop ? "loop"
                                                             : "buffer";
    std::string place = fmt::format("{} {}", kind, ref.name);
    if (std::find(places.begin(), places.end(), place) == places.end()) places.push_back(std::move(place));
  }
  item.place = fmt::format("{}", fmt::join(places, ", "));
  return item;
}

/// Applies instructions [begin, end) of `trace` to `sch`; on failure returns the index
/// and the error, with `sch` as it was before that instruction.
std::optional<std::pair<int, Diagnostic>> applyRange(schedule::Schedule& sch, const schedule::Trace& trace, int begin,
                                                     int end) {
  for (int i = begin; i < end; ++i) {
    const schedule::Instruction& inst = trace.instructions[i];
    auto out = sch.apply(*inst.kind, inst.inputs, inst.attrs, inst.decision);
    if (!out) return std::make_pair(i, out.error());
  }
  return std::nullopt;
}

} // namespace

struct Session::LoadResult {
  std::uint64_t generation = 0;
  QString source;
  std::optional<Diagnostic> parseError;
  StatePtr base;
  std::vector<StatePtr> steps;
  std::vector<QString> stepTexts;
  std::optional<DiagnosticItem> dropped;
  schedule::Trace requested; ///< the trace asked for (kept while the source does not parse)
};

Session::Session(QObject* parent) : QObject(parent) {
  setObjectName(QStringLiteral("session"));
  poly::registerPolyInstructionKinds(); // idempotent; traces may use the poly family
  // GPU lowering refuses bound loops that carry a dependence (set once, before any job).
  if (!codegen::boundLoopCheck()) codegen::setBoundLoopCheck(poly::checkBoundLoopDependences);
  m_undo = new QUndoStack(this);
  m_undo->setObjectName(QStringLiteral("undoStack"));
  m_jobs = new JobRunner(this);
  connect(m_jobs, &JobRunner::cancelled, this, [this] {
    if (!m_loadInFlight) return;
    // The parse of the last edit will not arrive: say that the views lag behind the text.
    m_loadInFlight = false;
    DiagnosticItem item;
    item.origin = DiagnosticItem::Origin::Source;
    item.isError = false;
    item.code = "gui.parse-cancelled";
    item.message = m_state ? "parsing was cancelled: the views show the last program that parsed, not the editor's "
                             "text; edit it again to re-parse"
                           : "parsing was cancelled: edit the program to parse it again";
    item.detail = item.message;
    setDiagnostics({item}, m_actionDiagnostics);
  });
  connect(m_undo, &QUndoStack::cleanChanged, this, [this] { updateModified(); });
  // After every step, undo and redo (the stack's index has moved by then): autosave.
  connect(m_undo, &QUndoStack::indexChanged, this, [this] {
    if (signalsBlocked()) return;
    if (isModel()) groupStepped();
    updateModified();
    if (isModified()) writeRecovery();
  });
  m_autosave.setInterval(30000);
  connect(&m_autosave, &QTimer::timeout, this, [this] {
    if (isModified()) writeRecovery();
  });
  m_autosave.start();
}

Session::~Session() { m_jobs->shutdown(); }

bool Session::isModified() const { return m_sourceDirty || m_modelDirty || !m_undo->isClean(); }

void Session::updateModified() {
  if (signalsBlocked()) return;
  const bool modified = isModified();
  if (modified == m_lastModified) return;
  m_lastModified = modified;
  Q_EMIT modifiedChanged(modified);
}

frontend::SourceLanguage Session::language() const { return frontend::languageOfPath(m_sourcePath.toStdString()); }

QString Session::displayName() const {
  if (!m_projectPath.isEmpty()) return QFileInfo(m_projectPath).fileName();
  if (isModel() && m_model && m_group >= 0)
    return QStringLiteral("%1 \u00b7 group %2").arg(QFileInfo(m_modelPath).fileName()).arg(m_group);
  if (isModel()) return QFileInfo(m_modelPath).fileName();
  if (!m_sourcePath.isEmpty()) return QFileInfo(m_sourcePath).fileName();
  return QStringLiteral("untitled");
}

void Session::setDiagnostics(std::vector<DiagnosticItem> source, std::vector<DiagnosticItem> action) {
  m_sourceDiagnostics = std::move(source);
  m_actionDiagnostics = std::move(action);
  m_diagnostics = m_actionDiagnostics;
  m_diagnostics.insert(m_diagnostics.end(), m_sourceDiagnostics.begin(), m_sourceDiagnostics.end());
  Q_EMIT diagnosticsChanged();
}

void Session::install(const StatePtr& state, bool afterStep) {
  m_state = state;
  m_installedByStep = afterStep;
  if (signalsBlocked()) return; // rebuilding the history after a load
  Q_EMIT stateChanged();
  analyseCurrent();
}

std::optional<const ir::StmtNode*> Session::selectionHint() const {
  if (!m_state || !m_installedByStep) return std::nullopt;
  return m_state->produced;
}

void Session::analyseCurrent() {
  const StatePtr state = m_state;
  if (!state || !state->program()->analysisPending || m_analysing == state) return;
  m_analysing = state;
  m_jobs->run<std::shared_ptr<const views::ProgramSnapshot>>(
      QStringLiteral("Analysing dependences"),
      [program = state->schedule.state(), dialect = state->dialect](std::stop_token, const ProgressFn&) {
        return views::analysedSnapshot(program, dialect); // kept on the program state (undo/redo reuse it)
      },
      [this, state](std::shared_ptr<const views::ProgramSnapshot>) {
        if (m_analysing == state) m_analysing.reset();
        if (m_state == state)
          Q_EMIT analysisReady();
        else
          analyseCurrent();
      },
      JobCancel::OnShutdown);
}

// ---- loading and editing -------------------------------------------------------------

void Session::openSource(const QString& source, const QString& path, const schedule::Trace& trace) {
  closeModel();
  m_state.reset(); // the new program replaces the old one, even if it does not parse
  m_pendingTrace = trace;
  m_source = source;
  m_sourcePath = path;
  m_projectPath.clear();
  Q_EMIT sourceReplaced(source);
  startLoad(source, trace, true, true);
}

bool Session::openFile(const QString& path, QString* error, const QString& function) {
  if (path.endsWith(QStringLiteral(".lsproj"))) return openProject(path, error);
  if (path.endsWith(QStringLiteral(".relay"))) {
    if (!QFileInfo(path).isFile()) {
      if (error) *error = QStringLiteral("cannot read '%1': no such file").arg(path);
      return false;
    }
    openModel(path);
    return true;
  }
  auto text = readInputFile(path, error);
  if (!text) return false;
  m_function = function;
  openSource(*text, QFileInfo(path).absoluteFilePath());
  return true;
}

void Session::sourceSavedAs(const QString& path) {
  m_sourcePath = QFileInfo(path).absoluteFilePath();
  if (m_projectPath.isEmpty()) m_sourceDirty = false;
  updateModified();
}

void Session::editSource(const QString& source) {
  if (source == m_source || isModel()) return; // a model's group is shown read-only
  m_source = source;
  m_sourceDirty = true;
  updateModified();
  startLoad(source, trace(), true, false);
}

void Session::startLoad(const QString& source, const schedule::Trace& trace, bool, bool openedFile) {
  const std::uint64_t generation = ++m_loadGeneration;
  ++m_applyGeneration; // a primitive computed against the old program is stale now
  ++m_previewGeneration;
  const std::string text = source.toStdString();
  const std::string fileName =
      m_sourcePath.isEmpty() ? std::string("<source>") : QFileInfo(m_sourcePath).fileName().toStdString();
  m_jobs->run<LoadResult>(
      QStringLiteral("Parsing"),
      [generation, text, fileName, trace, source, language = language(), function = m_function.toStdString(),
       given = m_groupFunc](std::stop_token stop, const ProgressFn& progress) {
        LoadResult r;
        r.generation = generation;
        r.source = source;
        r.requested = trace;
        ir::ScriptDialect dialect = ir::ScriptDialect::Tir;
        // A model's group is its PrimFunc (the source only shows it).
        auto func = given ? Expected<ir::PrimFunc>(*given)
                          : frontend::parseProgram(text, language, fileName, function, &dialect);
        if (!func) {
          r.parseError = func.error();
          return r;
        }
        // Every step is checked against the original program's dependences (refused
        // with a counterexample when it would reorder dependent instances).
        schedule::Schedule sch = poly::makeSchedule(*func);
        r.base = makeState(sch, dialect);
        const std::vector<int> ends = views::stepEnds(trace);
        int begin = 0;
        for (std::size_t s = 0; s < ends.size(); ++s) {
          if (stop.stop_requested()) return r;
          if (auto failed = applyRange(sch, trace, begin, ends[s])) {
            const auto& [index, diag] = *failed;
            const schedule::Instruction& failedInst = trace.instructions[index];
            const schedule::Instruction& stepInst = trace.instructions[ends[s] - 1];
            std::string prefix = fmt::format("step {} ({}) no longer applies", s + 1, stepInst.kind->name);
            if (&failedInst != &stepInst) prefix += fmt::format(" (its {} failed)", failedInst.kind->name);
            prefix += ends.size() - s - 1 == 0
                          ? std::string("; it was dropped")
                          : fmt::format("; it and the {} step(s) after it were dropped", ends.size() - s - 1);
            r.dropped = scheduleItem(diag, sch.func(), DiagnosticItem::Origin::Trace, prefix + ": ");
            break;
          }
          r.steps.push_back(makeState(sch, dialect));
          r.stepTexts.push_back(stepText(trace.instructions[ends[s] - 1]));
          begin = ends[s];
          progress(static_cast<int>(s) + 1, static_cast<int>(ends.size()));
        }
        return r;
      },
      [this, openedFile](LoadResult r) {
        if (r.generation == m_loadGeneration) m_loadInFlight = false; // the latest parse arrived
        finishLoad(std::move(r), openedFile);
      });
  m_loadInFlight = true;
}

void Session::finishLoad(LoadResult r, bool openedFile) {
  if (r.generation != m_loadGeneration) return; // stale: a newer edit is being parsed
  if (r.parseError) {
    // Keep showing the last program that parsed; the trace waits for a good parse.
    const bool noProgram = !m_state;
    if (noProgram) {
      m_undo->clear();
      m_pendingTrace = r.requested;
    }
    setDiagnostics({sourceItem(*r.parseError, r.source.toStdString())}, {});
    if (openedFile) {
      m_sourceDirty = m_dirtyAfterOpen;
      m_dirtyAfterOpen = false;
      m_undo->setClean();
    }
    updateModified();
    if (noProgram) Q_EMIT stateChanged(); // the views show no program
    Q_EMIT jobDone();
    return;
  }
  // Rebuild the history: one command per kept step, on the new program.
  QSignalBlocker block(this);
  m_undo->clear();
  m_state = r.base;
  StatePtr previous = r.base;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    m_undo->push(new StepCommand(this, previous, r.steps[i], r.stepTexts[i]));
    previous = r.steps[i];
  }
  if (openedFile) {
    m_sourceDirty = m_dirtyAfterOpen;
    m_dirtyAfterOpen = false;
    m_undo->setClean();
  }
  std::vector<DiagnosticItem> sourceDiags;
  if (r.dropped) sourceDiags.push_back(*r.dropped);
  m_sourceDiagnostics = sourceDiags;
  m_actionDiagnostics.clear();
  m_diagnostics = m_sourceDiagnostics;
  block.unblock();
  Q_EMIT stateChanged();
  Q_EMIT diagnosticsChanged();
  updateModified();
  analyseCurrent();
  Q_EMIT jobDone();
}

// ---- primitives ------------------------------------------------------------------------

void Session::applyPrimitive(const views::PrimitiveRequest& request) {
  if (!m_state) return;
  const StatePtr before = m_state;
  if (!request.snapshot || !request.snapshot->sameProgramAs(*before->program())) {
    DiagnosticItem item;
    item.origin = DiagnosticItem::Origin::Schedule;
    item.code = "gui.stale-selection";
    item.message = "the program changed since the selection was made; select the loop or block again";
    setDiagnostics(m_sourceDiagnostics, {item});
    Q_EMIT primitiveRefused(QString::fromStdString(item.message));
    Q_EMIT jobDone();
    return;
  }
  const std::uint64_t generation = ++m_applyGeneration;
  struct ApplyResult {
    StatePtr after;
    std::optional<DiagnosticItem> error;
    std::vector<DiagnosticItem> notes; ///< the step was accepted without a legality verdict
    QString text;
  };
  m_jobs->run<ApplyResult>(
      QStringLiteral("Applying %1").arg(QString::fromStdString(request.kind)),
      [before, request](std::stop_token stop, const ProgressFn&) {
        ApplyResult r;
        schedule::Schedule sch = before->schedule;
        sch.setStopToken(stop);
        auto ok = applyRequest(sch, request);
        sch.setStopToken({});
        if (!ok) {
          r.error = scheduleItem(ok.error(), before->schedule.func(), DiagnosticItem::Origin::Schedule);
          return r;
        }
        for (std::size_t i = before->schedule.notes().size(); i < sch.notes().size(); ++i) {
          DiagnosticItem note = scheduleItem(sch.notes()[i].note, sch.func(), DiagnosticItem::Origin::Schedule);
          note.isError = false;
          r.notes.push_back(std::move(note));
        }
        r.text = stepText(sch.trace().instructions.back());
        const ir::StmtNode* produced = producedNode(sch, sch.trace().instructions.back());
        r.after = makeState(std::move(sch), before->dialect, produced);
        return r;
      },
      [this, generation, before](ApplyResult r) {
        if (generation != m_applyGeneration || m_state != before) return;
        if (r.error) {
          setDiagnostics(m_sourceDiagnostics, {*r.error});
          Q_EMIT primitiveRefused(QString::fromStdString(r.error->message));
        } else {
          setDiagnostics(m_sourceDiagnostics, std::move(r.notes));
          m_undo->push(new StepCommand(this, before, r.after, r.text));
        }
        Q_EMIT jobDone();
      });
}

void Session::loadTrace(const QString& text, const QString& fileName, const QString& undoText) {
  const bool json = fileName.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) || text.trimmed().startsWith(u'[');
  std::string source = text.toStdString();
  replaceTrace(QStringLiteral("Loading trace"),
               undoText.isEmpty() ? QStringLiteral("load trace %1").arg(QFileInfo(fileName).fileName()) : undoText,
               source, "the trace does not apply: ",
               [json, source, name = QFileInfo(fileName).fileName().toStdString()](
                   schedule::Schedule& sch) -> Expected<std::vector<Diagnostic>> {
                 auto ok =
                     json ? schedule::applyJsonTrace(sch, source, name) : schedule::applyScript(sch, source, name);
                 if (!ok) return std::unexpected(ok.error());
                 return std::vector<Diagnostic>{};
               });
}

void Session::applyTuningRecord(const tune::Record& record, const QString& undoText) {
  replaceTrace(QStringLiteral("Applying tuned trial %1").arg(record.trial), undoText,
               schedule::traceToJson(record.trace), {}, [record](schedule::Schedule& sch) {
                 return tune::applyRecord(sch, record, fmt::format("tuned trial {}", record.trial));
               });
}

void Session::replaceTrace(const QString& label, const QString& undoText, std::string source, std::string refusalPrefix,
                           std::function<Expected<std::vector<Diagnostic>>(schedule::Schedule&)> apply) {
  if (!m_state) return;
  const StatePtr before = m_state;
  const std::uint64_t generation = ++m_applyGeneration;
  struct TraceResult {
    StatePtr after;
    std::optional<DiagnosticItem> error;
    std::vector<DiagnosticItem> notes; ///< applied without a legality verdict
  };
  m_jobs->run<TraceResult>(
      label,
      [before, source = std::move(source), prefix = std::move(refusalPrefix),
       apply = std::move(apply)](std::stop_token stop, const ProgressFn&) {
        TraceResult r;
        schedule::Schedule sch = poly::makeSchedule(before->schedule.originalState());
        sch.setStopToken(stop);
        auto notes = apply(sch);
        sch.setStopToken({});
        if (!notes) {
          r.error = scheduleItem(notes.error(), sch.func(), DiagnosticItem::Origin::Trace, prefix, source);
          return r;
        }
        for (const Diagnostic& n : *notes)
          r.notes.push_back(scheduleItem(n, sch.func(), DiagnosticItem::Origin::Trace));
        for (const schedule::StepNote& n : sch.notes())
          r.notes.push_back(scheduleItem(n.note, sch.func(), DiagnosticItem::Origin::Trace));
        for (DiagnosticItem& item : r.notes)
          item.isError = false;
        r.after = makeState(std::move(sch), before->dialect);
        return r;
      },
      [this, generation, before, undoText](TraceResult r) {
        if (generation != m_applyGeneration || m_state != before) return;
        if (r.error) {
          setDiagnostics(m_sourceDiagnostics, {*r.error});
          Q_EMIT primitiveRefused(QString::fromStdString(r.error->message));
        } else {
          setDiagnostics(m_sourceDiagnostics, std::move(r.notes));
          m_undo->push(new StepCommand(this, before, r.after, undoText));
        }
        Q_EMIT jobDone();
      });
}

bool Session::loadTraceFile(const QString& path, QString* error) {
  auto text = readInputFile(path, error);
  if (!text) return false;
  if (!m_state) {
    if (error) *error = QStringLiteral("open a program that parses before loading a trace");
    return false;
  }
  loadTrace(*text, path);
  return true;
}

void Session::requestCode(const QString& target, const QString& format) {
  if (!m_state || target.isEmpty() || format.isEmpty()) return;
  m_target = target;
  const std::uint64_t generation = ++m_codeGeneration;
  const ir::PrimFunc func = m_state->schedule.func();
  m_jobs->run<CodeResult>(
      QStringLiteral("Generating %1").arg(format),
      [func, target = target.toStdString(), format = format.toStdString()](std::stop_token stop, const ProgressFn&) {
        return generateCode(func, target, format, stop);
      },
      [this, generation](CodeResult r) {
        if (generation != m_codeGeneration) return;
        Q_EMIT codeReady(r.ok, QString::fromStdString(r.text), QString::fromStdString(r.status), r.map);
        Q_EMIT jobDone();
      });
}

void Session::previewInstruction(int row) {
  if (!m_state) return;
  const StatePtr state = m_state;
  const std::uint64_t generation = ++m_previewGeneration;
  m_jobs->run<std::shared_ptr<const views::ProgramSnapshot>>(
      QStringLiteral("Replaying"),
      [state, row](std::stop_token stop, const ProgressFn& progress) -> std::shared_ptr<const views::ProgramSnapshot> {
        schedule::Schedule sch = poly::makeSchedule(state->schedule.originalState());
        const schedule::Trace& trace = state->schedule.trace();
        const int end = std::min<int>(row + 1, static_cast<int>(trace.instructions.size()));
        for (int i = 0; i < end; ++i) {
          if (stop.stop_requested()) return nullptr;
          if (applyRange(sch, trace, i, i + 1)) return nullptr; // cannot happen: the trace applied before
          progress(i + 1, end);
        }
        return views::analysedSnapshot(sch.state(), state->dialect);
      },
      [this, generation, state, row](std::shared_ptr<const views::ProgramSnapshot> snap) {
        if (generation != m_previewGeneration || m_state != state || !snap) return;
        Q_EMIT previewReady(snap, row);
        Q_EMIT jobDone();
      });
}

// ---- files -------------------------------------------------------------------------------

namespace {

SessionFile toFile(const Session& s) {
  SessionFile f;
  if (s.isModel()) {
    f.modelPath = s.modelPath();
    f.modelScheduleJson = QString::fromStdString(graph::modelScheduleToJson(s.modelSchedule()));
    if (s.model() && s.currentGroup() >= 0)
      f.group = QString::fromStdString(s.model()->groups[std::size_t(s.currentGroup())].name);
  }
  f.source = s.source();
  f.sourcePath = s.sourcePath();
  f.function = s.function();
  if (!s.trace().instructions.empty()) f.traceJson = QString::fromStdString(schedule::traceToJson(s.trace()));
  f.target = s.target();
  f.view = s.viewSettings();
  return f;
}

bool writeFile(const QString& path, const QByteArray& bytes, QString* error) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QSaveFile out(path);
  if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit()) {
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(path, out.errorString());
    return false;
  }
  return true;
}

} // namespace

bool Session::saveProject(const QString& path, QString* error) {
  if (!writeFile(path, writeSessionFile(toFile(*this)), error)) return false;
  m_projectPath = QFileInfo(path).absoluteFilePath();
  m_sourceDirty = false;
  m_modelDirty = false;
  m_undo->setClean();
  updateModified();
  removeRecovery();
  return true;
}

bool Session::openProject(const QString& path, QString* error) {
  auto text = readInputFile(path, error);
  if (!text) return false;
  auto parsed = readSessionFile(text->toUtf8());
  if (const QString* err = std::get_if<QString>(&parsed)) {
    if (error) *error = QStringLiteral("%1: %2").arg(path, *err);
    return false;
  }
  const SessionFile file = std::get<SessionFile>(std::move(parsed));
  if (!file.modelPath.isEmpty()) {
    graph::ModelSchedule schedule;
    if (!file.modelScheduleJson.isEmpty()) {
      auto s =
          graph::parseModelSchedule(file.modelScheduleJson.toStdString(), QFileInfo(path).fileName().toStdString());
      if (!s) {
        if (error) *error = QString::fromStdString(renderDiagnostic(s.error()));
        return false;
      }
      schedule = std::move(*s);
      schedule.baseDir = QFileInfo(file.modelPath).absolutePath().toStdString();
    }
    if (!QFileInfo(file.modelPath).isFile()) {
      if (error) *error = QStringLiteral("%1: the model %2 is not there any more").arg(path, file.modelPath);
      return false;
    }
    m_target = file.target.isEmpty() ? m_target : file.target;
    m_viewSettings = file.view;
    openModel(file.modelPath, schedule, file.group);
    m_projectPath = file.projectPath.isEmpty() ? QFileInfo(path).absoluteFilePath() : file.projectPath;
    if (path == recoveryPath()) m_projectPath = file.projectPath;
    return true;
  }
  schedule::Trace trace;
  if (!file.traceJson.isEmpty()) {
    auto t = schedule::traceFromJson(file.traceJson.toStdString(), QFileInfo(path).fileName().toStdString());
    if (!t) {
      if (error) *error = QString::fromStdString(renderDiagnostic(t.error()));
      return false;
    }
    trace = std::move(*t);
  }
  m_target = file.target.isEmpty() ? m_target : file.target;
  m_viewSettings = file.view;
  m_function = file.function;
  openSource(file.source, file.sourcePath, trace);
  m_projectPath = file.projectPath.isEmpty() ? QFileInfo(path).absoluteFilePath() : file.projectPath;
  if (path == recoveryPath()) m_projectPath = file.projectPath;
  return true;
}

QString Session::recoveryPath() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/recovery.lsproj");
}

void Session::writeRecovery() {
  SessionFile f = toFile(*this);
  f.projectPath = m_projectPath;
  writeFile(recoveryPath(), writeSessionFile(f), nullptr);
}

void Session::removeRecovery() { QFile::remove(recoveryPath()); }

bool Session::restoreRecovery(QString* error) {
  m_dirtyAfterOpen = true;
  if (openProject(recoveryPath(), error)) return true;
  m_dirtyAfterOpen = false;
  return false;
}

} // namespace loopscape::gui
