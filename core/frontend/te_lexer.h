// Tokenizer of the tensor-expression language. Python's lexical rules, restricted:
// names, integer literals (decimal, 0x, 0o, 0b, `_` separators, within int64), float
// literals, '…' / "…" / triple-quoted strings, operators and brackets. A newline ends a
// statement except inside (), [] or {} and after a `\` continuation; blank and comment
// lines produce no token. Indentation at the start of a statement is an error (the
// language has no blocks). Errors are Diagnostics with codes "te.unexpected-char",
// "te.unterminated-string", "te.unbalanced", "te.indentation", "te.overflow".
#pragma once

#include "core/ir/diagnostic.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::frontend {

enum class TokenKind : std::uint8_t { Name, Int, Float, Str, Op, Newline, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text; ///< Name/Op spelling, Str decoded value, number spelling
  std::int64_t ival = 0;
  double fval = 0.0;
  SourceLocation loc;
  int endLine = 0; ///< line of the token's last character (multi-line strings)
  int endColumn = 0; ///< column one past the token's last character on endLine
};

/// Human-readable token description for "expected X, found Y" messages.
std::string describeToken(const Token& t);

Expected<std::vector<Token>> tokenizeTe(std::string_view source, const std::string& fileName);

} // namespace loopscape::frontend
