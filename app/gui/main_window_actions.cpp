// MainWindow: actions, menus, files (open, samples, recent files, sessions, programs,
// traces, exports), the Help menu, recovery and the unsaved-changes question.
#include "app/gui/main_window.h"

#include "app/gui/export_jobs.h"
#include "app/gui/help_dialogs.h"
#include "app/gui/view_export.h"
#include "core/schedule/tvm_script_export.h"

#include "core/schedule/instruction.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_python.h"
#include "views/code_view.h"
#include "views/diagnostics_view.h"
#include "views/primitive_panel.h"
#include "views/profile_rows_json.h"
#include "views/profile_view.h"
#include "views/program_editor.h"
#include "views/samples_gallery.h"
#include "views/schedule_tree_view.h"
#include "views/tensorir_view.h"
#include "views/trace_view.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSaveFile>
#include <QSettings>
#include <QShortcut>
#include <QStandardPaths>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>

namespace loopscape::gui {

QAction* MainWindow::makeAction(const QString& objectName, const QString& text, const QKeySequence& shortcut) {
  auto* a = new QAction(text, this);
  a->setObjectName(objectName);
  if (!shortcut.isEmpty()) a->setShortcut(shortcut);
  addAction(a); // shortcuts work whichever dock has focus
  return a;
}

QAction* MainWindow::action(const QString& objectName) const { return findChild<QAction*>(objectName); }

void MainWindow::createActions() {
  connect(makeAction(QStringLiteral("fileOpen"), QStringLiteral("&Open…"), QKeySequence::Open), &QAction::triggered,
          this, [this] {
            if (!maybeSave()) return;
            const QString path = askPath(
                Ask::Open, QStringLiteral("Open program, model or session"), QString(),
                QStringLiteral("Programs, models and sessions (*.te *.py *.tvmscript *.relay *.lsproj);;"
                               "Tensor expressions (*.te);;TVMScript (*.py *.tvmscript);;Relay models (*.relay);;"
                               "Sessions (*.lsproj)"));
            if (!path.isEmpty()) openPath(path);
          });
  connect(makeAction(QStringLiteral("fileOpenSample"), QStringLiteral("Open &sample…"), QKeySequence(QStringLiteral("Ctrl+Shift+O"))),
          &QAction::triggered, this, [this] {
            if (!maybeSave()) return;
            views::SamplesGallery gallery(samplesDir(), this);
            if (gallery.exec() == QDialog::Accepted && !gallery.selectedPath().isEmpty())
              openPath(gallery.selectedPath());
          });
  connect(makeAction(QStringLiteral("fileSave"), QStringLiteral("&Save session"), QKeySequence::Save),
          &QAction::triggered, this, [this] {
            if (m_session->projectPath().isEmpty()) {
              action(QStringLiteral("fileSaveAs"))->trigger();
              return;
            }
            saveSessionTo(m_session->projectPath());
          });
  connect(makeAction(QStringLiteral("fileSaveAs"), QStringLiteral("Save session &as…"),
                     QKeySequence(QStringLiteral("Ctrl+Shift+S"))),
          &QAction::triggered, this, [this] {
            QString suggestion = m_session->projectPath();
            if (suggestion.isEmpty() && !m_session->sourcePath().isEmpty()) {
              const QFileInfo fi(m_session->sourcePath());
              suggestion = fi.absolutePath() + u'/' + fi.completeBaseName() + QStringLiteral(".lsproj");
            }
            const QString path =
                askPath(Ask::Save, QStringLiteral("Save session"), suggestion, QStringLiteral("Sessions (*.lsproj)"));
            if (!path.isEmpty()) saveSessionTo(path.endsWith(QStringLiteral(".lsproj")) ? path : path + QStringLiteral(".lsproj"));
          });
  connect(makeAction(QStringLiteral("fileLoadTrace"), QStringLiteral("&Load trace…"),
                     QKeySequence(QStringLiteral("Ctrl+L"))),
          &QAction::triggered, this, [this] {
            const QString path =
                askPath(Ask::Open, QStringLiteral("Load trace"), QString(),
                        QStringLiteral("Traces (*.py *.json);;TVM Python schedules (*.py);;Trace JSON (*.json)"));
            if (!path.isEmpty()) loadTracePath(path);
          });
  connect(makeAction(QStringLiteral("fileExportTrace"), QStringLiteral("&Export trace…"), QKeySequence(QStringLiteral("Ctrl+E"))),
          &QAction::triggered, this, [this] {
            if (!m_session->state()) return;
            const QString path = askPath(Ask::Save, QStringLiteral("Export trace"), QString(),
                                         QStringLiteral("TVM Python (*.py);;Trace JSON (*.json)"));
            if (path.isEmpty()) return;
            const auto& trace = m_session->state()->schedule.trace();
            const std::string text = path.endsWith(QStringLiteral(".json")) ? schedule::traceToJson(trace)
                                                                             : schedule::traceToPython(trace);
            QFile f(path);
            if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), qint64(text.size())) != qint64(text.size()))
              QMessageBox::warning(this, QStringLiteral("Export trace"), QStringLiteral("Cannot write %1").arg(path));
          });
  connect(makeAction(QStringLiteral("fileSaveProgram"), QStringLiteral("Save &program"),
                     QKeySequence(QStringLiteral("Ctrl+Shift+W"))),
          &QAction::triggered, this, [this] {
            const QString path = m_session->sourcePath();
            // A sample is never overwritten, and a new program has no file yet: ask.
            if (path.isEmpty() || isInSamplesDir(path)) {
              action(QStringLiteral("fileSaveProgramAs"))->trigger();
              return;
            }
            saveProgramTo(path);
          });
  connect(makeAction(QStringLiteral("fileSaveProgramAs"), QStringLiteral("Save program as…"),
                     QKeySequence(QStringLiteral("Ctrl+Shift+A"))),
          &QAction::triggered, this, [this] {
            const bool tvmScript = m_session->language() == frontend::SourceLanguage::TvmScript;
            const QString suffix = tvmScript ? QStringLiteral(".py") : QStringLiteral(".te");
            QString suggestion = m_session->sourcePath();
            if (suggestion.isEmpty())
              suggestion = QStringLiteral("program") + suffix;
            else if (isInSamplesDir(suggestion))
              suggestion = QFileInfo(suggestion).fileName();
            QString path = askPath(Ask::Save, QStringLiteral("Save program"), suggestion,
                                   tvmScript ? QStringLiteral("TVMScript (*.py *.tvmscript)")
                                             : QStringLiteral("Tensor expressions (*.te)"));
            if (path.isEmpty()) return;
            // The file's extension tells its language: keep the program's.
            if (frontend::languageOfPath(path.toStdString()) != m_session->language() ||
                QFileInfo(path).suffix().isEmpty())
              path += suffix;
            saveProgramTo(path);
          });
  connect(makeAction(QStringLiteral("fileExportKernel"), QStringLiteral("Export &kernel…"),
                     QKeySequence(QStringLiteral("Ctrl+Shift+K"))),
          &QAction::triggered, this, [this] {
            if (!m_session->state()) return;
            const QString dir = askPath(Ask::Folder, QStringLiteral("Export kernel into folder"), QString());
            if (!dir.isEmpty()) exportKernelTo(dir);
          });
  connect(makeAction(QStringLiteral("fileExportTvmScript"), QStringLiteral("Export TVM &script…"),
                     QKeySequence(QStringLiteral("Ctrl+Shift+E"))),
          &QAction::triggered, this, [this] {
            if (!m_session->state()) return;
            const QString base = m_session->sourcePath().isEmpty()
                                     ? QStringLiteral("program")
                                     : QFileInfo(m_session->sourcePath()).completeBaseName();
            const QString path = askPath(Ask::Save, QStringLiteral("Export TVM script"),
                                         base + QStringLiteral("_tvm.py"), QStringLiteral("Python (*.py)"));
            if (!path.isEmpty()) exportTvmScriptTo(path);
          });
  connect(makeAction(QStringLiteral("fileExportView"), QStringLiteral("Export &view…"),
                     QKeySequence(QStringLiteral("Ctrl+Alt+E"))),
          &QAction::triggered, this, [this] {
            // The focused dock's view, asked before the dialog takes the focus.
            const QString name = focusedViewName(*this);
            QString path =
                askPath(Ask::Save, QStringLiteral("Export view (%1)").arg(name), name + QStringLiteral(".png"),
                        QStringLiteral("PNG image (*.png);;SVG image (*.svg)"));
            if (path.isEmpty()) return;
            if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".png");
            QString error;
            if (exportView(*this, name, path, &error))
              statusBar()->showMessage(QStringLiteral("Exported the %1 view to %2").arg(name, path), 5000);
            else if (m_options.noPrompts)
              statusBar()->showMessage(error, 5000);
            else
              QMessageBox::warning(this, QStringLiteral("Export view"), error);
          });
  connect(makeAction(QStringLiteral("fileQuit"), QStringLiteral("&Quit"), QKeySequence(QStringLiteral("Ctrl+Q"))), &QAction::triggered,
          this, &QWidget::close);

  QAction* undo = m_session->undoStack()->createUndoAction(this, QStringLiteral("&Undo"));
  undo->setObjectName(QStringLiteral("editUndo"));
  undo->setShortcut(QKeySequence::Undo);
  undo->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  QAction* redo = m_session->undoStack()->createRedoAction(this, QStringLiteral("&Redo"));
  redo->setObjectName(QStringLiteral("editRedo"));
  redo->setShortcuts({QKeySequence(QStringLiteral("Ctrl+Shift+Z")), QKeySequence(QStringLiteral("Ctrl+Y"))});
  redo->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  // The editor has its own text undo; outside it, Ctrl+Z undoes schedule steps.
  for (QWidget* w : std::initializer_list<QWidget*>{m_tensorIr, m_panel, m_trace, m_diagnostics, m_scheduleTree,
                                                    m_code, m_profile}) {
    w->addAction(undo);
    w->addAction(redo);
  }
  connect(makeAction(QStringLiteral("editCopyPython"), QStringLiteral("&Copy trace as TVM Python"),
                     QKeySequence(QStringLiteral("Ctrl+Shift+C"))),
          &QAction::triggered, this, [this] {
            if (!m_session->state()) return;
            // TVM cannot replay poly_* steps: only what comes before the first one is
            // copied, with a closing comment, and the status bar says so.
            const schedule::Trace& trace = m_session->state()->schedule.trace();
            QApplication::clipboard()->setText(QString::fromStdString(schedule::tvmReplayablePython(trace)));
            const auto cut = schedule::firstNonTvmInstruction(trace);
            if (!cut) {
              statusBar()->showMessage(QStringLiteral("Trace copied as a TVM Python schedule"), 3000);
              return;
            }
            statusBar()->showMessage(
                QStringLiteral("Copied the first %1 of %2 instructions as TVM Python: from %3 on the trace uses "
                               "Loopscape's polyhedral primitives, which tir.Schedule does not have. Edit > Copy "
                               "program as TVMScript copies the scheduled program instead.")
                    .arg(*cut)
                    .arg(trace.instructions.size())
                    .arg(QString::fromUtf8(trace.instructions[*cut].kind->name.data(),
                                           static_cast<int>(trace.instructions[*cut].kind->name.size()))),
                15000);
          });
  connect(makeAction(QStringLiteral("editCopyProgram"), QStringLiteral("Copy &program as TVMScript"),
                     QKeySequence(QStringLiteral("Ctrl+Shift+P"))),
          &QAction::triggered, this, [this] {
            if (!m_session->state()) return;
            QApplication::clipboard()->setText(m_tensorIr->toPlainText());
            statusBar()->showMessage(QStringLiteral("The scheduled program copied as TVMScript"), 3000);
          });

  connect(makeAction(QStringLiteral("scheduleApply"), QStringLiteral("&Apply primitive"),
                     QKeySequence(QStringLiteral("Ctrl+Return"))),
          &QAction::triggered, m_panel, &views::PrimitivePanel::apply);
  connect(makeAction(QStringLiteral("scheduleBackToCurrent"), QStringLiteral("&Back to current program"),
                     QKeySequence(Qt::Key_Escape)),
          &QAction::triggered, this, [this] { leavePreview(); });
  connect(makeAction(QStringLiteral("scheduleFocusProgram"), QStringLiteral("Focus &TensorIR view"),
                     QKeySequence(QStringLiteral("Ctrl+1"))),
          &QAction::triggered, m_tensorIr, [this] { m_tensorIr->setFocus(); });
  connect(makeAction(QStringLiteral("scheduleFocusEditor"), QStringLiteral("Focus program &editor"),
                     QKeySequence(QStringLiteral("Ctrl+2"))),
          &QAction::triggered, this, [this] {
            m_programDock->show();
            m_editor->setFocus();
          });

  connect(makeAction(QStringLiteral("runProfile"), QStringLiteral("&Profile current state"),
                     QKeySequence(QStringLiteral("Ctrl+R"))),
          &QAction::triggered, this, [this] { profileCurrentState(); });
  QAction* cancelProfile = makeAction(QStringLiteral("runCancelProfile"), QStringLiteral("&Cancel profile run"),
                                      QKeySequence(QStringLiteral("Ctrl+Shift+R")));
  cancelProfile->setEnabled(false);
  connect(cancelProfile, &QAction::triggered, m_profileJob, &ProfileJob::cancel);

  auto* themes = new QActionGroup(this);
  QAction* light = makeAction(QStringLiteral("viewLightTheme"), QStringLiteral("&Light theme"),
                              QKeySequence(QStringLiteral("Ctrl+Shift+L")));
  QAction* dark = makeAction(QStringLiteral("viewDarkTheme"), QStringLiteral("&Dark theme"),
                             QKeySequence(QStringLiteral("Ctrl+Shift+T")));
  for (QAction* a : {light, dark}) {
    a->setCheckable(true);
    themes->addAction(a);
  }
  light->setChecked(true);
  connect(light, &QAction::triggered, this, [this] { setDarkTheme(false); });
  connect(dark, &QAction::triggered, this, [this] { setDarkTheme(true); });
  connect(makeAction(QStringLiteral("viewResetLayout"), QStringLiteral("&Reset layout"),
                     QKeySequence(QStringLiteral("Ctrl+Shift+0"))), &QAction::triggered, this,
          [this] {
            restoreState(m_defaultState, kStateVersion);
            for (QDockWidget* d : findChildren<QDockWidget*>()) d->show();
          });
  createHelpActions();
  connect(makeAction(QStringLiteral("helpAbout"), QStringLiteral("&About Loopscape"),
                     QKeySequence(QStringLiteral("Ctrl+Shift+F1"))),
          &QAction::triggered, this, [this] {
            QMessageBox::about(this, QStringLiteral("About Loopscape"),
                               QStringLiteral("<b>Loopscape %1</b><br>A workbench for tensor-program schedules.<br>"
                                              "GNU GPL v3 or later.")
                                   .arg(QCoreApplication::applicationVersion()));
          });

  // Trace dock tool bar: short labels standing for the real actions (the undo action's
  // own text grows with the step it undoes).
  QToolBar* tb = m_trace->toolBar();
  auto proxy = [this, tb](QAction* real, const QString& label, const QString& name) {
    QAction* a = tb->addAction(label);
    a->setObjectName(name);
    a->setToolTip(real->text().remove(u'&') + QStringLiteral(" (") + real->shortcut().toString() + u')');
    a->setEnabled(real->isEnabled());
    a->setProperty("proxyOf", real->objectName()); // the trace view's button for `real`
    connect(a, &QAction::triggered, real, &QAction::trigger);
    connect(real, &QAction::changed, a, [a, real] {
      a->setEnabled(real->isEnabled());
      a->setToolTip(real->text().remove(u'&'));
    });
  };
  proxy(undo, QStringLiteral("Undo"), QStringLiteral("traceUndo"));
  proxy(redo, QStringLiteral("Redo"), QStringLiteral("traceRedo"));
  proxy(action(QStringLiteral("editCopyPython")), QStringLiteral("Copy as TVM Python"), QStringLiteral("traceCopyPython"));
  proxy(action(QStringLiteral("fileLoadTrace")), QStringLiteral("Load trace…"), QStringLiteral("traceLoad"));
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  file->setObjectName(QStringLiteral("fileMenu"));
  file->addAction(action(QStringLiteral("fileOpen")));
  file->addAction(action(QStringLiteral("fileOpenSample")));
  m_recentMenu = file->addMenu(QStringLiteral("Open &recent"));
  m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  file->addSeparator();
  file->addAction(action(QStringLiteral("fileSave")));
  file->addAction(action(QStringLiteral("fileSaveAs")));
  file->addAction(action(QStringLiteral("fileSaveProgram")));
  file->addAction(action(QStringLiteral("fileSaveProgramAs")));
  file->addSeparator();
  file->addAction(action(QStringLiteral("fileLoadTrace")));
  file->addAction(action(QStringLiteral("fileExportTrace")));
  file->addAction(action(QStringLiteral("fileExportKernel")));
  file->addAction(action(QStringLiteral("fileExportTvmScript")));
  file->addAction(action(QStringLiteral("fileExportView")));
  file->addSeparator();
  file->addAction(action(QStringLiteral("fileQuit")));

  QMenu* edit = menuBar()->addMenu(QStringLiteral("&Edit"));
  edit->setObjectName(QStringLiteral("editMenu"));
  edit->addAction(action(QStringLiteral("editUndo")));
  edit->addAction(action(QStringLiteral("editRedo")));
  edit->addSeparator();
  edit->addAction(action(QStringLiteral("editCopyPython")));
  edit->addAction(action(QStringLiteral("editCopyProgram")));

  m_scheduleMenu = menuBar()->addMenu(QStringLiteral("&Schedule"));
  m_scheduleMenu->setObjectName(QStringLiteral("scheduleMenu"));
  m_scheduleMenu->addAction(action(QStringLiteral("scheduleApply")));
  m_scheduleMenu->addAction(action(QStringLiteral("scheduleBackToCurrent")));
  m_scheduleMenu->addSeparator();
  // One entry per primitive: chooses it in the panel for the current selection. Its text
  // and shortcut come from the instruction table (Ctrl+Alt+letter for the everyday ones,
  // Ctrl+Alt+Shift+letter for their variants, Ctrl+Alt+digit for the rest of the
  // polyhedral family).
  auto qs = [](std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); };
  for (const schedule::InstructionKind* kind : views::PrimitivePanel::catalogue()) {
    const QString name = qs(kind->name);
    QAction* a = makeAction(QStringLiteral("primitive_") + name, qs(kind->label()), QKeySequence(qs(kind->shortcut)));
    m_scheduleMenu->addAction(a);
    connect(a, &QAction::triggered, this, [this, name] {
      if (!m_panel->choosePrimitive(name)) {
        statusBar()->showMessage(QStringLiteral("%1 does not apply to the selection").arg(name), 3000);
        return;
      }
      m_primitivesDock->show();
      m_primitivesDock->raise();
    });
  }
  connect(m_scheduleMenu, &QMenu::aboutToShow, this, [this] {
    const QStringList available = m_panel->primitives();
    for (QAction* a : m_scheduleMenu->actions())
      if (a->objectName().startsWith(QStringLiteral("primitive_")))
        a->setEnabled(available.contains(a->objectName().mid(10)));
  });

  m_runMenu = menuBar()->addMenu(QStringLiteral("&Run"));
  m_runMenu->setObjectName(QStringLiteral("runMenu"));
  m_runMenu->addAction(action(QStringLiteral("runProfile")));
  m_runMenu->addAction(action(QStringLiteral("runCancelProfile")));
  QToolBar* runBar = addToolBar(QStringLiteral("Run tool bar"));
  runBar->setObjectName(QStringLiteral("runToolBar"));
  runBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  runBar->addAction(action(QStringLiteral("runProfile")));
  runBar->addAction(action(QStringLiteral("runCancelProfile")));
  runBar->toggleViewAction()->setObjectName(QStringLiteral("viewToggle_runToolBar"));
  runBar->toggleViewAction()->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+9")));

  m_viewMenu = menuBar()->addMenu(QStringLiteral("&View"));
  m_viewMenu->setObjectName(QStringLiteral("viewMenu"));
  m_viewMenu->addAction(action(QStringLiteral("scheduleFocusEditor")));
  m_viewMenu->addAction(action(QStringLiteral("scheduleFocusProgram")));
  m_viewMenu->addSeparator();
  int key = 3;
  for (QDockWidget* d :
       {m_programDock, m_treeDock, m_primitivesDock, m_traceDock, m_diagnosticsDock, m_codeDock, m_profileDock}) {
    QAction* toggle = d->toggleViewAction();
    toggle->setObjectName(QStringLiteral("viewToggle_") + d->objectName());
    toggle->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(key++)));
    addAction(toggle);
    m_viewMenu->addAction(toggle);
  }
  m_viewMenu->addAction(runBar->toggleViewAction());
  m_viewMenu->addSeparator();
  m_viewMenu->addAction(action(QStringLiteral("viewLightTheme")));
  m_viewMenu->addAction(action(QStringLiteral("viewDarkTheme")));
  m_viewMenu->addSeparator();
  m_viewMenu->addAction(action(QStringLiteral("viewResetLayout")));

  QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
  help->setObjectName(QStringLiteral("helpMenu"));
  help->addAction(action(QStringLiteral("helpGuide")));
  help->addAction(action(QStringLiteral("helpShortcuts")));
  help->addAction(action(QStringLiteral("helpOpenSamples")));
  help->addSeparator();
  help->addAction(action(QStringLiteral("helpAbout")));
}

