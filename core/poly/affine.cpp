#include "core/poly/affine.h"

#include <isl/aff.h>
#include <isl/local_space.h>
#include <isl/set.h>
#include <isl/space.h>

#include <algorithm>

namespace loopscape::poly::detail {

AffineSpace::AffineSpace(const std::vector<std::string>& params,
                         std::vector<std::pair<ir::Expr, std::string>> dims, const std::string& tuple)
    : m_params(params) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    m_dims[dims[i].first.get()] = static_cast<int>(i);
    m_dimVars.push_back(dims[i].first);
    names.push_back(dims[i].second);
  }
  m_space = setSpace(params, tuple, names);
}

isl::set AffineSpace::universe() const { return isl::set::universe(m_space); }

isl::pw_aff AffineSpace::constant(std::int64_t v) const {
  isl_local_space* ls = isl_local_space_from_space(m_space.copy());
  isl_aff* aff = isl_aff_val_on_domain(ls, isl_val_int_from_si(m_space.ctx().get(), v));
  return isl::manage(isl_pw_aff_from_aff(check(aff, "isl_aff_val_on_domain")));
}

namespace {
isl::pw_aff varOnDomain(const isl::space& space, enum isl_dim_type type, int pos) {
  isl_local_space* ls = isl_local_space_from_space(space.copy());
  isl_aff* aff = isl_aff_var_on_domain(ls, type, static_cast<unsigned>(pos));
  return isl::manage(isl_pw_aff_from_aff(check(aff, "isl_aff_var_on_domain")));
}
} // namespace

std::expected<isl::pw_aff, ir::Expr> AffineSpace::toPwAff(const ir::Expr& e) const {
  using R = std::expected<isl::pw_aff, ir::Expr>;
  if (!e.dtype().isInt() && !e.dtype().isUInt()) return std::unexpected(e);
  if (auto imm = e.as<ir::IntImm>()) return constant(imm->value);
  if (auto v = e.as<ir::Var>()) {
    if (auto it = m_dims.find(e.get()); it != m_dims.end()) return varOnDomain(m_space, isl_dim_set, it->second);
    auto p = std::find(m_params.begin(), m_params.end(), v->name);
    if (p != m_params.end()) return varOnDomain(m_space, isl_dim_param, static_cast<int>(p - m_params.begin()));
    return std::unexpected(e);
  }
  if (auto c = e.as<ir::Cast>()) {
    if (c->value.dtype().isInt() || c->value.dtype().isUInt()) return toPwAff(c->value);
    return std::unexpected(e);
  }
  auto binary = [&](const ir::Expr& a, const ir::Expr& b) -> std::expected<std::pair<isl::pw_aff, isl::pw_aff>, ir::Expr> {
    auto x = toPwAff(a);
    if (!x) return std::unexpected(x.error());
    auto y = toPwAff(b);
    if (!y) return std::unexpected(y.error());
    return std::pair{*x, *y};
  };
#define LS_BIN(Kind, body)                                                                                        \
  if (auto op = e.as<ir::Kind>()) {                                                                              \
    auto xy = binary(op->a, op->b);                                                                              \
    if (!xy) return std::unexpected(xy.error());                                                                 \
    auto& [x, y] = *xy;                                                                                          \
    body                                                                                                         \
  }
  LS_BIN(Add, return R(x.add(y));)
  LS_BIN(Sub, return R(x.sub(y));)
  LS_BIN(Min, return R(x.min(y));)
  LS_BIN(Max, return R(x.max(y));)
  LS_BIN(Mul, {
    if (isl_pw_aff_is_cst(x.get()) != isl_bool_true && isl_pw_aff_is_cst(y.get()) != isl_bool_true) return std::unexpected(e);
    return R(x.mul(y));
  })
  LS_BIN(FloorDiv, {
    auto d = ir::asConstInt(op->b);
    if (!d || *d <= 0) return std::unexpected(e);
    return R(x.div(y).floor());
  })
  LS_BIN(FloorMod, {
    auto d = ir::asConstInt(op->b);
    if (!d || *d <= 0) return std::unexpected(e);
    return R(x.mod(isl::val(m_space.ctx(), *d)));
  })
#undef LS_BIN
  if (auto s = e.as<ir::Select>()) {
    auto c = toSet(s->condition);
    if (!c) return std::unexpected(c.error());
    auto t = toPwAff(s->trueValue);
    if (!t) return std::unexpected(t.error());
    auto f = toPwAff(s->falseValue);
    if (!f) return std::unexpected(f.error());
    isl::set cond = *c;
    return R(t->intersect_domain(cond).union_add(f->intersect_domain(universe().subtract(cond))));
  }
  return std::unexpected(e);
}

std::expected<isl::set, ir::Expr> AffineSpace::toSet(const ir::Expr& cond) const {
  using R = std::expected<isl::set, ir::Expr>;
  if (auto imm = cond.as<ir::IntImm>()) return imm->value ? universe() : isl::set::empty(m_space);
  if (auto n = cond.as<ir::Not>()) {
    auto a = toSet(n->a);
    if (!a) return a;
    return R(universe().subtract(*a));
  }
#define LS_LOGIC(Kind, fn)                                                                                        \
  if (auto op = cond.as<ir::Kind>()) {                                                                           \
    auto a = toSet(op->a);                                                                                       \
    if (!a) return a;                                                                                            \
    auto b = toSet(op->b);                                                                                       \
    if (!b) return b;                                                                                            \
    return R(a->fn(*b));                                                                                         \
  }
  LS_LOGIC(And, intersect)
  LS_LOGIC(Or, unite)
#undef LS_LOGIC
#define LS_CMP(Kind, fn)                                                                                          \
  if (auto op = cond.as<ir::Kind>()) {                                                                           \
    auto a = toPwAff(op->a);                                                                                     \
    if (!a) return std::unexpected(a.error());                                                                   \
    auto b = toPwAff(op->b);                                                                                     \
    if (!b) return std::unexpected(b.error());                                                                   \
    return R(a->fn(*b));                                                                                         \
  }
  LS_CMP(EQ, eq_set)
  LS_CMP(NE, ne_set)
  LS_CMP(LT, lt_set)
  LS_CMP(LE, le_set)
  LS_CMP(GT, gt_set)
  LS_CMP(GE, ge_set)
#undef LS_CMP
  return std::unexpected(cond);
}

std::expected<isl::set, ir::Expr> AffineSpace::rangeSet(const isl::pw_aff& x, const ir::Expr& lo,
                                                       const ir::Expr& extent) const {
  auto l = toPwAff(lo);
  if (!l) return std::unexpected(l.error());
  auto n = toPwAff(extent);
  if (!n) return std::unexpected(n.error());
  return x.ge_set(*l).intersect(x.lt_set(l->add(*n)));
}

} // namespace loopscape::poly::detail
