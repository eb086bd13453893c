#include "views/roofline_chart.h"

#include <QChart>
#include <QComboBox>
#include <QCursor>
#include <QGraphicsLineItem>
#include <QGraphicsSimpleTextItem>
#include <QGuiApplication>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace loopscape::views {

namespace {

/// 3 significant digits, without an exponent below a million.
QString num(double v) {
  if (std::abs(v) >= 100 && std::abs(v) < 1e6) return QString::number(v, 'f', 0);
  return QString::number(v, 'g', 3);
}

bool sameValue(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

/// Whole decades around [lo, hi] with some room on either side.
std::pair<double, double> decades(double lo, double hi) {
  return {std::pow(10.0, std::floor(std::log10(lo / 3))), std::pow(10.0, std::ceil(std::log10(hi * 3)))};
}

/// "143 MB", "12.3 kB", "576 bytes".
QString bytesText(double v) {
  if (v >= 1e9) return QStringLiteral("%1 GB").arg(num(v / 1e9));
  if (v >= 1e6) return QStringLiteral("%1 MB").arg(num(v / 1e6));
  if (v >= 1e3) return QStringLiteral("%1 kB").arg(num(v / 1e3));
  return QStringLiteral("%1 bytes").arg(num(v));
}

bool hasModeled(const ProfileRow& row) { return row.modeledIntensity && *row.modeledIntensity > 0; }

/// The tooltip of a point plotted at intensity `x` (the compulsory or the modeled one).
QString toolTipOf(const ProfileRow& row, const QString& label, RooflineChart::Intensity shown) {
  const bool modeled = shown == RooflineChart::Intensity::Modeled;
  const double x = modeled ? *row.modeledIntensity : *row.intensity;
  const QString axis = QStringLiteral(" (x axis)");
  QString tip = label;
  tip += QStringLiteral("\narithmetic intensity: %1 FLOP/byte (compulsory bytes)%2")
             .arg(num(*row.intensity), modeled ? QString() : axis);
  if (hasModeled(row)) {
    tip += QStringLiteral("\nmodeled intensity: %1 FLOP/byte (modeled traffic)%2")
               .arg(num(*row.modeledIntensity), modeled ? axis : QString());
    if (row.modeledBytes)
      tip += QStringLiteral("\n  modeled traffic %1 %2")
                 .arg(bytesText(*row.modeledBytes), QString::fromStdString(row.trafficModel));
  } else {
    tip += QStringLiteral("\nmodeled intensity: not recorded for this run");
  }
  tip += QStringLiteral("\nachieved: %1 GFLOP/s").arg(num(row.gflops));
  if (row.percentOfPeak) tip += QStringLiteral(" (%1 % of peak)").arg(num(*row.percentOfPeak));
  if (row.peakGflops && row.bandwidthGBs) {
    const double roof = std::min(*row.peakGflops, *row.bandwidthGBs * x);
    tip +=
        QStringLiteral("\nroof here: %1 GFLOP/s (%2, %3 % of it)")
            .arg(num(roof), roof < *row.peakGflops ? QStringLiteral("memory bound") : QStringLiteral("compute bound"),
                 num(100 * row.gflops / roof));
    tip += QStringLiteral("\npeak %1 GFLOP/s, bandwidth %2 GB/s").arg(num(*row.peakGflops), num(*row.bandwidthGBs));
  }
  tip += QStringLiteral("\nmedian %1 ms, %2").arg(num(row.medianMs), QString::fromStdString(row.message));
  return tip;
}

} // namespace

RooflineChart::RooflineChart(QWidget* parent) : QChartView(new QChart, parent) {
  setObjectName(QStringLiteral("profileRoofline"));
  setRenderHint(QPainter::Antialiasing);
  setMinimumWidth(220);
  QChart* c = chart();
  c->setObjectName(QStringLiteral("profileRooflineChart"));
  c->setMargins(QMargins(2, 2, 2, 2));
  c->setBackgroundRoundness(0);
  // Compact: the dock is short. No legend (the roofs and points carry their own labels).
  c->legend()->hide();
  QFont title = c->titleFont();
  title.setPointSizeF(title.pointSizeF() * 0.9);
  c->setTitleFont(title);
  // The intensity selector, above the title in the top-left corner (placeSelector).
  m_selector = new QComboBox(this);
  m_selector->setObjectName(QStringLiteral("rooflineIntensity"));
  m_selector->addItem(QStringLiteral("Intensity: compulsory bytes"), int(Intensity::Compulsory));
  m_selector->setItemData(0,
                          QStringLiteral("FLOP per byte of the program's parameters, each read or written once: "
                                         "the same for every schedule"),
                          Qt::ToolTipRole);
  m_selector->addItem(QStringLiteral("Intensity: modeled traffic (L2 model)"),
                      int(Intensity::Modeled)); // tip: rebuild()
  m_selector->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  QFont selectorFont = m_selector->font();
  selectorFont.setPointSizeF(selectorFont.pointSizeF() * 0.9);
  m_selector->setFont(selectorFont);
  connect(m_selector, &QComboBox::currentIndexChanged, this,
          [this](int index) { setIntensity(static_cast<Intensity>(m_selector->itemData(index).toInt())); });
  placeSelector();
  connect(c, &QChart::plotAreaChanged, this, [this] { layoutLabels(); });
  setDark(false);
}

void RooflineChart::setRows(const std::vector<ProfileRow>& rows, const QString& programName) {
  m_rows = rows;
  m_programName = programName;
  rebuild();
}

void RooflineChart::setIntensity(Intensity intensity) {
  m_requested = intensity;
  rebuild();
}

void RooflineChart::placeSelector() {
  // Elsewhere (the profile view puts it in its tab bar's corner) it takes no room here.
  const bool here = m_selector->parentWidget() == this;
  if (here) {
    m_selector->adjustSize();
    m_selector->move(4, 3);
  }
  QMargins margins = chart()->margins();
  const int top = here ? m_selector->height() + 3 : 2;
  if (margins.top() == top) return;
  margins.setTop(top);
  chart()->setMargins(margins);
}

void RooflineChart::setDark(bool dark) {
  m_dark = dark;
  chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  const QPalette pal = QGuiApplication::palette();
  chart()->setBackgroundBrush(pal.color(QPalette::Base));
  chart()->setTitleBrush(pal.color(QPalette::Text));
  rebuild();
}

void RooflineChart::rebuild() {
  QChart* c = chart();
  placeSelector();
  for (QGraphicsItem* item : m_labels)
    delete item;
  for (QGraphicsItem* item : m_leaders)
    delete item;
  for (QGraphicsItem* item : m_roofLabels)
    delete item;
  m_labels.clear();
  m_leaders.clear();
  m_roofLabels.clear();
  m_roofSeries.clear();
  c->removeAllSeries();
  m_series = nullptr;
  for (QAbstractAxis* axis : c->axes()) {
    c->removeAxis(axis);
    delete axis;
  }
  m_points.clear();
  m_roofs.clear();
  m_leftOut = 0;

  // The intensity shown: the modeled one when asked for and every point has it.
  const auto plotted = [](const ProfileRow& row) {
    return row.timed() && row.intensity && *row.intensity > 0 && row.gflops > 0;
  };
  const int withoutModel = int(std::count_if(m_rows.begin(), m_rows.end(),
                                             [&](const ProfileRow& row) { return plotted(row) && !hasModeled(row); }));
  const int withModel = int(std::count_if(m_rows.begin(), m_rows.end(),
                                          [&](const ProfileRow& row) { return plotted(row) && hasModeled(row); }));
  m_shown = m_requested == Intensity::Modeled && withoutModel == 0 ? Intensity::Modeled : Intensity::Compulsory;
  {
    const QSignalBlocker block(m_selector);
    if (auto* items = qobject_cast<QStandardItemModel*>(m_selector->model()))
      items->item(1)->setEnabled(withoutModel == 0);
    m_selector->setCurrentIndex(m_selector->findData(int(m_shown)));
    m_selector->setToolTip(withoutModel == 0 ? QString()
                                             : QStringLiteral("%1 run(s) have no modeled traffic (measured before it "
                                                              "was recorded): the compulsory intensity is shown")
                                                   .arg(withoutModel));
  }
  std::string trafficModel;
  for (const ProfileRow& row : m_rows)
    if (plotted(row) && hasModeled(row) && !row.trafficModel.empty()) {
      trafficModel = row.trafficModel;
      break;
    }
  m_selector->setItemData(
      1,
      QStringLiteral("FLOP per byte that this schedule moves between the L2 cache and memory, "
                     "estimated from its loops and accesses%1 (an estimate, not a measurement)")
          .arg(trafficModel.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(trafficModel))),
      Qt::ToolTipRole);

