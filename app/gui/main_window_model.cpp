// MainWindow: the Model dock. Opening a .relay file loads the model in the background
// (Session::openModel) and shows its graph and groups here; clicking a group opens its
// PrimFunc in the workbench with its own trace and undo history (Session::selectGroup).
// Run → Profile model compiles every group with the session's model schedule
// (graph::compileModel: progress in the status bar, cancelled by its Cancel) and runs the
// model in the isolated worker (graph::runModel); the groups table and chart show each
// group's median time and share, and the picture colours the groups by share. "poly_auto
// for every group" and "Default schedules" set every group's choice; File → Save/Open
// model schedule write and read the JSON file the CLI's `relay run --schedule` reads.
#include "app/gui/main_window.h"

#include "core/graph/compiled_model.h"
#include "core/graph/model_run.h"
#include "views/model_view.h"
#include "views/profile_view.h"
#include "views/program_editor.h"
#include "views/status_label.h"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::gui {

namespace {

struct ModelRunResult {
  std::optional<Diagnostic> error;
  std::vector<double> groupMs; ///< per Model::groups entry
  double medianMs = 0;
  std::size_t cacheHits = 0;
  std::string target;
  int threads = 0;
  /// With verification: per Model::groups entry (ModelGroupRow::verified) and a sentence.
  std::vector<std::string> groupVerified;
  std::string verifySummary;
  bool verifyFailed = false;
};

/// The run's verification, as `relay run --verify` reports it.
void describeVerification(const graph::Model& model, const graph::ModelVerifyReport& report, ModelRunResult& r) {
  r.groupVerified.assign(model.groups.size(), std::string());
  for (const graph::GroupCheck& c : report.groups) {
    if (c.group >= r.groupVerified.size()) continue;
    std::string& cell = r.groupVerified[c.group];
    if (!c.passed()) {
      const codegen::OutputCheck& failed = c.check.passed() ? *c.sampledCheck : c.check;
      cell = "MISMATCH: " + failed.str();
    } else if (cell.empty()) {
      cell = c.reference == codegen::ReferenceKind::Interpreter ? "ok" : "ok (vs unscheduled)";
    }
  }
  for (const codegen::OutputCheck& c : report.model)
    if (!c.passed()) {
      r.verifyFailed = true;
      r.verifySummary = "Verify FAILED: the whole model interpreted, " + c.name + ": " + c.str();
      return;
    }
  if (const graph::GroupCheck* f = report.firstFailure()) {
    r.verifyFailed = true;
    r.verifySummary = fmt::format("Verify FAILED at group {} {}: {}", f->group, model.groups[f->group].name,
                                  r.groupVerified[f->group].substr(10));
    return;
  }
  r.verifySummary = report.model.empty() ? "Verified group by group" : "Verified group by group and as a whole";
}

} // namespace

