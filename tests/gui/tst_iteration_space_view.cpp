// The Iteration space dock (views/iteration_space_view.h, app/gui/main_window_space.cpp):
// its dots and arrows are poly::iterationSpace's for the block the workbench selects
// (matmul, the 2-D stencil), placed where their coordinates say and painted there; the
// animation advances the rank and paints the instances still to run hollow; the preview of
// an illegal step (reorder(i, t) on the 1-D stencil) marks the counterexample pair the
// legality checker gives, and changes nothing; a legal preview is ordered by the would-be
// state; the Sizes field binds a symbolic size and rejects unknown names; the view exports
// as PNG (the canvas' size) and SVG.
#include "gui_helpers.h"

#include "app/gui/view_export.h"
#include "core/poly/iteration_space.h"
#include "core/poly/legality.h"
#include "core/schedule/primitives.h"
#include "views/iteration_space_view.h"
#include "views/tensorir_view.h"

#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QScopeGuard>
#include <QSemaphore>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QWheelEvent>

#include <memory>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

/// Opens `sample` (unless empty), selects `block`, shows the dock and waits for its picture.
bool showBlock(gui::MainWindow& w, const QString& sample, const std::string& block) {
  if (!sample.isEmpty() && (!w.openPath(QStringLiteral(LS_SOURCE_DIR "/samples/") + sample) || !settle(w)))
    return false;
  const int index = nodeIndex(w, block);
  if (index < 0) return false;
  w.tensorIrView()->selectNode(index);
  auto* dock = w.findChild<QDockWidget*>(QStringLiteral("spaceDock"));
  if (!dock) return false;
  dock->show();
  dock->raise();
  QApplication::processEvents();
  return settle(w) && w.iterationSpaceView()->drawing() != nullptr;
}

/// The canvas as painted now.
QImage painted(views::IterationSpaceCanvas* canvas) { return canvas->grab().toImage(); }

bool isBackground(const QImage& image, QPointF at, const QColor& base) {
  const QColor c = image.pixelColor(at.toPoint());
  return std::abs(c.red() - base.red()) + std::abs(c.green() - base.green()) + std::abs(c.blue() - base.blue()) < 12;
}

/// The share of the pixels of the disc of `radius` around `at` that are not the background:
/// near 1 for a filled dot, low for a hollow one (an outline and its number).
double filledShare(const QImage& image, QPointF at, double radius, const QColor& base) {
  int inside = 0, filled = 0;
  for (int dy = -static_cast<int>(radius); dy <= static_cast<int>(radius); ++dy)
    for (int dx = -static_cast<int>(radius); dx <= static_cast<int>(radius); ++dx) {
      if (dx * dx + dy * dy > radius * radius) continue;
      ++inside;
      if (!isBackground(image, at + QPointF(dx, dy), base)) ++filled;
    }
  return inside == 0 ? 0 : static_cast<double>(filled) / inside;
}

} // namespace

class TestIterationSpaceView : public QObject {
  Q_OBJECT

private:
  std::unique_ptr<gui::MainWindow> m_window;

private Q_SLOTS:
  void init() { m_window = makeWindow(); }
  void cleanup() { m_window.reset(); }

