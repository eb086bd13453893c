// Interval bounds of integer expressions and the Analyzer's variable bindings.
//
// boundOf() is a structural interval analysis: constants, bound variables, + - * by
// constants and by intervals, truncating and floor division and floor modulus by
// intervals of one sign, min/max, select and casts. Every end it returns is sound: the
// expression takes no value outside [min, max] for any assignment of the bound variables.
// An end that could overflow int64 or the expression's own type is dropped (unbounded).
#include "core/ir/simplify_detail.h"

#include <algorithm>

namespace loopscape::ir::detail {

namespace {

using Opt = std::optional<std::int64_t>;

IntBound unknown() { return {}; }
IntBound single(std::int64_t v) { return {v, v}; }

Opt liftAdd(Opt a, Opt b) { return a && b ? checkedAdd(*a, *b) : std::nullopt; }
Opt liftSub(Opt a, Opt b) { return a && b ? checkedSub(*a, *b) : std::nullopt; }

/// The natural value range of an integer type when it fits in int64 (bool: [0, 1]).
IntBound typeRange(DataType t) {
  if (t.isBool()) return {0, 1};
  if (!t.isInteger() || t.bits() >= 64) return unknown();
  if (t.isUInt()) return {0, (std::int64_t{1} << t.bits()) - 1};
  std::int64_t half = std::int64_t{1} << (t.bits() - 1);
  return {-half, half - 1};
}

/// Drops a bound that leaves the type's range (the value would have wrapped); for
/// unsigned and narrow types, fills unknown ends from the type's range.
IntBound finish(DataType t, IntBound b) {
  if (t.isUInt() && t.bits() >= 64) return unknown();
  IntBound range = typeRange(t);
  if ((b.min && range.min && *b.min < *range.min) || (b.max && range.max && *b.max > *range.max)) return range;
  if (t.isUInt() || t.isBool()) {
    if (!b.min) b.min = range.min;
    if (!b.max) b.max = range.max;
  }
  return b;
}

IntBound scale(IntBound a, std::int64_t k) {
  if (k == 0) return single(0);
  Opt lo = a.min ? checkedMul(*a.min, k) : std::nullopt;
  Opt hi = a.max ? checkedMul(*a.max, k) : std::nullopt;
  if (a.min && !lo) return unknown();
  if (a.max && !hi) return unknown();
  return k > 0 ? IntBound{lo, hi} : IntBound{hi, lo};
}

IntBound mulBound(IntBound a, IntBound b) {
  if (b.isSingle()) return scale(a, *b.min);
  if (a.isSingle()) return scale(b, *a.min);
  if (a.min && a.max && b.min && b.max) {
    std::int64_t corners[4];
    const std::int64_t xs[2] = {*a.min, *a.max}, ys[2] = {*b.min, *b.max};
    for (int i = 0; i < 4; ++i) {
      auto p = checkedMul(xs[i / 2], ys[i % 2]);
      if (!p) return unknown();
      corners[i] = *p;
    }
    return {*std::min_element(corners, corners + 4), *std::max_element(corners, corners + 4)};
  }
  if (a.min && b.min && *a.min >= 0 && *b.min >= 0) {
    auto lo = checkedMul(*a.min, *b.min);
    if (!lo) return unknown();
    return {lo, std::nullopt};
  }
  return unknown();
}

/// floor(a / b) for b in an interval of positive values.
IntBound floorDivPositive(IntBound a, IntBound b) {
  IntBound r;
  if (a.min) {
    if (*a.min >= 0)
      r.min = b.max ? floorDivInt(*a.min, *b.max) : 0;
    else
      r.min = floorDivInt(*a.min, *b.min);
  }
  if (a.max) {
    if (*a.max >= 0)
      r.max = floorDivInt(*a.max, *b.min);
    else
      r.max = b.max ? floorDivInt(*a.max, *b.max) : -1;
  }
  return r;
}

IntBound negate(IntBound a) { return scale(a, -1); }

IntBound floorDivBound(IntBound a, IntBound b) {
  if (b.min && *b.min >= 1) return floorDivPositive(a, b);
  // floor(a / b) == floor(-a / -b)
  if (b.max && *b.max <= -1) return floorDivPositive(negate(a), negate(b));
  return unknown();
}

IntBound truncDivBound(IntBound a, IntBound b) {
  if (b.isSingle() && *b.min != 0) {
    std::int64_t k = *b.min;
    if (k == -1) return negate(a);
    Opt lo = a.min ? Opt(*a.min / k) : std::nullopt, hi = a.max ? Opt(*a.max / k) : std::nullopt;
    return k > 0 ? IntBound{lo, hi} : IntBound{hi, lo}; // monotone in a for a fixed divisor
  }
  if (a.min && *a.min >= 0 && b.min && *b.min >= 1) return floorDivPositive(a, b);
  return unknown();
}

IntBound floorModBound(IntBound a, IntBound b) {
  if (b.min && *b.min >= 1) {
    if (b.isSingle() && a.min && a.max) {
      std::int64_t c = *b.min, q = floorDivInt(*a.min, c);
      if (q == floorDivInt(*a.max, c)) return {*a.min - q * c, *a.max - q * c};
    }
    if (a.min && a.max && *a.min >= 0 && *a.max < *b.min) return a;
    return {0, b.max ? Opt(*b.max - 1) : std::nullopt};
  }
  if (b.max && *b.max <= -1) return {b.min ? Opt(*b.min + 1) : std::nullopt, 0};
  return unknown();
}

IntBound minBound(IntBound a, IntBound b) {
  IntBound r;
  if (a.min && b.min) r.min = std::min(*a.min, *b.min);
  if (a.max || b.max) r.max = std::min(a.max.value_or(INT64_MAX), b.max.value_or(INT64_MAX));
  return r;
}

IntBound maxBound(IntBound a, IntBound b) {
  IntBound r;
  if (a.min || b.min) r.min = std::max(a.min.value_or(INT64_MIN), b.min.value_or(INT64_MIN));
  if (a.max && b.max) r.max = std::max(*a.max, *b.max);
  return r;
}

IntBound unionBound(IntBound a, IntBound b) {
  IntBound r;
  if (a.min && b.min) r.min = std::min(*a.min, *b.min);
  if (a.max && b.max) r.max = std::max(*a.max, *b.max);
  return r;
}

IntBound intersect(IntBound a, IntBound b) {
  IntBound r;
  if (a.min || b.min) r.min = std::max(a.min.value_or(INT64_MIN), b.min.value_or(INT64_MIN));
  if (a.max || b.max) r.max = std::min(a.max.value_or(INT64_MAX), b.max.value_or(INT64_MAX));
  return r;
}

IntBound castBound(const Analyzer& an, const Cast& cast) {
  DataType to = cast.dtype, from = cast.value.dtype();
  if (to.isBool()) return {0, 1};
  if (!from.isInteger() && !from.isBool()) return typeRange(to);
  IntBound b = boundOf(an, cast.value);
  IntBound range = typeRange(to);
  if (to.isInteger() && to.bits() >= 64 && !(from.isUInt() && from.bits() >= 64)) return b;
  bool fits = b.min && b.max && (!range.min || *b.min >= *range.min) && (!range.max || *b.max <= *range.max);
  return fits ? b : range;
}

IntBound computeBound(const Analyzer& an, const Expr& e) {
  WorkBudget::spend();
  DataType t = e.dtype();
  if (t.isBool()) {
    if (auto v = asConstInt(e)) return single(*v);
    return {0, 1};
  }
  if (!t.isInteger() || !t.isScalar()) return unknown();
  switch (e.kind()) {
  case ExprKind::IntImm: return single(e.as<IntImm>()->value);
  case ExprKind::Var: return an.varBound(e).value_or(IntBound{});
  case ExprKind::Add: {
    auto* n = e.as<Add>();
    IntBound a = boundOf(an, n->a), b = boundOf(an, n->b);
    return {liftAdd(a.min, b.min), liftAdd(a.max, b.max)};
  }
  case ExprKind::Sub: {
    auto* n = e.as<Sub>();
    IntBound a = boundOf(an, n->a), b = boundOf(an, n->b);
    return {liftSub(a.min, b.max), liftSub(a.max, b.min)};
  }
  case ExprKind::Mul: return mulBound(boundOf(an, e.as<Mul>()->a), boundOf(an, e.as<Mul>()->b));
  case ExprKind::Div: return truncDivBound(boundOf(an, e.as<Div>()->a), boundOf(an, e.as<Div>()->b));
  case ExprKind::FloorDiv: return floorDivBound(boundOf(an, e.as<FloorDiv>()->a), boundOf(an, e.as<FloorDiv>()->b));
  case ExprKind::FloorMod: return floorModBound(boundOf(an, e.as<FloorMod>()->a), boundOf(an, e.as<FloorMod>()->b));
  case ExprKind::Min: return minBound(boundOf(an, e.as<Min>()->a), boundOf(an, e.as<Min>()->b));
  case ExprKind::Max: return maxBound(boundOf(an, e.as<Max>()->a), boundOf(an, e.as<Max>()->b));
  case ExprKind::Select: {
    auto* s = e.as<Select>();
    if (auto c = asConstInt(s->condition)) return boundOf(an, *c ? s->trueValue : s->falseValue);
    return unionBound(boundOf(an, s->trueValue), boundOf(an, s->falseValue));
  }
  case ExprKind::Cast: return castBound(an, *e.as<Cast>());
  default: return unknown();
  }
}

} // namespace

IntBound boundOf(const Analyzer& analyzer, const Expr& e) { return finish(e.dtype(), computeBound(analyzer, e)); }

} // namespace loopscape::ir::detail

