// The Tune dock end to end (offscreen), with real measurement: the candidates are compiled
// by the cpu-llvm plugin (cpu-c when it is not built) and timed in the isolated worker.
// On a 32x32x32 matmul, a 10-trial search started with the dock's controls fills the
// table, the curve and the scatter, and finds a verified best; double-clicking it makes
// its trace the workbench trace as one undoable step, and one Undo restores the previous
// trace. Stop ends a long search promptly and keeps every record (in the table and in the
// log); Resume continues it, trial numbers going on. A polyhedral candidate applies as one
// poly_optimize step. A candidate of another version of the program is refused.
//
// LS_TUNE_SCREENSHOT=FILE.png also renders the window after the first search
// (LS_TUNE_SCREENSHOT_DARK=1 for the dark theme, LS_TUNE_SCREENSHOT_SIZE=1280x800 for
// another window size).
#include "gui_helpers.h"

#include "app/gui/code_jobs.h"
#include "app/gui/tune_jobs.h"
#include "core/schedule/instruction.h"
#include "core/schedule/trace_json.h"
#include "core/tune/records.h"
#include "views/tune_view.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

QString matmul(int n) {
  QString text = readSample(QStringLiteral("matmul.te"));
  text.replace(QStringLiteral("M, N, K = 1024, 1024, 1024"), QStringLiteral("M, N, K = %1, %1, %1").arg(n));
  return text;
}

std::string traceJson(const schedule::Trace& trace) { return schedule::traceToJson(trace); }

} // namespace

class TestTuneView : public QObject {
  Q_OBJECT

private:
  std::unique_ptr<gui::MainWindow> m_window;
  std::unique_ptr<QAbstractItemModelTester> m_tester;
  QString m_target;
  QTemporaryDir m_dir;
  std::vector<gui::TuneOutcome> m_outcomes;

  views::TuneView* view() const { return m_window->tuneView(); }
  gui::TuneJob* job() const { return m_window->tuneJob(); }
  template <typename T> T* child(const char* name) const {
    T* w = view()->findChild<T*>(QString::fromLatin1(name));
    if (!w) qFatal("no widget %s in the tune view", name);
    return w;
  }

  /// Sets the options through the dock's controls (the population has none).
  void setControls(const QString& strategy, int trials, int batch, const QString& records) {
    auto* target = child<QComboBox>("tuneTarget");
    target->setCurrentIndex(target->findData(m_target));
    auto* s = child<QComboBox>("tuneStrategy");
    s->setCurrentIndex(s->findData(strategy));
    child<QSpinBox>("tuneTrials")->setValue(trials);
    child<QSpinBox>("tuneBatch")->setValue(batch);
    child<QSpinBox>("tuneThreads")->setValue(1);
    child<QLineEdit>("tuneRecords")->setText(records);
    views::TuneViewOptions o = view()->options();
    o.population = 8;
    view()->setOptions(o);
    QCOMPARE(view()->options().target, m_target);
    QCOMPARE(view()->options().strategy, strategy);
    QCOMPARE(view()->options().trials, trials);
    QCOMPARE(view()->options().threads, 1);
  }

  void click(const char* button) {
    auto* b = child<QPushButton>(button);
    QVERIFY2(b->isEnabled(), button);
    QTest::mouseClick(b, Qt::LeftButton);
  }

private Q_SLOTS:
  void initTestCase() {
#ifdef LS_WORKER_PATH
    qputenv("LOOPSCAPE_WORKER", LS_WORKER_PATH);
#endif
#ifdef LS_RUN_PLUGIN_DIR
    qputenv("LOOPSCAPE_PLUGIN_PATH", LS_RUN_PLUGIN_DIR);
#endif
    for (const views::TargetEntry& t : gui::availableTargets())
      if (t.enabled &&
          (t.name == QStringLiteral("cpu-llvm") || (t.name == QStringLiteral("cpu-c") && m_target.isEmpty())))
        m_target = t.name;
    if (m_target.isEmpty()) QSKIP("neither the cpu-llvm nor the cpu-c plugin is usable in this build");
    QVERIFY(m_dir.isValid());
    m_window = makeWindow();
    QVERIFY(settle(*m_window));
    m_tester = std::make_unique<QAbstractItemModelTester>(view()->model(),
                                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
    connect(job(), &gui::TuneJob::finished, this, [this](const gui::TuneOutcome& o) { m_outcomes.push_back(o); });
    m_window->session()->openSource(matmul(32), QStringLiteral("matmul.te"));
    QVERIFY(settle(*m_window));
    QVERIFY(m_window->session()->state());
    QCOMPARE(m_window->session()->state()->trace->stepCount, 0);
    // The dock and its entries exist.
    auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("tuneDock"));
    QVERIFY(dock);
    QCOMPARE(dock->widget(), static_cast<QWidget*>(view()));
    QVERIFY(m_window->action(QStringLiteral("runTune")));
    QVERIFY(m_window->action(QStringLiteral("runStopTune")));
    QVERIFY(!m_window->action(QStringLiteral("runStopTune"))->isEnabled());
  }

  void cleanupTestCase() {
    m_tester.reset();
    m_window.reset();
  }

