// Assertions for programmatic bugs. A failed LS_ASSERT or LS_UNREACHABLE prints the
// file, line and message to stderr and aborts; recoverable failures are values
// (std::expected<T, Diagnostic>), never assertions.
#pragma once

#include <fmt/format.h>

namespace loopscape::detail {
[[noreturn]] void assertFail(const char* file, int line, const char* cond, const std::string& message);
}

#define LS_ASSERT(cond, ...)                                                              \
  do {                                                                                    \
    if (!(cond)) [[unlikely]]                                                             \
      ::loopscape::detail::assertFail(__FILE__, __LINE__, #cond, ::fmt::format("" __VA_ARGS__)); \
  } while (false)

#define LS_UNREACHABLE(...) \
  ::loopscape::detail::assertFail(__FILE__, __LINE__, "unreachable", ::fmt::format("" __VA_ARGS__))
