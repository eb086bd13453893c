// The Tune dock end to end (offscreen), with real measurement: the candidates are compiled
// by the cpu-llvm plugin (cpu-c when it is not built) and timed in the isolated worker.
// On a 32x32x32 matmul, a 10-trial search started with the dock's controls fills the
// table, the curve and the scatter, and finds a verified best; double-clicking it makes
// its trace the workbench trace as one undoable step, and one Undo restores the previous
// trace. Stop ends a long search promptly and keeps every record (in the table and in the
// log); Resume continues it, trial numbers going on. A polyhedral candidate applies as one
// poly_optimize step. A candidate whose program breaks a dependence is refused with the
// counterexample; a candidate of another version of the program is refused.
// The dock's defaults are the CLI's; the cost model, population, seed, time budget and
// fast-math chosen in the dock reach the search: the same seed with the random model
// measures the same candidates, another seed others; a time budget stops a long search
// with the status saying so; the random strategy leaves the model and the population
// aside. The option bar wraps onto more rows in a narrow dock, no field over another.
//
// LS_TUNE_SCREENSHOT=FILE.png also renders the window after the first search
// (LS_TUNE_SCREENSHOT_DARK=1 for the dark theme, LS_TUNE_SCREENSHOT_SIZE=1280x800 for
// another window size).
#include "gui_helpers.h"

#include "app/gui/code_jobs.h"
#include "app/gui/tune_jobs.h"
#include "core/schedule/instruction.h"
#include "core/schedule/primitives.h"
#include "core/schedule/trace_json.h"
#include "core/tune/records.h"
#include "core/tune/tune_settings.h"
#include "views/tune_view.h"

#include <QAbstractAxis>
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <algorithm>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

QString matmul(int n) {
  QString text = readSample(QStringLiteral("matmul.te"));
  text.replace(QStringLiteral("M, N, K = 1024, 1024, 1024"), QStringLiteral("M, N, K = %1, %1, %1").arg(n));
  return text;
}

std::string traceJson(const schedule::Trace& trace) { return schedule::traceToJson(trace); }

/// The traces of `records`, sorted (a batch's candidates, whatever order they ran in).
std::vector<std::string> sortedTraces(const std::vector<tune::Record>& records) {
  std::vector<std::string> traces;
  for (const tune::Record& r : records)
    traces.push_back(traceJson(r.trace));
  std::sort(traces.begin(), traces.end());
  return traces;
}

} // namespace

class TestTuneView : public QObject {
  Q_OBJECT

private:
  std::unique_ptr<gui::MainWindow> m_window;
  std::unique_ptr<QAbstractItemModelTester> m_tester;
  QString m_target;
  QTemporaryDir m_dir;
  std::vector<gui::TuneOutcome> m_outcomes;
  QStringList m_started; ///< the job's descriptions of the searches it began

  views::TuneView* view() const { return m_window->tuneView(); }
  gui::TuneJob* job() const { return m_window->tuneJob(); }
  template <typename T> T* child(const char* name) const {
    T* w = view()->findChild<T*>(QString::fromLatin1(name));
    if (!w) qFatal("no widget %s in the tune view", name);
    return w;
  }

  /// Sets the options through the dock's controls: the cost model the CLI's default, a
  /// population of 8, seed 1, no time budget, no fast-math unless the caller sets them.
  void setControls(const QString& strategy, int trials, int batch, const QString& records) {
    auto* target = child<QComboBox>("tuneTarget");
    target->setCurrentIndex(target->findData(m_target));
    auto* s = child<QComboBox>("tuneStrategy");
    s->setCurrentIndex(s->findData(strategy));
    auto* model = child<QComboBox>("tuneModel");
    model->setCurrentIndex(model->findData(QStringLiteral("xgb")));
    child<QSpinBox>("tuneTrials")->setValue(trials);
    child<QSpinBox>("tuneBatch")->setValue(batch);
    child<QSpinBox>("tunePopulation")->setValue(8);
    child<QSpinBox>("tuneThreads")->setValue(1);
    child<QSpinBox>("tuneSeed")->setValue(1);
    child<QSpinBox>("tuneTimeBudget")->setValue(0);
    child<QCheckBox>("tuneFastMath")->setChecked(false);
    child<QCheckBox>("tuneWarmStart")->setChecked(true);
    child<QLineEdit>("tuneRecords")->setText(records);
    QCOMPARE(view()->options().target, m_target);
    QCOMPARE(view()->options().strategy, strategy);
    QCOMPARE(view()->options().trials, trials);
    QCOMPARE(view()->options().population, 8);
    QCOMPARE(view()->options().threads, 1);
  }

