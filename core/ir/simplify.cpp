// The expression simplifier: a bottom-up rewriter that folds constants, puts integer
// Add/Sub/Mul trees in the canonical affine form (simplify_canonical.cpp), and applies
// the bound-driven rules for floordiv/floormod, min/max, comparisons and the logical
// connectives. Every rewrite is an identity under the Analyzer's variable ranges.
#include "core/ir/mutator.h"
#include "core/ir/resource_limits.h"
#include "core/ir/simplify_detail.h"

#include <utility>

namespace loopscape::ir {

namespace {

using namespace detail;

template <typename Node> Expr rebuild(const Node& op, const Expr& self, Expr a, Expr b) {
  if (a.sameAs(op.a) && b.sameAs(op.b)) return self;
  return Node::make(std::move(a), std::move(b));
}

/// `result` unless it is deeply equal to `self`, so that unchanged trees stay shared.
Expr keepSelf(const Expr& self, Expr result) { return exprDeepEqual(self, result) ? self : result; }

bool isFloatOne(const Expr& e) {
  const auto* f = e.as<FloatImm>();
  return f && f->value == 1.0;
}

class Simplifier final : public ExprMutator {
public:
  explicit Simplifier(const Analyzer& analyzer) : m_an(analyzer) {}

  /// Memoised on node identity: the Analyzer's bindings do not change during a pass, so a
  /// shared subexpression simplifies to the same result wherever it occurs.
  Expr visitExpr(const Expr& e) override {
    if (auto it = m_memo.find(e.get()); it != m_memo.end()) return it->second.second;
    WorkBudget::spend();
    Expr result = ExprMutator::visitExpr(e);
    m_memo.emplace(e.get(), std::pair{e, result});
    return result;
  }

protected:
  Expr visitVar(const Var&, const Expr& self) override {
    auto b = m_an.varBound(self);
    if (b && b->isSingle() && self.dtype().isInteger()) return IntImm::make(self.dtype(), *b->min);
    return self;
  }

  Expr visitAdd(const Add& op, const Expr& self) override { return arith(op, self); }
  Expr visitSub(const Sub& op, const Expr& self) override { return arith(op, self); }
  Expr visitMul(const Mul& op, const Expr& self) override { return arith(op, self); }

  Expr visitDiv(const Div& op, const Expr& self) override {
    Expr a = mutate(op.a), b = mutate(op.b);
    Expr node = rebuild(op, self, a, b);
    if (auto f = foldConstant(node)) return *f;
    if (isConstInt(b, 1) || isFloatOne(b)) return a;
    auto c = asConstInt(b);
    if (c && *c > 0 && isSignedIndexType(a.dtype())) {
      // On non-negative numerators truncation and floor agree.
      IntBound na = boundOf(m_an, a);
      if (na.min && *na.min >= 0)
        if (auto decided = decideFloorDiv(a, *c)) return keepSelf(self, *decided);
    }
    return node;
  }

  Expr visitFloorDiv(const FloorDiv& op, const Expr& self) override { return divMod(op, self, true); }
  Expr visitFloorMod(const FloorMod& op, const Expr& self) override { return divMod(op, self, false); }

  Expr visitMin(const Min& op, const Expr& self) override { return minMax(op, self, true); }
  Expr visitMax(const Max& op, const Expr& self) override { return minMax(op, self, false); }

  Expr visitEQ(const EQ& op, const Expr& self) override { return compare(op, self); }
  Expr visitNE(const NE& op, const Expr& self) override { return compare(op, self); }
  Expr visitLT(const LT& op, const Expr& self) override { return compare(op, self); }
  Expr visitLE(const LE& op, const Expr& self) override { return compare(op, self); }
  Expr visitGT(const GT& op, const Expr& self) override { return compare(op, self); }
  Expr visitGE(const GE& op, const Expr& self) override { return compare(op, self); }

  Expr visitAnd(const And& op, const Expr& self) override { return logical(op, self, true); }
  Expr visitOr(const Or& op, const Expr& self) override { return logical(op, self, false); }

  Expr visitNot(const Not& op, const Expr& self) override {
    Expr a = mutate(op.a);
    if (auto v = asConstInt(a)) return boolImm(*v == 0);
    if (const auto* inner = a.as<Not>()) return inner->a;
    if (auto flipped = negateComparison(a)) return *flipped;
    return a.sameAs(op.a) ? self : Not::make(a);
  }

