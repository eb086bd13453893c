// Prints a Relay module in TVM's text format (`#[version = "0.0.5"]`): each function as
// `def @f(%x: T, ...) -> T { %0 = op(...); ...; result }`, every call, tuple and
// projection bound to a numbered `%N` in producer-before-consumer order, variables and
// constants inline, attributes in the op's declared order with those equal to their
// default left out (as TVM's printer does), and, once types are known, the `/* ty=... */`
// notes the parser skips. When every meta constant has a value, a `#[metadata]` section
// in TVM's JSON form carries them. print ∘ parse ∘ print = print.
#pragma once

#include "core/frontend/relay/relay_ir.h"

#include <string>

namespace loopscape::frontend::relay {

/// `withMetadata`: append the `#[metadata]` section when every constant has a value.
std::string printRelay(const Module& module, bool withMetadata = true);
/// A scalar literal as Relay writes it: `0f`, `1e-05f`, `2i64`, `1f16`, `True`, `-1`.
std::string literalStr(const ir::NDArray& value);

} // namespace loopscape::frontend::relay
