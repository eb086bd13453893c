// The Compare window (issue 19), offscreen: samples/matmul.te tiled by
// samples/traces/matmul_tile.py against poly_auto marks exactly the entries of
// core/ir/program_diff (a fresh diff of the two programs, and the known list: the four
// tile loops only in A, i and j only in B, block C changed); the bands are paired as
// `compare` prints them; the loops tables list each side's loops with what they carry;
// selecting a loop or block on one side selects its match on the other (nothing for a
// loop only on one side) and the loops tables' rows; a trace step, a trace file and a
// tuning log's best record are sides too, scrolling one side's program or code keeps the
// matching lines level on the other, and a missing trace file is an error shown in
// the window. Measure builds, verifies and times both sides of a 64^3 matmul with cpu-c in
// the background and fills the table and the bar chart (a fixed injected peak); a
// symbolic size unbound in Sizes is an error row, bound it is measured; Cancel stops a
// measurement with a cancelled row. The
// headless --compare-a/--compare-b screenshot and --export-view compare write images of
// the requested size; File → Export view exports the Compare window when it has the focus.
#include "gui_helpers.h"

#include "app/gui/code_jobs.h"
#include "app/gui/compare_window.h"
#include "app/gui/view_export.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/trace_json.h"
#include "core/tune/records.h"
#include "views/compare_chart.h"
#include "views/tensorir_view.h"

#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QToolButton>

#include <map>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

using Marks = std::map<std::string, ir::DiffKind>; ///< "loop i_0", "block C" -> kind

/// What the window marks on one side: the marked node's kind and name, and the diff kind
/// told by the mark's colour (the colours of the three kinds differ).
Marks shownMarks(const views::TensorIrView& view, const std::map<QRgb, ir::DiffKind>& colours) {
  Marks out;
  for (const auto& m : view.marks()) {
    const views::NodeInfo& n = view.snapshot()->nodes[static_cast<std::size_t>(m.node)];
    const auto kind = colours.find(m.background.rgb());
    if (kind == colours.end()) continue;
    out[(n.kind == views::NodeInfo::Kind::Loop ? "loop " : "block ") + n.name] = kind->second;
  }
  return out;
}

/// The entries of `diff` on one side, keyed as shownMarks.
Marks diffEntries(const ir::ProgramDiff& diff, bool first) {
  Marks out;
  for (const auto& e : diff.entries) {
    const ir::DiffLocation& loc = first ? e.a : e.b;
    if (loc.line == 0) continue;
    std::string name = e.item == ir::DiffItem::Block ? e.block : loc.node ? std::string() : e.loop;
    if (e.item == ir::DiffItem::Loop) name = static_cast<const ir::For*>(loc.node)->loopVar.as<ir::Var>()->name;
    out[(e.item == ir::DiffItem::Loop ? "loop " : "block ") + name] = e.kind;
  }
  return out;
}

QString smallMatmul() {
  QString text = readSample(QStringLiteral("matmul.te"));
  text.replace(QStringLiteral("M, N, K = 1024, 1024, 1024"), QStringLiteral("M, N, K = 64, 64, 64"));
  return text;
}

QString sampleTrace() { return QStringLiteral(LS_SOURCE_DIR "/samples/traces/matmul_tile.py"); }

} // namespace

class TestCompareWindow : public QObject {
  Q_OBJECT

private:
  std::unique_ptr<gui::MainWindow> m_window;
  QTemporaryDir m_dir;

  gui::CompareWindow* compareWindow() { return m_window->compareWindow(); }

