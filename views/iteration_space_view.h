// IterationSpaceView: the iteration-space picture of one block (issue 19). The instances
// of the block in a two-dimensional slice of its iteration domain (poly::IterationSpace,
// computed in a background job by app/gui/space_jobs.h) drawn as dots, coloured by their
// execution order under the current schedule (or by dependence wavefront, or by parallel
// step under the loop marks), the RAW/WAR/WAW dependences between them as arrows and the
// tiles they fall into as dashed boxes. An animation plays the execution order: executed
// instances are filled, the ones still to run are hollow, the current one is ringed, and
// (in execution order) the instances of its wavefront that have not run yet, which no
// dependence path in the slice ties to it, are ringed in a second colour.
//
// The controls: the block (the workbench selection: the selected block, or the first
// block below the selected loop), the two axes (loops or block iterators), one slider per
// loop the axes do not depend on, a Sizes field binding the program's symbolic sizes,
// the colouring, Fit, and Play / Step / a position slider for the animation.
//
// A preview shows a step the Primitives panel is about to apply: the slice of the current
// state ordered by the would-be state; a refused step draws its counterexample pair
// (ringed red, `S` and `T`) and the violated dependence as a red arrow. The view holds
// plain snapshot structs only; it asks for a computation with requestChanged().
#pragma once

#include "core/poly/iteration_space.h"
#include "views/program_snapshot.h"

#include <QWidget>

#include <map>
#include <memory>
#include <optional>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QTimer;
class QToolButton;

namespace loopscape::views {

/// A computed slice and what goes with it; immutable once built.
struct SpaceDrawing {
  poly::IterationSpace space;
  /// A refused step's counterexample placed in the slice (preview of an illegal step).
  std::optional<poly::PlacedCounterexample> counterexample;
  bool preview = false; ///< ordered by the would-be state of a step
  bool illegal = false; ///< the previewed step is refused
  std::string stepText; ///< the previewed step ("reorder", with its loops)
  std::string verdict;  ///< one line: legal, or why the step is refused
};

/// What the dots' colour (and the animation's unit) follows.
enum class SpaceColoring { Order, Wavefront, ParallelStep };

/// The picture: zoom to fit by default; wheel zooms about the mouse, dragging pans,
/// double-click fits again; the tooltip names the instance under the mouse.
class IterationSpaceCanvas : public QWidget {
  Q_OBJECT
public:
  explicit IterationSpaceCanvas(QWidget* parent = nullptr);

  void setDrawing(std::shared_ptr<const SpaceDrawing> drawing);
  const std::shared_ptr<const SpaceDrawing>& drawing() const { return m_drawing; }
  /// Shown instead of a picture (no drawing).
  void setMessage(const QString& message);
  void setColoring(SpaceColoring coloring);
  SpaceColoring coloring() const { return m_coloring; }
  /// Animation time in units of the colouring's key: keys below are executed, equal is
  /// running, above waits. keyCount() (the default) shows everything executed.
  void setTime(std::int64_t time);
  std::int64_t time() const { return m_time; }
  /// Number of distinct keys (instances, wavefronts or parallel steps) of the drawing.
  std::int64_t keyCount() const { return m_keys; }
  /// The colouring's key of instance `index` (order, wavefront or parallel step).
  std::int64_t keyOf(int index) const;
  void setDark(bool dark);
  void zoomToFit();
  bool isFitted() const { return m_fitted; }
  /// Whether every instance is in view (a long slice is fitted on its short axis).
  bool isWhole() const;
  /// Pixels between neighbouring instances.
  double scale() const { return m_scale; }
  /// Widget position of instance `index`'s dot.
  QPointF instancePosition(int index) const;
  /// Widget position of the point (x, y) of the slice.
  QPointF pointPosition(double x, double y) const;
  /// The instance whose dot is nearest to `pos` within half a cell, or -1.
  int instanceAt(QPointF pos) const;
  /// The tooltip text of instance `index`.
  QString describeInstance(int index) const;
  /// Arrows painted by the last paint (zoomed out they are left out, and those off screen).
  int arrowsPainted() const { return m_arrowsPainted; }

