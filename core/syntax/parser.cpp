#include "core/syntax/parser.h"

#include "core/ir/resource_limits.h"
#include "core/syntax/lexer.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::syntax {

int maxExpressionHeight() { return 5 * ir::resourceLimits().maxNestingDepth; }

namespace {

class Parser {
public:
  Parser(std::vector<Token> tokens, const Dialect& dialect) : m_tokens(std::move(tokens)), m_dialect(dialect) {}

  Expected<Module> parseModule() {
    Module module;
    while (!at(TokenKind::End)) {
      if (at(TokenKind::Newline)) {
        ++m_pos;
        continue;
      }
      if (auto r = parseStatement(module.body); !r) return std::unexpected(r.error());
    }
    return module;
  }

  Expected<NodePtr> parseWholeExpression() {
    auto e = parseTestList();
    if (!e) return e;
    if (at(TokenKind::Newline)) take();
    if (!at(TokenKind::End)) return unexpected("the end of the expression");
    return e;
  }

private:
  // ---- token helpers ------------------------------------------------------------------
  const Token& cur() const { return m_tokens[m_pos]; }
  const Token& peek(std::size_t k) const { return m_tokens[std::min(m_pos + k, m_tokens.size() - 1)]; }
  bool at(TokenKind k) const { return cur().kind == k; }
  bool atOp(std::string_view op) const { return cur().kind == TokenKind::Op && cur().text == op; }
  bool atName(std::string_view n) const { return cur().kind == TokenKind::Name && cur().text == n; }
  bool atPlainName() const { return at(TokenKind::Name) && !isKeyword(cur().text); }
  bool atLineEnd() const { return at(TokenKind::Newline) || at(TokenKind::End); }
  const Token& take() {
    const Token& t = m_tokens[m_pos];
    if (t.kind != TokenKind::End) ++m_pos;
    return t;
  }

  Unexpected error(std::string message, SourceLocation loc) const {
    return Unexpected(m_dialect.error("unexpected-token", std::move(message), std::move(loc)));
  }

  Unexpected unexpected(std::string_view expected) const {
    return error(fmt::format("expected {}, found {}", m_dialect.expected(expected), m_dialect.describe(cur())),
                 cur().loc);
  }

  Expected<void> expectOp(std::string_view op, std::string_view what = {}) {
    if (!atOp(op)) return unexpected(what.empty() ? fmt::format("'{}'", op) : std::string(what));
    take();
    return {};
  }

  /// Items separated by commas up to `close` (a trailing comma allowed), then `close`;
  /// `item` parses one item at the cursor.
  template <typename F> Expected<void> commaSeparated(std::string_view close, F&& item) {
    while (!atOp(close)) {
      if (auto r = item(); !r) return r;
      if (atOp(",")) {
        take();
        continue;
      }
      if (!atOp(close)) return unexpected(fmt::format("',' or '{}'", close));
    }
    take();
    return {};
  }

  NodePtr node(NodeKind kind, const SourceLocation& start) const {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->loc = start;
    return n;
  }

  /// Extends `n.loc` from its start to the end of the last consumed token (on its line).
  void finish(Node& n) const {
    for (const auto& k : n.kids)
      if (k) n.height = std::max(n.height, k->height + 1);
    if (m_pos == 0) return;
    const Token& last = m_tokens[m_pos - 1];
    if (last.endLine == n.loc.line && last.endColumn > n.loc.column) n.loc.length = last.endColumn - n.loc.column;
  }

  struct DepthGuard {
    int& depth;
    explicit DepthGuard(int& d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
  };

  /// `lhs op rhs` as a node of `kind` from `start` to the last token, its height bounded.
  Expected<NodePtr> combine(NodeKind kind, const SourceLocation& start, std::string op, NodePtr lhs, NodePtr rhs) {
    auto n = node(kind, start);
    n->text = std::move(op);
    n->kids.push_back(std::move(lhs));
    n->kids.push_back(std::move(rhs));
    finish(*n);
    if (auto r = checkHeight(*n); !r) return std::unexpected(r.error());
    return n;
  }