  void tenTrialSearchAndApplyTheBest() {
    QElapsedTimer timer;
    timer.start();
    m_window->action(QStringLiteral("runTune"))->trigger();
    setControls(QStringLiteral("evolutionary"), 10, 5, QString());
    click("tuneStart");
    QVERIFY(job()->isRunning());
    QVERIFY(m_window->action(QStringLiteral("runStopTune"))->isEnabled());
    QVERIFY(!child<QPushButton>("tuneStart")->isEnabled());
    // The GUI is not blocked: events are processed while the search runs.
    QTRY_VERIFY_WITH_TIMEOUT(!job()->isRunning(), 60000);
    qInfo("10-trial search: %.1f s", timer.elapsed() / 1000.0);
    QCOMPARE(m_outcomes.size(), std::size_t(1));
    const gui::TuneOutcome& o = m_outcomes.back();
    QVERIFY2(o.ok, qPrintable(o.error));
    QVERIFY(!o.stopped);
    QCOMPARE(o.measured, 10);
    QCOMPARE(view()->model()->rowCount(), 10);
    QCOMPARE(job()->records().size(), std::size_t(10));
    QCOMPARE(view()->curveTrials(), 10);
    QVERIFY(view()->curveSeries()->count() >= 10);
    QVERIFY(view()->scatterPointCount() > 0);
    QVERIFY2(view()->status().startsWith(QStringLiteral("Done: 10 candidates measured")), qPrintable(view()->status()));
    QVERIFY(!m_window->action(QStringLiteral("runStopTune"))->isEnabled());
    // The best: verified, at the top of the table, and the curve ends at it.
    QVERIFY(o.best);
    QVERIFY(o.best->verified);
    QVERIFY(o.best->gflops > 0);
    QCOMPARE(view()->model()->bestRow(), 0);
    const views::TuneRow& top = view()->model()->row(0);
    QCOMPARE(top.trial, o.best->trial);
    QVERIFY(top.verified);
    const QLineSeries* curve = view()->curveSeries();
    QCOMPARE(curve->at(curve->count() - 1).x(), 10.0);
    QCOMPARE(curve->at(curve->count() - 1).y(), o.best->gflops);
    for (int i = 1; i < curve->count(); ++i)
      QVERIFY(curve->at(i).y() >= curve->at(i - 1).y());
    for (const views::TuneRow& r : view()->model()->rows())
      QVERIFY(r.gflops <= top.gflops);

    // Double-click the best: its trace becomes the workbench trace, in one undo step.
    gui::Session& s = *m_window->session();
    const std::string before = traceJson(s.trace());
    const int undoIndex = s.undoStack()->index();
    QTableView* table = view()->table();
    const QPoint at = table->visualRect(view()->model()->index(0, views::TuneModel::GflopsColumn)).center();
    // A real double click: press, release, then the double-click event.
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, at);
    QTRY_VERIFY2_WITH_TIMEOUT(s.undoStack()->index() == undoIndex + 1, qPrintable(view()->status()), 20000);
    QVERIFY(settle(*m_window));
    QCOMPARE(traceJson(s.trace()), traceJson(o.best->trace));
    QCOMPARE(s.trace().instructions.size(), o.best->trace.instructions.size());
    QVERIFY(s.state()->trace->stepCount > 0);
    QVERIFY2(s.undoStack()->undoText().startsWith(QStringLiteral("apply tuned trial %1").arg(o.best->trial)),
             qPrintable(s.undoStack()->undoText()));
    QVERIFY2(view()->status().contains(QStringLiteral("workbench trace")), qPrintable(view()->status()));
    // One Undo restores the previous trace.
    s.undoStack()->undo();
    QVERIFY(settle(*m_window));
    QCOMPARE(traceJson(s.trace()), before);
    QCOMPARE(s.state()->trace->stepCount, 0);
    s.undoStack()->redo();
    QVERIFY(settle(*m_window));
    QCOMPARE(traceJson(s.trace()), traceJson(o.best->trace));
    s.undoStack()->undo();
    QVERIFY(settle(*m_window));