  QSize sizeHint() const override { return {420, 320}; }
  QSize minimumSizeHint() const override { return {160, 120}; }

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

private:
  QColor keyColor(std::int64_t key) const;
  void countKeys(); ///< m_keys from the drawing and the colouring
  void paintAxes(QPainter& p) const;
  void paintLegend(QPainter& p) const;
  void paintArrows(QPainter& p, const QRectF& visible);
  std::shared_ptr<const SpaceDrawing> m_drawing;
  QString m_message;
  SpaceColoring m_coloring = SpaceColoring::Order;
  std::int64_t m_time = 0;
  std::int64_t m_keys = 0; ///< keyCount()
  bool m_dark = false;
  bool m_fitted = true;
  double m_scale = 20;
  QPointF m_origin; ///< widget position of the point (xMin, yMin)
  QPoint m_dragFrom;
  bool m_dragging = false;
  int m_hover = -1;
  int m_arrowsPainted = 0;
};

class IterationSpaceView : public QWidget {
  Q_OBJECT
public:
  explicit IterationSpaceView(QWidget* parent = nullptr);

  /// Follows the workbench selection: node `index` of `snapshot` (a block, or a loop: the
  /// first block below it). A new program or another block asks for a new computation.
  void setSelection(std::shared_ptr<const ProgramSnapshot> snapshot, int index);
  const std::shared_ptr<const ProgramSnapshot>& snapshot() const { return m_snapshot; }
  /// The block shown ("" when the selection has none).
  QString block() const { return m_block; }
  /// The computation the controls describe; nullopt with the reason in `error` when there
  /// is no block or the Sizes field does not parse.
  std::optional<poly::IterationSpaceRequest> request(QString* error = nullptr) const;
  /// Sets the two axes (loop or iterator names); false when one is not offered.
  bool setAxes(const QString& x, const QString& y);
  QString axisX() const;
  QString axisY() const;
  /// Fixes loop `loop` (a slider's loop) at `value`.
  void setFixed(const QString& loop, std::int64_t value);
  /// The Sizes field: "n=8, m=4".
  void setSizesText(const QString& text);
  QString sizesText() const;

  /// The result of a computation for the current request.
  void setDrawing(std::shared_ptr<const SpaceDrawing> drawing);
  const std::shared_ptr<const SpaceDrawing>& drawing() const { return m_canvas->drawing(); }
  /// A computation started (the status says so; the old picture stays until the result).
  void setComputing();
  /// The computation failed: the picture gives way to `message`.
  void setError(const QString& message);
  /// Whether a step preview is shown.
  bool isPreview() const;
  /// Back to the current state's slice (asks for a computation).
  void leavePreview();

  void setColoring(SpaceColoring coloring);
  void setDark(bool dark);
  IterationSpaceCanvas* canvas() const { return m_canvas; }
  QString status() const;

  // ---- animation ----
  void play();
  void pause();
  bool isPlaying() const;
  /// One unit further (from "all executed", back to the first).
  void stepForward();
  /// Shows every instance executed (the picture without animation).
  void showAll();

Q_SIGNALS:
  /// The controls changed: the owner computes request() and calls setDrawing.
  void requestChanged();
  /// "Preview step": show the Primitives form's step in this view.
  void previewStepRequested();

private:
  void rebuildAxes(const std::vector<std::string>& names, const QString& x, const QString& y);
  void rebuildSliders();
  void scheduleRequest();
  void updateAnimationControls();
  void updateStatus();
  void tick();
  /// The loops around the block in the snapshot and the block's iterators.
  std::vector<std::string> blockLoops() const;
  std::vector<std::string> blockIterators() const;

  std::shared_ptr<const ProgramSnapshot> m_snapshot;
  QString m_block;
  std::map<std::string, std::int64_t> m_fixed;
  std::vector<std::string> m_sliderLoops; ///< the loops the sliders fix
  bool m_leavingPreview = false;
  QLabel* m_banner;
  QLabel* m_blockLabel;
  QComboBox* m_xCombo;
  QComboBox* m_yCombo;
  QLineEdit* m_sizes;
  QLabel* m_sizesLabel;
  QComboBox* m_coloringCombo;
  QToolButton* m_fit;
  QToolButton* m_previewButton;
  QWidget* m_sliderHost;
  QHBoxLayout* m_sliderLayout;
  IterationSpaceCanvas* m_canvas;
  QToolButton* m_play;
  QToolButton* m_step;
  QSlider* m_timeSlider;
  QLabel* m_timeLabel;
  QLabel* m_status;
  QTimer* m_timer;
  QTimer* m_requestTimer;
  QString m_error;
  bool m_computing = false;
  bool m_dark = false;
};

} // namespace loopscape::views
