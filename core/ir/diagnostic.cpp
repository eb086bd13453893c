#include "core/ir/diagnostic.h"

#include <fmt/format.h>

namespace loopscape {

namespace {
std::string_view lineOf(std::string_view source, int line) {
  int current = 1;
  std::size_t start = 0;
  while (current < line) {
    auto nl = source.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
    ++current;
  }
  auto end = source.find('\n', start);
  return source.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

const char* severityName(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "error";
}
} // namespace

std::string renderDiagnostic(const Diagnostic& d, std::string_view source) {
  std::string out;
  const auto& loc = d.location;
  if (loc.valid())
    out = fmt::format("{}:{}:{}: {}: {}\n", loc.file, loc.line, loc.column, severityName(d.severity), d.message);
  else if (!loc.file.empty())
    out = fmt::format("{}: {}: {}\n", loc.file, severityName(d.severity), d.message);
  else
    out = fmt::format("{}: {}\n", severityName(d.severity), d.message);
  if (loc.valid() && !source.empty()) {
    auto text = lineOf(source, loc.line);
    if (!text.empty() || loc.column == 1) {
      std::string caretLine;
      for (int c = 1; c < loc.column && c - 1 < static_cast<int>(text.size()); ++c)
        caretLine += text[c - 1] == '\t' ? '\t' : ' ';
      caretLine += '^';
      if (loc.length > 1) caretLine += std::string(loc.length - 1, '~');
      out += fmt::format("  {}\n  {}\n", text, caretLine);
    }
  }
  for (const auto& n : d.notes) out += fmt::format("note: {}\n", n);
  return out;
}

} // namespace loopscape
