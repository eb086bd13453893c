#include "views/iteration_space_view.h"

#include "core/schedule/ir_tree.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QRegularExpression>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace loopscape::views {

namespace {

constexpr double kLeft = 44, kTop = 36, kRight = 14, kBottom = 24; ///< margins for the axis labels
constexpr double kMinScale = 0.25, kMaxScale = 96, kFitMaxScale = 44;
/// Below kReadable pixels per instance, fitting takes the short axis at up to kReadableFit.
constexpr double kReadable = 4, kReadableFit = 40;

QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

QColor arrowColor(const std::string& kind, bool dark) {
  if (kind == "WAR") return dark ? QColor(110, 160, 255) : QColor(40, 90, 210);
  if (kind == "WAW") return dark ? QColor(90, 200, 110) : QColor(30, 140, 60);
  return dark ? QColor(175, 175, 175) : QColor(110, 110, 110); // RAW
}

const QColor kCurrent(255, 127, 14);  ///< the running instance(s)
const QColor kSameWave(23, 190, 207); ///< instances of the running one's wavefront still to run
const QColor kViolated(220, 30, 30);  ///< the counterexample

/// A label step (1, 2, 5, 10, 20, 50, ...) that keeps labels at least `minPixels` apart.
std::int64_t labelStep(double scale, double minPixels) {
  for (std::int64_t s = 1; s < (std::int64_t(1) << 50); s *= 10)
    for (std::int64_t m : {1, 2, 5})
      if (static_cast<double>(s * m) * scale >= minPixels) return s * m;
  return std::int64_t(1) << 50;
}

/// The colour ramp of the keys (viridis; lighter at the start on the dark theme), t in [0, 1].
QColor rampColor(double t, bool dark) {
  static const QColor light[] = {QColor(68, 1, 84), QColor(59, 82, 139), QColor(33, 145, 140), QColor(94, 201, 98),
                                 QColor(253, 231, 37)};
  static const QColor darkStops[] = {QColor(130, 90, 200), QColor(70, 130, 200), QColor(33, 165, 150),
                                     QColor(122, 209, 81), QColor(253, 231, 37)};
  const QColor* stops = dark ? darkStops : light;
  const double at = std::clamp(t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(at));
  return mix(stops[i], stops[i + 1], at - i);
}

void drawArrowHead(QPainter& p, QPointF from, QPointF to, double size) {
  const QPointF d = to - from;
  const double len = std::hypot(d.x(), d.y());
  if (len < 1e-6) return;
  const QPointF u = d / len, n(-u.y(), u.x());
  QPolygonF head;
  head << to << to - u * size + n * size * 0.5 << to - u * size - n * size * 0.5;
  p.drawPolygon(head);
}

} // namespace

// ---------------------------------------------------------------- canvas

IterationSpaceCanvas::IterationSpaceCanvas(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("spaceCanvas"));
  setMouseTracking(true);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void IterationSpaceCanvas::setDrawing(std::shared_ptr<const SpaceDrawing> drawing) {
  const bool sameSlice = m_drawing && drawing && m_drawing->space.xName == drawing->space.xName &&
                         m_drawing->space.yName == drawing->space.yName &&
                         m_drawing->space.xMin == drawing->space.xMin && m_drawing->space.yMin == drawing->space.yMin;
  m_drawing = std::move(drawing);
  m_hover = -1;
  countKeys();
  m_time = keyCount();
  if (m_fitted || !sameSlice) zoomToFit();
  update();
}

void IterationSpaceCanvas::setMessage(const QString& message) {
  m_message = message;
  m_drawing.reset();
  countKeys();
  m_hover = -1;
  update();
}

void IterationSpaceCanvas::setColoring(SpaceColoring coloring) {
  m_coloring = coloring;
  countKeys();
  m_time = keyCount();
  update();
}

void IterationSpaceCanvas::setTime(std::int64_t time) {
  m_time = std::clamp<std::int64_t>(time, 0, keyCount());
  update();
}

std::int64_t IterationSpaceCanvas::keyOf(int index) const {
  const poly::SpaceInstance& inst = m_drawing->space.instances[static_cast<std::size_t>(index)];
  switch (m_coloring) {
  case SpaceColoring::Order: return inst.order;
  case SpaceColoring::Wavefront: return inst.wavefront;
  case SpaceColoring::ParallelStep: return inst.parallelStep;
  }
  return inst.order;
}

void IterationSpaceCanvas::countKeys() {
  m_keys = 0;
  if (!m_drawing || m_drawing->space.instances.empty()) return;
  for (int i = 0; i < static_cast<int>(m_drawing->space.instances.size()); ++i)
    m_keys = std::max(m_keys, keyOf(i));
  ++m_keys;
}

void IterationSpaceCanvas::setDark(bool dark) {
  m_dark = dark;
  update();
}

void IterationSpaceCanvas::zoomToFit() {
  m_fitted = true;
  if (!m_drawing || m_drawing->space.instances.empty()) return;
  const poly::IterationSpace& s = m_drawing->space;
  const double nx = static_cast<double>(s.xMax - s.xMin + 1), ny = static_cast<double>(s.yMax - s.yMin + 1);
  const double w = std::max(1.0, width() - kLeft - kRight), h = std::max(1.0, height() - kTop - kBottom);
  m_scale = std::min(w / nx, h / ny);
  // A long thin slice (1024 x 4) fitted whole has cells of a pixel: fit the short axis
  // instead, at a readable size, and let the long one be panned from its start.
  if (m_scale < kReadable) m_scale = std::min(kReadableFit, std::max(w / nx, h / ny));
  m_scale = std::clamp(m_scale, kMinScale, kFitMaxScale);
  // Centred across, at the top: a slice that does not fit starts at its first row.
  m_origin = QPointF(kLeft + m_scale / 2 + std::max(0.0, (w - nx * m_scale) / 2), kTop + m_scale / 2);
  update();
}

bool IterationSpaceCanvas::isWhole() const {
  if (!m_drawing || m_drawing->space.instances.empty()) return true;
  const poly::IterationSpace& s = m_drawing->space;
  const QPointF a = pointPosition(static_cast<double>(s.xMin), static_cast<double>(s.yMin));
  const QPointF b = pointPosition(static_cast<double>(s.xMax), static_cast<double>(s.yMax));
  return a.x() >= kLeft - 1 && a.y() >= kTop - 1 && b.x() <= width() - kRight + 1 && b.y() <= height() - kBottom + 1;
}