// ---- files ------------------------------------------------------------------------------

QString MainWindow::samplesDir() {
  const QString installed = QCoreApplication::applicationDirPath() + QStringLiteral("/../") +
                            QStringLiteral(LS_SAMPLES_INSTALL_SUBDIR);
  if (QFileInfo(installed).isDir()) return QDir(installed).canonicalPath();
  return QStringLiteral(LS_SAMPLES_SOURCE_DIR);
}

bool MainWindow::openPath(const QString& path, QString* errorOut, const QString& function) {
  QString error;
  if (!m_session->openFile(path, &error, function)) {
    if (!m_options.noPrompts) QMessageBox::warning(this, QStringLiteral("Open"), error);
    statusBar()->showMessage(error, 5000);
    if (errorOut) *errorOut = error;
    return false;
  }
  // A session brings back its view settings: the theme, and the selected loop or block
  // once the program is shown.
  const QJsonObject view = m_session->viewSettings();
  m_pendingSelection.clear();
  if (path.endsWith(QStringLiteral(".lsproj"))) {
    if (view.contains(QStringLiteral("dark"))) setDarkTheme(view.value(QStringLiteral("dark")).toBool());
    m_pendingSelection = view.value(QStringLiteral("selection")).toString();
  }
  m_firstState = true;
  addRecentFile(QFileInfo(path).absoluteFilePath());
  m_profile->setProgram(QFileInfo(path).absoluteFilePath(), m_session->displayName());
  // The session's measured runs (saved with it) replace what this window had for it.
  if (path.endsWith(QStringLiteral(".lsproj")) && view.value(QStringLiteral("profile")).isArray())
    m_profile->restoreRows(views::profileRowsFromJson(view.value(QStringLiteral("profile")).toArray()));
  updateTitle();
  return true;
}