  /// A 4-trial round of the evolutionary search with the random model and `seed`, set in
  /// the dock; `traces` gets the measured candidates' traces, sorted.
  void seededRun(int seed, std::vector<std::string>& traces) {
    setControls(QStringLiteral("evolutionary"), 4, 4, QString());
    auto* model = child<QComboBox>("tuneModel");
    model->setCurrentIndex(model->findData(QStringLiteral("random")));
    child<QSpinBox>("tuneSeed")->setValue(seed);
    m_started.clear();
    const gui::TuneOutcome* o = startAndWait();
    QVERIFY(o);
    QVERIFY2(o->ok, qPrintable(o->error));
    QCOMPARE(o->measured, 4);
    // The options the search ran with are the dock's.
    QCOMPARE(o->model, QStringLiteral("random"));
    QCOMPARE(o->options.seed, static_cast<std::uint64_t>(seed));
    QCOMPARE(o->options.population, 8);
    QCOMPARE(o->options.trials, 4);
    QCOMPARE(o->options.batchSize, 4);
    QCOMPARE(o->options.strategy, tune::Strategy::Evolutionary);
    QCOMPARE(o->options.timeBudgetSeconds, 0.0);
    QCOMPARE(m_started.size(), 1);
    QVERIFY2(m_started.front().contains(QStringLiteral("model random, population 8, seed %1").arg(seed)),
             qPrintable(m_started.front()));
    QCOMPARE(job()->records().size(), std::size_t(4));
    traces = sortedTraces(job()->records());
  }

