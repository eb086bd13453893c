// The expanded size of the expressions a .te program builds. Expressions are shared
// (`x = A[0]` then `x = x + x` makes a DAG of two nodes per statement), but lowering,
// printing, the simplifier and the interpreter walk them as trees, so what an expression
// costs downstream is its size once expanded into a tree, and its height is how deep
// those walks recurse. ExprSizes measures both, memoised on node identity so that each
// shared node is measured once, and without recursion.
#pragma once

#include "core/ir/expr.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace loopscape::frontend::detail {

class ExprSizes {
public:
  struct Size {
    std::int64_t nodes = 0; ///< nodes of the expanded tree (saturates at INT64_MAX / 4)
    std::int64_t height = 0;
  };
  /// The size of `e` (zero for an undefined expression).
  Size of(const ir::Expr& e);

private:
  std::unordered_map<const ir::ExprNode*, Size> m_sizes;
  std::vector<ir::Expr> m_keep; ///< keeps the keys of m_sizes alive (no address reuse)
};

} // namespace loopscape::frontend::detail