bool MainWindow::loadTracePath(const QString& path) {
  QString error;
  if (!m_session->loadTraceFile(path, &error)) {
    if (!m_options.noPrompts) QMessageBox::warning(this, QStringLiteral("Load trace"), error);
    statusBar()->showMessage(error, 5000);
    return false;
  }
  return true;
}

bool MainWindow::saveSessionTo(const QString& path) {
  m_editor->flushPendingEdit();
  QJsonObject view;
  view[QStringLiteral("dark")] = m_dark;
  view[QStringLiteral("selection")] =
      m_tensorIr->selectedNode() >= 0 && m_tensorIr->snapshot()
          ? QString::fromStdString(m_tensorIr->snapshot()->nodes[m_tensorIr->selectedNode()].name)
          : QString();
  view[QStringLiteral("profile")] = views::profileRowsToJson(m_profile->model()->rows());
  m_session->setViewSettings(view);
  QString error;
  if (!m_session->saveProject(path, &error)) {
    if (!m_options.noPrompts) QMessageBox::warning(this, QStringLiteral("Save session"), error);
    statusBar()->showMessage(error, 5000);
    return false;
  }
  addRecentFile(m_session->projectPath());
  statusBar()->showMessage(QStringLiteral("Saved %1").arg(path), 3000);
  updateTitle();
  return true;
}

