// Export of a view (app/gui/view_export.h): every view, to PNG and to SVG, gives a
// non-empty file; a PNG has the widget's size, an SVG parses as XML with an <svg> root
// (the tree's is Graphviz's own picture); an unknown view or extension is refused with a
// message; the focused dock decides which view File → Export view writes, and the action
// writes it; `loopscape --export-view NAME --out FILE` renders one view without a display.
// LS_VIEW_EXPORT_KEEP=1 keeps the exported files (their folder is printed) to look at.
#include "gui_helpers.h"

#include "app/gui/view_export.h"
#include "views/code_view.h"
#include "views/profile_view.h"
#include "views/program_editor.h"
#include "views/schedule_tree_view.h"
#include "views/tensorir_view.h"
#include "views/tree_picture.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

std::vector<views::ProfileRow> measuredRows() {
  std::vector<views::ProfileRow> rows;
  for (int i = 0; i < 3; ++i) {
    views::ProfileRow row;
    row.program = "matmul.te";
    row.step = i;
    row.stepLabel = i == 0 ? "original" : std::to_string(i) + " · split";
    row.target = "cpu-c";
    row.status = views::ProfileRow::Status::Verified;
    row.message = "verified";
    row.perRepeatMs = {1.0};
    row.number = 1;
    row.medianMs = 1.0;
    row.gflops = 10.0 * (i + 1);
    row.intensity = 42.7;
    row.peakGflops = 200;
    row.bandwidthGBs = 25;
    rows.push_back(row);
  }
  return rows;
}

/// Empty when `path` parses as XML whose root element is <svg>, else what is wrong.
QString svgProblem(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("cannot read");
  QXmlStreamReader xml(&f);
  if (!xml.readNextStartElement()) return QStringLiteral("no root element: ") + xml.errorString();
  if (xml.name() != QLatin1String("svg")) return QStringLiteral("root is <%1>").arg(xml.name().toString());
  while (!xml.atEnd())
    xml.readNext();
  return xml.hasError() ? xml.errorString() : QString();
}

} // namespace

class TestViewExport : public QObject {
  Q_OBJECT

private:
  std::unique_ptr<gui::MainWindow> m_window;
  QTemporaryDir m_dir;
  QString m_chosen; ///< what the window's file dialog answers

private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    if (qEnvironmentVariableIsSet("LS_VIEW_EXPORT_KEEP")) {
      m_dir.setAutoRemove(false);
      qInfo("exported files are kept in %s", qPrintable(m_dir.path()));
    }
    gui::MainWindowOptions options;
    options.noPrompts = true;
    options.persistSettings = false;
    options.chooseFile = [this](const QString&, const QString&) { return m_chosen; };
    m_window = std::make_unique<gui::MainWindow>(options);
    m_window->resize(1400, 900);
    m_window->show();
    QVERIFY(m_window->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te")));
    QVERIFY(settle(*m_window));
    m_window->profileView()->restoreRows(measuredRows());
    QCOMPARE(m_window->profileView()->roofline()->points().size(), std::size_t(3));
  }

  void cleanupTestCase() { m_window.reset(); }

