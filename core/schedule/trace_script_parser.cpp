// Lexer and recursive-descent parser of trace scripts (see trace_script_syntax.h).
#include "core/schedule/trace_script_syntax.h"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <algorithm>
#include <optional>

namespace loopscape::schedule::detail {

namespace {

enum class Tok : std::uint8_t { Name, Int, Float, String, Op, Newline, End };

struct Token {
  Tok kind = Tok::End;
  std::string text; ///< Name / Op spelling; String value
  int line = 0, column = 0, length = 1;
  std::int64_t intValue = 0;
  double floatValue = 0;
  bool lineStart = false; ///< first token of a logical line
};

Diagnostic syntaxError(const std::string& file, int line, int column, std::string message, int length = 1) {
  return Diagnostic::error("trace.syntax", std::move(message), SourceLocation{file, line, column, length});
}

bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
public:
  Lexer(std::string_view text, const std::string& file) : m_text(text), m_file(file) {}

  Expected<std::vector<Token>> run() {
    std::vector<Token> out;
    int depth = 0;
    struct Open {
      int line, column;
      char bracket;
    };
    std::vector<Open> open; // unclosed brackets
    bool lineStart = true;
    while (m_pos < m_text.size()) {
      const char c = m_text[m_pos];
      if (c == '#') {
        while (m_pos < m_text.size() && m_text[m_pos] != '\n') advance();
        continue;
      }
      if (c == '\n') {
        if (depth == 0 && !lineStart) {
          out.push_back(Token{Tok::Newline, "", m_line, m_column, 1});
          lineStart = true;
        }
        advance();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        advance();
        continue;
      }
      if (c == '\\' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '\n') {
        advance();
        advance();
        continue;
      }
      Token tok;
      tok.line = m_line;
      tok.column = m_column;
      tok.lineStart = lineStart;
      lineStart = false;
      const std::size_t start = m_pos;
      if (isNameStart(c)) {
        while (m_pos < m_text.size() && (isNameStart(m_text[m_pos]) || isDigit(m_text[m_pos]))) advance();
        tok.kind = Tok::Name;
        tok.text = std::string(m_text.substr(start, m_pos - start));
      } else if (isDigit(c) || (c == '.' && m_pos + 1 < m_text.size() && isDigit(m_text[m_pos + 1]))) {
        if (auto ok = number(tok); !ok) return Unexpected(ok.error());
      } else if (c == '"' || c == '\'') {
        if (auto ok = string(tok); !ok) return Unexpected(ok.error());
      } else {
        static constexpr std::string_view twoChar[] = {"//", "->", "**", "==", "!=", "<=", ">=", "+=", "-="};
        std::string_view op = m_text.substr(m_pos, 1);
        for (auto two : twoChar)
          if (m_text.substr(m_pos, 2) == two) op = two;
        if (std::string_view("()[]{},:.=+-*/%<>;@").find(op[0]) == std::string_view::npos)
          return Unexpected(syntaxError(m_file, m_line, m_column, fmt::format("unexpected character '{}'", op)));
        if (op == "(" || op == "[" || op == "{") {
          ++depth;
          open.push_back({m_line, m_column, op[0]});
        }
        if ((op == ")" || op == "]" || op == "}") && depth > 0) {
          --depth;
          open.pop_back();
        }
        for (std::size_t k = 0; k < op.size(); ++k) advance();
        tok.kind = Tok::Op;
        tok.text = std::string(op);
      }
      tok.length = tok.line == m_line ? m_column - tok.column : 1;
      out.push_back(std::move(tok));
    }
    if (!open.empty())
      return Unexpected(syntaxError(m_file, open.back().line, open.back().column,
                                    fmt::format("'{}' was never closed", open.back().bracket)));
    if (!lineStart) out.push_back(Token{Tok::Newline, "", m_line, m_column, 1});
    out.push_back(Token{Tok::End, "", m_line, m_column, 1, 0, 0, true});
    return out;
  }

private:
  void advance() {
    if (m_text[m_pos] == '\n') {
      ++m_line;
      m_column = 1;
    } else {
      ++m_column;
    }
    ++m_pos;
  }

