#include "core/syntax/lexer.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace loopscape::syntax {

namespace {

bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }
bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; }

std::string charSpelling(unsigned char c) {
  if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
  return fmt::format("'\\x{:02x}'", c);
}

class Lexer {
public:
  Lexer(std::string_view src, const std::string& file, const Dialect& dialect, Input input)
      : m_src(src), m_file(file), m_dialect(dialect), m_input(input) {}

  Expected<std::vector<Token>> run() {
    bool lineStart = true; // at the start of a logical line (a statement may begin)
    while (m_pos < m_src.size()) {
      char c = m_src[m_pos];
      if (lineStart && m_brackets.empty() && m_input == Input::Module) {
        if (auto r = indentation(); !r) return std::unexpected(r.error());
        if (m_pos >= m_src.size()) break;
        c = m_src[m_pos];
      }
      if (c == '\n') {
        advance();
        if (m_brackets.empty()) {
          if (m_lineHasTokens) push(TokenKind::Newline, "", m_line - 1, m_lastLineEnd, 1);
          m_lineHasTokens = false;
          lineStart = true;
        }
        continue;
      }
      if (isBlank(c)) {
        advance();
        continue;
      }
      if (c == '#') {
        while (m_pos < m_src.size() && m_src[m_pos] != '\n')
          advance();
        continue;
      }
      if (c == '\\') {
        std::size_t p = m_pos + 1;
        if (p < m_src.size() && m_src[p] == '\r') ++p;
        if (p < m_src.size() && m_src[p] == '\n') {
          while (m_pos <= p)
            advance();
          lineStart = false;
          continue;
        }
        return fail("unexpected-char", "unexpected character '\\' (a line continuation must end the line)", m_line,
                    m_col, 1);
      }
      lineStart = false;
      m_lineHasTokens = true;
      if (isNameStart(c)) {
        lexName();
        continue;
      }
      if (isDigit(c) || (c == '.' && m_pos + 1 < m_src.size() && isDigit(m_src[m_pos + 1]))) {
        if (auto r = lexNumber(); !r) return std::unexpected(r.error());
        continue;
      }
      if (c == '"' || c == '\'') {
        if (auto r = lexString(); !r) return std::unexpected(r.error());
        continue;
      }
      if (auto r = lexOp(); !r) return std::unexpected(r.error());
    }
    if (!m_brackets.empty()) {
      const auto& open = m_brackets.back();
      return fail("unbalanced", fmt::format("'{}' was never closed", open.text), open.loc.line, open.loc.column, 1);
    }
    if (m_lineHasTokens) push(TokenKind::Newline, "", m_line, m_col, 1);
    for (std::size_t i = 1; i < m_indents.size(); ++i)
      push(TokenKind::Dedent, "", m_line, m_col, 1);
    push(TokenKind::End, "", m_line, m_col, 1);
    return std::move(m_tokens);
  }

private:
  void advance() {
    if (m_src[m_pos] == '\n') {
      m_lastLineEnd = m_col;
      ++m_line;
      m_col = 1;
    } else {
      ++m_col;
    }
    ++m_pos;
  }

