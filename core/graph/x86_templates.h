// The built-in schedules of the groups AlterOpLayout makes (relay_alter_layout.h), as
// TOPI's x86 templates build them with their fallback configurations. Each is a
// TVM-style Python trace, applied like a user's trace file.
//
// conv2d_NCHWc (schedule_conv_NCHWc_cpu_common):
//  * data_pad: its own stage, parallel over (batch, channel chunk, row);
//  * the group's elementwise tail inlined into its last block O; O's row split into
//    chunks of reg_n columns (the largest divisor of the output width up to 31, or up
//    to the vector registers less two), (batch, channel chunk, row) fused and parallel,
//    the channel block vectorised;
//  * the convolution computed at O's column chunk: reduction (ic_outer, kh, kw,
//    ic_inner) outside, reg_n columns unrolled and the channel block vectorised inside,
//    so reg_n vector accumulators stay in registers; decompose_reduction zeroes them.
//
// dense_pack (schedule_dense_pack): the elementwise tail inlined into the last block;
// its rows split by 8 (the largest power of two up to 8 dividing them), its columns by
// the packed block b; (row chunk, column chunk) fused and parallel; the dense computed
// there with k outside and 8 x b accumulators (8 rows unrolled, b vectorised) inside.
//
// batch_matmul (NN, as AlterOpLayout leaves it: the second operand transposed first so
// its columns are contiguous): the same as dense_pack per batch, the batch loop fused
// into the parallel tile, columns in blocks of up to two vectors.
#pragma once

#include "core/graph/model.h"

#include <optional>
#include <string>

namespace loopscape::graph {

/// The conv2d_NCHWc template's trace for `group`, or nullopt when the group has no
/// conv2d_NCHWc. `vectorRegisters` bounds reg_n.
std::optional<std::string> nchwcScheduleScript(const ModelGroup& group, int vectorRegisters);

/// The dense_pack template's trace for `group`, or nullopt when it has no dense_pack.
std::optional<std::string> densePackScheduleScript(const ModelGroup& group);

/// The batch_matmul template's trace for `group` (an NN batch_matmul, as AlterOpLayout
/// leaves it), or nullopt. Columns in blocks of up to two vectors of `lanes`.
std::optional<std::string> batchMatmulScheduleScript(const ModelGroup& group, int lanes);

/// The template that applies to `group` and its name ("conv2d_NCHWc", "dense_pack",
/// "batch_matmul").
struct TemplateScript {
  std::string name;
  std::string script;
};
std::optional<TemplateScript> x86TemplateScript(const ModelGroup& group, int vectorRegisters, int lanes);

} // namespace loopscape::graph
