// Shared helpers of the GUI tests: reading samples, the expected program of a schedule
// applied by hand, and a window configured for tests (no prompts, no personal settings).
#pragma once

#include "app/gui/main_window.h"
#include "core/schedule/schedule.h"

#include <QString>

#include <memory>
#include <string>

namespace loopscape::testing {

QString readSample(const QString& name);
/// The PrimFunc of a sample (QFAIL-free: aborts the test through QVERIFY in callers).
ir::PrimFunc parseSample(const QString& name);
std::unique_ptr<gui::MainWindow> makeWindow();
/// Waits until the window's session has no job in flight.
bool settle(gui::MainWindow& w);
/// Index of the loop/block called `name` in the TensorIR view's snapshot.
int nodeIndex(gui::MainWindow& w, const std::string& name);
/// Clicks node `index` in the TensorIR view with the mouse.
void clickNode(gui::MainWindow& w, int index);
/// Selects `loop` by clicking it, applies split with `factors` from the panel, waits
/// (QVERIFY failures are recorded in the running test).
void splitFromPanel(gui::MainWindow& w, const std::string& loop, const QString& factors);

} // namespace loopscape::testing