    if (const QString shot = qEnvironmentVariable("LS_TUNE_SCREENSHOT"); !shot.isEmpty()) {
      m_window->setDarkTheme(qEnvironmentVariableIsSet("LS_TUNE_SCREENSHOT_DARK"));
      const QStringList size = qEnvironmentVariable("LS_TUNE_SCREENSHOT_SIZE", QStringLiteral("1600x1000")).split(u'x');
      m_window->resize(size.value(0).toInt(), size.value(1).toInt());
      QApplication::processEvents();
      m_window->action(QStringLiteral("runTune"))->trigger();
      QApplication::processEvents();
      QVERIFY(m_window->grab().save(shot));
    }
    qInfo("10-trial search and apply: %.1f s", timer.elapsed() / 1000.0);
  }

  void stopEndsTheSearchAndKeepsTheRecords() {
    const QString log = m_dir.filePath(QStringLiteral("tune.jsonl"));
    setControls(QStringLiteral("evolutionary"), 500, 4, log);
    m_outcomes.clear();
    click("tuneStart");
    QVERIFY(job()->isRunning());
    // A fresh search starts with an empty table.
    QTRY_VERIFY_WITH_TIMEOUT(view()->model()->rowCount() >= 2, 30000);
    QElapsedTimer timer;
    timer.start();
    click("tuneStop");
    QVERIFY(!child<QPushButton>("tuneStop")->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!job()->isRunning(), 15000);
    qInfo("stopped %.2f s after Stop", timer.elapsed() / 1000.0);
    QVERIFY2(timer.elapsed() < 10000, "Stop did not end the search promptly");
    QCOMPARE(m_outcomes.size(), std::size_t(1));
    const gui::TuneOutcome& o = m_outcomes.back();
    QVERIFY2(o.ok, qPrintable(o.error));
    QVERIFY(o.stopped);
    QVERIFY(o.measured >= 2 && o.measured < 500);
    QCOMPARE(view()->model()->rowCount(), o.measured);
    QVERIFY2(view()->status().startsWith(QStringLiteral("Stopped")), qPrintable(view()->status()));
    QVERIFY(view()->status().contains(QStringLiteral("kept")));
    QCOMPARE(o.modelFile, QStringLiteral("Cost model saved to %1.xgb.").arg(log));
    QVERIFY(view()->status().endsWith(o.modelFile) || view()->status().contains(o.modelFile + ' '));
    auto records = tune::readRecords(log.toStdString());
    QVERIFY(records);
    QCOMPARE(static_cast<int>(records->size()), o.measured);
    int lastTrial = 0;
    for (const tune::Record& r : *records)
      lastTrial = std::max(lastTrial, r.trial);

    // Resume measures 3 more, starting from what was measured: trial numbers go on.
    const int rowsBefore = view()->model()->rowCount();
    setControls(QStringLiteral("evolutionary"), 3, 3, log);
    click("tuneResume");
    QTRY_VERIFY_WITH_TIMEOUT(!job()->isRunning(), 30000);
    QCOMPARE(m_outcomes.size(), std::size_t(2));
    QVERIFY2(m_outcomes.back().ok, qPrintable(m_outcomes.back().error));
    QCOMPARE(m_outcomes.back().measured, 3);
    QCOMPARE(m_outcomes.back().modelFile,
             QStringLiteral("Cost model loaded from %1.xgb. Cost model saved to %1.xgb.").arg(log));
    QCOMPARE(view()->model()->rowCount(), rowsBefore + 3);
    QCOMPARE(static_cast<int>(job()->records().size()), rowsBefore + 3);
    for (std::size_t i = static_cast<std::size_t>(rowsBefore); i < job()->records().size(); ++i)
      QVERIFY(job()->records()[i].trial > lastTrial);
    records = tune::readRecords(log.toStdString());
    QVERIFY(records);
    QCOMPARE(static_cast<int>(records->size()), rowsBefore + 3);
  }

  void aPolyCandidateIsOnePolyOptimizeStep() {
    setControls(QStringLiteral("poly"), 3, 3, QString());
    m_outcomes.clear();
    click("tuneStart");
    QTRY_VERIFY_WITH_TIMEOUT(!job()->isRunning(), 30000);
    QCOMPARE(m_outcomes.size(), std::size_t(1));
    QVERIFY2(m_outcomes.back().ok, qPrintable(m_outcomes.back().error));
    QCOMPARE(view()->model()->rowCount(), 3);
    const views::TuneRow& top = view()->model()->row(0);
    QCOMPARE(top.family, QStringLiteral("poly"));
    QCOMPARE(view()->model()->data(view()->model()->index(0, views::TuneModel::FamilyColumn), Qt::DisplayRole),
             QVariant(QStringLiteral("poly")));
    gui::Session& s = *m_window->session();
    const int undoIndex = s.undoStack()->index();
    QVERIFY(m_window->applyTuneCandidate(0));
    QTRY_VERIFY2_WITH_TIMEOUT(s.undoStack()->index() == undoIndex + 1, qPrintable(view()->status()), 20000);
    QVERIFY(settle(*m_window));
    QCOMPARE(s.state()->trace->stepCount, 1);
    QCOMPARE(s.trace().instructions.size(), std::size_t(1));
    QCOMPARE(s.trace().instructions.front().kind->name, std::string_view("poly_optimize"));
    QCOMPARE(traceJson(s.trace()), traceJson(top.trace));
    s.undoStack()->undo();
    QVERIFY(settle(*m_window));
    QCOMPARE(s.state()->trace->stepCount, 0);
  }

  void candidatesOfAnotherProgramAreRefused() {
    gui::Session& s = *m_window->session();
    s.editSource(matmul(16));
    QVERIFY(settle(*m_window));
    QVERIFY(s.state());
    const int undoIndex = s.undoStack()->index();
    QVERIFY(!m_window->applyTuneCandidate(0));
    QVERIFY2(view()->status().contains(QStringLiteral("another version")), qPrintable(view()->status()));
    QVERIFY(settle(*m_window));
    QCOMPARE(s.undoStack()->index(), undoIndex);
  }
};

QTEST_MAIN(TestTuneView)
#include "tst_tune_view.moc"
