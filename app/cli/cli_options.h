// Checks and parsers for the numeric options of loopscape-cli, so that every number a user
// types is finite and in a sane range before any work starts (a violation is a usage
// error: the message names the option, the value and the range, exit status 2), and the
// global --max-memory option that sets the memory limit of ir::resourceLimits().
#pragma once

#include "core/ir/diagnostic.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string_view>

namespace loopscape::cli {

/// A CLI11 check: the value is a finite number in [lo, hi]; `integer` also requires a
/// whole number. The message reads "the value 'nan' is not a finite number between 0 and
/// 3600000".
CLI::Validator numberInRange(double lo, double hi, bool integer = false);

/// A byte count such as "8G", "512M", "1.5GiB", "4096" (K, M, G, T with an optional "iB"
/// or "B": powers of 1024). Errors ("cli.bad-size") say what is expected.
Expected<std::int64_t> parseByteSize(std::string_view text);

/// Adds `--max-memory SIZE` to `app`: the most bytes one array, and the interpreter in
/// all, may take (ir::ResourceLimits::maxBufferBytes; default 8G).
void addMaxMemoryOption(CLI::App& app);

} // namespace loopscape::cli
