// Code generation back to loops: a Scop plus an isl schedule tree (over the Scop's
// statement instances, possibly with extension nodes adding more instances of the same
// statements) becomes a PrimFunc again, through isl's AST builder
// (isl_ast_build_node_from_schedule) and a translation of the isl AST to TensorIR:
//
// - Every band member is generated with isl's `atomic` loop type (unless the tree sets
//   another): one loop per member with the statements' guards inside it, never the
//   default separation into loop pieces, which would copy a block into several nests
//   (block names must stay unique, and a fused nest stays readable).
// - isl `for` -> For. The loop starts at the AST's init (a max(...) becomes ir::Max),
//   its extent comes from the condition (`c <= min(a, b)` -> min(a, b) - init + 1); a
//   stride s > 1 becomes a loop over a unit-step var v with the iterator rebound to
//   init + s * v. Degenerate loops (one iteration) are substituted away.
// - Loop names come from the band members: a member's dimension id when set (the Scop
//   names every member after its loop; tiling names `<name>_0` / `<name>_1`), otherwise
//   the loop the member equals for every statement, otherwise the loops it combines
//   joined by `_` (`t_i` for t + i). Names are made unique along each nesting path.
// - Marks above a band ("parallel", "vectorized", "unroll", "thread_binding(<tag>)")
//   set the kind of the first loop generated for that band.
// - isl `if` -> the predicate of the BlockRealize when it guards a single block, else
//   IfThenElse.
// - Every statement instance becomes the ORIGINAL block (same name, iterators, regions,
//   body) realized with its iterators bound to the Scop's iterValues pulled back through
//   the inverse schedule (PPCG's at_each_domain recipe). A reduction (`<b>_init` +
//   `<b>`): when the init and the update each appear once in the AST and the first
//   update executed for each spatial point has its reduce iterators at their minimum
//   (checked with isl on the schedule), the block is re-emitted with its T.init: the
//   init then runs right before that first update, and no access to the element can lie
//   in between in a schedule that respects the original dependences. Otherwise the init
//   becomes a separate block `<b>_init` (spatial iterators only, as decompose_reduction
//   builds it) and the update keeps the name `<b>` without init.
// - Blocks that only scope other blocks (blockize's outer blocks) are not re-emitted:
//   their iterators are already substituted into the statements; their allocated
//   buffers move to the root block.
//
// isl work runs in the calling thread's isl context with an operation bound; exceeding it
// gives the Diagnostic "poly.quota".
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/poly/scop.h"

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace loopscape::poly {

/// Regenerates `func` (whose Scop is `scop`) in the order of `schedule`. Errors:
/// "poly.codegen" (an AST shape that has no TensorIR form), "poly.quota", "poly.isl".
Expected<ir::PrimFunc> generateFunc(const ir::PrimFunc& func, const Scop& scop, const isl::schedule& schedule);

/// The type the regenerated loops of `func` take: that of its first loop (int32 when it
/// has none).
ir::DataType regeneratedLoopType(const ir::PrimFunc& func);

/// The member names of a band node as code generation will use them (before
/// uniquification along the path).
std::vector<std::string> bandMemberNames(const isl::schedule_node& band);

/// Sets the dimension ids (the loop names) of a band's members; keeps the band's
/// permutable/coincident flags and loop types. Returns the node at the same position.
isl::schedule_node setBandMemberNames(const isl::schedule_node& band, const std::vector<std::string>& names);

/// Default bound on isl operations for one scheduling / code generation step.
inline constexpr unsigned long kDefaultIslMaxOperations = 20'000'000;

} // namespace loopscape::poly
