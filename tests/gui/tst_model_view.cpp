// A Relay model in the workbench (offscreen): opening samples/relay/mnist.relay shows the
// Model dock (the graph laid out by Graphviz, one cluster per fused group; the groups
// table), clicking a group opens its PrimFunc with its own trace and undo history, a split
// applied to one group is kept while another group is open, the session file and the
// model schedule file keep every group's trace, and Run → Profile model compiles and runs
// the whole model and fills the per-group times.
#include "gui_helpers.h"

#include "core/graph/model_schedule.h"
#include "core/schedule/trace_json.h"
#include "views/model_dot.h"
#include "views/model_view.h"
#include "views/primitive_panel.h"
#include "views/program_editor.h"
#include "views/tensorir_view.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QCheckBox>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

const QString kMnist = QStringLiteral(LS_SOURCE_DIR "/samples/relay/mnist.relay");

QString viewText(gui::MainWindow& w) { return w.tensorIrView()->toPlainText(); }

/// The name of the first loop of the program shown.
std::string firstLoop(gui::MainWindow& w) {
  const auto& snap = w.tensorIrView()->snapshot();
  if (!snap) return {};
  for (const views::NodeInfo& n : snap->nodes)
    if (n.kind == views::NodeInfo::Kind::Loop) return n.name;
  return {};
}

void clickGroupInTable(gui::MainWindow& w, int row) {
  QTableView* table = w.modelView()->table();
  const QModelIndex index = table->model()->index(row, 0);
  table->scrollTo(index);
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
}

const std::string& groupName(gui::MainWindow& w, int index) {
  return w.session()->model()->groups[std::size_t(index)].name;
}

/// Opens mnist, clicks group 1 in the picture and splits its first loop by 4.
void openAndSplitGroup1(gui::MainWindow& w, QString* afterSplit) {
  QVERIFY(w.openPath(kMnist));
  QVERIFY(settle(w));
  QVERIFY(w.session()->model());
  views::ModelPicture* picture = w.modelView()->picture();
  QVERIFY(picture->waitRendered());
  const QPoint at = picture->viewportPoint(QStringLiteral("group1"));
  QVERIFY(at.x() >= 0);
  QTest::mouseClick(picture->viewport(), Qt::LeftButton, {}, at);
  QVERIFY(settle(w));
  QCOMPARE(w.session()->currentGroup(), 1);
  const std::string loop = firstLoop(w);
  QVERIFY(!loop.empty());
  splitFromPanel(w, loop, QStringLiteral("None, 4"));
  QCOMPARE(w.session()->undoStack()->count(), 1);
  *afterSplit = viewText(w);
}

} // namespace

