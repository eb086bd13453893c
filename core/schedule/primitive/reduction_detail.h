// Internals shared by the reduction primitives (reduction.cpp: decompose_reduction and
// the registry rows; rfactor.cpp: rfactor) and by blockize.
#pragma once

#include "core/schedule/instruction.h"

#include <optional>
#include <string>

namespace loopscape::schedule::detail {

/// Why `block` is not a reduction block of its scope in TVM's sense, or nullopt:
/// it has an init; every reduce iterator is bound; it is the only block of its scope
/// writing its output buffers (dominant); no reduce iterator indexes a written buffer.
std::optional<std::string> reductionBlockProblem(const IrTree& tree, const TreeNode& block);

Expected<std::vector<RV>> applyRfactor(Schedule& sch, const std::vector<TraceValue>& inputs,
                                       const std::vector<TraceValue>& attrs);

} // namespace loopscape::schedule::detail
