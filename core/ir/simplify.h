// Arithmetic simplification and bound analysis over integer index expressions.
//
// The Analyzer knows the ranges of variables (loop variables, block iterators, symbolic
// sizes known to be >= 1) and uses them to:
//   * fold constants of every type (integers wrap to their width, floats round to theirs);
//   * put affine integer expressions in a canonical form: a sum of coefficient * term,
//     terms in order of first appearance, constant last (`i*32 + j + 1`), so two
//     equal affine expressions print the same;
//   * rewrite floordiv/floormod when the ranges decide them: `(i*8 + j) // 8 -> i` and
//     `(i*8 + j) % 8 -> j` for j in [0, 8), `x // 1 -> x`, `x % 1 -> 0`, nested
//     `(x // a) // b -> x // (a*b)`, `x % c -> x` for x in [0, c);
//   * simplify comparisons and min/max whose outcome the bounds decide.
// Simplification never changes the value of an expression for any assignment of the
// variables within their ranges; non-integer expressions are only constant-folded.
// Like TVM's arith::Analyzer, the bound-driven rules (floordiv/floormod decomposition,
// comparisons, min/max) assume that signed index arithmetic does not overflow; folding and
// the affine form are exact in wrapping arithmetic. Unsigned types get folding and the
// affine form only; division by zero is never folded.
#pragma once

#include "core/ir/stmt.h"

#include <cstdint>
#include <optional>
#include <unordered_map>

namespace loopscape::ir {

/// A closed integer interval; nullopt ends mean unbounded.
struct IntBound {
  std::optional<std::int64_t> min, max;
  bool isSingle() const { return min && max && *min == *max; }
};

class Analyzer {
public:
  /// `var` takes values in [range.min, range.min + range.extent); the ends may be
  /// symbolic, their own bounds are used.
  void bind(const Expr& var, const Range& range);
  /// `var` takes values in the closed interval [min, max].
  void bindBound(const Expr& var, IntBound bound);
  /// Forgets what was bound for `var`.
  void unbind(const Expr& var);
  /// What is bound for `var`, if anything.
  std::optional<IntBound> varBound(const Expr& var) const;

  /// The simplified form of `e`. Shared subexpressions are simplified once (the work
  /// grows with the number of distinct nodes, not with the size of the expression
  /// expanded into a tree); past 16 * resourceLimits().maxExpressionNodes steps of work
  /// the simplifier gives up and returns what it had (an unchanged expression is a
  /// correct answer).
  Expr simplify(const Expr& e) const;
  /// Steps of work (node visits and comparisons) of the last simplify() call.
  std::int64_t lastSimplifyWork() const { return m_lastWork; }
  /// Bounds of an integer expression under the current bindings (of the expression and
  /// of its simplified form, intersected); unbounded ends for non-integer expressions.
  IntBound bound(const Expr& e) const;
  /// True only if `cond` holds for every value of the bound variables.
  bool canProve(const Expr& cond) const;

private:
  std::unordered_map<const ExprNode*, IntBound> m_bounds;
  std::unordered_map<const ExprNode*, Expr> m_keepAlive;
  mutable std::int64_t m_lastWork = 0;
};

/// Simplify with no knowledge of variable ranges.
Expr simplify(const Expr& e);
/// Simplify every expression of a statement; loop variables and block iterators are
/// bound to their ranges while their bodies are simplified.
Stmt simplify(const Stmt& s);

} // namespace loopscape::ir
