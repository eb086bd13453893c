// Helpers of the primitives that create blocks and rewrite buffers (reduction,
// blockize, transform_layout): fresh block names, predicate conjuncts, symbolic
// relaxation of access regions over inner iterators, and the replacement of one buffer
// by another everywhere in a statement (buffers are immutable and have identity, so
// changing a buffer means building a new one and redirecting every reference to it).
#pragma once

#include "core/ir/simplify.h"
#include "core/schedule/ir_tree.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::schedule::detail {

/// `base` if no block of `tree` has that name, else `base_1`, `base_2`, ... (block names
/// are unique in a function; `taken` lists names already chosen by the caller).
std::string uniqueBlockName(const IrTree& tree, const std::string& base, const std::vector<std::string>& taken = {});

/// The conjuncts of a predicate (`a && b && c` -> a, b, c); `true` has none.
std::vector<ir::Expr> conjuncts(const ir::Expr& predicate);
/// The conjunction of `terms` (`true` when empty).
ir::Expr conjunction(const std::vector<ir::Expr>& terms);

/// A variable and the range it takes, for relaxation.
struct RelaxVar {
  ir::Expr var;
  ir::Range dom;
};

/// The smallest range covering `r` when the `relax` variables take every value of their
/// domains: the part of `r`'s bounds that does not mention them is kept symbolically, the
/// part that does is bounded numerically (`v_o * 16 + v_i` over v_i in [0, 16) gives
/// `v_o * 16 : v_o * 16 + 16`). `context` knows the other variables' ranges. When no
/// bound can be found, `fallbackExtent` (the buffer dimension) is covered from 0.
ir::Range relaxRange(const ir::Range& r, const std::vector<RelaxVar>& relax, const ir::Analyzer& context,
                     const ir::Expr& fallbackExtent);

/// Redirects every reference to `oldBuffer` in `s` to `newBuffer`: loads and stores (their
/// indices through `mapIndices`), block read/write regions (through `mapRegion`),
/// block alloc_buffers and Allocate nodes.
struct BufferRewrite {
  ir::Buffer oldBuffer, newBuffer;
  std::function<std::vector<ir::Expr>(const std::vector<ir::Expr>&)> mapIndices;
  std::function<std::vector<ir::Range>(const std::vector<ir::Range>&)> mapRegion;
};
ir::Stmt rewriteBuffer(const ir::Stmt& s, const BufferRewrite& rewrite);

/// Value of an integer expression over variables with known values (IntImm, Var, + - *,
/// floordiv, floormod, truncating div, min, max, Select, comparisons, Cast); nullopt if
/// something else or a division by zero is met.
std::optional<std::int64_t> evalInt(const ir::Expr& e,
                                    const std::vector<std::pair<const ir::ExprNode*, std::int64_t>>& values);

} // namespace loopscape::schedule::detail