  /// matmul.te (1024^3) with the tile trace applied.
  void openTiledMatmul() {
    gui::MainWindow& w = *m_window;
    QVERIFY(w.openPath(QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te")));
    QVERIFY(settle(w));
    QVERIFY(w.loadTracePath(sampleTrace()));
    QVERIFY(settle(w));
    QVERIFY(w.session()->state());
    QVERIFY(w.session()->state()->trace->stepCount > 0);
  }

  /// Computes the classic comparison through the Run menu's action.
  void compareWithPolyAuto() {
    QSignalSpy ready(compareWindow(), &gui::CompareWindow::comparisonReady);
    m_window->action(QStringLiteral("runCompareWithPolyAuto"))->trigger();
    QVERIFY(compareWindow()->isVisible());
    QVERIFY(compareWindow()->waitIdle(120000));
    QCOMPARE(ready.count(), 1);
    QVERIFY(compareWindow()->result());
  }

private Q_SLOTS:
  void initTestCase() {
    m_window = makeWindow();
    QVERIFY(settle(*m_window));
    QVERIFY(m_dir.isValid());
  }

  void cleanupTestCase() { m_window.reset(); }

  void diffMarksAreProgramDiffEntries() {
    openTiledMatmul();
    compareWithPolyAuto();
    gui::CompareWindow& cw = *compareWindow();
    const gui::CompareResult& r = *cw.result();
    QVERIFY(r.a.ok());
    QVERIFY(r.b.ok());
    QCOMPARE(r.a.name, std::string("current trace (5 steps)"));
    QCOMPARE(r.b.name, std::string("poly_auto"));
    // A fresh diff of the same two programs: the tiled one from the session, poly_auto's
    // computed here.
    schedule::Schedule poly = poly::makeSchedule(m_window->session()->state()->schedule.original());
    QVERIFY(poly::polyAuto(poly, poly::PolyAutoOptions{}).has_value());
    const ir::ProgramDiff fresh = ir::diffPrograms(m_window->session()->state()->schedule.func(), poly.func());
    QCOMPARE(ir::renderProgramDiff(r.diff), ir::renderProgramDiff(fresh));
    // The marks the views show, by colour.
    const auto& marksA = cw.programView(true)->marks();
    const auto& marksB = cw.programView(false)->marks();
    QVERIFY(!marksA.empty());
    std::map<QRgb, ir::DiffKind> colours;
    for (const auto& m : marksA)
      colours[m.background.rgb()] =
          m.note.startsWith(QStringLiteral("only in A")) ? ir::DiffKind::Removed : ir::DiffKind::Changed;
    for (const auto& m : marksB)
      if (m.note.startsWith(QStringLiteral("only in B"))) colours[m.background.rgb()] = ir::DiffKind::Added;
    QCOMPARE(colours.size(), std::size_t(3)); // three kinds, three colours
    const Marks expectedA = {{"loop i_0", ir::DiffKind::Removed},
                             {"loop j_0", ir::DiffKind::Removed},
                             {"loop i_1", ir::DiffKind::Removed},
                             {"loop j_1", ir::DiffKind::Removed},
                             {"block C", ir::DiffKind::Changed}};
    const Marks expectedB = {
        {"loop i", ir::DiffKind::Added}, {"loop j", ir::DiffKind::Added}, {"block C", ir::DiffKind::Changed}};
    QCOMPARE(diffEntries(fresh, true), expectedA);
    QCOMPARE(diffEntries(fresh, false), expectedB);
    QCOMPARE(shownMarks(*cw.programView(true), colours), expectedA);
    QCOMPARE(shownMarks(*cw.programView(false), colours), expectedB);
    QCOMPARE(marksA.size(), expectedA.size());
    QCOMPARE(marksB.size(), expectedB.size());
    // The changed block's tooltip says what changed.
    const int blockC = cw.programView(true)->snapshot()->find(views::NodeInfo::Kind::Block, "C");
    QVERIFY(cw.programView(true)->describeNode(blockC).contains(QStringLiteral("binding v_i: i_0 * 32 + i_1 -&gt; i")));
    QVERIFY2(cw.status().contains(QStringLiteral("4 only in A")) &&
                 cw.status().contains(QStringLiteral("2 only in B")) &&
                 cw.status().contains(QStringLiteral("1 changed")),
             qPrintable(cw.status()));

    // Schedule trees: the bands paired as `loopscape-cli compare` pairs them.
    QTableWidget* pairs = cw.pairsTable();
    QCOMPARE(pairs->rowCount(), 2);
    QCOMPARE(
        pairs->item(0, 0)->text(),
        QStringLiteral("band 0.0.0 [i_0, j_0, k, i_1] permutable; coincident i_0, j_0, i_1; statements C_init, C"));
    QCOMPARE(pairs->item(0, 1)->text(),
             QStringLiteral("band 0.0 [i, j, k] permutable; coincident i, j; statements C_init, C"));
    QCOMPARE(pairs->item(0, 2)->text(), QStringLiteral("shared loops k, same statements"));
    QCOMPARE(pairs->item(1, 1)->text(), QStringLiteral("—"));
    QCOMPARE(pairs->item(1, 2)->text(), QStringLiteral("only in A"));

    // Loops: each side's loops with their kind and what they carry.
    QTableWidget* loopsA = cw.loopsTable(true);
    QTableWidget* loopsB = cw.loopsTable(false);
    QCOMPARE(loopsA->rowCount(), 5);
    QCOMPARE(loopsB->rowCount(), 3);
    QCOMPARE(loopsA->item(0, 0)->text(), QStringLiteral("i_0"));
    QCOMPARE(loopsA->item(0, 1)->text(), QStringLiteral("parallel"));
    QCOMPARE(loopsA->item(2, 0)->text(), QStringLiteral("    k"));
    QCOMPARE(loopsA->item(2, 2)->text(), QStringLiteral("no"));
    QCOMPARE(loopsA->item(2, 3)->text(), QStringLiteral("RAW C -> C, WAR C -> C, WAW C -> C"));
    QCOMPARE(loopsB->item(1, 2)->text(), QStringLiteral("yes"));

    // Generated code: the lines only in A and only in B marked from the line diff.
    QVERIFY(!r.codeDiff.empty());
    int onlyA = 0, onlyB = 0;
    for (const auto& e : r.codeDiff) {
      onlyA += e.op == compare::LineOp::Removed;
      onlyB += e.op == compare::LineOp::Added;
    }
    QVERIFY(onlyA > 0 && onlyB > 0);
    QCOMPARE(cw.codeView(true)->extraSelections().size(), onlyA);
    QCOMPARE(cw.codeView(false)->extraSelections().size(), onlyB);
    QVERIFY(cw.codeView(true)->toPlainText().contains(QStringLiteral("#pragma omp parallel for")));
    QVERIFY(!cw.codeView(false)->toPlainText().contains(QStringLiteral("#pragma omp parallel for")));
  }

  void selectingOneSideSelectsTheMatch() {
    gui::CompareWindow& cw = *compareWindow();
    views::TensorIrView* a = cw.programView(true);
    views::TensorIrView* b = cw.programView(false);
    auto name = [](views::TensorIrView* v) {
      return v->selectedNode() < 0 ? std::string("-") : v->snapshot()->nodes[std::size_t(v->selectedNode())].name;
    };
    // A click on loop k in A: k in B, and row 2 of both loops tables.
    const int kA = a->snapshot()->find(views::NodeInfo::Kind::Loop, "k");
    QTest::mouseClick(a->viewport(), Qt::LeftButton, {}, a->nodeCenter(kA));
    QCOMPARE(a->selectedNode(), kA);
    QCOMPARE(b->selectedNode(), b->snapshot()->find(views::NodeInfo::Kind::Loop, "k"));
    QCOMPARE(cw.loopsTable(true)->currentRow(), 2);
    QCOMPARE(cw.loopsTable(false)->currentRow(), 2);
    // Block C in B: block C in A.
    const int cB = b->snapshot()->find(views::NodeInfo::Kind::Block, "C");
    QTest::mouseClick(b->viewport(), Qt::LeftButton, {}, b->nodeCenter(cB));
    QCOMPARE(name(a), std::string("C"));
    QCOMPARE(a->snapshot()->nodes[std::size_t(a->selectedNode())].kind, views::NodeInfo::Kind::Block);
    // A loop only in A (the tile's i_0) has no match: B selects nothing.
    QTest::mouseClick(a->viewport(), Qt::LeftButton, {},
                      a->nodeCenter(a->snapshot()->find(views::NodeInfo::Kind::Loop, "i_0")));
    QCOMPARE(name(a), std::string("i_0"));
    QCOMPARE(b->selectedNode(), -1);
    // A row of B's loops table selects the loop on both sides.
    cw.loopsTable(false)->cellClicked(2, 0);
    QCOMPARE(name(b), std::string("k"));
    QCOMPARE(name(a), std::string("k"));
  }

  void scrollingKeepsMatchingLinesLevel() {
    // conv + bias + ReLU fused by TVM's primitives against poly_auto: long programs that
    // scroll in a small window.
    gui::MainWindow& w = *m_window;
    QVERIFY(w.openPath(QStringLiteral(LS_SOURCE_DIR "/samples/conv_bias_relu.te")));
    QVERIFY(settle(w));
    QVERIFY(w.loadTracePath(QStringLiteral(LS_SOURCE_DIR "/docs/tutorial/conv_fuse_tvm.py")));
    QVERIFY(settle(w));
    gui::CompareWindow& cw = *compareWindow();
    cw.resize(900, 500);
    QVERIFY(cw.compareWithPolyAuto());
    QVERIFY(cw.waitIdle(120000));
    QVERIFY(cw.result()->a.ok() && cw.result()->b.ok());
    views::TensorIrView* a = cw.programView(true);
    views::TensorIrView* b = cw.programView(false);
    // Block conv2d_nchw at the top of A: B scrolls so that its conv2d_nchw is at the top.
    const auto& snapA = *a->snapshot();
    const auto& snapB = *b->snapshot();
    auto lineOf = [](const views::ProgramSnapshot& snap, views::NodeInfo::Kind kind, const char* name) {
      return snap.nodes[std::size_t(snap.find(kind, name))].line;
    };
    const int convA = lineOf(snapA, views::NodeInfo::Kind::Block, "conv2d_nchw");
    const int convB = lineOf(snapB, views::NodeInfo::Kind::Block, "conv2d_nchw");
    QVERIFY(convA != convB);
    QVERIFY(b->verticalScrollBar()->maximum() >= convB - 1);
    a->verticalScrollBar()->setValue(convA - 1);
    QCOMPARE(b->verticalScrollBar()->value(), convB - 1);
    // And back: B's loop ff (deeper there, matched with A's ff) at its top brings A's.
    const int ffA = lineOf(snapA, views::NodeInfo::Kind::Loop, "ff");
    const int ffB = lineOf(snapB, views::NodeInfo::Kind::Loop, "ff");
    QVERIFY(ffA != ffB);
    QVERIFY(a->verticalScrollBar()->maximum() >= ffA - 1);
    b->verticalScrollBar()->setValue(ffB - 1);
    QCOMPARE(a->verticalScrollBar()->value(), ffA - 1);
    // The code: a line both sides have, at the top of A, is at the top of B.
    QPlainTextEdit* codeA = cw.codeView(true);
    QPlainTextEdit* codeB = cw.codeView(false);
    int sameA = 0, sameB = 0;
    for (const auto& e : cw.result()->codeDiff)
      if (e.op == compare::LineOp::Same && e.a > 20 && e.a != e.b) {
        sameA = e.a;
        sameB = e.b;
        break;
      }
    QVERIFY(sameA > 0);
    QVERIFY(codeB->verticalScrollBar()->maximum() >= sameB - 1);
    codeA->verticalScrollBar()->setValue(sameA - 1);
    QCOMPARE(codeB->verticalScrollBar()->value(), sameB - 1);
    QCOMPARE(codeA->document()->findBlockByNumber(sameA - 1).text(),
             codeB->document()->findBlockByNumber(sameB - 1).text());
    cw.resize(1400, 900);
  }

  void stepsFilesAndRecordsAreSides() {
    openTiledMatmul();
    gui::CompareWindow& cw = *compareWindow();
    const int steps = m_window->session()->state()->trace->stepCount;
    // The trace file is the current trace: no structural difference.
    cw.setSpecs(gui::CompareSpec{gui::CompareSpec::Kind::TraceFile, sampleTrace().toStdString(), 0},
                gui::CompareSpec{});
    QVERIFY(cw.compare());
    QVERIFY(cw.waitIdle(120000));
    QVERIFY(cw.result()->a.ok());
    QVERIFY(cw.result()->diff.empty());
    QCOMPARE(cw.result()->a.name, std::string("matmul_tile.py"));
    QVERIFY2(cw.status().contains(QStringLiteral("No structural difference")), qPrintable(cw.status()));
    QVERIFY(cw.programView(true)->marks().empty());
    // The first step (the split of i) against the whole trace.
    cw.setSpecs(gui::CompareSpec{gui::CompareSpec::Kind::TraceStep, {}, 1}, gui::CompareSpec{});
    QVERIFY(cw.compare());
    QVERIFY(cw.waitIdle(120000));
    QCOMPARE(cw.result()->a.name, "step 1 of " + std::to_string(steps));
    QVERIFY(cw.result()->a.snapshot->find(views::NodeInfo::Kind::Loop, "i_0") >= 0);
    QVERIFY(cw.result()->a.snapshot->find(views::NodeInfo::Kind::Loop, "j_0") < 0);
    QVERIFY(!cw.result()->diff.empty());
    // A tuning log: its fastest record of this program is the side.
    const QString log = m_dir.filePath(QStringLiteral("tune.jsonl"));
    {
      tune::Record slow, fast;
      for (tune::Record* r : {&slow, &fast}) {
        r->workload = tune::workloadKey(m_window->session()->state()->schedule.original());
        r->func = "main";
        r->target = "cpu-c";
        r->family = "tir";
        r->sketch = "test";
        r->verified = true;
      }
      slow.trial = 3;
      slow.seconds = {0.5};
      fast.trial = 7;
      fast.seconds = {0.01};
      fast.gflops = 12.5;
      fast.trace = m_window->session()->state()->schedule.trace();
      QFile f(log);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(tune::recordToJson(slow) + "\n" + tune::recordToJson(fast) + "\n"));
    }
    cw.setSpecs(gui::CompareSpec{gui::CompareSpec::Kind::TuningRecord, log.toStdString(), 0}, gui::CompareSpec{});
    QVERIFY(cw.compare());
    QVERIFY(cw.waitIdle(120000));
    QVERIFY2(cw.result()->a.ok(), cw.result()->a.error.c_str());
    QCOMPARE(cw.result()->a.name, std::string("best of tune.jsonl"));
    QVERIFY2(cw.result()->a.note.starts_with("trial 7 (test), 12.5 GFLOP/s on cpu-c"), cw.result()->a.note.c_str());
    QVERIFY(cw.result()->diff.empty());
    // A missing trace file: the error in place of side A's program, no diff marks.
    cw.setSpecs(gui::CompareSpec{gui::CompareSpec::Kind::TraceFile, "no/such/trace.py", 0}, gui::CompareSpec{});
    QVERIFY(cw.compare());
    QVERIFY(cw.waitIdle(120000));
    QVERIFY(!cw.result()->a.ok());
    QVERIFY2(cw.result()->a.error.find("no/such/trace.py") != std::string::npos, cw.result()->a.error.c_str());
    QVERIFY2(cw.status().contains(QStringLiteral("Side A has no program")), qPrintable(cw.status()));
    QVERIFY(cw.programView(true)->toPlainText().contains(QStringLiteral("no/such/trace.py")));
    QVERIFY(!cw.findChild<QPushButton*>(QStringLiteral("compareMeasureButton"))->isEnabled());
    // The command line's spelling of the sides.
    std::string why;
    QCOMPARE(gui::parseCompareSpec("step:2", &why)->step, 2);
    QCOMPARE(gui::parseCompareSpec("best:x.jsonl", &why)->kind, gui::CompareSpec::Kind::TuningRecord);
    QCOMPARE(gui::parseCompareSpec("poly_auto", &why)->kind, gui::CompareSpec::Kind::PolyAuto);
    QVERIFY(!gui::parseCompareSpec("step:0", &why));
    QCOMPARE(why, std::string("'step:0': step:N needs a step number of at least 1"));
  }

  void measurementRowsAfterBackgroundRun() {
    bool usable = false;
    for (const views::TargetEntry& t : gui::availableTargets())
      usable = usable || (t.enabled && t.name == QStringLiteral("cpu-c"));
    if (!usable) QSKIP("the cpu-c plugin is not usable in this build");
    gui::MainWindow& w = *m_window;
    w.session()->openSource(smallMatmul(), QStringLiteral("matmul.te"));
    QVERIFY(settle(w));
    gui::CompareWindow& cw = *compareWindow();
    cw.setPeakProvider([] {
      codegen::MachinePeak peak;
      peak.cores = 2;
      peak.gflopsPerCore = 100;
      peak.gflopsAllCores = 200;
      peak.bandwidthGBs = 20;
      return std::optional<codegen::MachinePeak>(peak);
    });
    cw.setSpecs(gui::CompareSpec{gui::CompareSpec::Kind::Original, {}, 0},
                gui::CompareSpec{gui::CompareSpec::Kind::PolyAuto, {}, 0});
    QVERIFY(cw.compare());
    QVERIFY(cw.waitIdle(120000));
    QVERIFY(cw.result()->a.ok() && cw.result()->b.ok());
    QCOMPARE(cw.measureTable()->rowCount(), 2);
    QCOMPARE(cw.measureTable()->item(0, 2)->text(), QStringLiteral("—"));
    QVERIFY(cw.chart()->barRects().empty());
    QSignalSpy finished(&cw, &gui::CompareWindow::measurementFinished);
    auto* button = cw.findChild<QPushButton*>(QStringLiteral("compareMeasureButton"));
    QVERIFY(button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(cw.isBusy()); // in the background
    QVERIFY(cw.waitIdle(300000));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(cw.measuredRows().size(), std::size_t(2));
    for (int side = 0; side < 2; ++side) {
      const views::ProfileRow& row = cw.measuredRows()[std::size_t(side)];
      QVERIFY2(row.status == views::ProfileRow::Status::Verified, row.message.c_str());
      QVERIFY(row.medianMs > 0);
      QCOMPARE(cw.measureTable()->item(side, 0)->text(), side == 0 ? QStringLiteral("A") : QStringLiteral("B"));
      QCOMPARE(cw.measureTable()->item(side, 2)->text(), QString::number(row.medianMs, 'g', 4));
      QCOMPARE(cw.measureTable()->item(side, 3)->text(), QString::number(row.gflops, 'f', 2));
      // 64^3 multiply-adds over the median, against the injected peak.
      QVERIFY(std::abs(row.gflops - 2.0 * 64 * 64 * 64 / (row.medianMs * 1e6)) < 1e-6 * row.gflops + 1e-9);
      QVERIFY(row.percentOfPeak.has_value());
      QCOMPARE(cw.measureTable()->item(side, 4)->text(), QString::number(*row.percentOfPeak, 'f', 1));
      QCOMPARE(cw.measureTable()->item(side, 5)->text(), QStringLiteral("verified"));
    }
    // The chart: one bar per side, the slower one the longer.
    const auto bars = cw.chart()->barRects();
    QCOMPARE(bars.size(), std::size_t(2));
    const bool aSlower = cw.measuredRows()[0].medianMs > cw.measuredRows()[1].medianMs;
    QCOMPARE(bars[0].width() > bars[1].width(), aSlower);
    QVERIFY(cw.findChild<QLabel*>(QStringLiteral("compareMeasureStatus"))
                ->text()
                .startsWith(QStringLiteral("B/A median time: ")));
    // Cancel right after Measure: side A's run stops with a cancelled row, B never starts.
    QVERIFY(cw.measure());
    auto* cancel = cw.findChild<QPushButton*>(QStringLiteral("compareCancelButton"));
    QVERIFY(cancel->isEnabled());
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(cw.waitIdle(120000));
    QCOMPARE(finished.count(), 2);
    QCOMPARE(cw.measuredRows().size(), std::size_t(1));
    QCOMPARE(cw.measuredRows()[0].status, views::ProfileRow::Status::Cancelled);
    QVERIFY2(cw.measuredRows()[0].message.starts_with("cancelled"), cw.measuredRows()[0].message.c_str());
    QCOMPARE(cw.measureTable()->item(1, 5)->text(), QStringLiteral("—"));
    QVERIFY(!cancel->isEnabled());
    QVERIFY(button->isEnabled());
  }

  void symbolicSizesAreBoundForMeasuring() {
    bool usable = false;
    for (const views::TargetEntry& t : gui::availableTargets())
      usable = usable || (t.enabled && t.name == QStringLiteral("cpu-c"));
    if (!usable) QSKIP("the cpu-c plugin is not usable in this build");
    gui::MainWindow& w = *m_window;
    QVERIFY(w.openPath(QStringLiteral(LS_SOURCE_DIR "/samples/dense_dynamic.te")));
    QVERIFY(settle(w));
    gui::CompareWindow& cw = *compareWindow();
    cw.setSpecs(gui::CompareSpec{gui::CompareSpec::Kind::Original, {}, 0},
                gui::CompareSpec{gui::CompareSpec::Kind::PolyAuto, {}, 0});
    QVERIFY(cw.compare());
    QVERIFY(cw.waitIdle(120000));
    QVERIFY(cw.result()->a.ok() && cw.result()->b.ok());
    auto* sizes = cw.findChild<QLineEdit*>(QStringLiteral("compareSizes"));
    // Without a value for n: each side's row says so, nothing is timed.
    sizes->clear();
    QVERIFY(cw.measure());
    QVERIFY(cw.waitIdle(120000));
    QCOMPARE(cw.measuredRows().size(), std::size_t(2));
    for (const views::ProfileRow& row : cw.measuredRows()) {
      QCOMPARE(row.status, views::ProfileRow::Status::Error);
      QCOMPARE(row.message, std::string("sizes: the symbolic size 'n' has no value; enter it in Sizes (e.g. n=64)"));
    }
    QCOMPARE(cw.measureTable()->item(0, 5)->text(),
             QStringLiteral("sizes: the symbolic size 'n' has no value; enter it in Sizes (e.g. n=64)"));
    QVERIFY(cw.chart()->barRects().empty());
    // n = 16: both verified and timed.
    sizes->setText(QStringLiteral("n=16"));
    QVERIFY(cw.measure());
    QVERIFY(cw.waitIdle(300000));
    QCOMPARE(cw.measuredRows().size(), std::size_t(2));
    for (const views::ProfileRow& row : cw.measuredRows())
      QVERIFY2(row.status == views::ProfileRow::Status::Verified, row.message.c_str());
    QCOMPARE(cw.chart()->barRects().size(), std::size_t(2));
  }

  void exportFromTheWindow() {
    gui::CompareWindow& cw = *compareWindow();
    cw.resize(1100, 700);
    QApplication::setActiveWindow(&cw);
    cw.programView(true)->setFocus();
    QApplication::processEvents();
    QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(cw.programView(true)));
    QCOMPARE(gui::focusedViewName(*m_window), QStringLiteral("compare"));
    const QString png = m_dir.filePath(QStringLiteral("window.png"));
    QString error;
    QVERIFY2(gui::exportView(*m_window, QStringLiteral("compare"), png, &error), qPrintable(error));
    QCOMPARE(cw.size(), QSize(1100, 700)); // a shown window keeps the size the user gave it
    QCOMPARE(QImage(png).size(), QSize(1100, 700) * cw.devicePixelRatioF());
    QVERIFY(cw.actions().contains(m_window->action(QStringLiteral("fileExportView"))));
    QVERIFY(cw.findChild<QToolButton*>(QStringLiteral("compareExportButton")));
  }

  void headlessScreenshotAndExport() {
    const QString shot = m_dir.filePath(QStringLiteral("compare.png"));
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(LS_GUI_PATH),
            {QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te"), QStringLiteral("--trace"), sampleTrace(),
             QStringLiteral("--compare-a"), QStringLiteral("current"), QStringLiteral("--compare-b"),
             QStringLiteral("poly_auto"), QStringLiteral("--compare-tab"), QStringLiteral("trees"),
             QStringLiteral("--size"), QStringLiteral("1280x800"), QStringLiteral("--screenshot"), shot});
    QVERIFY(p.waitForFinished(180000));
    const QString out = QString::fromUtf8(p.readAll());
    QCOMPARE(p.exitCode(), 0);
    QVERIFY2(out.contains(QStringLiteral("(1280x800, the Compare window)")), qPrintable(out));
    QCOMPARE(QImage(shot).size(), QSize(1280, 800));
    const QString svg = m_dir.filePath(QStringLiteral("compare.svg"));
    p.start(QStringLiteral(LS_GUI_PATH),
            {QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te"), QStringLiteral("--trace"), sampleTrace(),
             QStringLiteral("--export-view"), QStringLiteral("compare"), QStringLiteral("--out"), svg,
             QStringLiteral("--size"), QStringLiteral("1280x800")});
    QVERIFY(p.waitForFinished(180000));
    QCOMPARE(p.exitCode(), 0);
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("width=\"1280\""));
    QVERIFY(text.contains("poly_auto"));
    // A bad side is refused with the reason.
    p.start(QStringLiteral(LS_GUI_PATH),
            {QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te"), QStringLiteral("--compare-a"),
             QStringLiteral("step:x"), QStringLiteral("--screenshot"), shot});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY2(
        QString::fromUtf8(p.readAll())
            .contains(QStringLiteral("loopscape: --compare-a: 'step:x': step:N needs a step number of at least 1")),
        "");
  }
};

QTEST_MAIN(TestCompareWindow)
#include "tst_compare_window.moc"
