#include "core/frontend/relay/relay_lexer.h"

#include <fmt/format.h>

#include <cctype>

namespace loopscape::frontend::relay {

namespace {

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

class Lexer {
public:
  Lexer(std::string_view src, const std::string& file) : m_src(src), m_file(file) {}

  Expected<std::vector<Token>> run() {
    std::vector<Token> out;
    for (;;) {
      if (auto r = skipSpaceAndComments(); !r) return std::unexpected(r.error());
      if (m_pos >= m_src.size()) break;
      auto t = next();
      if (!t) return std::unexpected(t.error());
      bool meta = t->kind == TokenKind::Metadata;
      out.push_back(std::move(*t));
      if (meta) break;
    }
    Token end;
    end.kind = TokenKind::End;
    end.loc = loc(0);
    out.push_back(end);
    return out;
  }

private:
  std::string_view m_src;
  const std::string& m_file;
  std::size_t m_pos = 0;
  int m_line = 1, m_col = 1;

  SourceLocation loc(int length) const { return SourceLocation{m_file, m_line, m_col, std::max(length, 1)}; }
  char peek(std::size_t k = 0) const { return m_pos + k < m_src.size() ? m_src[m_pos + k] : '\0'; }
  void advance(std::size_t n = 1) {
    for (std::size_t i = 0; i < n && m_pos < m_src.size(); ++i) {
      if (m_src[m_pos] == '\n') {
        ++m_line;
        m_col = 1;
      } else {
        ++m_col;
      }
      ++m_pos;
    }
  }
  Unexpected error(std::string message, SourceLocation where) const {
    return Unexpected(Diagnostic::error("relay.lex", std::move(message), std::move(where)));
  }

  Expected<void> skipSpaceAndComments() {
    for (;;) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        advance();
      } else if (c == '/' && peek(1) == '/') {
        while (m_pos < m_src.size() && peek() != '\n')
          advance();
      } else if (c == '/' && peek(1) == '*') {
        SourceLocation start = loc(2);
        int depth = 0;
        do {
          if (m_pos >= m_src.size()) return error("unterminated comment: add '*/'", start);
          if (peek() == '/' && peek(1) == '*') {
            ++depth;
            advance(2);
          } else if (peek() == '*' && peek(1) == '/') {
            --depth;
            advance(2);
          } else {
            advance();
          }
        } while (depth > 0);
      } else {
        return {};
      }
    }
  }

  Token make(TokenKind kind, std::string text, SourceLocation where) const {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.loc = std::move(where);
    return t;
  }

  std::string identAt(std::size_t p, bool dotted) const {
    std::size_t e = p;
    while (e < m_src.size() && isIdentChar(m_src[e]))
      ++e;
    while (dotted && e + 1 < m_src.size() && m_src[e] == '.' && isIdentStart(m_src[e + 1])) {
      ++e;
      while (e < m_src.size() && isIdentChar(m_src[e]))
        ++e;
    }
    return std::string(m_src.substr(p, e - p));
  }

  Expected<Token> next() {
    char c = peek();
    SourceLocation start = loc(1);
    if (c == '%' || c == '@') {
      if (!isIdentChar(peek(1))) return error(fmt::format("expected a name after '{}'", c), start);
      std::string name = identAt(m_pos + 1, false);
      start.length = static_cast<int>(name.size() + 1);
      advance(name.size() + 1);
      return make(c == '%' ? TokenKind::Local : TokenKind::Global, name, start);
    }
    if (isIdentStart(c)) {
      std::string name = identAt(m_pos, true);
      start.length = static_cast<int>(name.size());
      advance(name.size());
      return make(TokenKind::Ident, name, start);
    }
    if (isDigit(c)) return number();
    if (c == '"') return string();
    if (c == '#') return hashHeader();
    static constexpr std::pair<char, TokenKind> kPunct[] = {
        {'(', TokenKind::LParen}, {')', TokenKind::RParen}, {'[', TokenKind::LBracket}, {']', TokenKind::RBracket},
        {'{', TokenKind::LBrace}, {'}', TokenKind::RBrace}, {',', TokenKind::Comma},    {';', TokenKind::Semicolon},
        {':', TokenKind::Colon},  {'=', TokenKind::Equal},  {'.', TokenKind::Dot},      {'?', TokenKind::Question}};
    if (c == '-' && peek(1) == '>') {
      start.length = 2;
      advance(2);
      return make(TokenKind::Arrow, "->", start);
    }
    if (c == '-') {
      advance();
      return make(TokenKind::Minus, "-", start);
    }
    for (auto [ch, kind] : kPunct)
      if (c == ch) {
        advance();
        return make(kind, std::string(1, c), start);
      }
    if (std::isprint(static_cast<unsigned char>(c)))
      return error(fmt::format("unexpected character '{}' in Relay text", c), start);
    return error(fmt::format("unexpected byte 0x{:02x} in Relay text", static_cast<unsigned char>(c)), start);
  }