  Expected<void> number(Token& tok) {
    const std::size_t start = m_pos;
    bool isFloat = false;
    while (m_pos < m_text.size() && (isDigit(m_text[m_pos]) || m_text[m_pos] == '_')) advance();
    if (m_pos < m_text.size() && m_text[m_pos] == '.') {
      isFloat = true;
      advance();
      while (m_pos < m_text.size() && isDigit(m_text[m_pos])) advance();
    }
    if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
      std::size_t p = m_pos + 1;
      if (p < m_text.size() && (m_text[p] == '+' || m_text[p] == '-')) ++p;
      if (p < m_text.size() && isDigit(m_text[p])) {
        isFloat = true;
        while (m_pos < p) advance();
        while (m_pos < m_text.size() && isDigit(m_text[m_pos])) advance();
      }
    }
    if (m_pos < m_text.size() && isNameStart(m_text[m_pos]))
      return Unexpected(syntaxError(m_file, tok.line, tok.column, "invalid number literal"));
    std::string digits;
    for (char ch : m_text.substr(start, m_pos - start))
      if (ch != '_') digits += ch;
    if (isFloat) {
      tok.kind = Tok::Float;
      tok.floatValue = std::strtod(digits.c_str(), nullptr);
      return {};
    }
    tok.kind = Tok::Int;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), tok.intValue);
    if (ec != std::errc() || ptr != digits.data() + digits.size())
      return Unexpected(syntaxError(m_file, tok.line, tok.column,
                                    fmt::format("integer literal {} does not fit in 64 bits", digits),
                                    static_cast<int>(m_pos - start)));
    return {};
  }

  Expected<void> string(Token& tok) {
    const char quote = m_text[m_pos];
    const bool triple = m_text.substr(m_pos, 3) == std::string(3, quote);
    for (int k = 0; k < (triple ? 3 : 1); ++k) advance();
    std::string value;
    while (true) {
      if (m_pos >= m_text.size() || (!triple && m_text[m_pos] == '\n'))
        return Unexpected(syntaxError(m_file, tok.line, tok.column, "unterminated string literal"));
      const char ch = m_text[m_pos];
      if (ch == quote && (!triple || m_text.substr(m_pos, 3) == std::string(3, quote))) {
        for (int k = 0; k < (triple ? 3 : 1); ++k) advance();
        break;
      }
      if (ch == '\\' && m_pos + 1 < m_text.size()) {
        advance();
        const char e = m_text[m_pos];
        switch (e) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case '0': value += '\0'; break;
        case '\n': break;
        case '\\': case '\'': case '"': value += e; break;
        default: value += '\\'; value += e; break;
        }
        advance();
        continue;
      }
      value += ch;
      advance();
    }
    tok.kind = Tok::String;
    tok.text = std::move(value);
    return {};
  }

  std::string_view m_text;
  const std::string& m_file;
  std::size_t m_pos = 0;
  int m_line = 1;
  int m_column = 1;
};

std::string describe(const Token& t) {
  switch (t.kind) {
  case Tok::Name: return fmt::format("'{}'", t.text);
  case Tok::Int:
  case Tok::Float: return "a number";
  case Tok::String: return "a string";
  case Tok::Op: return fmt::format("'{}'", t.text);
  case Tok::Newline: return "the end of the line";
  case Tok::End: return "the end of the file";
  }
  return "?";
}

class Parser {
public:
  Parser(std::vector<Token> tokens, const std::string& file) : m_toks(std::move(tokens)), m_file(file) {}

