// Reading a workbench session (`.lsproj`, app/gui/session_file.h) on the command line:
// `print`, `check`, `run`, `export`, `poly` and `legal` take a session file where they take
// a program file, and replay it headless: its program text (the language from its
// "sourcePath"), its function, and its trace when no --trace is given.
#pragma once

#include "cli_support.h"

#include <optional>
#include <string>

namespace loopscape::cli {

/// Whether `path` names a session file (extension `.lsproj`).
bool isSessionPath(const std::string& path);

/// The program a session file holds, parsed, with its trace (LoadedProgram::sessionTrace).
/// `text` is the file's content. Errors ("cli.bad-session": not JSON, another format, a
/// newer version, a field of the wrong type) name the file; errors in the program text are
/// located in it as `FILE.lsproj[program]:line:col`. Prints the diagnostic and returns
/// nullopt on failure.
std::optional<LoadedProgram> loadSession(const std::string& path, const std::string& text);

} // namespace loopscape::cli