void MainWindow::createModelDock() {
  m_model = new views::ModelView(this);
  m_modelDock = new QDockWidget(QStringLiteral("Model"), this);
  m_modelDock->setObjectName(QStringLiteral("modelDock"));
  m_modelDock->setWidget(m_model);
  addDockWidget(Qt::LeftDockWidgetArea, m_modelDock);
  // Beside the schedule tree, under the Program pane (which shows the open group).
  tabifyDockWidget(m_treeDock, m_modelDock);
  m_treeDock->raise();
  QAction* toggle = m_modelDock->toggleViewAction();
  toggle->setObjectName(QStringLiteral("viewToggle_modelDock"));
  toggle->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+7")));
  addAction(toggle);
  auto* runBar = findChild<QToolBar*>(QStringLiteral("runToolBar"));
  m_viewMenu->insertAction(runBar ? runBar->toggleViewAction() : nullptr, toggle);

  QAction* profile = makeAction(QStringLiteral("runProfileModel"), QStringLiteral("Profile &model"),
                                QKeySequence(QStringLiteral("Ctrl+Shift+M")));
  profile->setToolTip(QStringLiteral("Compile every group with its schedule and time the whole model"));
  connect(profile, &QAction::triggered, this, [this] { profileModel(); });
  QAction* poly = makeAction(QStringLiteral("modelPolyAll"), QStringLiteral("Schedule every group with &poly_auto"),
                             QKeySequence(QStringLiteral("Ctrl+Alt+L")));
  poly->setToolTip(QStringLiteral("Every group's schedule becomes poly_optimize (fusion smart); a group's own steps "
                                  "count again after its next step"));
  connect(poly, &QAction::triggered, this, [this] { m_session->setAllGroupSources(graph::ScheduleSource::Poly); });
  QAction* defaults = makeAction(QStringLiteral("modelDefaultAll"), QStringLiteral("&Default schedules"),
                                 QKeySequence(QStringLiteral("Ctrl+Alt+J")));
  defaults->setToolTip(QStringLiteral("Every group gets the built-in schedule of its pattern"));
  connect(defaults, &QAction::triggered, this,
          [this] { m_session->setAllGroupSources(graph::ScheduleSource::Default); });
  QAction* layout = makeAction(QStringLiteral("modelAlterLayout"), QStringLiteral("NCHW[x]c &layout (AlterOpLayout)"),
                               QKeySequence(QStringLiteral("Ctrl+Alt+Shift+M")));
  layout->setCheckable(true);
  layout->setToolTip(QStringLiteral("Load the model again with TVM's x86 AlterOpLayout: convolutions in NCHW[x]c and "
                                    "dense weights packed, each scheduled by TOPI's x86 template by default. The "
                                    "groups change: their steps and choices are dropped"));
  connect(layout, &QAction::toggled, this, [this](bool on) { m_session->setModelAlterLayout(on); });
  QAction* save = makeAction(QStringLiteral("fileSaveModelSchedule"), QStringLiteral("Save &model schedule…"),
                             QKeySequence(QStringLiteral("Ctrl+Alt+Shift+S")));
  connect(save, &QAction::triggered, this, [this] {
    const QString base = QFileInfo(m_session->modelPath()).completeBaseName();
    const QString path = askPath(Ask::Save, QStringLiteral("Save model schedule"), base + QStringLiteral(".json"),
                                 QStringLiteral("Model schedules (*.json)"));
    if (!path.isEmpty()) saveModelScheduleTo(path);
  });
  QAction* open = makeAction(QStringLiteral("fileOpenModelSchedule"), QStringLiteral("Open model sc&hedule…"),
                             QKeySequence(QStringLiteral("Ctrl+Alt+Shift+O")));
  connect(open, &QAction::triggered, this, [this] {
    const QString path = askPath(Ask::Open, QStringLiteral("Open model schedule"), QString(),
                                 QStringLiteral("Model schedules (*.json)"));
    if (!path.isEmpty()) openModelScheduleFrom(path);
  });
  // The dock's toolbar is narrow: short button texts (the menus show the full ones).
  profile->setIconText(QStringLiteral("Profile model"));
  poly->setIconText(QStringLiteral("All poly_auto"));
  defaults->setIconText(QStringLiteral("All default"));
  for (QAction* a : {profile, poly, defaults, save, open, layout})
    a->setEnabled(false);
  if (auto* file = menuBar()->findChild<QMenu*>(QStringLiteral("fileMenu"))) {
    QAction* before = action(QStringLiteral("fileExportKernel"));
    file->insertAction(before, save);
    file->insertAction(before, open);
    file->insertSeparator(before);
  }
  m_runMenu->addSeparator();
  m_runMenu->addAction(profile);
  m_runMenu->addAction(poly);
  m_runMenu->addAction(defaults);
  m_runMenu->addAction(layout);
  m_model->toolBar()->addAction(profile);
  m_model->toolBar()->addWidget(m_model->verifyBox());
  m_model->toolBar()->addWidget(m_model->threadsBox());
  m_model->toolBar()->addSeparator();
  m_model->toolBar()->addAction(poly);
  m_model->toolBar()->addAction(defaults);

  connect(m_model, &views::ModelView::groupActivated, m_session, &Session::selectGroup);
  connect(m_session, &Session::modelChanged, this, [this, profile, poly, defaults, save, open, layout] {
    ++m_modelRunGeneration; // a run of the previous model does not belong here
    m_modelProfiling = false;
    m_modelTimes.clear();
    m_modelVerified.clear();
    const bool model = m_session->isModel();
    const bool loaded = m_session->model() != nullptr;
    for (QAction* a : {profile, poly, defaults, save, open, layout})
      a->setEnabled(loaded);
    {
      QSignalBlocker block(layout);
      layout->setChecked(m_session->modelAlterLayout());
    }
    m_editor->setReadOnly(model);
    // Saving the group's text as a program would not be the model: only sessions save it.
    action(QStringLiteral("fileSaveProgram"))->setEnabled(!model);
    action(QStringLiteral("fileSaveProgramAs"))->setEnabled(!model);
    if (!model) {
      m_model->setModel(nullptr);
      return;
    }
    const QString name = QFileInfo(m_session->modelPath()).fileName();
    m_model->setModel(m_session->model(), loaded ? QString()
                                          : m_session->diagnostics().empty()
                                              ? QStringLiteral("Loading %1…").arg(name)
                                              : QStringLiteral("%1 could not be loaded: see Diagnostics.").arg(name));
    refreshModelRows();
    if (!m_modelDock->isVisible() || m_modelDock->visibleRegion().isEmpty()) {
      m_modelDock->show();
      m_modelDock->raise();
      // The graph and the groups table need room: the Program pane (the group's text)
      // gives up height, the TensorIR view some width.
      resizeDocks({m_programDock, m_modelDock}, {220, 680}, Qt::Vertical);
      resizeDocks({m_modelDock}, {std::max(m_modelDock->width(), width() * 3 / 10)}, Qt::Horizontal);
    }
  });
  connect(m_session, &Session::groupChanged, this, [this] {
    m_model->setCurrentGroup(m_session->currentGroup());
    m_firstState = true; // select the group's first loop when it is shown
    m_profile->setProgram(QStringLiteral("%1#%2").arg(m_session->modelPath()).arg(m_session->currentGroup()),
                          m_session->displayName());
    refreshModelRows();
  });
  connect(m_session, &Session::modelScheduleChanged, this, [this] { refreshModelRows(); });
  connect(m_session, &Session::stateChanged, this, [this] {
    if (m_session->model()) refreshModelRows(); // the group's "edited" mark
  });
  connect(m_session->jobs(), &JobRunner::cancelled, this, [this] {
    if (!m_modelProfiling) return;
    m_modelProfiling = false;
    ++m_modelRunGeneration;
    m_model->setStatus(QStringLiteral("Profile model cancelled."));
  });
}

