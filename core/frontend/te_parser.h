// Parser of the tensor-expression language: the shared Python-subset parser
// (core/syntax) in the .te dialect. A program is a list of simple statements
// (assignments, chained or augmented or with tuple targets, imports, expression
// statements, pass) separated by newlines or `;`, with no indentation; expressions are
// Python's without slices, comprehensions, starred arguments and the `in` / `is`
// operators. Errors: "te.unexpected-char",
// "te.unterminated-string", "te.unbalanced", "te.indentation", "te.overflow",
// "te.unexpected-token" (saying what was expected), "te.unsupported" (Python statements
// and operators the language does not have), "te.too-deep".
#pragma once

#include "core/syntax/ast.h"

#include <string>
#include <string_view>

namespace loopscape::frontend {

namespace ast = ::loopscape::syntax;

Expected<ast::Module> parseTeModule(std::string_view source, const std::string& fileName);

} // namespace loopscape::frontend
