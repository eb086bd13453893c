// What distinguishes one Python-syntax front end from another at the level of syntax:
// the diagnostic codes and token wording of its syntax errors, whether the language has
// indented blocks, how the lexer treats brackets and characters, and which statements it
// refuses outright. The lexer and the parser are the same for every front end; each front
// end gives its Dialect and then does its own semantics on the common tree (ast.h).
#pragma once

#include "core/syntax/token.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loopscape::syntax {

/// How "found X" names a token in "expected Y, found X".
enum class TokenWording : std::uint8_t {
  Detailed, ///< number '4', keyword 'for', end of line, end of file
  Brief,    ///< a number, 'for', the end of the line, the end of the file
};

struct Dialect {
  /// Diagnostic codes are "<codePrefix>.<kind>" (kinds: unexpected-char,
  /// unterminated-string, unbalanced, indentation, overflow, unexpected-token,
  /// unsupported, too-deep),
  /// or "<codePrefix>.syntax" for every kind when `oneCode` is set.
  std::string codePrefix = "syntax";
  bool oneCode = false;
  TokenWording wording = TokenWording::Detailed;
  /// When set, the language has no blocks: any indented statement is a lexer error with
  /// this message (code kind "indentation").
  std::optional<std::string> flatIndentationMessage;
  /// The lexer reports a closing bracket without an opening one or of another kind;
  /// otherwise the parser meets it as an unexpected token.
  bool matchBrackets = true;
  /// Characters the lexer rejects as "unexpected character" although Python has them.
  std::string_view rejectedChars;
  /// "integer literal N does not fit in <intRange>".
  std::string intRange = "int64";
  /// Phrases of "expected <phrase>, found X" that the front end words its own way
  /// (the parser's phrase, the front end's).
  std::vector<std::pair<std::string_view, std::string_view>> expectedWording;
  /// Python constructs the language leaves out of its grammar: where one would start,
  /// the parser says what it expected instead, as a parser without them would.
  bool slices = true;
  bool comprehensions = true;
  bool starredArguments = true;
  /// `name: annotation = value` statements (Stmt::annotation); otherwise the ':' is an
  /// unexpected token.
  bool annotatedAssignments = false;
  /// Comparison operators ("in", "not in", "is", "is not") the language refuses where
  /// they stand: "operator 'in' is not supported" (kind "unsupported").
  std::vector<std::string_view> unsupportedOperators;
  /// Operator, call, subscript and attribute chains make trees at most
  /// maxExpressionHeight() high; with this set, at most ir::resourceLimits().maxNestingDepth
  /// high (for a front end whose recursive walks take much stack per level).
  bool shallowChains = false;
  /// Called at the start of every statement with its first two tokens; a Diagnostic
  /// refuses the statement before it is parsed (so a half-written block still gets it).
  std::function<std::optional<Diagnostic>(const Token& first, const Token& second)> checkStatement;

  std::string code(std::string_view kind) const {
    return codePrefix + "." + std::string(oneCode ? std::string_view("syntax") : kind);
  }
  Diagnostic error(std::string_view kind, std::string message, SourceLocation loc) const {
    return Diagnostic::error(code(kind), std::move(message), std::move(loc));
  }
  /// "number '4'" / "a number", ...
  std::string describe(const Token& t) const;
  /// `phrase` as this front end words it in "expected <phrase>".
  std::string_view expected(std::string_view phrase) const {
    for (const auto& [from, to] : expectedWording)
      if (from == phrase) return to;
    return phrase;
  }
};

} // namespace loopscape::syntax