  void drawsTheModelsInstancesAndArrows_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("block");
    QTest::addColumn<QString>("x");
    QTest::addColumn<QString>("y");
    QTest::addColumn<QString>("fixed"); ///< the loop the view fixes at its lowest value
    QTest::addColumn<bool>("arrows");
    QTest::newRow("matmul C") << "matmul.te"
                              << "C"
                              << "v_j"
                              << "v_i"
                              << "k" << false;
    QTest::newRow("stencil2d jacobi_update") << "stencil2d.te"
                                             << "jacobi_update"
                                             << "v_i"
                                             << "v_t"
                                             << "j" << true;
  }

  void drawsTheModelsInstancesAndArrows() {
    QFETCH(QString, sample);
    QFETCH(QString, block);
    QFETCH(QString, x);
    QFETCH(QString, y);
    QFETCH(QString, fixed);
    QFETCH(bool, arrows);
    gui::MainWindow& w = *m_window;
    QVERIFY(showBlock(w, sample, block.toStdString()));
    views::IterationSpaceView* view = w.iterationSpaceView();
    // The selected block on its first two iterators (rows: the first).
    QCOMPARE(view->block(), block);
    QCOMPARE(view->axisX(), x);
    QCOMPARE(view->axisY(), y);
    // The model, asked independently for the same slice of the current state.
    poly::IterationSpaceRequest request{.block = block.toStdString(), .dimX = x.toStdString(), .dimY = y.toStdString()};
    auto expected = poly::iterationSpace(*w.session()->state()->schedule.state(), request);
    QVERIFY2(expected.has_value(), expected ? "" : expected.error().message.c_str());
    const poly::IterationSpace& got = view->drawing()->space;
    QCOMPARE(got.instances.size(), expected->instances.size());
    QCOMPARE(got.arrows.size(), expected->arrows.size());
    QCOMPARE(got.arrows.empty(), !arrows);
    QCOMPARE(got.truncated, expected->truncated);
    QVERIFY(std::find(got.loops.begin(), got.loops.end(), fixed.toStdString()) != got.loops.end());
    for (std::size_t i = 0; i < got.instances.size(); ++i) {
      QCOMPARE(got.instances[i].x, expected->instances[i].x);
      QCOMPARE(got.instances[i].y, expected->instances[i].y);
      QCOMPARE(got.instances[i].order, expected->instances[i].order);
      QCOMPARE(got.instances[i].wavefront, expected->instances[i].wavefront);
    }
    for (std::size_t a = 0; a < got.arrows.size(); ++a) {
      QCOMPARE(got.arrows[a].source, expected->arrows[a].source);
      QCOMPARE(got.arrows[a].sink, expected->arrows[a].sink);
      QCOMPARE(got.arrows[a].kind, expected->arrows[a].kind);
    }
    // Positions: one cell per unit on each axis, x rightwards and y downwards; a dot is
    // found back under its own position, and painted there (not the background).
    views::IterationSpaceCanvas* canvas = view->canvas();
    const double scale = canvas->scale();
    QVERIFY(scale >= 4);
    const QPointF p0 = canvas->instancePosition(0);
    const QImage image = painted(canvas);
    const QColor base = canvas->palette().color(QPalette::Base);
    int checked = 0;
    for (int i = 0; i < static_cast<int>(got.instances.size()); ++i) {
      const QPointF p = canvas->instancePosition(i);
      QCOMPARE(p.x() - p0.x(), static_cast<double>(got.instances[i].x - got.instances[0].x) * scale);
      QCOMPARE(p.y() - p0.y(), static_cast<double>(got.instances[i].y - got.instances[0].y) * scale);
      if (!canvas->rect().adjusted(50, 40, -20, -30).contains(p.toPoint())) continue;
      QCOMPARE(canvas->instanceAt(p), i);
      QVERIFY2(!isBackground(image, p, base), qPrintable(QStringLiteral("instance %1 not painted").arg(i)));
      ++checked;
    }
    QVERIFY(checked >= 16);
    if (arrows) QVERIFY(canvas->arrowsPainted() > 0);
    // Between two horizontal neighbours nothing is drawn (no arrow joins them here).
    QVERIFY(isBackground(image, p0 + QPointF(scale / 2, 0), base));
    // The tooltip names the instance and its rank.
    QVERIFY(canvas->describeInstance(3).contains(QStringLiteral("execution rank 3 of %1").arg(got.instances.size())));
    // matmul is cut at 4096 instances, and says so.
    if (got.truncated)
      QVERIFY2(view->status().contains(QStringLiteral("showing the first 4096 in execution order")),
               qPrintable(view->status()));
  }

  void aSliderFixesTheOtherLoop() {
    gui::MainWindow& w = *m_window;
    QVERIFY(showBlock(w, QStringLiteral("stencil2d.te"), "jacobi_update"));
    views::IterationSpaceView* view = w.iterationSpaceView();
    // j's slider spans its range (0..255); moving it recomputes the slice at j = 7 and
    // keeps the slider (a slider being dragged is not replaced under the mouse).
    auto* slider = view->findChild<QSlider*>(QStringLiteral("spaceFix_j"));
    QVERIFY(slider);
    QCOMPARE(slider->minimum(), 0);
    QCOMPARE(slider->maximum(), 255);
    QCOMPARE(slider->value(), 0);
    slider->setValue(7);
    QTRY_VERIFY(settle(w) && view->drawing()->space.fixedValues.back() == 7);
    QCOMPARE(view->findChild<QSlider*>(QStringLiteral("spaceFix_j")), slider);
    auto* valueLabel = view->findChild<QLabel*>(QStringLiteral("spaceFix_j_value"));
    QVERIFY(valueLabel);
    QCOMPARE(valueLabel->text(), QStringLiteral("7"));
    const poly::IterationSpace& got = view->drawing()->space;
    QCOMPARE(got.loops.back(), std::string("j"));
    QVERIFY(!got.free.back());
    for (const poly::SpaceInstance& inst : got.instances)
      QCOMPARE(inst.loops.back(), std::int64_t(7));
  }

  void animationAdvancesTheRank() {
    gui::MainWindow& w = *m_window;
    QVERIFY(showBlock(w, QStringLiteral("stencil2d.te"), "jacobi_update"));
    views::IterationSpaceView* view = w.iterationSpaceView();
    views::IterationSpaceCanvas* canvas = view->canvas();
    const std::int64_t n = static_cast<std::int64_t>(view->drawing()->space.instances.size());
    QCOMPARE(canvas->keyCount(), n);
    QCOMPARE(canvas->time(), n); // everything run: the still picture
    const QColor base = canvas->palette().color(QPalette::Base);
    // The 6th instance in order, painted filled before the animation starts.
    int sixth = -1;
    for (int i = 0; i < n; ++i)
      if (view->drawing()->space.instances[static_cast<std::size_t>(i)].order == 5) sixth = i;
    QVERIFY(sixth >= 0);
    const double r = canvas->scale() * 0.3 * 0.8;
    QVERIFY(r >= 3);
    QVERIFY(filledShare(painted(canvas), canvas->instancePosition(sixth), r, base) > 0.8);
    view->stepForward();
    QCOMPARE(canvas->time(), std::int64_t(0));
    view->stepForward();
    QCOMPARE(canvas->time(), std::int64_t(1));
    auto* label = view->findChild<QLabel*>(QStringLiteral("spaceTimeLabel"));
    QVERIFY(label);
    QCOMPARE(label->text(), QStringLiteral("rank 1 / %1").arg(n));
    // Still to run: hollow.
    QVERIFY(filledShare(painted(canvas), canvas->instancePosition(sixth), r, base) < 0.5);
    view->play();
    QVERIFY(view->isPlaying());
    QTRY_VERIFY(canvas->time() > 5);
    view->pause();
    QVERIFY(filledShare(painted(canvas), canvas->instancePosition(sixth), r, base) > 0.8);
    // By wavefront, the unit is a wavefront.
    view->setColoring(views::SpaceColoring::Wavefront);
    QCOMPARE(canvas->keyCount(), view->drawing()->space.wavefronts);
    view->stepForward();
    view->stepForward();
    QCOMPARE(canvas->time(), std::int64_t(1));
    QCOMPARE(label->text(), QStringLiteral("wavefront 1 / %1").arg(view->drawing()->space.wavefronts));
  }

  void previewOfAnIllegalStepMarksTheCounterexample() {
    gui::MainWindow& w = *m_window;
    QVERIFY(showBlock(w, QStringLiteral("stencil1d.te"), "heat_update"));
    views::IterationSpaceView* view = w.iterationSpaceView();
    const auto snapshot = w.tensorIrView()->snapshot();
    const int t = snapshot->find(views::NodeInfo::Kind::Loop, "t");
    const int i = snapshot->find(views::NodeInfo::Kind::Loop, "i");
    QVERIFY(t >= 0 && i >= 0);
    // i is heat_init's loop too: take heat_update's own.
    const int update = snapshot->find(views::NodeInfo::Kind::Block, "heat_update");
    const std::vector<int>& loops = snapshot->nodes[static_cast<std::size_t>(update)].loopsAbove;
    QCOMPARE(loops.size(), std::size_t(2));
    views::PrimitiveRequest reorder;
    reorder.kind = "reorder";
    reorder.snapshot = snapshot;
    reorder.inputs.push_back(
        {std::vector<const ir::StmtNode*>{snapshot->nodes[static_cast<std::size_t>(loops[1])].node,
                                          snapshot->nodes[static_cast<std::size_t>(loops[0])].node}});
    QVERIFY(w.previewStep(reorder));
    QVERIFY(settle(w));
    const auto& d = view->drawing();
    QVERIFY(d && d->preview && d->illegal);
    QVERIFY(view->isPreview());
    QVERIFY(d->counterexample.has_value());
    QCOMPARE(d->stepText, std::string("reorder(i, t)"));
    // The pair the legality checker gives for the same step, taken unverified here.
    schedule::Schedule sch(ir::PrimFunc(w.session()->state()->schedule.func()));
    auto b = schedule::getBlock(sch, "heat_update", sch.func().name);
    QVERIFY(b.has_value());
    auto ls = schedule::getLoops(sch, *b);
    QVERIFY(ls.has_value() && ls->size() == 2);
    QVERIFY(schedule::reorder(sch, {(*ls)[1], (*ls)[0]}).has_value());
    auto report = poly::checkLegality(*sch.originalState(), *sch.state());
    QVERIFY(report.has_value() && !report->legal && report->counterexample);
    const Counterexample& c = *report->counterexample;
    const poly::PlacedCounterexample& placed = *d->counterexample;
    QCOMPARE(placed.source.instance.text(), c.source.text());
    QCOMPARE(placed.sink.instance.text(), c.sink.text());
    QVERIFY(placed.source.index >= 0 && placed.sink.index >= 0);
    // The marked dots are the pair's: their iterator values are the counterexample's.
    const poly::IterationSpace& space = d->space;
    for (const auto& [index, inst] :
         {std::pair{placed.source.index, &c.source}, std::pair{placed.sink.index, &c.sink}}) {
      const poly::SpaceInstance& dot = space.instances[static_cast<std::size_t>(index)];
      for (std::size_t k = 0; k < inst->iterators.size(); ++k) {
        const auto it = std::find(space.iterators.begin(), space.iterators.end(), inst->iterators[k].first);
        QVERIFY(it != space.iterators.end());
        QCOMPARE(dot.iterators[static_cast<std::size_t>(it - space.iterators.begin())], inst->iterators[k].second);
      }
    }
    // Ordered by the would-be state: the sink runs before the source.
    QVERIFY(space.instances[static_cast<std::size_t>(placed.sink.index)].order <
            space.instances[static_cast<std::size_t>(placed.source.index)].order);
    // Their rings are painted red.
    views::IterationSpaceCanvas* canvas = view->canvas();
    canvas->zoomToFit();
    const QImage image = painted(canvas);
    const double ring = std::max(std::clamp(canvas->scale() * 0.3, 0.8, 12.0) + 3, 6.0);
    for (int index : {placed.source.index, placed.sink.index}) {
      const QPointF p = canvas->instancePosition(index) + QPointF(ring, 0);
      if (!canvas->rect().contains(p.toPoint())) continue;
      bool red = false;
      for (int dx = -1; dx <= 1 && !red; ++dx) {
        const QColor px = image.pixelColor(p.toPoint() + QPoint(dx, 0));
        red = px.red() > 180 && px.green() < 90 && px.blue() < 90;
      }
      QVERIFY2(red, qPrintable(QStringLiteral("instance %1 has no red ring").arg(index)));
    }
    // LS_SPACE_SHOTS=DIR writes the window with the preview at two sizes, light and dark.
    if (const QString dir = qEnvironmentVariable("LS_SPACE_SHOTS"); !dir.isEmpty()) {
      for (const QSize size : {QSize(1280, 800), QSize(1600, 1000)})
        for (const bool dark : {false, true}) {
          w.setDarkTheme(dark);
          w.resize(size);
          QApplication::processEvents();
          w.grab().save(QStringLiteral("%1/preview_%2x%3%4.png")
                            .arg(dir)
                            .arg(size.width())
                            .arg(size.height())
                            .arg(dark ? QStringLiteral("_dark") : QString()));
        }
      w.setDarkTheme(false);
    }
    auto* banner = view->findChild<QLabel*>(QStringLiteral("spacePreviewBanner"));
    QVERIFY(banner && banner->isVisible());
    QVERIFY2(banner->text().contains(QStringLiteral("refused")), qPrintable(banner->text()));
    // Nothing was applied.
    QCOMPARE(w.session()->state()->trace->stepCount, 0);
    // Back: the current state's slice again.
    view->leavePreview();
    QVERIFY(settle(w));
    QVERIFY(!view->isPreview());
    QVERIFY(!view->drawing()->counterexample);
  }

  void previewOfALegalStepIsOrderedByTheNewState() {
    gui::MainWindow& w = *m_window;
    QVERIFY(showBlock(w, QStringLiteral("matmul.te"), "C"));
    views::IterationSpaceView* view = w.iterationSpaceView();
    const auto snapshot = w.tensorIrView()->snapshot();
    const int i = snapshot->find(views::NodeInfo::Kind::Loop, "i");
    const int j = snapshot->find(views::NodeInfo::Kind::Loop, "j");
    views::PrimitiveRequest reorder;
    reorder.kind = "reorder";
    reorder.snapshot = snapshot;
    reorder.inputs.push_back({std::vector<const ir::StmtNode*>{snapshot->nodes[static_cast<std::size_t>(j)].node,
                                                               snapshot->nodes[static_cast<std::size_t>(i)].node}});
    QVERIFY(w.previewStep(reorder));
    QVERIFY(settle(w));
    const auto& d = view->drawing();
    QVERIFY(d && d->preview && !d->illegal && !d->counterexample);
    QCOMPARE(d->verdict, std::string("legal"));
    schedule::Schedule after = w.session()->state()->schedule;
    auto ls = schedule::getLoops(after, *schedule::getBlock(after, "C", after.func().name));
    QVERIFY(schedule::reorder(after, {(*ls)[1], (*ls)[0]}).has_value());
    poly::IterationSpaceRequest request{.block = "C", .dimX = "v_j", .dimY = "v_i"};
    auto expected = poly::iterationSpace(*w.session()->state()->schedule.state(), request, after.state().get());
    QVERIFY(expected.has_value());
    QCOMPARE(d->space.instances.size(), expected->instances.size());
    for (std::size_t k = 0; k < expected->instances.size(); ++k) {
      QCOMPARE(d->space.instances[k].x, expected->instances[k].x);
      QCOMPARE(d->space.instances[k].y, expected->instances[k].y);
      QCOMPARE(d->space.instances[k].order, expected->instances[k].order);
    }
    // j outermost now: (i=1, j=0) runs right after (i=0, j=0).
    const int second = d->space.findInstance({1, 0, 0});
    QVERIFY(second >= 0);
    QCOMPARE(d->space.instances[static_cast<std::size_t>(second)].order, std::int64_t(1));
    QCOMPARE(w.session()->state()->trace->stepCount, 0);
  }

  void sizesBindSymbolicSizes() {
    gui::MainWindow& w = *m_window;
    QVERIFY(showBlock(w, QStringLiteral("dense_dynamic.te"), "T_matmul_NT"));
    views::IterationSpaceView* view = w.iterationSpaceView();
    QCOMPARE(view->sizesText(), QStringLiteral("n=8")); // a small default
    QCOMPARE(view->drawing()->space.sizes.at("n"), std::int64_t(8));
    view->setSizesText(QStringLiteral("n=3"));
    QTRY_VERIFY(settle(w) && view->drawing() && view->drawing()->space.sizes.at("n") == 3);
    QCOMPARE(view->drawing()->space.yMax, std::int64_t(2)); // v_i in 0..n-1
    view->setSizesText(QStringLiteral("m=3"));
    QString error;
    QVERIFY(!view->request(&error));
    QCOMPARE(error, QStringLiteral("Sizes: 'm' is not a symbolic size of the program (its sizes: n)"));
    view->setSizesText(QStringLiteral("n=zero"));
    QVERIFY(!view->request(&error));
    QCOMPARE(error, QStringLiteral("Sizes: 'n=zero' should be NAME=VALUE with a positive VALUE, e.g. n=8"));
  }

  void tiledStencilShowsTilesAndWavefronts() {
    gui::MainWindow& w = *m_window;
    QVERIFY(w.openPath(QStringLiteral(LS_SOURCE_DIR "/samples/stencil1d.te")));
    QVERIFY(settle(w));
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("tile.py"));
    {
      QFile f(trace);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("sch.poly_skew(band=\"t\", member=1, by_member=0, factor=1)\n"
              "sch.poly_tile(band=\"t\", sizes=[8, 64])\n");
    }
    QVERIFY(w.loadTracePath(trace));
    QVERIFY(settle(w));
    QCOMPARE(w.session()->state()->trace->stepCount, 2);
    QVERIFY(showBlock(w, {}, "heat_update"));
    views::IterationSpaceView* view = w.iterationSpaceView();
    const poly::IterationSpace& space = view->drawing()->space;
    // On the original coordinates, cut into the skewed 8 x 64 tiles (t_0 and i_0 fixed per tile).
    QCOMPARE(view->axisX(), QStringLiteral("v_i"));
    QCOMPARE(space.tileLoops, (std::vector<std::string>{"t_0", "i_0"}));
    QCOMPARE(space.tiles.size(), std::size_t(10));
    QVERIFY(w.iterationSpaceView()->status().contains(QStringLiteral("7 wavefronts")));
    // Played by wavefront: wavefront 2's instances are ringed in the running colour.
    view->setColoring(views::SpaceColoring::Wavefront);
    view->stepForward();
    view->stepForward();
    view->stepForward();
    views::IterationSpaceCanvas* canvas = view->canvas();
    QCOMPARE(canvas->time(), std::int64_t(2));
    const QImage image = painted(canvas);
    const double ring = std::clamp(canvas->scale() * 0.3, 0.8, 12.0) + 2.5;
    int ringed = 0;
    for (int i = 0; i < static_cast<int>(space.instances.size()); ++i) {
      const QPointF p = canvas->instancePosition(i) + QPointF(ring, 0);
      if (space.instances[static_cast<std::size_t>(i)].wavefront != 2 ||
          !canvas->rect().adjusted(50, 40, -20, -30).contains(p.toPoint()))
        continue;
      bool orange = false;
      for (int dx = -1; dx <= 1 && !orange; ++dx) {
        const QColor px = image.pixelColor(p.toPoint() + QPoint(dx, 0));
        orange = px.red() > 200 && px.green() > 90 && px.green() < 170 && px.blue() < 80;
      }
      QVERIFY2(orange, qPrintable(QStringLiteral("instance %1 of wavefront 2 is not ringed").arg(i)));
      ++ringed;
    }
    QVERIFY(ringed > 0);
    if (const QString out = qEnvironmentVariable("LS_SPACE_SHOTS"); !out.isEmpty())
      for (const QSize size : {QSize(1280, 800), QSize(1600, 1000)})
        for (const bool dark : {false, true}) {
          w.setDarkTheme(dark);
          w.resize(size);
          QApplication::processEvents();
          view->setColoring(views::SpaceColoring::Wavefront);
          for (int k = 0; k < 3; ++k)
            view->stepForward();
          w.grab().save(QStringLiteral("%1/tiled_%2x%3%4.png")
                            .arg(out)
                            .arg(size.width())
                            .arg(size.height())
                            .arg(dark ? QStringLiteral("_dark") : QString()));
        }
  }

  void cancelStopsTheComputationAndSaysSo() {
    gui::MainWindow& w = *m_window;
    QVERIFY(showBlock(w, QStringLiteral("stencil2d.te"), "jacobi_update"));
    views::IterationSpaceView* view = w.iterationSpaceView();
    // Every pool thread is held, so the slice's job waits in the queue until it is cancelled
    // (a slice this small would otherwise finish before the test can cancel it).
    QThreadPool* pool = QThreadPool::globalInstance();
    const int threads = pool->maxThreadCount();
    auto started = std::make_shared<QSemaphore>(), release = std::make_shared<QSemaphore>();
    for (int i = 0; i < threads; ++i)
      pool->start([started, release] {
        started->release();
        release->acquire();
      });
    const auto unhold = qScopeGuard([&] {
      if (release) release->release(threads);
    });
    QVERIFY(started->tryAcquire(threads, 10000));
    QVERIFY(view->setAxes(QStringLiteral("v_j"), QStringLiteral("v_t")));
    QTRY_VERIFY(w.session()->isBusy()); // the slice is queued (after the view's short delay)
    w.session()->jobs()->cancelAll();
    release->release(threads);
    release.reset();
    QVERIFY(settle(w));
    QVERIFY2(view->status().contains(QStringLiteral("Cancelled: change the axes, a slider or the selection")),
             qPrintable(view->status()));
    QVERIFY(!view->drawing());
    // The next change computes again.
    QVERIFY(view->setAxes(QStringLiteral("v_i"), QStringLiteral("v_t")));
    QTRY_VERIFY(settle(w) && view->drawing() && view->drawing()->space.xName == "v_i");
  }

  void wheelZoomsAboutTheMouseAndHoverFindsTheDot() {
    gui::MainWindow& w = *m_window;
    QVERIFY(showBlock(w, QStringLiteral("stencil2d.te"), "jacobi_update"));
    views::IterationSpaceCanvas* canvas = w.iterationSpaceView()->canvas();
    QVERIFY(canvas->isFitted());
    const double before = canvas->scale();
    const QPointF at = canvas->instancePosition(20);
    QWheelEvent wheel(at, canvas->mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(canvas, &wheel);
    QVERIFY(canvas->scale() > before * 1.3);
    QVERIFY(!canvas->isFitted());
    // The dot under the mouse stays there.
    QVERIFY(std::abs(canvas->instancePosition(20).x() - at.x()) < 0.01);
    QVERIFY(std::abs(canvas->instancePosition(20).y() - at.y()) < 0.01);
    QCOMPARE(canvas->instanceAt(at), 20);
    // Hovering: the instance under the mouse; none outside the slice (the axis margin).
    QCOMPARE(canvas->instanceAt(canvas->instancePosition(21)), 21);
    QCOMPARE(canvas->instanceAt(QPointF(4, 4)), -1);
    QVERIFY(canvas->describeInstance(21).contains(QStringLiteral("execution rank 21 of")));
    QTest::mouseDClick(canvas, Qt::LeftButton, {}, at.toPoint());
    QVERIFY(canvas->isFitted());
    QCOMPARE(canvas->scale(), before);
  }

  void exportsPngAndSvgOfTheCanvasSize() {
    gui::MainWindow& w = *m_window;
    QVERIFY(showBlock(w, QStringLiteral("stencil2d.te"), "jacobi_update"));
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("space.png")), svg = dir.filePath(QStringLiteral("space.svg"));
    QString error;
    QVERIFY2(gui::exportView(w, QStringLiteral("space"), png, &error), qPrintable(error));
    QVERIFY2(gui::exportView(w, QStringLiteral("space"), svg, &error), qPrintable(error));
    views::IterationSpaceCanvas* canvas = w.iterationSpaceView()->canvas();
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), canvas->size() * canvas->devicePixelRatioF());
    // Not blank: the dots are in it.
    const QColor base = canvas->palette().color(QPalette::Base);
    QVERIFY(!isBackground(image, canvas->instancePosition(0), base));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains(QStringLiteral("viewBox=\"0 0 %1 %2\"").arg(canvas->width()).arg(canvas->height()).toUtf8()));
    QVERIFY(text.count("<path") + text.count("<ellipse") + text.count("<circle") > 100);
  }
};

QTEST_MAIN(TestIterationSpaceView)
#include "tst_iteration_space_view.moc"