  Token& push(TokenKind kind, std::string text, int line, int col, int len) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.loc = SourceLocation{m_file, line, col, len};
    t.endLine = line;
    t.endColumn = col + len;
    m_tokens.push_back(std::move(t));
    return m_tokens.back();
  }

  Unexpected fail(std::string_view kind, std::string message, int line, int col, int len) const {
    return Unexpected(m_dialect.error(kind, std::move(message), SourceLocation{m_file, line, col, len}));
  }

  /// At the start of a line outside brackets: skips the indentation and, before a
  /// statement, compares it with the enclosing blocks (Indent, Dedents or an error).
  /// Blank, comment-only and continuation-only lines do not count.
  Expected<void> indentation() {
    std::size_t p = m_pos;
    while (p < m_src.size() && isBlank(m_src[p]))
      ++p;
    if (p >= m_src.size() || m_src[p] == '\n' || m_src[p] == '#' ||
        (m_src[p] == '\\' && p + 1 < m_src.size() && m_src[p + 1] == '\n')) {
      while (m_pos < p)
        advance();
      return {};
    }
    // Columns of white space, '\r' (of a "\r\n" line end) not counted.
    int width = 0;
    for (std::size_t q = m_pos; q < p; ++q)
      width += m_src[q] != '\r';
    while (m_pos < p)
      advance();
    if (width > m_indents.back()) {
      if (m_dialect.flatIndentationMessage) {
        int len = 1;
        while (p + len < m_src.size() && isNameChar(m_src[p + len - 1]) && isNameChar(m_src[p + len]))
          ++len;
        return fail("indentation", *m_dialect.flatIndentationMessage, m_line, m_col, len);
      }
      m_indents.push_back(width);
      push(TokenKind::Indent, "", m_line, m_col, 1);
      return {};
    }
    while (width < m_indents.back()) {
      m_indents.pop_back();
      push(TokenKind::Dedent, "", m_line, m_col, 1);
    }
    if (width != m_indents.back())
      return fail("indentation", "unindent does not match any outer indentation level", m_line, m_col, 1);
    return {};
  }

  void lexName() {
    int line = m_line, col = m_col;
    std::size_t start = m_pos;
    while (m_pos < m_src.size() && isNameChar(m_src[m_pos]))
      advance();
    push(TokenKind::Name, std::string(m_src.substr(start, m_pos - start)), line, col, static_cast<int>(m_pos - start));
  }

  void takeDigits(std::string& digits) {
    while (m_pos < m_src.size() && (isDigit(m_src[m_pos]) || m_src[m_pos] == '_')) {
      if (m_src[m_pos] != '_') digits += m_src[m_pos];
      advance();
    }
  }

  Expected<void> lexNumber() {
    int line = m_line, col = m_col;
    std::size_t start = m_pos;
    auto spanLen = [&] { return static_cast<int>(m_pos - start); };
    // Radix-prefixed integers.
    if (m_src[m_pos] == '0' && m_pos + 1 < m_src.size() &&
        std::string_view("xXoObB").find(m_src[m_pos + 1]) != std::string_view::npos) {
      char r = static_cast<char>(m_src[m_pos + 1] | 0x20);
      int base = r == 'x' ? 16 : r == 'o' ? 8 : 2;
      advance();
      advance();
      std::string digits;
      while (m_pos < m_src.size() && (std::isxdigit(static_cast<unsigned char>(m_src[m_pos])) || m_src[m_pos] == '_')) {
        if (m_src[m_pos] != '_') digits += m_src[m_pos];
        advance();
      }
      return finishInt(digits, base, line, col, spanLen(), start);
    }
    std::string digits;
    bool isFloat = false;
    takeDigits(digits);
    if (m_pos < m_src.size() && m_src[m_pos] == '.') {
      isFloat = true;
      digits += '.';
      advance();
      takeDigits(digits);
    }
    if (m_pos < m_src.size() && (m_src[m_pos] == 'e' || m_src[m_pos] == 'E')) {
      std::size_t p = m_pos + 1;
      if (p < m_src.size() && (m_src[p] == '+' || m_src[p] == '-')) ++p;
      if (p < m_src.size() && isDigit(m_src[p])) {
        isFloat = true;
        digits += 'e';
        advance();
        if (m_src[m_pos] == '+' || m_src[m_pos] == '-') {
          digits += m_src[m_pos];
          advance();
        }
        takeDigits(digits);
      }
    }
    if (m_pos < m_src.size() && isNameStart(m_src[m_pos]))
      return fail("unexpected-char",
                  fmt::format("invalid number literal '{}{}'", m_src.substr(start, m_pos - start), m_src[m_pos]), line,
                  col, spanLen() + 1);
    if (!isFloat) return finishInt(digits, 10, line, col, spanLen(), start);
    double v = std::strtod(digits.c_str(), nullptr);
    if (!std::isfinite(v))
      return fail("overflow", fmt::format("float literal '{}' is out of range", digits), line, col, spanLen());
    auto& t = push(TokenKind::Float, std::string(m_src.substr(start, m_pos - start)), line, col, spanLen());
    t.fval = v;
    return {};
  }

  Expected<void> finishInt(const std::string& digits, int base, int line, int col, int len, std::size_t start) {
    std::string spelling(m_src.substr(start, m_pos - start));
    if (digits.empty())
      return fail("unexpected-char", fmt::format("invalid number literal '{}'", spelling), line, col, len);
    std::int64_t value = 0;
    for (char d : digits) {
      int v = isDigit(d) ? d - '0' : (d | 0x20) - 'a' + 10;
      if (v >= base)
        return fail("unexpected-char", fmt::format("invalid digit '{}' in number literal '{}'", d, spelling), line, col,
                    len);
      if (__builtin_mul_overflow(value, base, &value) || __builtin_add_overflow(value, v, &value))
        return fail("overflow", fmt::format("integer literal {} does not fit in {}", spelling, m_dialect.intRange),
                    line, col, len);
    }
    auto& t = push(TokenKind::Int, spelling, line, col, len);
    t.ival = value;
    return {};
  }

  Expected<void> lexString() {
    int line = m_line, col = m_col;
    char quote = m_src[m_pos];
    bool triple = m_pos + 2 < m_src.size() && m_src[m_pos + 1] == quote && m_src[m_pos + 2] == quote;
    int quoteLen = triple ? 3 : 1;
    for (int q = 0; q < quoteLen; ++q)
      advance();
    std::string value;
    while (true) {
      if (m_pos >= m_src.size() || (!triple && m_src[m_pos] == '\n'))
        return fail("unterminated-string", "unterminated string literal", line, col, quoteLen);
      char c = m_src[m_pos];
      if (c == quote &&
          (!triple || (m_pos + 2 < m_src.size() && m_src[m_pos + 1] == quote && m_src[m_pos + 2] == quote))) {
        for (int q = 0; q < quoteLen; ++q)
          advance();
        break;
      }
      if (c == '\\' && m_pos + 1 < m_src.size()) {
        advance();
        char e = m_src[m_pos];
        switch (e) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case '0': value += '\0'; break;
        case 'x': {
          // \xHH, two hex digits (what the printers write for control characters).
          auto hex = [](char h) {
            return h >= '0' && h <= '9'   ? h - '0'
                   : h >= 'a' && h <= 'f' ? h - 'a' + 10
                   : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                          : -1;
          };
          const int hi = m_pos + 2 < m_src.size() ? hex(m_src[m_pos + 1]) : -1;
          const int lo = hi >= 0 ? hex(m_src[m_pos + 2]) : -1;
          if (lo < 0) {
            value += "\\x";
            break;
          }
          value += static_cast<char>(hi * 16 + lo);
          advance();
          advance();
          break;
        }
        case '\\':
        case '\'':
        case '"': value += e; break;
        case '\n': break;
        default:
          value += '\\';
          value += e;
          break;
        }
        advance();
        continue;
      }
      value += c;
      advance();
    }
    int len = m_line == line ? m_col - col : quoteLen;
    auto& t = push(TokenKind::Str, std::move(value), line, col, len);
    t.endLine = m_line;
    t.endColumn = m_col;
    return {};
  }

  Expected<void> lexOp() {
    int line = m_line, col = m_col;
    static constexpr std::string_view kOps[] = {
        "**=", "//=", "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "->", "+", "-", "*", "/",
        "%",   "<",   ">",  "=",  "(",  ")",  "[",  "]",  "{",  "}",  ",",  ":",  ".",  ";",  "&", "|", "@"};
    auto c = static_cast<unsigned char>(m_src[m_pos]);
    if (m_dialect.rejectedChars.find(static_cast<char>(c)) != std::string_view::npos)
      return fail("unexpected-char", fmt::format("unexpected character {}", charSpelling(c)), line, col, 1);
    for (auto op : kOps) {
      if (m_src.substr(m_pos, op.size()) != op) continue;
      for (std::size_t i = 0; i < op.size(); ++i)
        advance();
      Token& t = push(TokenKind::Op, std::string(op), line, col, static_cast<int>(op.size()));
      if (op == ")" || op == "]" || op == "}") return closeBracket(op, line, col);
      if (op == "(" || op == "[" || op == "{") m_brackets.push_back(t);
      return {};
    }
    return fail("unexpected-char", fmt::format("unexpected character {}", charSpelling(c)), line, col, 1);
  }

  Expected<void> closeBracket(std::string_view op, int line, int col) {
    if (!m_dialect.matchBrackets) {
      if (!m_brackets.empty()) m_brackets.pop_back();
      return {};
    }
    if (m_brackets.empty()) return fail("unbalanced", fmt::format("unmatched '{}'", op), line, col, 1);
    const Token& open = m_brackets.back();
    char expected = open.text == "(" ? ')' : open.text == "[" ? ']' : '}';
    if (op[0] != expected)
      return fail("unbalanced",
                  fmt::format("closing '{}' does not match '{}' opened at line {}, column {}", op, open.text,
                              open.loc.line, open.loc.column),
                  line, col, 1);
    m_brackets.pop_back();
    return {};
  }

  std::string_view m_src;
  const std::string& m_file;
  const Dialect& m_dialect;
  Input m_input;
  std::size_t m_pos = 0;
  int m_line = 1, m_col = 1, m_lastLineEnd = 1;
  bool m_lineHasTokens = false;
  std::vector<int> m_indents{0};
  std::vector<Token> m_tokens;
  std::vector<Token> m_brackets;
};

} // namespace

Expected<std::vector<Token>> tokenize(std::string_view source, const std::string& fileName, const Dialect& dialect,
                                      Input input) {
  return Lexer(source, fileName, dialect, input).run();
}

} // namespace loopscape::syntax