bool MainWindow::saveProgramTo(const QString& path) {
  m_editor->flushPendingEdit();
  auto fail = [this](const QString& error) {
    if (!m_options.noPrompts) QMessageBox::warning(this, QStringLiteral("Save program"), error);
    statusBar()->showMessage(error, 8000);
    return false;
  };
  if (isInSamplesDir(path))
    return fail(QStringLiteral("%1 is one of the installed samples, which are never overwritten: save the program "
                               "under another name (File > Save program as…)")
                    .arg(path));
  QSaveFile f(path);
  const QByteArray bytes = m_editor->toPlainText().toUtf8();
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
    return fail(QStringLiteral("Cannot write %1: %2").arg(path, f.errorString()));
  m_session->sourceSavedAs(path);
  addRecentFile(QFileInfo(path).absoluteFilePath());
  statusBar()->showMessage(QStringLiteral("Saved program %1").arg(path), 3000);
  updateTitle();
  return true;
}

bool MainWindow::exportTvmScriptTo(const QString& path) {
  if (!m_session->state()) return false;
  const schedule::Schedule& sch = m_session->state()->schedule;
  const std::string origin = m_session->sourcePath().isEmpty()
                                 ? std::string("the workbench")
                                 : QFileInfo(m_session->sourcePath()).fileName().toStdString() +
                                       (sch.trace().instructions.empty() ? "" : " with the workbench's trace");
  const std::string text = schedule::tvmScript(sch.original(), sch.trace(), {.origin = origin});
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), qint64(text.size())) != qint64(text.size()) ||
      !f.commit()) {
    const QString error = QStringLiteral("Cannot write %1: %2").arg(path, f.errorString());
    if (!m_options.noPrompts) QMessageBox::warning(this, QStringLiteral("Export TVM script"), error);
    statusBar()->showMessage(error, 8000);
    return false;
  }
  const auto cut = schedule::firstNonTvmInstruction(sch.trace());
  statusBar()->showMessage(
      cut ? QStringLiteral("Wrote the TVM script %1; the last %2 instructions (from %3 on) are Loopscape's "
                           "polyhedral steps, which TVM cannot replay: left out, with a comment")
                .arg(path)
                .arg(sch.trace().instructions.size() - *cut)
                .arg(QString::fromUtf8(sch.trace().instructions[*cut].kind->name.data(),
                                       static_cast<int>(sch.trace().instructions[*cut].kind->name.size())))
          : QStringLiteral("Wrote the TVM script %1 (run it with Python where Apache TVM is installed)").arg(path),
      cut ? 15000 : 5000);
  return true;
}

