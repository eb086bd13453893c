#include "app/gui/main_window.h"

#include "app/gui/code_jobs.h"
#include "app/gui/compare_window.h"
#include "app/gui/tune_jobs.h"
#include "views/code_view.h"
#include "views/diagnostics_view.h"
#include "views/iteration_space_view.h"
#include "views/primitive_panel.h"
#include "views/profile_view.h"
#include "views/program_editor.h"
#include "views/schedule_tree_view.h"
#include "views/status_label.h"
#include "views/tensorir_view.h"
#include "views/theme.h"
#include "views/trace_view.h"
#include "views/tune_view.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

namespace loopscape::gui {

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent) : QMainWindow(parent), m_options(options) {
  setObjectName(QStringLiteral("mainWindow"));
  m_session = new Session(this);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks | QMainWindow::AllowTabbedDocks);
  createViews();
  createDocks();
  createActions();
  createMenus();
  createTuneDock();
  createModelDock();
  createSpaceDock();
  createCompareActions();
  createStatusBar();
  wireSession();
  resize(1500, 920);
  m_defaultState = saveState(kStateVersion);
  if (m_options.persistSettings) {
    restoreLayout();
    setDarkTheme(QSettings().value(QStringLiteral("view/dark"), false).toBool());
  }
  updateTitle();
}

MainWindow::~MainWindow() {
  // No job result may arrive while the widgets are being torn down.
  m_session->jobs()->shutdown();
}

void MainWindow::createViews() {
  m_tensorIr = new views::TensorIrView(this);
  m_previewBanner = new QLabel(this);
  m_previewBanner->setObjectName(QStringLiteral("previewBanner"));
  m_previewBanner->setTextFormat(Qt::RichText);
  m_previewBanner->setContentsMargins(6, 3, 6, 3);
  m_previewBanner->setAutoFillBackground(true);
  m_previewBanner->hide();
  connect(m_previewBanner, &QLabel::linkActivated, this, [this] { leavePreview(); });
  auto* central = new QWidget(this);
  central->setObjectName(QStringLiteral("tensorIrPane"));
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  auto* title = new QLabel(QStringLiteral("<b>TensorIR</b> — click a loop or block header to schedule it"), central);
  title->setContentsMargins(6, 3, 6, 3);
  layout->addWidget(title);
  layout->addWidget(m_previewBanner);
  layout->addWidget(m_tensorIr, 1);
  setCentralWidget(central);

  m_editor = new views::ProgramEditor(this);
  m_panel = new views::PrimitivePanel(this);
  // Twice the longest option name (its label and a field as wide): a long program in the
  // TensorIR view must not squeeze the panel's fields to a few letters.
  m_panel->setMinimumWidth(2 * m_panel->fontMetrics().horizontalAdvance(QStringLiteral("disable_predication:")) + 48);
  m_trace = new views::TraceView(this);
  m_diagnostics = new views::DiagnosticsView(this);
  m_code = new views::CodeView(this);
  m_scheduleTree = new views::ScheduleTreeView(this);
  m_profile = new views::ProfileView(this);
  m_profileJob = new ProfileJob(this);
}

