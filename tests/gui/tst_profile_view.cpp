// The profile dock end to end (offscreen): a profile run of matmul (64^3) through the
// cpu-c plugin (or cpu-llvm when cpu-c is not built) compiles, verifies and times the
// current state in the isolated worker and adds a verified row; Cancel stops a long run
// between repeats and leaves a "cancelled" row; a program the target refuses (a loop bound
// to a GPU thread on a CPU target) leaves a row with the error. The machine's peak is a
// fixed injected value, so no test pays for measuring it.
//
// LS_PROFILE_SCREENSHOT=FILE.png also renders the window with the profile dock raised
// (the machine's real peak is used then; LS_PROFILE_SCREENSHOT_DARK=1 for the dark
// theme, LS_PROFILE_SCREENSHOT_ROOFLINE=1 for the roofline tab instead of the bars,
// LS_PROFILE_SCREENSHOT_N=1024 for the matmul's size, 256 by default): the picture in
// docs/screenshots/.
#include "gui_helpers.h"

#include "app/gui/code_jobs.h"
#include "app/gui/profile_jobs.h"
#include "core/frontend/te_frontend.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"
#include "views/profile_rows_json.h"
#include "views/profile_view.h"

#include <QAbstractItemModelTester>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QDockWidget>
#include <QFile>
#include <QGuiApplication>
#include <QHorizontalBarSeries>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

constexpr double kFakePeakPerCore = 500; // GFLOP/s

views::PrimitiveRequest loopRequest(const gui::Session& s, const std::string& kind, const std::string& loop,
                                    std::vector<schedule::TraceValue> args, std::vector<schedule::TraceValue> attrs) {
  views::PrimitiveRequest r;
  r.kind = kind;
  r.snapshot = s.state()->program();
  const int i = r.snapshot->find(views::NodeInfo::Kind::Loop, loop);
  // Built in place: moving a braced RequestArg trips GCC 12's -Wmaybe-uninitialized on
  // the variant's other alternatives once this file instantiates more (a false positive).
  r.inputs.reserve(1 + args.size());
  r.inputs.emplace_back().value = r.snapshot->nodes[i].node;
  for (auto& a : args)
    r.inputs.emplace_back().value = std::move(a);
  r.attrs = std::move(attrs);
  return r;
}

QString smallMatmul() {
  QString text = readSample(QStringLiteral("matmul.te"));
  text.replace(QStringLiteral("M, N, K = 1024, 1024, 1024"), QStringLiteral("M, N, K = 64, 64, 64"));
  return text;
}

} // namespace

class TestProfileView : public QObject {
  Q_OBJECT

private:
  std::unique_ptr<gui::MainWindow> m_window;
  QString m_target;
  std::unique_ptr<QAbstractItemModelTester> m_tester;

  /// Opens the 64^3 matmul with no steps.
  void openMatmul() {
    gui::MainWindow& w = *m_window;
    w.session()->openSource(smallMatmul(), QStringLiteral("matmul.te"));
    QVERIFY(settle(w));
    QVERIFY(w.session()->state());
    QCOMPARE(w.session()->state()->trace->stepCount, 0);
  }

  void setOptions(int repeat, bool verify) {
    views::ProfileOptions o;
    o.target = m_target;
    o.repeat = repeat;
    o.verify = verify;
    m_window->profileView()->setOptions(o);
    QCOMPARE(m_window->profileView()->options().target, m_target);
  }