bool MainWindow::exportKernelTo(const QString& dir) {
  if (!m_session->state() || m_exporting) return false;
  const ir::PrimFunc func = m_session->state()->schedule.func();
  const std::string target = m_session->target().toStdString();
  const std::string origin =
      "Exported from the Loopscape workbench: " +
      (m_session->sourcePath().isEmpty() ? std::string("an unsaved program")
                                         : QFileInfo(m_session->sourcePath()).fileName().toStdString()) +
      " after " + std::to_string(m_session->state()->schedule.trace().instructions.size()) + " trace instructions";
  m_exporting = true;
  action(QStringLiteral("fileExportKernel"))->setEnabled(false);
  statusBar()->showMessage(QStringLiteral("Exporting the kernel to %1…").arg(dir));
  m_session->jobs()->run<KernelExportResult>(
      QStringLiteral("Exporting kernel"),
      [func, target, origin, dir = dir.toStdString()](std::stop_token stop, const ProgressFn&) {
        return exportKernelFiles(func, target, dir, origin, stop);
      },
      [this](KernelExportResult r) {
        m_exporting = false;
        action(QStringLiteral("fileExportKernel"))->setEnabled(true);
        const QString message = QString::fromStdString(r.message);
        statusBar()->showMessage(message, r.ok ? 8000 : 15000);
        if (r.ok) return;
        std::vector<views::DiagnosticItem> items = m_session->diagnostics();
        views::DiagnosticItem item;
        item.origin = views::DiagnosticItem::Origin::Schedule;
        item.code = r.code;
        item.message = r.message;
        item.detail = r.detail;
        items.insert(items.begin(), std::move(item));
        m_diagnostics->setItems(std::move(items));
        m_diagnosticsDock->show();
        m_diagnosticsDock->raise();
      },
      // One compiler run: not stopped by Cancel, so its result always comes back.
      JobCancel::OnShutdown);
  return true;
}