  Expr visitSelect(const Select& op, const Expr& self) override {
    Expr c = mutate(op.condition);
    if (auto v = asConstInt(c)) return mutate(*v ? op.trueValue : op.falseValue);
    Expr t = mutate(op.trueValue), f = mutate(op.falseValue);
    if (exprDeepEqual(t, f)) return t;
    if (self.dtype().isBool() && isConstInt(t, 1) && isConstInt(f, 0)) return c;
    if (self.dtype().isBool() && isConstInt(t, 0) && isConstInt(f, 1)) return visitExpr(Not::make(c));
    if (c.sameAs(op.condition) && t.sameAs(op.trueValue) && f.sameAs(op.falseValue)) return self;
    return Select::make(c, t, f, op.lazy);
  }

  Expr visitCast(const Cast& op, const Expr& self) override {
    Expr v = mutate(op.value);
    if (v.dtype() == self.dtype()) return v;
    Expr node = v.sameAs(op.value) ? self : Cast::make(self.dtype(), v);
    if (auto f = foldConstant(node)) return *f;
    return node;
  }

  Expr visitCall(const Call& op, const Expr& self) override {
    Expr node = ExprMutator::visitCall(op, self);
    if (auto f = foldConstant(node)) return *f;
    return node;
  }

private:
  // ---- Add / Sub / Mul ----------------------------------------------------------------

  template <typename Node> Expr arith(const Node& op, const Expr& self) {
    if (!isIntScalar(self.dtype())) {
      Expr a = mutate(op.a), b = mutate(op.b);
      Expr node = rebuild(op, self, a, b);
      if (auto f = foldConstant(node)) return *f;
      if constexpr (Node::kKind == ExprKind::Mul) {
        if (isFloatOne(b)) return a;
        if (isFloatOne(a)) return b;
      }
      return node;
    }
    LinearSum sum(self.dtype());
    collect(self, 1, sum);
    sum.normalize();
    return keepSelf(self, buildLinear(sum));
  }

  static bool isIntScalar(DataType t) { return t.isInteger() && t.isScalar(); }

  /// Adds k * simplify(e) to `out`, expanding Add/Sub/Mul-by-constant before simplifying
  /// the leaves, so that the whole affine tree is combined at once.
  void collect(const Expr& e, std::int64_t k, LinearSum& out) {
    WorkBudget::spend();
    if (e.as<Add>() || e.as<Sub>()) {
      out.addScaled(linearForm(e), k);
      return;
    }
    if (const auto* mul = e.as<Mul>()) {
      Expr a = mutate(mul->a), b = mutate(mul->b);
      if (auto c = asConstInt(b)) return collectLinear(a, mulWrap(out.dtype, k, wrapSigned(out.dtype, *c)), out);
      if (auto c = asConstInt(a)) return collectLinear(b, mulWrap(out.dtype, k, wrapSigned(out.dtype, *c)), out);
      out.addTerm(rebuild(*mul, e, a, b), k);
      return;
    }
    collectLinear(mutate(e), k, out);
  }

  /// collect(e, 1, ·) of an Add or Sub, memoised on node identity so that a shared sum
  /// is expanded once (terms in order of first appearance, zero coefficients kept in place).
  const LinearSum& linearForm(const Expr& e) {
    if (auto it = m_linear.find(e.get()); it != m_linear.end()) return it->second.second;
    LinearSum sum(e.dtype());
    if (const auto* add = e.as<Add>()) {
      collect(add->a, 1, sum);
      collect(add->b, 1, sum);
    } else {
      const auto* sub = e.as<Sub>();
      collect(sub->a, 1, sum);
      collect(sub->b, subWrap(sum.dtype, 0, 1), sum);
    }
    return m_linear.emplace(e.get(), std::pair{e, std::move(sum)}).first->second.second;
  }

  /// a - b in canonical form.
  Expr difference(const Expr& a, const Expr& b) {
    LinearSum d = linearOf(a);
    d.addScaled(linearOf(b), -1);
    d.normalize();
    return buildLinear(d);
  }

  // ---- FloorDiv / FloorMod ------------------------------------------------------------

  template <typename Node> Expr divMod(const Node& op, const Expr& self, bool isDiv) {
    Expr a = mutate(op.a), b = mutate(op.b);
    Expr node = rebuild(op, self, a, b);
    if (auto f = foldConstant(node)) return *f;
    auto c = asConstInt(b);
    if (!c || *c <= 0 || !isSignedIndexType(a.dtype())) return node;
    return keepSelf(node, isDiv ? floorDivConst(a, *c) : floorModConst(a, *c));
  }

  /// The (x // c) rewritten through its affine form when bounds decide the remainder:
  /// x = c*Q + R with bound(R) in [q*c, (q+1)*c) gives Q + q.
  std::optional<Expr> decideFloorDiv(const Expr& x, std::int64_t c) {
    auto [q, r] = splitByDivisor(x, c);
    IntBound rb = boundOf(m_an, buildLinear(r));
    if (!rb.min || !rb.max) return std::nullopt;
    std::int64_t lo = floorDivInt(*rb.min, c);
    if (lo != floorDivInt(*rb.max, c)) return std::nullopt;
    q.addConst(lo);
    return buildLinear(q);
  }

