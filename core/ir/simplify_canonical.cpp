// The canonical affine form of the simplifier: exact wrapped integer arithmetic,
// identity-based equality of terms, collection of a simplified expression into
// sum(coef * term) + constant, normalisation and the print-friendly reconstruction.
#include "core/ir/op.h"
#include "core/ir/simplify_detail.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace loopscape::ir::detail {

std::int64_t wrapSigned(DataType t, std::int64_t v) {
  if (t.bits() >= 64) return v;
  return wrapInt(DataType(DataType::Code::Int, t.bits()), v);
}

std::int64_t addWrap(DataType t, std::int64_t a, std::int64_t b) {
  return wrapSigned(t, static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b)));
}
std::int64_t subWrap(DataType t, std::int64_t a, std::int64_t b) {
  return wrapSigned(t, static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)));
}
std::int64_t mulWrap(DataType t, std::int64_t a, std::int64_t b) {
  return wrapSigned(t, static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b)));
}

std::int64_t floorDivInt(std::int64_t a, std::int64_t b) {
  LS_ASSERT(b != 0, "floorDivInt by zero");
  if (b == -1) return static_cast<std::int64_t>(std::uint64_t{0} - static_cast<std::uint64_t>(a));
  std::int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

std::int64_t floorModInt(std::int64_t a, std::int64_t b) {
  LS_ASSERT(b != 0, "floorModInt by zero");
  if (b == -1) return 0;
  std::int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

std::optional<std::int64_t> checkedAdd(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<std::int64_t> checkedSub(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<std::int64_t> checkedMul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

namespace {
bool allDeepEqual(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!exprDeepEqual(a[i], b[i])) return false;
  return true;
}
} // namespace

bool exprDeepEqual(const Expr& a, const Expr& b) {
  if (a.sameAs(b)) return true;
  WorkBudget::spend();
  if (!a.defined() || !b.defined()) return false;
  if (a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  switch (a.kind()) {
  case ExprKind::IntImm: return a.as<IntImm>()->value == b.as<IntImm>()->value;
  case ExprKind::FloatImm: {
    double x = a.as<FloatImm>()->value, y = b.as<FloatImm>()->value;
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  case ExprKind::StringImm: return a.as<StringImm>()->value == b.as<StringImm>()->value;
  case ExprKind::Var: return false; // distinct nodes are distinct variables
#define LS_X(name)                                                                                                     \
  case ExprKind::name: {                                                                                               \
    auto *x = a.as<name>(), *y = b.as<name>();                                                                         \
    return exprDeepEqual(x->a, y->a) && exprDeepEqual(x->b, y->b);                                                     \
  }
    LS_BINARY_KINDS(LS_X)
#undef LS_X
  case ExprKind::Not: return exprDeepEqual(a.as<Not>()->a, b.as<Not>()->a);
  case ExprKind::Select: {
    auto *x = a.as<Select>(), *y = b.as<Select>();
    return x->lazy == y->lazy && exprDeepEqual(x->condition, y->condition) &&
           exprDeepEqual(x->trueValue, y->trueValue) && exprDeepEqual(x->falseValue, y->falseValue);
  }
  case ExprKind::Cast: return exprDeepEqual(a.as<Cast>()->value, b.as<Cast>()->value);
  case ExprKind::Call: {
    auto *x = a.as<Call>(), *y = b.as<Call>();
    return x->op == y->op && allDeepEqual(x->args, y->args);
  }
  case ExprKind::BufferLoad: {
    auto *x = a.as<BufferLoad>(), *y = b.as<BufferLoad>();
    return x->buffer.sameAs(y->buffer) && allDeepEqual(x->indices, y->indices);
  }
  case ExprKind::Ramp: {
    auto *x = a.as<Ramp>(), *y = b.as<Ramp>();
    return x->lanes == y->lanes && exprDeepEqual(x->base, y->base) && exprDeepEqual(x->stride, y->stride);
  }
  case ExprKind::Broadcast: {
    auto *x = a.as<Broadcast>(), *y = b.as<Broadcast>();
    return x->lanes == y->lanes && exprDeepEqual(x->value, y->value);
  }
  }
  LS_UNREACHABLE("bad ExprKind");
}

namespace {
/// Like terms: deeply equal, or products equal up to the order of their two factors.
bool sameTerm(const Expr& a, const Expr& b) {
  if (exprDeepEqual(a, b)) return true;
  const auto *x = a.as<Mul>(), *y = b.as<Mul>();
  return x && y && exprDeepEqual(x->a, y->b) && exprDeepEqual(x->b, y->a);
}
} // namespace

void LinearSum::addTerm(const Expr& term, std::int64_t coef) {
  coef = wrapSigned(dtype, coef);
  if (coef == 0) return;
  for (auto& t : terms) {
    WorkBudget::spend();
    if (sameTerm(t.term, term)) {
      t.coef = addWrap(dtype, t.coef, coef);
      return;
    }
  }
  terms.push_back({term, coef});
}

void LinearSum::addScaled(const LinearSum& other, std::int64_t k) {
  if (wrapSigned(dtype, k) == 0) return;
  for (const auto& t : other.terms) {
    const std::int64_t coef = mulWrap(dtype, t.coef, k);
    if (coef != 0) {
      addTerm(t.term, coef);
      continue;
    }
    // A term that cancelled keeps its place, as adding its parts one by one would.
    if (std::none_of(terms.begin(), terms.end(), [&](const LinearTerm& x) { return sameTerm(x.term, t.term); }))
      terms.push_back({t.term, 0});
  }
  addConst(mulWrap(dtype, other.constant, k));
}

namespace {
/// The (x, c) of `x // c` or `x % c` with a positive constant c.
template <typename Node> const Node* divByPositiveConst(const Expr& e) {
  const auto* n = e.as<Node>();
  if (!n) return nullptr;
  auto c = asConstInt(n->b);
  return c && *c > 0 ? n : nullptr;
}

/// Finds a pair (x // c) * (k*c), (x % c) * k; returns their indices.
std::optional<std::pair<std::size_t, std::size_t>> findDivModPair(const LinearSum& s) {
  for (std::size_t m = 0; m < s.terms.size(); ++m) {
    const auto* mod = divByPositiveConst<FloorMod>(s.terms[m].term);
    if (!mod) continue;
    std::int64_t c = *asConstInt(mod->b);
    std::int64_t want = mulWrap(s.dtype, s.terms[m].coef, c);
    for (std::size_t d = 0; d < s.terms.size(); ++d) {
      const auto* div = divByPositiveConst<FloorDiv>(s.terms[d].term);
      if (!div || *asConstInt(div->b) != c || s.terms[d].coef != want) continue;
      if (exprDeepEqual(div->a, mod->a)) return std::pair{d, m};
    }
  }
  return std::nullopt;
}
} // namespace

void LinearSum::normalize() {
  std::erase_if(terms, [](const LinearTerm& t) { return t.coef == 0; });
  // x == c * (x // c) + x % c for every integer x and c > 0, in wrapped arithmetic too.
  while (auto pair = findDivModPair(*this)) {
    auto [d, m] = *pair;
    std::int64_t k = terms[m].coef;
    LinearSum x = linearOf(terms[m].term.as<FloorMod>()->a);
    LinearSum out(dtype);
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (i == std::min(d, m)) out.addScaled(x, k);
      if (i == d || i == m) continue;
      out.addTerm(terms[i].term, terms[i].coef);
    }
    out.addConst(constant);
    *this = std::move(out);
    std::erase_if(terms, [](const LinearTerm& t) { return t.coef == 0; });
  }
}

void collectLinear(const Expr& e, std::int64_t k, LinearSum& out) {
  if (k == 0) return;
  WorkBudget::spend();
  if (auto c = asConstInt(e)) {
    out.addConst(mulWrap(out.dtype, wrapSigned(out.dtype, *c), k));
    return;
  }
  if (const auto* add = e.as<Add>()) {
    collectLinear(add->a, k, out);
    collectLinear(add->b, k, out);
    return;
  }
  if (const auto* sub = e.as<Sub>()) {
    collectLinear(sub->a, k, out);
    collectLinear(sub->b, subWrap(out.dtype, 0, k), out);
    return;
  }
  if (const auto* mul = e.as<Mul>()) {
    if (auto c = asConstInt(mul->b))
      return collectLinear(mul->a, mulWrap(out.dtype, k, wrapSigned(out.dtype, *c)), out);
    if (auto c = asConstInt(mul->a))
      return collectLinear(mul->b, mulWrap(out.dtype, k, wrapSigned(out.dtype, *c)), out);
  }
  out.addTerm(e, k);
}

LinearSum linearOf(const Expr& e) {
  LinearSum s(e.dtype());
  collectLinear(e, 1, s);
  s.normalize();
  return s;
}

namespace {
Expr scaledTerm(const Expr& term, std::int64_t coef) {
  if (coef == 1) return term;
  return Mul::make(term, IntImm::make(term.dtype(), coef));
}
} // namespace

Expr buildLinear(const LinearSum& sum) {
  const DataType t = sum.dtype;
  Expr acc;
  auto addPositive = [&](const Expr& term) { acc = acc.defined() ? Add::make(acc, term) : term; };
  for (const auto& term : sum.terms)
    if (term.coef > 0) addPositive(scaledTerm(term.term, term.coef));
  bool constantUsed = false;
  if (!acc.defined() && sum.constant > 0 && !sum.terms.empty()) {
    acc = IntImm::make(t, sum.constant);
    constantUsed = true;
  }
  for (const auto& term : sum.terms) {
    if (term.coef > 0) continue;
    if (!acc.defined()) {
      acc = scaledTerm(term.term, term.coef); // all terms negative: `i*-1`
      continue;
    }
    acc = Sub::make(acc, scaledTerm(term.term, subWrap(t, 0, term.coef)));
  }
  if (!acc.defined()) return IntImm::make(t, sum.constant);
  if (constantUsed || sum.constant == 0) return acc;
  std::int64_t negated = subWrap(t, 0, sum.constant);
  if (sum.constant < 0 && negated > 0) return Sub::make(acc, IntImm::make(t, negated));
  return Add::make(acc, IntImm::make(t, sum.constant));
}

} // namespace loopscape::ir::detail
