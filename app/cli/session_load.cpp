#include "session_load.h"

#include "core/frontend/program_source.h"

#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace loopscape::cli {

namespace {

/// The session format this build reads (app/gui/session_file.h's kVersion).
constexpr int kSessionVersion = 1;

Diagnostic badSession(const std::string& path, const std::string& why) {
  return Diagnostic::error("cli.bad-session", fmt::format("'{}': {}", path, why));
}

} // namespace

bool isSessionPath(const std::string& path) { return std::filesystem::path(path).extension() == ".lsproj"; }

std::optional<LoadedProgram> loadSession(const std::string& path, const std::string& text) {
  const auto fail = [&](const std::string& why) {
    printDiagnostic(badSession(path, why));
    return std::nullopt;
  };
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return fail("not a session file: the text is not JSON");
  if (!doc.is_object()) return fail("not a session file: the document is not a JSON object");
  const auto field = [&](const char* name) -> const nlohmann::json* {
    auto it = doc.find(name);
    return it == doc.end() || it->is_null() ? nullptr : &*it;
  };
  const nlohmann::json* format = field("format");
  if (!format || !format->is_string() || format->get<std::string>() != "loopscape-session")
    return fail("not a Loopscape session file (missing \"format\": \"loopscape-session\")");
  const nlohmann::json* version = field("version");
  if (!version || !version->is_number_integer() || version->get<std::int64_t>() < 1 ||
      version->get<std::int64_t>() > kSessionVersion)
    return fail(fmt::format("session file version {} is not supported (this build reads version {})",
                            version ? version->dump() : "(none)", kSessionVersion));
  const auto stringField = [&](const char* name, std::string& out) {
    const nlohmann::json* v = field(name);
    if (!v) return true;
    if (!v->is_string()) return false;
    out = v->get<std::string>();
    return true;
  };
  LoadedProgram program;
  std::string sourcePath, function;
  if (!field("source") || !stringField("source", program.source)) return fail("the session file has no source text");
  if (!stringField("sourcePath", sourcePath)) return fail("the session's \"sourcePath\" must be a path");
  if (!stringField("function", function)) return fail("the session's \"function\" must be a function name");
  if (!stringField("trace", program.sessionTrace)) return fail("the session's \"trace\" must be the trace JSON text");
  if (!stringField("target", program.sessionTarget)) return fail("the session's \"target\" must be a target name");

  // The program text is the session's own copy (it may differ from the file on disk):
  // errors are located in it, under a name that says so.
  program.path = path + "[program]";
  const auto language = frontend::languageOfPath(sourcePath);
  ir::ScriptDialect dialect = ir::ScriptDialect::Tir;
  auto func = frontend::parseProgram(program.source, language, program.path, function, &dialect);
  if (!func) {
    printDiagnostic(func.error(), program.source);
    return std::nullopt;
  }
  program.func = std::move(*func);
  program.dialect = dialect;
  program.sessionPath = path;
  return program;
}

} // namespace loopscape::cli