void MainWindow::createDocks() {
  auto dock = [this](const QString& name, const QString& title, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(area, d);
    return d;
  };
  m_programDock = dock(QStringLiteral("programDock"), QStringLiteral("Program"), m_editor, Qt::LeftDockWidgetArea);
  m_primitivesDock =
      dock(QStringLiteral("primitivesDock"), QStringLiteral("Primitives"), m_panel, Qt::RightDockWidgetArea);
  m_traceDock = dock(QStringLiteral("traceDock"), QStringLiteral("Trace"), m_trace, Qt::RightDockWidgetArea);
  m_diagnosticsDock =
      dock(QStringLiteral("diagnosticsDock"), QStringLiteral("Diagnostics"), m_diagnostics, Qt::BottomDockWidgetArea);
  m_treeDock = dock(QStringLiteral("scheduleTreeDock"), QStringLiteral("Schedule tree"), m_scheduleTree,
                    Qt::LeftDockWidgetArea);
  splitDockWidget(m_programDock, m_treeDock, Qt::Vertical);
  m_codeDock = dock(QStringLiteral("codeDock"), QStringLiteral("Code"), m_code, Qt::BottomDockWidgetArea);
  tabifyDockWidget(m_diagnosticsDock, m_codeDock);
  m_profileDock = dock(QStringLiteral("profileDock"), QStringLiteral("Profile"), m_profile, Qt::BottomDockWidgetArea);
  tabifyDockWidget(m_codeDock, m_profileDock);
  m_diagnosticsDock->raise();
  splitDockWidget(m_primitivesDock, m_traceDock, Qt::Vertical);
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  resizeDocks({m_programDock, m_primitivesDock}, {430, 430}, Qt::Horizontal);
  resizeDocks({m_primitivesDock, m_traceDock}, {430, 330}, Qt::Vertical);
  resizeDocks({m_diagnosticsDock}, {170}, Qt::Vertical);
  resizeDocks({m_programDock, m_treeDock}, {380, 520}, Qt::Vertical);
}

void MainWindow::createStatusBar() {
  m_statusLabel = new views::StatusLabel(this);
  m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(QStringLiteral("jobProgress"));
  m_progress->setMaximumWidth(160);
  m_progress->setRange(0, 0);
  m_progress->hide();
  m_cancel = new QToolButton(this);
  m_cancel->setObjectName(QStringLiteral("cancelJobs"));
  m_cancel->setText(QStringLiteral("Cancel"));
  m_cancel->setToolTip(QStringLiteral("Cancel parsing, the primitive or the code generation running in the background"));
  m_cancel->hide();
  statusBar()->addWidget(m_statusLabel, 1);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancel);
  connect(m_cancel, &QToolButton::clicked, m_session->jobs(), &JobRunner::cancelAll);
  // Show the progress only for work that takes a noticeable time.
  auto* delay = new QTimer(this);
  delay->setSingleShot(true);
  delay->setInterval(250);
  connect(delay, &QTimer::timeout, this, [this] {
    if (!m_session->isBusy()) return;
    m_progress->show();
    m_cancel->show();
  });
  connect(m_session->jobs(), &JobRunner::busyChanged, this, [this, delay](bool busy) {
    if (busy) {
      delay->start();
      return;
    }
    delay->stop();
    m_progress->hide();
    m_cancel->hide();
    m_progress->setRange(0, 0);
  });
  connect(m_session->jobs(), &JobRunner::progress, this, [this](const QString& label, int done, int total) {
    m_progress->setRange(0, total);
    m_progress->setValue(done);
    m_progress->setFormat(QStringLiteral("%1 %v/%m").arg(label));
  });
}