void MainWindow::refreshModelRows() {
  const std::shared_ptr<const graph::Model>& model = m_session->model();
  if (!model) return;
  const graph::ModelSchedule schedule = m_session->modelSchedule();
  double total = 0;
  for (double ms : m_modelTimes)
    total += ms;
  std::vector<views::ModelGroupRow> rows;
  for (const graph::ModelGroup& g : model->groups) {
    views::ModelGroupRow r;
    r.name = g.name;
    r.pattern = g.pattern;
    r.ops = g.ops;
    r.source = schedule.choiceFor(g.name).describe();
    r.flops = g.flops;
    r.edited = !m_session->groupTrace(int(g.index)).instructions.empty();
    if (g.index < m_modelTimes.size()) {
      r.ms = m_modelTimes[g.index];
      r.share = total > 0 ? m_modelTimes[g.index] / total : 0;
    }
    if (g.index < m_modelVerified.size()) r.verified = m_modelVerified[g.index];
    rows.push_back(std::move(r));
  }
  m_model->setRows(std::move(rows));
  m_model->setCurrentGroup(m_session->currentGroup());
}

bool MainWindow::profileModel() {
  const std::shared_ptr<const graph::Model> model = m_session->model();
  if (!model || m_modelProfiling) return false;
  QString target = m_profile->options().target;
  if (target.isEmpty()) target = m_session->target();
  const graph::ModelSchedule schedule = m_session->modelSchedule();
  const bool verify = m_model->verify();
  const int threads = m_model->threads();
  const std::uint64_t generation = ++m_modelRunGeneration;
  m_modelProfiling = true;
  m_model->setStatus(QStringLiteral("Compiling %1 groups for %2…").arg(model->groups.size()).arg(target));
  m_modelDock->show();
  m_modelDock->raise();
  m_session->jobs()->run<ModelRunResult>(
      QStringLiteral("Profiling model"),
      [model, schedule, verify, threads, target = target.toStdString()](std::stop_token stop,
                                                                        const ProgressFn& progress) {
        ModelRunResult r;
        r.target = target;
        r.threads = threads;
        graph::CompileOptions co;
        co.target = target;
        co.threads = threads;
        co.stop = stop;
        // One step per group to compile, the run, and (verifying) one step per group checked.
        const int groups = int(model->groups.size());
        const int total = groups + 1 + (verify ? groups : 0);
        co.progress = [&progress, total](const graph::CompileProgress& p) { progress(int(p.done), total); };
        auto compiled = graph::compileModel(*model, schedule, co);
        if (!compiled) {
          r.error = compiled.error();
          return r;
        }
        r.cacheHits = compiled->cacheHits;
        auto inputs = graph::modelInputs(*model, {}, {}, 0);
        if (!inputs) {
          r.error = inputs.error();
          return r;
        }
        graph::ModelRunOptions ro;
        ro.repeat = 5;
        ro.stop = stop;
        auto run = graph::runModel(*model, *compiled, *inputs, ro);
        if (!run) {
          r.error = run.error();
          return r;
        }
        progress(groups + 1, total);
        if (verify) {
          graph::ModelVerifyOptions vo;
          vo.stop = stop;
          vo.progress = [&](std::size_t done, std::size_t) { progress(groups + 1 + int(done), total); };
          auto report = graph::verifyModel(*model, *compiled, *inputs, vo);
          if (!report) {
            r.error = report.error();
            return r;
          }
          describeVerification(*model, *report, r);
        }
        r.groupMs.assign(model->groups.size(), 0.0);
        for (const graph::GroupTime& t : run->groups)
          if (t.group < r.groupMs.size()) r.groupMs[t.group] += t.seconds * 1e3;
        r.medianMs = run->medianSeconds() * 1e3;
        return r;
      },
      [this, generation, model](ModelRunResult r) {
        if (generation != m_modelRunGeneration) return;
        m_modelProfiling = false;
        if (r.error) {
          m_model->setStatus(QStringLiteral("Profile model failed: %1").arg(QString::fromStdString(r.error->message)));
          m_statusLabel->setMessage(
              QStringLiteral("Profile model failed: %1").arg(QString::fromStdString(r.error->message)));
          return;
        }
        m_modelTimes = r.groupMs;
        m_modelVerified = r.groupVerified;
        refreshModelRows();
        m_model->tabs()->setCurrentIndex(0);
        double gflops = r.medianMs > 0 ? double(model->totalFlops()) / (r.medianMs * 1e6) : 0;
        QString status =
            QStringLiteral("%1, %2: %3 ms end to end (median of 5), %4 GFLOP/s; %5/%6 kernels cached.")
                .arg(QString::fromStdString(r.target))
                .arg(r.threads > 0 ? QStringLiteral("%1 thread%2").arg(r.threads).arg(r.threads > 1 ? "s" : "")
                                   : QStringLiteral("all cores"))
                .arg(r.medianMs, 0, 'f', 3)
                .arg(gflops, 0, 'f', 2)
                .arg(r.cacheHits)
                .arg(model->groups.size());
        if (!r.verifySummary.empty()) status += QStringLiteral(" ") + QString::fromStdString(r.verifySummary) + ".";
        m_model->setStatus(status);
        if (r.verifyFailed) m_statusLabel->setMessage(QString::fromStdString(r.verifySummary));
      });
  return true;
}

bool MainWindow::saveModelScheduleTo(const QString& path) {
  if (!m_session->model()) return false;
  auto ok = graph::writeModelSchedule(path.toStdString(), m_session->modelSchedule());
  if (!ok) {
    const QString error = QString::fromStdString(ok.error().message);
    if (!m_options.noPrompts) QMessageBox::warning(this, QStringLiteral("Save model schedule"), error);
    statusBar()->showMessage(error, 5000);
    return false;
  }
  statusBar()->showMessage(QStringLiteral("Saved %1").arg(path), 3000);
  return true;
}

bool MainWindow::openModelScheduleFrom(const QString& path) {
  auto schedule = graph::readModelSchedule(path.toStdString());
  QString error;
  if (!schedule)
    error = QString::fromStdString(schedule.error().message);
  else
    m_session->setModelSchedule(*schedule, &error);
  if (!error.isEmpty()) {
    if (!m_options.noPrompts) QMessageBox::warning(this, QStringLiteral("Open model schedule"), error);
    statusBar()->showMessage(error, 5000);
    return false;
  }
  statusBar()->showMessage(QStringLiteral("Opened %1").arg(path), 3000);
  return true;
}

} // namespace loopscape::gui