QPointF IterationSpaceCanvas::pointPosition(double x, double y) const {
  if (!m_drawing) return {};
  return m_origin + QPointF((x - static_cast<double>(m_drawing->space.xMin)) * m_scale,
                            (y - static_cast<double>(m_drawing->space.yMin)) * m_scale);
}

QPointF IterationSpaceCanvas::instancePosition(int index) const {
  const poly::SpaceInstance& inst = m_drawing->space.instances[static_cast<std::size_t>(index)];
  return pointPosition(static_cast<double>(inst.x), static_cast<double>(inst.y));
}

int IterationSpaceCanvas::instanceAt(QPointF pos) const {
  if (!m_drawing || m_drawing->space.instances.empty()) return -1;
  const QPointF rel = (pos - m_origin) / m_scale;
  const std::int64_t x = m_drawing->space.xMin + std::llround(rel.x());
  const std::int64_t y = m_drawing->space.yMin + std::llround(rel.y());
  // Within the dot's cell, and not past its border by more than the dot itself when zoomed out.
  const QPointF d = pos - pointPosition(static_cast<double>(x), static_cast<double>(y));
  const double reach = std::max(m_scale / 2, 3.0);
  if (std::abs(d.x()) > reach || std::abs(d.y()) > reach) return -1;
  const auto& all = m_drawing->space.instances;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].x == x && all[i].y == y) return static_cast<int>(i);
  return -1;
}

QString IterationSpaceCanvas::describeInstance(int index) const {
  if (!m_drawing || index < 0 || index >= static_cast<int>(m_drawing->space.instances.size())) return {};
  const poly::IterationSpace& s = m_drawing->space;
  const poly::SpaceInstance& inst = s.instances[static_cast<std::size_t>(index)];
  QStringList its, loops;
  for (std::size_t i = 0; i < s.iterators.size() && i < inst.iterators.size(); ++i)
    its << QStringLiteral("%1=%2").arg(QString::fromStdString(s.iterators[i])).arg(inst.iterators[i]);
  for (std::size_t i = 0; i < s.loops.size() && i < inst.loops.size(); ++i)
    loops << QStringLiteral("%1=%2").arg(QString::fromStdString(s.loops[i])).arg(inst.loops[i]);
  QString text = QStringLiteral("<b>%1</b>(%2)<br>%3 = %4, %5 = %6<br>loops: %7<br>execution rank %8 of %9%10")
                     .arg(QString::fromStdString(s.statement).toHtmlEscaped(), its.join(QStringLiteral(", ")),
                          QString::fromStdString(s.xName))
                     .arg(inst.x)
                     .arg(QString::fromStdString(s.yName))
                     .arg(inst.y)
                     .arg(loops.join(QStringLiteral(", ")))
                     .arg(inst.order)
                     .arg(s.instances.size())
                     .arg(m_drawing->preview ? QStringLiteral(" (after the step)") : QString());
  text += QStringLiteral("<br>wavefront %1 of %2 · parallel step %3 of %4")
              .arg(inst.wavefront)
              .arg(s.wavefronts)
              .arg(inst.parallelStep)
              .arg(s.parallelSteps);
  if (const auto& c = m_drawing->counterexample) {
    if (c->source.index == index) text += QStringLiteral("<br><b>S</b>: the dependence's source");
    if (c->sink.index == index)
      text += QStringLiteral("<br><b>T</b>: the dependence's sink, run before S after the step");
  }
  return text;
}

QColor IterationSpaceCanvas::keyColor(std::int64_t key) const {
  const std::int64_t n = keyCount();
  return rampColor(n <= 1 ? 0.0 : static_cast<double>(key) / static_cast<double>(n - 1), m_dark);
}

void IterationSpaceCanvas::paintArrows(QPainter& p, const QRectF& visible) {
  const poly::IterationSpace& s = m_drawing->space;
  const int violated = m_drawing->counterexample ? m_drawing->counterexample->arrow : -1;
  const double r = std::clamp(m_scale * 0.3, 0.8, 12.0);
  const bool heads = m_scale >= 10;
  const double width = m_scale >= 24 ? 1.6 : 1.0;
  for (std::size_t a = 0; a < s.arrows.size() && m_arrowsPainted < 40000; ++a) {
    if (static_cast<int>(a) == violated) continue;
    const poly::SpaceArrow& arrow = s.arrows[a];
    const QPointF from = instancePosition(arrow.source), to = instancePosition(arrow.sink);
    if (!visible.intersects(QRectF(from, to).normalized().adjusted(-1, -1, 1, 1))) continue;
    const QPointF d = to - from;
    const double len = std::hypot(d.x(), d.y());
    if (len <= 2 * r) continue;
    const QPointF u = d / len;
    QColor c = arrowColor(arrow.kind, m_dark);
    c.setAlpha(190);
    p.setPen(QPen(c, width));
    p.setBrush(c);
    const QPointF a0 = from + u * r, a1 = to - u * (r + 1);
    p.drawLine(a0, a1);
    if (heads) drawArrowHead(p, a0, a1, std::min(m_scale * 0.28, 8.0));
    ++m_arrowsPainted;
  }
}

