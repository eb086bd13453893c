#include "views/compare_chart.h"

#include <QPainter>

#include <algorithm>

namespace loopscape::views {

namespace {
constexpr int kMargin = 10;
constexpr int kLabelWidth = 28;
constexpr int kRowHeight = 26;
constexpr int kRowGap = 30; ///< below each bar: its name
} // namespace

CompareChart::CompareChart(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("compareChart"));
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void CompareChart::setBars(std::vector<CompareBar> bars) {
  m_bars = std::move(bars);
  update();
}

std::vector<QRectF> CompareChart::layoutBars() const {
  double longest = 0;
  for (const CompareBar& b : m_bars)
    if (b.medianMs) longest = std::max(longest, *b.medianMs);
  // Room on the right for the "12.3 ms · 4.56 GFLOP/s" text of the longest bar.
  const double full = std::max(40.0, width() - 2.0 * kMargin - kLabelWidth - 170.0);
  std::vector<QRectF> out;
  double y = kMargin + 18; // below the title
  for (const CompareBar& b : m_bars) {
    const double w = b.medianMs && longest > 0 ? std::max(2.0, full * *b.medianMs / longest) : 0;
    out.emplace_back(kMargin + kLabelWidth, y, w, kRowHeight);
    y += kRowHeight + kRowGap;
  }
  return out;
}

std::vector<QRectF> CompareChart::barRects() const {
  std::vector<QRectF> out;
  const auto rects = layoutBars();
  for (std::size_t i = 0; i < m_bars.size(); ++i)
    if (m_bars[i].medianMs) out.push_back(rects[i]);
  return out;
}

void CompareChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  p.setPen(pal.color(QPalette::Text));
  QFont title = font();
  title.setBold(true);
  p.setFont(title);
  p.drawText(QRectF(kMargin, 2, width() - 2 * kMargin, 18), Qt::AlignLeft | Qt::AlignVCenter,
             QStringLiteral("Median time per call (shorter is faster)"));
  p.setFont(font());
  if (m_bars.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, QStringLiteral("Not measured yet: press Measure"));
    return;
  }
  const auto rects = layoutBars();
  for (std::size_t i = 0; i < m_bars.size(); ++i) {
    const CompareBar& b = m_bars[i];
    const QRectF& r = rects[i];
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QRectF(kMargin, r.top(), kLabelWidth, r.height()), Qt::AlignLeft | Qt::AlignVCenter, b.label);
    p.setFont(font());
    QString text;
    double textX = r.left();
    if (b.medianMs) {
      p.fillRect(r, b.color);
      text = QStringLiteral("%1 ms · %2 GFLOP/s").arg(*b.medianMs, 0, 'g', 4).arg(b.gflops, 0, 'f', 2);
      textX = r.right() + 6;
    } else {
      text = b.status.isEmpty() ? QStringLiteral("not measured") : b.status;
      p.setPen(pal.color(QPalette::PlaceholderText));
    }
    p.drawText(QRectF(textX, r.top(), width() - textX - kMargin, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
               fontMetrics().elidedText(text, Qt::ElideRight, int(width() - textX - kMargin)));
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRectF(r.left(), r.bottom() + 2, width() - r.left() - kMargin, kRowGap - 6),
               Qt::AlignLeft | Qt::AlignTop,
               fontMetrics().elidedText(b.name, Qt::ElideMiddle, int(width() - r.left() - kMargin)));
  }
}

} // namespace loopscape::views
