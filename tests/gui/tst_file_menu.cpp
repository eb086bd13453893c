// The File menu's program and export actions and the Help menu (issue 14): Save program
// writes the editor's text to its file and never overwrites a sample (it asks for a new
// file instead); the dialogs start in the last folder used, never in the samples; Export
// kernel writes what `loopscape-cli export` writes, in the background, and reports a
// failure in Diagnostics; Export TVM script writes core/schedule/tvm_script_export.h's
// script; Help lists every action's shortcut, shows the user guide and opens the samples
// gallery. File dialogs are answered through MainWindowOptions::chooseFile.
// With LOOPSCAPE_TEST_GRABS=DIR the Help windows are saved there as PNGs.
#include "gui_helpers.h"

#include "app/gui/help_dialogs.h"
#include "core/schedule/tvm_script_export.h"
#include "views/diagnostics_view.h"
#include "views/program_editor.h"
#include "views/samples_gallery.h"

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

/// A window whose file dialogs are answered by `answers` (one per dialog, in order); each
/// dialog's title and suggested path are recorded in `asked`.
struct Harness {
  QStringList answers;
  QList<QPair<QString, QString>> asked;
  std::unique_ptr<gui::MainWindow> window;

  Harness() {
    QStandardPaths::setTestModeEnabled(true);
    gui::MainWindowOptions options;
    options.noPrompts = true;
    options.persistSettings = false;
    options.chooseFile = [this](const QString& title, const QString& suggestion) {
      asked.append({title, suggestion});
      return answers.isEmpty() ? QString() : answers.takeFirst();
    };
    window = std::make_unique<gui::MainWindow>(options);
    window->resize(1400, 900);
    window->show();
  }
};

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList menuActions(gui::MainWindow& w, const QString& menuName) {
  QStringList names;
  if (auto* menu = w.findChild<QMenu*>(menuName))
    for (QAction* a : menu->actions())
      names << a->objectName();
  return names;
}

void grab(QWidget* widget, const QString& name) {
  const QString dir = qEnvironmentVariable("LOOPSCAPE_TEST_GRABS");
  if (dir.isEmpty()) return;
  QApplication::processEvents();
  widget->grab().save(QDir(dir).filePath(name));
}

} // namespace

