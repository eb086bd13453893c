#include "views/primitive_request.h"

#include <cctype>
#include <charconv>
#include <optional>
#include <fmt/format.h>

namespace loopscape::views {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

} // namespace

std::variant<schedule::TraceList, std::string> parseFactorList(const std::string& input) {
  std::string text = trim(input);
  if (!text.empty() && (text.front() == '[' || text.front() == '(')) {
    const char close = text.front() == '[' ? ']' : ')';
    if (text.back() != close) return std::string("unbalanced brackets");
    text = text.substr(1, text.size() - 2);
  }
  schedule::TraceList out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = trim(std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos
                                                                                                  : comma - start));
    if (item.empty()) {
      if (comma == std::string::npos && !out.empty()) break; // trailing comma
      return std::string("empty factor");
    }
    if (item == "None" || item == "none" || item == "?") {
      out.emplace_back();
    } else {
      std::int64_t v = 0;
      auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
      if (ec != std::errc() || ptr != item.data() + item.size())
        return fmt::format("'{}' is neither an integer nor None", item);
      out.emplace_back(v);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.size() < 2) return std::string("give at least two factors, e.g. None, 32");
  return out;
}

std::string describeSplit(std::optional<std::int64_t> extent, const schedule::TraceList& factors) {
  std::int64_t product = 1;
  int nones = 0;
  for (const schedule::TraceValue& f : factors) {
    if (f.isNone()) {
      ++nones;
      continue;
    }
    const std::int64_t* v = f.get<std::int64_t>();
    if (v == nullptr || *v <= 0) return "factors must be positive";
    product *= *v;
  }
  if (nones > 1) return "at most one factor may be None";
  if (!extent) return nones == 1 ? "the None factor is inferred from the symbolic extent" : "";
  std::int64_t inferred = 0;
  if (nones == 1) inferred = (*extent + product - 1) / product;
  std::string list = "[";
  std::int64_t total = 1;
  for (std::size_t i = 0; i < factors.size(); ++i) {
    const std::int64_t v = factors[i].isNone() ? inferred : *factors[i].get<std::int64_t>();
    total *= v;
    list += (i ? ", " : "") + std::to_string(v);
  }
  list += "]";
  if (total < *extent) return fmt::format("{}: product {} < extent {}", list, total, *extent);
  if (total > *extent) return fmt::format("{} (extent {}; the tail is guarded by a predicate)", list, *extent);
  return list;
}

schedule::TraceValue parseLiteral(const std::string& input) {
  const std::string text = trim(input);
  if (text.empty() || text == "None") return {};
  if (text == "True") return true;
  if (text == "False") return false;
  std::int64_t i = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (ec == std::errc() && p == text.data() + text.size()) return i;
  double d = 0;
  auto [p2, ec2] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec2 == std::errc() && p2 == text.data() + text.size()) return d;
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front())
    return text.substr(1, text.size() - 2);
  return text;
}

} // namespace loopscape::views
