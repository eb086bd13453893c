// Tokenizer of the shared Python subset: names, integer literals (decimal, 0x, 0o, 0b,
// `_` separators, within int64), float literals, '…' / "…" / triple-quoted strings,
// operators and brackets, comments. A newline ends a logical line except inside (), []
// or {} and after a `\` continuation; blank and comment lines produce no token.
// Indentation produces Indent/Dedent tokens (or, for a Dialect without blocks, an error).
// Every token has its exact line:column span. Errors are Diagnostics whose code and
// wording the Dialect picks (kinds "unexpected-char", "unterminated-string",
// "unbalanced", "indentation", "overflow").
#pragma once

#include "core/syntax/dialect.h"
#include "core/syntax/token.h"

#include <string_view>
#include <vector>

namespace loopscape::syntax {

/// What the text is: a module (indentation makes blocks) or one expression (indentation
/// means nothing, as for Python's eval()).
enum class Input : std::uint8_t { Module, Expression };

Expected<std::vector<Token>> tokenize(std::string_view source, const std::string& fileName, const Dialect& dialect,
                                      Input input = Input::Module);

} // namespace loopscape::syntax