  /// x = c*Q + R: Q collects the terms whose coefficient c divides, R the rest (and the
  /// constant).
  std::pair<LinearSum, LinearSum> splitByDivisor(const Expr& x, std::int64_t c) {
    LinearSum s = linearOf(x), q(x.dtype()), r(x.dtype());
    for (const auto& t : s.terms) {
      if (t.coef % c == 0)
        q.addTerm(t.term, t.coef / c);
      else
        r.addTerm(t.term, t.coef);
    }
    r.constant = s.constant;
    return {std::move(q), std::move(r)};
  }

  /// x // c for a simplified x and c > 0, fully simplified.
  Expr floorDivConst(const Expr& x, std::int64_t c) {
    DataType t = x.dtype();
    if (c == 1) return x;
    if (auto v = asConstInt(x)) return IntImm::make(t, floorDivInt(*v, c));
    // (y // a) // c == y // (a*c) for positive a, c
    if (const auto* inner = x.as<FloorDiv>()) {
      auto a = asConstInt(inner->b);
      if (a && *a > 0)
        if (auto ac = checkedMul(*a, c); ac && wrapInt(t, *ac) == *ac) return floorDivConst(inner->a, *ac);
    }
    // (y % (k*c)) // c == (y // c) % k
    if (const auto* inner = x.as<FloorMod>()) {
      auto m = asConstInt(inner->b);
      if (m && *m > 0 && *m % c == 0) return floorModConst(floorDivConst(inner->a, c), *m / c);
    }
    if (auto decided = decideFloorDiv(x, c)) return *decided;
    // Residual: Q + R' // c, with whole multiples of c moved out of R's constant.
    auto [q, r] = splitByDivisor(x, c);
    std::int64_t moved = r.constant / c; // truncated: (x - 1) // 4 stays as it is
    r.constant -= moved * c;
    q.addConst(moved);
    if (q.isConst() && q.constant == 0) return FloorDiv::make(x, IntImm::make(t, c));
    q.addTerm(FloorDiv::make(buildLinear(r), IntImm::make(t, c)), 1);
    return buildLinear(q);
  }

  /// x % c for a simplified x and c > 0, fully simplified.
  Expr floorModConst(const Expr& x, std::int64_t c) {
    DataType t = x.dtype();
    if (c == 1) return IntImm::make(t, 0);
    if (auto v = asConstInt(x)) return IntImm::make(t, floorModInt(*v, c));
    // (y % (k*c)) % c == y % c
    if (const auto* inner = x.as<FloorMod>()) {
      auto m = asConstInt(inner->b);
      if (m && *m > 0 && *m % c == 0) return floorModConst(inner->a, c);
    }
    auto [q, r] = splitByDivisor(x, c);
    IntBound rb = boundOf(m_an, buildLinear(r));
    if (rb.min && rb.max) {
      std::int64_t lo = floorDivInt(*rb.min, c);
      if (lo == floorDivInt(*rb.max, c)) {
        r.addConst(subWrap(t, 0, mulWrap(t, lo, c)));
        return buildLinear(r);
      }
    }
    // Whole multiples of c in the constant do not change the remainder.
    r.constant -= (r.constant / c) * c;
    return FloorMod::make(buildLinear(r), IntImm::make(t, c));
  }

  // ---- Min / Max / comparisons ----------------------------------------------------------

  template <typename Node> Expr minMax(const Node& op, const Expr& self, bool isMin) {
    Expr a = mutate(op.a), b = mutate(op.b);
    Expr node = rebuild(op, self, a, b);
    if (auto f = foldConstant(node)) return *f;
    if (exprDeepEqual(a, b)) return a;
    if (!isSignedIndexType(a.dtype())) return node;
    IntBound d = boundOf(m_an, difference(a, b));
    bool aLessEq = d.max && *d.max <= 0, aGreaterEq = d.min && *d.min >= 0;
    if (aLessEq) return isMin ? a : b;
    if (aGreaterEq) return isMin ? b : a;
    return node;
  }

  template <typename Node> Expr compare(const Node& op, const Expr& self) {
    Expr a = mutate(op.a), b = mutate(op.b);
    Expr node = rebuild(op, self, a, b);
    if (auto f = foldConstant(node)) return *f;
    DataType t = a.dtype();
    bool integer = (t.isInteger() || t.isBool()) && t.isScalar();
    if (integer && exprDeepEqual(a, b)) return boolImm(sameValueResult(Node::kKind));
    if (!isSignedIndexType(t)) return node;
    IntBound d = boundOf(m_an, difference(a, b));
    if (auto decided = decideBySign(Node::kKind, d)) return boolImm(*decided);
    return node;
  }