  void exportsEveryView_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("suffix");
    QCOMPARE(gui::exportableViewNames(),
             (QStringList{QStringLiteral("tensorir"), QStringLiteral("tree"), QStringLiteral("code"),
                          QStringLiteral("profile"), QStringLiteral("roofline"), QStringLiteral("tune"),
                          QStringLiteral("tune-scatter"), QStringLiteral("trace"), QStringLiteral("program"),
                          QStringLiteral("model"), QStringLiteral("model-time"), QStringLiteral("compare"),
                          QStringLiteral("space")}));
    for (const QString& name : gui::exportableViewNames())
      for (const char* suffix : {"png", "svg"})
        QTest::newRow(qPrintable(name + u'.' + QLatin1String(suffix))) << name << QString::fromLatin1(suffix);
  }

  void exportsEveryView() {
    QFETCH(QString, name);
    QFETCH(QString, suffix);
    const QString path = m_dir.filePath(name + u'.' + suffix);
    QString error;
    QVERIFY2(gui::exportView(*m_window, name, path, &error), qPrintable(error));
    QVERIFY(QFileInfo(path).size() > 0);
    QWidget* widget = gui::prepareViewForExport(*m_window, name);
    QVERIFY(widget);
    QVERIFY(widget->isVisible());
    QVERIFY(widget->width() > 50 && widget->height() > 50);
    if (suffix == QLatin1String("png")) {
      const QImage image(path);
      QVERIFY(!image.isNull());
      QCOMPARE(image.size(), widget->size() * widget->devicePixelRatioF());
      return;
    }
    const QString problem = svgProblem(path);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray svg = f.readAll();
    if (name == QLatin1String("tree")) {
      QCOMPARE(svg, m_window->scheduleTreeView()->picture()->svg()); // Graphviz's picture
    } else {
      // Drawn at the widget's size.
      QVERIFY2(
          svg.contains(QStringLiteral("viewBox=\"0 0 %1 %2\"").arg(widget->width()).arg(widget->height()).toUtf8()),
          svg.left(400).constData());
    }
  }

  void profileTabFollowsTheExportedView() {
    views::ProfileView* profile = m_window->profileView();
    QVERIFY(gui::exportView(*m_window, QStringLiteral("roofline"), m_dir.filePath(QStringLiteral("r.png"))));
    QCOMPARE(profile->chartTabs()->currentWidget(), static_cast<QWidget*>(profile->roofline()));
    QVERIFY(gui::exportView(*m_window, QStringLiteral("profile"), m_dir.filePath(QStringLiteral("p.png"))));
    QCOMPARE(profile->chartTabs()->currentWidget(), static_cast<QWidget*>(profile->chartView()));
  }

  void refusesUnknownViewsAndFormats() {
    QString error;
    QVERIFY(!gui::exportView(*m_window, QStringLiteral("nope"), m_dir.filePath(QStringLiteral("n.png")), &error));
    QVERIFY2(error.startsWith(QStringLiteral("no view named 'nope' (one of: tensorir, tree, code, profile, roofline")),
             qPrintable(error));
    const QString jpg = m_dir.filePath(QStringLiteral("x.jpg"));
    QVERIFY(!gui::exportWidget(m_window->tensorIrView(), jpg, &error));
    QCOMPARE(error, jpg + QStringLiteral(": the extension must be .png or .svg"));
    QVERIFY(!QFileInfo::exists(jpg));
  }

  void focusedDockDecidesAndTheMenuWrites() {
    gui::MainWindow& w = *m_window;
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    const auto focusOn = [](QWidget* widget) {
      widget->setFocus(Qt::OtherFocusReason);
      QApplication::processEvents();
      return QApplication::focusWidget() == widget;
    };
    QVERIFY(focusOn(w.tensorIrView()));
    QCOMPARE(gui::focusedViewName(w), QStringLiteral("tensorir"));
    QVERIFY(focusOn(w.editor()));
    QCOMPARE(gui::focusedViewName(w), QStringLiteral("program"));
    w.profileView()->showRoofline(true);
    QVERIFY(focusOn(w.profileView()->table()));
    QCOMPARE(gui::focusedViewName(w), QStringLiteral("roofline"));
    w.profileView()->showRoofline(false);
    QCOMPARE(gui::focusedViewName(w), QStringLiteral("profile"));

    // File → Export view writes the focused view, an SVG by the chosen name's extension.
    QAction* action = w.action(QStringLiteral("fileExportView"));
    QVERIFY(action);
    bool inFileMenu = false;
    for (QMenu* menu : w.menuBar()->findChildren<QMenu*>())
      if (menu->title() == QStringLiteral("&File")) inFileMenu = menu->actions().contains(action);
    QVERIFY(inFileMenu);
    w.profileView()->showRoofline(true);
    QVERIFY(focusOn(w.profileView()->table()));
    m_chosen = m_dir.filePath(QStringLiteral("menu.svg"));
    action->trigger();
    const QString problem = svgProblem(m_chosen);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QFile f(m_chosen);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("<title>profileRoofline</title>"));
    // No extension: a PNG.
    m_chosen = m_dir.filePath(QStringLiteral("menu"));
    QVERIFY(focusOn(w.tensorIrView()));
    action->trigger();
    QCOMPARE(QImage(m_chosen + QStringLiteral(".png")).size(), w.tensorIrView()->size());
  }

  void commandLineRendersOneViewWithoutDisplay() {
    // A session with measured rows, so that the roofline has points.
    const QString session = m_dir.filePath(QStringLiteral("matmul.lsproj"));
    QVERIFY(m_window->saveSessionTo(session));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
      env.remove(QString::fromLatin1(name));
    auto run = [&](const QStringList& args) {
      QProcess p;
      p.setProcessEnvironment(env);
      p.start(QStringLiteral(LS_GUI_PATH), args);
      if (!p.waitForFinished(60000)) return std::pair<int, QString>{-1, QString()};
      return std::pair<int, QString>{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                                     QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError())};
    };
    const QString png = m_dir.filePath(QStringLiteral("cli_roofline.png"));
    const auto roofline =
        run({session, QStringLiteral("--size"), QStringLiteral("1280x800"), QStringLiteral("--export-view"),
             QStringLiteral("roofline"), QStringLiteral("--out"), png});
    QVERIFY2(roofline.first == 0, qPrintable(roofline.second));
    QVERIFY2(roofline.second.contains(QStringLiteral("wrote %1 (the roofline view)").arg(png)),
             qPrintable(roofline.second));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 100 && image.height() > 100 && image.width() < 1280 && image.height() < 800);

    const QString svg = m_dir.filePath(QStringLiteral("cli_tensorir.svg"));
    const auto text = run({QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te"), QStringLiteral("--export-view"),
                           QStringLiteral("tensorir"), QStringLiteral("--out"), svg});
    QVERIFY2(text.first == 0, qPrintable(text.second));
    const QString problem = svgProblem(svg);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    const auto unknown = run({QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te"), QStringLiteral("--export-view"),
                              QStringLiteral("nope"), QStringLiteral("--out"), svg});
    QCOMPARE(unknown.first, 2);
    QVERIFY2(unknown.second.contains(QStringLiteral("--export-view: no view named 'nope' (one of: tensorir, tree")),
             qPrintable(unknown.second));
    const auto noOut = run(
        {QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te"), QStringLiteral("--export-view"), QStringLiteral("code")});
    QCOMPARE(noOut.first, 2);
    QVERIFY2(noOut.second.contains(QStringLiteral("--export-view needs --out FILE.png or FILE.svg")),
             qPrintable(noOut.second));
  }
};

QTEST_MAIN(TestViewExport)
#include "tst_view_export.moc"
