// Region and dataflow analysis for the compute-location primitives (compute_at,
// reverse_compute_at, compute_inline, reverse_compute_inline), following TVM's
// arith::EvalSet over buffer regions and its BlockScope dependency rules.
//
// Regions: a block's read/write region is written in its iterator variables; substituting
// the block's bindings and relaxing the loops between the block and some ancestor (every
// value of their ranges) gives, per dimension, a closed interval [min, max] whose ends are
// expressions in the loops that were not relaxed (interval arithmetic on quasi-affine
// index expressions; a dimension that is not quasi-affine in the relaxed loops covers the
// whole buffer dimension, as TVM's "everything" set does after CoverRange).
//
// Dataflow inside one scope (the child blocks of a block, in program order): producers of
// a block are the earlier blocks that write a buffer it reads or writes (RAW/WAW),
// consumers the later blocks that read or write a buffer it writes. A scope is a stage
// pipeline when no later block writes a buffer an earlier block reads (no WAR) and every
// region a block reads from a buffer produced in the scope is covered by its producers'
// writes, both relaxed to their lowest common ancestor (region cover).
#pragma once

#include "core/ir/simplify.h"
#include "core/ir/substitute.h"
#include "core/schedule/ir_tree.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace loopscape::schedule::detail {

/// A closed integer interval [min, max]; the ends are expressions over the variables that
/// were not relaxed.
struct Interval {
  ir::Expr min, max;
};

/// The variables being relaxed and their ranges (loop var -> [min, min + extent)).
using RelaxMap = std::unordered_map<const ir::ExprNode*, ir::Range>;

/// The interval `e` takes when every variable of `relax` ranges over its range (ranges may
/// use other relaxed variables); nullopt if `e` is not quasi-affine in the relaxed vars.
std::optional<Interval> evalInterval(const ir::Expr& e, const RelaxMap& relax);

/// The loops strictly above `node` up to `ancestor` (exclusive; null = up to the
/// enclosing block), as a RelaxMap.
RelaxMap loopDomainsBetween(const TreeNode& node, const TreeNode* ancestor);

/// The bindings of a block's iterators (iterator var -> bound value) from its realize.
ir::VarMap bindingsOf(const TreeNode& block);

/// `region` with the bindings substituted and `relax` relaxed, one interval per dimension;
/// a dimension that cannot be evaluated covers the whole buffer dimension.
std::vector<Interval> relaxRegion(const ir::BufferRegion& region, const ir::VarMap& bindings,
                                  const RelaxMap& relax);

/// min(a, b) / max(a, b), the operand itself when `analyzer` decides the comparison.
ir::Expr minOf(const ir::Expr& a, const ir::Expr& b, const ir::Analyzer& analyzer);
ir::Expr maxOf(const ir::Expr& a, const ir::Expr& b, const ir::Analyzer& analyzer);

/// The per-dimension hull of two regions, simplified with `analyzer`.
std::vector<Interval> hull(const std::vector<Interval>& a, const std::vector<Interval>& b,
                           const ir::Analyzer& analyzer);

enum class Access { Read, Write };

/// The region of `buffer` that the blocks under `loop` read (or write), relaxed over the
/// loops inside `loop` and simplified knowing the loops around it and `loop` itself, as
/// min/extent per dimension; nullopt if no block under `loop` accesses `buffer`.
std::optional<std::vector<ir::Range>> accessRegionUnder(const IrTree& tree, const TreeNode& loop,
                                                        const ir::Buffer& buffer, Access access);

/// analyzerAt(node) plus the range of `node` itself when it is a loop.
ir::Analyzer analyzerInside(const TreeNode& node);

// ---------------------------------------------------------------------------- dataflow

/// True if `regions` mention `buffer`.
bool touches(const std::vector<ir::BufferRegion>& regions, const ir::BufferNode* buffer);

/// Producers (RAW/WAW sources) and consumers (RAW/WAW destinations) of `block` among the
/// child blocks of its scope, in program order.
std::vector<const TreeNode*> producersOf(const IrTree& tree, const TreeNode& block);
std::vector<const TreeNode*> consumersOf(const IrTree& tree, const TreeNode& block);

/// A failed property: why, and the blocks it is about.
struct Violation {
  std::string why;
  std::vector<std::string> blocks;
};

/// Why the scope is not a stage pipeline (WAR dependency or region not covered).
std::optional<Violation> stagePipelineViolation(const IrTree& tree, const TreeNode& scope);

/// Why `block` is neither a complete nor a reduction block among `siblings` (the child
/// blocks of its scope): TVM's local complete/reduction block definitions.
std::optional<std::string> completeOrReductionViolation(const ir::Block& block,
                                                        const std::vector<const TreeNode*>& siblings,
                                                        const ir::BlockRealize* realize);
/// Why `block` is not a complete block among `siblings`: reduce iterators, another
/// writer of its output, or a buffer it both reads and writes.
std::optional<std::string> completeViolation(const ir::Block& block, const std::vector<const TreeNode*>& siblings);

/// Why the scope does not have compact dataflow: the first child block that is neither
/// complete nor reduction.
std::optional<Violation> compactDataflowViolation(const IrTree& tree, const TreeNode& scope);

/// The read and write regions of a block as TVM's GetBlockReadWriteRegion derives them
/// from its body (and init): buffers in order of first access, one point region per
/// distinct access (several distinct accesses give their hull), reads exclude the
/// buffers the block writes. Nested blocks contribute their declared regions with their
/// bindings substituted and the loops inside `block` relaxed (accesses under such loops
/// are relaxed too); buffers a nested block allocates are not accesses of `block`.
std::pair<std::vector<ir::BufferRegion>, std::vector<ir::BufferRegion>> accessRegionsOfBody(const ir::Block& block);

} // namespace loopscape::schedule::detail