  Expected<PyScript> script() {
    PyScript out;
    bool sawDef = false;
    while (peek().kind != Tok::End) {
      const Token& first = peek();
      if (first.column != 1)
        return Unexpected(syntaxError(m_file, first.line, first.column, "unexpected indentation"));
      if (isName("import") || isName("from")) {
        skipLine();
        continue;
      }
      if (sawDef)
        return Unexpected(syntaxError(m_file, first.line, first.column,
                                      "statements after the apply_trace function are not supported; the function "
                                      "body is the script"));
      if (isName("def")) {
        if (!out.statements.empty())
          return Unexpected(syntaxError(m_file, first.line, first.column,
                                        "statements before the apply_trace function are not supported; the "
                                        "function body is the script"));
        if (auto ok = functionDef(out); !ok) return Unexpected(ok.error());
        sawDef = true;
        continue;
      }
      auto s = statement();
      if (!s) return Unexpected(s.error());
      if (*s) out.statements.push_back(std::move(**s));
    }
    return out;
  }

  Expected<PyPtr> wholeExpression() {
    auto e = expression();
    if (!e) return Unexpected(e.error());
    if (peek().kind == Tok::Newline) next();
    if (peek().kind != Tok::End) return Unexpected(unexpected(peek(), "the end of the expression"));
    return e;
  }

private:
  const Token& peek(int k = 0) const {
    const std::size_t i = std::min(m_pos + k, m_toks.size() - 1);
    return m_toks[i];
  }
  const Token& next() { return m_toks[std::min(m_pos++, m_toks.size() - 1)]; }
  bool isOp(std::string_view op, int k = 0) const { return peek(k).kind == Tok::Op && peek(k).text == op; }
  bool isName(std::string_view name) const { return peek().kind == Tok::Name && peek().text == name; }
  void skipLine() {
    while (peek().kind != Tok::Newline && peek().kind != Tok::End) next();
    if (peek().kind == Tok::Newline) next();
  }
  Diagnostic unexpected(const Token& t, std::string_view expected) const {
    return syntaxError(m_file, t.line, t.column, fmt::format("expected {}, found {}", expected, describe(t)),
                       t.kind == Tok::Newline || t.kind == Tok::End ? 1 : t.length);
  }
  Expected<void> expectOp(std::string_view op) {
    if (!isOp(op)) return Unexpected(unexpected(peek(), fmt::format("'{}'", op)));
    next();
    return {};
  }
  Expected<void> endOfStatement() {
    if (isOp(";")) next();
    if (peek().kind == Tok::Newline) {
      next();
      return {};
    }
    if (peek().kind == Tok::End) return {};
    return Unexpected(unexpected(peek(), "the end of the statement"));
  }

  /// `def NAME(PARAM[: annotation]) [-> annotation]:` NEWLINE, then an indented body.
  Expected<void> functionDef(PyScript& out) {
    const Token& defTok = next();
    if (peek().kind != Tok::Name) return Unexpected(unexpected(peek(), "a function name"));
    next();
    if (auto ok = expectOp("("); !ok) return ok;
    if (peek().kind != Tok::Name) return Unexpected(unexpected(peek(), "the schedule parameter (sch)"));
    out.scheduleName = next().text;
    if (isOp(":")) {
      next();
      if (auto ok = skipAnnotation(); !ok) return ok;
    }
    if (isOp(",")) {
      next();
      if (!isOp(")"))
        return Unexpected(syntaxError(m_file, peek().line, peek().column,
                                      "the apply_trace function takes one parameter, the schedule"));
    }
    if (auto ok = expectOp(")"); !ok) return ok;
    if (isOp("->")) {
      next();
      if (auto ok = skipAnnotation(); !ok) return ok;
    }
    if (auto ok = expectOp(":"); !ok) return ok;
    if (peek().kind != Tok::Newline) return Unexpected(unexpected(peek(), "a new line after ':'"));
    next();
    const Token& firstBody = peek();
    if (firstBody.kind == Tok::End || firstBody.column == 1)
      return Unexpected(syntaxError(m_file, firstBody.line, firstBody.column,
                                    fmt::format("expected an indented block after the function definition on line "
                                                "{}",
                                                defTok.line)));
    const int indent = firstBody.column;
    while (peek().kind != Tok::End && peek().column != 1) {
      const Token& t = peek();
      if (t.column != indent)
        return Unexpected(syntaxError(m_file, t.line, t.column,
                                      t.column > indent ? "unexpected indentation"
                                                        : "unindent does not match any outer indentation level"));
      if (isName("import") || isName("from")) {
        skipLine();
        continue;
      }
      auto s = statement();
      if (!s) return Unexpected(s.error());
      if (*s) out.statements.push_back(std::move(**s));
    }
    return {};
  }

