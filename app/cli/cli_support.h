// Shared pieces of the loopscape-cli subcommands: exit codes, loading a program file
// through the right front end, and rendering diagnostics to stderr.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"

#include <optional>
#include <string>

namespace loopscape::cli {

/// Exit statuses: 0 success, 1 internal failure, 2 bad input (file, syntax, arguments).
enum ExitCode : int { kExitOk = 0, kExitInternal = 1, kExitBadInput = 2 };

/// A parsed program with the text it came from (for rendering diagnostics).
struct LoadedProgram {
  std::string path;
  std::string source;
  ir::PrimFunc func;
};

/// Reads `path` and runs the front end chosen by its extension (.te today). On failure
/// the diagnostic is printed to stderr (with the offending source line) and nullopt is
/// returned; every such failure is bad input (exit status 2).
std::optional<LoadedProgram> loadProgram(const std::string& path);

/// Reads a whole file; a Diagnostic "cli.cannot-read" names the file and the reason.
Expected<std::string> readFile(const std::string& path);

/// Prints `d` to stderr, with the source line and caret when `source` is given.
void printDiagnostic(const Diagnostic& d, std::string_view source = {});

} // namespace loopscape::cli
