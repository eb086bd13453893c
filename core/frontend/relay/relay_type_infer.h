// Type inference for a parsed Relay module: rebuilds every function with each node's
// type filled in (and each call's OpDef attached), using the op library's relations.
// Functions are inferred callee first; `@f(...)` arguments must match @f's parameter
// types. A `meta[relay.Constant][i]` without a known value takes the shape its first
// consumer's relation infers (a conv2d weight from channels/kernel_size/groups and the
// data's channels, a dense weight from units, a bias or batch-norm parameter from the
// channel axis, a broadcast operand from the other operand); the module's constantTypes
// records it. Errors ("relay.type", "relay.attr", "relay.op") are located at the call, the
// attribute or the operand they are about and name the op, the operand and the shapes.
#pragma once

#include "core/frontend/relay/relay_ir.h"

namespace loopscape::frontend::relay {

Expected<Module> inferTypes(const Module& module);

} // namespace loopscape::frontend::relay