  /// Starts a search with the dock's Start and waits for its outcome.
  const gui::TuneOutcome* startAndWait(int timeoutMs = 60000) {
    const std::size_t before = m_outcomes.size();
    auto* b = child<QPushButton>("tuneStart");
    if (!b->isEnabled()) return nullptr;
    QTest::mouseClick(b, Qt::LeftButton);
    QElapsedTimer timer;
    timer.start();
    while (job()->isRunning() && timer.elapsed() < timeoutMs)
      QTest::qWait(20);
    if (job()->isRunning() || m_outcomes.size() != before + 1) return nullptr;
    return &m_outcomes.back();
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
    connect(job(), &gui::TuneJob::started, this, [this](const QString& text) { m_started << text; });
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
    // Every column but the last (the errors, stretched) is as wide as its widest cell, the
    // best row's bold text included: no "0…" for a time, no "tir(p…" for a sketch.
    QTableView* table = view()->table();
    QTest::qWait(50); // the header resizes its sections after a delay
    for (int c = 0; c < views::TuneModel::ErrorColumn; ++c)
      for (int r = 0; r < view()->model()->rowCount(); ++r) {
        const QModelIndex index = view()->model()->index(r, c);
        QFont font = table->font();
        if (const QVariant f = index.data(Qt::FontRole); f.isValid()) font = f.value<QFont>();
        const int text = QFontMetrics(font).horizontalAdvance(index.data().toString());
        QVERIFY2(table->horizontalHeader()->sectionSize(c) > text,
                 qPrintable(QStringLiteral("column %1 row %2 (\"%3\"): %4 px for %5 px of text")
                                .arg(c)
                                .arg(r)
                                .arg(index.data().toString())
                                .arg(table->horizontalHeader()->sectionSize(c))
                                .arg(text)));
      }
    const views::TuneRow& top = view()->model()->row(0);
    QCOMPARE(top.trial, o.best->trial);
    QVERIFY(top.verified);
    const QLineSeries* curve = view()->curveSeries();
    QCOMPARE(curve->at(curve->count() - 1).x(), 10.0);
    QCOMPARE(curve->at(curve->count() - 1).y(), o.best->gflops);
    QCOMPARE(view()->curveChart()->title(), QStringLiteral("Best GFLOP/s against trials"));
    for (int i = 1; i < curve->count(); ++i)
      QVERIFY(curve->at(i).y() >= curve->at(i - 1).y());
    for (const views::TuneRow& r : view()->model()->rows())
      QVERIFY(r.rate <= top.rate);

    // Double-click the best: its trace becomes the workbench trace, in one undo step.
    gui::Session& s = *m_window->session();
    const std::string before = traceJson(s.trace());
    const int undoIndex = s.undoStack()->index();
    const QPoint at = table->visualRect(view()->model()->index(0, views::TuneModel::RateColumn)).center();
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

  void anIllegalCandidateIsRefusedWithItsCounterexample() {
    // A candidate whose program breaks a dependence (k's inner half outside its outer half
    // reassociates C's sums): its steps apply unchecked, as the tuner applied them, and the
    // one check of the program they give refuses it; the workbench trace is unchanged.
    gui::Session& s = *m_window->session();
    schedule::Schedule sch(s.state()->schedule.original());
    auto b = schedule::getBlock(sch, "C");
    auto loops = schedule::getLoops(sch, *b);
    QVERIFY(loops);
    auto k = schedule::split(sch, (*loops)[2], {std::nullopt, 4});
    QVERIFY(k);
    QVERIFY(schedule::reorder(sch, {(*k)[1], (*k)[0]}));
    views::TuneRow row;
    row.trial = 99;
    row.rate = 1.0;
    row.ms = 1.0;
    row.family = QStringLiteral("tir");
    row.sketch = QStringLiteral("tir(C: tile)");
    row.verified = true;
    row.trace = sch.trace();
    view()->addCandidate(row);
    int at = -1;
    for (int i = 0; i < view()->model()->rowCount(); ++i)
      if (view()->model()->row(i).trial == 99) at = i;
    QVERIFY(at >= 0);
    const std::string before = traceJson(s.trace());
    const int undoIndex = s.undoStack()->index();
    QVERIFY(m_window->applyTuneCandidate(at));
    QTRY_VERIFY_WITH_TIMEOUT(!view()->status().startsWith(QStringLiteral("Applying")), 20000);
    QVERIFY(settle(*m_window));
    QCOMPARE(view()->status(),
             QStringLiteral("Trial 99's trace does not apply: tuned trial 99: the record's program is illegal: the RAW "
                            "dependence from C(v_i=0, v_j=0, v_k=3) to C(v_i=0, v_j=0, v_k=4) on C[0, 0] is violated: "
                            "before, C(v_i=0, v_j=0, v_k=3) ran at (i=0, j=0, k=3) and C(v_i=0, v_j=0, v_k=4) after it "
                            "at (i=0, j=0, k=4); now C(v_i=0, v_j=0, v_k=4) runs at (i=0, j=0, k_1=0, k_0=1), before "
                            "C(v_i=0, v_j=0, v_k=3) at (i=0, j=0, k_1=3, k_0=0)"));
    QCOMPARE(s.undoStack()->index(), undoIndex);
    QCOMPARE(traceJson(s.trace()), before);
  }

  void theDefaultsAreTheCommandLines() {
    // A dock as it opens: the options are `loopscape-cli tune`'s defaults.
    views::TuneView fresh;
    const views::TuneViewOptions o = fresh.options();
    const tune::TuneSettings cli;
    QCOMPARE(o.strategy.toStdString(), cli.strategy);
    QCOMPARE(o.model.toStdString(), cli.model);
    QCOMPARE(o.trials, cli.trials);
    QCOMPARE(o.batch, cli.batch);
    QCOMPARE(o.population, cli.population);
    QCOMPARE(o.threads, cli.threads);
    QCOMPARE(static_cast<std::uint64_t>(o.seed), cli.seed);
    QCOMPARE(o.timeBudget, cli.timeBudget);
    QCOMPARE(o.fastMath, cli.fastMath);
    QCOMPARE(o.warmStart, cli.warmStart);
    // setOptions and options agree on every field.
    views::TuneViewOptions set;
    set.strategy = QStringLiteral("annealing");
    set.model = QStringLiteral("random");
    set.trials = 7;
    set.batch = 3;
    set.population = 12;
    set.seed = 99;
    set.timeBudget = 30;
    set.fastMath = true;
    set.warmStart = false;
    set.records = QStringLiteral("x.jsonl");
    fresh.setOptions(set);
    const views::TuneViewOptions got = fresh.options();
    QCOMPARE(got.strategy, set.strategy);
    QCOMPARE(got.model, set.model);
    QCOMPARE(got.trials, set.trials);
    QCOMPARE(got.batch, set.batch);
    QCOMPARE(got.population, set.population);
    QCOMPARE(got.seed, set.seed);
    QCOMPARE(got.timeBudget, set.timeBudget);
    QCOMPARE(got.fastMath, set.fastMath);
    QCOMPARE(got.warmStart, set.warmStart);
    QCOMPARE(got.records, set.records);
  }

  void theSeedDecidesTheCandidates() {
    // One round (trials = batch) of the evolutionary search ranked by the random model:
    // what it measures depends on the seed alone (later rounds start from the fastest
    // measured, which timing decides).
    std::vector<std::string> first, again, other;
    seededRun(7, first);
    if (QTest::currentTestFailed()) return;
    seededRun(7, again);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(again, first);
    seededRun(8, other);
    if (QTest::currentTestFailed()) return;
    QVERIFY2(other != first, "another seed measured the same candidates");
    QVERIFY(view()->status().startsWith(QStringLiteral("Done: 4 candidates measured")));
  }

  void aTimeBudgetStopsTheSearch() {
    // Far more trials than a second can measure: the budget ends the search.
    setControls(QStringLiteral("evolutionary"), 100000, 4, QString());
    child<QSpinBox>("tuneTimeBudget")->setValue(1);
    child<QCheckBox>("tuneWarmStart")->setChecked(false); // the first batch drawn at random
    QCOMPARE(view()->options().timeBudget, 1.0);
    QElapsedTimer timer;
    timer.start();
    const gui::TuneOutcome* o = startAndWait();
    QVERIFY(o);
    QVERIFY2(o->ok, qPrintable(o->error));
    QVERIFY(timer.elapsed() >= 1000);
    QCOMPARE(o->options.timeBudgetSeconds, 1.0);
    QCOMPARE(o->options.trials, 100000);
    QVERIFY(o->stopped);
    QVERIFY(o->budgetSpent);
    QVERIFY(o->measured < 100000);
    QCOMPARE(view()->model()->rowCount(), o->measured);
    QVERIFY2(view()->status().startsWith(QStringLiteral("Time budget spent: %1 candidate").arg(o->measured)),
             qPrintable(view()->status()));
    QVERIFY2(m_started.back().contains(QStringLiteral("time budget 1 s")), qPrintable(m_started.back()));
    QVERIFY2(m_started.back().contains(QStringLiteral("no prior")), qPrintable(m_started.back()));
  }

  void fastMathAndTheRandomStrategy() {
    setControls(QStringLiteral("random"), 2, 2, QString());
    // The random strategy ranks nothing: no model, no population to choose.
    QVERIFY(!child<QComboBox>("tuneModel")->isEnabled());
    QVERIFY(!child<QSpinBox>("tunePopulation")->isEnabled());
    QVERIFY(!child<QCheckBox>("tuneWarmStart")->isEnabled());
    QVERIFY(child<QSpinBox>("tuneSeed")->isEnabled());
    child<QCheckBox>("tuneFastMath")->setChecked(true);
    QVERIFY(view()->options().fastMath);
    const gui::TuneOutcome* o = startAndWait();
    QVERIFY(o);
    QVERIFY2(o->ok, qPrintable(o->error));
    QCOMPARE(o->options.strategy, tune::Strategy::Random);
    QCOMPARE(o->measured, 2);
    QVERIFY2(m_started.back().contains(QStringLiteral("fast-math")), qPrintable(m_started.back()));
    QCOMPARE(job()->records().size(), std::size_t(2));
    for (const tune::Record& r : job()->records())
      QVERIFY(r.fastMath);
    // While a search runs, none of the options can change.
    auto* s = child<QComboBox>("tuneStrategy");
    s->setCurrentIndex(s->findData(QStringLiteral("mixed")));
    QVERIFY(child<QComboBox>("tuneModel")->isEnabled());
    view()->setRunning(true);
    for (const char* name : {"tuneModel", "tuneStrategy"})
      QVERIFY2(!child<QComboBox>(name)->isEnabled(), name);
    for (const char* name : {"tunePopulation", "tuneSeed", "tuneTimeBudget", "tuneTrials"})
      QVERIFY2(!child<QSpinBox>(name)->isEnabled(), name);
    QVERIFY(!child<QCheckBox>("tuneFastMath")->isEnabled());
    QVERIFY(!child<QCheckBox>("tuneWarmStart")->isEnabled());
    view()->setRunning(false);
    QVERIFY(child<QCheckBox>("tuneWarmStart")->isEnabled());
    QVERIFY(child<QSpinBox>("tuneSeed")->isEnabled());
  }

  void theOptionBarWraps() {
    // Wide: the options and the buttons in two rows at most; narrow: more rows. Either
    // way every field lies inside the bar, none over another, and the status below it.
    views::TuneView v;
    int wideRows = 0;
    for (const int width : {1400, 420}) {
      v.resize(width, 400);
      v.show();
      QVERIFY(QTest::qWaitForWindowExposed(&v));
      QApplication::processEvents();
      auto* bar = v.findChild<QWidget*>(QStringLiteral("tuneOptionsBar"));
      QVERIFY(bar);
      std::vector<QRect> fields;
      std::vector<int> centres;
      for (QWidget* w : bar->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly)) {
        if (!w->isVisible()) continue;
        const QRect r = w->geometry();
        QVERIFY2(bar->rect().contains(r), qPrintable(QStringLiteral("%1 at width %2").arg(width).arg(r.right())));
        for (const QRect& other : fields)
          QVERIFY(!other.intersects(r));
        fields.push_back(r);
        centres.push_back(r.center().y());
      }
      // Rows: fields of one row are centred on one line (within rounding).
      std::sort(centres.begin(), centres.end());
      int rows = 1;
      for (std::size_t i = 1; i < centres.size(); ++i)
        rows += centres[i] - centres[i - 1] > 2 ? 1 : 0;
      QCOMPARE(fields.size(), std::size_t(12)); // eleven options, then the log and the buttons
      QVERIFY(v.findChild<QLabel*>(QStringLiteral("tuneStatus"))->geometry().top() >= bar->geometry().bottom());
      if (width == 1400) {
        wideRows = rows;
        QVERIFY2(wideRows <= 2, qPrintable(QString::number(wideRows)));
      } else {
        QVERIFY2(rows > wideRows, qPrintable(QString::number(rows)));
      }
    }
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

  /// A program with a handful of schedules: the search ends when they are all measured,
  /// and the status says why it ended before its trials.
  void aSmallSpaceRunsOutAndSaysSo() {
    gui::Session& s = *m_window->session();
    s.editSource(QStringLiteral("from tvm import te\nA = te.placeholder((4,), dtype=\"float32\", name=\"A\")\n"
                                "B = te.compute((4,), lambda i: A[i], name=\"B\")\n"));
    QVERIFY(settle(*m_window));
    QVERIFY(s.state());
    setControls(QStringLiteral("evolutionary"), 100, 4, QString());
    const gui::TuneOutcome* o = startAndWait();
    QVERIFY(o);
    QVERIFY2(o->ok, qPrintable(o->error));
    QVERIFY(o->exhausted);
    QVERIFY(!o->stopped);
    QVERIFY(o->measured > 0 && o->measured < 100);
    QCOMPARE(view()->model()->rowCount(), o->measured);
    const QString expected = QStringLiteral("Search space ran out (three rounds in a row drew no candidate not "
                                            "measured before): %1 of 100 trials measured, 0 failed. Best ")
                                 .arg(o->measured);
    QVERIFY2(view()->status().startsWith(expected), qPrintable(view()->status()));
    // A copy does no floating-point work: its speed is its 32 bytes (A read, B written)
    // per second, in GB/s, in the summary, the table and the curve.
    QVERIFY(o->best);
    QCOMPARE(o->best->gflops, 0.0);
    QCOMPARE(o->best->gbps, 32 / o->best->medianSeconds() / 1e9);
    QVERIFY2(view()->status().contains(QStringLiteral("Best %1 GB/s (").arg(o->best->gbps, 0, 'f', 1)),
             qPrintable(view()->status()));
    QCOMPARE(view()->model()->headerData(views::TuneModel::RateColumn, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("GB/s"));
    QCOMPARE(view()->curveChart()->title(), QStringLiteral("Best GB/s against trials"));
    const QLineSeries* curve = view()->curveSeries();
    QCOMPARE(curve->at(curve->count() - 1).y(), o->best->gbps);
    QCOMPARE(view()->model()->row(view()->model()->bestRow()).rate, o->best->gbps);
  }

  /// The scatter plots the cost model's scores; while the prior ranks the first batch there
  /// are none, and its axis says so.
  void theScatterSaysWhyItIsEmpty() {
    views::TuneView fresh;
    auto title = [&] { return fresh.scatterChart()->axes(Qt::Horizontal).front()->titleText(); };
    QCOMPARE(title(), QStringLiteral("predicted score"));
    views::TuneRow row;
    row.rate = 2;
    row.ms = 1;
    row.family = QStringLiteral("tir");
    row.byPrior = true;
    for (int trial : {1, 2}) {
      row.trial = trial;
      fresh.addCandidate(row);
    }
    QCOMPARE(title(), QStringLiteral("no model score yet (2 by the prior)"));
    QCOMPARE(fresh.scatterPointCount(), 0);
    row.byPrior = false;
    row.hasPrediction = true;
    row.predicted = 0.5;
    row.trial = 3;
    fresh.addCandidate(row);
    QCOMPARE(fresh.scatterPointCount(), 1);
    QCOMPARE(title(), QStringLiteral("predicted score (all equal)"));
    row.predicted = 0.7;
    row.trial = 4;
    fresh.addCandidate(row);
    QCOMPARE(title(), QStringLiteral("predicted score"));
    // The unit: GB/s for a program without floating-point work, GFLOP/s again after clear().
    fresh.setRateUnit(QStringLiteral("GB/s"));
    QCOMPARE(fresh.model()->headerData(views::TuneModel::RateColumn, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("GB/s"));
    QCOMPARE(fresh.curveChart()->title(), QStringLiteral("Best GB/s against trials"));
    fresh.clear();
    QCOMPARE(title(), QStringLiteral("predicted score"));
    QCOMPARE(fresh.curveChart()->title(), QStringLiteral("Best GFLOP/s against trials"));
    QCOMPARE(fresh.model()->headerData(views::TuneModel::RateColumn, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("GFLOP/s"));
  }
};

QTEST_MAIN(TestTuneView)
#include "tst_tune_view.moc"