  Expected<Token> number() {
    SourceLocation start = loc(1);
    std::size_t p = m_pos;
    bool isFloat = false;
    while (p < m_src.size() && isDigit(m_src[p]))
      ++p;
    if (p + 1 < m_src.size() && m_src[p] == '.' && isDigit(m_src[p + 1])) {
      isFloat = true;
      ++p;
      while (p < m_src.size() && isDigit(m_src[p]))
        ++p;
    }
    if (p < m_src.size() && (m_src[p] == 'e' || m_src[p] == 'E')) {
      std::size_t q = p + 1;
      if (q < m_src.size() && (m_src[q] == '+' || m_src[q] == '-')) ++q;
      if (q < m_src.size() && isDigit(m_src[q])) {
        isFloat = true;
        p = q;
        while (p < m_src.size() && isDigit(m_src[p]))
          ++p;
      }
    }
    std::string text(m_src.substr(m_pos, p - m_pos));
    std::string suffix;
    if (p < m_src.size() && (m_src[p] == 'f' || m_src[p] == 'i' || m_src[p] == 'u')) {
      suffix = identAt(p, false);
      static const char* kSuffixes[] = {"f", "f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};
      bool ok = false;
      for (const char* s : kSuffixes)
        ok = ok || suffix == s;
      if (!ok) {
        start.length = static_cast<int>(text.size() + suffix.size());
        return error(
            fmt::format("unknown literal suffix '{}' on {}: use f, f16, f32, f64, i8, i16, i32, i64 or u8..u64", suffix,
                        text),
            start);
      }
      if (suffix[0] == 'f') isFloat = true;
    } else if (p < m_src.size() && isIdentChar(m_src[p])) {
      std::string rest = identAt(p, false);
      start.length = static_cast<int>(text.size() + rest.size());
      return error(fmt::format("malformed number '{}{}'", text, rest), start);
    }
    if (isFloat && !suffix.empty() && suffix[0] != 'f') {
      start.length = static_cast<int>(text.size() + suffix.size());
      return error(fmt::format("integer suffix '{}' on the float literal {}", suffix, text), start);
    }
    start.length = static_cast<int>(text.size() + suffix.size());
    advance(text.size() + suffix.size());
    Token t = make(isFloat ? TokenKind::Float : TokenKind::Int, text, start);
    t.suffix = suffix;
    return t;
  }

  Expected<Token> string() {
    SourceLocation start = loc(1);
    std::string text;
    advance();
    for (;;) {
      if (m_pos >= m_src.size() || peek() == '\n') return error("unterminated string: add the closing '\"'", start);
      char c = peek();
      if (c == '"') break;
      if (c == '\\' && m_pos + 1 < m_src.size()) {
        advance();
        c = peek();
      }
      text += c;
      advance();
    }
    advance();
    start.length = static_cast<int>(text.size() + 2);
    return make(TokenKind::String, text, start);
  }

  Expected<Token> hashHeader() {
    SourceLocation start = loc(2);
    if (peek(1) != '[') return error("expected '#[version = \"0.0.5\"]' or '#[metadata]' after '#'", start);
    std::size_t close = m_src.find(']', m_pos);
    std::size_t eol = m_src.find('\n', m_pos);
    if (close == std::string_view::npos || (eol != std::string_view::npos && close > eol))
      return error("unterminated '#[' header: add the closing ']'", start);
    std::string inner(m_src.substr(m_pos + 2, close - m_pos - 2));
    start.length = static_cast<int>(close - m_pos + 1);
    std::erase(inner, ' ');
    if (inner == "metadata") {
      advance(close - m_pos + 1);
      std::string rest(m_src.substr(m_pos));
      advance(m_src.size() - m_pos);
      return make(TokenKind::Metadata, rest, start);
    }
    const std::string prefix = "version=\"";
    if (inner.starts_with(prefix) && inner.size() > prefix.size() && inner.back() == '"') {
      advance(close - m_pos + 1);
      return make(TokenKind::Version, inner.substr(prefix.size(), inner.size() - prefix.size() - 1), start);
    }
    return error(fmt::format("unknown header '#[{}]': expected '#[version = \"0.0.5\"]' or '#[metadata]'", inner),
                 start);
  }
};

} // namespace

std::string describeToken(const Token& t) {
  switch (t.kind) {
  case TokenKind::End: return "end of file";
  case TokenKind::Local: return fmt::format("'%{}'", t.text);
  case TokenKind::Global: return fmt::format("'@{}'", t.text);
  case TokenKind::String: return fmt::format("\"{}\"", t.text);
  case TokenKind::Int:
  case TokenKind::Float: return fmt::format("'{}{}'", t.text, t.suffix);
  case TokenKind::Version: return "'#[version]'";
  case TokenKind::Metadata: return "'#[metadata]'";
  default: return fmt::format("'{}'", t.text);
  }
}

Expected<std::vector<Token>> lexRelay(std::string_view source, const std::string& fileName) {
  return Lexer(source, fileName).run();
}

} // namespace loopscape::frontend::relay
