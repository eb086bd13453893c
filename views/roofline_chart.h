// RooflineChart: the roofline plot of the profile view (Qt Charts, log-log). The roof is
// this machine's measured limit for a kernel of arithmetic intensity I (FLOP per byte
// moved): min(peak GFLOP/s, bandwidth GB/s x I), flat right of the knee I = peak /
// bandwidth and slanted left of it. Each measured state of the profile table is a point
// (x = the row's intensity, y = its achieved GFLOP/s) labelled by the row's label (trace
// step and target); hovering a point shows its numbers in a tooltip.
//
// Two intensities, picked with the combo box in the chart's corner (objectName
// "rooflineIntensity"): FLOP per compulsory byte (every parameter once: the same for
// every schedule of a program, so its states line up vertically) and FLOP per modeled
// byte (ProfileRow::modeledIntensity, core/codegen/traffic_model.h: the traffic between
// the L2 and memory that the schedule causes, so tiling moves a state right). The modeled
// one is the default; when a plotted row has none (saved before it was recorded) every
// point falls back to the compulsory one, the item is disabled and the title says so.
// The x axis title names the intensity shown. The selector sits in the chart's top-left
// corner unless someone reparents it (the profile view puts it in its tab bar's corner).
//
// The roof comes from the rows (ProfileRow::peakGflops, bandwidthGBs): a state that uses
// every core has a higher roof than a single-core one, so each distinct roof is drawn.
// Rows that were not timed, or have no intensity (saved before it was recorded), are not
// points; the title says how many were left out. Both axes are QLogValueAxis (base 10)
// whose ranges are whole decades that contain every point and every knee.
#pragma once

#include "views/profile_model.h"

#include <QChartView>

#include <optional>
#include <vector>

class QComboBox;
class QGraphicsLineItem;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;

namespace loopscape::views {

class RooflineChart : public QChartView {
  Q_OBJECT
public:
  /// What the x axis measures.
  enum class Intensity { Compulsory, Modeled };
  struct Point {
    double intensity = 0; ///< x: FLOP per byte, compulsory or modeled (intensity())
    double compulsoryIntensity = 0;
    std::optional<double> modeledIntensity;
    double gflops = 0;    ///< y: achieved GFLOP/s
    QString label;        ///< the row's label ("step 3 · split / cpu-c", "... (2)" when repeated)
    QString toolTip;      ///< what hovering the point shows
  };
  struct Roof {
    double peakGflops = 0;
    double bandwidthGBs = 0;
    /// The intensity where the slanted roof meets the flat one.
    double knee() const { return peakGflops / bandwidthGBs; }
  };

  explicit RooflineChart(QWidget* parent = nullptr);

  /// Shows the measured `rows` of `programName` (replacing what was shown).
  void setRows(const std::vector<ProfileRow>& rows, const QString& programName);
  void setDark(bool dark);
  /// Asks for an intensity (as the combo box does); the chart shows it when every point
  /// has it, else the compulsory one.
  void setIntensity(Intensity intensity);
  /// The intensity asked for, and the one the points and the x axis show.
  Intensity requestedIntensity() const { return m_requested; }
  Intensity intensity() const { return m_shown; }
  /// The "Intensity: ..." selector (objectName rooflineIntensity).
  QComboBox* intensitySelector() const { return m_selector; }

  const std::vector<Point>& points() const { return m_points; }
  const std::vector<Roof>& roofs() const { return m_roofs; }
  /// Timed rows that are not points (no arithmetic intensity).
  int leftOut() const { return m_leftOut; }
  QLogValueAxis* intensityAxis() const { return m_x; }
  QLogValueAxis* gflopsAxis() const { return m_y; }
  QScatterSeries* pointSeries() const { return m_series; }
  /// The point labels as drawn, in the order of points().
  const std::vector<QGraphicsSimpleTextItem*>& labelItems() const { return m_labels; }
  /// The roofs' labels: "peak P GFLOP/s" above each flat part, "B GB/s" along the slanted
  /// part (or appended to the peak's when the slope is too short to hold it).
  const std::vector<QGraphicsSimpleTextItem*>& roofLabelItems() const { return m_roofLabels; }
  /// The tooltip of the point nearest `value` (chart coordinates), "" when none.
  QString toolTipAt(const QPointF& value) const;

protected:
  void resizeEvent(QResizeEvent* event) override;

private:
  void rebuild();
  /// Places each label right of its point (left when it would leave the plot), moved
  /// down where it would overlap the label above (up, from the bottom, when that would
  /// leave the plot); a label moved off its point gets a thin leader line. Places the
  /// roofs' labels along their roofs.
  void layoutLabels();
  void layoutRoofLabels();
  void onHovered(const QPointF& point, bool state);
  /// Keeps the selector above the plot, in the chart's top-left corner, when it is still
  /// the chart's child; else gives the room back.
  void placeSelector();

  std::vector<ProfileRow> m_rows;
  QString m_programName;
  bool m_dark = false;
  Intensity m_requested = Intensity::Modeled;
  Intensity m_shown = Intensity::Compulsory;
  QComboBox* m_selector = nullptr;
  std::vector<Point> m_points;
  std::vector<Roof> m_roofs;
  int m_leftOut = 0;
  QLogValueAxis* m_x = nullptr;
  QLogValueAxis* m_y = nullptr;
  QScatterSeries* m_series = nullptr;
  std::vector<QGraphicsSimpleTextItem*> m_labels;
  std::vector<QGraphicsLineItem*> m_leaders;
  std::vector<QGraphicsSimpleTextItem*> m_roofLabels; ///< two per roof: peak, bandwidth
  std::vector<QLineSeries*> m_roofSeries;
};

} // namespace loopscape::views