void IterationSpaceCanvas::paintAxes(QPainter& p) const {
  const poly::IterationSpace& s = m_drawing->space;
  const QColor base = palette().color(QPalette::Base), text = palette().color(QPalette::Text);
  // Bands behind the labels, so that a panned picture never runs under them.
  p.setPen(Qt::NoPen);
  p.setBrush(base);
  p.drawRect(QRectF(0, 0, width(), kTop - 4));
  p.drawRect(QRectF(0, 0, kLeft - 6, height()));
  p.setPen(mix(text, base, 0.35));
  QFont f = font();
  f.setPointSizeF(std::max(6.5, f.pointSizeF() - 1.5));
  p.setFont(f);
  const QFontMetricsF fm(f);
  const double labelWidth = fm.horizontalAdvance(QString::number(std::max(std::abs(s.xMax), std::abs(s.xMin)))) + 8;
  const std::int64_t xStep = labelStep(m_scale, std::max(22.0, labelWidth));
  for (std::int64_t x = s.xMin + ((xStep - (s.xMin % xStep)) % xStep); x <= s.xMax; x += xStep) {
    const double px = pointPosition(static_cast<double>(x), 0).x();
    if (px < kLeft - 2 || px > width()) continue;
    p.drawText(QRectF(px - 30, kTop - 4 - fm.height(), 60, fm.height()), Qt::AlignCenter, QString::number(x));
  }
  const std::int64_t yStep = labelStep(m_scale, fm.height() + 4);
  for (std::int64_t y = s.yMin + ((yStep - (s.yMin % yStep)) % yStep); y <= s.yMax; y += yStep) {
    const double py = pointPosition(0, static_cast<double>(y)).y();
    if (py < kTop - 2 || py > height()) continue;
    p.drawText(QRectF(0, py - fm.height() / 2, kLeft - 10, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               QString::number(y));
  }
  // Axis names in the corner: x runs right, y runs down.
  QFont bold = f;
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(text);
  p.drawText(QRectF(4, 2, width() - 8, fm.height()), Qt::AlignLeft | Qt::AlignTop,
             QStringLiteral("x: %1 →   y: %2 ↓%3")
                 .arg(QString::fromStdString(s.xName), QString::fromStdString(s.yName),
                      isWhole() ? QString() : QStringLiteral("   (drag to pan, wheel to zoom, Fit)")));
}

void IterationSpaceCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, true);
  m_arrowsPainted = 0;
  const QColor base = palette().color(QPalette::Base), text = palette().color(QPalette::Text);
  p.fillRect(rect(), base);
  if (!m_drawing || m_drawing->space.instances.empty()) {
    p.setPen(mix(text, base, 0.25));
    const QString message = m_drawing ? QString::fromStdString(m_drawing->space.message) : m_message;
    p.drawText(rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap,
               message.isEmpty() ? QStringLiteral("No instances to draw.") : message);
    return;
  }
  const poly::IterationSpace& s = m_drawing->space;
  const QRectF visible(QPointF(kLeft - 8, kTop - 8), QPointF(width(), height()));
  p.setClipRect(visible);

  // Tiles: alternate light fills and a dashed outline.
  const double half = 0.45;
  for (std::size_t t = 0; t < s.tiles.size(); ++t) {
    const poly::SpaceTile& tile = s.tiles[t];
    const QRectF box(pointPosition(static_cast<double>(tile.xMin) - half, static_cast<double>(tile.yMin) - half),
                     pointPosition(static_cast<double>(tile.xMax) + half, static_cast<double>(tile.yMax) + half));
    if (!visible.intersects(box)) continue;
    QColor fill = m_dark ? QColor(255, 255, 255) : QColor(0, 60, 160);
    fill.setAlpha(t % 2 == 0 ? (m_dark ? 16 : 14) : 0);
    p.setBrush(fill);
    QPen pen(mix(text, base, 0.45), 1.2, Qt::DashLine);
    p.setPen(pen);
    p.drawRect(box);
  }

  if (m_scale >= 5) paintArrows(p, visible);

  // Dots.
  const double r = std::clamp(m_scale * 0.3, 0.8, 12.0);
  const bool animating = m_time < keyCount();
  std::int64_t currentWave = -1;
  if (animating && m_coloring == SpaceColoring::Order)
    for (const poly::SpaceInstance& inst : s.instances)
      if (inst.order == m_time) currentWave = inst.wavefront;
  const QColor pending = mix(text, base, 0.55);
  // Numbers inside the dots when they fit: the font is sized for the widest key.
  QFont numbers = font();
  numbers.setPointSizeF(11);
  const QString widest = QString(QString::number(std::max<std::int64_t>(0, keyCount() - 1)).size(), u'8');
  const double fullWidth = QFontMetricsF(numbers).horizontalAdvance(widest);
  numbers.setPointSizeF(std::min(11.0, 11.0 * (2 * r - 2) / std::max(1.0, fullWidth)));
  const bool labels = m_scale >= 20 && numbers.pointSizeF() >= 5.5;
  if (labels) p.setFont(numbers);
  for (int i = 0; i < static_cast<int>(s.instances.size()); ++i) {
    const QPointF c = instancePosition(i);
    if (!visible.adjusted(-r, -r, r, r).contains(c)) continue;
    const std::int64_t key = keyOf(i);
    const QColor color = keyColor(key);
    if (m_scale < 2.5) { // zoomed far out: a pixel block per instance
      const double side = std::max(1.0, m_scale * 0.8);
      p.fillRect(QRectF(c.x() - side / 2, c.y() - side / 2, side, side), key < m_time || !animating ? color : pending);
      continue;
    }
    if (animating && key > m_time) {
      p.setPen(QPen(pending, 1));
      p.setBrush(Qt::NoBrush);
    } else {
      p.setPen(Qt::NoPen);
      p.setBrush(color);
    }
    p.drawEllipse(c, r, r);
    if (animating && key == m_time) {
      p.setPen(QPen(kCurrent, std::max(1.5, r * 0.3)));
      p.setBrush(Qt::NoBrush);
      p.drawEllipse(c, r + 2.5, r + 2.5);
    } else if (currentWave >= 0 && key > m_time && s.instances[static_cast<std::size_t>(i)].wavefront == currentWave) {
      p.setPen(QPen(kSameWave, std::max(1.5, r * 0.3)));
      p.setBrush(Qt::NoBrush);
      p.drawEllipse(c, r + 1.5, r + 1.5);
    }
    if (labels) {
      const bool filled = !(animating && key > m_time);
      p.setPen(filled ? (color.lightnessF() > 0.55 ? QColor(20, 20, 20) : QColor(250, 250, 250)) : pending);
      p.drawText(QRectF(c.x() - r * 1.5, c.y() - r, r * 3, r * 2), Qt::AlignCenter, QString::number(key));
    }
  }

  // The counterexample on top: its arrow red, its pair ringed red with S and T.
  if (const auto& ce = m_drawing->counterexample) {
    const int src = ce->source.index, snk = ce->sink.index;
    if (src >= 0 && snk >= 0) {
      const QPointF from = instancePosition(src), to = instancePosition(snk);
      const QPointF d = to - from;
      const double len = std::hypot(d.x(), d.y());
      QPen pen(kViolated, std::clamp(m_scale * 0.12, 2.0, 4.0));
      if (ce->arrow < 0) pen.setStyle(Qt::DashLine);
      p.setPen(pen);
      p.setBrush(kViolated);
      if (len > 2 * r) {
        const QPointF u = d / len;
        p.drawLine(from + u * r, to - u * (r + 2));
        drawArrowHead(p, from + u * r, to - u * (r + 2), std::clamp(m_scale * 0.35, 7.0, 12.0));
      }
    }
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    for (const auto& [index, name] : {std::pair{src, QStringLiteral("S")}, std::pair{snk, QStringLiteral("T")}}) {
      if (index < 0) continue;
      const QPointF c = instancePosition(index);
      const double ring = std::max(r + 3, 6.0);
      p.setPen(QPen(kViolated, 2.5));
      p.setBrush(Qt::NoBrush);
      p.drawEllipse(c, ring, ring);
      // The letter on a patch of background, readable over the arrows.
      const QFontMetricsF fm(bold);
      const QRectF box(c.x() + ring * 0.6, c.y() - ring * 0.6 - fm.height(), fm.horizontalAdvance(name) + 4,
                       fm.height());
      p.fillRect(box, base);
      p.drawText(box, Qt::AlignCenter, name);
    }
  }

  if (m_hover >= 0 && m_hover < static_cast<int>(s.instances.size())) {
    const QPointF c = instancePosition(m_hover);
    p.setPen(QPen(text, 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(c, std::max(r + 2, 4.0), std::max(r + 2, 4.0));
  }
  p.setClipping(false);
  paintAxes(p);
  paintLegend(p);
}

void IterationSpaceCanvas::paintLegend(QPainter& p) const {
  const QColor base = palette().color(QPalette::Base), text = palette().color(QPalette::Text);
  const double top = height() - kBottom + 4;
  p.setPen(Qt::NoPen);
  p.setBrush(base);
  p.drawRect(QRectF(0, height() - kBottom, width(), kBottom));
  QFont f = font();
  f.setPointSizeF(std::max(6.5, f.pointSizeF() - 1.5));
  p.setFont(f);
  const QFontMetricsF fm(f);
  double x = 6;
  const double mid = top + fm.height() / 2;
  auto label = [&](const QString& s) {
    p.setPen(mix(text, base, 0.2));
    p.drawText(QPointF(x, top + fm.ascent()), s);
    x += fm.horizontalAdvance(s) + 10;
  };
  // The ramp: first to last.
  for (int i = 0; i < 24; ++i)
    p.fillRect(QRectF(x + i * 2, mid - 4, 2, 8), rampColor(i / 23.0, m_dark));
  x += 52;
  label(m_coloring == SpaceColoring::Order       ? QStringLiteral("first → last run")
        : m_coloring == SpaceColoring::Wavefront ? QStringLiteral("first → last wavefront")
                                                 : QStringLiteral("first → last parallel step"));
  for (const char* kind : {"RAW", "WAR", "WAW"}) {
    p.setPen(QPen(arrowColor(kind, m_dark), 2));
    p.drawLine(QPointF(x, mid), QPointF(x + 16, mid));
    x += 20;
    label(QString::fromLatin1(kind));
  }
  if (!m_drawing->space.tiles.empty()) {
    p.setPen(QPen(mix(text, base, 0.45), 1.2, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(x, mid - 5, 16, 10));
    x += 20;
    label(QStringLiteral("tile"));
  }
  if (m_time < keyCount()) {
    p.setPen(QPen(kCurrent, 2));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(QPointF(x + 5, mid), 5, 5);
    x += 14;
    label(QStringLiteral("running"));
    if (m_coloring == SpaceColoring::Order) {
      p.setPen(QPen(kSameWave, 2));
      p.drawEllipse(QPointF(x + 5, mid), 5, 5);
      x += 14;
      label(QStringLiteral("its wavefront"));
    }
  }
  if (m_drawing->counterexample) {
    p.setPen(QPen(kViolated, 2));
    p.drawLine(QPointF(x, mid), QPointF(x + 16, mid));
    x += 20;
    label(QStringLiteral("violated"));
  }
}

void IterationSpaceCanvas::resizeEvent(QResizeEvent*) {
  if (m_fitted) zoomToFit();
}

void IterationSpaceCanvas::wheelEvent(QWheelEvent* event) {
  if (!m_drawing) return;
  const double factor = std::pow(1.0015, event->angleDelta().y());
  const double scale = std::clamp(m_scale * factor, kMinScale, kMaxScale);
  const QPointF at = event->position();
  m_origin = at - (at - m_origin) * (scale / m_scale);
  m_scale = scale;
  m_fitted = false;
  update();
  event->accept();
}

void IterationSpaceCanvas::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  m_dragging = true;
  m_dragFrom = event->position().toPoint();
  setCursor(Qt::ClosedHandCursor);
}

void IterationSpaceCanvas::mouseMoveEvent(QMouseEvent* event) {
  if (m_dragging) {
    const QPoint now = event->position().toPoint();
    m_origin += QPointF(now - m_dragFrom);
    m_dragFrom = now;
    m_fitted = false;
    update();
    return;
  }
  const int hover = instanceAt(event->position());
  if (hover != m_hover) {
    m_hover = hover;
    update();
  }
}

void IterationSpaceCanvas::mouseReleaseEvent(QMouseEvent*) {
  m_dragging = false;
  unsetCursor();
}

void IterationSpaceCanvas::mouseDoubleClickEvent(QMouseEvent*) { zoomToFit(); }

bool IterationSpaceCanvas::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int index = instanceAt(help->pos());
    if (index >= 0)
      QToolTip::showText(help->globalPos(), describeInstance(index), this);
    else
      QToolTip::hideText();
    return true;
  }
  if (event->type() == QEvent::Leave && m_hover >= 0) {
    m_hover = -1;
    update();
  }
  return QWidget::event(event);
}

