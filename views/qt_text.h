// Text from the core (UTF-8 std::string and std::string_view) as a QString, for the views
// and the workbench.
#pragma once

#include <QString>

#include <string_view>

namespace loopscape::views {

/// `s`, UTF-8, as a QString.
inline QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

} // namespace loopscape::views
