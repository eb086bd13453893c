// StatusLabel: the status bar's message. It keeps the whole message as its text and its
// tooltip, and paints only the first line, elided to the width it has, so that a long
// message (a legality refusal with its counterexample) neither widens the window nor is
// cut off mid-word without a sign; the Diagnostics dock keeps the whole report.
#pragma once

#include <QLabel>

namespace loopscape::views {

class StatusLabel : public QLabel {
  Q_OBJECT
public:
  explicit StatusLabel(QWidget* parent = nullptr);

  /// Sets the message (text and tooltip).
  void setMessage(const QString& message);
  /// What is painted: the first line, elided to the current width.
  QString shownText() const;

  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;

protected:
  void paintEvent(QPaintEvent* event) override;
};

} // namespace loopscape::views
