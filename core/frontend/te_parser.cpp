#include "core/frontend/te_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace loopscape::frontend {

namespace {

using ast::Node;
using ast::NodeKind;
using ast::NodePtr;

constexpr int kMaxDepth = 150;
constexpr int kMaxHeight = 1000; // evaluation recurses over the tree

constexpr std::array<std::string_view, 30> kKeywords = {
    "False", "None",   "True",  "and",   "as",     "assert", "async",  "await",    "break",  "class",
    "continue", "def", "del",   "elif",  "else",   "except", "finally", "for",     "from",   "global",
    "if",    "import", "in",    "is",    "lambda", "nonlocal", "not",  "or",       "pass",   "raise"};
constexpr std::array<std::string_view, 5> kMoreKeywords = {"return", "try", "while", "with", "yield"};

bool isKeyword(std::string_view s) {
  return std::find(kKeywords.begin(), kKeywords.end(), s) != kKeywords.end() ||
         std::find(kMoreKeywords.begin(), kMoreKeywords.end(), s) != kMoreKeywords.end();
}

class Parser {
public:
  Parser(std::vector<Token> tokens) : m_tokens(std::move(tokens)) {}

  Expected<ast::Module> parseModule() {
    ast::Module module;
    while (!at(TokenKind::End)) {
      if (at(TokenKind::Newline)) {
        ++m_pos;
        continue;
      }
      while (true) {
        auto s = parseSimpleStatement();
        if (!s) return std::unexpected(s.error());
        if (s->kind != ast::StmtKind::Expr || s->value) module.body.push_back(std::move(*s));
        if (atOp(";")) {
          ++m_pos;
          if (at(TokenKind::Newline) || at(TokenKind::End)) break;
          continue;
        }
        break;
      }
      if (at(TokenKind::End)) break;
      if (!at(TokenKind::Newline)) return unexpected("';' or the end of the line");
      ++m_pos;
    }
    return module;
  }

private:
  // ---- token helpers ------------------------------------------------------------------
  const Token& cur() const { return m_tokens[m_pos]; }
  bool at(TokenKind k) const { return cur().kind == k; }
  bool atOp(std::string_view op) const { return cur().kind == TokenKind::Op && cur().text == op; }
  bool atName(std::string_view n) const { return cur().kind == TokenKind::Name && cur().text == n; }
  const Token& take() {
    const Token& t = m_tokens[m_pos];
    if (t.kind != TokenKind::End) ++m_pos;
    return t;
  }

  Unexpected unexpected(std::string_view expected) const {
    const Token& t = cur();
    std::string found = describeToken(t);
    if (t.kind == TokenKind::Name && isKeyword(t.text)) found = fmt::format("keyword '{}'", t.text);
    return Unexpected(Diagnostic::error("te.unexpected-token", fmt::format("expected {}, found {}", expected, found), t.loc));
  }

  Expected<void> expectOp(std::string_view op, std::string_view what = {}) {
    if (!atOp(op)) return unexpected(what.empty() ? fmt::format("'{}'", op) : std::string(what));
    take();
    return {};
  }

  NodePtr node(NodeKind kind, const SourceLocation& start) const {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->loc = start;
    return n;
  }

  /// Extends `n->loc` from its start to the end of the last consumed token.
  void finish(Node& n) const {
    for (const auto& k : n.kids) n.height = std::max(n.height, k->height + 1);
    if (m_pos == 0) return;
    const Token& last = m_tokens[m_pos - 1];
    if (last.endLine == n.loc.line && last.endColumn > n.loc.column) n.loc.length = last.endColumn - n.loc.column;
  }

  struct DepthGuard {
    int& depth;
    explicit DepthGuard(int& d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
  };

  /// Long operator chains (`1+1+...`) nest without recursion in the parser; bound them.
  Expected<void> checkHeight(const Node& n) const {
    if (n.height > kMaxHeight)
      return Unexpected(Diagnostic::error("te.too-deep", fmt::format("expression nested more than {} levels deep", kMaxHeight), n.loc));
    return {};
  }

  Expected<void> checkDepth() const {
    if (m_depth > kMaxDepth)
      return Unexpected(Diagnostic::error("te.too-deep", fmt::format("expression nested more than {} levels deep", kMaxDepth), cur().loc));
    return {};
  }

