// loopscape [FILE] [--trace T] [--screenshot PNG]: the desktop workbench.
//   FILE             a .te program, a TVMScript file (.py, .tvmscript) or a .lsproj session
//   --func NAME      the function of a TVMScript module to open (default: main, or the only one)
//   --trace T        a trace (.py TVM schedule or .json) applied to FILE
//   --screenshot PNG load, lay out, render the window to PNG and exit (0 on success);
//                    runs without a display (offscreen) when none is set
//   --select NAME    select a loop or block first; --raise DOCK brings a dock to the
//                    front; --dark uses the dark theme
//   --tune-trials N  with --screenshot: run a search of N trials with the Tune dock's
//                    default options first (the dock raised), then render
//   --profile-model  with --screenshot and a .relay FILE: Run → Profile model first
//   --group N        with a .relay FILE: open its group N first
//   --compare-a SPEC --compare-b SPEC
//                    open the Compare window on two states of FILE (current, step:N,
//                    poly_auto, best:LOG, none, or a trace file; defaults current and
//                    poly_auto); with --screenshot the Compare window is what is rendered
//                    (--compare-tab code|trees|loops|measure picks its tab, --compare-run
//                    measures both sides first, --select NAME selects on side A)
//   --export-view NAME --out FILE.png|FILE.svg
//                    load, lay out, render the one view NAME (tensorir, tree, code,
//                    profile, roofline, tune, ...: view_export.h) to FILE and exit;
//                    offscreen as --screenshot
#include "app/gui/compare_window.h"
#include "app/gui/main_window.h"
#include "app/gui/tune_jobs.h"
#include "app/gui/view_export.h"
#include "core/ir/error_boundary.h"
#include "core/poly/poly_schedule.h"
#include "views/model_view.h"
#include "views/schedule_tree_view.h"
#include "views/tensorir_view.h"
#include "views/tree_picture.h"
#include "views/tune_view.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QPixmap>
#include <QTimer>

#include <cstdio>

