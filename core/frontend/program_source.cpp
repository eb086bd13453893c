#include "core/frontend/program_source.h"

#include "core/frontend/te_frontend.h"
#include "core/frontend/tvmscript/tvmscript.h"

namespace loopscape::frontend {

SourceLanguage languageOfPath(std::string_view path) {
  return path.ends_with(".py") || path.ends_with(".tvmscript") ? SourceLanguage::TvmScript : SourceLanguage::Te;
}

Expected<ir::PrimFunc> parseProgram(std::string_view source, SourceLanguage language, const std::string& fileName,
                                    std::string_view function, ir::ScriptDialect* dialect) {
  if (dialect) *dialect = ir::ScriptDialect::Tir;
  if (language == SourceLanguage::Te) return parseTe(source, fileName);
  auto program = parseTvmScript(source, fileName);
  if (!program) return Unexpected(program.error());
  if (dialect) *dialect = program->dialect;
  return selectFunction(*program, function, fileName);
}

} // namespace loopscape::frontend