  const views::ProfileRow& lastRow() const { return m_window->profileView()->model()->rows().back(); }

private Q_SLOTS:
  void initTestCase() {
    for (const views::TargetEntry& t : gui::availableTargets())
      if (t.enabled &&
          (t.name == QStringLiteral("cpu-c") || (t.name == QStringLiteral("cpu-llvm") && m_target.isEmpty())))
        m_target = t.name;
    if (m_target.isEmpty()) QSKIP("neither the cpu-c nor the cpu-llvm plugin is usable in this build");
    m_window = makeWindow();
    QVERIFY(settle(*m_window));
    if (qEnvironmentVariableIsEmpty("LS_PROFILE_SCREENSHOT")) {
      m_window->profileJob()->setPeakProvider([] {
        codegen::MachinePeak peak;
        peak.cores = 4;
        peak.gflopsPerCore = kFakePeakPerCore;
        peak.gflopsAllCores = 4 * kFakePeakPerCore;
        peak.bandwidthGBs = 50;
        return std::optional<codegen::MachinePeak>(peak);
      });
    }
    m_tester = std::make_unique<QAbstractItemModelTester>(m_window->profileView()->model(),
                                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
  }

  void cleanupTestCase() {
    m_tester.reset();
    m_window.reset();
  }

  void profileJobAddsVerifiedRow() {
    gui::MainWindow& w = *m_window;
    openMatmul();
    w.session()->applyPrimitive(
        loopRequest(*w.session(), "split", "i", {schedule::TraceList{nullptr, 16}}, {true, false}));
    QVERIFY(settle(w));
    QCOMPARE(w.session()->state()->trace->stepCount, 1);
    setOptions(3, true);
    const int before = w.profileView()->model()->rowCount();
    QSignalSpy running(w.profileJob(), &gui::ProfileJob::runningChanged);
    QSignalSpy stages(w.profileJob(), &gui::ProfileJob::progress);
    w.action(QStringLiteral("runProfile"))->trigger();
    QVERIFY(w.profileJob()->isRunning());
    QVERIFY(!w.action(QStringLiteral("runProfile"))->isEnabled());
    QVERIFY(w.action(QStringLiteral("runCancelProfile"))->isEnabled());
    QVERIFY(w.waitIdle(120000));
    QCOMPARE(running.count(), 2);
    QCOMPARE(w.profileView()->model()->rowCount(), before + 1);

    const views::ProfileRow& row = lastRow();
    QVERIFY2(row.status == views::ProfileRow::Status::Verified, row.message.c_str());
    QCOMPARE(row.message, std::string("verified"));
    QCOMPARE(row.step, 1);
    QCOMPARE(row.stepLabel, std::string("1 · split"));
    QCOMPARE(row.target, m_target.toStdString());
    QVERIFY(row.details.find("reference: the reference interpreter") != std::string::npos);
    QCOMPARE(row.perRepeatMs.size(), std::size_t(3));
    QVERIFY(row.number >= 1);
    QVERIFY(row.medianMs > 0);
    // 64^3 multiply-adds on the unscheduled program (the useful work), per the median.
    const double flops = 2.0 * 64 * 64 * 64;
    QVERIFY(std::abs(row.gflops - flops / (row.medianMs * 1e-3) / 1e9) <= 1e-9 * row.gflops);
    QVERIFY(row.percentOfPeak.has_value());
    QVERIFY(std::abs(*row.percentOfPeak - 100 * row.gflops / kFakePeakPerCore) <= 1e-9 * *row.percentOfPeak);
    // The roofline's inputs: FLOP per compulsory byte (three 64x64 fp32 matrices), the
    // one-core peak (no parallel loop) and the bandwidth.
    QVERIFY(row.intensity.has_value());
    QCOMPARE(*row.intensity, flops / (3 * 64 * 64 * 4));
    QCOMPARE(row.peakGflops, std::optional<double>(kFakePeakPerCore));
    QCOMPARE(row.bandwidthGBs, std::optional<double>(50));
    // The modeled traffic of the compiled kernel (this core's L2): 48 KiB of matrices fit
    // in any L2, so it is the compulsory traffic here.
    QVERIFY(row.modeledIntensity.has_value());
    QCOMPARE(row.modeledBytes, std::optional<double>(3 * 64 * 64 * 4));
    QCOMPARE(*row.modeledIntensity, *row.intensity);
    QVERIFY(row.trafficModel.starts_with("beyond a "));
    const auto& points = w.profileView()->roofline()->points();
    QVERIFY(!points.empty());
    QCOMPARE(points.back().compulsoryIntensity, *row.intensity);
    QCOMPARE(points.back().intensity, *row.modeledIntensity);
    QCOMPARE(points.back().gflops, row.gflops);

    // The stages were reported in order: compiling, verifying, the three repeats, the peak.
    QStringList seen;
    for (const auto& args : stages)
      seen << args.at(0).toString();
    QCOMPARE(seen, (QStringList{QStringLiteral("compiling"), QStringLiteral("verifying"),
                                QStringLiteral("timing repeat 1/3"), QStringLiteral("timing repeat 2/3"),
                                QStringLiteral("timing repeat 3/3"), QStringLiteral("reading the machine peak")}));

    // The table shows the row, the chart has one bar per timed row.
    auto* model = w.profileView()->model();
    const int r = model->rowCount() - 1;
    QCOMPARE(model->index(r, views::ProfileModel::StepColumn).data().toString(), QStringLiteral("1 · split"));
    QCOMPARE(model->index(r, views::ProfileModel::TargetColumn).data().toString(), m_target);
    QCOMPARE(model->index(r, views::ProfileModel::ResultColumn).data().toString(), QStringLiteral("verified"));
    QCOMPARE(model->index(r, views::ProfileModel::GflopsColumn).data().toString(), QString::number(row.gflops, 'f', 2));
    QVERIFY(!w.profileView()->isRunning());
    const auto series = w.profileView()->chart()->series();
    QCOMPARE(series.size(), qsizetype(1));
    auto* bars = qobject_cast<QHorizontalBarSeries*>(series.front());
    QVERIFY(bars);
    // Horizontal bars: the newest row is the first (bottom) bar.
    QCOMPARE(bars->barSets().front()->count(), r + 1);
    QCOMPARE(bars->barSets().front()->at(0), row.gflops);
    auto categories = [&] {
      for (QAbstractAxis* axis : w.profileView()->chart()->axes(Qt::Vertical))
        if (auto* c = qobject_cast<QBarCategoryAxis*>(axis)) return c->categories();
      return QStringList();
    };
    const QString label = QStringLiteral("1 · split / ") + m_target;
    QCOMPARE(categories().front(), label);

    // The same state measured again: a second bar with its own category.
    QVERIFY(w.profileCurrentState());
    QVERIFY(w.waitIdle(120000));
    bars = qobject_cast<QHorizontalBarSeries*>(w.profileView()->chart()->series().front()); // rebuilt per row
    QVERIFY(bars);
    QCOMPARE(bars->barSets().front()->count(), r + 2);
    QCOMPARE(categories().mid(0, 2), (QStringList{label + QStringLiteral(" (2)"), label}));
  }

  void tiledMatmulHasTheLargerModeledIntensity() {
    // The job itself (runProfile) on the 64^3 matmul, untiled and tiled 8 x 8, with the
    // traffic model's cache at 4 KiB so that the matrices (48 KiB) do not fit: the tiled
    // schedule moves less, its modeled intensity is larger; the compulsory one is equal.
    auto original = frontend::parseTe(smallMatmul().toStdString(), "matmul.te");
    QVERIFY(original.has_value());
    schedule::Schedule sch(*original);
    QVERIFY(schedule::applyScript(sch, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1 = sch.split(i, factors=[None, 8])
j_0, j_1 = sch.split(j, factors=[None, 8])
sch.reorder(i_0, j_0, k, i_1, j_1)
)",
                                  "tile.py")
                .has_value());
    auto measure = [&](const ir::PrimFunc& scheduled) {
      gui::ProfileRequest request;
      request.original = *original;
      request.scheduled = scheduled;
      request.target = m_target.toStdString();
      request.repeat = 1;
      request.verify = false;
      request.minRepeatMs = 1;
      request.trafficCacheBytes = 4096;
      request.peak = [] { return std::optional<codegen::MachinePeak>(); };
      return gui::runProfile(request, {}, [](int, int) {});
    };
    const views::ProfileRow untiled = measure(*original);
    const views::ProfileRow tiled = measure(sch.func());
    QVERIFY2(untiled.timed() && tiled.timed(), (untiled.message + " / " + tiled.message).c_str());
    QVERIFY(untiled.modeledIntensity && tiled.modeledIntensity);
    QCOMPARE(*untiled.intensity, *tiled.intensity);
    // tst_traffic_model derives both: 18350080 bytes untiled, 425984 tiled.
    QCOMPARE(untiled.modeledBytes, std::optional<double>(18350080));
    QCOMPARE(tiled.modeledBytes, std::optional<double>(425984));
    QVERIFY(*tiled.modeledIntensity > *untiled.modeledIntensity);
    QCOMPARE(tiled.trafficModel, std::string("beyond a 4 KiB cache, 64-byte lines"));
  }

