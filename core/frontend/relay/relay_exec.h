// Running a Relay model through the reference interpreter: constants get values (a
// metadata section, `DIR/const_<i>.npy`, or seeded random values scaled so activations
// stay O(1): weights uniform with variance 1/fan_in, vectors within ±0.1, batch-norm
// gamma near 1 and variances in [0.5, 1.5]); then the passes, the fusion, and each fused
// group's PrimFunc interpreted in order, intermediate values kept per node.
#pragma once

#include "core/frontend/relay/relay_fuse.h"
#include "core/frontend/relay/relay_memory.h"
#include "core/ir/ndarray.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscape::frontend::relay {

/// Gives every meta constant without a value one: `paramsDir`/const_<i>.npy when that
/// file exists (its shape and dtype must match the inferred type), else seeded random.
Expected<void> materializeConstants(Module& typed, const std::string& paramsDir, std::uint64_t seed);

/// Runs `main` (typed, after the passes) group by group; `inputs` in parameter order.
/// Returns the outputs (one per tuple field of the result). With a memory plan, every
/// planned tensor lives in its storage of the plan (written after its group, read back by
/// each consumer) and, with `poisonFreed`, storage is filled with NaN bytes whenever its
/// tensor dies: a plan that let two live tensors share storage changes the result.
Expected<std::vector<ir::NDArray>> runFused(const Module& module, const Function& main, const FusionResult& fusion,
                                            const std::vector<ir::NDArray>& inputs, const MemoryPlan* plan = nullptr,
                                            bool poisonFreed = false);

} // namespace loopscape::frontend::relay