class TestModelView : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() {
    // Compiled groups go to a cache of the test's own.
    QVERIFY(m_cache.isValid());
    qputenv("LOOPSCAPE_CACHE_DIR", m_cache.path().toUtf8());
  }

  void opensModelAndShowsItsGraph() {
    auto w = makeWindow();
    QVERIFY(w->openPath(kMnist));
    QVERIFY(settle(*w));
    const auto& model = w->session()->model();
    QVERIFY(model);
    QCOMPARE(model->groups.size(), std::size_t(8));
    auto* dock = w->findChild<QDockWidget*>(QStringLiteral("modelDock"));
    QVERIFY(dock && dock->isVisible());
    QAbstractItemModelTester tester(w->modelView()->groups(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(w->modelView()->groups()->rowCount(), 8);
    QVERIFY(w->modelView()
                ->groups()
                ->index(1, views::ModelGroupsModel::NameColumn)
                .data()
                .toString()
                .contains(QStringLiteral("conv2d")));
    QCOMPARE(w->modelView()->groups()->index(1, views::ModelGroupsModel::SourceColumn).data().toString(),
             QStringLiteral("default"));
    // The picture: one cluster per group, labelled with its pattern; no constant drawn.
    views::ModelPicture* picture = w->modelView()->picture();
    QVERIFY(picture->waitRendered());
    QVERIFY2(picture->error().isEmpty(), qPrintable(picture->error()));
    const QString svg = QString::fromUtf8(picture->svg()).replace(QStringLiteral("&#45;"), QStringLiteral("-"));
    for (const graph::ModelGroup& g : model->groups) {
      QVERIFY(!picture->elementRect(QString::fromStdString(views::groupElementId(g.index))).isNull());
      QVERIFY(svg.contains(QStringLiteral("(%1)").arg(QString::fromStdString(g.pattern).replace(u'_', u'-'))));
    }
    QVERIFY(svg.contains(QStringLiteral("nn.conv2d")));
    QVERIFY(svg.contains(QStringLiteral("1×8×28×28"))); // the first conv's output, on its node and edge
    QVERIFY(!svg.contains(QStringLiteral("meta")));
    QVERIFY(!svg.contains(QStringLiteral("const")));
    // The first group is open, read-only, as its te program.
    QCOMPARE(w->session()->currentGroup(), 0);
    QVERIFY(w->editor()->isReadOnly());
    QVERIFY(w->editor()->toPlainText().contains(QStringLiteral("group 0 of mnist.relay")));
    QVERIFY(w->session()->state());
    QCOMPARE(w->session()->state()->schedule.func().name, groupName(*w, 0));
    QVERIFY(w->windowTitle().contains(QStringLiteral("mnist.relay")));

    // Opening a program afterwards leaves the model.
    QVERIFY(w->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te")));
    QVERIFY(settle(*w));
    QVERIFY(!w->session()->isModel());
    QVERIFY(!w->editor()->isReadOnly());
    QCOMPARE(w->modelView()->groups()->rowCount(), 0);
    QVERIFY(!w->action(QStringLiteral("runProfileModel"))->isEnabled());
  }

  void aModelThatDoesNotLoadSaysWhy() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("broken.relay"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 4), float32]) {\n  nn.relu(%x\n}\n");
    f.close();
    auto w = makeWindow();
    QVERIFY(w->openPath(path));
    QVERIFY(settle(*w));
    QVERIFY(w->session()->isModel());
    QVERIFY(!w->session()->model());
    QVERIFY(!w->session()->state());
    QVERIFY(!w->session()->diagnostics().empty());
    QVERIFY2(w->session()->diagnostics().front().code.starts_with("relay."),
             w->session()->diagnostics().front().code.c_str());
    QCOMPARE(w->session()->diagnostics().front().line, 4); // the "}" where ")" was due
    QVERIFY(w->modelView()->picture()->waitRendered());
    QVERIFY(w->modelView()->picture()->svg().isEmpty());
    QVERIFY(w->modelView()->picture()->error().contains(QStringLiteral("could not be loaded")));
    QVERIFY(!w->action(QStringLiteral("runProfileModel"))->isEnabled());
    QVERIFY(!w->profileModel());
  }

  void eachGroupKeepsItsTraceAndUndo() {
    auto w = makeWindow();
    QString afterSplit;
    openAndSplitGroup1(*w, &afterSplit);
    if (QTest::currentTestFailed()) return;
    const std::string group1 = groupName(*w, 1);
    QCOMPARE(w->session()->state()->schedule.func().name, group1);
    QVERIFY(w->isWindowModified());
    QCOMPARE(w->modelView()->groups()->index(1, views::ModelGroupsModel::SourceColumn).data().toString(),
             QStringLiteral("trace (inline)"));

    // Group 2 (from the table): its own program, no steps, nothing to undo.
    clickGroupInTable(*w, 2);
    QVERIFY(settle(*w));
    QCOMPARE(w->session()->currentGroup(), 2);
    QCOMPARE(w->modelView()->picture()->selectedId(), QStringLiteral("group2"));
    QCOMPARE(w->session()->state()->schedule.func().name, groupName(*w, 2));
    QCOMPARE(w->session()->undoStack()->count(), 0);
    QVERIFY(w->session()->trace().instructions.empty());
    QCOMPARE(w->session()->groupTrace(1).instructions.size(), std::size_t(3)); // get_block, get_loops, split

    // Back to group 1: the split is there, and still undoable and redoable.
    clickGroupInTable(*w, 1);
    QVERIFY(settle(*w));
    QCOMPARE(w->session()->currentGroup(), 1);
    QCOMPARE(viewText(*w), afterSplit);
    QCOMPARE(w->session()->undoStack()->count(), 1);
    QVERIFY(w->session()->undoStack()->undoText().startsWith(QStringLiteral("split")));
    w->session()->undoStack()->undo();
    QVERIFY(viewText(*w) != afterSplit);
    QVERIFY(w->session()->trace().instructions.empty());
    w->session()->undoStack()->redo();
    QCOMPARE(viewText(*w), afterSplit);

    // The model schedule: group 1's trace inline, the others default.
    const graph::ModelSchedule schedule = w->session()->modelSchedule();
    QCOMPARE(schedule.groups.size(), std::size_t(1));
    const graph::GroupChoice& choice = schedule.choiceFor(group1);
    QCOMPARE(choice.source, graph::ScheduleSource::Trace);
    QCOMPARE(choice.traceJson, schedule::traceToJson(w->session()->trace()));

    // Every group with poly_auto, then the defaults; a new step makes the hand trace count.
    w->action(QStringLiteral("modelPolyAll"))->trigger();
    for (const graph::ModelGroup& g : w->session()->model()->groups)
      QCOMPARE(w->session()->modelSchedule().choiceFor(g.name).source, graph::ScheduleSource::Poly);
    QCOMPARE(w->modelView()->groups()->index(3, views::ModelGroupsModel::SourceColumn).data().toString(),
             QStringLiteral("poly(fusion=smart)"));
    w->action(QStringLiteral("modelDefaultAll"))->trigger();
    QVERIFY(w->session()->modelSchedule().groups.empty());
    w->session()->undoStack()->undo();
    w->session()->undoStack()->redo();
    QCOMPARE(w->session()->modelSchedule().choiceFor(group1).source, graph::ScheduleSource::Trace);
  }

  void sessionAndModelScheduleFilesKeepTheTraces() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString project = dir.filePath(QStringLiteral("mnist.lsproj"));
    const QString scheduleFile = dir.filePath(QStringLiteral("mnist_schedule.json"));
    std::string traceJson;
    {
      auto w = makeWindow();
      QString afterSplit;
      openAndSplitGroup1(*w, &afterSplit);
      if (QTest::currentTestFailed()) return;
      traceJson = schedule::traceToJson(w->session()->trace());
      clickGroupInTable(*w, 3); // the saved session is on group 3; group 1's trace is put aside
      QVERIFY(settle(*w));
      QVERIFY(w->saveSessionTo(project));
      QVERIFY(!w->isWindowModified());
      QVERIFY(w->saveModelScheduleTo(scheduleFile));
    }
    auto read = graph::readModelSchedule(scheduleFile.toStdString());
    QVERIFY(read);
    QCOMPARE(read->groups.size(), std::size_t(1));

    auto w = makeWindow();
    QVERIFY(w->openPath(project));
    QVERIFY(settle(*w));
    QVERIFY(w->session()->model());
    QCOMPARE(w->session()->currentGroup(), 3);
    QCOMPARE(schedule::traceToJson(w->session()->groupTrace(1)), traceJson);
    clickGroupInTable(*w, 1);
    QVERIFY(settle(*w));
    QCOMPARE(schedule::traceToJson(w->session()->trace()), traceJson);
    QCOMPARE(w->session()->undoStack()->count(), 1); // the reloaded step is undoable

    // Defaults for all, then the schedule file brings group 1's trace back.
    w->action(QStringLiteral("modelDefaultAll"))->trigger();
    QVERIFY(w->session()->modelSchedule().groups.empty());
    QVERIFY(w->openModelScheduleFrom(scheduleFile));
    QVERIFY(settle(*w));
    QCOMPARE(w->session()->modelSchedule().choiceFor(groupName(*w, 1)).source, graph::ScheduleSource::Trace);
    QCOMPARE(schedule::traceToJson(w->session()->groupTrace(1)), traceJson);
  }

  void layoutActionLoadsTheBlockedGroups() {
    // Run → NCHW[x]c layout: the model is loaded again with AlterOpLayout; the choice is
    // part of the model schedule (and so of sessions), and turns off again.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString project = dir.filePath(QStringLiteral("blocked.lsproj"));
    {
      auto w = makeWindow();
      QVERIFY(w->openPath(kMnist));
      QVERIFY(settle(*w));
      QAction* layout = w->action(QStringLiteral("modelAlterLayout"));
      QVERIFY(layout->isEnabled() && layout->isCheckable() && !layout->isChecked());
      layout->trigger();
      QVERIFY(settle(*w));
      QVERIFY(w->session()->model());
      QVERIFY(layout->isChecked());
      QCOMPARE(groupName(*w, 1), std::string("tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu"));
      QCOMPARE(groupName(*w, 7), std::string("tvmgen_default_fused_nn_contrib_dense_pack_add"));
      QVERIFY(w->session()->modelSchedule().alterLayout);
      QVERIFY(w->isWindowModified());
      QVERIFY(w->saveSessionTo(project));
    }
    auto w = makeWindow();
    QVERIFY(w->openPath(project));
    QVERIFY(settle(*w));
    QVERIFY(w->session()->modelAlterLayout());
    QVERIFY(w->action(QStringLiteral("modelAlterLayout"))->isChecked());
    QCOMPARE(groupName(*w, 1), std::string("tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu"));
    w->action(QStringLiteral("modelAlterLayout"))->trigger();
    QVERIFY(settle(*w));
    QVERIFY(!w->session()->modelAlterLayout());
    QCOMPARE(groupName(*w, 1), std::string("tvmgen_default_fused_nn_conv2d_nn_bias_add_nn_relu"));
  }

  void profileModelFillsTheGroupTimes() {
    auto w = makeWindow();
    QString afterSplit;
    openAndSplitGroup1(*w, &afterSplit); // group 1 runs with its hand trace
    if (QTest::currentTestFailed()) return;
    QVERIFY(w->action(QStringLiteral("runProfileModel"))->isEnabled());
    // Verified (the default) on one thread, as `relay run --verify --threads 1`.
    QVERIFY(w->modelView()->verifyBox()->isChecked());
    w->modelView()->threadsBox()->setValue(1);
    QVERIFY(w->profileModel());
    QVERIFY(w->isProfilingModel());
    QVERIFY(!w->profileModel()); // one run at a time
    QTRY_VERIFY2_WITH_TIMEOUT(!w->isProfilingModel(), qPrintable(w->modelView()->status()), 300000);
    QVERIFY(settle(*w));
    const QString status = w->modelView()->status();
    QVERIFY2(status.contains(QStringLiteral("ms end to end")), qPrintable(status));
    QVERIFY2(status.contains(QStringLiteral(", 1 thread: ")), qPrintable(status));
    QVERIFY2(status.contains(QStringLiteral("Verified group by group")), qPrintable(status));
    const auto& rows = w->modelView()->groups()->rows();
    QCOMPARE(rows.size(), std::size_t(8));
    double shares = 0;
    for (const views::ModelGroupRow& r : rows) {
      QVERIFY(r.ms.has_value());
      QVERIFY2(*r.ms > 0, r.name.c_str());
      QVERIFY2(r.verified.starts_with("ok"), (r.name + ": " + r.verified).c_str());
      shares += r.share;
    }
    QCOMPARE(w->modelView()->groups()->index(1, views::ModelGroupsModel::VerifiedColumn).data().toString(),
             QString::fromStdString(rows[1].verified));
    QVERIFY(std::abs(shares - 1.0) < 1e-9);
    QCOMPARE(rows[1].source, std::string("trace (inline)"));
    QVERIFY(!w->modelView()->groups()->index(1, views::ModelGroupsModel::GflopsColumn).data().toString().isEmpty());
    // The chart has one bar per group; the picture is coloured by share and says it.
    const auto series = w->modelView()->chart()->series();
    QCOMPARE(series.size(), 1);
    auto* bars = qobject_cast<QBarSeries*>(series.front());
    QVERIFY(bars && bars->count() == 1);
    QCOMPARE(bars->barSets().front()->count(), 8);
    QVERIFY(w->modelView()->picture()->waitRendered());
    QVERIFY(QString::fromUtf8(w->modelView()->picture()->svg()).contains(u'%'));
  }

private:
  QTemporaryDir m_cache;
};

QTEST_MAIN(TestModelView)
#include "tst_model_view.moc"
