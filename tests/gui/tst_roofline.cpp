// The roofline plot of the profile view (views/roofline_chart.h) from known rows: each
// timed row with an arithmetic intensity is a point at exactly (intensity, GFLOP/s)
// labelled by the row's label; the roof is min(peak, bandwidth x intensity) with its knee
// at peak / bandwidth; both axes are logarithmic and span whole decades around every
// point and knee; hovering a point shows its numbers; labels of close points do not
// overlap; the rows' roofline fields survive a session file and old sessions still read;
// the profile view shows the plot on a "Roofline" tab beside the bars, in both themes.
// The intensity selector: the modeled traffic's intensity by default when every point has
// it, the compulsory one on request or as the fallback for rows without it (the title and
// the x axis say which); hovering shows both.
#include "views/profile_rows_json.h"
#include "views/profile_view.h"
#include "views/roofline_chart.h"
#include "views/theme.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QComboBox>
#include <QGraphicsSimpleTextItem>
#include <QJsonObject>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTest>
#include <QToolTip>

#include <cmath>

using namespace loopscape;
using views::ProfileRow;
using views::RooflineChart;

namespace {

ProfileRow timedRow(int step, const std::string& stepLabel, double gflops, std::optional<double> intensity,
                    double peak = 100, double bandwidth = 20) {
  ProfileRow row;
  row.program = "matmul.te";
  row.step = step;
  row.stepLabel = stepLabel;
  row.target = "cpu-c";
  row.status = ProfileRow::Status::Verified;
  row.message = "verified";
  row.perRepeatMs = {2.0, 2.5};
  row.number = 10;
  row.medianMs = 2.25;
  row.gflops = gflops;
  row.percentOfPeak = 100 * gflops / peak;
  row.intensity = intensity;
  row.peakGflops = peak;
  row.bandwidthGBs = bandwidth;
  return row;
}

/// `row` with a modeled traffic of `bytes` and FLOP per modeled byte `intensity`.
ProfileRow withModel(ProfileRow row, double intensity, double bytes) {
  row.modeledIntensity = intensity;
  row.modeledBytes = bytes;
  row.trafficModel = "beyond a 1 MiB cache, 64-byte lines";
  return row;
}

std::vector<ProfileRow> knownRows() {
  ProfileRow failed;
  failed.stepLabel = "2 · reorder";
  failed.target = "cpu-c";
  failed.status = ProfileRow::Status::Error;
  failed.message = "compile: nope";
  return {timedRow(0, "original", 4, 8.0), timedRow(3, "3 · split", 40, 8.0), failed,
          timedRow(4, "4 · vectorize", 0.5, std::nullopt)};
}

QLineSeries* roofSeries(const RooflineChart& chart) {
  for (QAbstractSeries* s : chart.chart()->series())
    if (auto* line = qobject_cast<QLineSeries*>(s); line && s->type() == QAbstractSeries::SeriesTypeLine) return line;
  return nullptr;
}

bool isWholeDecade(double v) {
  const double e = std::log10(v);
  return std::abs(e - std::round(e)) < 1e-9;
}

} // namespace

