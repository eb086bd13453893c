// Session: the Relay model layer (session.h's header comment): loading a model in the
// background, one group open at a time with its own history, the model schedule.
#include "app/gui/session.h"

#include "app/gui/undo_commands.h"
#include "core/frontend/relay/relay_te_printer.h"
#include "core/ir/file_read.h"
#include "core/ir/printer.h"
#include "core/schedule/trace_json.h"

#include <QDir>
#include <QFileInfo>
#include <QUndoStack>

#include <fmt/format.h>

namespace loopscape::gui {

namespace {

/// What the Program pane shows for a group: its te program (the .te form `relay extract`
/// writes), or the PrimFunc printed when the group has none.
QString groupSourceText(const graph::ModelGroup& g, const QString& modelFile) {
  const std::string title =
      fmt::format("group {} of {}: {} ({}), ops {}", g.index, modelFile.toStdString(), g.name, g.pattern, g.ops);
  const std::string note = "# Read-only: the source is the .relay file. Schedule the group in the TensorIR and "
                           "schedule-tree views;\n# its trace is its schedule in the model schedule.\n";
  if (g.fused != nullptr)
    if (auto te = frontend::relay::groupProgram(*g.fused)) {
      std::string text = frontend::relay::printTeProgram(*te, title);
      // The printer's second line is about `relay extract`; say what this pane is instead.
      const std::size_t first = text.find('\n'), second = text.find('\n', first + 1);
      if (first != std::string::npos && second != std::string::npos && text.compare(first + 1, 2, "# ") == 0)
        text.replace(first + 1, second - first, note);
      return QString::fromStdString(text);
    }
  return QString::fromStdString("# " + title + "\n" + note + ir::printPrimFunc(g.func));
}

/// `path` resolved against `baseDir` unless absolute or empty.
std::string absoluteIn(const std::string& baseDir, const std::string& path) {
  if (path.empty() || QFileInfo(QString::fromStdString(path)).isAbsolute() || baseDir.empty()) return path;
  return QDir(QString::fromStdString(baseDir)).absoluteFilePath(QString::fromStdString(path)).toStdString();
}

} // namespace

void Session::closeModel() {
  if (!isModel()) return;
  ++m_modelGeneration;
  m_modelPath.clear();
  m_model.reset();
  m_group = -1;
  m_groupEdits.clear();
  m_choices.clear();
  m_scheduleBaseDir.clear();
  m_groupFunc.reset();
  m_modelDirty = false;
  Q_EMIT modelChanged();
}

void Session::openModel(const QString& path, const graph::ModelSchedule& schedule, const QString& group) {
  closeModel();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  ++m_loadGeneration; // a parse in flight belongs to the program being replaced
  ++m_applyGeneration;
  ++m_previewGeneration;
  m_loadInFlight = false;
  {
    QSignalBlocker block(this);
    m_undo->clear();
  }
  m_state.reset();
  m_pendingTrace = {};
  m_modelPath = absolute;
  m_sourcePath = absolute;
  m_projectPath.clear();
  m_function.clear();
  m_sourceDirty = false;
  m_source = QStringLiteral("# Loading %1 ...\n").arg(QFileInfo(absolute).fileName());
  m_alterLayout = schedule.alterLayout;
  const std::uint64_t generation = ++m_modelGeneration;
  setDiagnostics({}, {});
  Q_EMIT modelChanged();
  Q_EMIT sourceReplaced(m_source);
  Q_EMIT stateChanged();
  struct Loaded {
    std::shared_ptr<const graph::Model> model;
    std::optional<Diagnostic> error;
    std::string source; ///< the file's text, for the error
  };
  m_jobs->run<Loaded>(
      QStringLiteral("Loading model"),
      [file = absolute.toStdString(), alterLayout = schedule.alterLayout](std::stop_token, const ProgressFn&) {
        Loaded r;
        graph::ModelLoadOptions options;
        options.passes = graph::hostPassOptions(alterLayout);
        auto model = graph::loadModel(file, options);
        if (!model) {
          r.error = model.error();
          if (auto text = ir::readSourceFile(file)) r.source = *text;
          return r;
        }
        r.model = std::make_shared<const graph::Model>(std::move(*model));
        return r;
      },
      [this, generation, schedule, group](Loaded r) {
        if (generation != m_modelGeneration) return; // another file was opened since
        if (r.error) {
          m_source =
              QStringLiteral("# %1 could not be loaded: see Diagnostics.\n").arg(QFileInfo(m_modelPath).fileName());
          Q_EMIT sourceReplaced(m_source);
          setDiagnostics({sourceItem(*r.error, r.source)}, {});
          Q_EMIT modelChanged();
          Q_EMIT jobDone();
          return;
        }
        m_model = std::move(r.model);
        m_groupEdits.assign(m_model->groups.size(), GroupEdit{});
        QString error;
        if (!applyScheduleChoices(schedule, &error)) {
          views::DiagnosticItem item;
          item.origin = views::DiagnosticItem::Origin::Trace;
          item.code = "gui.model-schedule";
          item.message = error.toStdString();
          item.detail = item.message;
          setDiagnostics({item}, {});
        }
        Q_EMIT modelChanged();
        int index = 0;
        for (const graph::ModelGroup& g : m_model->groups)
          if (QString::fromStdString(g.name) == group) index = int(g.index);
        if (!m_model->groups.empty()) selectGroup(index);
        Q_EMIT jobDone();
      });
}

bool Session::applyScheduleChoices(const graph::ModelSchedule& schedule, QString* error) {
  if (!m_model) return false;
  std::vector<schedule::Trace> traces(m_model->groups.size());
  std::map<std::string, graph::GroupChoice> choices;
  for (const graph::ModelGroup& g : m_model->groups) {
    graph::GroupChoice c = schedule.choiceFor(g.name);
    if (c.source == graph::ScheduleSource::Trace && c.traceFile.empty()) {
      auto trace = schedule::traceFromJson(c.traceJson, g.name);
      if (!trace) {
        if (error)
          *error = QStringLiteral("the trace of group %1 cannot be read: %2")
                       .arg(QString::fromStdString(g.name), QString::fromStdString(trace.error().message));
        return false;
      }
      traces[g.index] = std::move(*trace);
      continue;
    }
    if (c.source == graph::ScheduleSource::Default) continue;
    c.traceFile = absoluteIn(schedule.baseDir, c.traceFile);
    c.log = absoluteIn(schedule.baseDir, c.log);
    choices[g.name] = std::move(c);
  }
  m_choices = std::move(choices);
  m_scheduleBaseDir = schedule.baseDir;
  for (std::size_t i = 0; i < traces.size(); ++i)
    m_groupEdits[i] = GroupEdit{.pending = std::move(traces[i])};
  return true;
}

void Session::stashGroup() {
  if (!m_model || m_group < 0 || m_loadInFlight || !m_state) return;
  GroupEdit e;
  const int count = m_undo->count();
  const auto* first = count > 0 ? dynamic_cast<const StepCommand*>(m_undo->command(0)) : nullptr;
  e.base = first != nullptr ? first->before() : m_state;
  for (int c = 0; c < count; ++c) {
    const auto* cmd = dynamic_cast<const StepCommand*>(m_undo->command(c));
    if (cmd == nullptr) break;
    e.afters.push_back(cmd->after());
    e.texts.push_back(cmd->text());
  }
  e.index = std::min<int>(m_undo->index(), int(e.afters.size()));
  if (!m_undo->isClean()) m_modelDirty = true;
  m_groupEdits[std::size_t(m_group)] = std::move(e);
}

void Session::selectGroup(int index) {
  if (!m_model || index < 0 || index >= int(m_model->groups.size()) || index == m_group) return;
  stashGroup();
  // Results computed for the group being left are stale now.
  ++m_loadGeneration;
  ++m_applyGeneration;
  ++m_previewGeneration;
  m_loadInFlight = false;
  m_group = index;
  const graph::ModelGroup& g = m_model->groups[std::size_t(index)];
  m_source = groupSourceText(g, QFileInfo(m_modelPath).fileName());
  Q_EMIT sourceReplaced(m_source);
  const GroupEdit& e = m_groupEdits[std::size_t(index)];
  if (e.base) {
    // Bring the group's history back: the same states, the same undo index.
    QSignalBlocker block(this);
    m_undo->clear();
    m_state = e.base;
    StatePtr previous = e.base;
    for (std::size_t i = 0; i < e.afters.size(); ++i) {
      m_undo->push(new StepCommand(this, previous, e.afters[i], e.texts[i]));
      previous = e.afters[i];
    }
    m_undo->setIndex(e.index);
    m_undo->setClean();
    m_installedByStep = false;
    m_sourceDiagnostics.clear();
    m_actionDiagnostics.clear();
    m_diagnostics.clear();
    block.unblock();
    Q_EMIT groupChanged();
    Q_EMIT stateChanged();
    Q_EMIT diagnosticsChanged();
    updateModified();
    analyseCurrent();
    Q_EMIT jobDone();
    return;
  }
  {
    QSignalBlocker block(this);
    m_undo->clear(); // the previous group's steps must not be undone on this group
  }
  m_state.reset();
  m_pendingTrace = e.pending;
  Q_EMIT groupChanged();
  m_groupFunc = g.func;
  startLoad(m_source, e.pending, true, true);
  m_groupFunc.reset();
}

schedule::Trace Session::groupTrace(int index) const {
  if (!m_model || index < 0 || index >= int(m_groupEdits.size())) return {};
  if (index == m_group) return trace();
  const GroupEdit& e = m_groupEdits[std::size_t(index)];
  if (!e.base) return e.pending;
  const StatePtr& s = e.index == 0 ? e.base : e.afters[std::size_t(e.index - 1)];
  return s->schedule.trace();
}

void Session::groupStepped() {
  if (!m_model || m_group < 0) return;
  m_choices.erase(m_model->groups[std::size_t(m_group)].name); // the hand trace decides again
  Q_EMIT modelScheduleChanged();
}

graph::ModelSchedule Session::modelSchedule() const {
  graph::ModelSchedule s;
  s.model = QFileInfo(m_modelPath).fileName().toStdString();
  s.baseDir = m_scheduleBaseDir;
  s.alterLayout = m_alterLayout;
  if (!m_model) return s;
  for (const graph::ModelGroup& g : m_model->groups) {
    if (auto it = m_choices.find(g.name); it != m_choices.end()) {
      if (it->second.source != graph::ScheduleSource::Default) s.groups[g.name] = it->second;
      continue;
    }
    const schedule::Trace t = groupTrace(int(g.index));
    if (t.instructions.empty()) continue;
    graph::GroupChoice c;
    c.source = graph::ScheduleSource::Trace;
    c.traceJson = schedule::traceToJson(t);
    s.groups[g.name] = std::move(c);
  }
  return s;
}

bool Session::setModelSchedule(const graph::ModelSchedule& schedule, QString* error) {
  if (!m_model) {
    if (error) *error = QStringLiteral("open a Relay model before its schedule");
    return false;
  }
  if (schedule.alterLayout != m_alterLayout) {
    // Other groups: the model is loaded again with the schedule's layout (a copy of the
    // path: openModel clears m_modelPath first).
    const QString path = m_modelPath;
    openModel(path, schedule);
    m_modelDirty = true;
    updateModified();
    return true;
  }
  if (!applyScheduleChoices(schedule, error)) return false;
  m_modelDirty = true;
  const int group = m_group;
  m_group = -1; // its history was replaced: load it again
  Q_EMIT modelScheduleChanged();
  selectGroup(std::max(group, 0));
  updateModified();
  return true;
}

void Session::setModelAlterLayout(bool on) {
  if (!isModel() || on == m_alterLayout) return;
  graph::ModelSchedule s;
  s.model = QFileInfo(m_modelPath).fileName().toStdString();
  s.alterLayout = on;
  const QString path = m_modelPath; // openModel clears m_modelPath first
  openModel(path, s);
  m_modelDirty = true;
  updateModified();
}

void Session::setAllGroupSources(graph::ScheduleSource source) {
  if (!m_model) return;
  for (const graph::ModelGroup& g : m_model->groups) {
    graph::GroupChoice c;
    c.source = source;
    m_choices[g.name] = c;
  }
  m_modelDirty = true;
  updateModified();
  Q_EMIT modelScheduleChanged();
}

} // namespace loopscape::gui
