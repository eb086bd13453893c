// Light and dark themes: the Fusion style with a light or a dark QPalette, applied to the
// whole application. The theme is a personal setting (QSettings), never part of a session.
#pragma once

#include <QColor>

class QApplication;

namespace loopscape::views {

void applyTheme(QApplication& app, bool dark);

/// Colours of generated code (the code view's highlighter and its loop highlight), each
/// readable on the light or the dark theme's Base colour.
struct CodeColors {
  QColor keyword, type, number, string, comment, preprocessor, function, variable, label;
  QColor linkedLines; ///< background of the lines the selected loop produced
  QColor linkedFirst; ///< background of the first of them (the loop's header)
};
CodeColors codeColors(bool dark);

} // namespace loopscape::views
