// Tokens of the Python subset shared by Loopscape's Python-syntax front ends (.te
// programs, trace scripts, TVMScript). A logical line ends with a Newline token; a line
// indented deeper than the one before opens a block with an Indent token and each block
// it leaves is closed by a Dedent token, as in Python's tokenizer.
#pragma once

#include "core/ir/diagnostic.h"

#include <cstdint>
#include <string>

namespace loopscape::syntax {

enum class TokenKind : std::uint8_t { Name, Int, Float, Str, Op, Newline, Indent, Dedent, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text; ///< Name/Op spelling, Str decoded value, number spelling
  std::int64_t ival = 0;
  double fval = 0.0;
  SourceLocation loc; ///< Indent/Dedent: the first character of the line, length 1
  int endLine = 0;    ///< line of the token's last character (multi-line strings)
  int endColumn = 0;  ///< column one past the token's last character on endLine
};

/// Python's keywords (`None`, `True` and `False` included).
bool isKeyword(std::string_view name);

} // namespace loopscape::syntax
