#include "cli_support.h"

#include "core/frontend/te_frontend.h"
#include "core/schedule/schedule_error.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_script.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace loopscape::cli {

Expected<std::string> readFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Unexpected(Diagnostic::error("cli.cannot-read", fmt::format("cannot read '{}': it is a directory", path)));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Unexpected(
        Diagnostic::error("cli.cannot-read", fmt::format("cannot read '{}': {}", path, std::strerror(errno))));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<LoadedProgram> loadProgram(const std::string& path) {
  auto source = readFile(path);
  if (!source) {
    printDiagnostic(source.error());
    return std::nullopt;
  }
  const auto ext = std::filesystem::path(path).extension().string();
  if (ext != ".te") {
    printDiagnostic(Diagnostic::error(
        "cli.unknown-format",
        fmt::format("'{}': unknown program format '{}'; loopscape reads tensor-expression files (.te)", path,
                    ext.empty() ? "(no extension)" : ext)));
    return std::nullopt;
  }
  auto func = frontend::parseTe(*source, path);
  if (!func) {
    printDiagnostic(func.error(), *source);
    return std::nullopt;
  }
  return LoadedProgram{path, std::move(*source), std::move(*func)};
}

std::optional<schedule::Schedule> applyTraceFile(const LoadedProgram& program, const std::string& tracePath,
                                                 int& exitCode) {
  auto text = readFile(tracePath);
  if (!text) {
    printDiagnostic(text.error());
    exitCode = kExitBadInput;
    return std::nullopt;
  }
  const auto ext = std::filesystem::path(tracePath).extension().string();
  if (ext != ".py" && ext != ".json") {
    printDiagnostic(Diagnostic::error(
        "cli.unknown-trace-format",
        fmt::format("'{}': unknown trace format '{}'; traces are TVM Python scripts (.py) or JSON traces (.json)",
                    tracePath, ext.empty() ? "(no extension)" : ext)));
    exitCode = kExitBadInput;
    return std::nullopt;
  }
  schedule::Schedule sch(program.func);
  auto applied = ext == ".py" ? schedule::applyScript(sch, *text, tracePath)
                              : schedule::applyJsonTrace(sch, *text, tracePath);
  if (applied) return sch;
  const Diagnostic& d = applied.error();
  printDiagnostic(d, *text);
  if (d.code.starts_with("schedule.")) {
    // The schedule left the program as it was before the refused step.
    std::fputs(schedule::renderScheduleError(d, sch.func()).c_str(), stderr);
    exitCode = kExitIllegalSchedule;
  } else {
    exitCode = kExitBadInput;
  }
  return std::nullopt;
}

void printDiagnostic(const Diagnostic& d, std::string_view source) {
  std::fputs(renderDiagnostic(d, source).c_str(), stderr);
}

} // namespace loopscape::cli