namespace loopscape::ir {

void Analyzer::bind(const Expr& var, const Range& range) {
  LS_ASSERT(var.is<Var>(), "Analyzer::bind needs a Var");
  IntBound lo = bound(range.min);
  Expr last = Sub::make(Add::make(range.min, range.extent), IntImm::make(range.min.dtype(), 1));
  IntBound hi = bound(last);
  bindBound(var, {lo.min, hi.max});
}

void Analyzer::bindBound(const Expr& var, IntBound bound) {
  LS_ASSERT(var.is<Var>(), "Analyzer::bindBound needs a Var");
  m_bounds[var.get()] = bound;
  m_keepAlive[var.get()] = var;
}

void Analyzer::unbind(const Expr& var) {
  m_bounds.erase(var.get());
  m_keepAlive.erase(var.get());
}

std::optional<IntBound> Analyzer::varBound(const Expr& var) const {
  auto it = m_bounds.find(var.get());
  if (it == m_bounds.end()) return std::nullopt;
  return it->second;
}

IntBound Analyzer::bound(const Expr& e) const {
  if (!e.dtype().isInteger() && !e.dtype().isBool()) return {};
  return detail::intersect(detail::boundOf(*this, e), detail::boundOf(*this, simplify(e)));
}

bool Analyzer::canProve(const Expr& cond) const {
  LS_ASSERT(cond.dtype().isBool(), "canProve needs a bool condition");
  return isConstInt(simplify(cond), 1);
}

} // namespace loopscape::ir
