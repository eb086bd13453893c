// DotPicture: a picture laid out by Graphviz (GraphvizRenderer lays the DOT text out to
// SVG on its own thread), shown with a shared QSvgRenderer in a zoomable, pannable
// QGraphicsView. Subclasses say what to draw (dotSource) and which SVG elements are
// clickable (collectElements: each by its stable SVG id, with a tooltip); a click reports
// the id of the innermost element under the mouse (a `preferred` element before the
// others, then the smallest), and the selected element is outlined by an overlay
// rectangle (no new layout). Each new content or theme is a new generation; a result of
// an older generation is dropped when it arrives. The schedule tree's picture
// (tree_picture.h) and the model graph (model_view.h) are DotPictures.
#pragma once

#include <QGraphicsView>
#include <QHash>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

class QGraphicsPathItem;
class QGraphicsSvgItem;
class QSvgRenderer;

namespace loopscape::views {

class DotPicture : public QGraphicsView {
  Q_OBJECT
public:
  explicit DotPicture(QWidget* parent = nullptr);
  ~DotPicture() override;

  /// Outlines the element with this id ("" for none); emits nothing.
  void setSelectedId(const QString& id);
  QString selectedId() const { return m_selectedId; }

  /// Whether the picture shown is the one of the latest content and theme.
  bool isCurrent() const { return m_shown == m_generation; }
  /// Processes events until the picture is current; false after `timeoutMs`.
  bool waitRendered(int timeoutMs = 10000);
  /// The SVG Graphviz rendered for the picture shown (empty before the first picture or
  /// after an error).
  const QByteArray& svg() const { return m_svg; }
  /// Why there is no picture (Graphviz's error or the content's), empty when there is one.
  QString error() const { return m_error; }
  /// How many pictures were shown so far (stale ones are never shown).
  int renderCount() const { return m_renderCount; }
  /// The thread on which Graphviz produced the picture shown.
  QThread* renderThread() const { return m_renderThread; }

  /// Scene rectangle of the element `id` in the picture shown (null if none).
  QRectF elementRect(const QString& id) const;
  /// Scene rectangle of the selection outline (null when nothing is outlined).
  QRectF highlightRect() const;
  /// Scrolls element `id` into view and returns its centre in viewport coordinates.
  QPoint viewportPoint(const QString& id);
  /// Id of the innermost element at viewport position `pos`, "" if none.
  QString idAt(const QPoint& pos) const;

  void zoomBy(double factor);
  /// Scales the picture to fit the view (the width alone when the whole picture would be
  /// too small to read) and keeps fitting it on resize until the user zooms.
  void fitToView();

Q_SIGNALS:
  /// The user clicked the element `id`.
  void elementClicked(const QString& id);
  /// A picture (or the message for missing content) was shown.
  void rendered();

protected:
  struct Element {
    QString id;
    QRectF rect; ///< scene coordinates
    QString tooltip;
    bool preferred = false; ///< wins over non-preferred elements under the mouse
  };
  /// The scene rectangle of the first shape inside the SVG group `svgId` (null if none).
  using ShapeLocator = std::function<QRectF(const QString& svgId)>;

  /// Whether there is something to lay out; without, the picture shows `message`.
  virtual bool hasContent() const = 0;
  /// The DOT text producer (runs on the Graphviz thread: it must own what it reads).
  virtual std::function<std::string()> dotSource(bool dark) const = 0;
  /// The clickable elements of the picture just shown.
  virtual void collectElements(const ShapeLocator& locate, std::vector<Element>& out) const = 0;

  /// Lays the content out again (new content, or the theme changed); with no content,
  /// shows `message` instead.
  void requestRender(const QString& message = {});

  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;
  bool viewportEvent(QEvent* event) override;

private:
  void showPicture(quint64 generation, const QByteArray& svg, const QString& error, QThread* thread);
  void showMessage(const QString& text);
  void updateHighlight();
  QRectF sceneRectOfSvgElement(const QString& svgId, const QHash<QString, QRectF>& boxes) const;
  const Element* elementAt(const QPointF& scenePos) const;

  QString m_message;
  quint64 m_generation = 0; ///< of the latest request
  quint64 m_shown = 0;      ///< of the picture shown
  std::shared_ptr<std::atomic<quint64>> m_latest;
  QSvgRenderer* m_renderer;
  QGraphicsSvgItem* m_item = nullptr;
  QGraphicsPathItem* m_highlight = nullptr;
  QByteArray m_svg;
  QString m_error;
  QString m_selectedId;
  std::vector<Element> m_elements;
  int m_renderCount = 0;
  QThread* m_renderThread = nullptr;
  bool m_autoFit = true;
  QPoint m_pressPos;
};

} // namespace loopscape::views