  /// Long operator chains (`1+1+...`) nest without recursion in the parser; bound them.
  Expected<void> checkHeight(const Node& n) const {
    const int limit = m_dialect.shallowChains ? ir::resourceLimits().maxNestingDepth : maxExpressionHeight();
    if (n.height > limit)
      return Unexpected(
          m_dialect.error("too-deep", fmt::format("expression nested more than {} levels deep", limit), n.loc));
    return {};
  }

  /// m_depth counts nesting levels: every operand (parseFactor), `not`, lambda and
  /// conditional expression nests one level inside the expression around it.
  Expected<void> checkDepth() const {
    const int limit = ir::resourceLimits().maxNestingDepth;
    if (m_depth > limit)
      return Unexpected(
          m_dialect.error("too-deep", fmt::format("expression nested more than {} levels deep", limit), cur().loc));
    return {};
  }

  /// m_blockDepth counts indented blocks and `elif`s (each nests the statements after it).
  Expected<void> checkBlockDepth() const {
    const int limit = ir::resourceLimits().maxNestingDepth;
    if (m_blockDepth > limit)
      return Unexpected(m_dialect.error(
          "too-deep", fmt::format("blocks nested more than {} levels deep (an 'elif' counts as one level)", limit),
          cur().loc));
    return {};
  }

  Expected<void> checkStatement() const {
    if (!m_dialect.checkStatement) return {};
    if (auto d = m_dialect.checkStatement(cur(), peek(1))) return Unexpected(std::move(*d));
    return {};
  }

  // ---- statements ---------------------------------------------------------------------
  /// One compound statement, or one line of simple statements separated by ';'.
  Expected<void> parseStatement(std::vector<Stmt>& out) {
    if (at(TokenKind::Indent)) return Unexpected(m_dialect.error("indentation", "unexpected indentation", cur().loc));
    if (auto r = checkStatement(); !r) return r;
    if (atOp("@") || atName("def") || atName("class") || atName("for") || atName("if") || atName("with")) {
      auto s = parseCompound();
      if (!s) return std::unexpected(s.error());
      out.push_back(std::move(*s));
      return {};
    }
    return parseSimpleLine(out);
  }

  Expected<void> parseSimpleLine(std::vector<Stmt>& out) {
    while (true) {
      auto s = parseSimpleStatement();
      if (!s) return std::unexpected(s.error());
      out.push_back(std::move(*s));
      if (atOp(";")) {
        take();
        if (atLineEnd()) break;
        if (auto r = checkStatement(); !r) return r;
        continue;
      }
      break;
    }
    if (at(TokenKind::End)) return {};
    if (!at(TokenKind::Newline)) return unexpected("';' or the end of the line");
    take();
    return {};
  }