QString MainWindow::fileDialogStartDir() const {
  QString dir = m_lastDir;
  if (dir.isEmpty() && m_options.persistSettings) dir = QSettings().value(QStringLiteral("files/lastDir")).toString();
  if (!dir.isEmpty() && QFileInfo(dir).isDir() && !isInSamplesDir(dir)) return dir;
  const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  return !documents.isEmpty() && QFileInfo(documents).isDir() ? documents : QDir::homePath();
}

bool MainWindow::isInSamplesDir(const QString& path) {
  const QString samples = QDir(samplesDir()).canonicalPath();
  if (samples.isEmpty() || path.isEmpty()) return false;
  const QFileInfo fi(path);
  // A file that does not exist yet is judged by its folder.
  const QString canonical =
      fi.exists() ? fi.canonicalFilePath() : QDir(fi.absolutePath()).canonicalPath() + u'/' + fi.fileName();
  return canonical == samples || canonical.startsWith(samples + u'/');
}

QString MainWindow::askPath(Ask ask, const QString& title, const QString& suggestion, const QString& filter) {
  const QString start = fileDialogStartDir();
  QString initial = start;
  if (!suggestion.isEmpty())
    initial = QFileInfo(suggestion).isAbsolute() && !isInSamplesDir(suggestion)
                  ? suggestion
                  : QDir(start).filePath(QFileInfo(suggestion).fileName());
  QString path;
  if (m_options.chooseFile)
    path = m_options.chooseFile(title, initial);
  else if (ask == Ask::Open)
    path = QFileDialog::getOpenFileName(this, title, initial, filter);
  else if (ask == Ask::Save)
    path = QFileDialog::getSaveFileName(this, title, initial, filter);
  else
    path = QFileDialog::getExistingDirectory(this, title, initial);
  if (!path.isEmpty()) rememberDir(ask == Ask::Folder ? path : QFileInfo(path).absolutePath());
  return path;
}

