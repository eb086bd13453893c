// Export of a view as a picture (File → Export view…, and `loopscape --export-view NAME
// --out FILE` headless): the view's widget is drawn as it is shown, into a PNG (its size
// in pixels) or an SVG (QSvgGenerator; the schedule-tree picture writes Graphviz's own
// SVG), chosen by the file's extension.
//
// The views, by name: tensorir (the TensorIR text), tree (the schedule-tree picture),
// code (the code view), profile (the profile's bar chart), roofline (the profile's
// roofline plot), tune (the tuning curve), tune-scatter (predicted against measured),
// trace, program (the program editor), model and model-time (a Relay model's graph and
// its times), space (the iteration-space picture; its slice is computed first).
// Preparing a view shows and raises its dock (and picks the profile's chart tab), so a
// hidden view is laid out before it is drawn.
// compare is the Compare window (compare_window.h; the comparison it shows, else the
// current trace against poly_auto, computed first).
#pragma once

#include <QString>
#include <QStringList>

class QWidget;

namespace loopscape::gui {

class MainWindow;

/// The names above, in that order.
QStringList exportableViewNames();

/// The widget of view `name` in `window`, its dock shown and raised (the profile's tab for
/// profile and roofline chosen) and the pending events processed; nullptr for an unknown
/// name. With `enlargeDock` (the headless export) the dock floats at the window's size, so
/// that the picture is not the sliver a docked bottom dock gets.
QWidget* prepareViewForExport(MainWindow& window, const QString& name, bool enlargeDock = false);

/// The view that has the keyboard focus (the profile dock's shown chart tab decides
/// between profile and roofline; anywhere in the Compare window: compare); "tensorir"
/// when the focus is in none of them.
QString focusedViewName(const MainWindow& window);

/// Draws `widget` into `path`: SVG for a ".svg" path, else PNG. False with `error` set
/// when the format is unknown or the file cannot be written.
bool exportWidget(QWidget* widget, const QString& path, QString* error = nullptr);

/// prepareViewForExport then exportWidget; the tree's SVG is the Graphviz picture itself
/// (waited for when it is still being laid out).
bool exportView(MainWindow& window, const QString& name, const QString& path, QString* error = nullptr,
                bool enlargeDock = false);

} // namespace loopscape::gui
