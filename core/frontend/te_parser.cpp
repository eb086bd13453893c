#include "core/frontend/te_parser.h"

#include "core/syntax/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace loopscape::frontend {

namespace {

/// Statements other than assignments, expressions, imports and `pass` are refused by
/// their first keyword, before the parser reads them.
std::optional<Diagnostic> checkStatement(const syntax::Token& first, const syntax::Token&) {
  static constexpr std::array<std::string_view, 8> kAllowed = {"import", "from", "pass", "lambda",
                                                               "not",    "None", "True", "False"};
  if (first.kind != syntax::TokenKind::Name || !syntax::isKeyword(first.text) ||
      std::find(kAllowed.begin(), kAllowed.end(), first.text) != kAllowed.end())
    return std::nullopt;
  return Diagnostic::error(
      "te.unsupported",
      fmt::format("'{}' statements are not supported: a .te program is a list of assignments (one per line)",
                  first.text),
      first.loc);
}

const syntax::Dialect& teDialect() {
  static const syntax::Dialect dialect = [] {
    syntax::Dialect d;
    d.codePrefix = "te";
    d.wording = syntax::TokenWording::Detailed;
    d.flatIndentationMessage =
        "unexpected indentation: statements must start in column 1 (the language has no indented blocks)";
    d.matchBrackets = true;
    d.rejectedChars = "@";
    d.slices = false;
    d.comprehensions = false;
    d.starredArguments = false;
    d.unsupportedOperators = {"in", "not in", "is", "is not"};
    d.intRange = "int64";
    d.checkStatement = checkStatement;
    return d;
  }();
  return dialect;
}

} // namespace

Expected<ast::Module> parseTeModule(std::string_view source, const std::string& fileName) {
  return syntax::parseModule(source, fileName, teDialect());
}

} // namespace loopscape::frontend
