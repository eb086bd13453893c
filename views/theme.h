// Light and dark themes: the Fusion style with a light or a dark QPalette, applied to the
// whole application. The theme is a personal setting (QSettings), never part of a session.
#pragma once

class QApplication;

namespace loopscape::views {

void applyTheme(QApplication& app, bool dark);

} // namespace loopscape::views