void MainWindow::wireSession() {
  connect(m_session, &Session::stateChanged, this, &MainWindow::onStateChanged);
  connect(m_session, &Session::analysisReady, this, &MainWindow::onAnalysisReady);
  connect(m_session, &Session::diagnosticsChanged, this, [this] {
    m_diagnostics->setItems(m_session->diagnostics());
    std::vector<views::SourceMark> marks;
    for (const views::DiagnosticItem& d : m_session->diagnostics())
      if (d.origin == views::DiagnosticItem::Origin::Source && d.line > 0)
        marks.push_back({d.line, d.column, d.length, QString::fromStdString(d.message)});
    m_editor->setMarks(marks);
    if (!m_session->diagnostics().empty()) {
      m_diagnosticsDock->show();
      m_statusLabel->setMessage(QString::fromStdString(m_session->diagnostics().front().message));
    }
  });
  connect(m_session, &Session::sourceReplaced, this, [this](const QString& text) {
    m_editor->setLanguage(m_session->language() == frontend::SourceLanguage::TvmScript
                              ? views::TeHighlighter::Language::TvmScript
                              : views::TeHighlighter::Language::Te);
    m_editor->setSource(text);
    m_code->setCurrentTarget(m_session->target());
    m_profile->setCurrentTarget(m_session->target());
    leavePreview();
    updateTitle();
  });
  connect(m_session, &Session::modifiedChanged, this, [this] { updateTitle(); });
  connect(m_session, &Session::previewReady, this, &MainWindow::showPreview);
  // Code view: the plugins are scanned once, in the background.
  m_session->jobs()->run<std::vector<views::TargetEntry>>(
      QStringLiteral("Scanning plugins"), [](std::stop_token, const ProgressFn&) { return availableTargets(); },
      [this](std::vector<views::TargetEntry> targets) {
        m_profile->setTargets(targets);
        m_profile->setCurrentTarget(m_session->target());
        m_code->setTargets(targets);
        m_code->setCurrentTarget(m_session->target());
        m_tune->setTargets(targets);
        m_tune->setCurrentTarget(m_session->target());
        refreshCode();
      },
      JobCancel::OnShutdown);
  // Cancel: code that was being generated is generated again when next needed.
  connect(m_session->jobs(), &JobRunner::cancelled, this, [this] {
    if (!m_codePending) return;
    m_codePending = false;
    m_codeStale = true;
    m_code->setStatus(QStringLiteral("cancelled: apply a step or pick a target to generate again"));
  });
  connect(m_code, &views::CodeView::selectionChanged, this, [this] {
    m_codeStale = true;
    refreshCode();
  });
  connect(m_codeDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible) refreshCode();
  });
  connect(m_session, &Session::codeReady, this,
          [this](bool ok, const QString& text, const QString& status, const views::CodeMap& map) {
            m_codePending = false;
            if (ok)
              m_code->setCode(text, status, map);
            else
              m_code->setError(text, status);
          });
  wireProfile();
  connect(m_editor, &views::ProgramEditor::sourceEdited, m_session, &Session::editSource);
  connect(m_diagnostics, &views::DiagnosticsView::jumpToSource, this, [this](int line, int column) {
    m_programDock->show();
    m_programDock->raise();
    m_editor->jumpTo(line, column);
  });
  connect(m_tensorIr, &views::TensorIrView::nodeSelected, this, [this](int index) {
    m_panel->setSelection(m_previewing ? nullptr : m_tensorIr->snapshot(), index);
    if (m_previewing) return;
    if (index >= 0)
      showNodeInStatus(index);
    else
      m_statusLabel->setMessage(QStringLiteral("Nothing selected: click a loop or block in the TensorIR view."));
  });
  // The code view highlights the lines the selected loop produced; a click on one of them
  // selects that loop.
  connect(m_tensorIr, &views::TensorIrView::nodeSelected, this,
          [this](int index) { m_code->setSelectedLoop(views::loopVarOf(m_tensorIr->snapshot().get(), index)); });
  connect(m_code, &views::CodeView::loopClicked, this, [this](const ir::Expr& loopVar) {
    if (!m_tensorIr->snapshot() || m_panel->isPicking()) return;
    const int index = views::loopNodeOf(*m_tensorIr->snapshot(), loopVar);
    if (index >= 0 && index != m_tensorIr->selectedNode()) m_tensorIr->selectNode(index);
  });
  // The schedule tree and the TensorIR view share the loop selection.
  connect(m_tensorIr, &views::TensorIrView::nodeSelected, this, [this](int index) {
    if (m_tensorIr->snapshot()) m_scheduleTree->selectLoop(m_tensorIr->snapshot()->ordinalOf(index));
  });
  connect(m_scheduleTree, &views::ScheduleTreeView::loopSelected, this, [this](int ordinal) {
    if (!m_tensorIr->snapshot()) return;
    const int index = m_tensorIr->snapshot()->loopByOrdinal(ordinal);
    if (index >= 0 && index != m_tensorIr->selectedNode()) m_tensorIr->selectNode(index);
  });
  connect(m_panel, &views::PrimitivePanel::pickingChanged, m_tensorIr, &views::TensorIrView::setPickMode);
  connect(m_tensorIr, &views::TensorIrView::nodePicked, this, &MainWindow::onNodeClicked);
  connect(m_panel, &views::PrimitivePanel::applyRequested, m_session, &Session::applyPrimitive);
  connect(m_trace, &views::TraceView::rowClicked, this, [this](int row) {
    if (!m_session->state()) return;
    if (row == m_trace->model()->rowCount() - 1) {
      leavePreview();
      return;
    }
    m_session->previewInstruction(row);
  });
  connect(m_session, &Session::primitiveRefused, this, [this](const QString& message) {
    m_statusLabel->setMessage(QStringLiteral("Refused: ") + message);
    m_diagnosticsDock->show();
    m_diagnosticsDock->raise();
  });
}