  /// Skips a type annotation (`tir.Schedule`, `None`) up to `,`, `)` or `:`.
  Expected<void> skipAnnotation() {
    if (peek().kind != Tok::Name) return Unexpected(unexpected(peek(), "a type annotation"));
    next();
    while (isOp(".") && peek(1).kind == Tok::Name) {
      next();
      next();
    }
    return {};
  }

  /// One simple statement; nullopt for statements without effect (`pass`, docstrings).
  Expected<std::optional<PyStmt>> statement() {
    const Token& first = peek();
    if (isName("pass")) {
      next();
      if (auto ok = endOfStatement(); !ok) return Unexpected(ok.error());
      return std::nullopt;
    }
    static constexpr std::string_view unsupported[] = {"for", "if", "while", "with", "class", "return", "del",
                                                       "global", "try", "assert", "print"};
    for (auto word : unsupported)
      if (isName(word) && !(word == "print" && !isOp("(", 1)))
        return Unexpected(syntaxError(m_file, first.line, first.column,
                                      fmt::format("'{}' is not supported in trace scripts (only assignments and "
                                                  "schedule calls)",
                                                  word),
                                      first.length));
    PyStmt stmt;
    stmt.line = first.line;
    stmt.column = first.column;
    auto lhs = expressionList();
    if (!lhs) return Unexpected(lhs.error());
    if (isOp("=")) {
      next();
      if (auto ok = targets(**lhs, stmt); !ok) return Unexpected(ok.error());
      auto rhs = expressionList();
      if (!rhs) return Unexpected(rhs.error());
      if (isOp("="))
        return Unexpected(syntaxError(m_file, peek().line, peek().column, "chained assignment is not supported"));
      stmt.value = *rhs;
    } else {
      if (isOp("+=") || isOp("-="))
        return Unexpected(syntaxError(m_file, peek().line, peek().column,
                                      fmt::format("augmented assignment '{}' is not supported", peek().text), 2));
      stmt.value = *lhs;
    }
    if (auto ok = endOfStatement(); !ok) return Unexpected(ok.error());
    if (stmt.targets.empty() && stmt.value->kind == PyKind::String) return std::nullopt; // docstring
    return stmt;
  }

  Expected<void> targets(const PyNode& lhs, PyStmt& stmt) {
    auto single = [&](const PyNode& n) -> Expected<void> {
      if (n.kind != PyKind::Name)
        return Unexpected(syntaxError(m_file, n.line, n.column,
                                      "cannot assign to this expression; assignment targets are names", n.length));
      stmt.targets.push_back({n.text, n.line, n.column});
      return {};
    };
    if (lhs.kind == PyKind::Tuple || lhs.kind == PyKind::List) {
      stmt.tupleTarget = true;
      for (const auto& item : lhs.items)
        if (auto ok = single(*item); !ok) return ok;
      return {};
    }
    return single(lhs);
  }

  /// `e` or `e, e, ...` (a tuple without parentheses; a trailing comma makes a tuple).
  Expected<PyPtr> expressionList() {
    const Token& first = peek();
    auto e = expression();
    if (!e) return e;
    if (!isOp(",")) return e;
    auto tuple = std::make_shared<PyNode>();
    tuple->kind = PyKind::Tuple;
    tuple->line = first.line;
    tuple->column = first.column;
    tuple->items.push_back(*e);
    while (isOp(",")) {
      next();
      if (isOp("=") || peek().kind == Tok::Newline || peek().kind == Tok::End || isOp(";")) break;
      auto item = expression();
      if (!item) return item;
      tuple->items.push_back(*item);
    }
    return PyPtr(tuple);
  }