namespace {

int runWorkbench(int argc, char** argv) {
  // --screenshot renders offscreen, and --help/--version only print: none of them needs a
  // display. Anything else without one is refused here, not by Qt's platform plugin abort.
  bool headless = false;
  for (int i = 1; i < argc; ++i) {
    const QByteArray a(argv[i]);
    if (a == "--screenshot" || a.startsWith("--screenshot=") || a == "--export-view" ||
        a.startsWith("--export-view=") || a == "-h" || a == "--help" || a == "--help-all" || a == "-v" ||
        a == "--version")
      headless = true;
  }
  if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
      qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    if (!headless) {
      std::fprintf(stderr, "loopscape: no display (DISPLAY and WAYLAND_DISPLAY are unset): run it in a desktop "
                           "session or under xvfb-run; --screenshot PNG renders without one, and loopscape-cli "
                           "does the same work headless\n");
      return 2;
    }
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }

  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("Loopscape"));
  QCoreApplication::setApplicationName(QStringLiteral("loopscape"));
  QCoreApplication::setApplicationVersion(QStringLiteral("0.1.0"));
  QGuiApplication::setDesktopFileName(QStringLiteral("org.loopscape.Loopscape"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Loopscape: a workbench for tensor-program schedules"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      QStringLiteral("FILE"), QStringLiteral("a .te program, a TVMScript file (.py, .tvmscript) or a .lsproj session"));
  const QCommandLineOption funcOption(QStringLiteral("func"),
                                      QStringLiteral("the function of a TVMScript module to open (default: main, or "
                                                     "the only one)"),
                                      QStringLiteral("NAME"));
  const QCommandLineOption traceOption(QStringLiteral("trace"),
                                       QStringLiteral("apply a trace (.py TVM schedule or .json) to FILE"),
                                       QStringLiteral("T"));
  const QCommandLineOption shotOption(QStringLiteral("screenshot"), QStringLiteral("render the window to PNG and exit"),
                                      QStringLiteral("PNG"));
  const QCommandLineOption darkOption(QStringLiteral("dark"), QStringLiteral("use the dark theme"));
  const QCommandLineOption selectOption(QStringLiteral("select"),
                                        QStringLiteral("select the loop or block NAME (with --screenshot)"),
                                        QStringLiteral("NAME"));
  const QCommandLineOption raiseOption(QStringLiteral("raise"),
                                       QStringLiteral("bring the dock NAME to the front (program, primitives, trace, "
                                                      "diagnostics, code, profile, tune, model)"),
                                       QStringLiteral("NAME"));
  const QCommandLineOption sizeOption(
      QStringLiteral("size"), QStringLiteral("window size for --screenshot and --export-view (default 1600x1000)"),
      QStringLiteral("WxH"), QStringLiteral("1600x1000"));
  const QCommandLineOption tuneOption(QStringLiteral("tune-trials"),
                                      QStringLiteral("with --screenshot: tune N trials (the Tune dock's options) "
                                                     "before rendering"),
                                      QStringLiteral("N"));
  const QCommandLineOption exportOption(QStringLiteral("export-view"),
                                        QStringLiteral("render the view NAME (%1) to --out and exit")
                                            .arg(loopscape::gui::exportableViewNames().join(u", ")),
                                        QStringLiteral("NAME"));
  const QCommandLineOption outOption(QStringLiteral("out"),
                                     QStringLiteral("where --export-view writes: FILE.png or FILE.svg"),
                                     QStringLiteral("FILE"));
  const QCommandLineOption profileModelOption(
      QStringLiteral("profile-model"),
      QStringLiteral("with --screenshot and a .relay FILE: compile and time the model (Run → Profile model) first"));
  const QCommandLineOption groupOption(QStringLiteral("group"),
                                       QStringLiteral("with a .relay FILE: open its group N in the workbench"),
                                       QStringLiteral("N"));
  const QCommandLineOption compareAOption(
      QStringLiteral("compare-a"),
      QStringLiteral("open the Compare window; side A is SPEC: current, step:N, poly_auto, best:LOG, none or a trace "
                     "file (with --screenshot, the Compare window is rendered)"),
      QStringLiteral("SPEC"));
  const QCommandLineOption compareBOption(QStringLiteral("compare-b"),
                                          QStringLiteral("side B of the Compare window (as --compare-a; default "
                                                         "poly_auto)"),
                                          QStringLiteral("SPEC"));
  const QCommandLineOption compareTabOption(QStringLiteral("compare-tab"),
                                            QStringLiteral("the Compare window's tab: code, trees, loops, measure"),
                                            QStringLiteral("NAME"));
  const QCommandLineOption compareRunOption(QStringLiteral("compare-run"),
                                            QStringLiteral("with --screenshot: measure both sides of the Compare "
                                                           "window first"));
  parser.addOptions({compareAOption, compareBOption, compareTabOption, compareRunOption});
  parser.addOptions({traceOption, funcOption, shotOption, darkOption, selectOption, raiseOption, sizeOption, tuneOption,
                     exportOption, outOption, profileModelOption, groupOption});
  parser.process(app);
  const QStringList files = parser.positionalArguments();
  const QString shotPath = parser.value(shotOption);
  const QString exportName = parser.value(exportOption);
  const bool headlessRender = !shotPath.isEmpty() || !exportName.isEmpty();

  loopscape::gui::MainWindowOptions options;
  options.noPrompts = headlessRender;
  options.persistSettings = !headlessRender;
  loopscape::gui::MainWindow window(options);
  if (parser.isSet(darkOption)) window.setDarkTheme(true);

  auto fail = [](const QString& message) {
    std::fprintf(stderr, "loopscape: %s\n", qPrintable(message));
    return 2;
  };
  if (!files.isEmpty()) {
    if (!QFileInfo::exists(files.front())) return fail(QStringLiteral("no such file: %1").arg(files.front()));
    QString why;
    if (!window.openPath(files.front(), &why, parser.value(funcOption)))
      return fail(QStringLiteral("cannot open %1: %2").arg(files.front(), why.trimmed()));
    window.waitIdle();
    if (parser.isSet(groupOption)) {
      bool ok = false;
      const int group = parser.value(groupOption).toInt(&ok);
      const auto& model = window.session()->model();
      if (!model || !ok || group < 0 || group >= int(model->groups.size()))
        return fail(QStringLiteral("--group needs a .relay FILE and a group number below its group count"));
      window.session()->selectGroup(group);
      window.waitIdle();
    }
    if (parser.isSet(traceOption)) {
      if (!window.session()->state())
        return fail(QStringLiteral("%1 does not parse; cannot apply a trace").arg(files.front()));
      if (!window.loadTracePath(parser.value(traceOption)))
        return fail(QStringLiteral("cannot read trace %1").arg(parser.value(traceOption)));
      window.waitIdle();
    }
  } else if (parser.isSet(traceOption)) {
    return fail(QStringLiteral("--trace needs a FILE"));
  }
  if (!exportName.isEmpty() && !loopscape::gui::exportableViewNames().contains(exportName))
    return fail(QStringLiteral("--export-view: no view named '%1' (one of: %2)")
                    .arg(exportName, loopscape::gui::exportableViewNames().join(u", ")));
  if (!exportName.isEmpty() && parser.value(outOption).isEmpty())
    return fail(QStringLiteral("--export-view needs --out FILE.png or FILE.svg"));
  if (exportName.isEmpty() && parser.isSet(outOption)) return fail(QStringLiteral("--out needs --export-view NAME"));

  const bool comparing = parser.isSet(compareAOption) || parser.isSet(compareBOption);
  std::optional<loopscape::gui::CompareSpec> compareA, compareB;
  if (comparing) {
    std::string why;
    compareA = loopscape::gui::parseCompareSpec(
        parser.isSet(compareAOption) ? parser.value(compareAOption).toStdString() : "current", &why);
    if (!compareA) return fail(QStringLiteral("--compare-a: %1").arg(QString::fromStdString(why)));
    compareB =
        loopscape::gui::parseCompareSpec(parser.isSet(compareBOption) ? parser.value(compareBOption).toStdString()
                                                                      : std::string(loopscape::poly::kPolyAutoName),
                                         &why);
    if (!compareB) return fail(QStringLiteral("--compare-b: %1").arg(QString::fromStdString(why)));
    if (files.isEmpty()) return fail(QStringLiteral("--compare-a and --compare-b need a FILE"));
  } else if (parser.isSet(compareTabOption) || parser.isSet(compareRunOption)) {
    return fail(QStringLiteral("--compare-tab and --compare-run need --compare-a or --compare-b"));
  }

  if (headlessRender) {
    const QStringList size = parser.value(sizeOption).split(u'x');
    const int width = size.size() == 2 ? size[0].toInt() : 0;
    const int height = size.size() == 2 ? size[1].toInt() : 0;
    if (width < 320 || height < 240)
      return fail(
          QStringLiteral("--size expects WIDTHxHEIGHT of at least 320x240, not %1").arg(parser.value(sizeOption)));
    window.resize(width, height);
    window.show();
    window.waitIdle();
    if (parser.isSet(selectOption)) {
      const auto& snap = window.tensorIrView()->snapshot();
      if (snap) {
        const std::string name = parser.value(selectOption).toStdString();
        for (std::size_t i = 0; i < snap->nodes.size(); ++i)
          if (snap->nodes[i].name == name) {
            window.tensorIrView()->selectNode(static_cast<int>(i));
            break;
          }
      }
    }
    if (parser.isSet(raiseOption)) {
      auto* dock = window.findChild<QDockWidget*>(parser.value(raiseOption) + QStringLiteral("Dock"));
      if (dock == nullptr) return fail(QStringLiteral("no dock named %1").arg(parser.value(raiseOption)));
      dock->show();
      dock->raise();
      QApplication::processEvents();
      window.waitIdle();
    }
    if (parser.isSet(tuneOption)) {
      bool ok = false;
      const int trials = parser.value(tuneOption).toInt(&ok);
      if (!ok || trials < 1) return fail(QStringLiteral("--tune-trials expects a positive number"));
      loopscape::views::TuneViewOptions tuneOptions = window.tuneView()->options();
      tuneOptions.trials = trials;
      window.tuneView()->setOptions(tuneOptions);
      if (!window.startTuning()) return fail(QStringLiteral("cannot tune: %1").arg(window.tuneView()->status()));
      window.tuneJob()->waitForIdle(24 * 3600 * 1000);
      window.waitIdle();
    }
    if (parser.isSet(profileModelOption)) {
      if (!window.profileModel()) return fail(QStringLiteral("--profile-model needs a .relay FILE that loads"));
      window.waitIdle(24 * 3600 * 1000);
      window.modelView()->picture()->waitRendered();
    }
    if (comparing) {
      if (!window.openComparison(*compareA, *compareB))
        return fail(QStringLiteral("cannot compare: %1").arg(window.compareWindow()->status()));
      loopscape::gui::CompareWindow* compare = window.compareWindow();
      compare->resize(width, height);
      compare->waitIdle(24 * 3600 * 1000);
      const loopscape::gui::CompareResult* result = compare->result();
      if (!result) return fail(QStringLiteral("no comparison: %1").arg(compare->status()));
      for (const auto* side : {&result->a, &result->b})
        if (!side->ok())
          return fail(QStringLiteral("cannot compare: %1").arg(QString::fromStdString(side->error).trimmed()));
      if (parser.isSet(compareTabOption) && !compare->showTab(parser.value(compareTabOption)))
        return fail(QStringLiteral("--compare-tab: no tab named '%1' (code, trees, loops, measure)")
                        .arg(parser.value(compareTabOption)));
      if (parser.isSet(selectOption)) {
        const auto& snap = compare->programView(true)->snapshot();
        const int loop = snap->find(loopscape::views::NodeInfo::Kind::Loop, parser.value(selectOption).toStdString());
        compare->programView(true)->selectNode(
            loop >= 0 ? loop
                      : snap->find(loopscape::views::NodeInfo::Kind::Block, parser.value(selectOption).toStdString()));
      }
      if (parser.isSet(compareRunOption)) {
        if (!compare->measure()) return fail(QStringLiteral("--compare-run: cannot measure"));
        compare->waitIdle(24 * 3600 * 1000);
      }
      QApplication::processEvents();
      if (exportName.isEmpty()) {
        const QPixmap pixmap = compare->grab();
        if (pixmap.isNull() || !pixmap.save(shotPath)) return fail(QStringLiteral("cannot write %1").arg(shotPath));
        std::printf("wrote %s (%dx%d, the Compare window)\n", qPrintable(shotPath), pixmap.width(), pixmap.height());
        return 0;
      }
    }
    if (!exportName.isEmpty()) {
      const QString out = parser.value(outOption);
      QString error;
      if (!loopscape::gui::exportView(window, exportName, out, &error, /*enlargeDock=*/true)) return fail(error);
      std::printf("wrote %s (the %s view)\n", qPrintable(out), qPrintable(exportName));
      return 0;
    }
    // The schedule-tree picture is laid out on Graphviz's thread: wait until it is shown.
    window.scheduleTreeView()->picture()->waitRendered();
    QApplication::processEvents();
    const QPixmap pixmap = window.grab();
    if (pixmap.isNull() || !pixmap.save(shotPath)) return fail(QStringLiteral("cannot write %1").arg(shotPath));
    std::printf("wrote %s (%dx%d)\n", qPrintable(shotPath), pixmap.width(), pixmap.height());
    return 0;
  }

  window.show();
  QTimer::singleShot(0, &window, [&window] { window.offerRecovery(); });
  if (comparing) window.openComparison(*compareA, *compareB);
  return app.exec();
}

} // namespace

int main(int argc, char** argv) {
  // An exception escaping anywhere (also out of the event loop, through std::terminate)
  // is reported as an internal error with exit status 1, never an abort.
  return loopscape::ir::runWithErrorBoundary("loopscape", [&] { return runWorkbench(argc, argv); });
}