  // The points, labelled as the bar chart labels them (a state measured again is "(2)").
  std::map<QString, int> seen;
  for (const ProfileRow& row : m_rows) {
    if (!row.timed()) continue;
    if (row.peakGflops && row.bandwidthGBs && *row.peakGflops > 0 && *row.bandwidthGBs > 0) {
      const Roof roof{*row.peakGflops, *row.bandwidthGBs};
      if (std::none_of(m_roofs.begin(), m_roofs.end(), [&](const Roof& r) {
            return sameValue(r.peakGflops, roof.peakGflops) && sameValue(r.bandwidthGBs, roof.bandwidthGBs);
          }))
        m_roofs.push_back(roof);
    }
    if (!plotted(row)) {
      ++m_leftOut;
      continue;
    }
    QString label = QString::fromStdString(row.label());
    if (const int n = ++seen[label]; n > 1) label = QStringLiteral("%1 (%2)").arg(label).arg(n);
    const double x = m_shown == Intensity::Modeled ? *row.modeledIntensity : *row.intensity;
    m_points.push_back({x, *row.intensity, row.modeledIntensity, row.gflops, label, toolTipOf(row, label, m_shown)});
  }

  // The axes: whole decades around every point and every knee.
  double xLo = std::numeric_limits<double>::infinity(), xHi = 0;
  double yLo = std::numeric_limits<double>::infinity(), yHi = 0;
  for (const Point& p : m_points) {
    xLo = std::min(xLo, p.intensity);
    xHi = std::max(xHi, p.intensity);
    yLo = std::min(yLo, p.gflops);
    yHi = std::max(yHi, p.gflops);
  }
  for (const Roof& r : m_roofs) {
    xLo = std::min(xLo, r.knee());
    xHi = std::max(xHi, r.knee());
    yHi = std::max(yHi, r.peakGflops);
    if (m_points.empty()) yLo = std::min(yLo, r.peakGflops / 100);
  }
  if (xHi == 0) {
    xLo = 1;
    xHi = 10;
  }
  if (yHi == 0) {
    yLo = 1;
    yHi = 100;
  }
  const auto [x0, x1] = decades(xLo, xHi);
  const auto [y0, y1] = decades(yLo, yHi);

