// The Relay text parser: TVM's 0.8-0.18 text format (`#[version = "0.0.5"]`) into the
// graph IR of relay_ir.h. Accepted:
//  * `def @f(%x: Tensor[(1, 3), float32], %y, Attr=value) -> T { body }`, several per file;
//  * bodies of `%N = expr;` bindings and `let %x[: T] = expr;`, ending in an expression;
//  * operator calls `nn.conv2d(args, name=value, ...)`, calls of other functions `@f(...)`,
//    tuples `(a, b)` / `(a,)` / `()`, projections `%3.0`, scalar literals (`0f`, `1e-05f`,
//    `2i64`, `1f16`, `-1`, `True`), `meta[relay.Constant][i]`;
//  * attribute values: ints, floats, strings, True/False, None, (nested) lists;
//  * types `Tensor[(d, ...), dtype]`, `dtype` (a scalar), tuples `(T, T)`;
//  * a trailing `#[metadata]` section (relay_metadata.h decodes its constants).
// Not accepted, each with a located error: `fn` literals, `if`, `match`, ADT `type`
// declarations, `ref`, dynamic dimensions `?`, calling a local function value, meta
// attribute objects. Nesting deeper than ir::resourceLimits().maxNestingDepth is refused.
// Every error is a Diagnostic with code "relay.parse" (or "relay.lex") and a location;
// nothing is type-checked here (see relay_type_infer.h).
#pragma once

#include "core/frontend/relay/relay_ir.h"

#include <string>
#include <string_view>

namespace loopscape::frontend::relay {

Expected<Module> parseRelay(std::string_view source, std::string fileName);

} // namespace loopscape::frontend::relay
