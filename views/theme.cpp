#include "views/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace loopscape::views {

void applyTheme(QApplication& app, bool dark) {
  app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  if (!dark) {
    QPalette p = app.style()->standardPalette();
    p.setColor(QPalette::AlternateBase, QColor(245, 245, 247));
    app.setPalette(p);
    return;
  }
  QPalette p;
  const QColor window(45, 45, 48), base(30, 30, 32), text(220, 220, 220), disabled(127, 127, 127);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(40, 40, 43));
  p.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Link, QColor(80, 160, 255));
  p.setColor(QPalette::Highlight, QColor(42, 110, 190));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Disabled, QPalette::Text, disabled);
  p.setColor(QPalette::Disabled, QPalette::ButtonText, disabled);
  p.setColor(QPalette::Disabled, QPalette::WindowText, disabled);
  app.setPalette(p);
}

CodeColors codeColors(bool dark) {
  if (dark)
    return {QColor("#cc7832"), QColor("#4ec9b0"),  QColor("#6897bb"),  QColor("#6a8759"),
            QColor("#808080"), QColor("#bbb529"),  QColor("#ffc66d"),  QColor("#9876aa"),
            QColor("#e0a060"), QColor(38, 56, 82), QColor(36, 84, 140)};
  return {QColor("#0033b3"), QColor("#00737a"),     QColor("#1750eb"),    QColor("#067d17"),
          QColor("#8c8c8c"), QColor("#9e880d"),     QColor("#00627a"),    QColor("#871094"),
          QColor("#a05a00"), QColor(255, 243, 200), QColor(255, 225, 140)};
}

} // namespace loopscape::views