  m_x = new QLogValueAxis;
  m_x->setObjectName(QStringLiteral("rooflineIntensityAxis"));
  m_x->setBase(10);
  m_x->setRange(x0, x1);
  m_x->setLabelFormat(QStringLiteral("%.6g"));
  m_x->setMinorTickCount(8);
  // Short (the dock is small); the selector's and the points' tooltips say more.
  m_x->setTitleText(m_shown == Intensity::Modeled ? QStringLiteral("FLOP per byte of modeled L2 traffic")
                                                  : QStringLiteral("FLOP per compulsory byte"));
  m_y = new QLogValueAxis;
  m_y->setObjectName(QStringLiteral("rooflineGflopsAxis"));
  m_y->setBase(10);
  m_y->setRange(y0, y1);
  m_y->setLabelFormat(QStringLiteral("%.6g"));
  m_y->setMinorTickCount(8);
  m_y->setTitleText(QStringLiteral("GFLOP/s"));
  c->addAxis(m_x, Qt::AlignBottom);
  c->addAxis(m_y, Qt::AlignLeft);
  const QColor text = QGuiApplication::palette().color(QPalette::Text);
  QFont small = c->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  for (QLogValueAxis* axis : {m_x, m_y}) {
    axis->setTitleBrush(text);
    axis->setLabelsBrush(text);
    axis->setTitleFont(small);
    axis->setLabelsFont(small);
    QColor minor = axis->minorGridLineColor();
    minor.setAlphaF(0.25);
    axis->setMinorGridLineColor(minor);
  }