// ---------------------------------------------------------------- view

IterationSpaceView::IterationSpaceView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("iterationSpaceView"));
  m_banner = new QLabel(this);
  m_banner->setObjectName(QStringLiteral("spacePreviewBanner"));
  m_banner->setWordWrap(true);
  m_banner->setTextFormat(Qt::RichText);
  m_banner->setAutoFillBackground(true);
  m_banner->setContentsMargins(6, 3, 6, 3);
  m_banner->hide();
  connect(m_banner, &QLabel::linkActivated, this, [this] { leavePreview(); });

  m_blockLabel = new QLabel(this);
  m_blockLabel->setObjectName(QStringLiteral("spaceBlock"));
  m_blockLabel->setTextFormat(Qt::RichText);
  m_xCombo = new QComboBox(this);
  m_xCombo->setObjectName(QStringLiteral("spaceAxisX"));
  m_xCombo->setToolTip(QStringLiteral("The horizontal axis: a loop around the block, or one of its block iterators "
                                      "(an iterator keeps the original coordinates through split, tile and skew)"));
  m_yCombo = new QComboBox(this);
  m_yCombo->setObjectName(QStringLiteral("spaceAxisY"));
  m_yCombo->setToolTip(QStringLiteral("The vertical axis (downwards)"));
  m_sizes = new QLineEdit(this);
  m_sizes->setObjectName(QStringLiteral("spaceSizes"));
  m_sizes->setToolTip(QStringLiteral("Values of the program's symbolic sizes, e.g. n=8, m=8 (small values keep the "
                                     "picture readable)"));
  m_coloringCombo = new QComboBox(this);
  m_coloringCombo->setObjectName(QStringLiteral("spaceColoring"));
  m_coloringCombo->addItem(QStringLiteral("execution order"));
  m_coloringCombo->addItem(QStringLiteral("wavefront"));
  m_coloringCombo->addItem(QStringLiteral("parallel step"));
  m_coloringCombo->setToolTip(
      QStringLiteral("What the colour and the animation follow: the rank in the execution order of the schedule; the "
                     "dependence wavefront (instances of one wavefront have no dependence path between them); the "
                     "time step under the loops marked parallel or vectorized"));
  m_fit = new QToolButton(this);
  m_fit->setObjectName(QStringLiteral("spaceFit"));
  m_fit->setText(QStringLiteral("Fit"));
  m_fit->setToolTip(QStringLiteral("Zoom to fit (or double-click the picture); the wheel zooms, dragging pans"));
  m_previewButton = new QToolButton(this);
  m_previewButton->setObjectName(QStringLiteral("spacePreviewStep"));
  m_previewButton->setText(QStringLiteral("Preview step"));
  m_previewButton->setToolTip(
      QStringLiteral("Show the picture under the step the Primitives form would apply, before applying it"));

  auto* axes = new QHBoxLayout;
  axes->setContentsMargins(0, 0, 0, 0);
  axes->addWidget(m_blockLabel, 1);
  axes->addWidget(new QLabel(QStringLiteral("x"), this));
  axes->addWidget(m_xCombo);
  axes->addWidget(new QLabel(QStringLiteral("y"), this));
  axes->addWidget(m_yCombo);
  auto* options = new QHBoxLayout;
  options->setContentsMargins(0, 0, 0, 0);
  m_sizesLabel = new QLabel(QStringLiteral("Sizes"), this);
  options->addWidget(m_sizesLabel);
  options->addWidget(m_sizes, 1);
  options->addWidget(new QLabel(QStringLiteral("Colour"), this));
  options->addWidget(m_coloringCombo);
  options->addWidget(m_fit);
  options->addWidget(m_previewButton);
  options->addStretch();

  m_sliderHost = new QWidget(this);
  m_sliderHost->setObjectName(QStringLiteral("spaceSliders"));
  m_sliderLayout = new QHBoxLayout(m_sliderHost);
  m_sliderLayout->setContentsMargins(0, 0, 0, 0);

  m_canvas = new IterationSpaceCanvas(this);

  m_play = new QToolButton(this);
  m_play->setObjectName(QStringLiteral("spacePlay"));
  m_play->setText(QStringLiteral("▶ Play"));
  m_play->setToolTip(QStringLiteral("Play the execution order (in the colour's unit)"));
  m_step = new QToolButton(this);
  m_step->setObjectName(QStringLiteral("spaceStep"));
  m_step->setText(QStringLiteral("Step ▸"));
  m_step->setToolTip(QStringLiteral("One instance (wavefront, parallel step) further"));
  m_timeSlider = new QSlider(Qt::Horizontal, this);
  m_timeSlider->setObjectName(QStringLiteral("spaceTime"));
  m_timeLabel = new QLabel(this);
  m_timeLabel->setObjectName(QStringLiteral("spaceTimeLabel"));
  m_timeLabel->setMinimumWidth(m_timeLabel->fontMetrics().horizontalAdvance(QStringLiteral("wavefront 0000 / 0000")));
  auto* animation = new QHBoxLayout;
  animation->setContentsMargins(0, 0, 0, 0);
  animation->addWidget(m_play);
  animation->addWidget(m_step);
  animation->addWidget(m_timeSlider, 1);
  animation->addWidget(m_timeLabel);

  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("spaceStatus"));
  m_status->setWordWrap(true);
  m_status->setTextFormat(Qt::RichText);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(3);
  layout->addWidget(m_banner);
  layout->addLayout(axes);
  layout->addLayout(options);
  layout->addWidget(m_sliderHost);
  layout->addWidget(m_canvas, 1);
  layout->addLayout(animation);
  layout->addWidget(m_status);

  m_timer = new QTimer(this);
  m_timer->setInterval(40);
  connect(m_timer, &QTimer::timeout, this, &IterationSpaceView::tick);
  m_requestTimer = new QTimer(this);
  m_requestTimer->setSingleShot(true);
  m_requestTimer->setInterval(150);
  connect(m_requestTimer, &QTimer::timeout, this, [this] { Q_EMIT requestChanged(); });

  connect(m_xCombo, &QComboBox::activated, this, [this] {
    m_fixed.clear();
    scheduleRequest();
  });
  connect(m_yCombo, &QComboBox::activated, this, [this] {
    m_fixed.clear();
    scheduleRequest();
  });
  connect(m_sizes, &QLineEdit::editingFinished, this, [this] { scheduleRequest(); });
  connect(m_coloringCombo, &QComboBox::currentIndexChanged, this,
          [this](int i) { setColoring(static_cast<SpaceColoring>(i)); });
  connect(m_fit, &QToolButton::clicked, m_canvas, &IterationSpaceCanvas::zoomToFit);
  connect(m_previewButton, &QToolButton::clicked, this, [this] { Q_EMIT previewStepRequested(); });
  connect(m_play, &QToolButton::clicked, this, [this] { isPlaying() ? pause() : play(); });
  connect(m_step, &QToolButton::clicked, this, &IterationSpaceView::stepForward);
  connect(m_timeSlider, &QSlider::valueChanged, this, [this](int v) {
    if (v == m_canvas->time()) return;
    m_canvas->setTime(v);
    updateAnimationControls();
  });
  setSelection(nullptr, -1);
}

