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

std::string quoteForMessage(std::string_view text, std::size_t maxChars) {
  std::string out;
  std::size_t chars = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (chars == maxChars) return out + "\xe2\x80\xa6"; // U+2026 HORIZONTAL ELLIPSIS
    const auto c = static_cast<unsigned char>(text[i]);
    // A valid UTF-8 sequence (2 to 4 bytes) is kept as one character.
    const std::size_t len = c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 1;
    bool valid = len > 1 && i + len <= text.size();
    for (std::size_t k = 1; valid && k < len; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    ++chars;
    if (valid) {
      out.append(text.substr(i, len));
      i += len;
      continue;
    }
    ++i;
    switch (c) {
    case '\0': out += "\\0"; continue;
    case '\n': out += "\\n"; continue;
    case '\r': out += "\\r"; continue;
    case '\t': out += "\\t"; continue;
    default: break;
    }
    if (c < 0x20 || c >= 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

} // namespace loopscape
