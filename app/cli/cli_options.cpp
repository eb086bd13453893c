#include "cli_options.h"

#include "core/ir/checked_arith.h"
#include "core/ir/file_read.h"
#include "core/ir/resource_limits.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <string>

namespace loopscape::cli {

CLI::Validator numberInRange(double lo, double hi, bool integer) {
  const std::string range = fmt::format("between {:g} and {:g}", lo, hi);
  return CLI::Validator(
      [lo, hi, integer, range](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(begin, &end);
        const bool parsed = end != begin && *end == '\0';
        if (!parsed || !std::isfinite(v) || errno == ERANGE)
          return fmt::format("the value '{}' is not a finite number {}", quoteForMessage(text), range);
        if (v < lo || v > hi) return fmt::format("the value '{}' is not {}", quoteForMessage(text), range);
        if (integer && v != std::floor(v))
          return fmt::format("the value '{}' is not a whole number {}", quoteForMessage(text), range);
        return {};
      },
      fmt::format("NUMBER {}", range));
}

Expected<std::int64_t> parseByteSize(std::string_view text) {
  auto bad = [&] {
    return Unexpected(Diagnostic::error(
        "cli.bad-size", fmt::format("'{}' is not a memory size; expected a positive number of bytes with an optional "
                                    "unit K, M, G or T (powers of 1024), e.g. 8G or 512M",
                                    quoteForMessage(text))));
  };
  const std::string s(text);
  const char* begin = s.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(number) || number <= 0) return bad();
  std::string unit(end);
  if (unit.ends_with("iB"))
    unit.resize(unit.size() - 2);
  else if (unit.size() == 2 && unit.back() == 'B')
    unit.resize(1);
  int shift = 0;
  if (unit == "K" || unit == "k")
    shift = 10;
  else if (unit == "M" || unit == "m")
    shift = 20;
  else if (unit == "G" || unit == "g")
    shift = 30;
  else if (unit == "T" || unit == "t")
    shift = 40;
  else if (!unit.empty() && unit != "B")
    return bad();
  const double bytes = std::ldexp(number, shift);
  if (bytes >= 9.2e18)
    return Unexpected(
        Diagnostic::error("cli.bad-size", fmt::format("'{}' is too large for a memory size (at most 8E, 2^63 bytes)",
                                                      quoteForMessage(text))));
  if (bytes < 1) return bad();
  return static_cast<std::int64_t>(bytes);
}

void addMaxMemoryOption(CLI::App& app) {
  app.add_option_function<std::string>(
         "--max-memory",
         [](const std::string& text) {
           auto bytes = parseByteSize(text);
           if (!bytes) throw CLI::ValidationError("--max-memory", bytes.error().message);
           ir::ResourceLimits limits = ir::resourceLimits();
           limits.maxBufferBytes = *bytes;
           ir::setResourceLimits(limits);
         },
         fmt::format("Most memory one array, and the interpreter in all, may take, e.g. 8G or 512M (default {})",
                     ir::formatBytes(ir::ResourceLimits{}.maxBufferBytes)))
      ->type_name("SIZE")
      ->trigger_on_parse();
}

} // namespace loopscape::cli