  void previewedStepIsTheOneMeasured() {
    gui::MainWindow& w = *m_window;
    openMatmul();
    w.session()->applyPrimitive(
        loopRequest(*w.session(), "split", "j", {schedule::TraceList{nullptr, 8}}, {true, false}));
    QVERIFY(settle(w));
    w.session()->applyPrimitive(loopRequest(*w.session(), "bind", "i", {}, {"threadIdx.x"}));
    QVERIFY(settle(w));
    QCOMPARE(w.session()->state()->trace->stepCount, 2);
    setOptions(1, true);
    // The current state (step 2) binds a GPU thread: refused by the CPU target.
    QVERIFY(w.profileCurrentState());
    QVERIFY(w.waitIdle(120000));
    QCOMPARE(lastRow().stepLabel, std::string("2 · bind"));
    QCOMPARE(lastRow().status, views::ProfileRow::Status::Error);
    // Showing step 1 (the split, the last instruction of that step) measures step 1.
    const auto& rows = w.session()->state()->trace->rows;
    int splitRow = -1;
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (rows[r].kind == "split") splitRow = static_cast<int>(r);
    QVERIFY(splitRow >= 0);
    w.session()->previewInstruction(splitRow);
    QVERIFY(settle(w));
    QVERIFY(w.isPreviewing());
    QVERIFY(w.profileCurrentState());
    QVERIFY(w.waitIdle(120000));
    QCOMPARE(lastRow().stepLabel, std::string("1 · split"));
    QCOMPARE(lastRow().step, 1);
    QVERIFY2(lastRow().status == views::ProfileRow::Status::Verified, lastRow().message.c_str());
    w.action(QStringLiteral("scheduleBackToCurrent"))->trigger();
    QVERIFY(!w.isPreviewing());
  }

