#include "core/frontend/te_lexer.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace loopscape::frontend {

std::string describeToken(const Token& t) {
  switch (t.kind) {
  case TokenKind::Name: return fmt::format("'{}'", t.text);
  case TokenKind::Int:
  case TokenKind::Float: return fmt::format("number '{}'", t.text);
  case TokenKind::Str: return "a string";
  case TokenKind::Op: return fmt::format("'{}'", t.text);
  case TokenKind::Newline: return "end of line";
  case TokenKind::End: return "end of file";
  }
  return "token";
}

namespace {

bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }

std::string charSpelling(unsigned char c) {
  if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
  return fmt::format("'\\x{:02x}'", c);
}

class Lexer {
public:
  Lexer(std::string_view src, const std::string& file) : m_src(src), m_file(file) {}

  Expected<std::vector<Token>> run() {
    bool lineStart = true; // at the start of a logical line (a statement may begin)
    while (m_pos < m_src.size()) {
      char c = m_src[m_pos];
      if (c == '\n') {
        advance();
        if (m_brackets.empty()) {
          if (!m_tokens.empty() && m_tokens.back().kind != TokenKind::Newline) push(TokenKind::Newline, "", m_line - 1, m_lastLineEnd, 1);
          lineStart = true;
        }
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        if (lineStart && m_brackets.empty() && c != '\r') {
          // Indentation: fine on blank or comment lines, an error before a statement.
          std::size_t p = m_pos;
          while (p < m_src.size() && (m_src[p] == ' ' || m_src[p] == '\t' || m_src[p] == '\r' || m_src[p] == '\f')) ++p;
          if (p < m_src.size() && m_src[p] != '\n' && m_src[p] != '#' && !(m_src[p] == '\\' && p + 1 < m_src.size() && m_src[p + 1] == '\n')) {
            int width = static_cast<int>(p - m_pos);
            for (std::size_t q = m_pos; q < p; ++q) advance();
            int len = 1;
            while (p + len < m_src.size() && isNameChar(m_src[p + len - 1]) && isNameChar(m_src[p + len])) ++len;
            (void)width;
            return fail("te.indentation", "unexpected indentation: statements must start in column 1 (the language has no indented blocks)", m_line, m_col, len);
          }
        }
        advance();
        continue;
      }
      if (c == '#') {
        while (m_pos < m_src.size() && m_src[m_pos] != '\n') advance();
        continue;
      }
      if (c == '\\') {
        std::size_t p = m_pos + 1;
        if (p < m_src.size() && m_src[p] == '\r') ++p;
        if (p < m_src.size() && m_src[p] == '\n') {
          while (m_pos <= p) advance();
          continue;
        }
        return fail("te.unexpected-char", "unexpected character '\\' (a line continuation must end the line)", m_line, m_col, 1);
      }
      lineStart = false;
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
      return fail("te.unbalanced", fmt::format("'{}' was never closed", open.text), open.loc.line, open.loc.column, 1);
    }
    if (!m_tokens.empty() && m_tokens.back().kind != TokenKind::Newline) push(TokenKind::Newline, "", m_line, m_col, 1);
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

  Unexpected fail(std::string code, std::string message, int line, int col, int len) {
    return Unexpected(Diagnostic::error(std::move(code), std::move(message), SourceLocation{m_file, line, col, len}));
  }

  void lexName() {
    int line = m_line, col = m_col;
    std::size_t start = m_pos;
    while (m_pos < m_src.size() && isNameChar(m_src[m_pos])) advance();
    push(TokenKind::Name, std::string(m_src.substr(start, m_pos - start)), line, col, static_cast<int>(m_pos - start));
  }

  Expected<void> lexNumber() {
    int line = m_line, col = m_col;
    std::size_t start = m_pos;
    auto spanLen = [&] { return static_cast<int>(m_pos - start); };
    // Radix-prefixed integers.
    if (m_src[m_pos] == '0' && m_pos + 1 < m_src.size() &&
        (m_src[m_pos + 1] == 'x' || m_src[m_pos + 1] == 'X' || m_src[m_pos + 1] == 'o' || m_src[m_pos + 1] == 'O' ||
         m_src[m_pos + 1] == 'b' || m_src[m_pos + 1] == 'B')) {
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
    auto takeDigits = [&] {
      while (m_pos < m_src.size() && (isDigit(m_src[m_pos]) || m_src[m_pos] == '_')) {
        if (m_src[m_pos] != '_') digits += m_src[m_pos];
        advance();
      }
    };
    takeDigits();
    if (m_pos < m_src.size() && m_src[m_pos] == '.') {
      isFloat = true;
      digits += '.';
      advance();
      takeDigits();
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
        takeDigits();
      }
    }
    if (m_pos < m_src.size() && isNameStart(m_src[m_pos]))
      return fail("te.unexpected-char", fmt::format("invalid number literal '{}{}'", m_src.substr(start, m_pos - start), m_src[m_pos]), line, col, spanLen() + 1);
    if (!isFloat) return finishInt(digits, 10, line, col, spanLen(), start);
    errno = 0;
    double v = std::strtod(digits.c_str(), nullptr);
    if (!std::isfinite(v))
      return fail("te.overflow", fmt::format("float literal '{}' is out of range", digits), line, col, spanLen());
    auto& t = push(TokenKind::Float, std::string(m_src.substr(start, m_pos - start)), line, col, spanLen());
    t.fval = v;
    return {};
  }

  Expected<void> finishInt(const std::string& digits, int base, int line, int col, int len, std::size_t start) {
    std::string spelling(m_src.substr(start, m_pos - start));
    if (digits.empty()) return fail("te.unexpected-char", fmt::format("invalid number literal '{}'", spelling), line, col, len);
    std::int64_t value = 0;
    for (char d : digits) {
      int v = isDigit(d) ? d - '0' : (d | 0x20) - 'a' + 10;
      if (v >= base) return fail("te.unexpected-char", fmt::format("invalid digit '{}' in number literal '{}'", d, spelling), line, col, len);
      if (__builtin_mul_overflow(value, base, &value) || __builtin_add_overflow(value, v, &value))
        return fail("te.overflow", fmt::format("integer literal {} does not fit in int64", spelling), line, col, len);
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
    for (int q = 0; q < quoteLen; ++q) advance();
    std::string value;
    while (true) {
      if (m_pos >= m_src.size() || (!triple && m_src[m_pos] == '\n'))
        return fail("te.unterminated-string", "unterminated string literal", line, col, quoteLen);
      char c = m_src[m_pos];
      if (c == quote) {
        if (!triple) {
          advance();
          break;
        }
        if (m_pos + 2 < m_src.size() && m_src[m_pos + 1] == quote && m_src[m_pos + 2] == quote) {
          advance();
          advance();
          advance();
          break;
        }
      }
      if (c == '\\' && m_pos + 1 < m_src.size()) {
        advance();
        char e = m_src[m_pos];
        switch (e) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case '\\': value += '\\'; break;
        case '\'': value += '\''; break;
        case '"': value += '"'; break;
        case '\n': break;
        default: value += '\\'; value += e; break;
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
    static constexpr std::string_view kOps[] = {"**=", "//=", "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=",
                                                "/=", "%=", "->", "+", "-", "*", "/", "%", "<", ">", "=", "(", ")",
                                                "[", "]", "{", "}", ",", ":", ".", ";", "&", "|"};
    for (auto op : kOps) {
      if (m_src.substr(m_pos, op.size()) != op) continue;
      for (std::size_t i = 0; i < op.size(); ++i) advance();
      Token& t = push(TokenKind::Op, std::string(op), line, col, static_cast<int>(op.size()));
      if (op == "(" || op == "[" || op == "{") {
        m_brackets.push_back(t);
      } else if (op == ")" || op == "]" || op == "}") {
        if (m_brackets.empty()) return fail("te.unbalanced", fmt::format("unmatched '{}'", op), line, col, 1);
        const Token& open = m_brackets.back();
        char expected = open.text == "(" ? ')' : open.text == "[" ? ']' : '}';
        if (op[0] != expected)
          return fail("te.unbalanced",
                      fmt::format("closing '{}' does not match '{}' opened at line {}, column {}", op, open.text,
                                  open.loc.line, open.loc.column),
                      line, col, 1);
        m_brackets.pop_back();
      }
      return {};
    }
    auto c = static_cast<unsigned char>(m_src[m_pos]);
    return fail("te.unexpected-char", fmt::format("unexpected character {}", charSpelling(c)), line, col, 1);
  }

  std::string_view m_src;
  const std::string& m_file;
  std::size_t m_pos = 0;
  int m_line = 1, m_col = 1, m_lastLineEnd = 1;
  std::vector<Token> m_tokens;
  std::vector<Token> m_brackets;
};

} // namespace

Expected<std::vector<Token>> tokenizeTe(std::string_view source, const std::string& fileName) {
  return Lexer(source, fileName).run();
}

} // namespace loopscape::frontend
