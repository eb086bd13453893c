// The built-in schedule of a conv2d_NCHWc group, as TOPI's x86 template
// (schedule_conv_NCHWc_cpu_common, fallback configuration) builds it:
//  * data_pad: its own stage, parallel over (batch, channel chunk, row);
//  * the group's elementwise tail inlined into its last block O; O's row split into
//    chunks of reg_n columns (the largest divisor of the output width up to 31, or up
//    to the vector registers less two), (batch, channel chunk, row) fused and parallel,
//    the channel block vectorised;
//  * the convolution computed at O's column chunk: reduction (ic_outer, kh, kw,
//    ic_inner) outside, reg_n columns unrolled and the channel block vectorised inside,
//    so reg_n vector accumulators stay in registers; decompose_reduction zeroes them.
// The schedule is a TVM-style Python trace, applied like a user's trace file.
#pragma once

#include "core/graph/model.h"

#include <optional>
#include <string>

namespace loopscape::graph {

/// The template's trace for `group`, or nullopt when the group has no conv2d_NCHWc.
/// `vectorRegisters` bounds reg_n.
std::optional<std::string> nchwcScheduleScript(const ModelGroup& group, int vectorRegisters);

} // namespace loopscape::graph