  // ---- statements ---------------------------------------------------------------------
  Expected<ast::Stmt> parseSimpleStatement() {
    ast::Stmt s;
    s.loc = cur().loc;
    if (atName("import") || atName("from")) return parseImport();
    if (cur().kind == TokenKind::Name && isKeyword(cur().text) && cur().text != "lambda" && cur().text != "not" &&
        cur().text != "None" && cur().text != "True" && cur().text != "False") {
      if (cur().text == "pass") {
        take();
        s.kind = ast::StmtKind::Expr;
        return s;
      }
      return Unexpected(Diagnostic::error(
          "te.unsupported",
          fmt::format("'{}' statements are not supported: a .te program is a list of assignments (one per line)", cur().text),
          cur().loc));
    }
    auto first = parseTestList();
    if (!first) return std::unexpected(first.error());
    static constexpr std::string_view kAug[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**="};
    for (auto op : kAug) {
      if (!atOp(op)) continue;
      take();
      auto value = parseTestList();
      if (!value) return std::unexpected(value.error());
      s.kind = ast::StmtKind::AugAssign;
      s.op = std::string(op.substr(0, op.size() - 1));
      s.targets.push_back(std::move(*first));
      s.value = std::move(*value);
      return s;
    }
    if (!atOp("=")) {
      s.kind = ast::StmtKind::Expr;
      s.value = std::move(*first);
      return s;
    }
    s.kind = ast::StmtKind::Assign;
    s.targets.push_back(std::move(*first));
    while (atOp("=")) {
      take();
      auto next = parseTestList();
      if (!next) return std::unexpected(next.error());
      s.targets.push_back(std::move(*next));
    }
    s.value = std::move(s.targets.back());
    s.targets.pop_back();
    return s;
  }

  Expected<std::string> parseDotted(SourceLocation& loc) {
    if (!at(TokenKind::Name) || isKeyword(cur().text)) return unexpected("a module name");
    loc = cur().loc;
    std::string path = take().text;
    while (atOp(".")) {
      take();
      if (!at(TokenKind::Name) || isKeyword(cur().text)) return unexpected("a name after '.'");
      path += "." + take().text;
    }
    if (m_pos > 0 && m_tokens[m_pos - 1].endLine == loc.line) loc.length = m_tokens[m_pos - 1].endColumn - loc.column;
    return path;
  }

  Expected<std::string> parseAlias() {
    take(); // 'as'
    if (!at(TokenKind::Name) || isKeyword(cur().text)) return unexpected("a name after 'as'");
    return take().text;
  }

  Expected<ast::Stmt> parseImport() {
    ast::Stmt s;
    s.kind = ast::StmtKind::Import;
    s.loc = cur().loc;
    if (take().text == "import") {
      while (true) {
        ast::ImportBinding b;
        auto path = parseDotted(b.loc);
        if (!path) return std::unexpected(path.error());
        b.module = *path;
        b.alias = path->substr(0, path->find('.'));
        if (atName("as")) {
          auto alias = parseAlias();
          if (!alias) return std::unexpected(alias.error());
          b.alias = *alias;
        } else {
          b.module = b.alias; // `import tvm.te` binds `tvm`
        }
        s.imports.push_back(std::move(b));
        if (!atOp(",")) break;
        take();
      }
      return s;
    }
    SourceLocation fromLoc;
    auto from = parseDotted(fromLoc);
    if (!from) return std::unexpected(from.error());
    if (!atName("import")) return unexpected("'import'");
    take();
    bool paren = atOp("(");
    if (paren) take();
    while (true) {
      if (!at(TokenKind::Name) || isKeyword(cur().text)) return unexpected("a name to import");
      ast::ImportBinding b;
      b.loc = cur().loc;
      std::string name = take().text;
      b.module = *from + "." + name;
      b.alias = name;
      if (atName("as")) {
        auto alias = parseAlias();
        if (!alias) return std::unexpected(alias.error());
        b.alias = *alias;
      }
      s.imports.push_back(std::move(b));
      if (!atOp(",")) break;
      take();
      if (paren && atOp(")")) break;
    }
    if (paren)
      if (auto r = expectOp(")"); !r) return std::unexpected(r.error());
    return s;
  }

  // ---- expressions --------------------------------------------------------------------
  bool startsExpression() const {
    const Token& t = cur();
    switch (t.kind) {
    case TokenKind::Name:
      return !isKeyword(t.text) || t.text == "lambda" || t.text == "not" || t.text == "None" || t.text == "True" ||
             t.text == "False";
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::Str: return true;
    case TokenKind::Op: return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+";
    default: return false;
    }
  }

  /// test (',' test)* [','] -> a Tuple when there is a comma.
  Expected<NodePtr> parseTestList() {
    SourceLocation start = cur().loc;
    auto first = parseTest();
    if (!first) return first;
    if (!atOp(",")) return first;
    auto tuple = node(NodeKind::Tuple, start);
    tuple->kids.push_back(std::move(*first));
    while (atOp(",")) {
      take();
      if (!startsExpression()) break;
      auto next = parseTest();
      if (!next) return next;
      tuple->kids.push_back(std::move(*next));
    }
    finish(*tuple);
    return tuple;
  }

  Expected<NodePtr> parseTest() {
    DepthGuard guard(m_depth);
    if (auto r = checkDepth(); !r) return std::unexpected(r.error());
    if (atName("lambda")) return parseLambda();
    SourceLocation start = cur().loc;
    auto value = parseOr();
    if (!value) return value;
    if (!atName("if")) return value;
    take();
    auto cond = parseOr();
    if (!cond) return cond;
    if (!atName("else")) return unexpected("'else' in the conditional expression");
    take();
    auto other = parseTest();
    if (!other) return other;
    auto n = node(NodeKind::IfExp, start);
    n->kids.push_back(std::move(*cond));
    n->kids.push_back(std::move(*value));
    n->kids.push_back(std::move(*other));
    finish(*n);
    return n;
  }

  Expected<NodePtr> parseLambda() {
    auto n = node(NodeKind::Lambda, cur().loc);
    take();
    while (!atOp(":")) {
      if (!at(TokenKind::Name) || isKeyword(cur().text)) return unexpected(n->params.empty() ? "a parameter name or ':'" : "a parameter name");
      n->paramLocs.push_back(cur().loc);
      n->params.push_back(take().text);
      if (atOp(",")) {
        take();
        continue;
      }
      if (!atOp(":")) return unexpected("',' or ':' after the lambda parameter");
    }
    take();
    auto body = parseTest();
    if (!body) return body;
    n->kids.push_back(std::move(*body));
    finish(*n);
    return n;
  }

  Expected<NodePtr> parseOr() { return parseBoolChain("or", &Parser::parseAnd); }
  Expected<NodePtr> parseAnd() { return parseBoolChain("and", &Parser::parseNot); }

  Expected<NodePtr> parseBoolChain(std::string_view op, Expected<NodePtr> (Parser::*sub)()) {
    SourceLocation start = cur().loc;
    auto lhs = (this->*sub)();
    if (!lhs) return lhs;
    while (atName(op)) {
      take();
      auto rhs = (this->*sub)();
      if (!rhs) return rhs;
      auto n = node(NodeKind::BoolOp, start);
      n->text = std::string(op);
      n->kids.push_back(std::move(*lhs));
      n->kids.push_back(std::move(*rhs));
      finish(*n);
      if (auto r = checkHeight(*n); !r) return std::unexpected(r.error());
      lhs = std::move(n);
    }
    return lhs;
  }

  Expected<NodePtr> parseNot() {
    if (!atName("not")) return parseComparison();
    DepthGuard guard(m_depth);
    if (auto r = checkDepth(); !r) return std::unexpected(r.error());
    auto n = node(NodeKind::Unary, cur().loc);
    take();
    n->text = "not";
    auto operand = parseNot();
    if (!operand) return operand;
    n->kids.push_back(std::move(*operand));
    finish(*n);
    return n;
  }

  std::string compareOp() {
    if (cur().kind == TokenKind::Op) {
      static constexpr std::string_view kOps[] = {"<", ">", "==", "!=", "<=", ">="};
      for (auto op : kOps)
        if (cur().text == op) return std::string(op);
    }
    if (atName("in") || atName("is")) return cur().text;
    if (atName("not") && m_tokens[m_pos + 1].kind == TokenKind::Name && m_tokens[m_pos + 1].text == "in") return "not in";
    return {};
  }

  Expected<NodePtr> parseComparison() {
    SourceLocation start = cur().loc;
    auto lhs = parseBinary(0);
    if (!lhs) return lhs;
    std::string op = compareOp();
    if (op.empty()) return lhs;
    auto n = node(NodeKind::Compare, start);
    n->kids.push_back(std::move(*lhs));
    while (!op.empty()) {
      if (op == "in" || op == "is" || op == "not in")
        return Unexpected(Diagnostic::error("te.unsupported", fmt::format("operator '{}' is not supported", op), cur().loc));
      take();
      auto rhs = parseBinary(0);
      if (!rhs) return rhs;
      n->ops.push_back(op);
      n->kids.push_back(std::move(*rhs));
      op = compareOp();
    }
    finish(*n);
    return n;
  }

  /// Binary levels: 0 '|', 1 '&', 2 '+ -', 3 '* / // %'.
  Expected<NodePtr> parseBinary(int level) {
    if (level == 4) return parseFactor();
    static const std::vector<std::vector<std::string_view>> kLevels = {{"|"}, {"&"}, {"+", "-"}, {"*", "/", "//", "%"}};
    SourceLocation start = cur().loc;
    auto lhs = parseBinary(level + 1);
    if (!lhs) return lhs;
    while (cur().kind == TokenKind::Op) {
      const auto& ops = kLevels[level];
      auto it = std::find(ops.begin(), ops.end(), cur().text);
      if (it == ops.end()) break;
      take();
      auto rhs = parseBinary(level + 1);
      if (!rhs) return rhs;
      auto n = node(NodeKind::Binary, start);
      n->text = std::string(*it);
      n->kids.push_back(std::move(*lhs));
      n->kids.push_back(std::move(*rhs));
      finish(*n);
      if (auto r = checkHeight(*n); !r) return std::unexpected(r.error());
      lhs = std::move(n);
    }
    return lhs;
  }

  Expected<NodePtr> parseFactor() {
    DepthGuard guard(m_depth);
    if (auto r = checkDepth(); !r) return std::unexpected(r.error());
    if (atOp("-") || atOp("+")) {
      auto n = node(NodeKind::Unary, cur().loc);
      n->text = take().text;
      auto operand = parseFactor();
      if (!operand) return operand;
      n->kids.push_back(std::move(*operand));
      finish(*n);
      return n;
    }
    SourceLocation start = cur().loc;
    auto base = parsePrimary();
    if (!base) return base;
    if (!atOp("**")) return base;
    take();
    auto exponent = parseFactor(); // right associative, binds tighter than unary on its left
    if (!exponent) return exponent;
    auto n = node(NodeKind::Binary, start);
    n->text = "**";
    n->kids.push_back(std::move(*base));
    n->kids.push_back(std::move(*exponent));
    finish(*n);
    return n;
  }

  Expected<NodePtr> parsePrimary() {
    SourceLocation start = cur().loc;
    auto value = parseAtom();
    if (!value) return value;
    while (true) {
      if (atOp("(")) {
        take();
        auto call = node(NodeKind::Call, start);
        call->kids.push_back(std::move(*value));
        if (auto r = parseArguments(*call); !r) return std::unexpected(r.error());
        finish(*call);
        if (auto r = checkHeight(*call); !r) return std::unexpected(r.error());
        value = std::move(call);
      } else if (atOp("[")) {
        take();
        auto sub = node(NodeKind::Subscript, start);
        sub->kids.push_back(std::move(*value));
        if (atOp("]")) return unexpected("an index");
        auto index = parseTestList();
        if (!index) return index;
        if ((*index)->kind == NodeKind::Tuple)
          for (auto& k : (*index)->kids) sub->kids.push_back(std::move(k));
        else
          sub->kids.push_back(std::move(*index));
        if (auto r = expectOp("]", "',' or ']'"); !r) return std::unexpected(r.error());
        finish(*sub);
        if (auto r = checkHeight(*sub); !r) return std::unexpected(r.error());
        value = std::move(sub);
      } else if (atOp(".")) {
        take();
        if (!at(TokenKind::Name) || isKeyword(cur().text)) return unexpected("an attribute name after '.'");
        auto attr = node(NodeKind::Attribute, start);
        attr->text = take().text;
        attr->kids.push_back(std::move(*value));
        finish(*attr);
        if (auto r = checkHeight(*attr); !r) return std::unexpected(r.error());
        value = std::move(attr);
      } else {
        return value;
      }
    }
  }

  Expected<void> parseArguments(Node& call) {
    bool sawKeyword = false;
    while (!atOp(")")) {
      if (at(TokenKind::Name) && !isKeyword(cur().text) && m_tokens[m_pos + 1].kind == TokenKind::Op &&
          m_tokens[m_pos + 1].text == "=") {
        call.keywordLocs.push_back(cur().loc);
        call.keywords.push_back(take().text);
        take();
        sawKeyword = true;
      } else {
        if (!startsExpression()) return unexpected("an argument or ')'");
        if (sawKeyword)
          return Unexpected(Diagnostic::error("te.unexpected-token", "positional argument follows keyword argument", cur().loc));
        call.keywordLocs.push_back(cur().loc);
        call.keywords.emplace_back();
      }
      auto arg = parseTest();
      if (!arg) return std::unexpected(arg.error());
      call.kids.push_back(std::move(*arg));
      if (atOp(",")) {
        take();
        continue;
      }
      if (!atOp(")")) return unexpected("',' or ')'");
    }
    take();
    return {};
  }

  Expected<NodePtr> parseAtom() {
    const Token& t = cur();
    switch (t.kind) {
    case TokenKind::Int: {
      auto n = node(NodeKind::Int, t.loc);
      n->ival = t.ival;
      n->text = t.text;
      take();
      return n;
    }
    case TokenKind::Float: {
      auto n = node(NodeKind::Float, t.loc);
      n->fval = t.fval;
      n->text = t.text;
      take();
      return n;
    }
    case TokenKind::Str: {
      auto n = node(NodeKind::Str, t.loc);
      while (at(TokenKind::Str)) n->text += take().text; // adjacent literals concatenate
      finish(*n);
      return n;
    }
    case TokenKind::Name: {
      if (t.text == "None" || t.text == "True" || t.text == "False") {
        auto n = node(t.text == "None" ? NodeKind::None : t.text == "True" ? NodeKind::True : NodeKind::False, t.loc);
        take();
        return n;
      }
      if (isKeyword(t.text)) return unexpected("an expression");
      auto n = node(NodeKind::Name, t.loc);
      n->text = t.text;
      take();
      return n;
    }
    case TokenKind::Op:
      if (t.text == "(") return parseParen();
      if (t.text == "[") return parseList();
      if (t.text == "{") return parseDict();
      return unexpected("an expression");
    default: return unexpected("an expression");
    }
  }

  Expected<NodePtr> parseParen() {
    DepthGuard guard(m_depth);
    if (auto r = checkDepth(); !r) return std::unexpected(r.error());
    SourceLocation start = cur().loc;
    take();
    if (atOp(")")) {
      take();
      auto n = node(NodeKind::Tuple, start);
      finish(*n);
      return n;
    }
    auto first = parseTest();
    if (!first) return first;
    if (atOp(")")) {
      take();
      return first; // a parenthesised expression keeps its inner span
    }
    if (!atOp(",")) return unexpected("',' or ')'");
    auto tuple = node(NodeKind::Tuple, start);
    tuple->kids.push_back(std::move(*first));
    while (atOp(",")) {
      take();
      if (atOp(")")) break;
      auto next = parseTest();
      if (!next) return next;
      tuple->kids.push_back(std::move(*next));
    }
    if (auto r = expectOp(")", "',' or ')'"); !r) return std::unexpected(r.error());
    finish(*tuple);
    return tuple;
  }

  Expected<NodePtr> parseList() {
    DepthGuard guard(m_depth);
    if (auto r = checkDepth(); !r) return std::unexpected(r.error());
    auto list = node(NodeKind::List, cur().loc);
    take();
    while (!atOp("]")) {
      if (!startsExpression()) return unexpected("an expression or ']'");
      auto item = parseTest();
      if (!item) return item;
      list->kids.push_back(std::move(*item));
      if (atOp(",")) {
        take();
        continue;
      }
      if (!atOp("]")) return unexpected("',' or ']'");
    }
    take();
    finish(*list);
    return list;
  }

  Expected<NodePtr> parseDict() {
    DepthGuard guard(m_depth);
    if (auto r = checkDepth(); !r) return std::unexpected(r.error());
    auto dict = node(NodeKind::Dict, cur().loc);
    take();
    while (!atOp("}")) {
      if (!startsExpression()) return unexpected("a key or '}'");
      auto key = parseTest();
      if (!key) return key;
      if (auto r = expectOp(":"); !r) return std::unexpected(r.error());
      auto value = parseTest();
      if (!value) return value;
      dict->kids.push_back(std::move(*key));
      dict->kids.push_back(std::move(*value));
      if (atOp(",")) {
        take();
        continue;
      }
      if (!atOp("}")) return unexpected("',' or '}'");
    }
    take();
    finish(*dict);
    return dict;
  }

  std::vector<Token> m_tokens;
  std::size_t m_pos = 0;
  int m_depth = 0;
};

} // namespace

Expected<ast::Module> parseTeModule(std::string_view source, const std::string& fileName) {
  auto tokens = tokenizeTe(source, fileName);
  if (!tokens) return std::unexpected(tokens.error());
  return Parser(std::move(*tokens)).parseModule();
}

} // namespace loopscape::frontend
