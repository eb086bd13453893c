// The Iteration space dock (views/iteration_space_view.h): it follows the TensorIR view's
// selection and the program shown there (the current state, or a trace step being looked
// at), and computes its slice in a background job (space_jobs.h) whenever the dock is
// seen and the program, the block or the controls changed. A newer request stops the
// running one (its own stop source, joined to the runner's Cancel) and a generation id
// drops stale results. Schedule → Preview step (and the Primitives panel's and the view's
// Preview buttons) shows the form's step in the view before it is applied.
#include "app/gui/main_window.h"
#include "app/gui/space_jobs.h"
#include "views/iteration_space_view.h"
#include "views/primitive_panel.h"
#include "views/tensorir_view.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QToolBar>

namespace loopscape::gui {

void MainWindow::createSpaceDock() {
  m_space = new views::IterationSpaceView(this);
  m_spaceDock = new QDockWidget(QStringLiteral("Iteration space"), this);
  m_spaceDock->setObjectName(QStringLiteral("spaceDock"));
  m_spaceDock->setWidget(m_space);
  addDockWidget(Qt::LeftDockWidgetArea, m_spaceDock);
  // Beside the schedule tree: both are pictures of the polyhedral model.
  tabifyDockWidget(m_treeDock, m_spaceDock);
  m_treeDock->raise();
  QAction* toggle = m_spaceDock->toggleViewAction();
  toggle->setObjectName(QStringLiteral("viewToggle_spaceDock"));
  toggle->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+6")));
  addAction(toggle);
  auto* runBar = findChild<QToolBar*>(QStringLiteral("runToolBar"));
  m_viewMenu->insertAction(runBar ? runBar->toggleViewAction() : nullptr, toggle);

  QAction* preview =
      makeAction(QStringLiteral("schedulePreviewStep"), QStringLiteral("Pre&view step in the iteration space"),
                 QKeySequence(QStringLiteral("Ctrl+Shift+Return")));
  preview->setToolTip(QStringLiteral("Draw the iteration space under the step the Primitives form would apply"));
  connect(preview, &QAction::triggered, m_panel, &views::PrimitivePanel::preview);
  m_scheduleMenu->insertAction(action(QStringLiteral("scheduleBackToCurrent")), preview);

  auto follow = [this] { m_space->setSelection(m_tensorIr->snapshot(), m_tensorIr->selectedNode()); };
  connect(m_tensorIr, &views::TensorIrView::nodeSelected, this, follow);
  connect(m_session, &Session::stateChanged, this, follow);
  connect(m_session, &Session::analysisReady, this, follow);
  connect(m_session, &Session::previewReady, this, follow);
  connect(m_space, &views::IterationSpaceView::requestChanged, this, [this] {
    m_spaceStale = true;
    refreshSpace();
  });
  connect(m_spaceDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (!visible) return;
    // The first time it is seen docked in a side column, the column widens and the dock
    // takes most of its height: the default column is a narrow strip for a picture.
    if (!m_spaceDock->property("sized").toBool() && !m_spaceDock->isFloating()) {
      m_spaceDock->setProperty("sized", true);
      const Qt::DockWidgetArea area = dockWidgetArea(m_spaceDock);
      if (area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea) {
        if (m_spaceDock->width() < 460) resizeDocks({m_spaceDock}, {std::min(560, width() * 2 / 5)}, Qt::Horizontal);
        if (dockWidgetArea(m_programDock) == area && !m_programDock->isFloating() && m_programDock->isVisible())
          resizeDocks({m_programDock, m_spaceDock}, {height() / 4, height() * 3 / 4}, Qt::Vertical);
      }
    }
    refreshSpace();
  });
  // Cancel in the status bar drops the running job's result: the view says so and the
  // slice is computed again on the next change.
  connect(m_session->jobs(), &JobRunner::cancelled, this, [this] {
    if (!m_spaceStop) return;
    m_spaceStop.reset();
    m_spaceStale = true;
    m_space->setError(QStringLiteral("Cancelled: change the axes, a slider or the selection to compute it again."));
  });
  connect(m_panel, &views::PrimitivePanel::previewRequested, this, &MainWindow::previewStep);
  connect(m_space, &views::IterationSpaceView::previewStepRequested, m_panel, &views::PrimitivePanel::preview);
}

std::shared_ptr<std::stop_source> MainWindow::startSpaceJob() {
  if (m_spaceStop) m_spaceStop->request_stop();
  m_spaceStop = std::make_shared<std::stop_source>();
  return m_spaceStop;
}

void MainWindow::runSpaceJob(const QString& label, std::function<SpaceJobResult(std::stop_token)> work) {
  const std::uint64_t generation = ++m_spaceGeneration;
  std::shared_ptr<std::stop_source> mine = startSpaceJob();
  m_space->setComputing();
  m_session->jobs()->run<SpaceJobResult>(
      label,
      [mine, work = std::move(work)](std::stop_token runner, const ProgressFn&) {
        // Either a newer request or the user's Cancel stops it.
        std::stop_callback joined(runner, [mine] { mine->request_stop(); });
        return work(mine->get_token());
      },
      [this, generation](SpaceJobResult r) {
        if (generation != m_spaceGeneration) return;
        m_spaceStop.reset(); // nothing of this view runs any more
        if (r.cancelled) {
          m_space->setError(
              QStringLiteral("Cancelled: change the axes, a slider or the selection to compute it again."));
          m_spaceStale = true;
          return;
        }
        if (r.drawing)
          m_space->setDrawing(std::move(r.drawing));
        else
          m_space->setError(QString::fromStdString(r.error));
      });
}

void MainWindow::refreshSpace() {
  // Compute only what is seen: a hidden view is brought up to date when shown.
  if (!m_spaceStale || m_spaceDock->visibleRegion().isEmpty()) return;
  const std::shared_ptr<const views::ProgramSnapshot>& snapshot = m_space->snapshot();
  if (!snapshot || !snapshot->state || m_space->block().isEmpty()) return;
  m_spaceStale = false;
  QString error;
  const std::optional<poly::IterationSpaceRequest> request = m_space->request(&error);
  if (!request) {
    m_space->setError(error);
    return;
  }
  runSpaceJob(QStringLiteral("Iteration space"), [state = snapshot->state, req = *request](std::stop_token stop) {
    return computeSpace(state, req, stop);
  });
}

bool MainWindow::previewStep(const views::PrimitiveRequest& request) {
  const StatePtr state = m_session->state();
  if (!state || m_previewing || !request.snapshot || !request.snapshot->sameProgramAs(*state->program())) return false;
  m_spaceDock->show();
  m_spaceDock->raise();
  // The view follows the step's selection (the block it acts on).
  if (!m_space->snapshot() || !m_space->snapshot()->sameProgramAs(*request.snapshot))
    m_space->setSelection(request.snapshot, m_tensorIr->selectedNode());
  QString error;
  const std::optional<poly::IterationSpaceRequest> slice = m_space->request(&error);
  if (!slice) {
    m_space->setError(error);
    return false;
  }
  m_spaceStale = false;
  runSpaceJob(QStringLiteral("Previewing %1").arg(QString::fromStdString(request.kind)),
              [before = state->schedule, request, req = *slice](std::stop_token stop) {
                return computeStepPreview(before, request, req, stop);
              });
  return true;
}

} // namespace loopscape::gui