  // The roofs: slanted from the left edge (or where it enters the plot) to the knee, then flat.
  const QColor roofColor = m_dark ? QColor(255, 150, 90) : QColor(196, 64, 40);
  for (const Roof& r : m_roofs) {
    auto* roof = new QLineSeries;
    roof->setName(QStringLiteral("roof: %1 GFLOP/s peak, %2 GB/s (knee %3 FLOP/byte)")
                      .arg(num(r.peakGflops), num(r.bandwidthGBs), num(r.knee())));
    const double start = std::min(std::max(x0, y0 / r.bandwidthGBs), r.knee());
    roof->append(start, r.bandwidthGBs * start);
    roof->append(r.knee(), r.peakGflops);
    roof->append(x1, r.peakGflops);
    QPen pen(roofColor, 2.5);
    if (&r != &m_roofs.front()) pen.setStyle(Qt::DashLine); // a second roof (other core count)
    roof->setPen(pen);
    c->addSeries(roof);
    roof->attachAxis(m_x);
    roof->attachAxis(m_y);
    m_roofSeries.push_back(roof);
    for (const QString& words : {QStringLiteral("peak %1 GFLOP/s").arg(num(r.peakGflops)),
                                 QStringLiteral("%1 GB/s").arg(num(r.bandwidthGBs))}) {
      auto* label = new QGraphicsSimpleTextItem(words, c);
      label->setFont(small);
      label->setBrush(roofColor);
      label->setToolTip(roof->name());
      label->setZValue(9);
      m_roofLabels.push_back(label);
    }
  }

  const QString whose = m_programName.isEmpty() ? QString() : QStringLiteral(" of %1").arg(m_programName);
  QString title = QStringLiteral("Roofline%1").arg(whose);
  if (m_points.empty()) title += QStringLiteral(" (no measured states yet)");
  if (m_leftOut > 0) title += QStringLiteral(" · %1 run(s) without arithmetic intensity not shown").arg(m_leftOut);
  if (m_roofs.empty() && !m_points.empty()) title += QStringLiteral(" · no machine peak: no roof");
  if (m_requested == Intensity::Modeled && withoutModel > 0)
    title += withModel > 0
                 ? QStringLiteral(" · %1 run(s) without modeled traffic: compulsory bytes shown").arg(withoutModel)
                 : QStringLiteral(" · no modeled traffic recorded: compulsory bytes shown");
  c->setTitle(title);

  if (!m_points.empty()) {
    m_series = new QScatterSeries;
    m_series->setObjectName(QStringLiteral("rooflinePoints"));
    m_series->setName(QStringLiteral("measured states (hover for numbers)"));
    m_series->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_series->setMarkerSize(9);
    const QColor pointColor = m_dark ? QColor(80, 160, 255) : QColor(42, 110, 190);
    m_series->setColor(pointColor);
    m_series->setBorderColor(m_dark ? QColor(230, 240, 255) : QColor(20, 50, 100));
    for (const Point& p : m_points)
      m_series->append(p.intensity, p.gflops);
    c->addSeries(m_series);
    m_series->attachAxis(m_x);
    m_series->attachAxis(m_y);
    connect(m_series, &QScatterSeries::hovered, this, &RooflineChart::onHovered);
    for (const Point& p : m_points) {
      auto* label = new QGraphicsSimpleTextItem(p.label, c);
      label->setFont(small);
      label->setBrush(text);
      label->setToolTip(p.toolTip);
      label->setZValue(10);
      m_labels.push_back(label);
    }
  }
  layoutLabels();
}

