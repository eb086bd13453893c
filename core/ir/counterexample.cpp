#include "core/ir/counterexample.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace loopscape {

std::string StatementInstance::text() const {
  std::vector<std::string> parts;
  for (const auto& [n, v] : iterators)
    parts.push_back(fmt::format("{}={}", n, v));
  return fmt::format("{}({})", statement, fmt::join(parts, ", "));
}

std::string loopPointText(const LoopPoint& p) {
  std::vector<std::string> parts;
  for (const auto& [n, v] : p)
    parts.push_back(fmt::format("{}={}", n, v));
  return fmt::format("({})", fmt::join(parts, ", "));
}

} // namespace loopscape