class TestFileMenu : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void actionsAreInTheMenus() {
    Harness h;
    const QStringList file = menuActions(*h.window, QStringLiteral("fileMenu"));
    for (const char* name : {"fileSaveProgram", "fileSaveProgramAs", "fileExportKernel", "fileExportTvmScript"})
      QVERIFY2(file.contains(QLatin1String(name)), name);
    const QStringList help = menuActions(*h.window, QStringLiteral("helpMenu"));
    for (const char* name : {"helpGuide", "helpShortcuts", "helpOpenSamples", "helpAbout"})
      QVERIFY2(help.contains(QLatin1String(name)), name);
  }

  void saveProgramWritesTheEditorText() {
    Harness h;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("mm.te"));
    QVERIFY(QFile::copy(QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te"), path));
    QVERIFY(h.window->openPath(path));
    QVERIFY(settle(*h.window));
    const QString edited = h.window->editor()->toPlainText().replace(QStringLiteral("1024"), QStringLiteral("512"));
    h.window->editor()->setPlainText(edited);
    h.window->action(QStringLiteral("fileSaveProgram"))->trigger();
    QVERIFY(settle(*h.window));
    QVERIFY(h.asked.isEmpty()); // its own file: no dialog
    QCOMPARE(QString::fromUtf8(readAll(path)), edited);
    // No session file and no step: nothing is left unsaved.
    QVERIFY(!h.window->session()->isModified());
    QVERIFY(!h.window->isWindowModified());
  }

  void aSampleIsNeverOverwritten() {
    Harness h;
    QTemporaryDir dir;
    const QString sample = QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te");
    const QByteArray before = readAll(sample);
    QVERIFY(gui::MainWindow::isInSamplesDir(sample));
    QVERIFY(h.window->openPath(sample));
    QVERIFY(settle(*h.window));
    h.window->editor()->setPlainText(h.window->editor()->toPlainText() + QStringLiteral("\n# mine\n"));
    // Save program goes to Save program as, which starts outside the samples.
    const QString copy = dir.filePath(QStringLiteral("my_matmul.te"));
    h.answers = {copy};
    h.window->action(QStringLiteral("fileSaveProgram"))->trigger();
    QCOMPARE(h.asked.size(), 1);
    QCOMPARE(h.asked[0].first, QStringLiteral("Save program"));
    const QFileInfo suggested(h.asked[0].second);
    QCOMPARE(suggested.fileName(), QStringLiteral("matmul.te"));
    QVERIFY2(!gui::MainWindow::isInSamplesDir(suggested.absolutePath()), qPrintable(suggested.absolutePath()));
    QCOMPARE(readAll(sample), before);
    QVERIFY(readAll(copy).endsWith("# mine\n"));
    QCOMPARE(h.window->session()->sourcePath(), QFileInfo(copy).absoluteFilePath());
    // Saving again writes the copy, without asking.
    h.window->action(QStringLiteral("fileSaveProgram"))->trigger();
    QCOMPARE(h.asked.size(), 1);
    // Writing into the samples is refused outright.
    QVERIFY(!h.window->saveProgramTo(QStringLiteral(LS_SOURCE_DIR "/samples/new.te")));
    QVERIFY(!QFile::exists(QStringLiteral(LS_SOURCE_DIR "/samples/new.te")));
    // A .te program saved under another extension keeps .te (the extension tells the language).
    h.answers = {dir.filePath(QStringLiteral("other.py"))};
    h.window->action(QStringLiteral("fileSaveProgramAs"))->trigger();
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("other.py.te"))));
  }

  void dialogsStartInTheLastFolderUsed() {
    Harness h;
    QTemporaryDir dir;
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    // Nothing chosen yet: the user's Documents (home when there is none).
    QVERIFY(h.window->fileDialogStartDir() == documents || h.window->fileDialogStartDir() == QDir::homePath());
    QVERIFY(h.window->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te")));
    QVERIFY(settle(*h.window));
    // A folder chosen in one dialog is where the next one starts.
    h.answers = {dir.filePath(QStringLiteral("mm_tvm.py"))};
    h.window->action(QStringLiteral("fileExportTvmScript"))->trigger();
    QCOMPARE(h.window->fileDialogStartDir(), QFileInfo(dir.path()).absoluteFilePath());
    h.window->action(QStringLiteral("fileExportTrace"))->trigger(); // cancelled
    QCOMPARE(h.asked.last().second, QFileInfo(dir.path()).absoluteFilePath());
    // A file picked in the samples folder (Open) is not remembered as the start.
    h.answers = {QStringLiteral(LS_SOURCE_DIR "/samples/softmax.te")};
    h.window->action(QStringLiteral("fileOpen"))->trigger();
    QVERIFY(settle(*h.window));
    QCOMPARE(h.window->fileDialogStartDir(), QFileInfo(dir.path()).absoluteFilePath());
    for (const auto& [title, suggestion] : h.asked)
      QVERIFY2(!gui::MainWindow::isInSamplesDir(suggestion), qPrintable(title + u' ' + suggestion));
  }

  void exportTvmScriptWritesTheScript() {
    Harness h;
    QTemporaryDir dir;
    QVERIFY(h.window->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te")));
    QVERIFY(settle(*h.window));
    QVERIFY(h.window->loadTracePath(QStringLiteral(LS_SOURCE_DIR "/samples/traces/matmul_tile.py")));
    QVERIFY(settle(*h.window));
    const QString path = dir.filePath(QStringLiteral("matmul_tvm.py"));
    h.answers = {path};
    h.window->action(QStringLiteral("fileExportTvmScript"))->trigger();
    QCOMPARE(h.asked.size(), 1);
    QCOMPARE(QFileInfo(h.asked[0].second).fileName(), QStringLiteral("matmul_tvm.py"));
    const auto& sch = h.window->session()->state()->schedule;
    QCOMPARE(readAll(path).toStdString(),
             schedule::tvmScript(sch.original(), sch.trace(), {.origin = "matmul.te with the workbench's trace"}));
    QVERIFY(readAll(path).contains("sch.parallel(loop=l4)\nsch.vectorize(loop=l7)\nprint(sch.mod.script())\n"));
    QVERIFY(h.window->statusBar()->currentMessage().startsWith(QStringLiteral("Wrote the TVM script")));
  }

  void exportKernelWritesTheFiles() {
    Harness h;
    QTemporaryDir dir;
    QVERIFY(h.window->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/softmax.te")));
    QVERIFY(settle(*h.window));
    const QString out = dir.filePath(QStringLiteral("kernel"));
    h.answers = {out};
    h.window->action(QStringLiteral("fileExportKernel"))->trigger();
    QCOMPARE(h.asked.size(), 1);
    QVERIFY(!h.window->action(QStringLiteral("fileExportKernel"))->isEnabled()); // running
    QVERIFY(settle(*h.window));
    QVERIFY(h.window->action(QStringLiteral("fileExportKernel"))->isEnabled());
    for (const char* f : {"kernel.c", "kernel.h", "libkernel.so", "README.txt"})
      QVERIFY2(QFileInfo(QDir(out).filePath(QLatin1String(f))).size() > 0, f);
    QVERIFY2(h.window->statusBar()->currentMessage().startsWith(QStringLiteral("Exported kernel")),
             qPrintable(h.window->statusBar()->currentMessage()));
    QVERIFY(readAll(QDir(out).filePath(QStringLiteral("README.txt"))).contains("softmax.te"));

    // A folder that cannot be made (a file is in the way): Diagnostics says why.
    const QString blocked = dir.filePath(QStringLiteral("blocked"));
    QFile f(blocked);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    QVERIFY(h.window->exportKernelTo(blocked));
    QVERIFY(settle(*h.window));
    QVERIFY2(h.window->statusBar()->currentMessage().startsWith(QStringLiteral("Export failed")),
             qPrintable(h.window->statusBar()->currentMessage()));
    auto* model = h.window->diagnosticsView()->model();
    QVERIFY(model->rowCount() >= 1);
    bool found = false;
    for (int r = 0; r < model->rowCount(); ++r)
      for (int c = 0; c < model->columnCount(); ++c)
        found = found || model->index(r, c).data().toString().contains(QStringLiteral("Export failed"));
    QVERIFY(found);
  }

  void shortcutsListEveryActionWithAShortcut() {
    Harness h;
    h.window->action(QStringLiteral("helpShortcuts"))->trigger();
    auto* dialog = h.window->findChild<gui::ShortcutsDialog*>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QTableWidget* table = dialog->table();
    QSet<QString> listed;
    QMap<QString, QString> keysOf, commandOf;
    for (int r = 0; r < table->rowCount(); ++r) {
      const QString name = table->item(r, 1)->data(Qt::UserRole).toString();
      listed.insert(name);
      keysOf[name] = table->item(r, 2)->text();
      commandOf[name] = table->item(r, 1)->text();
    }
    int withShortcut = 0;
    for (QAction* a : h.window->findChildren<QAction*>()) {
      if (a->shortcuts().isEmpty()) continue;
      ++withShortcut;
      QVERIFY2(listed.contains(a->objectName()), qPrintable(a->objectName()));
      QVERIFY2(keysOf[a->objectName()].contains(a->shortcut().toString(QKeySequence::NativeText)),
               qPrintable(a->objectName()));
    }
    QCOMPARE(table->rowCount(), withShortcut);
    QCOMPARE(commandOf.value(QStringLiteral("editUndo")), QStringLiteral("Undo"));
    QCOMPARE(keysOf.value(QStringLiteral("editUndo")), QStringLiteral("Ctrl+Z"));
    QCOMPARE(keysOf.value(QStringLiteral("editRedo")), QStringLiteral("Ctrl+Shift+Z, Ctrl+Y"));
    QCOMPARE(keysOf.value(QStringLiteral("helpGuide")), QStringLiteral("F1"));
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("File"));
    // The filter keeps the rows that match.
    auto* filter = dialog->findChild<QLineEdit*>(QStringLiteral("shortcutsFilter"));
    QVERIFY(filter);
    filter->setText(QStringLiteral("undo"));
    int shown = 0;
    for (int r = 0; r < table->rowCount(); ++r)
      shown += table->isRowHidden(r) ? 0 : 1;
    QCOMPARE(shown, 1);
    filter->clear();
    grab(dialog, QStringLiteral("help_shortcuts.png"));
  }

  void guideHasText() {
    Harness h;
    QVERIFY(gui::userGuideMarkdown().startsWith(QStringLiteral("# Loopscape user guide")));
    h.window->action(QStringLiteral("helpGuide"))->trigger();
    auto* dialog = h.window->findChild<gui::UserGuideDialog*>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    const QString text = dialog->browser()->toPlainText();
    QVERIFY2(text.size() > 2000, qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("Export TVM script")));
    QVERIFY(!text.contains(QStringLiteral("**"))); // rendered, not shown as Markdown
    grab(dialog, QStringLiteral("help_guide.png"));
    h.window->setDarkTheme(true);
    grab(dialog, QStringLiteral("help_guide_dark.png"));
    h.window->setDarkTheme(false);
  }

  void openSamplesShowsTheGallery() {
    Harness h;
    QString shown;
    QTimer::singleShot(0, [&shown] {
      if (auto* gallery = qobject_cast<views::SamplesGallery*>(QApplication::activeModalWidget())) {
        shown = gallery->metaObject()->className();
        gallery->reject();
      }
    });
    h.window->action(QStringLiteral("helpOpenSamples"))->trigger();
    QCOMPARE(shown, QStringLiteral("loopscape::views::SamplesGallery"));
  }
};

QTEST_MAIN(TestFileMenu)
#include "tst_file_menu.moc"