void RooflineChart::layoutLabels() {
  layoutRoofLabels();
  for (QGraphicsItem* item : m_leaders)
    delete item;
  m_leaders.clear();
  if (!m_series || m_labels.empty()) return;
  QChart* c = chart();
  const QRectF plot = c->plotArea();
  std::vector<QPointF> anchors;
  std::vector<QRectF> wanted; // right of the point, or left when the plot ends there
  constexpr double gap = 7;
  for (std::size_t i = 0; i < m_points.size(); ++i) {
    const QPointF a = c->mapToPosition(QPointF(m_points[i].intensity, m_points[i].gflops), m_series);
    const QSizeF size = m_labels[i]->boundingRect().size();
    QRectF r(QPointF(a.x() + gap, a.y() - size.height() / 2), size);
    if (r.right() > plot.right()) r.moveRight(a.x() - gap);
    anchors.push_back(a);
    wanted.push_back(r);
  }
  std::vector<std::size_t> order(m_points.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return wanted[a].center().y() < wanted[b].center().y(); });
  // Top down, each label moved below the ones it would cover; when that runs out of the
  // plot, bottom up instead.
  // The roofs' peak labels are in place already: the point labels keep off them.
  std::vector<QRectF> obstacles;
  for (std::size_t k = 0; k < m_roofLabels.size(); k += 2)
    obstacles.push_back(m_roofLabels[k]->mapRectToParent(m_roofLabels[k]->boundingRect()));
  const auto place = [&](bool down) {
    std::vector<QRectF> placed(wanted.size());
    std::vector<std::size_t> done;
    double bottom = -1e9, top = 1e9;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::size_t i = down ? order[k] : order[order.size() - 1 - k];
      QRectF r = wanted[i];
      const auto avoid = [&](const QRectF& other) {
        if (!r.intersects(other)) return false;
        if (down)
          r.moveTop(other.bottom() + 1);
        else
          r.moveBottom(other.top() - 1);
        return true;
      };
      for (bool moved = true; moved;) {
        moved = false;
        for (std::size_t j : done)
          moved = avoid(placed[j]) || moved;
        for (const QRectF& o : obstacles)
          moved = avoid(o) || moved;
      }
      placed[i] = r;
      done.push_back(i);
      bottom = std::max(bottom, r.bottom());
      top = std::min(top, r.top());
    }
    return std::pair{placed, down ? bottom <= plot.bottom() : top >= plot.top()};
  };
  auto [placed, fits] = place(true);
  if (!fits) {
    auto [up, upFits] = place(false);
    if (upFits) placed = up;
  }
  const QColor leader = QGuiApplication::palette().color(QPalette::PlaceholderText);
  for (std::size_t i = 0; i < placed.size(); ++i) {
    const QRectF& r = placed[i];
    m_labels[i]->setPos(r.topLeft());
    if (std::abs(r.center().y() - anchors[i].y()) <= r.height() / 2) continue;
    const double x = r.left() > anchors[i].x() ? r.left() - 1 : r.right() + 1;
    auto* line = new QGraphicsLineItem(QLineF(anchors[i], QPointF(x, r.center().y())), c);
    line->setPen(QPen(leader, 0.8));
    line->setZValue(8);
    m_leaders.push_back(line);
  }
}

void RooflineChart::layoutRoofLabels() {
  QChart* c = chart();
  const QRectF plot = c->plotArea();
  for (std::size_t k = 0; k < m_roofSeries.size() && 2 * k + 1 < m_roofLabels.size(); ++k) {
    const QList<QPointF> pts = m_roofSeries[k]->points();
    QGraphicsSimpleTextItem* peak = m_roofLabels[2 * k];
    QGraphicsSimpleTextItem* bandwidth = m_roofLabels[2 * k + 1];
    const QPointF start = c->mapToPosition(pts[0], m_roofSeries[k]);
    const QPointF knee = c->mapToPosition(pts[1], m_roofSeries[k]);
    // The peak: right-aligned above the flat part.
    const QSizeF size = peak->boundingRect().size();
    peak->setPos(plot.right() - size.width() - 4, knee.y() - size.height() - 1);
    // The bandwidth: along the slope, above it, when the slope on screen is long enough.
    const QLineF slope(start, knee);
    const QSizeF bwSize = bandwidth->boundingRect().size();
    bandwidth->setVisible(slope.length() > bwSize.width() + 16);
    if (!bandwidth->isVisible()) continue;
    bandwidth->setRotation(-slope.angle());
    const QPointF mid = slope.pointAt(0.5);
    const QLineF normal = slope.normalVector().unitVector(); // pointing up-left of the line
    const QPointF along = (slope.p2() - slope.p1()) / slope.length();
    bandwidth->setPos(mid - along * bwSize.width() / 2 + (normal.p2() - normal.p1()) * (bwSize.height() + 1));
  }
}

void RooflineChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  placeSelector();
  layoutLabels();
}

QString RooflineChart::toolTipAt(const QPointF& value) const {
  if (m_points.empty() || value.x() <= 0 || value.y() <= 0) return {};
  const auto distance = [&](const Point& p) {
    return std::hypot(std::log10(p.intensity / value.x()), std::log10(p.gflops / value.y()));
  };
  const auto nearest = std::min_element(m_points.begin(), m_points.end(),
                                        [&](const Point& a, const Point& b) { return distance(a) < distance(b); });
  return nearest->toolTip;
}

void RooflineChart::onHovered(const QPointF& point, bool state) {
  if (!state) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(QCursor::pos(), toolTipAt(point), this);
}

} // namespace loopscape::views
