// Lowering pass 1: thread bindings on a CPU target. A ThreadBinding loop (sch.bind) only
// means something on a GPU; a CPU target refuses the whole function, naming the loop.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/stmt.h"

#include <string_view>

namespace loopscape::codegen {

/// For `deviceKind` "cpu": the Diagnostic "codegen.thread-binding-on-cpu" for the first
/// ThreadBinding loop (pre-order), with the loop as an IrReference, e.g.
/// "loop 'i_0' is bound to blockIdx.x, but target device 'cpu' has no GPU threads".
/// Other device kinds accept every loop.
Expected<void> checkThreadBindings(const ir::Stmt& body, std::string_view deviceKind);

} // namespace loopscape::codegen
