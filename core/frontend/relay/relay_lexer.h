// The tokens of the Relay text format (TVM 0.8-0.18, `#[version = "0.0.5"]`): local
// `%x` / `%0` and global `@f` names, dotted identifiers (`nn.conv2d`, `relay.Constant`),
// numbers with TVM's width suffixes (`0f`, `1e-05f`, `2i64`, `1f16`), strings,
// punctuation, and the two `#[...]` headers. `/* ... */` (nested) and `// ...` comments,
// which carry the printer's `ty=` and `span=` notes, are skipped. Everything after
// `#[metadata]` is returned as one Metadata token. The first bad character is a located
// Diagnostic ("relay.lex").
#pragma once

#include "core/ir/diagnostic.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::frontend::relay {

enum class TokenKind : std::uint8_t {
  Local,    ///< %name (text without '%')
  Global,   ///< @name (text without '@')
  Ident,    ///< identifier, possibly dotted
  Int,      ///< integer literal; `suffix` holds "i64", "u8", ... or ""
  Float,    ///< float literal; `suffix` holds "f", "f16", "f32", "f64" (or "" for 1.5)
  String,   ///< "..." (text without quotes)
  Version,  ///< #[version = "..."] (text: the version)
  Metadata, ///< #[metadata] and the rest of the file (text: the rest)
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Semicolon,
  Colon,
  Equal,
  Dot,
  Arrow,
  Minus,
  Question,
  End,
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;
  std::string suffix;
  SourceLocation loc;
};

/// "'%x'", "'('", "end of file": how messages name a token.
std::string describeToken(const Token& t);

Expected<std::vector<Token>> lexRelay(std::string_view source, const std::string& fileName);

} // namespace loopscape::frontend::relay