  void cancelledRunAddsCancelledRow() {
    gui::MainWindow& w = *m_window;
    openMatmul();
    setOptions(40, false);
    const int before = w.profileView()->model()->rowCount();
    bool clicked = false;
    const auto connection = connect(w.profileJob(), &gui::ProfileJob::progress, this, [&](const QString& stage) {
      if (clicked || stage != QStringLiteral("timing repeat 2/40")) return;
      clicked = true;
      auto* cancel = w.profileView()->findChild<QPushButton*>(QStringLiteral("profileCancel"));
      QVERIFY(cancel && cancel->isEnabled());
      QTest::mouseClick(cancel, Qt::LeftButton);
    });
    QVERIFY(w.profileCurrentState());
    QVERIFY(!w.profileCurrentState()); // one run at a time
    const bool idle = w.waitIdle(120000);
    disconnect(connection);
    QVERIFY(idle);
    QVERIFY(clicked);
    QCOMPARE(w.profileView()->model()->rowCount(), before + 1);
    const views::ProfileRow& row = lastRow();
    QCOMPARE(row.status, views::ProfileRow::Status::Cancelled);
    QCOMPARE(row.step, 0);
    QCOMPARE(row.stepLabel, std::string("original"));
    QVERIFY(!row.timed());
    // Stopped between repeats, long before the 40th.
    const std::string prefix = "cancelled after ";
    QVERIFY2(row.message.starts_with(prefix), row.message.c_str());
    const int done = std::stoi(row.message.substr(prefix.size()));
    QVERIFY2(done >= 1 && done < 20, row.message.c_str());
    QCOMPARE(row.message, prefix + std::to_string(done) + " of 40 timing repeats");
    QCOMPARE(w.profileView()->model()->index(before, views::ProfileModel::ResultColumn).data().toString(),
             QString::fromStdString(row.message));
    QCOMPARE(w.profileView()->model()->index(before, views::ProfileModel::MedianColumn).data().toString(), QString());
  }