std::vector<std::string> IterationSpaceView::blockLoops() const {
  std::vector<std::string> out;
  if (!m_snapshot) return out;
  const int b = m_snapshot->find(NodeInfo::Kind::Block, m_block.toStdString());
  if (b < 0) return out;
  for (int l : m_snapshot->nodes[static_cast<std::size_t>(b)].loopsAbove)
    out.push_back(m_snapshot->nodes[static_cast<std::size_t>(l)].name);
  return out;
}

std::vector<std::string> IterationSpaceView::blockIterators() const {
  std::vector<std::string> out;
  if (!m_snapshot || !m_snapshot->state) return out;
  const int b = m_snapshot->find(NodeInfo::Kind::Block, m_block.toStdString());
  if (b < 0) return out;
  const schedule::TreeNode* tn = m_snapshot->state->tree().find(m_snapshot->nodes[static_cast<std::size_t>(b)].node);
  if (tn == nullptr || !tn->isBlock()) return out;
  for (const ir::IterVar& iv : tn->block()->iterVars)
    if (const auto* v = iv.var.as<ir::Var>()) out.push_back(v->name);
  return out;
}

void IterationSpaceView::setSelection(std::shared_ptr<const ProgramSnapshot> snapshot, int index) {
  QString block;
  if (snapshot && index >= 0 && index < static_cast<int>(snapshot->nodes.size())) {
    const NodeInfo& n = snapshot->nodes[static_cast<std::size_t>(index)];
    if (n.kind == NodeInfo::Kind::Block && !n.isRoot)
      block = QString::fromStdString(n.name);
    else if (n.kind == NodeInfo::Kind::Loop && !n.blocksBelow.empty())
      block = QString::fromStdString(n.blocksBelow.front());
  }
  // Nothing selected in the same program: keep the block shown.
  if (block.isEmpty() && snapshot && m_snapshot && snapshot->func.body.sameAs(m_snapshot->func.body)) return;
  const bool sameProgram = snapshot && m_snapshot && snapshot->sameProgramAs(*m_snapshot);
  if (sameProgram && block == m_block) {
    m_snapshot = std::move(snapshot); // the analysed snapshot of the same program
    return;
  }
  const bool sameBlock = block == m_block;
  const QString oldX = axisX(), oldY = axisY();
  const std::vector<std::string> oldSizes = m_snapshot ? [&] {
    std::vector<std::string> names;
    for (const ir::Expr& v : m_snapshot->func.sizeVars())
      names.push_back(v.as<ir::Var>()->name);
    return names;
  }()
                                                       : std::vector<std::string>{};
  m_snapshot = std::move(snapshot);
  m_block = block;
  m_blockLabel->setText(m_block.isEmpty() ? QStringLiteral("<i>no block selected</i>")
                                          : QStringLiteral("<b>%1</b>").arg(m_block.toHtmlEscaped()));
  // Sizes: a new set of symbolic sizes gets small default values (8 each).
  std::vector<std::string> sizes;
  if (m_snapshot)
    for (const ir::Expr& v : m_snapshot->func.sizeVars())
      sizes.push_back(v.as<ir::Var>()->name);
  // The field is there for programs with symbolic sizes only.
  m_sizes->setVisible(!sizes.empty());
  m_sizesLabel->setVisible(!sizes.empty());
  if (sizes != oldSizes || (m_sizes->text().isEmpty() && !sizes.empty())) {
    QStringList items;
    for (const std::string& s : sizes)
      items << QStringLiteral("%1=8").arg(QString::fromStdString(s));
    m_sizes->setText(items.join(QStringLiteral(", ")));
  }
  // Axes: the block's iterators and loops; kept when still offered, else the first two
  // iterators (y the first, x the second: a matrix's rows down, its columns across).
  const std::vector<std::string> its = blockIterators(), loops = blockLoops();
  std::vector<std::string> names = its;
  for (const std::string& l : loops)
    if (std::find(names.begin(), names.end(), l) == names.end()) names.push_back(l);
  QString x, y;
  if (sameBlock && !oldX.isEmpty() && std::find(names.begin(), names.end(), oldX.toStdString()) != names.end() &&
      std::find(names.begin(), names.end(), oldY.toStdString()) != names.end()) {
    x = oldX;
    y = oldY;
  } else if (its.size() >= 2) {
    y = QString::fromStdString(its[0]);
    x = QString::fromStdString(its[1]);
  } else if (loops.size() >= 2) {
    y = QString::fromStdString(loops[loops.size() - 2]);
    x = QString::fromStdString(loops.back());
  } else if (!names.empty()) {
    x = QString::fromStdString(names.front());
    y = QString::fromStdString(names.back());
  }
  rebuildAxes(names, x, y);
  // Fixed values of loops that are still there are kept (same block, after a step).
  if (!sameBlock) m_fixed.clear();
  std::erase_if(m_fixed,
                [&](const auto& kv) { return std::find(loops.begin(), loops.end(), kv.first) == loops.end(); });
  m_timer->stop();
  if (m_block.isEmpty()) {
    m_canvas->setMessage(m_snapshot
                             ? QStringLiteral("Select a block, or a loop around one, to see its iteration space.")
                             : QStringLiteral("No program."));
    m_banner->hide();
    m_error.clear();
    rebuildSliders();
    updateAnimationControls();
    updateStatus();
    return;
  }
  // A new program or block is computed at once; the controls' changes wait a moment.
  m_requestTimer->stop();
  Q_EMIT requestChanged();
}