  static bool sameValueResult(ExprKind kind) {
    return kind == ExprKind::EQ || kind == ExprKind::LE || kind == ExprKind::GE;
  }

  /// The truth of `a <kind> b` given the bound of a - b, when the bound decides it.
  static std::optional<bool> decideBySign(ExprKind kind, IntBound d) {
    bool neg = d.max && *d.max < 0, nonPos = d.max && *d.max <= 0;
    bool pos = d.min && *d.min > 0, nonNeg = d.min && *d.min >= 0;
    bool zero = d.isSingle() && *d.min == 0;
    switch (kind) {
    case ExprKind::LT: return neg ? std::optional(true) : nonNeg ? std::optional(false) : std::nullopt;
    case ExprKind::LE: return nonPos ? std::optional(true) : pos ? std::optional(false) : std::nullopt;
    case ExprKind::GT: return pos ? std::optional(true) : nonPos ? std::optional(false) : std::nullopt;
    case ExprKind::GE: return nonNeg ? std::optional(true) : neg ? std::optional(false) : std::nullopt;
    case ExprKind::EQ: return zero ? std::optional(true) : (neg || pos) ? std::optional(false) : std::nullopt;
    case ExprKind::NE: return zero ? std::optional(false) : (neg || pos) ? std::optional(true) : std::nullopt;
    default: return std::nullopt;
    }
  }

  /// !(a < b) == a >= b and so on, for integer operands (floats have NaN).
  static std::optional<Expr> negateComparison(const Expr& e) {
#define LS_FLIP(from, to)                                                                                              \
  if (const auto* n = e.as<from>()) {                                                                                  \
    if (!n->a.dtype().isInteger()) return std::nullopt;                                                                \
    return to::make(n->a, n->b);                                                                                       \
  }
    LS_FLIP(LT, GE)
    LS_FLIP(LE, GT) LS_FLIP(GT, LE) LS_FLIP(GE, LT) LS_FLIP(EQ, NE) LS_FLIP(NE, EQ)
#undef LS_FLIP
        return std::nullopt;
  }

  // ---- And / Or -----------------------------------------------------------------------

  template <typename Node> Expr logical(const Node& op, const Expr& self, bool isAnd) {
    Expr a = mutate(op.a);
    // Short-circuit on a constant left operand (no side effects, so order is free).
    if (auto v = asConstInt(a)) {
      if ((*v != 0) == isAnd) return mutate(op.b);
      return boolImm(!isAnd);
    }
    Expr b = mutate(op.b);
    if (auto v = asConstInt(b)) return ((*v != 0) == isAnd) ? a : boolImm(!isAnd);
    if (exprDeepEqual(a, b)) return a;
    return rebuild(op, self, a, b);
  }

  const Analyzer& m_an;
  /// Simplified forms by input node (the input kept alive so that its address stays unique).
  std::unordered_map<const ExprNode*, std::pair<Expr, Expr>> m_memo;
  /// Linear forms of Add/Sub nodes (see linearForm), keyed like m_memo.
  std::unordered_map<const ExprNode*, std::pair<Expr, LinearSum>> m_linear;
};

} // namespace

namespace detail {

namespace {
thread_local WorkBudget* t_budget = nullptr;
} // namespace

WorkBudget::WorkBudget(std::int64_t limit) : m_limit(limit), m_outer(t_budget) { t_budget = this; }
WorkBudget::~WorkBudget() { t_budget = m_outer; }

void WorkBudget::spend() {
  if (!t_budget) return;
  if (++t_budget->m_used > t_budget->m_limit) throw WorkLimitReached{};
}

} // namespace detail

Expr Analyzer::simplify(const Expr& e) const {
  if (!e.defined()) return e;
  // A second pass sees the combined terms of the first (rarely changes anything more).
  Expr current = e;
  WorkBudget budget(16 * resourceLimits().maxExpressionNodes);
  try {
    for (int pass = 0; pass < 3; ++pass) {
      Simplifier simplifier(*this);
      Expr next = simplifier.mutate(current);
      if (next.sameAs(current)) break;
      current = std::move(next);
    }
  } catch (const WorkLimitReached&) {
    // `current` is the input or the result of a finished pass: equal in value to `e`.
  }
  m_lastWork = budget.used();
  return current;
}

Expr simplify(const Expr& e) { return Analyzer{}.simplify(e); }

} // namespace loopscape::ir