void MainWindow::rememberDir(const QString& dir) {
  if (isInSamplesDir(dir)) return;
  m_lastDir = QFileInfo(dir).absoluteFilePath();
  if (m_options.persistSettings) QSettings().setValue(QStringLiteral("files/lastDir"), m_lastDir);
}

void MainWindow::createHelpActions() {
  connect(makeAction(QStringLiteral("helpGuide"), QStringLiteral("&User guide"), QKeySequence(QStringLiteral("F1"))),
          &QAction::triggered, this, [this] {
            auto* dialog = findChild<UserGuideDialog*>();
            if (!dialog) dialog = new UserGuideDialog(this);
            dialog->show();
            dialog->raise();
            dialog->activateWindow();
          });
  connect(makeAction(QStringLiteral("helpShortcuts"), QStringLiteral("&Keyboard shortcuts"),
                     QKeySequence(QStringLiteral("Ctrl+F1"))),
          &QAction::triggered, this, [this] {
            // Built from the actions each time, so it lists what the window has now.
            delete findChild<ShortcutsDialog*>();
            auto* dialog = new ShortcutsDialog(shortcutRows(menuBar(), findChildren<QAction*>()), this);
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            dialog->show();
          });
  connect(makeAction(QStringLiteral("helpOpenSamples"), QStringLiteral("Open &samples…"),
                     QKeySequence(QStringLiteral("Shift+F1"))),
          &QAction::triggered, this, [this] { action(QStringLiteral("fileOpenSample"))->trigger(); });
}