void MainWindow::onStateChanged() {
  const StatePtr& state = m_session->state();
  m_previewing = false;
  m_previewBanner->hide();
  if (!state) {
    m_scheduleTree->setSnapshot(nullptr);
    m_tensorIr->setSnapshot(nullptr);
    m_trace->model()->setSnapshot(nullptr);
    m_trace->setStatus(QStringLiteral("The program does not parse; see Diagnostics."));
    m_panel->setSelection(nullptr, -1);
    m_firstState = true;
    updateTitle();
    return;
  }
  const int selectedBefore = m_tensorIr->selectedNode();
  const std::optional<const ir::StmtNode*> produced = m_session->selectionHint();
  m_scheduleTree->setSnapshot(state->program());
  m_tensorIr->setSnapshot(state->program(), produced);
  if (produced && !*produced)
    m_statusLabel->setMessage(QStringLiteral("The step left no loop or block to select: click one to go on."));
  m_trace->model()->setSnapshot(state->trace);
  m_trace->table()->scrollToBottom();
  m_codeStale = true;
  refreshCode();
  const int steps = state->trace->stepCount;
  m_trace->setStatus(steps == 0 ? QStringLiteral("No steps yet: pick a loop or block and apply a primitive.")
                                : QStringLiteral("%1 step(s), %2 instruction(s)").arg(steps).arg(state->trace->rows.size()));
  // On the first program, select what the session had selected or else the first loop, so
  // that the panel shows something useful.
  if (m_firstState || (!produced && selectedBefore < 0 && m_tensorIr->selectedNode() < 0)) {
    m_firstState = false;
    int first = -1, named = -1;
    for (std::size_t i = 0; i < state->program()->nodes.size(); ++i) {
      const views::NodeInfo& n = state->program()->nodes[i];
      if (first < 0 && n.kind == views::NodeInfo::Kind::Loop) first = static_cast<int>(i);
      if (named < 0 && !m_pendingSelection.isEmpty() && n.name == m_pendingSelection.toStdString())
        named = static_cast<int>(i);
    }
    m_pendingSelection.clear();
    if (named >= 0 || first >= 0) m_tensorIr->selectNode(named >= 0 ? named : first);
  } else {
    m_panel->setSelection(state->program(), m_tensorIr->selectedNode());
  }
  updateTitle();
}

void MainWindow::refreshCode() {
  // Generate only what is seen: a hidden code view is brought up to date when shown.
  if (!m_codeStale || !m_session->state() || m_codeDock->visibleRegion().isEmpty() || m_code->currentTarget().isEmpty())
    return;
  m_codeStale = false;
  m_code->setStatus(QStringLiteral("generating…"));
  m_codePending = true;
  m_session->requestCode(m_code->currentTarget(), m_code->currentFormat());
}

void MainWindow::onNodeClicked(int index) {
  if (m_panel->isPicking()) m_panel->pickNode(index);
}