void IterationSpaceView::rebuildAxes(const std::vector<std::string>& names, const QString& x, const QString& y) {
  for (QComboBox* combo : {m_xCombo, m_yCombo}) {
    const QSignalBlocker block(combo);
    combo->clear();
    for (const std::string& n : names)
      combo->addItem(QString::fromStdString(n));
  }
  m_xCombo->setCurrentText(x);
  m_yCombo->setCurrentText(y);
}

bool IterationSpaceView::setAxes(const QString& x, const QString& y) {
  if (m_xCombo->findText(x) < 0 || m_yCombo->findText(y) < 0) return false;
  m_xCombo->setCurrentText(x);
  m_yCombo->setCurrentText(y);
  m_fixed.clear();
  scheduleRequest();
  return true;
}

QString IterationSpaceView::axisX() const { return m_xCombo->currentText(); }
QString IterationSpaceView::axisY() const { return m_yCombo->currentText(); }

void IterationSpaceView::setFixed(const QString& loop, std::int64_t value) {
  m_fixed[loop.toStdString()] = value;
  scheduleRequest();
}

void IterationSpaceView::setSizesText(const QString& text) {
  m_sizes->setText(text);
  scheduleRequest();
}

QString IterationSpaceView::sizesText() const { return m_sizes->text(); }

