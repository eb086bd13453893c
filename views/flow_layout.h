// FlowLayout: lays its items out left to right and wraps them onto as many rows as the
// width needs (Qt's flow layout example, with each row's items centred vertically). For
// bars of options that must fit a narrow dock and use one row of a wide one; put a label
// and its field in one widget so that they wrap together.
#pragma once

#include <QLayout>
#include <QList>
#include <QStyle>

namespace loopscape::views {

class FlowLayout : public QLayout {
public:
  /// Spacings of -1: the style's.
  explicit FlowLayout(QWidget* parent = nullptr, int hSpacing = -1, int vSpacing = -1);
  ~FlowLayout() override;

  void addItem(QLayoutItem* item) override;
  int count() const override;
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;
  Qt::Orientations expandingDirections() const override;
  bool hasHeightForWidth() const override;
  int heightForWidth(int width) const override;
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;

  int horizontalSpacing() const;
  int verticalSpacing() const;

private:
  /// Lays the items out in `rect` (only measures when `apply` is false); the height used.
  int doLayout(const QRect& rect, bool apply) const;
  int smartSpacing(QStyle::PixelMetric metric) const;

  QList<QLayoutItem*> m_items;
  int m_hSpacing;
  int m_vSpacing;
};

} // namespace loopscape::views