class TestRoofline : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void pointsAreTheMeasuredStates() {
    RooflineChart chart;
    chart.setRows(knownRows(), QStringLiteral("matmul.te"));
    // The failed row is no point, the one without an intensity is left out (and said).
    QCOMPARE(chart.points().size(), std::size_t(2));
    QCOMPARE(chart.leftOut(), 1);
    QCOMPARE(chart.points()[0].intensity, 8.0);
    QCOMPARE(chart.points()[0].gflops, 4.0);
    QCOMPARE(chart.points()[1].intensity, 8.0);
    QCOMPARE(chart.points()[1].gflops, 40.0);
    QVERIFY(chart.pointSeries());
    QCOMPARE(chart.pointSeries()->points(), (QList<QPointF>{{8.0, 4.0}, {8.0, 40.0}}));
    // Labelled by the rows' labels (trace step and target).
    QCOMPARE(chart.points()[0].label, QStringLiteral("original / cpu-c"));
    QCOMPARE(chart.points()[1].label, QStringLiteral("3 · split / cpu-c"));
    QCOMPARE(chart.labelItems().size(), std::size_t(2));
    QCOMPARE(chart.labelItems()[0]->text(), QStringLiteral("original / cpu-c"));
    QCOMPARE(chart.labelItems()[1]->text(), QStringLiteral("3 · split / cpu-c"));
    QVERIFY(chart.chart()->title().startsWith(QStringLiteral("Roofline of matmul.te")));
    QVERIFY(chart.chart()->title().contains(QStringLiteral("1 run(s) without arithmetic intensity not shown")));
  }

  void roofKneeIsPeakOverBandwidth() {
    RooflineChart chart;
    chart.setRows(knownRows(), QStringLiteral("matmul.te"));
    QCOMPARE(chart.roofs().size(), std::size_t(1));
    QCOMPARE(chart.roofs()[0].peakGflops, 100.0);
    QCOMPARE(chart.roofs()[0].bandwidthGBs, 20.0);
    QCOMPARE(chart.roofs()[0].knee(), 5.0);
    QLineSeries* roof = roofSeries(chart);
    QVERIFY(roof);
    const QList<QPointF> pts = roof->points();
    QCOMPARE(pts.size(), qsizetype(3));
    // Slanted (bandwidth x intensity) up to the knee, flat at the peak to the right edge.
    QCOMPARE(pts[0].y(), 20 * pts[0].x());
    QCOMPARE(pts[1], QPointF(5.0, 100.0));
    QCOMPARE(pts[2], QPointF(chart.intensityAxis()->max(), 100.0));
    QVERIFY(roof->name().contains(QStringLiteral("knee 5 FLOP/byte")));

    // A state on every core has its own (higher) roof: both are drawn.
    auto rows = knownRows();
    rows.push_back(timedRow(5, "5 · parallel", 150, 8.0, 400, 20));
    chart.setRows(rows, QStringLiteral("matmul.te"));
    QCOMPARE(chart.roofs().size(), std::size_t(2));
    QCOMPARE(chart.roofs()[1].knee(), 20.0);
  }

  void axesAreLogarithmicAndHoldEverything() {
    RooflineChart chart;
    auto rows = knownRows();
    rows.push_back(timedRow(6, "6 · tile", 0.25, 0.02));
    chart.setRows(rows, {});
    for (QLogValueAxis* axis : {chart.intensityAxis(), chart.gflopsAxis()}) {
      QVERIFY(axis);
      QCOMPARE(axis->type(), QAbstractAxis::AxisTypeLogValue);
      QCOMPARE(axis->base(), 10.0);
      QVERIFY(isWholeDecade(axis->min()));
      QVERIFY(isWholeDecade(axis->max()));
    }
    QVERIFY(chart.intensityAxis()->alignment() == Qt::AlignBottom);
    for (const RooflineChart::Point& p : chart.points()) {
      QVERIFY(chart.intensityAxis()->min() < p.intensity && p.intensity < chart.intensityAxis()->max());
      QVERIFY(chart.gflopsAxis()->min() < p.gflops && p.gflops < chart.gflopsAxis()->max());
    }
    for (const RooflineChart::Roof& r : chart.roofs()) {
      QVERIFY(chart.intensityAxis()->min() < r.knee() && r.knee() < chart.intensityAxis()->max());
      QVERIFY(r.peakGflops < chart.gflopsAxis()->max());
    }
    QCOMPARE(chart.intensityAxis()->min(), 0.001); // 0.02 / 3, down to its decade
    QCOMPARE(chart.intensityAxis()->max(), 100.0); // 8 x 3, up to its decade
    QCOMPARE(chart.gflopsAxis()->min(), 0.01);     // 0.25 / 3
    QCOMPARE(chart.gflopsAxis()->max(), 1000.0);   // the peak 100 x 3
  }

  void hoverShowsTheNumbers() {
    RooflineChart chart;
    chart.resize(640, 420);
    chart.show();
    chart.setRows(knownRows(), QStringLiteral("matmul.te"));
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const QString tip = chart.toolTipAt(QPointF(8, 40));
    QVERIFY2(tip.startsWith(QStringLiteral("3 · split / cpu-c\n")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("arithmetic intensity: 8 FLOP/byte")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("achieved: 40 GFLOP/s (40 % of peak)")), qPrintable(tip));
    // min(100, 20 x 8): compute bound, 40 % of the roof.
    QVERIFY2(tip.contains(QStringLiteral("roof here: 100 GFLOP/s (compute bound, 40 % of it)")), qPrintable(tip));
    QVERIFY(chart.toolTipAt(QPointF(8, 4.2)).startsWith(QStringLiteral("original / cpu-c\n")));
    Q_EMIT chart.pointSeries()->hovered(QPointF(8, 40), true);
    QTRY_COMPARE(QToolTip::text(), tip);
    Q_EMIT chart.pointSeries()->hovered(QPointF(8, 40), false);
  }

  void closeLabelsDoNotOverlap() {
    RooflineChart chart;
    chart.resize(640, 420);
    chart.show();
    std::vector<ProfileRow> rows;
    for (int i = 0; i < 6; ++i)
      rows.push_back(timedRow(i, std::to_string(i) + " · split", 10 + i, 8.0));
    chart.setRows(rows, QStringLiteral("matmul.te"));
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QApplication::processEvents();
    const auto& labels = chart.labelItems();
    QCOMPARE(labels.size(), std::size_t(6));
    for (std::size_t a = 0; a < labels.size(); ++a) {
      QVERIFY(chart.chart()->plotArea().contains(labels[a]->sceneBoundingRect().center()));
      for (std::size_t b = a + 1; b < labels.size(); ++b)
        QVERIFY2(!labels[a]->sceneBoundingRect().intersects(labels[b]->sceneBoundingRect()),
                 qPrintable(labels[a]->text() + QStringLiteral(" covers ") + labels[b]->text()));
    }
  }

  void fieldsAreSavedAndOldSessionsRead() {
    const ProfileRow row = withModel(timedRow(3, "3 · split", 40, 8.0), 6, 1e7);
    const QJsonArray saved = views::profileRowsToJson({row});
    const QJsonObject o = saved.at(0).toObject();
    QCOMPARE(o.value(QStringLiteral("intensity")).toDouble(), 8.0);
    QCOMPARE(o.value(QStringLiteral("modeledIntensity")).toDouble(), 6.0);
    QCOMPARE(o.value(QStringLiteral("modeledBytes")).toDouble(), 1e7);
    QCOMPARE(o.value(QStringLiteral("trafficModel")).toString(), QStringLiteral("beyond a 1 MiB cache, 64-byte lines"));
    QCOMPARE(o.value(QStringLiteral("peakGflops")).toDouble(), 100.0);
    QCOMPARE(o.value(QStringLiteral("bandwidthGBs")).toDouble(), 20.0);
    auto back = views::profileRowsFromJson(saved);
    QCOMPARE(back.size(), std::size_t(1));
    QCOMPARE(back[0].intensity, std::optional<double>(8.0));
    QCOMPARE(back[0].peakGflops, std::optional<double>(100.0));
    QCOMPARE(back[0].bandwidthGBs, std::optional<double>(20.0));
    QCOMPARE(back[0].modeledIntensity, std::optional<double>(6.0));
    QCOMPARE(back[0].modeledBytes, std::optional<double>(1e7));
    QCOMPARE(back[0].trafficModel, row.trafficModel);
    // A row saved before the roofline (or before the modeled traffic): the fields are
    // absent, the row still reads.
    QJsonObject old = o;
    for (const char* key :
         {"intensity", "peakGflops", "bandwidthGBs", "modeledIntensity", "modeledBytes", "trafficModel"})
      old.remove(QLatin1String(key));
    QJsonObject wrong = o;
    wrong[QStringLiteral("intensity")] = QStringLiteral("high");
    int skipped = 0;
    back = views::profileRowsFromJson(QJsonArray{old, wrong}, &skipped);
    QCOMPARE(skipped, 1);
    QCOMPARE(back.size(), std::size_t(1));
    QVERIFY(!back[0].intensity && !back[0].peakGflops && !back[0].bandwidthGBs);
    QVERIFY(!back[0].modeledIntensity && !back[0].modeledBytes && back[0].trafficModel.empty());
    QCOMPARE(back[0].gflops, 40.0);
  }

  void intensitySelectorMovesThePoints() {
    RooflineChart chart;
    chart.resize(640, 420);
    const std::vector<ProfileRow> rows{withModel(timedRow(0, "original", 4, 8.0), 0.5, 2e8),
                                       withModel(timedRow(3, "3 · tile", 40, 8.0), 6.0, 1e7)};
    chart.setRows(rows, QStringLiteral("matmul.te"));
    auto* selector = chart.findChild<QComboBox*>(QStringLiteral("rooflineIntensity"));
    QVERIFY(selector);
    QCOMPARE(selector, chart.intensitySelector());
    QCOMPARE(selector->count(), 2);
    // Every point has a modeled traffic: it is the default, the points spread out.
    QCOMPARE(chart.intensity(), RooflineChart::Intensity::Modeled);
    QCOMPARE(selector->currentText(), QStringLiteral("Intensity: modeled traffic (L2 model)"));
    QCOMPARE(chart.pointSeries()->points(), (QList<QPointF>{{0.5, 4.0}, {6.0, 40.0}}));
    QCOMPARE(chart.points()[0].compulsoryIntensity, 8.0);
    QCOMPARE(chart.points()[0].modeledIntensity, std::optional<double>(0.5));
    QCOMPARE(chart.intensityAxis()->titleText(), QStringLiteral("FLOP per byte of modeled L2 traffic"));
    QVERIFY(!chart.chart()->title().contains(QStringLiteral("compulsory")));
    // 0.5 and 6: the axis spans 0.1 .. 100 (the knee 5 too).
    QCOMPARE(chart.intensityAxis()->min(), 0.1);
    // Hovering shows both intensities, the plotted one marked; the roof is the modeled one's.
    QString tip = chart.toolTipAt(QPointF(6, 40));
    QVERIFY2(tip.contains(QStringLiteral("arithmetic intensity: 8 FLOP/byte (compulsory bytes)\n")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("modeled intensity: 6 FLOP/byte (modeled traffic) (x axis)")),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("modeled traffic 10 MB beyond a 1 MiB cache, 64-byte lines")),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("roof here: 100 GFLOP/s (compute bound")),
             qPrintable(tip)); // min(100, 20 x 6)
    tip = chart.toolTipAt(QPointF(0.5, 4));
    QVERIFY2(tip.contains(QStringLiteral("roof here: 10 GFLOP/s (memory bound, 40 % of it)")), qPrintable(tip));

    // Compulsory bytes: both states on one vertical line at 8 FLOP/byte.
    selector->setCurrentIndex(0);
    QCOMPARE(chart.intensity(), RooflineChart::Intensity::Compulsory);
    QCOMPARE(chart.requestedIntensity(), RooflineChart::Intensity::Compulsory);
    QCOMPARE(chart.pointSeries()->points(), (QList<QPointF>{{8.0, 4.0}, {8.0, 40.0}}));
    QCOMPARE(chart.intensityAxis()->titleText(), QStringLiteral("FLOP per compulsory byte"));
    tip = chart.toolTipAt(QPointF(8, 40));
    QVERIFY2(tip.contains(QStringLiteral("arithmetic intensity: 8 FLOP/byte (compulsory bytes) (x axis)")),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("modeled intensity: 6 FLOP/byte (modeled traffic)\n")), qPrintable(tip));
    // The choice survives new rows; and back.
    chart.setRows(rows, QStringLiteral("matmul.te"));
    QCOMPARE(chart.intensity(), RooflineChart::Intensity::Compulsory);
    chart.setIntensity(RooflineChart::Intensity::Modeled);
    QCOMPARE(selector->currentIndex(), 1);
    QCOMPARE(chart.points()[1].intensity, 6.0);
  }

  void rowsWithoutModelFallBackToCompulsory() {
    RooflineChart chart;
    // One run recorded before the modeled traffic was: every point shows the compulsory
    // intensity (no mixed axis), the title says why, the modeled item is disabled.
    std::vector<ProfileRow> rows{timedRow(0, "original", 4, 8.0), withModel(timedRow(3, "3 · tile", 40, 8.0), 6, 1e7)};
    chart.setRows(rows, QStringLiteral("matmul.te"));
    QCOMPARE(chart.requestedIntensity(), RooflineChart::Intensity::Modeled);
    QCOMPARE(chart.intensity(), RooflineChart::Intensity::Compulsory);
    QCOMPARE(chart.pointSeries()->points(), (QList<QPointF>{{8.0, 4.0}, {8.0, 40.0}}));
    QVERIFY2(
        chart.chart()->title().contains(QStringLiteral("1 run(s) without modeled traffic: compulsory bytes shown")),
        qPrintable(chart.chart()->title()));
    QVERIFY(chart.intensityAxis()->titleText().contains(QStringLiteral("compulsory")));
    QCOMPARE(chart.intensitySelector()->currentIndex(), 0);
    auto* items = qobject_cast<QStandardItemModel*>(chart.intensitySelector()->model());
    QVERIFY(items && !items->item(1)->isEnabled());
    QVERIFY(chart.toolTipAt(QPointF(8, 4)).contains(QStringLiteral("modeled intensity: not recorded for this run")));
    // Only old rows.
    chart.setRows(knownRows(), QStringLiteral("matmul.te"));
    QVERIFY(chart.chart()->title().contains(QStringLiteral("no modeled traffic recorded: compulsory bytes shown")));
    // Asking for the compulsory intensity is no fallback: no note.
    chart.setIntensity(RooflineChart::Intensity::Compulsory);
    QVERIFY(!chart.chart()->title().contains(QStringLiteral("modeled")));
    // When every row has it again, the modeled item comes back.
    rows.erase(rows.begin());
    chart.setIntensity(RooflineChart::Intensity::Modeled);
    chart.setRows(rows, QStringLiteral("matmul.te"));
    QVERIFY(items->item(1)->isEnabled());
    QCOMPARE(chart.intensity(), RooflineChart::Intensity::Modeled);
  }

  void profileViewShowsIt() {
    views::ProfileView view;
    view.resize(900, 400);
    view.setProgram(QStringLiteral("/tmp/matmul.te"), QStringLiteral("matmul.te"));
    QTabWidget* tabs = view.chartTabs();
    QVERIFY(tabs);
    QCOMPARE(tabs->objectName(), QStringLiteral("profileCharts"));
    QCOMPARE(tabs->count(), 2);
    QCOMPARE(tabs->tabText(0), QStringLiteral("Bars"));
    QCOMPARE(tabs->tabText(1), QStringLiteral("Roofline"));
    QCOMPARE(tabs->widget(1), static_cast<QWidget*>(view.roofline()));
    for (const ProfileRow& row : knownRows())
      view.addRow(row);
    QCOMPARE(view.roofline()->points().size(), std::size_t(2));
    QVERIFY(view.roofline()->chart()->title().contains(QStringLiteral("matmul.te")));
    // The intensity selector sits in the tab bar's corner, shown with the roofline only.
    auto* selector = view.findChild<QComboBox*>(QStringLiteral("rooflineIntensity"));
    QVERIFY(selector);
    QCOMPARE(tabs->cornerWidget(Qt::TopRightCorner), static_cast<QWidget*>(selector));
    QCOMPARE(view.roofline()->chart()->margins().top(), 2); // no room kept for it in the chart
    view.show();
    view.showRoofline(true);
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(view.roofline()));
    QVERIFY(selector->isVisible());
    selector->setCurrentIndex(0);
    QCOMPARE(view.roofline()->intensity(), RooflineChart::Intensity::Compulsory);
    view.showRoofline(false);
    QCOMPARE(tabs->currentIndex(), 0);
    QVERIFY(!selector->isVisible());
    // Both themes: the roofline's chart follows the view's.
    views::applyTheme(*qApp, true);
    view.setDark(true);
    QCOMPARE(view.roofline()->chart()->theme(), QChart::ChartThemeDark);
    QCOMPARE(view.roofline()->chart()->backgroundBrush().color(), QGuiApplication::palette().color(QPalette::Base));
    QCOMPARE(view.roofline()->points().size(), std::size_t(2)); // rebuilt with the theme
    views::applyTheme(*qApp, false);
    view.setDark(false);
    QCOMPARE(view.roofline()->chart()->theme(), QChart::ChartThemeLight);
    // Clearing the rows clears the plot.
    view.restoreRows({});
    QVERIFY(view.roofline()->points().empty());
    QVERIFY(view.roofline()->chart()->title().contains(QStringLiteral("no measured states yet")));
  }
};

QTEST_MAIN(TestRoofline)
#include "tst_roofline.moc"