  Expected<Stmt> parseSimpleStatement() {
    Stmt s;
    s.loc = cur().loc;
    if (atName("import") || atName("from")) return parseImport();
    if (atName("pass")) {
      take();
      s.kind = StmtKind::Pass;
      return s;
    }
    if (atName("return")) {
      take();
      s.kind = StmtKind::Return;
      if (!atLineEnd() && !atOp(";")) {
        auto value = parseTestList();
        if (!value) return std::unexpected(value.error());
        s.value = std::move(*value);
      }
      return s;
    }
    auto first = parseTestList();
    if (!first) return std::unexpected(first.error());
    static constexpr std::string_view kAug[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**="};
    for (auto op : kAug) {
      if (!atOp(op)) continue;
      s.opLocs.push_back(take().loc);
      auto value = parseTestList();
      if (!value) return std::unexpected(value.error());
      s.kind = StmtKind::AugAssign;
      s.op = std::string(op.substr(0, op.size() - 1));
      s.targets.push_back(std::move(*first));
      s.value = std::move(*value);
      return s;
    }
    if (m_dialect.annotatedAssignments && atOp(":")) {
      // `name: annotation = value` (PEP 526; the value is required here).
      take();
      auto annotation = parseTest();
      if (!annotation) return std::unexpected(annotation.error());
      if (!atOp("=")) return unexpected("'=' and a value after the annotation");
      s.opLocs.push_back(take().loc);
      auto value = parseTestList();
      if (!value) return std::unexpected(value.error());
      s.kind = StmtKind::Assign;
      s.targets.push_back(std::move(*first));
      s.annotation = std::move(*annotation);
      s.value = std::move(*value);
      return s;
    }
    if (!atOp("=")) {
      s.kind = StmtKind::Expr;
      s.value = std::move(*first);
      return s;
    }
    s.kind = StmtKind::Assign;
    s.targets.push_back(std::move(*first));
    while (atOp("=")) {
      s.opLocs.push_back(take().loc);
      auto next = parseTestList();
      if (!next) return std::unexpected(next.error());
      s.targets.push_back(std::move(*next));
    }
    s.value = std::move(s.targets.back());
    s.targets.pop_back();
    return s;
  }

  Expected<std::string> parseDotted(SourceLocation& loc) {
    if (!atPlainName()) return unexpected("a module name");
    loc = cur().loc;
    std::string path = take().text;
    while (atOp(".")) {
      take();
      if (!atPlainName()) return unexpected("a name after '.'");
      path += "." + take().text;
    }
    if (m_pos > 0 && m_tokens[m_pos - 1].endLine == loc.line) loc.length = m_tokens[m_pos - 1].endColumn - loc.column;
    return path;
  }

  Expected<std::string> parseAlias() {
    take(); // 'as'
    if (!atPlainName()) return unexpected("a name after 'as'");
    return take().text;
  }

  Expected<Stmt> parseImport() {
    Stmt s;
    s.kind = StmtKind::Import;
    s.loc = cur().loc;
    if (take().text == "import") {
      while (true) {
        ImportBinding b;
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
      if (!atPlainName()) return unexpected("a name to import");
      ImportBinding b;
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

  Expected<Stmt> parseCompound() {
    std::vector<NodePtr> decorators;
    while (atOp("@")) {
      take();
      auto d = parseTest();
      if (!d) return std::unexpected(d.error());
      decorators.push_back(std::move(*d));
      if (!at(TokenKind::Newline)) return unexpected("the end of the line after the decorator");
      take();
      if (auto r = checkStatement(); !r) return std::unexpected(r.error());
    }
    if (!decorators.empty() && !atName("def") && !atName("class"))
      return unexpected("'def' or 'class' after the decorator");
    if (atName("def") || atName("class")) {
      auto s = atName("def") ? parseDef() : parseClass();
      if (s) s->decorators = std::move(decorators);
      return s;
    }
    if (atName("for")) return parseFor();
    if (atName("if")) return parseIf();
    return parseWith();
  }

  /// A compound statement of `kind` located at its keyword, which it consumes.
  Stmt startCompound(StmtKind kind) {
    Stmt s;
    s.kind = kind;
    s.loc = take().loc;
    return s;
  }

  /// `s` with its body, the suite after its header.
  Expected<Stmt> withSuite(Stmt s, std::string_view what) {
    if (auto r = parseSuite(s.body, what, s.loc.line); !r) return std::unexpected(r.error());
    return s;
  }

  /// ':' then the statements on the same line or an indented block.
  Expected<void> parseSuite(std::vector<Stmt>& body, std::string_view what, int headerLine) {
    DepthGuard guard(m_blockDepth);
    if (auto r = checkBlockDepth(); !r) return r;
    if (auto r = expectOp(":"); !r) return r;
    if (!at(TokenKind::Newline)) {
      if (auto r = checkStatement(); !r) return r;
      return parseSimpleLine(body);
    }
    take();
    if (!at(TokenKind::Indent)) {
      SourceLocation loc = cur().loc;
      loc.length = 1;
      return error(fmt::format("expected an indented block after {} on line {}", what, headerLine), loc);
    }
    take();
    while (!at(TokenKind::Dedent) && !at(TokenKind::End))
      if (auto r = parseStatement(body); !r) return r;
    if (at(TokenKind::Dedent)) take();
    return {};
  }

  Expected<Stmt> parseDef() {
    Stmt s = startCompound(StmtKind::FunctionDef);
    if (!atPlainName()) return unexpected("a function name");
    s.nameLoc = cur().loc;
    s.name = take().text;
    if (auto r = expectOp("("); !r) return std::unexpected(r.error());
    auto param = [&]() -> Expected<void> {
      if (!atPlainName()) return unexpected(s.params.empty() ? "a parameter name or ')'" : "a parameter name");
      Param p;
      p.loc = cur().loc;
      p.name = take().text;
      if (atOp(":")) {
        take();
        auto a = parseTest();
        if (!a) return std::unexpected(a.error());
        p.annotation = std::move(*a);
      }
      if (atOp("=")) {
        take();
        auto d = parseTest();
        if (!d) return std::unexpected(d.error());
        p.defaultValue = std::move(*d);
      }
      s.params.push_back(std::move(p));
      return {};
    };
    if (auto r = commaSeparated(")", param); !r) return std::unexpected(r.error());
    if (atOp("->")) {
      take();
      auto r = parseTest();
      if (!r) return std::unexpected(r.error());
      s.returns = std::move(*r);
    }
    return withSuite(std::move(s), "the function definition");
  }

  Expected<Stmt> parseClass() {
    Stmt s = startCompound(StmtKind::ClassDef);
    if (!atPlainName()) return unexpected("a class name");
    s.nameLoc = cur().loc;
    s.name = take().text;
    if (atOp("(")) {
      take();
      auto base = [&]() -> Expected<void> {
        auto b = parseTest();
        if (!b) return std::unexpected(b.error());
        s.bases.push_back(std::move(*b));
        return {};
      };
      if (auto r = commaSeparated(")", base); !r) return std::unexpected(r.error());
    }
    return withSuite(std::move(s), "the class definition");
  }

  Expected<Stmt> parseFor() {
    Stmt s = startCompound(StmtKind::For);
    auto target = parseTargetList();
    if (!target) return std::unexpected(target.error());
    s.targets.push_back(std::move(*target));
    if (!atName("in")) return unexpected("'in'");
    take();
    auto iter = parseTestList();
    if (!iter) return std::unexpected(iter.error());
    s.value = std::move(*iter);
    return withSuite(std::move(s), "the 'for' statement");
  }

  Expected<Stmt> parseIf() {
    Stmt s;
    s.kind = StmtKind::If;
    const std::string keyword = cur().text; // "if" or "elif"
    s.loc = take().loc;
    auto test = parseTest();
    if (!test) return std::unexpected(test.error());
    s.value = std::move(*test);
    if (auto r = parseSuite(s.body, fmt::format("the '{}' statement", keyword), s.loc.line); !r)
      return std::unexpected(r.error());
    if (atName("elif")) {
      DepthGuard guard(m_blockDepth);
      if (auto r = checkBlockDepth(); !r) return std::unexpected(r.error());
      auto elif = parseIf();
      if (!elif) return elif;
      s.orelse.push_back(std::move(*elif));
    } else if (atName("else")) {
      int line = take().loc.line;
      if (auto r = parseSuite(s.orelse, "the 'else' statement", line); !r) return std::unexpected(r.error());
    }
    return s;
  }

  Expected<Stmt> parseWith() {
    Stmt s = startCompound(StmtKind::With);
    while (true) {
      WithItem item;
      auto context = parseTest();
      if (!context) return std::unexpected(context.error());
      item.context = std::move(*context);
      if (atName("as")) {
        take();
        auto target = parseBinary(0);
        if (!target) return std::unexpected(target.error());
        item.target = std::move(*target);
      }
      s.items.push_back(std::move(item));
      if (!atOp(",")) break;
      take();
    }
    return withSuite(std::move(s), "the 'with' statement");
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

  /// item (',' item)* [','] -> a Tuple when there is a comma; items are tests, or for
  /// assignment targets of for/comprehensions, bitwise-or expressions.
  Expected<NodePtr> parseList(Expected<NodePtr> (Parser::*item)()) {
    SourceLocation start = cur().loc;
    auto first = (this->*item)();
    if (!first) return first;
    if (!atOp(",")) return first;
    auto tuple = node(NodeKind::Tuple, start);
    tuple->kids.push_back(std::move(*first));
    while (atOp(",")) {
      take();
      if (!startsExpression()) break;
      auto next = (this->*item)();
      if (!next) return next;
      tuple->kids.push_back(std::move(*next));
    }
    finish(*tuple);
    return tuple;
  }
  Expected<NodePtr> parseTestList() { return parseList(&Parser::parseTest); }
  Expected<NodePtr> parseTargetList() { return parseList(&Parser::parseBitOr); }
  Expected<NodePtr> parseBitOr() { return parseBinary(0); }

  Expected<NodePtr> parseTest() {
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
    DepthGuard guard(m_depth);
    if (auto r = checkDepth(); !r) return std::unexpected(r.error());
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
    DepthGuard guard(m_depth);
    if (auto r = checkDepth(); !r) return std::unexpected(r.error());
    auto n = node(NodeKind::Lambda, cur().loc);
    take();
    while (!atOp(":")) {
      if (!atPlainName()) return unexpected(n->params.empty() ? "a parameter name or ':'" : "a parameter name");
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
      lhs = combine(NodeKind::BoolOp, start, std::string(op), std::move(*lhs), std::move(*rhs));
      if (!lhs) return lhs;
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

  /// The comparison operator at the cursor ("" if none) and how many tokens it takes.
  std::pair<std::string, int> compareOp() const {
    if (cur().kind == TokenKind::Op) {
      static constexpr std::string_view kOps[] = {"<", ">", "==", "!=", "<=", ">="};
      for (auto op : kOps)
        if (cur().text == op) return {std::string(op), 1};
    }
    const Token& next = peek(1);
    if (atName("in")) return {"in", 1};
    if (atName("is"))
      return next.kind == TokenKind::Name && next.text == "not" ? std::pair{std::string("is not"), 2}
                                                                : std::pair{std::string("is"), 1};
    if (atName("not") && next.kind == TokenKind::Name && next.text == "in") return {"not in", 2};
    return {};
  }

  /// An operator the dialect refuses ("is not" is reported at its "is").
  Expected<void> checkOperator(const std::string& op) const {
    const auto& refused = m_dialect.unsupportedOperators;
    if (std::find(refused.begin(), refused.end(), op) == refused.end()) return {};
    return Unexpected(m_dialect.error(
        "unsupported", fmt::format("operator '{}' is not supported", op == "is not" ? "is" : op), cur().loc));
  }

  Expected<NodePtr> parseComparison() {
    SourceLocation start = cur().loc;
    auto lhs = parseBinary(0);
    if (!lhs) return lhs;
    auto [op, width] = compareOp();
    if (op.empty()) return lhs;
    auto n = node(NodeKind::Compare, start);
    n->kids.push_back(std::move(*lhs));
    while (!op.empty()) {
      if (auto r = checkOperator(op); !r) return std::unexpected(r.error());
      n->opLocs.push_back(cur().loc);
      for (int i = 0; i < width; ++i)
        take();
      auto rhs = parseBinary(0);
      if (!rhs) return rhs;
      n->ops.push_back(op);
      n->kids.push_back(std::move(*rhs));
      std::tie(op, width) = compareOp();
    }
    finish(*n);
    return n;
  }

  /// The binary operator at the cursor and its level (0 '|', 1 '&', 2 '+ -',
  /// 3 '* / // %'), or level -1.
  std::pair<std::string_view, int> binaryOperator() const {
    static constexpr std::pair<std::string_view, int> kOps[] = {{"|", 0}, {"&", 1}, {"+", 2},  {"-", 2},
                                                                {"*", 3}, {"/", 3}, {"//", 3}, {"%", 3}};
    if (cur().kind == TokenKind::Op)
      for (const auto& op : kOps)
        if (cur().text == op.first) return op;
    return {{}, -1};
  }

  /// Operators of level >= minLevel, left-associative, by precedence climbing: one frame
  /// per operand whatever the number of levels, so that nesting costs little stack.
  Expected<NodePtr> parseBinary(int minLevel) {
    SourceLocation start = cur().loc;
    auto lhs = parseFactor();
    if (!lhs) return lhs;
    while (true) {
      const auto [op, level] = binaryOperator();
      if (level < minLevel) break;
      take();
      auto rhs = parseBinary(level + 1);
      if (!rhs) return rhs;
      lhs = combine(NodeKind::Binary, start, std::string(op), std::move(*lhs), std::move(*rhs));
      if (!lhs) return lhs;
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
    return combine(NodeKind::Binary, start, "**", std::move(*base), std::move(*exponent));
  }

  Expected<NodePtr> parsePrimary() {
    SourceLocation start = cur().loc;
    auto value = parseAtom();
    if (!value) return value;
    while (true) {
      NodePtr next;
      if (atOp("(")) {
        take();
        next = node(NodeKind::Call, start);
        next->kids.push_back(std::move(*value));
        if (auto r = parseArguments(*next); !r) return std::unexpected(r.error());
      } else if (atOp("[")) {
        take();
        next = node(NodeKind::Subscript, start);
        next->kids.push_back(std::move(*value));
        if (auto r = parseSubscripts(*next); !r) return std::unexpected(r.error());
      } else if (atOp(".")) {
        take();
        if (!atPlainName()) return unexpected("an attribute name after '.'");
        next = node(NodeKind::Attribute, start);
        next->text = take().text;
        next->kids.push_back(std::move(*value));
      } else {
        return value;
      }
      finish(*next);
      if (auto r = checkHeight(*next); !r) return std::unexpected(r.error());
      value = std::move(next);
    }
  }

  /// After '[': indices and slices up to ']'; a tuple index is flattened into the kids.
  Expected<void> parseSubscripts(Node& sub) {
    if (atOp("]")) return unexpected("an index");
    std::vector<NodePtr> items;
    bool comma = false;
    while (true) {
      auto item = parseSubscript();
      if (!item) return std::unexpected(item.error());
      items.push_back(std::move(*item));
      if (!atOp(",")) break;
      take();
      comma = true;
      if (!startsExpression() && !(atOp(":") && m_dialect.slices)) break;
    }
    if (auto r = expectOp("]", "',' or ']'"); !r) return r;
    if (!comma && items[0]->kind == NodeKind::Tuple) {
      for (auto& k : items[0]->kids)
        sub.kids.push_back(std::move(k));
      return {};
    }
    for (auto& k : items)
      sub.kids.push_back(std::move(k));
    return {};
  }

  /// test | [test] ':' [test] [':' [test]]
  Expected<NodePtr> parseSubscript() {
    SourceLocation start = cur().loc;
    NodePtr lower;
    if (!m_dialect.slices) return parseTest();
    if (!atOp(":")) {
      auto e = parseTest();
      if (!e) return e;
      if (!atOp(":")) return e;
      lower = std::move(*e);
    }
    auto slice = node(NodeKind::Slice, start);
    slice->opLocs.push_back(take().loc);
    auto bound = [&]() -> Expected<NodePtr> {
      if (atOp(":") || atOp(",") || atOp("]")) return NodePtr();
      return parseTest();
    };
    auto upper = bound();
    if (!upper) return upper;
    NodePtr step;
    if (atOp(":")) {
      take();
      auto s = bound();
      if (!s) return s;
      step = std::move(*s);
    }
    slice->kids.push_back(std::move(lower));
    slice->kids.push_back(std::move(*upper));
    slice->kids.push_back(std::move(step));
    finish(*slice);
    return slice;
  }

  Expected<void> parseArguments(Node& call) {
    bool sawKeyword = false;
    return commaSeparated(")", [&]() -> Expected<void> {
      NodePtr arg;
      if (atPlainName() && peek(1).kind == TokenKind::Op && peek(1).text == "=") {
        call.keywordLocs.push_back(cur().loc);
        call.keywords.push_back(take().text);
        take();
        sawKeyword = true;
      } else if (m_dialect.starredArguments && (atOp("*") || atOp("**"))) {
        call.keywordLocs.push_back(cur().loc);
        call.keywords.emplace_back();
        arg = node(NodeKind::Starred, cur().loc);
        arg->text = take().text;
      } else {
        if (!startsExpression()) return unexpected("an argument or ')'");
        if (sawKeyword) return error("positional argument follows keyword argument", cur().loc);
        call.keywordLocs.push_back(cur().loc);
        call.keywords.emplace_back();
      }
      auto value = parseTest();
      if (!value) return std::unexpected(value.error());
      if (arg) {
        arg->kids.push_back(std::move(*value));
        finish(*arg);
      } else {
        arg = std::move(*value);
      }
      call.kids.push_back(std::move(arg));
      return {};
    });
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
      while (at(TokenKind::Str))
        n->text += take().text; // adjacent literals concatenate
      finish(*n);
      return n;
    }
    case TokenKind::Name: {
      if (t.text == "None" || t.text == "True" || t.text == "False") {
        auto n = node(t.text == "None" ? NodeKind::None : t.text == "True" ? NodeKind::True : NodeKind::False, t.loc);
        n->text = t.text;
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
      if (t.text == "[") return parseListDisplay();
      if (t.text == "{") return parseDict();
      return unexpected("an expression");
    default: return unexpected("an expression");
    }
  }

  Expected<NodePtr> parseParen() {
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

  Expected<NodePtr> parseListDisplay() {
    auto list = node(NodeKind::List, cur().loc);
    take();
    auto item = [&]() -> Expected<void> {
      if (!startsExpression()) return unexpected("an expression or ']'");
      auto e = parseTest();
      if (!e) return std::unexpected(e.error());
      list->kids.push_back(std::move(*e));
      if (m_dialect.comprehensions && list->kids.size() == 1 && atName("for")) return parseComprehension(*list);
      return {};
    };
    if (auto r = commaSeparated("]", item); !r) return std::unexpected(r.error());
    finish(*list);
    return list;
  }

  /// `for target in iter if cond ...` after the element of `[element ...`; stops at ']'.
  Expected<void> parseComprehension(Node& list) {
    list.kind = NodeKind::ListComp;
    while (atName("for")) {
      Comprehension c;
      c.loc = take().loc;
      auto target = parseTargetList();
      if (!target) return std::unexpected(target.error());
      c.target = std::move(*target);
      if (!atName("in")) return unexpected("'in'");
      take();
      auto iter = parseOr();
      if (!iter) return std::unexpected(iter.error());
      c.iter = std::move(*iter);
      while (atName("if")) {
        take();
        auto cond = parseOr();
        if (!cond) return std::unexpected(cond.error());
        c.conditions.push_back(std::move(*cond));
      }
      list.generators.push_back(std::move(c));
    }
    if (!atOp("]")) return unexpected("'for', 'if' or ']'");
    return {};
  }

  Expected<NodePtr> parseDict() {
    auto dict = node(NodeKind::Dict, cur().loc);
    take();
    auto entry = [&]() -> Expected<void> {
      if (!startsExpression()) return unexpected("a key or '}'");
      auto key = parseTest();
      if (!key) return std::unexpected(key.error());
      if (auto r = expectOp(":"); !r) return r;
      auto value = parseTest();
      if (!value) return std::unexpected(value.error());
      dict->kids.push_back(std::move(*key));
      dict->kids.push_back(std::move(*value));
      return {};
    };
    if (auto r = commaSeparated("}", entry); !r) return std::unexpected(r.error());
    finish(*dict);
    return dict;
  }

  std::vector<Token> m_tokens;
  const Dialect& m_dialect;
  std::size_t m_pos = 0;
  int m_depth = 0;
  int m_blockDepth = 0;
};

} // namespace

Expected<Module> parseModule(std::string_view source, const std::string& fileName, const Dialect& dialect) {
  auto tokens = tokenize(source, fileName, dialect);
  if (!tokens) return std::unexpected(tokens.error());
  return Parser(std::move(*tokens), dialect).parseModule();
}

Expected<NodePtr> parseExpression(std::string_view source, const std::string& fileName, const Dialect& dialect) {
  auto tokens = tokenize(source, fileName, dialect, Input::Expression);
  if (!tokens) return std::unexpected(tokens.error());
  return Parser(std::move(*tokens), dialect).parseWholeExpression();
}

} // namespace loopscape::syntax