std::optional<poly::IterationSpaceRequest> IterationSpaceView::request(QString* error) const {
  auto fail = [error](const QString& message) -> std::optional<poly::IterationSpaceRequest> {
    if (error) *error = message;
    return std::nullopt;
  };
  if (!m_snapshot || m_block.isEmpty()) return fail(QStringLiteral("no block selected"));
  poly::IterationSpaceRequest r;
  r.block = m_block.toStdString();
  r.dimX = axisX().toStdString();
  r.dimY = axisY().toStdString();
  r.fixed = m_fixed;
  QStringList known;
  for (const ir::Expr& v : m_snapshot->func.sizeVars())
    known << QString::fromStdString(v.as<ir::Var>()->name);
  const QStringList items = m_sizes->text().split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
  for (const QString& item : items) {
    const qsizetype eq = item.indexOf(u'=');
    bool ok = false;
    const qlonglong value = eq > 0 ? item.mid(eq + 1).toLongLong(&ok) : 0;
    if (!ok || value < 1)
      return fail(QStringLiteral("Sizes: '%1' should be NAME=VALUE with a positive VALUE, e.g. n=8").arg(item));
    const QString name = item.left(eq);
    if (!known.contains(name))
      return fail(QStringLiteral("Sizes: '%1' is not a symbolic size of the program (%2)")
                      .arg(name, known.isEmpty() ? QStringLiteral("it has none")
                                                 : QStringLiteral("its sizes: ") + known.join(QStringLiteral(", "))));
    r.sizes[name.toStdString()] = value;
  }
  return r;
}

void IterationSpaceView::scheduleRequest() {
  if (m_block.isEmpty()) return;
  m_requestTimer->start();
}

void IterationSpaceView::setDrawing(std::shared_ptr<const SpaceDrawing> drawing) {
  m_timer->stop();
  m_computing = false;
  m_error.clear();
  m_leavingPreview = false;
  m_canvas->setDrawing(drawing);
  if (drawing && drawing->preview) {
    QPalette pal = m_banner->palette();
    pal.setColor(QPalette::Window, drawing->illegal ? (m_dark ? QColor(110, 30, 30) : QColor(255, 215, 210))
                                                    : (m_dark ? QColor(90, 75, 20) : QColor(255, 243, 190)));
    m_banner->setPalette(pal);
    const QString step = QString::fromStdString(drawing->stepText).toHtmlEscaped();
    const QString verdict = QString::fromStdString(drawing->verdict).toHtmlEscaped();
    // The link's colour is the span's: QLabel ignores a style on the anchor itself.
    const QString link =
        QStringLiteral("<a href=\"back\"><span style=\"color:%1\">Back to the current schedule</span></a>")
            .arg(m_dark ? QStringLiteral("#9cd0ff") : QStringLiteral("#0645ad"));
    const QString ringed =
        drawing->counterexample ? QStringLiteral("The violated dependence is red, its pair S → T ringed. ") : QString();
    m_banner->setText(
        drawing->illegal
            ? QStringLiteral("<b>Preview of %1: refused.</b> %2 %3%4").arg(step, verdict, ringed, link)
            : QStringLiteral("<b>Preview of %1</b>: the order after the step (%2). %3").arg(step, verdict, link));
    m_banner->show();
  } else {
    m_banner->hide();
  }
  rebuildSliders();
  updateAnimationControls();
  updateStatus();
}

void IterationSpaceView::setComputing() {
  m_computing = true;
  updateStatus();
}

void IterationSpaceView::setError(const QString& message) {
  m_timer->stop();
  m_computing = false;
  m_error = message;
  m_canvas->setMessage(message);
  m_banner->hide();
  rebuildSliders();
  updateAnimationControls();
  updateStatus();
}

bool IterationSpaceView::isPreview() const { return drawing() && drawing()->preview; }

void IterationSpaceView::leavePreview() {
  m_banner->hide();
  m_leavingPreview = true;
  Q_EMIT requestChanged();
}

