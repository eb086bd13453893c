#include "core/frontend/te_parser.h"

#include "core/syntax/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace loopscape::frontend {

namespace {

using syntax::Node;
using syntax::NodeKind;

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
    d.intRange = "int64";
    d.checkStatement = checkStatement;
    return d;
  }();
  return dialect;
}

Diagnostic unexpectedToken(std::string message, const SourceLocation& loc) {
  return Diagnostic::error("te.unexpected-token", std::move(message), loc);
}

SourceLocation span(SourceLocation loc, int length) {
  loc.length = length;
  return loc;
}

/// The Python expressions the shared parser reads but .te does not have, in source
/// order, worded as the .te parser always did.
Expected<void> checkExpression(const Node& n) {
  switch (n.kind) {
  case NodeKind::Compare:
    if (auto r = checkExpression(*n.kids[0]); !r) return r;
    for (std::size_t i = 0; i < n.ops.size(); ++i) {
      const std::string& op = n.ops[i];
      if (op == "in" || op == "not in" || op == "is" || op == "is not")
        return Unexpected(Diagnostic::error(
            "te.unsupported", fmt::format("operator '{}' is not supported", op == "is not" ? "is" : op), n.opLocs[i]));
      if (auto r = checkExpression(*n.kids[i + 1]); !r) return r;
    }
    return {};
  case NodeKind::Slice:
    if (n.kids[0]) {
      if (auto r = checkExpression(*n.kids[0]); !r) return r;
      return Unexpected(unexpectedToken("expected ',' or ']', found ':'", n.opLocs[0]));
    }
    return Unexpected(unexpectedToken("expected an expression, found ':'", n.opLocs[0]));
  case NodeKind::Starred:
    return Unexpected(unexpectedToken(fmt::format("expected an argument or ')', found '{}'", n.text),
                                      span(n.loc, static_cast<int>(n.text.size()))));
  case NodeKind::ListComp:
    if (auto r = checkExpression(*n.kids[0]); !r) return r;
    return Unexpected(unexpectedToken("expected ',' or ']', found keyword 'for'", n.generators[0].loc));
  default:
    for (const auto& k : n.kids)
      if (auto r = checkExpression(*k); !r) return r;
    return {};
  }
}

Expected<void> checkProgram(const ast::Module& module) {
  for (const auto& s : module.body) {
    for (const auto& t : s.targets)
      if (auto r = checkExpression(*t); !r) return r;
    if (s.value)
      if (auto r = checkExpression(*s.value); !r) return r;
  }
  return {};
}

} // namespace

Expected<ast::Module> parseTeModule(std::string_view source, const std::string& fileName) {
  auto module = syntax::parseModule(source, fileName, teDialect());
  if (!module) return module;
  if (auto r = checkProgram(*module); !r) return std::unexpected(r.error());
  return module;
}

} // namespace loopscape::frontend
