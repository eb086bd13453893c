// The hook through which the GPU lowering (lower.h, device kind "gpu") refuses a loop
// bound to blockIdx/threadIdx that carries a dependence. The check needs the polyhedral
// dependences of core/poly, which core/codegen may not include (DESIGN.md), so whoever
// owns both installs poly::checkBoundLoopDependences (core/poly/gpu_bound_loops.h) here:
// the CLI, the workbench, the tests. Without a hook the lowering does not check
// dependences (its other checks still run).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"

#include <functional>

namespace loopscape::codegen {

using BoundLoopCheck = std::function<Expected<void>(const ir::PrimFunc&)>;

/// Installs `check` for every later GPU lowering in the process (an empty function
/// removes it). Install it before lowering starts on other threads.
void setBoundLoopCheck(BoundLoopCheck check);
/// The installed check (empty when none).
const BoundLoopCheck& boundLoopCheck();

} // namespace loopscape::codegen