  void refusedProgramShowsTheError() {
    gui::MainWindow& w = *m_window;
    openMatmul();
    w.session()->applyPrimitive(loopRequest(*w.session(), "bind", "i", {}, {"threadIdx.x"}));
    QVERIFY(settle(w));
    QCOMPARE(w.session()->state()->trace->stepCount, 1);
    setOptions(2, true);
    const int before = w.profileView()->model()->rowCount();
    QVERIFY(w.profileCurrentState());
    QVERIFY(w.waitIdle(120000));
    QCOMPARE(w.profileView()->model()->rowCount(), before + 1);
    const views::ProfileRow& row = lastRow();
    QCOMPARE(row.status, views::ProfileRow::Status::Error);
    QCOMPARE(row.stepLabel, std::string("1 · bind"));
    QCOMPARE(row.message,
             std::string("compile: loop 'i' is bound to threadIdx.x, but target device 'cpu' has no GPU threads"));
    QVERIFY2(row.details.starts_with("compile failed [codegen.thread-binding-on-cpu]\n"), row.details.c_str());
    QVERIFY2(row.details.find("note: use sch.parallel on this loop for CPU threads") != std::string::npos,
             row.details.c_str());
    QVERIFY(!row.timed());
    QCOMPARE(w.profileView()->model()->index(before, views::ProfileModel::ResultColumn).data().toString(),
             QString::fromStdString(row.message));
    QVERIFY(w.profileView()->status().contains(QStringLiteral("has no GPU threads")));
  }

  void symbolicSizesComeFromTheSizesField() {
    gui::MainWindow& w = *m_window;
    w.session()->openSource(readSample(QStringLiteral("dense_dynamic.te")), QStringLiteral("dense_dynamic.te"));
    QVERIFY(settle(w));
    auto run = [&](const QString& sizes) {
      views::ProfileOptions o{m_target, 1, true, sizes};
      w.profileView()->setOptions(o);
      QVERIFY(w.profileCurrentState());
      QVERIFY(w.waitIdle(120000));
    };
    run(QString());
    QCOMPARE(lastRow().status, views::ProfileRow::Status::Error);
    QCOMPARE(lastRow().message,
             std::string("sizes: the symbolic size 'n' has no value; enter it in Sizes (e.g. n=64)"));
    run(QStringLiteral("m=3"));
    QCOMPARE(lastRow().message, std::string("sizes: size 'm=3': 'm' is not a symbolic size of the program (n)"));
    run(QStringLiteral("n=0"));
    QCOMPARE(lastRow().message, std::string("sizes: size 'n=0': expected NAME=VALUE with a positive integer VALUE"));
    run(QStringLiteral("n=3"));
    QVERIFY2(lastRow().status == views::ProfileRow::Status::Verified, lastRow().message.c_str());
    // 3 x 1000 outputs, 512 multiply-adds each.
    QVERIFY(std::abs(lastRow().gflops - 2.0 * 3 * 1000 * 512 / (lastRow().medianMs * 1e-3) / 1e9) <=
            1e-9 * lastRow().gflops);
  }

  void chartFollowsTheTheme() {
    gui::MainWindow& w = *m_window;
    QChart* chart = w.profileView()->chart();
    w.setDarkTheme(true);
    QCOMPARE(chart->theme(), QChart::ChartThemeDark);
    QCOMPARE(chart->backgroundBrush().color(), QColor(30, 30, 32)); // the dark theme's Base
    w.setDarkTheme(false);
    QCOMPARE(chart->theme(), QChart::ChartThemeLight);
    QCOMPARE(chart->backgroundBrush().color(), QGuiApplication::palette().color(QPalette::Base));
  }

