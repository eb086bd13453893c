// FuseOps as TVM 0.18 does it (src/relay/transforms/fuse_ops.cc,
// src/relay/analysis/graph_partitioner.cc), on a typed single-function graph:
//  1. an indexed forward graph in post-DFS order: every call gets its op's OpPattern; an
//     edge into a broadcast op whose operand has the result's shape is elementwise;
//     tuples are kTuple with injective edges, projections kInjective; a scalar constant
//     of a simple dtype is elementwise, other constants and parameters opaque; the
//     function's result is referenced from outside;
//  2. the post-dominator tree (least common ancestor of each node's consumers, the
//     combined edge pattern on the way);
//  3. three phases of union-find fusion of each node into its immediate post-dominator:
//     phase 0 out-elemwise-fusable ops (conv2d, dense) absorb elementwise/broadcast
//     paths, and elementwise/broadcast ops fuse forward into injective or reduction or
//     out-elemwise-fusable sinks; phase 1 injective ops and tuples fuse along
//     all-injective paths; phase 2 injective ops fuse into intermediate tuples; each
//     merge is refused past the maximum fuse depth (256 ops, relay.FuseOps.max_depth).
// Each group with at least one call becomes a PrimFunc (lowerGroup): placeholders p0, p1,
// ... for the values it reads from outside (scalar literals are inlined), one TOPI-style
// stage set per op (block names unique within the group), the root's value as the
// output; named `tvmgen_default_fused_<op>_<op>...` (dots become '_', over 80 characters
// truncated and suffixed with a hash, repeats suffixed _1, _2 as TVM does).
#pragma once

#include "core/frontend/relay/relay_op.h"
#include "core/ir/prim_func.h"

namespace loopscape::frontend::relay {

struct FusedGroup {
  std::string name;                      ///< tvmgen_default_fused_...
  std::vector<NodePtr> nodes;            ///< members, producers first; the last is the root
  std::vector<NodePtr> inputs;           ///< values read from outside, in parameter order p0, p1, ...
  OpPattern pattern = OpPattern::Opaque; ///< the group's combined pattern (anchor's if any)
  NodePtr root() const { return nodes.back(); }
  /// Whether the group holds an operator call (a group of only tuples is not lowered).
  bool hasCall() const;
};

struct FusionResult {
  std::vector<FusedGroup> groups; ///< in execution order
};

/// Partitions the function `f` (typed; no global calls) into fused groups. `maxDepth` is
/// TVM's relay.FuseOps.max_depth.
FusionResult fuseOps(const Function& f, int maxDepth = 256);

/// The group as a te program: placeholders p0.. (the inputs), then every op's stages;
/// the root's value is the output. Errors ("relay.lower") name an op without a compute.
Expected<TeProgram> groupProgram(const FusedGroup& group);
/// groupProgram lowered by te_lower.h (te.create_prim_func) and named after the group.
Expected<ir::PrimFunc> lowerGroup(const FusedGroup& group);

/// Estimated floating-point operations of the group's calls.
std::int64_t groupFlops(const FusedGroup& group);

} // namespace loopscape::frontend::relay
