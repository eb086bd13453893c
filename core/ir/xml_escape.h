// Escaping text for XML and HTML (attribute values and element content): & < > " become
// entities. Used by the SVG and HTML writers (the iteration-space SVG, the compare
// report, the schedule tree's Graphviz labels).
#pragma once

#include <string>
#include <string_view>

namespace loopscape::ir {

inline std::string xmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

} // namespace loopscape::ir