  std::shared_ptr<PyNode> node(PyKind kind, const Token& at) {
    auto n = std::make_shared<PyNode>();
    n->kind = kind;
    n->line = at.line;
    n->column = at.column;
    n->length = at.length;
    return n;
  }
  /// Extends `n`'s length to the end of the previous token when on the same line.
  void finish(PyNode& n) {
    const Token& last = m_toks[m_pos - 1];
    if (last.line == n.line) n.length = std::max(n.length, last.column + last.length - n.column);
  }

  Expected<PyPtr> expression() {
    if (isName("lambda")) {
      auto lam = node(PyKind::Lambda, next());
      while (!isOp(":")) {
        if (peek().kind != Tok::Name) return Unexpected(unexpected(peek(), "a lambda parameter name"));
        lam->params.push_back(next().text);
        if (isOp(",")) {
          next();
        } else if (!isOp(":")) {
          return Unexpected(unexpected(peek(), "',' or ':'"));
        }
      }
      next();
      auto body = expression();
      if (!body) return body;
      lam->items.push_back(*body);
      finish(*lam);
      return PyPtr(lam);
    }
    return additive();
  }

  Expected<PyPtr> binary(int level) {
    static const std::vector<std::vector<std::string_view>> ops = {{"+", "-"}, {"*", "/", "//", "%"}};
    if (level == 2) return unary();
    auto lhs = binary(level + 1);
    if (!lhs) return lhs;
    while (peek().kind == Tok::Op &&
           std::find(ops[level].begin(), ops[level].end(), peek().text) != ops[level].end()) {
      auto op = node(PyKind::BinOp, peek());
      op->text = next().text;
      auto rhs = binary(level + 1);
      if (!rhs) return rhs;
      op->line = (*lhs)->line;
      op->column = (*lhs)->column;
      op->items = {*lhs, *rhs};
      finish(*op);
      lhs = PyPtr(op);
    }
    return lhs;
  }
  Expected<PyPtr> additive() { return binary(0); }

  Expected<PyPtr> unary() {
    if (isOp("-") || isOp("+")) {
      const Token& t = next();
      auto operand = unary();
      if (!operand) return operand;
      if (t.text == "+") return operand;
      auto neg = node(PyKind::Neg, t);
      neg->items.push_back(*operand);
      finish(*neg);
      return PyPtr(neg);
    }
    return postfix();
  }

  Expected<PyPtr> postfix() {
    auto e = atom();
    if (!e) return e;
    while (true) {
      if (isOp(".")) {
        next();
        if (peek().kind != Tok::Name) return Unexpected(unexpected(peek(), "an attribute name"));
        auto attr = node(PyKind::Attribute, peek());
        attr->text = next().text;
        attr->line = (*e)->line;
        attr->column = (*e)->column;
        attr->items.push_back(*e);
        finish(*attr);
        e = PyPtr(attr);
      } else if (isOp("(")) {
        auto call = node(PyKind::Call, peek());
        next();
        call->line = (*e)->line;
        call->column = (*e)->column;
        call->length = (*e)->length; // the callee, when the call spans several lines
        call->items.push_back(*e);
        if (auto ok = arguments(*call); !ok) return Unexpected(ok.error());
        finish(*call);
        e = PyPtr(call);
      } else if (isOp("[")) {
        const Token& open = next();
        auto sub = node(PyKind::Subscript, open);
        sub->line = (*e)->line;
        sub->column = (*e)->column;
        auto index = expression();
        if (!index) return index;
        if (isOp(":"))
          return Unexpected(syntaxError(m_file, peek().line, peek().column, "slices are not supported"));
        if (auto ok = expectOp("]"); !ok) return Unexpected(ok.error());
        sub->items = {*e, *index};
        finish(*sub);
        e = PyPtr(sub);
      } else {
        return e;
      }
    }
  }