void MainWindow::addRecentFile(const QString& path) {
  if (!m_options.persistSettings) return;
  QSettings s;
  QStringList files = s.value(QStringLiteral("recentFiles")).toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > 10) files.removeLast();
  s.setValue(QStringLiteral("recentFiles"), files);
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  const QStringList files = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  int n = 1;
  for (const QString& f : files) {
    QAction* a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(n % 10).arg(QFileInfo(f).fileName()));
    a->setObjectName(QStringLiteral("recentFile%1").arg(n++));
    a->setToolTip(f);
    a->setStatusTip(f);
    connect(a, &QAction::triggered, this, [this, f] {
      if (maybeSave()) openPath(f);
    });
  }
  if (files.isEmpty()) m_recentMenu->addAction(QStringLiteral("(no recent files)"))->setEnabled(false);
}

bool MainWindow::maybeSave() {
  m_editor->flushPendingEdit();
  if (!m_session->isModified()) return true;
  if (m_options.noPrompts) {
    // Never lose work silently: keep it in the recovery file.
    m_session->writeRecovery();
    return true;
  }
  const auto answer = QMessageBox::question(
      this, QStringLiteral("Unsaved changes"),
      QStringLiteral("%1 has unsaved changes. Save the session?").arg(m_session->displayName()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Discard) {
    m_session->removeRecovery();
    return true;
  }
  action(QStringLiteral("fileSave"))->trigger();
  return !m_session->isModified();
}

void MainWindow::offerRecovery() {
  const QFileInfo recovery(Session::recoveryPath());
  if (!recovery.exists() || m_options.noPrompts) return;
  const QDateTime lastClean = QSettings().value(QStringLiteral("session/lastCleanExit")).toDateTime();
  if (lastClean.isValid() && recovery.lastModified() <= lastClean) return;
  const auto answer = QMessageBox::question(
      this, QStringLiteral("Restore session"),
      QStringLiteral("Loopscape did not exit cleanly last time. Restore the unsaved session from %1?")
          .arg(recovery.lastModified().toString(Qt::ISODate)),
      QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
  if (answer != QMessageBox::Yes) {
    m_session->removeRecovery();
    return;
  }
  QString error;
  if (!m_session->restoreRecovery(&error)) QMessageBox::warning(this, QStringLiteral("Restore session"), error);
}

} // namespace loopscape::gui
