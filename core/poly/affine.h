// Conversion of IR integer expressions and conditions to isl (quasi-)affine objects over
// a set space whose dimensions are IR variables (loops, and local variables of a block
// body) and whose parameters are the symbolic sizes. Internal to core/poly.
#pragma once

#include "core/ir/expr.h"
#include "core/poly/isl_util.h"

#include <expected>
#include <string>
#include <unordered_map>
#include <vector>

namespace loopscape::poly::detail {

class AffineSpace {
public:
  /// `params`: parameter names; `dims`: the Var nodes of the dimensions with their isl names.
  AffineSpace(const std::vector<std::string>& params, std::vector<std::pair<ir::Expr, std::string>> dims,
              const std::string& tuple);

  const isl::space& space() const { return m_space; }
  int dimCount() const { return static_cast<int>(m_dims.size()); }

  /// The expression as a piecewise quasi-affine function of the dimensions and params;
  /// on failure the smallest sub-expression that is not quasi-affine.
  std::expected<isl::pw_aff, ir::Expr> toPwAff(const ir::Expr& e) const;
  /// The condition as a set of the space; on failure the offending sub-expression.
  std::expected<isl::set, ir::Expr> toSet(const ir::Expr& cond) const;
  isl::set universe() const;
  isl::pw_aff constant(std::int64_t v) const;
  /// { lo <= x < lo + extent } for the dimension x of var, lo/extent converted.
  std::expected<isl::set, ir::Expr> rangeSet(const isl::pw_aff& x, const ir::Expr& lo, const ir::Expr& extent) const;

private:
  isl::space m_space;
  std::vector<std::string> m_params;
  std::unordered_map<const ir::ExprNode*, int> m_dims;
  std::vector<ir::Expr> m_dimVars;
};

} // namespace loopscape::poly::detail