  Expected<void> arguments(PyNode& call) {
    bool sawKeyword = false;
    while (!isOp(")")) {
      PyArg arg;
      arg.line = peek().line;
      arg.column = peek().column;
      if (peek().kind == Tok::Name && isOp("=", 1)) {
        arg.keyword = next().text;
        next();
        sawKeyword = true;
      } else if (isOp("*")) {
        auto star = node(PyKind::Starred, next());
        auto operand = expression();
        if (!operand) return Unexpected(operand.error());
        star->items.push_back(*operand);
        finish(*star);
        arg.value = star;
      } else if (isOp("**")) {
        return Unexpected(syntaxError(m_file, peek().line, peek().column, "'**' arguments are not supported", 2));
      } else if (sawKeyword) {
        return Unexpected(syntaxError(m_file, peek().line, peek().column,
                                      "positional argument follows keyword argument", peek().length));
      }
      if (!arg.value) {
        auto v = expression();
        if (!v) return Unexpected(v.error());
        arg.value = *v;
      }
      call.args.push_back(std::move(arg));
      if (isOp(",")) {
        next();
      } else if (!isOp(")")) {
        return Unexpected(unexpected(peek(), "',' or ')'"));
      }
    }
    next();
    return {};
  }

  Expected<PyPtr> sequence(PyKind kind, std::string_view close, const Token& open) {
    auto seq = node(kind, open);
    bool sawComma = false;
    while (!isOp(close)) {
      auto item = expression();
      if (!item) return item;
      seq->items.push_back(*item);
      if (isOp(",")) {
        next();
        sawComma = true;
      } else if (!isOp(close)) {
        return Unexpected(unexpected(peek(), fmt::format("',' or '{}'", close)));
      }
    }
    next();
    finish(*seq);
    // `(e)` is e itself, `(e,)` a tuple.
    if (kind == PyKind::Tuple && seq->items.size() == 1 && !sawComma) return seq->items[0];
    return PyPtr(seq);
  }

  Expected<PyPtr> atom() {
    const Token& t = peek();
    switch (t.kind) {
    case Tok::Int: {
      auto n = node(PyKind::Int, next());
      n->intValue = t.intValue;
      return PyPtr(n);
    }
    case Tok::Float: {
      auto n = node(PyKind::Float, next());
      n->floatValue = t.floatValue;
      return PyPtr(n);
    }
    case Tok::String: {
      auto n = node(PyKind::String, next());
      n->text = t.text;
      while (peek().kind == Tok::String) n->text += next().text; // "a" "b"
      finish(*n);
      return PyPtr(n);
    }
    case Tok::Name: {
      static constexpr std::string_view keywords[] = {"def", "import", "from", "lambda", "for", "if", "in",
                                                      "and", "or", "not", "is", "return", "pass", "while", "with"};
      for (auto kw : keywords)
        if (t.text == kw) return Unexpected(unexpected(t, "an expression"));
      const PyKind kind = t.text == "None"    ? PyKind::None
                          : t.text == "True"  ? PyKind::True
                          : t.text == "False" ? PyKind::False
                                              : PyKind::Name;
      auto n = node(kind, next());
      n->text = t.text;
      return PyPtr(n);
    }
    case Tok::Op:
      if (t.text == "(") return sequence(PyKind::Tuple, ")", next());
      if (t.text == "[") return sequence(PyKind::List, "]", next());
      if (t.text == "{")
        return Unexpected(syntaxError(m_file, t.line, t.column, "dictionaries are not supported in trace scripts"));
      return Unexpected(unexpected(t, "an expression"));
    case Tok::Newline:
    case Tok::End: return Unexpected(unexpected(t, "an expression"));
    }
    return Unexpected(unexpected(t, "an expression"));
  }

  std::vector<Token> m_toks;
  const std::string& m_file;
  std::size_t m_pos = 0;
};

} // namespace

Expected<PyScript> parsePyScript(std::string_view text, const std::string& fileName) {
  auto tokens = Lexer(text, fileName).run();
  if (!tokens) return Unexpected(tokens.error());
  return Parser(std::move(*tokens), fileName).script();
}

Expected<PyPtr> parsePyExpression(std::string_view text, const std::string& fileName) {
  auto tokens = Lexer(text, fileName).run();
  if (!tokens) return Unexpected(tokens.error());
  return Parser(std::move(*tokens), fileName).wholeExpression();
}

} // namespace loopscape::schedule::detail
