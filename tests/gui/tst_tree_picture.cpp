// The schedule-tree picture: the DOT text of matmul's trees (golden files
// tests/gui/golden/<name>.dot; regenerate with LS_UPDATE_GOLDEN=1 and review the diff),
// the SVG Graphviz lays out from it (one element per tree node, found by stable id), a
// click in the picture selecting the tree row and the TensorIR loop, a TensorIR selection
// outlining its band member, Graphviz running on its own thread only, stale pictures
// dropped, Graphviz errors reported, and the dark theme's colours.
#include "gui_helpers.h"

#include "core/poly/tree_description.h"
#include "core/schedule/trace_script.h"
#include "views/graphviz_renderer.h"
#include "views/program_snapshot.h"
#include "views/schedule_tree_view.h"
#include "views/tensorir_view.h"
#include "views/tree_dot.h"
#include "views/tree_picture.h"

#include <QFile>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QTreeView>
#include <QXmlStreamReader>

#include <functional>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

/// The snapshot of matmul, with samples/traces/<trace> applied when given.
std::shared_ptr<const views::ProgramSnapshot> matmulSnapshot(const QString& trace = {}) {
  schedule::Schedule sch(parseSample(QStringLiteral("matmul.te")));
  if (!trace.isEmpty()) {
    QFile f(QStringLiteral(LS_SOURCE_DIR "/samples/traces/") + trace);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read trace %s", qPrintable(trace));
    auto applied = schedule::applyScript(sch, f.readAll().toStdString(), trace.toStdString());
    if (!applied) qFatal("trace %s: %s", qPrintable(trace), applied.error().message.c_str());
  }
  auto snap = views::analysedSnapshot(sch.state());
  if (!snap->tree) qFatal("no schedule tree: %s", snap->treeError.c_str());
  return snap;
}

/// Node ids (and band member ids) of a description, in pre-order.
QStringList treeIds(const poly::TreeNodeView& root, bool members) {
  QStringList ids;
  std::function<void(const poly::TreeNodeView&)> walk = [&](const poly::TreeNodeView& n) {
    ids << QString::fromStdString(n.id);
    if (members)
      for (int i = 0; i < int(n.members.size()); ++i)
        ids << QString::fromStdString(views::bandMemberId(n.id, i));
    for (const auto& c : n.children)
      walk(c);
  };
  walk(root);
  return ids;
}

/// The ids of the SVG's `<g class="node">` groups, and of its member anchors (without "a_").
std::pair<QStringList, QStringList> svgIds(const QByteArray& svg) {
  QStringList nodes, members;
  QXmlStreamReader xml(svg);
  while (!xml.atEnd()) {
    if (xml.readNext() != QXmlStreamReader::StartElement || xml.name() != QStringLiteral("g")) continue;
    const QString id = xml.attributes().value(QStringLiteral("id")).toString();
    if (xml.attributes().value(QStringLiteral("class")) == QStringLiteral("node")) nodes << id;
    if (id.startsWith(QStringLiteral("a_")) && id.contains(QLatin1Char('/'))) members << id.mid(2);
  }
  if (xml.hasError()) qWarning("SVG: %s", qPrintable(xml.errorString()));
  return {nodes, members};
}

QString currentId(views::ScheduleTreeView& view) {
  return view.tree()->currentIndex().data(views::ScheduleTreeModel::NodeIdRole).toString();
}

/// A schedule-tree view showing matmul's picture.
std::unique_ptr<views::ScheduleTreeView> pictureView(std::shared_ptr<const views::ProgramSnapshot> snap) {
  auto view = std::make_unique<views::ScheduleTreeView>();
  view->resize(520, 760);
  view->showTab(views::ScheduleTreeView::PictureTab);
  view->show();
  view->setSnapshot(std::move(snap));
  return view;
}

} // namespace

