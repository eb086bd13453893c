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
       .apply = applyComputeAt},
      {.name = "reverse_compute_at",
       .jsonName = "ReverseComputeAt",
       .inputNames = {"block", "loop"},
       .attrs = {{"preserve_unit_loops", false}, {"index", -1}},
       .outputs = {},
       .apply = applyReverseComputeAt},
      {.name = "compute_inline",
       .jsonName = "ComputeInline",
       .inputNames = {"block"},
       .outputs = {},
       .apply = applyComputeInline},
      {.name = "reverse_compute_inline",
       .jsonName = "ReverseComputeInline",
       .inputNames = {"block"},
       .outputs = {},
       .apply = applyReverseComputeInline},
  };
  return kinds;
}

} // namespace loopscape::schedule
