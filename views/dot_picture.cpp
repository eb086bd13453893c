#include "views/dot_picture.h"

#include "views/graphviz_renderer.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsSvgItem>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainterPath>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSvgRenderer>
#include <QThread>
#include <QToolTip>
#include <QWheelEvent>
#include <QXmlStreamReader>

#include <algorithm>
#include <cmath>
#include <functional>

namespace loopscape::views {

namespace {

constexpr double kMinScale = 0.1, kMaxScale = 6.0;
/// Below this scale a whole-picture fit is unreadable; fit the width instead.
constexpr double kReadableScale = 0.65;

/// Graphviz's SVG adapted to Qt SVG: Graphviz measures text with Pango, and Qt draws the
/// same font up to 3% wider, so the font sizes shrink by 4% to keep labels inside their
/// boxes; and Graphviz starts a text run with a non-breaking space where a label has a
/// space between runs, which Qt drops unless whitespace is preserved.
QByteArray forQtSvg(const QByteArray& svg) {
  static const QRegularExpression fontSize(QStringLiteral("font-size=\"([0-9.]+)\""));
  QString text = QString::fromUtf8(svg);
  QString out;
  out.reserve(text.size());
  qsizetype last = 0;
  for (auto it = fontSize.globalMatch(text); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    out += QStringView(text).mid(last, m.capturedStart() - last);
    out += QStringLiteral("font-size=\"%1\"").arg(m.captured(1).toDouble() * 0.96, 0, 'f', 2);
    last = m.capturedEnd();
  }
  out += QStringView(text).mid(last);
  out.replace(QStringLiteral("<svg "), QStringLiteral("<svg xml:space=\"preserve\" "));
  return out.toUtf8();
}

/// Bounding box of a Graphviz shape element (absolute coordinates only, as Graphviz
/// writes them); null for other elements.
QRectF shapeBox(const QXmlStreamReader& xml) {
  const QXmlStreamAttributes a = xml.attributes();
  if (xml.name() == QStringLiteral("ellipse")) {
    const double cx = a.value(QStringLiteral("cx")).toDouble(), cy = a.value(QStringLiteral("cy")).toDouble();
    const double rx = a.value(QStringLiteral("rx")).toDouble(), ry = a.value(QStringLiteral("ry")).toDouble();
    return QRectF(cx - rx, cy - ry, 2 * rx, 2 * ry);
  }
  QString coords;
  if (xml.name() == QStringLiteral("polygon"))
    coords = a.value(QStringLiteral("points")).toString();
  else if (xml.name() == QStringLiteral("path"))
    coords = a.value(QStringLiteral("d")).toString();
  else
    return {};
  static const QRegularExpression number(QStringLiteral("-?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:e-?[0-9]+)?"));
  std::vector<double> v;
  for (auto it = number.globalMatch(coords); it.hasNext();)
    v.push_back(it.next().captured(0).toDouble());
  if (v.size() < 2) return {};
  double x0 = v[0], x1 = v[0], y0 = v[1], y1 = v[1];
  for (std::size_t i = 0; i + 1 < v.size(); i += 2) {
    x0 = std::min(x0, v[i]), x1 = std::max(x1, v[i]);
    y0 = std::min(y0, v[i + 1]), y1 = std::max(y1, v[i + 1]);
  }
  return QRectF(QPointF(x0, y0), QPointF(x1, y1));
}

/// For every `<g id>` of the SVG, the box of the first shape inside it: a node's outline
/// or a band member's cell, as Graphviz placed them (the text Qt draws is not measured),
/// in the coordinates of the group's parent.
QHash<QString, QRectF> firstShapeBoxes(const QByteArray& svg) {
  QHash<QString, QRectF> boxes;
  std::vector<QString> open; // ids of the enclosing groups
  QXmlStreamReader xml(svg);
  while (!xml.atEnd()) {
    const auto token = xml.readNext();
    if (token == QXmlStreamReader::EndElement && xml.name() == QStringLiteral("g") && !open.empty()) open.pop_back();
    if (token != QXmlStreamReader::StartElement) continue;
    if (xml.name() == QStringLiteral("g")) {
      open.push_back(xml.attributes().value(QStringLiteral("id")).toString());
      continue;
    }
    const QRectF box = shapeBox(xml);
    if (box.isNull()) continue;
    for (const QString& id : open)
      if (!id.isEmpty() && !boxes.contains(id)) boxes.insert(id, box);
  }
  return boxes;
}

} // namespace

DotPicture::DotPicture(QWidget* parent) : QGraphicsView(parent), m_latest(std::make_shared<std::atomic<quint64>>(0)) {
  setScene(new QGraphicsScene(this));
  m_renderer = new QSvgRenderer(this);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
  setAlignment(Qt::AlignHCenter | Qt::AlignTop);
  setFocusPolicy(Qt::StrongFocus);
}

DotPicture::~DotPicture() = default;

void DotPicture::requestRender(const QString& message) {
  m_message = message;
  const quint64 generation = ++m_generation;
  m_latest->store(generation);
  if (!hasContent()) {
    showPicture(generation, {}, m_message, nullptr);
    return;
  }
  const bool dark = palette().color(QPalette::Base).lightness() < 128;
  std::function<std::string()> dot = dotSource(dark);
  std::function<bool()> wanted = [latest = m_latest, generation] { return latest->load() == generation; };
  GraphvizRenderer::instance()->render(
      this, std::move(dot), std::move(wanted),
      [this, generation](GraphvizRenderer::Result r) { showPicture(generation, r.svg, r.error, r.thread); });
}

void DotPicture::showPicture(quint64 generation, const QByteArray& svg, const QString& error, QThread* thread) {
  if (generation != m_generation) return; // a newer tree or theme was requested since
  m_shown = generation;
  m_svg = svg;
  m_error = error;
  m_renderThread = thread;
  m_elements.clear();
  m_highlight = nullptr;
  m_item = nullptr;
  scene()->clear();
  if (svg.isEmpty() || !m_renderer->load(forQtSvg(svg))) {
    if (m_error.isEmpty() && !svg.isEmpty()) m_error = QStringLiteral("the SVG from Graphviz could not be read");
    m_svg.clear();
    showMessage(m_error);
  } else {
    m_item = new QGraphicsSvgItem();
    m_item->setSharedRenderer(m_renderer);
    scene()->addItem(m_item);
    scene()->setSceneRect(m_item->boundingRect());
    const QHash<QString, QRectF> boxes = firstShapeBoxes(m_svg);
    collectElements([&](const QString& svgId) { return sceneRectOfSvgElement(svgId, boxes); }, m_elements);
    m_highlight = scene()->addPath(QPainterPath());
    m_highlight->setZValue(1);
    if (m_autoFit) fitToView();
    updateHighlight();
  }
  ++m_renderCount;
  Q_EMIT rendered();
}

void DotPicture::showMessage(const QString& text) {
  if (text.isEmpty()) {
    scene()->setSceneRect(QRectF());
    return;
  }
  auto* item = scene()->addSimpleText(text);
  item->setBrush(palette().color(QPalette::PlaceholderText));
  scene()->setSceneRect(item->boundingRect().adjusted(-8, -8, 8, 8));
  resetTransform();
}

QRectF DotPicture::sceneRectOfSvgElement(const QString& svgId, const QHash<QString, QRectF>& boxes) const {
  if (m_item == nullptr || !m_renderer->elementExists(svgId) || !boxes.contains(svgId)) return {};
  // The parents' transforms (Graphviz translates the graph) map the box to the document.
  const QRectF doc = m_renderer->transformForElement(svgId).mapRect(boxes.value(svgId));
  const QRectF box = m_renderer->viewBoxF();
  const QRectF item = m_item->boundingRect();
  if (box.isEmpty()) return doc;
  const double sx = item.width() / box.width(), sy = item.height() / box.height();
  return QRectF((doc.left() - box.left()) * sx, (doc.top() - box.top()) * sy, doc.width() * sx, doc.height() * sy);
}

QRectF DotPicture::elementRect(const QString& id) const {
  for (const Element& e : m_elements)
    if (e.id == id) return e.rect;
  return {};
}

const DotPicture::Element* DotPicture::elementAt(const QPointF& scenePos) const {
  const Element* best = nullptr;
  for (const Element& e : m_elements) {
    if (!e.rect.contains(scenePos)) continue;
    if (best == nullptr || (e.preferred && !best->preferred) ||
        e.rect.width() * e.rect.height() < best->rect.width() * best->rect.height())
      best = &e;
  }
  return best;
}

QString DotPicture::idAt(const QPoint& pos) const {
  const Element* e = elementAt(mapToScene(pos));
  return e ? e->id : QString();
}

void DotPicture::setSelectedId(const QString& id) {
  m_selectedId = id;
  updateHighlight();
}

void DotPicture::updateHighlight() {
  if (m_highlight == nullptr) return;
  const QRectF rect = elementRect(m_selectedId);
  QPainterPath path;
  if (!rect.isNull()) path.addRoundedRect(rect.adjusted(-2, -2, 2, 2), 4, 4);
  m_highlight->setPath(path);
  QColor fill = palette().color(QPalette::Highlight);
  QPen pen(fill, 2.5);
  pen.setCosmetic(true);
  m_highlight->setPen(pen);
  fill.setAlpha(45);
  m_highlight->setBrush(fill);
  if (!rect.isNull()) ensureVisible(rect, 16, 16);
}

QRectF DotPicture::highlightRect() const {
  if (m_highlight == nullptr || m_highlight->path().isEmpty()) return {};
  return m_highlight->path().boundingRect();
}

QPoint DotPicture::viewportPoint(const QString& id) {
  const QRectF rect = elementRect(id);
  if (rect.isNull()) return {-1, -1};
  ensureVisible(rect, 4, 4);
  return mapFromScene(rect.center());
}

bool DotPicture::waitRendered(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (!isCurrent()) {
    if (timer.elapsed() > timeoutMs) return false;
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    if (!isCurrent()) QThread::msleep(2);
  }
  return true;
}

void DotPicture::zoomBy(double factor) {
  const double current = transform().m11();
  factor = std::clamp(current * factor, kMinScale, kMaxScale) / current;
  m_autoFit = false;
  scale(factor, factor);
}

void DotPicture::fitToView() {
  m_autoFit = true;
  const QRectF rect = scene()->sceneRect();
  if (rect.isEmpty() || m_item == nullptr) return;
  const QSize view = viewport()->size();
  const double byWidth = (view.width() - 8) / rect.width();
  const double whole = std::min(byWidth, (view.height() - 8) / rect.height());
  double s = std::min(1.0, whole >= kReadableScale ? whole : std::max(byWidth, kReadableScale));
  s = std::clamp(s, kMinScale, kMaxScale);
  resetTransform();
  scale(s, s);
  verticalScrollBar()->setValue(verticalScrollBar()->minimum());
  // The selected element stays in view (a fit after a resize would scroll it away).
  const QRectF selected = elementRect(m_selectedId);
  if (!selected.isNull()) ensureVisible(selected, 16, 16);
}

void DotPicture::mousePressEvent(QMouseEvent* event) {
  m_pressPos = event->position().toPoint();
  QGraphicsView::mousePressEvent(event);
}

void DotPicture::mouseReleaseEvent(QMouseEvent* event) {
  QGraphicsView::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton) return;
  if ((event->position().toPoint() - m_pressPos).manhattanLength() > QApplication::startDragDistance()) return;
  const QString id = idAt(event->position().toPoint());
  if (id.isEmpty()) return;
  setSelectedId(id);
  Q_EMIT elementClicked(id);
}

void DotPicture::wheelEvent(QWheelEvent* event) {
  if (!(event->modifiers() & Qt::ControlModifier)) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  const int delta = event->angleDelta().y();
  if (delta != 0) zoomBy(std::pow(1.0015, delta));
  event->accept();
}

void DotPicture::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
  case Qt::Key_Plus:
  case Qt::Key_Equal: zoomBy(1.25); return;
  case Qt::Key_Minus: zoomBy(0.8); return;
  case Qt::Key_0: fitToView(); return;
  default: QGraphicsView::keyPressEvent(event);
  }
}

void DotPicture::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (m_autoFit) fitToView();
}

void DotPicture::changeEvent(QEvent* event) {
  QGraphicsView::changeEvent(event);
  // The theme decides the picture's colours: lay it out again in the new ones.
  if ((event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange) && hasContent())
    requestRender(m_message);
}

bool DotPicture::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const Element* e = elementAt(mapToScene(help->pos()));
    if (e != nullptr)
      QToolTip::showText(help->globalPos(), e->tooltip, viewport());
    else
      QToolTip::hideText();
    return true;
  }
  return QGraphicsView::viewportEvent(event);
}

} // namespace loopscape::views
