// Internal helpers shared by the simplifier's translation units (simplify*.cpp): exact
// integer arithmetic at a type's width, identity-based expression equality, and the
// canonical affine form (a sum of coefficient * term plus a constant) with its
// print-friendly reconstruction. Not part of the public IR API.
#pragma once

#include "core/ir/simplify.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace loopscape::ir::detail {

/// The work budget of the simplify() running on this thread: the recursive helpers call
/// spend() once per step; past the limit it throws WorkLimitReached, which
/// Analyzer::simplify catches. Outside simplify() (no budget active) spend() does nothing.
struct WorkLimitReached {};
class WorkBudget {
public:
  explicit WorkBudget(std::int64_t limit);
  ~WorkBudget();
  WorkBudget(const WorkBudget&) = delete;
  WorkBudget& operator=(const WorkBudget&) = delete;
  std::int64_t used() const { return m_used; }
  static void spend();

private:
  std::int64_t m_used = 0, m_limit;
  WorkBudget* m_outer;
};

/// Equality with identity for Vars and Buffers (no renaming): `x // 4` and `y // 4` differ.
/// Floats compare bit-exactly. Used to combine like terms.
bool exprDeepEqual(const Expr& a, const Expr& b);

/// `v` wrapped to the signed interpretation of `t`'s width (uint8 255 -> -1). Coefficients
/// of the affine form live in this representation; IntImm::make wraps them back.
std::int64_t wrapSigned(DataType t, std::int64_t v);
std::int64_t addWrap(DataType t, std::int64_t a, std::int64_t b);
std::int64_t subWrap(DataType t, std::int64_t a, std::int64_t b);
std::int64_t mulWrap(DataType t, std::int64_t a, std::int64_t b);

/// Floor division and modulus of mathematical integers (b != 0; b == -1 with INT64_MIN
/// wraps like the hardware would, to INT64_MIN and 0).
std::int64_t floorDivInt(std::int64_t a, std::int64_t b);
std::int64_t floorModInt(std::int64_t a, std::int64_t b);

/// Overflow-checked int64 arithmetic; nullopt when the mathematical result does not fit.
std::optional<std::int64_t> checkedAdd(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> checkedSub(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> checkedMul(std::int64_t a, std::int64_t b);

/// Signed integer types get the bound-driven rules (floordiv/floormod decomposition,
/// comparisons, min/max); unsigned types get folding and the affine form only.
inline bool isSignedIndexType(DataType t) { return t.isInt() && t.isScalar(); }

struct LinearTerm {
  Expr term;         ///< a Var or a non-affine subexpression, already simplified
  std::int64_t coef; ///< never zero after normalize()
};

/// sum(coef * term) + constant over one scalar integer type; arithmetic wraps at its width.
struct LinearSum {
  DataType dtype;
  std::vector<LinearTerm> terms; ///< in order of first appearance
  std::int64_t constant = 0;

  explicit LinearSum(DataType t) : dtype(t) {}
  void addTerm(const Expr& term, std::int64_t coef);
  void addConst(std::int64_t c) { constant = addWrap(dtype, constant, c); }
  /// this += k * other (a term of `other` that cancels keeps its place, with coefficient 0)
  void addScaled(const LinearSum& other, std::int64_t k);
  bool isConst() const { return terms.empty(); }
  /// Drops zero terms and rewrites `(x//c)*(k*c) + (x%c)*k` into `k*x` (exact identity).
  void normalize();
};

/// Reads an already simplified scalar integer expression as a LinearSum: Add, Sub, Mul by
/// a constant and IntImm are expanded, anything else becomes a term. `k` scales the result.
void collectLinear(const Expr& e, std::int64_t k, LinearSum& out);
LinearSum linearOf(const Expr& e);

/// Print-friendly reconstruction: positive terms first in their order (`i*32 + j`), then
/// negative ones as subtraction (`i - j*2`), the constant last (`n - 1`); a sum whose terms
/// are all negative starts with a positive constant when there is one (`10 - i`).
Expr buildLinear(const LinearSum& sum);

/// Constant folding of a node whose operands are all constants; nullopt when it cannot
/// or must not be folded (division by zero, float -> int out of range, non-constant).
std::optional<Expr> foldConstant(const Expr& e);

/// Interval bound of an integer expression under the analyzer's variable bounds, without
/// simplifying first (the simplifier calls it on simplified subexpressions).
IntBound boundOf(const Analyzer& analyzer, const Expr& e);

} // namespace loopscape::ir::detail
