// TreePicture: the schedule tree as a picture laid out by Graphviz (tree_dot.h writes the
// DOT, GraphvizRenderer lays it out to SVG on its own thread), shown with a shared
// QSvgRenderer in a zoomable, pannable QGraphicsView. Nodes and band members are found
// through their stable SVG ids: a click reports the id of the innermost element under the
// mouse (band member "0.1/m0" before band "0.1"), and the selected element is outlined by
// an overlay rectangle (no new layout). Each new tree or theme is a new generation; a
// result of an older generation is dropped when it arrives.
#pragma once

#include <QGraphicsView>
#include <QHash>

#include <atomic>
#include <memory>
#include <vector>

class QGraphicsPathItem;
class QGraphicsSvgItem;
class QSvgRenderer;

namespace loopscape::poly {
struct TreeDescription;
}

namespace loopscape::views {

class TreePicture : public QGraphicsView {
  Q_OBJECT
public:
  explicit TreePicture(QWidget* parent = nullptr);
  ~TreePicture() override;

  /// Shows `tree` once it is laid out; with null, shows `message` instead.
  void setTree(std::shared_ptr<const poly::TreeDescription> tree, const QString& message = {});
  /// Outlines the node or band member with this id ("" for none); emits nothing.
  void setSelectedId(const QString& id);
  QString selectedId() const { return m_selectedId; }

  /// Whether the picture shown is the one of the latest tree and theme.
  bool isCurrent() const { return m_shown == m_generation; }
  /// Processes events until the picture is current; false after `timeoutMs`.
  bool waitRendered(int timeoutMs = 10000);
  /// The SVG Graphviz rendered for the picture shown (empty before the first picture or
  /// after an error).
  const QByteArray& svg() const { return m_svg; }
  /// Why there is no picture (Graphviz's error or the tree's), empty when there is one.
  QString error() const { return m_error; }
  /// How many pictures were shown so far (stale ones are never shown).
  int renderCount() const { return m_renderCount; }
  /// The thread on which Graphviz produced the picture shown.
  QThread* renderThread() const { return m_renderThread; }

  /// Scene rectangle of the node or band member `id` in the picture shown (null if none).
  QRectF elementRect(const QString& id) const;
  /// Scene rectangle of the selection outline (null when nothing is outlined).
  QRectF highlightRect() const;
  /// Scrolls element `id` into view and returns its centre in viewport coordinates.
  QPoint viewportPoint(const QString& id);
  /// Id of the innermost element at viewport position `pos`, "" if none.
  QString idAt(const QPoint& pos) const;

  void zoomBy(double factor);
  /// Scales the picture to fit the view (the width alone when the whole tree would be
  /// too small to read) and keeps fitting it on resize until the user zooms.
  void fitToView();

Q_SIGNALS:
  /// The user clicked the node or band member `id`.
  void elementClicked(const QString& id);
  /// A picture (or the message for a missing tree) was shown.
  void rendered();

protected:
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;
  bool viewportEvent(QEvent* event) override;

private:
  struct Element {
    QString id;
    QRectF rect; ///< scene coordinates
    QString tooltip;
    bool member = false;
  };
  void requestRender();
  void showPicture(quint64 generation, const QByteArray& svg, const QString& error, QThread* thread);
  void showMessage(const QString& text);
  void collectElements();
  void updateHighlight();
  QRectF sceneRectOfSvgElement(const QString& svgId, const QHash<QString, QRectF>& boxes) const;
  const Element* elementAt(const QPointF& scenePos) const;

  std::shared_ptr<const poly::TreeDescription> m_tree;
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
