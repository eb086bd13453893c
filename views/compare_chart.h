// CompareChart: the Compare window's bar chart of two measured states. One horizontal bar
// per side, its length the median time (the slower side fills the width), labelled with
// the side, the milliseconds and GFLOP/s; a side not measured (yet, or that failed) shows
// its status in place of the bar. Painted with QPainter in the palette's colours, so it
// follows the theme and exports to PNG and SVG as drawn.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

namespace loopscape::views {

struct CompareBar {
  QString label;                  ///< "A", "B"
  QString name;                   ///< what the side is ("current trace (5 steps)")
  std::optional<double> medianMs; ///< absent: not measured
  double gflops = 0;
  QString status; ///< shown without a time: "measuring…", "error: …"
  QColor color;
};

class CompareChart : public QWidget {
  Q_OBJECT
public:
  explicit CompareChart(QWidget* parent = nullptr);
  void setBars(std::vector<CompareBar> bars);
  const std::vector<CompareBar>& bars() const { return m_bars; }
  /// Bar rectangles as last painted (for tests): one per bar with a time.
  std::vector<QRectF> barRects() const;
  QSize sizeHint() const override { return {420, 150}; }
  QSize minimumSizeHint() const override { return {220, 110}; }

protected:
  void paintEvent(QPaintEvent* event) override;

private:
  std::vector<QRectF> layoutBars() const;
  std::vector<CompareBar> m_bars;
};

} // namespace loopscape::views
