// Profile rows in a session file: the measured rows of the session's program are saved in
// the .lsproj's "view" object ("profile": an array of row objects) and come back when the
// session is opened. A row that does not read (a field of the wrong type, an unknown
// status) is left out; nothing else of the session depends on these rows. The optional
// numbers (percent of peak, the roofline's intensity, peak and bandwidth, the modeled
// traffic and its intensity) are absent when missing, so sessions saved before they were
// recorded still read.
#pragma once

#include "views/profile_model.h"

#include <QJsonArray>

#include <vector>

namespace loopscape::views {

QJsonArray profileRowsToJson(const std::vector<ProfileRow>& rows);
/// The rows of `array` that read back; `skipped` (if given) counts the others.
std::vector<ProfileRow> profileRowsFromJson(const QJsonArray& array, int* skipped = nullptr);

} // namespace loopscape::views
