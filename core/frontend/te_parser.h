// Parser of the tensor-expression language: tokens (te_lexer.h) to the syntax tree
// (te_ast.h). Python's expression grammar and precedence (lambda, conditional
// expressions, or/and/not, chained comparisons, | &, + -, * / // %, unary, **, calls with
// keyword arguments, subscripts, attributes, tuples, lists, dicts); statements are
// assignments (chained, tuple targets, augmented), imports and expression statements,
// separated by newlines or `;`. Errors: "te.unexpected-token" (saying what was expected),
// "te.unsupported" (Python statements the language does not have), "te.too-deep".
#pragma once

#include "core/frontend/te_ast.h"
#include "core/frontend/te_lexer.h"

namespace loopscape::frontend {

Expected<ast::Module> parseTeModule(std::string_view source, const std::string& fileName);

} // namespace loopscape::frontend
