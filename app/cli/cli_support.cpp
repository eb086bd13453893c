#include "cli_support.h"

#include "core/frontend/te_frontend.h"

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

void printDiagnostic(const Diagnostic& d, std::string_view source) {
  std::fputs(renderDiagnostic(d, source).c_str(), stderr);
}

} // namespace loopscape::cli