void IterationSpaceView::rebuildSliders() {
  const auto& d = drawing();
  // The same fixed loops as before (a slider moved): the controls stay, so that a slider
  // being dragged is not replaced under the mouse; only their values follow the slice.
  std::vector<std::string> fixedLoops;
  if (d)
    for (std::size_t i = 0; i < d->space.loops.size(); ++i)
      if (!d->space.free[i]) fixedLoops.push_back(d->space.loops[i]);
  if (d && fixedLoops == m_sliderLoops && !fixedLoops.empty()) {
    for (std::size_t i = 0; i < d->space.loops.size(); ++i) {
      if (d->space.free[i]) continue;
      const QString name = QStringLiteral("spaceFix_") + QString::fromStdString(d->space.loops[i]);
      const int value = static_cast<int>(d->space.fixedValues[i]);
      const bool fromState = d->preview && d->counterexample; // placed by the counterexample
      if (auto* slider = m_sliderHost->findChild<QSlider*>(name)) {
        slider->setEnabled(!fromState);
        if (slider->isSliderDown()) continue;
        const QSignalBlocker block(slider);
        slider->setValue(value);
        if (auto* label = m_sliderHost->findChild<QLabel*>(name + QStringLiteral("_value")))
          label->setText(QString::number(value));
      } else if (auto* spin = m_sliderHost->findChild<QSpinBox*>(name)) {
        spin->setEnabled(!fromState);
        const QSignalBlocker block(spin);
        spin->setValue(value);
      }
    }
    return;
  }
  m_sliderLoops = fixedLoops;
  while (QLayoutItem* item = m_sliderLayout->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  if (!d) {
    m_sliderHost->hide();
    return;
  }
  const poly::IterationSpace& s = d->space;
  int shown = 0;
  for (std::size_t i = 0; i < s.loops.size(); ++i) {
    if (s.free[i]) continue;
    const QString loop = QString::fromStdString(s.loops[i]);
    const std::int64_t value = s.fixedValues[i];
    m_sliderLayout->addWidget(new QLabel(loop + QStringLiteral(" ="), m_sliderHost));
    // A loop with constant bounds gets a slider over them, one with bounds that depend on
    // other loops (a tiled loop) a spin box.
    std::optional<std::int64_t> lo, extent;
    if (m_snapshot) {
      const int b = m_snapshot->find(NodeInfo::Kind::Block, m_block.toStdString());
      if (b >= 0)
        for (int l : m_snapshot->nodes[static_cast<std::size_t>(b)].loopsAbove) {
          const NodeInfo& n = m_snapshot->nodes[static_cast<std::size_t>(l)];
          if (n.name != s.loops[i]) continue;
          bool ok = false;
          const qlonglong mn = QString::fromStdString(n.min).toLongLong(&ok);
          if (ok) lo = mn;
          extent = n.constExtent;
          if (!extent) {
            auto it = s.sizes.find(n.extent);
            if (it != s.sizes.end()) extent = it->second;
          }
        }
    }
    const bool fromState = d->preview && d->counterexample; // placed by the counterexample
    if (lo && extent && *extent > 0 && *extent <= 1 << 20) {
      auto* slider = new QSlider(Qt::Horizontal, m_sliderHost);
      slider->setObjectName(QStringLiteral("spaceFix_") + loop);
      slider->setRange(static_cast<int>(*lo), static_cast<int>(*lo + *extent - 1));
      slider->setValue(static_cast<int>(value));
      slider->setMinimumWidth(60);
      auto* label = new QLabel(QString::number(value), m_sliderHost);
      label->setObjectName(slider->objectName() + QStringLiteral("_value"));
      label->setMinimumWidth(label->fontMetrics().horizontalAdvance(QString::number(*lo + *extent)) + 4);
      connect(slider, &QSlider::valueChanged, this, [this, loop, label](int v) {
        label->setText(QString::number(v));
        if (isPreview()) return; // a preview is of one step; the sliders act on the current slice
        setFixed(loop, v);
      });
      slider->setEnabled(!fromState);
      m_sliderLayout->addWidget(slider, 1);
      m_sliderLayout->addWidget(label);
    } else {
      auto* spin = new QSpinBox(m_sliderHost);
      spin->setObjectName(QStringLiteral("spaceFix_") + loop);
      spin->setRange(-1000000, 1000000);
      spin->setValue(static_cast<int>(value));
      spin->setKeyboardTracking(false);
      connect(spin, &QSpinBox::valueChanged, this, [this, loop](int v) {
        if (!isPreview()) setFixed(loop, v);
      });
      spin->setEnabled(!fromState);
      m_sliderLayout->addWidget(spin);
    }
    ++shown;
  }
  m_sliderLayout->addStretch(0);
  m_sliderHost->setVisible(shown > 0);
}

void IterationSpaceView::setColoring(SpaceColoring coloring) {
  if (m_coloringCombo->currentIndex() != static_cast<int>(coloring)) {
    m_coloringCombo->setCurrentIndex(static_cast<int>(coloring)); // comes back here
    return;
  }
  m_timer->stop();
  m_canvas->setColoring(coloring);
  updateAnimationControls();
  updateStatus();
}

void IterationSpaceView::setDark(bool dark) {
  m_dark = dark;
  m_canvas->setDark(dark);
  if (drawing()) setDrawing(drawing()); // banner colours
  updateStatus();
}

void IterationSpaceView::play() {
  if (!drawing() || m_canvas->keyCount() == 0) return;
  if (m_canvas->time() >= m_canvas->keyCount()) m_canvas->setTime(0);
  m_timer->start();
  updateAnimationControls();
}

void IterationSpaceView::pause() {
  m_timer->stop();
  updateAnimationControls();
}

bool IterationSpaceView::isPlaying() const { return m_timer->isActive(); }

void IterationSpaceView::stepForward() {
  if (!drawing() || m_canvas->keyCount() == 0) return;
  const std::int64_t t = m_canvas->time();
  m_canvas->setTime(t >= m_canvas->keyCount() ? 0 : t + 1);
  updateAnimationControls();
}

void IterationSpaceView::showAll() {
  m_timer->stop();
  m_canvas->setTime(m_canvas->keyCount());
  updateAnimationControls();
}

void IterationSpaceView::tick() {
  const std::int64_t n = m_canvas->keyCount();
  // The whole animation takes about ten seconds however many steps it has (at least one
  // step per frame).
  const std::int64_t stride = std::max<std::int64_t>(1, n / 250);
  const std::int64_t t = m_canvas->time() + stride;
  m_canvas->setTime(std::min(t, n));
  if (t >= n) m_timer->stop();
  updateAnimationControls();
}

void IterationSpaceView::updateAnimationControls() {
  const std::int64_t n = m_canvas->keyCount();
  const std::int64_t t = m_canvas->time();
  {
    const QSignalBlocker block(m_timeSlider);
    m_timeSlider->setRange(0, static_cast<int>(n));
    m_timeSlider->setValue(static_cast<int>(t));
  }
  m_play->setEnabled(n > 0);
  m_step->setEnabled(n > 0);
  m_timeSlider->setEnabled(n > 0);
  m_play->setText(isPlaying() ? QStringLiteral("❚❚ Pause") : QStringLiteral("▶ Play"));
  const QString unit = m_canvas->coloring() == SpaceColoring::Order       ? QStringLiteral("rank")
                       : m_canvas->coloring() == SpaceColoring::Wavefront ? QStringLiteral("wavefront")
                                                                          : QStringLiteral("step");
  if (n == 0)
    m_timeLabel->clear();
  else if (t >= n)
    m_timeLabel->setText(QStringLiteral("all %1 run").arg(n));
  else
    m_timeLabel->setText(QStringLiteral("%1 %2 / %3").arg(unit).arg(t).arg(n));
}

void IterationSpaceView::updateStatus() {
  const auto& d = drawing();
  QStringList lines;
  if (m_computing) lines << QStringLiteral("<i>computing…</i>");
  if (!m_error.isEmpty()) {
    m_status->setText(QStringLiteral("<span style=\"color:#d03030\">%1</span>").arg(m_error.toHtmlEscaped()));
    return;
  }
  if (!d) {
    m_status->setText(lines.join(QStringLiteral("<br>")));
    return;
  }
  const poly::IterationSpace& s = d->space;
  QStringList fixed;
  for (std::size_t i = 0; i < s.loops.size(); ++i)
    if (!s.free[i]) fixed << QStringLiteral("%1=%2").arg(QString::fromStdString(s.loops[i])).arg(s.fixedValues[i]);
  lines << QStringLiteral("%1 instances · %2 dependence arrows%3 · %4 wavefronts · %5 parallel steps%6")
               .arg(s.instances.size())
               .arg(s.arrows.size())
               .arg(s.arrowsTruncated ? QStringLiteral(" (cut)") : QString())
               .arg(s.wavefronts)
               .arg(s.parallelSteps)
               .arg(fixed.isEmpty() ? QString() : QStringLiteral(" · at ") + fixed.join(QStringLiteral(", ")));
  if (!s.message.empty())
    lines << QStringLiteral("<span style=\"color:%1\">%2</span>")
                 .arg(m_dark ? QStringLiteral("#e0b050") : QStringLiteral("#9a6000"),
                      QString::fromStdString(s.message).toHtmlEscaped());
  if (d->counterexample)
    lines << QStringLiteral("<span style=\"color:#d03030\">%1</span>")
                 .arg(QString::fromStdString(d->counterexample->message).toHtmlEscaped());
  m_status->setText(lines.join(QStringLiteral("<br>")));
}

QString IterationSpaceView::status() const { return m_status->text(); }

} // namespace loopscape::views