class TestTreePicture : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void dotIsExact_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("golden");
    QTest::newRow("matmul") << QString() << QStringLiteral("matmul_tree.dot");
    QTest::newRow("matmul_tile") << QStringLiteral("matmul_tile.py") << QStringLiteral("matmul_tile_tree.dot");
  }

  void dotIsExact() {
    QFETCH(QString, trace);
    QFETCH(QString, golden);
    const auto snap = matmulSnapshot(trace);
    const QString dot = QString::fromStdString(views::scheduleTreeDot(snap->tree->root, views::lightDotPalette()));
    const QString path = QStringLiteral(LS_SOURCE_DIR "/tests/gui/golden/") + golden;
    if (qEnvironmentVariableIsSet("LS_UPDATE_GOLDEN")) {
      QFile out(path);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(dot.toUtf8());
      return;
    }
    QFile f(path);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable("missing " + path));
    QCOMPARE(dot, QString::fromUtf8(f.readAll()));
  }

  void memberFlagsOnlyWithDependences() {
    // Before the dependence facts arrive the picture shows no member flags; otherwise it is
    // the same picture (the golden with the flags removed).
    const auto snap = matmulSnapshot(QString());
    const std::string with = views::scheduleTreeDot(snap->tree->root, views::lightDotPalette(), true);
    const std::string without = views::scheduleTreeDot(snap->tree->root, views::lightDotPalette(), false);
    QVERIFY(with.find("carries deps") != std::string::npos);
    QVERIFY(without.find("carries deps") == std::string::npos && without.find(">parallel<") == std::string::npos);
    std::string stripped = with;
    const auto p = views::lightDotPalette();
    for (const std::string& flag : {"&#160;&#160;<FONT COLOR=\"" + p.parallel + "\">parallel</FONT>",
                                    "&#160;&#160;<FONT COLOR=\"" + p.carried + "\">carries deps</FONT>"})
      for (std::size_t at; (at = stripped.find(flag)) != std::string::npos;) stripped.erase(at, flag.size());
    QCOMPARE(QString::fromStdString(without), QString::fromStdString(stripped));
  }

  void labelsOfIslText_data() {
    QTest::addColumn<QString>("schedule");
    QTest::addColumn<QString>("expression");
    QTest::newRow("same for all statements") << "{ C_init[i, j, k] -> [(i)]; C[i, j, k] -> [(i)] }"
                                             << "i";
    QTest::newRow("parameters and a tile") << "[n] -> { S[i, j] -> [(floor((i)/32))] }"
                                           << "floor((i)/32)";
    QTest::newRow("different per statement") << "{ A[i] -> [(i)]; B[i, j] -> [(i + j)] : j >= 0 }"
                                             << "A: i; B: i + j";
    QTest::newRow("not a function") << "{ A[i] }"
                                    << "{ A[i] }";
  }

  void labelsOfIslText() {
    QFETCH(QString, schedule);
    QFETCH(QString, expression);
    QCOMPARE(QString::fromStdString(views::detail::scheduleExpression(schedule.toStdString())), expression);
    const std::vector<std::string> pieces =
        views::detail::islPieces("[n] -> { C[i] : 0 <= i < n; D[i, j] : (i) mod 2 = 0 }");
    QCOMPARE(pieces, (std::vector<std::string>{"C[i] : 0 <= i < n", "D[i, j] : (i) mod 2 = 0"}));
  }

  void svgHasOneElementPerNode() {
    const auto snap = matmulSnapshot(QStringLiteral("matmul_tile.py"));
    auto view = pictureView(snap);
    views::TreePicture* picture = view->picture();
    QVERIFY(picture->waitRendered());
    QVERIFY2(picture->error().isEmpty(), qPrintable(picture->error()));
    const auto [nodes, members] = svgIds(picture->svg());
    const QStringList expectedNodes = treeIds(snap->tree->root, false);
    QStringList expectedMembers = treeIds(snap->tree->root, true);
    for (const QString& id : expectedNodes)
      expectedMembers.removeOne(id);
    // domain, mark, band [i_0, j_0, k, i_1], mark, band [j_1], sequence, 2 filters, 2 leaves
    QCOMPARE(expectedNodes.size(), 10);
    // Graphviz writes the nodes in its own order: compare as sets, and count duplicates.
    QCOMPARE(QSet<QString>(nodes.begin(), nodes.end()), QSet<QString>(expectedNodes.begin(), expectedNodes.end()));
    QCOMPARE(nodes.size(), expectedNodes.size());
    QCOMPARE(QSet<QString>(members.begin(), members.end()),
             QSet<QString>(expectedMembers.begin(), expectedMembers.end()));
    QCOMPARE(members.size(), 5); // i_0, j_0, k, i_1, j_1
    // Every node and member has a place in the picture, inside the scene.
    for (const QString& id : treeIds(snap->tree->root, true)) {
      const QRectF r = picture->elementRect(id);
      QVERIFY2(!r.isNull() && picture->sceneRect().contains(r), qPrintable(id));
    }
  }

  void clickSelectsTreeRowAndLoop() {
    auto view = pictureView(matmulSnapshot());
    views::TreePicture* picture = view->picture();
    QVERIFY(picture->waitRendered());
    QSignalSpy loops(view.get(), &views::ScheduleTreeView::loopSelected);
    // Band member j (band "0.0" [i, j, k], member 1): the tree row and loop 1 follow.
    const QPoint member = picture->viewportPoint(QStringLiteral("0.0/m1"));
    QCOMPARE(picture->idAt(member), QStringLiteral("0.0/m1"));
    QTest::mouseClick(picture->viewport(), Qt::LeftButton, {}, member);
    QCOMPARE(currentId(*view), QStringLiteral("0.0/m1"));
    QCOMPARE(view->selectedLoop(), 1);
    QCOMPARE(loops.count(), 1);
    QCOMPARE(loops.takeFirst().at(0).toInt(), 1);
    QCOMPARE(picture->selectedId(), QStringLiteral("0.0/m1"));
    QVERIFY(view->detailText().contains(QStringLiteral("C[i, j, k] -> [(j)]")));
    // The band's kind, left of its member, selects the band node itself, which is no loop.
    const QRectF band = picture->elementRect(QStringLiteral("0.0"));
    const QPoint title = picture->mapFromScene(QPointF(band.left() + 6, band.top() + 6));
    QCOMPARE(picture->idAt(title), QStringLiteral("0.0"));
    QTest::mouseClick(picture->viewport(), Qt::LeftButton, {}, title);
    QCOMPARE(currentId(*view), QStringLiteral("0.0"));
    QCOMPARE(view->selectedLoop(), -1);
    QCOMPARE(loops.count(), 0);
    // The domain node (the root).
    QTest::mouseClick(picture->viewport(), Qt::LeftButton, {}, picture->viewportPoint(QStringLiteral("0")));
    QCOMPARE(currentId(*view), QStringLiteral("0"));
    QVERIFY(view->detailText().startsWith(QStringLiteral("{ C_init[i, j, k = 0]")));
  }

  void loopSelectionIsOutlined() {
    auto view = pictureView(matmulSnapshot());
    views::TreePicture* picture = view->picture();
    QVERIFY(picture->waitRendered());
    QVERIFY(picture->highlightRect().isNull());
    view->selectLoop(2); // loop k: band "0.0", member 2
    QCOMPARE(picture->selectedId(), QStringLiteral("0.0/m2"));
    const QRectF member = picture->elementRect(QStringLiteral("0.0/m2"));
    QVERIFY(!member.isNull());
    QCOMPARE(picture->highlightRect(), member.adjusted(-2, -2, 2, 2));
    view->selectLoop(-1);
    QVERIFY(picture->selectedId().isEmpty());
    QVERIFY(picture->highlightRect().isNull());
    // A selection made before the picture arrives is outlined once it does.
    view->setSnapshot(matmulSnapshot(QStringLiteral("matmul_tile.py")));
    view->selectLoop(3); // i_1: band "0.0.0" [i_0, j_0, k, i_1] under the parallel mark, member 3
    QVERIFY(picture->waitRendered());
    QCOMPARE(picture->highlightRect(), picture->elementRect(QStringLiteral("0.0.0/m3")).adjusted(-2, -2, 2, 2));
  }

  void zoomAndFit() {
    auto view = pictureView(matmulSnapshot(QStringLiteral("matmul_tile.py")));
    views::TreePicture* picture = view->picture();
    QVERIFY(picture->waitRendered());
    // Fitted: the whole tree when readable that way, never larger than its natural size.
    const double fitted = picture->transform().m11();
    QVERIFY2(fitted > 0.6 && fitted <= 1.0, qPrintable(QString::number(fitted)));
    QTest::keyClick(picture, Qt::Key_Plus);
    QCOMPARE(picture->transform().m11(), fitted * 1.25);
    picture->zoomBy(100);
    QCOMPARE(picture->transform().m11(), 6.0); // the largest zoom
    // A zoom the user chose survives a resize and a new tree; Fit returns to fitting.
    view->resize(600, 800);
    view->setSnapshot(matmulSnapshot());
    QVERIFY(picture->waitRendered());
    QCOMPARE(picture->transform().m11(), 6.0);
    QTest::keyClick(picture, Qt::Key_0);
    QVERIFY(picture->transform().m11() <= 1.0);
  }

  void graphvizRunsOnItsOwnThread() {
    auto view = pictureView(matmulSnapshot());
    QVERIFY(view->picture()->waitRendered());
    QThread* worker = views::GraphvizRenderer::instance()->workerThread();
    QVERIFY(worker != QThread::currentThread());
    QCOMPARE(view->picture()->renderThread(), worker);
    // A second picture uses the same one thread.
    auto other = pictureView(matmulSnapshot(QStringLiteral("matmul_tile.py")));
    QVERIFY(other->picture()->waitRendered());
    QCOMPARE(other->picture()->renderThread(), worker);
  }

  void stalePicturesAreDropped() {
    auto view = pictureView(matmulSnapshot());
    views::TreePicture* picture = view->picture();
    QVERIFY(picture->waitRendered());
    const int before = picture->renderCount();
    view->setSnapshot(matmulSnapshot());
    view->setSnapshot(matmulSnapshot(QStringLiteral("matmul_tile.py")));
    QVERIFY(!picture->isCurrent());
    QVERIFY(picture->waitRendered());
    QCOMPARE(picture->renderCount(), before + 1);
    // The tiled tree's first band is under a mark: node 0.0 is no band.
    QVERIFY(picture->svg().contains("id=\"a_0.0.0/m0\""));
    QVERIFY(!picture->svg().contains("id=\"a_0.0/m0\""));
    // Nothing older arrives later.
    QTest::qWait(100);
    QCOMPARE(picture->renderCount(), before + 1);
  }

  void graphvizErrorsAreReported() {
    QObject context;
    std::optional<views::GraphvizRenderer::Result> result;
    views::GraphvizRenderer::instance()->render(
        &context, [] { return std::string("digraph { a -> }"); }, [] { return true; },
        [&](views::GraphvizRenderer::Result r) { result = std::move(r); });
    QTRY_VERIFY(result.has_value());
    QVERIFY(result->svg.isEmpty());
    QVERIFY2(result->error.contains(QStringLiteral("syntax error")), qPrintable(result->error));
  }

  void missingTreeShowsTheMessage() {
    auto view = pictureView(matmulSnapshot());
    QVERIFY(view->picture()->waitRendered());
    auto broken = std::make_shared<views::ProgramSnapshot>(*matmulSnapshot());
    broken->tree = nullptr;
    broken->treeError = "isl says no";
    view->setSnapshot(broken);
    QVERIFY(view->picture()->isCurrent());
    QVERIFY(view->picture()->svg().isEmpty());
    QCOMPARE(view->picture()->error(), QStringLiteral("No schedule tree: isl says no"));
  }

  void darkThemeHasDarkColours() {
    auto view = pictureView(matmulSnapshot());
    views::TreePicture* picture = view->picture();
    QVERIFY(picture->waitRendered());
    const QByteArray lightBand = QByteArray::fromStdString(views::lightDotPalette().bandFill);
    const QByteArray darkBand = QByteArray::fromStdString(views::darkDotPalette().bandFill);
    QVERIFY(picture->svg().contains(lightBand));
    QPalette dark = picture->palette();
    dark.setColor(QPalette::Base, QColor(30, 30, 32));
    dark.setColor(QPalette::Text, QColor(220, 220, 220));
    picture->setPalette(dark);
    QVERIFY(!picture->isCurrent());
    QVERIFY(picture->waitRendered());
    QVERIFY(picture->svg().contains(darkBand));
    QVERIFY(!picture->svg().contains(lightBand));
  }

  void mainWindowLinksPictureAndTensorIr() {
    auto w = makeWindow();
    QVERIFY(w->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te")));
    QVERIFY(settle(*w));
    views::ScheduleTreeView* tree = w->scheduleTreeView();
    tree->showTab(views::ScheduleTreeView::PictureTab);
    views::TreePicture* picture = tree->picture();
    QVERIFY(picture->waitRendered());
    // TensorIR -> picture: loop j outlines member j.
    clickNode(*w, nodeIndex(*w, "j"));
    QCOMPARE(picture->selectedId(), QStringLiteral("0.0/m1"));
    QVERIFY(!picture->highlightRect().isNull());
    // Picture -> TensorIR: clicking member k selects loop k.
    QTest::mouseClick(picture->viewport(), Qt::LeftButton, {}, picture->viewportPoint(QStringLiteral("0.0/m2")));
    QCOMPARE(w->tensorIrView()->selectedNode(), nodeIndex(*w, "k"));
    QCOMPARE(tree->selectedLoop(), 2);
  }
};

QTEST_MAIN(TestTreePicture)
#include "tst_tree_picture.moc"
