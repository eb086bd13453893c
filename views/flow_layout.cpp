#include "views/flow_layout.h"

#include <QWidget>

#include <algorithm>

namespace loopscape::views {

FlowLayout::FlowLayout(QWidget* parent, int hSpacing, int vSpacing)
    : QLayout(parent), m_hSpacing(hSpacing), m_vSpacing(vSpacing) {}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0))
    delete item;
}

void FlowLayout::addItem(QLayoutItem* item) { m_items.append(item); }
int FlowLayout::count() const { return static_cast<int>(m_items.size()); }
QLayoutItem* FlowLayout::itemAt(int index) const { return m_items.value(index); }
QLayoutItem* FlowLayout::takeAt(int index) {
  return index >= 0 && index < m_items.size() ? m_items.takeAt(index) : nullptr;
}
Qt::Orientations FlowLayout::expandingDirections() const { return {}; }
bool FlowLayout::hasHeightForWidth() const { return true; }
int FlowLayout::heightForWidth(int width) const { return doLayout(QRect(0, 0, width, 0), false); }

QSize FlowLayout::minimumSize() const {
  // As narrow as the widest item: everything else wraps.
  QSize size;
  for (const QLayoutItem* item : m_items)
    size = size.expandedTo(item->minimumSize());
  const QMargins m = contentsMargins();
  return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const {
  // One row.
  int width = 0, height = 0;
  for (const QLayoutItem* item : m_items) {
    if (item->isEmpty()) continue;
    if (width > 0) width += horizontalSpacing();
    width += item->sizeHint().width();
    height = std::max(height, item->sizeHint().height());
  }
  const QMargins m = contentsMargins();
  return QSize(width + m.left() + m.right(), height + m.top() + m.bottom());
}

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  doLayout(rect, true);
}

int FlowLayout::horizontalSpacing() const {
  return m_hSpacing >= 0 ? m_hSpacing : smartSpacing(QStyle::PM_LayoutHorizontalSpacing);
}
int FlowLayout::verticalSpacing() const {
  return m_vSpacing >= 0 ? m_vSpacing : smartSpacing(QStyle::PM_LayoutVerticalSpacing);
}

int FlowLayout::smartSpacing(QStyle::PixelMetric metric) const {
  QObject* parent = this->parent();
  if (!parent) return 6;
  if (parent->isWidgetType()) {
    auto* w = static_cast<QWidget*>(parent);
    const int s = w->style()->pixelMetric(metric, nullptr, w);
    return s >= 0 ? s : 6;
  }
  return std::max(0, static_cast<QLayout*>(parent)->spacing());
}

int FlowLayout::doLayout(const QRect& rect, bool apply) const {
  const QRect area = rect.marginsRemoved(contentsMargins());
  const int hSpace = horizontalSpacing();
  const int vSpace = verticalSpacing();
  // Rows first (which items, how tall), then the items placed, centred in their row.
  struct Row {
    int first = 0, last = 0; ///< items [first, last)
    int height = 0;
  };
  QList<Row> rows;
  Row row;
  int x = area.x();
  for (int i = 0; i < m_items.size(); ++i) {
    const QLayoutItem* item = m_items[i];
    if (item->isEmpty()) continue;
    const QSize hint = item->sizeHint();
    if (x > area.x() && x + hint.width() > area.right() + 1) {
      row.last = i;
      rows.append(row);
      row = Row{i, i, 0};
      x = area.x();
    }
    x += hint.width() + hSpace;
    row.height = std::max(row.height, hint.height());
  }
  row.last = static_cast<int>(m_items.size());
  if (row.height > 0) rows.append(row);

  int y = area.y();
  for (const Row& r : rows) {
    if (apply) {
      int left = area.x();
      for (int i = r.first; i < r.last; ++i) {
        QLayoutItem* item = m_items[i];
        if (item->isEmpty()) continue;
        const QSize hint = item->sizeHint();
        const int width = std::min(hint.width(), std::max(0, area.right() + 1 - left));
        item->setGeometry(QRect(left, y + (r.height - hint.height()) / 2, width, hint.height()));
        left += hint.width() + hSpace;
      }
    }
    y += r.height + vSpace;
  }
  if (!rows.isEmpty()) y -= vSpace;
  return y - rect.y() + contentsMargins().bottom();
}

} // namespace loopscape::views