  void rowsBelongToTheirProgramAndTheOriginalIsOneClick() {
    gui::MainWindow& w = *m_window;
    QTemporaryDir dir;
    for (const char* name : {"a.te", "b.te"}) {
      QFile f(dir.filePath(QString::fromLatin1(name)));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(smallMatmul().toUtf8());
    }
    QVERIFY(w.openPath(dir.filePath(QStringLiteral("a.te"))));
    QVERIFY(settle(w));
    QCOMPARE(w.profileView()->model()->rowCount(), 0);
    QCOMPARE(w.profileView()->status(),
             QStringLiteral("No runs of a.te yet: Run (Ctrl+R) compiles, verifies and times the current state, Run "
                            "original the program before any step."));
    w.session()->applyPrimitive(
        loopRequest(*w.session(), "split", "i", {schedule::TraceList{nullptr, 16}}, {true, false}));
    QVERIFY(settle(w));
    setOptions(1, true);
    QTest::mouseClick(w.profileView()->findChild<QPushButton*>(QStringLiteral("profileOriginal")), Qt::LeftButton);
    QVERIFY(w.waitIdle(120000));
    QCOMPARE(w.profileView()->model()->rowCount(), 1);
    QCOMPARE(lastRow().step, 0);
    QCOMPARE(lastRow().stepLabel, std::string("original"));
    QCOMPARE(lastRow().program, std::string("a.te"));
    QVERIFY2(lastRow().status == views::ProfileRow::Status::Verified, lastRow().message.c_str());
    QCOMPARE(w.session()->state()->trace->stepCount, 1); // nothing was undone

    QVERIFY(w.openPath(dir.filePath(QStringLiteral("b.te"))));
    QVERIFY(settle(w));
    QCOMPARE(w.profileView()->model()->rowCount(), 0);
    QVERIFY(w.profileView()->status().startsWith(QStringLiteral("No runs of b.te yet")));
    QVERIFY(w.profileView()->chart()->title().contains(QStringLiteral("b.te")));
    QVERIFY(w.openPath(dir.filePath(QStringLiteral("a.te"))));
    QVERIFY(settle(w));
    QCOMPARE(w.profileView()->model()->rowCount(), 1);
    QCOMPARE(w.profileView()->status(), QStringLiteral("1 earlier run(s) of a.te."));

    // The rows are saved with the session and come back with it, in another window.
    const views::ProfileRow measured = lastRow();
    const QString session = dir.filePath(QStringLiteral("a.lsproj"));
    QVERIFY(w.saveSessionTo(session));
    auto other = makeWindow();
    QVERIFY(other->openPath(dir.filePath(QStringLiteral("b.te"))));
    QVERIFY(settle(*other));
    QVERIFY(other->openPath(session));
    QVERIFY(settle(*other));
    const auto& rows = other->profileView()->model()->rows();
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].program, measured.program);
    QCOMPARE(rows[0].step, 0);
    QCOMPARE(rows[0].stepLabel, std::string("original"));
    QCOMPARE(rows[0].target, measured.target);
    QVERIFY(rows[0].status == measured.status);
    QCOMPARE(rows[0].perRepeatMs, measured.perRepeatMs);
    QCOMPARE(rows[0].medianMs, measured.medianMs);
    QCOMPARE(rows[0].gflops, measured.gflops);
    QCOMPARE(rows[0].percentOfPeak.has_value(), measured.percentOfPeak.has_value());
    QCOMPARE(rows[0].intensity, measured.intensity);
    QCOMPARE(rows[0].peakGflops, measured.peakGflops);
    QCOMPARE(rows[0].bandwidthGBs, measured.bandwidthGBs);
    QVERIFY(rows[0].intensity.has_value());
    QCOMPARE(other->profileView()->roofline()->points().size(), std::size_t(1));
    QCOMPARE(other->profileView()->status(), QStringLiteral("1 run(s) of a.lsproj, saved with the session."));
    QCOMPARE(other->profileView()->chart()->series().size(), 1);
  }

  void savedRowsThatDoNotReadAreLeftOut() {
    views::ProfileRow row;
    row.program = "a.te";
    row.stepLabel = "2 · split";
    row.step = 2;
    row.target = "cpu-c";
    row.status = views::ProfileRow::Status::Mismatch;
    row.message = "mismatch";
    row.perRepeatMs = {1.5, 2.5};
    row.number = 3;
    row.medianMs = 2;
    row.gflops = 7.25;
    QJsonArray saved = views::profileRowsToJson({row});
    QJsonObject bad = saved.at(0).toObject();
    bad[QStringLiteral("status")] = QStringLiteral("great");
    saved.append(bad);
    saved.append(QStringLiteral("not a row"));
    int skipped = 0;
    const auto rows = views::profileRowsFromJson(saved, &skipped);
    QCOMPARE(skipped, 2);
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].stepLabel, row.stepLabel);
    QCOMPARE(rows[0].step, 2);
    QVERIFY(rows[0].status == views::ProfileRow::Status::Mismatch);
    QCOMPARE(rows[0].perRepeatMs, row.perRepeatMs);
    QCOMPARE(rows[0].number, 3);
    QCOMPARE(rows[0].gflops, 7.25);
    QVERIFY(!rows[0].percentOfPeak.has_value());
  }

  void screenshot() {
    const QString path = qEnvironmentVariable("LS_PROFILE_SCREENSHOT");
    if (path.isEmpty()) QSKIP("set LS_PROFILE_SCREENSHOT=FILE.png to render the profile dock");
    gui::MainWindow& w = *m_window;
    w.profileView()->model()->clear();
    if (qEnvironmentVariableIsSet("LS_PROFILE_SCREENSHOT_DARK")) w.setDarkTheme(true);
    // 256^3 by default (its 768 KiB fit a 1 MiB L2: every state has the compulsory
    // traffic); LS_PROFILE_SCREENSHOT_N=1024 spreads the roofline's modeled intensities.
    const QString n = qEnvironmentVariable("LS_PROFILE_SCREENSHOT_N", QStringLiteral("256"));
    QString text = readSample(QStringLiteral("matmul.te"));
    text.replace(QStringLiteral("M, N, K = 1024, 1024, 1024"), QStringLiteral("M, N, K = %1, %1, %1").arg(n));
    w.session()->openSource(text, QStringLiteral("matmul.te"));
    QVERIFY(settle(w));
    setOptions(5, true);
    auto profile = [&] {
      QVERIFY(w.profileCurrentState());
      QVERIFY(w.waitIdle(300000));
    };
    profile();
    w.session()->applyPrimitive(
        loopRequest(*w.session(), "split", "i", {schedule::TraceList{nullptr, 32}}, {true, false}));
    QVERIFY(settle(w));
    w.session()->applyPrimitive(
        loopRequest(*w.session(), "split", "j", {schedule::TraceList{nullptr, 32}}, {true, false}));
    QVERIFY(settle(w));
    profile();
    {
      views::PrimitiveRequest reorder;
      reorder.kind = "reorder";
      reorder.snapshot = w.session()->state()->program();
      std::vector<const ir::StmtNode*> loops;
      for (const char* name : {"i_0", "j_0", "k", "i_1", "j_1"})
        loops.push_back(reorder.snapshot->nodes[reorder.snapshot->find(views::NodeInfo::Kind::Loop, name)].node);
      reorder.inputs.push_back({loops});
      w.session()->applyPrimitive(reorder);
      QVERIFY(settle(w));
    }
    profile();
    w.session()->applyPrimitive(loopRequest(*w.session(), "vectorize", "j_1", {}, {}));
    QVERIFY(settle(w));
    profile();
    // The same state through the other CPU plugin, when it is built.
    for (const views::TargetEntry& t : gui::availableTargets())
      if (t.enabled && t.name != m_target && t.name.startsWith(QStringLiteral("cpu-"))) {
        views::ProfileOptions o = w.profileView()->options();
        o.target = t.name;
        w.profileView()->setOptions(o);
        profile();
        break;
      }
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("profileDock"));
    QVERIFY(dock);
    dock->raise();
    w.profileView()->showRoofline(qEnvironmentVariableIsSet("LS_PROFILE_SCREENSHOT_ROOFLINE"));
    w.resize(1280, 800);
    w.resizeDocks({dock}, {360}, Qt::Vertical);
    QVERIFY(settle(w));
    QTest::qWait(200);
    QVERIFY(w.grab().save(path));
  }
};

QTEST_MAIN(TestProfileView)
#include "tst_profile_view.moc"
