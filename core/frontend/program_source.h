// The program languages a user opens, told apart by the file's extension, and one parse
// entry for both: `.py` and `.tvmscript` files are TVMScript (a @T.prim_func or an
// @I.ir_module, of which `function` picks one), anything else is a tensor-expression
// (.te) program. The command line and the workbench read programs through it.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/ir/printer.h"

#include <string>
#include <string_view>

namespace loopscape::frontend {

enum class SourceLanguage { Te, TvmScript };

/// TvmScript for a path ending in ".py" or ".tvmscript", Te otherwise.
SourceLanguage languageOfPath(std::string_view path);

/// Parses a program; for TVMScript `function` names the module's function to take ("":
/// "main", or the only one), and an error lists the functions when there is no such one.
/// `dialect`, when given, receives the TVMScript spelling the file used (Tir for .te).
Expected<ir::PrimFunc> parseProgram(std::string_view source, SourceLanguage language, const std::string& fileName,
                                    std::string_view function = {}, ir::ScriptDialect* dialect = nullptr);

} // namespace loopscape::frontend
