// The item models of the views under QAbstractItemModelTester (with real content and
// across resets), and the pure helpers behind the primitive panel's forms.
#include "gui_helpers.h"

#include "core/schedule/schedule.h"
#include "views/diagnostics_model.h"
#include "views/primitive_request.h"
#include "views/program_snapshot.h"
#include "views/samples_gallery.h"
#include "views/samples_model.h"
#include "app/gui/main_window.h"
#include "views/schedule_tree_model.h"
#include "views/trace_model.h"

#include <QAbstractItemModelTester>
#include <QListView>
#include <QTest>

using namespace loopscape;
using namespace loopscape::testing;

class TestModels : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void traceModel() {
    views::TraceModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    schedule::Schedule sch(parseSample(QStringLiteral("matmul.te")));
    model.setSnapshot(views::makeTraceSnapshot(sch.trace()));
    QCOMPARE(model.rowCount(), 0);
    auto b = sch.apply("get_block", {}, {"C", "main"});
    auto loops = sch.apply("get_loops", {(*b)[0]});
    QVERIFY(sch.apply("split", {(*loops)[0], schedule::TraceList{nullptr, 32}}).has_value());
    QVERIFY(sch.apply("parallel", {(*loops)[1]}).has_value());
    auto snap = views::makeTraceSnapshot(sch.trace());
    QCOMPARE(snap->stepCount, 2);
    model.setSnapshot(snap);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), 2);
    QCOMPARE(model.index(3, 1).data().toString(), QStringLiteral("sch.parallel(loop=l2)"));
    QCOMPARE(model.index(3, 0).data().toInt(), 2);
    QCOMPARE(model.index(3, 0).data(Qt::UserRole).toInt(), 2);
    model.setPreviewRow(2);
    QVERIFY(model.index(2, 1).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(!model.index(1, 1).data(Qt::FontRole).value<QFont>().bold());
    QCOMPARE(views::stepEnds(sch.trace()), (std::vector<int>{3, 4}));
  }

  void stepEndsCountTrailingLookups() {
    schedule::Schedule sch(parseSample(QStringLiteral("matmul.te")));
    auto b = sch.apply("get_block", {}, {"C", "main"});
    auto loops = sch.apply("get_loops", {(*b)[0]});
    QVERIFY(sch.apply("vectorize", {(*loops)[1]}).has_value());
    QVERIFY(sch.apply("get_loops", {(*b)[0]}).has_value());
    QCOMPARE(views::stepEnds(sch.trace()), (std::vector<int>{3, 4}));
  }

  void diagnosticsModel() {
    views::DiagnosticsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    views::DiagnosticItem parse;
    parse.code = "te.unknown-name";
    parse.message = "unknown name 'Q'";
    parse.file = "matmul.te";
    parse.line = 11;
    parse.column = 60;
    views::DiagnosticItem sched;
    sched.origin = views::DiagnosticItem::Origin::Schedule;
    sched.code = "schedule.split.factor-product";
    sched.message = "product too small";
    sched.detail = "report";
    model.setItems({parse, sched});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, 1).data().toString(), QStringLiteral("matmul.te:11:60"));
    QCOMPARE(model.index(1, 1).data().toString(), QString());
    QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("schedule.split.factor-product"));
    QCOMPARE(model.index(1, 2).data(Qt::ToolTipRole).toString(), QStringLiteral("report"));
    model.setItems({});
    QCOMPARE(model.rowCount(), 0);
  }

  void samplesModel() {
    views::SamplesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSamples(views::scanSamples(QStringLiteral(LS_SOURCE_DIR "/samples")));
    QVERIFY(model.rowCount() >= 8);
    int matmul = -1;
    for (int r = 0; r < model.rowCount(); ++r)
      if (model.index(r).data(views::SamplesModel::PathRole).toString().endsWith(QStringLiteral("/matmul.te"))) matmul = r;
    QVERIFY(matmul >= 0);
    QCOMPARE(model.index(matmul).data(views::SamplesModel::SummaryRole).toString(),
             QStringLiteral("Matrix multiplication C = A @ B, 1024 x 1024 x 1024, float32 (as te.create_prim_func"));
    QVERIFY(model.index(matmul).data(views::SamplesModel::DescriptionRole).toString().contains(QStringLiteral("try: split i and j by 32")));
  }

  void scheduleTreeModel() {
    views::ScheduleTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    schedule::Schedule sch(parseSample(QStringLiteral("softmax.te")));
    auto snap = views::analysedSnapshot(sch.state());
    QVERIFY2(snap->tree, snap->treeError.c_str());
    model.setSnapshot(snap);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("domain"));
    // Every loop of the program has its band member.
    int loops = 0;
    for (const views::NodeInfo& n : snap->nodes) loops += n.kind == views::NodeInfo::Kind::Loop;
    for (int l = 0; l < loops; ++l) {
      const QModelIndex m = model.indexForLoop(l);
      QVERIFY(m.isValid());
      QVERIFY(m.data().toString().startsWith(QStringLiteral("member ") +
                                             QString::fromStdString(snap->nodes[snap->loopByOrdinal(l)].name)));
    }
    QVERIFY(!model.indexForLoop(loops).isValid());
    model.setSnapshot(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void samplesGallery() {
    QCOMPARE(gui::MainWindow::samplesDir(), QStringLiteral(LS_SOURCE_DIR "/samples"));
    views::SamplesGallery gallery(gui::MainWindow::samplesDir());
    QAbstractItemModelTester tester(gallery.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(gallery.selectedPath(), QStringLiteral(LS_SOURCE_DIR "/samples/batch_matmul.te")); // first by name
    const auto& samples = gallery.model()->samples();
    for (std::size_t i = 0; i < samples.size(); ++i)
      if (samples[i].name == QStringLiteral("matmul")) gallery.list()->setCurrentIndex(gallery.model()->index(int(i)));
    QCOMPARE(gallery.selectedPath(), QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te"));
  }

  void snapshotNodes() {
    schedule::Schedule sch(parseSample(QStringLiteral("matmul.te")));
    auto snap = views::analysedSnapshot(sch.state());
    QCOMPARE(snap->nodes.size(), std::size_t(5)); // root, i, j, k, C
    const int c = snap->find(views::NodeInfo::Kind::Block, "C");
    const int i = snap->find(views::NodeInfo::Kind::Loop, "i");
    QVERIFY(c >= 0 && i >= 0);
    QVERIFY(snap->nodes[c].isReduction);
    QCOMPARE(snap->nodes[c].reads, (std::vector<std::string>{"A", "B"}));
    QCOMPARE(snap->nodes[c].loopsAbove.size(), std::size_t(3));
    QCOMPARE(snap->nodes[i].extent, std::string("1024"));
    QCOMPARE(snap->loopChain(i).size(), std::size_t(3));
    QCOMPARE(snap->loopsOfBlockBelow(i), snap->nodes[c].loopsAbove);
    const views::NodeInfo& n = snap->nodes[i];
    QCOMPARE(snap->nodeAt(n.line, n.column), i);
  }

  void parseFactorList_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("result");
    QTest::newRow("none first") << "None, 32" << "[None, 32]";
    QTest::newRow("brackets") << "[8, None, 4]" << "[8, None, 4]";
    QTest::newRow("tuple") << "(4, 256)" << "[4, 256]";
    QTest::newRow("one") << "32" << "error: give at least two factors, e.g. None, 32";
    QTest::newRow("word") << "None, x" << "error: 'x' is neither an integer nor None";
    QTest::newRow("empty") << "None,,4" << "error: empty factor";
    QTest::newRow("unbalanced") << "[None, 4" << "error: unbalanced brackets";
  }
  void parseFactorList() {
    QFETCH(QString, text);
    QFETCH(QString, result);
    auto parsed = views::parseFactorList(text.toStdString());
    QString got;
    if (const auto* err = std::get_if<std::string>(&parsed)) {
      got = QStringLiteral("error: ") + QString::fromStdString(*err);
    } else {
      QStringList items;
      for (const schedule::TraceValue& v : std::get<schedule::TraceList>(parsed))
        items << (v.isNone() ? QStringLiteral("None") : QString::number(*v.get<std::int64_t>()));
      got = u'[' + items.join(QStringLiteral(", ")) + u']';
    }
    QCOMPARE(got, result);
  }

  void describeSplit_data() {
    QTest::addColumn<qlonglong>("extent"); // -1: symbolic
    QTest::addColumn<QString>("factors");
    QTest::addColumn<QString>("description");
    QTest::newRow("exact") << 1024LL << "None, 32" << "[32, 32]";
    QTest::newRow("tail") << 1000LL << "None, 16" << "[63, 16] (extent 1000; the tail is guarded by a predicate)";
    QTest::newRow("short") << 1024LL << "16, 16" << "[16, 16]: product 256 < extent 1024";
    QTest::newRow("two nones") << 64LL << "None, None" << "at most one factor may be None";
    QTest::newRow("zero") << 64LL << "0, None" << "factors must be positive";
    QTest::newRow("symbolic") << -1LL << "None, 8" << "the None factor is inferred from the symbolic extent";
  }
  void describeSplit() {
    QFETCH(qlonglong, extent);
    QFETCH(QString, factors);
    QFETCH(QString, description);
    auto parsed = views::parseFactorList(factors.toStdString());
    QVERIFY(std::holds_alternative<schedule::TraceList>(parsed));
    std::optional<std::int64_t> e;
    if (extent >= 0) e = extent;
    QCOMPARE(QString::fromStdString(views::describeSplit(e, std::get<schedule::TraceList>(parsed))), description);
  }

  void parseLiteral() {
    QVERIFY(views::parseLiteral("None").isNone());
    QVERIFY(views::parseLiteral("").isNone());
    QCOMPARE(*views::parseLiteral("True").get<bool>(), true);
    QCOMPARE(*views::parseLiteral("16").get<std::int64_t>(), std::int64_t(16));
    QCOMPARE(*views::parseLiteral("2.5").get<double>(), 2.5);
    QCOMPARE(*views::parseLiteral("\"pragma\"").get<std::string>(), std::string("pragma"));
    QCOMPARE(*views::parseLiteral("bare").get<std::string>(), std::string("bare"));
  }
};

QTEST_MAIN(TestModels)
#include "tst_models.moc"
