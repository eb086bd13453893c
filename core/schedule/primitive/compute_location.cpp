// The compute-location family: compute_at, reverse_compute_at (compute_at.cpp),
// compute_inline, reverse_compute_inline (compute_inline.cpp). Trace form as TVM's
// (v0.18): ComputeAt/ReverseComputeAt [block, loop] [preserve_unit_loops, index];
// ComputeInline/ReverseComputeInline [block] [].
#include "core/schedule/primitive/compute_location.h"
#include "core/schedule/primitive/families.h"

namespace loopscape::schedule {

std::span<const InstructionKind> computeLocationKinds() {
  static const InstructionKind kinds[] = {
      {.name = "compute_at",
       .jsonName = "ComputeAt",
       .inputNames = {"block", "loop"},
       .attrs = {{"preserve_unit_loops", false}, {"index", -1}},
       .outputs = {},
       .apply = applyComputeAt,
       .appliesTo = AppliesTo::Block,
       .inputSpecs = {{}, {ParamKind::TargetLoop}},
       .description = "move the block under a loop of its consumer",
       .shortcut = "Ctrl+Alt+A",
       .panelRank = 8},
      {.name = "reverse_compute_at",
       .jsonName = "ReverseComputeAt",
       .inputNames = {"block", "loop"},
       .attrs = {{"preserve_unit_loops", false}, {"index", -1}},
       .outputs = {},
       .apply = applyReverseComputeAt,
       .appliesTo = AppliesTo::Block,
       .inputSpecs = {{}, {ParamKind::TargetLoop}},
       .description = "move the block under a loop of its producer",
       .shortcut = "Ctrl+Alt+Shift+A",
       .panelRank = 9},
      {.name = "compute_inline",
       .jsonName = "ComputeInline",
       .inputNames = {"block"},
       .outputs = {},
       .apply = applyComputeInline,
       .appliesTo = AppliesTo::Block,
       .inputSpecs = {{}},
       .description = "inline the block into its consumers",
       .shortcut = "Ctrl+Alt+I",
       .panelRank = 6},
      {.name = "reverse_compute_inline",
       .jsonName = "ReverseComputeInline",
       .inputNames = {"block"},
       .outputs = {},
       .apply = applyReverseComputeInline,
       .appliesTo = AppliesTo::Block,
       .inputSpecs = {{}},
       .description = "inline the block into its producer",
       .shortcut = "Ctrl+Alt+Shift+I",
       .panelRank = 7},
  };
  return kinds;
}

} // namespace loopscape::schedule