void MainWindow::showPreview(std::shared_ptr<const views::ProgramSnapshot> program, int row) {
  m_previewing = true;
  m_previewRow = row;
  m_trace->model()->setPreviewRow(row);
  m_scheduleTree->setSnapshot(program);
  m_tensorIr->setSnapshot(program);
  const int step = row >= 0 && m_session->state() ? m_session->state()->trace->rows[row].step : 0;
  m_previewBanner->setText(QStringLiteral("Showing the program after instruction %1 (step %2 of %3). "
                                          "<a href=\"back\">Back to the current program</a> (Esc)")
                               .arg(row + 1)
                               .arg(step)
                               .arg(m_session->state() ? m_session->state()->trace->stepCount : 0));
  QPalette pal = m_previewBanner->palette();
  pal.setColor(QPalette::Window, m_dark ? QColor(90, 75, 20) : QColor(255, 243, 190));
  m_previewBanner->setPalette(pal);
  m_previewBanner->show();
  m_panel->setSelection(nullptr, -1);
  m_trace->setStatus(QStringLiteral("Showing instruction %1 of %2").arg(row + 1).arg(m_trace->model()->rowCount()));
}

void MainWindow::onAnalysisReady() {
  const StatePtr& state = m_session->state();
  if (!state || m_previewing) return; // leaving the preview shows the current state again
  m_tensorIr->setSnapshot(state->program());
  m_scheduleTree->setSnapshot(state->program());
  const int selected = m_tensorIr->selectedNode();
  m_scheduleTree->selectLoop(state->program()->ordinalOf(selected));
  if (selected >= 0) showNodeInStatus(selected);
}

void MainWindow::showNodeInStatus(int index) {
  // The tooltip's HTML as one plain line.
  QString html = m_tensorIr->describeNode(index).replace(QStringLiteral("<br>"), QStringLiteral(" · "));
  m_statusLabel->setMessage(QTextDocumentFragment::fromHtml(html).toPlainText());
}

void MainWindow::leavePreview() {
  if (!m_previewing) return;
  m_previewing = false;
  m_previewRow = -2;
  m_trace->model()->setPreviewRow(-1);
  m_previewBanner->hide();
  if (m_session->state()) onStateChanged();
}

void MainWindow::updateTitle() {
  setWindowTitle(QStringLiteral("%1[*] — Loopscape").arg(m_session->displayName()));
  setWindowModified(m_session->isModified());
}

void MainWindow::setDarkTheme(bool dark) {
  m_dark = dark;
  views::applyTheme(*qApp, dark);
  m_editor->setDark(dark);
  m_tensorIr->setDark(dark);
  m_code->setDark(dark);
  m_profile->setDark(dark);
  m_tune->setDark(dark);
  if (m_compare) m_compare->setDark(dark);
  m_space->setDark(dark);
  if (QAction* a = action(dark ? QStringLiteral("viewDarkTheme") : QStringLiteral("viewLightTheme")))
    a->setChecked(true);
  if (m_options.persistSettings) QSettings().setValue(QStringLiteral("view/dark"), dark);
}

bool MainWindow::waitIdle(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  if (!m_session->jobs()->waitForIdle(timeoutMs)) return false;
  return m_profileJob->waitForIdle(std::max<int>(0, timeoutMs - static_cast<int>(timer.elapsed())));
}

void MainWindow::restoreLayout() {
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kStateVersion);
}

void MainWindow::saveLayout() {
  if (!m_options.persistSettings) return;
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState(kStateVersion));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  saveLayout();
  m_session->jobs()->cancelAll();
  m_profileJob->cancel();
  m_tuneJob->stop();
  if (m_options.persistSettings) {
    // A clean exit: the recovery file is only for crashes (or kept on purpose when the
    // user closed without prompts while changes were unsaved).
    if (!m_session->isModified()) m_session->removeRecovery();
    QSettings().setValue(QStringLiteral("session/lastCleanExit"), QDateTime::currentDateTimeUtc());
  }
  event->accept();
}

} // namespace loopscape::gui
