// MainWindow: the Compare window (compare_window.h). Run → Compare… (Ctrl+Shift+D) opens
// it with its last choice; Run → Compare with poly_auto (Ctrl+Shift+J, also a button on
// the Run tool bar) opens it on the classic comparison, the current trace against
// poly_auto on the same program. The window is made on first use and follows the theme;
// File → Export view (its Export… button, Ctrl+Alt+E in it) exports the whole window.
#include "app/gui/compare_window.h"
#include "app/gui/main_window.h"

#include <QAction>
#include <QMenu>
#include <QToolBar>

namespace loopscape::gui {

CompareWindow* MainWindow::compareWindow() {
  if (!m_compare) {
    m_compare = new CompareWindow(m_session, this);
    m_compare->setDark(m_dark);
    m_compare->resize(size());
    // File → Export view (Ctrl+Alt+E) works in the Compare window too, and exports it.
    m_compare->addAction(action(QStringLiteral("fileExportView")));
    connect(m_compare, &CompareWindow::exportRequested, action(QStringLiteral("fileExportView")), &QAction::trigger);
  }
  return m_compare;
}

bool MainWindow::openComparison(const CompareSpec& a, const CompareSpec& b) {
  CompareWindow* w = compareWindow();
  w->setSpecs(a, b);
  w->show();
  w->raise();
  w->activateWindow();
  return w->compare();
}

CompareWindow* MainWindow::prepareCompareExport() {
  CompareWindow* w = compareWindow();
  if (!w->isVisible()) w->resize(size()); // headless: the window's size; shown: as the user sized it
  w->show();
  if (!w->result() && !w->isBusy()) w->compare();
  w->waitIdle(24 * 3600 * 1000);
  return w;
}

void MainWindow::createCompareActions() {
  QAction* open = makeAction(QStringLiteral("runCompare"), QStringLiteral("&Compare…"),
                             QKeySequence(QStringLiteral("Ctrl+Shift+D")));
  open->setToolTip(QStringLiteral("Compare two states of the program side by side"));
  connect(open, &QAction::triggered, this, [this] {
    CompareWindow* w = compareWindow();
    w->show();
    w->raise();
    w->activateWindow();
    if (!w->result()) w->compare();
  });
  QAction* poly = makeAction(QStringLiteral("runCompareWithPolyAuto"), QStringLiteral("Compare with &poly_auto"),
                             QKeySequence(QStringLiteral("Ctrl+Shift+J")));
  poly->setIconText(QStringLiteral("vs poly_auto"));
  poly->setToolTip(QStringLiteral("Compare the current trace with the isl scheduler's poly_auto on the same program "
                                  "(Ctrl+Shift+J)"));
  connect(poly, &QAction::triggered, this, [this] {
    openComparison(CompareSpec{}, CompareSpec{CompareSpec::Kind::PolyAuto, {}, 0});
  });
  m_runMenu->addSeparator();
  m_runMenu->addAction(open);
  m_runMenu->addAction(poly);
  if (auto* runBar = findChild<QToolBar*>(QStringLiteral("runToolBar"))) {
    runBar->addSeparator();
    runBar->addAction(poly);
  }
}

} // namespace loopscape::gui
