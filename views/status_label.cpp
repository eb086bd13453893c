// The status bar's message, elided (status_label.h).
#include "views/status_label.h"

#include <QPainter>
#include <QStyle>

namespace loopscape::views {

StatusLabel::StatusLabel(QWidget* parent) : QLabel(parent) {
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void StatusLabel::setMessage(const QString& message) {
  setText(message);
  setToolTip(message);
}

QString StatusLabel::shownText() const {
  return fontMetrics().elidedText(text().section(QLatin1Char('\n'), 0, 0), Qt::ElideRight, contentsRect().width());
}

QSize StatusLabel::minimumSizeHint() const { return {0, QLabel::minimumSizeHint().height()}; }

QSize StatusLabel::sizeHint() const { return {0, QLabel::sizeHint().height()}; }

void StatusLabel::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  style()->drawItemText(&painter, contentsRect(), Qt::AlignLeft | Qt::AlignVCenter, palette(), isEnabled(), shownText(),
                        foregroundRole());
}

} // namespace loopscape::views
