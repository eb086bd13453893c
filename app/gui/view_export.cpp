#include "app/gui/view_export.h"

#include "app/gui/compare_window.h"
#include "app/gui/main_window.h"
#include "views/code_view.h"
#include "views/iteration_space_view.h"
#include "views/model_view.h"
#include "views/profile_view.h"
#include "views/program_editor.h"
#include "views/schedule_tree_view.h"
#include "views/tensorir_view.h"
#include "views/trace_view.h"
#include "views/tree_picture.h"
#include "views/tune_view.h"

#include <QApplication>
#include <QChartView>
#include <QDockWidget>
#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTabWidget>

namespace loopscape::gui {

namespace {

QWidget* viewWidget(const MainWindow& window, const QString& name) {
  if (name == QLatin1String("tensorir")) return window.tensorIrView();
  if (name == QLatin1String("tree")) return window.scheduleTreeView()->picture();
  if (name == QLatin1String("code")) return window.codeView();
  if (name == QLatin1String("profile")) return window.profileView()->chartView();
  if (name == QLatin1String("roofline")) return window.profileView()->roofline();
  if (name == QLatin1String("tune")) return window.tuneView()->findChild<QChartView*>(QStringLiteral("tuneCurveView"));
  if (name == QLatin1String("tune-scatter"))
    return window.tuneView()->findChild<QChartView*>(QStringLiteral("tuneScatterView"));
  if (name == QLatin1String("trace")) return window.traceView();
  if (name == QLatin1String("program")) return window.editor();
  if (name == QLatin1String("model")) return window.modelView()->picture();
  if (name == QLatin1String("model-time"))
    return window.modelView()->findChild<QChartView*>(QStringLiteral("modelChartView"));
  if (name == QLatin1String("space")) return window.iterationSpaceView()->canvas();
  return nullptr;
}

bool fail(QString* error, const QString& message) {
  if (error) *error = message;
  return false;
}

} // namespace

QStringList exportableViewNames() {
  return {QStringLiteral("tensorir"),     QStringLiteral("tree"),       QStringLiteral("code"),
          QStringLiteral("profile"),      QStringLiteral("roofline"),   QStringLiteral("tune"),
          QStringLiteral("tune-scatter"), QStringLiteral("trace"),      QStringLiteral("program"),
          QStringLiteral("model"),        QStringLiteral("model-time"), QStringLiteral("compare"),
          QStringLiteral("space")};
}

QWidget* prepareViewForExport(MainWindow& window, const QString& name, bool enlargeDock) {
  if (name == QLatin1String("compare")) return window.prepareCompareExport();
  QWidget* widget = viewWidget(window, name);
  if (!widget) return nullptr;
  if (name == QLatin1String("profile") || name == QLatin1String("roofline"))
    window.profileView()->showRoofline(name == QLatin1String("roofline"));
  if (name == QLatin1String("model-time")) window.modelView()->tabs()->setCurrentIndex(1);
  for (QWidget* w = widget->parentWidget(); w; w = w->parentWidget())
    if (auto* dock = qobject_cast<QDockWidget*>(w)) {
      dock->show();
      dock->raise();
      if (!enlargeDock) break;
      dock->setFloating(true);
      dock->resize(window.size());
      break;
    }
  QApplication::processEvents();
  window.waitIdle();
  if (name == QLatin1String("tree")) window.scheduleTreeView()->picture()->waitRendered();
  if (name == QLatin1String("model")) window.modelView()->picture()->waitRendered();
  QApplication::processEvents();
  return widget;
}

QString focusedViewName(const MainWindow& window) {
  const QWidget* focus = QApplication::focusWidget();
  // Anywhere in the Compare window (its own top-level window): the whole window.
  if (focus && qobject_cast<const CompareWindow*>(focus->window())) return QStringLiteral("compare");
  for (const QString& name : exportableViewNames()) {
    const QWidget* view = viewWidget(window, name);
    if (!view || !focus || (focus != view && !view->isAncestorOf(focus))) continue;
    return name;
  }
  // The profile dock's buttons and table: the chart tab shown.
  if (focus && (focus == window.profileView() || window.profileView()->isAncestorOf(focus)))
    return window.profileView()->chartTabs()->currentWidget() == window.profileView()->roofline()
               ? QStringLiteral("roofline")
               : QStringLiteral("profile");
  if (focus && (focus == window.tuneView() || window.tuneView()->isAncestorOf(focus))) return QStringLiteral("tune");
  if (focus && (focus == window.scheduleTreeView() || window.scheduleTreeView()->isAncestorOf(focus)))
    return QStringLiteral("tree");
  return QStringLiteral("tensorir");
}

bool exportWidget(QWidget* widget, const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("svg")) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(widget->size());
    svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
    svg.setTitle(widget->objectName());
    svg.setDescription(QStringLiteral("Exported from Loopscape"));
    QPainter painter;
    if (!painter.begin(&svg)) return fail(error, QStringLiteral("cannot write %1").arg(path));
    widget->render(&painter);
    painter.end();
    if (QFileInfo(path).size() == 0) return fail(error, QStringLiteral("cannot write %1").arg(path));
    return true;
  }
  if (suffix != QLatin1String("png"))
    return fail(error, QStringLiteral("%1: the extension must be .png or .svg").arg(path));
  const QPixmap pixmap = widget->grab();
  if (pixmap.isNull() || !pixmap.save(path, "PNG")) return fail(error, QStringLiteral("cannot write %1").arg(path));
  return true;
}

bool exportView(MainWindow& window, const QString& name, const QString& path, QString* error, bool enlargeDock) {
  QWidget* widget = prepareViewForExport(window, name, enlargeDock);
  if (!widget)
    return fail(error, QStringLiteral("no view named '%1' (one of: %2)").arg(name, exportableViewNames().join(u", ")));
  // The tree and model pictures are SVG already: write Graphviz's, which scales without loss.
  const QByteArray& treeSvg = name == QLatin1String("model") ? window.modelView()->picture()->svg()
                                                             : window.scheduleTreeView()->picture()->svg();
  if ((name == QLatin1String("tree") || name == QLatin1String("model")) &&
      QFileInfo(path).suffix().toLower() == QLatin1String("svg") && !treeSvg.isEmpty()) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(treeSvg) != treeSvg.size() || !f.commit())
      return fail(error, QStringLiteral("cannot write %1").arg(path));
    return true;
  }
  return exportWidget(widget, path, error);
}

} // namespace loopscape::gui
