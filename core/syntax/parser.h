// Parser of the shared Python subset: tokens (lexer.h) to the syntax tree (ast.h), with
// Python's grammar and precedence (lambda, conditional expressions, or/and/not, chained
// comparisons, | &, + -, * / // %, unary, **, calls, subscripts and slices, attributes,
// tuples, lists, dicts, list comprehensions) and statements (assignments, augmented
// assignments, expression statements, pass, return, import/from, def with decorators,
// class, for, if/elif/else, with), separated by newlines or `;`, blocks by indentation.
// Errors: kind "unexpected-token" (saying what was expected, or "unexpected
// indentation", "expected an indented block after ..."), "too-deep"; codes and token
// wording come from the Dialect.
//
// Limits (kind "too-deep"): brackets, operands of unary and power operators, `not`,
// lambdas and conditional expressions nest at most ir::resourceLimits().maxNestingDepth
// levels, and so do indented blocks and `elif` chains; operator and call chains, which
// the parser builds without recursion, make trees at most maxExpressionHeight() high
// (maxNestingDepth with Dialect::shallowChains).
// Front ends may therefore walk the tree recursively.
#pragma once

#include "core/syntax/ast.h"
#include "core/syntax/dialect.h"

#include <string_view>

namespace loopscape::syntax {

/// The height a syntax tree (and a front end's expression built from several statements)
/// may reach: five times ir::resourceLimits().maxNestingDepth (1000 by default).
int maxExpressionHeight();

/// Parses a whole file.
Expected<Module> parseModule(std::string_view source, const std::string& fileName, const Dialect& dialect);

/// Parses one expression list that must be the whole text (a trailing newline allowed;
/// indentation means nothing).
Expected<NodePtr> parseExpression(std::string_view source, const std::string& fileName, const Dialect& dialect);

} // namespace loopscape::syntax
