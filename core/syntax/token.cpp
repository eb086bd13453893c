#include "core/syntax/token.h"
#include "core/syntax/dialect.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace loopscape::syntax {

bool isKeyword(std::string_view s) {
  static constexpr std::array<std::string_view, 35> kKeywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  return std::find(kKeywords.begin(), kKeywords.end(), s) != kKeywords.end();
}

std::string Dialect::describe(const Token& t) const {
  const bool brief = wording == TokenWording::Brief;
  switch (t.kind) {
  case TokenKind::Name:
    if (!brief && isKeyword(t.text)) return fmt::format("keyword '{}'", t.text);
    return fmt::format("'{}'", t.text);
  case TokenKind::Int:
  case TokenKind::Float: return brief ? "a number" : fmt::format("number '{}'", t.text);
  case TokenKind::Str: return "a string";
  case TokenKind::Op: return fmt::format("'{}'", t.text);
  case TokenKind::Newline: return brief ? "the end of the line" : "end of line";
  case TokenKind::Indent: return "an indented line";
  case TokenKind::Dedent: return "the end of the indented block";
  case TokenKind::End: return brief ? "the end of the file" : "end of file";
  }
  return "token";
}

} // namespace loopscape::syntax
