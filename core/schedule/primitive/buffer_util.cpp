#include "core/schedule/primitive/buffer_util.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/visitor.h"
#include "core/schedule/primitive/util.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::schedule::detail {

std::string uniqueBlockName(const IrTree& tree, const std::string& base, const std::vector<std::string>& taken) {
  auto free = [&](const std::string& n) {
    return !tree.findBlock(n) && std::find(taken.begin(), taken.end(), n) == taken.end();
  };
  if (free(base)) return base;
  for (int k = 1;; ++k)
    if (auto n = fmt::format("{}_{}", base, k); free(n)) return n;
}

std::vector<ir::Expr> conjuncts(const ir::Expr& predicate) {
  std::vector<ir::Expr> out;
  auto walk = [&](auto&& self, const ir::Expr& e) -> void {
    if (const auto* a = e.as<ir::And>()) {
      self(self, a->a);
      self(self, a->b);
    } else if (!ir::isConstInt(e, 1)) {
      out.push_back(e);
    }
  };
  if (predicate.defined()) walk(walk, predicate);
  return out;
}

ir::Expr conjunction(const std::vector<ir::Expr>& terms) {
  ir::Expr out;
  for (const auto& t : terms) out = out.defined() ? (out && t) : t;
  return out.defined() ? out : ir::boolImm(true);
}

namespace {

/// Splits `e` into signed additive terms.
void additiveTerms(const ir::Expr& e, bool negate, std::vector<std::pair<ir::Expr, bool>>& out) {
  if (const auto* a = e.as<ir::Add>()) {
    additiveTerms(a->a, negate, out);
    additiveTerms(a->b, negate, out);
  } else if (const auto* s = e.as<ir::Sub>()) {
    additiveTerms(s->a, negate, out);
    additiveTerms(s->b, !negate, out);
  } else {
    out.emplace_back(e, negate);
  }
}

ir::Expr sumOf(const std::vector<std::pair<ir::Expr, bool>>& terms, ir::DataType t) {
  ir::Expr acc;
  for (const auto& [term, neg] : terms) {
    if (!acc.defined())
      acc = neg ? ir::intImm(0, t) - term : term;
    else
      acc = neg ? acc - term : acc + term;
  }
  return acc.defined() ? acc : ir::intImm(0, t);
}

/// Lower or upper end of `e` with the relax variables at their extremes: the symbolic part
/// that does not mention them plus a numeric bound of the part that does.
std::optional<ir::Expr> relaxEnd(const ir::Expr& e, bool upper, const std::vector<const ir::ExprNode*>& vars,
                                 const ir::Analyzer& withRelax) {
  const ir::Expr s = withRelax.simplify(e);
  std::vector<std::pair<ir::Expr, bool>> terms, inner, outer;
  additiveTerms(s, false, terms);
  for (const auto& t : terms) (usesAnyVar(t.first, vars) ? inner : outer).push_back(t);
  if (inner.empty()) return s;
  const ir::DataType t = e.dtype();
  const ir::IntBound b = withRelax.bound(ir::simplify(sumOf(inner, t)));
  const auto end = upper ? b.max : b.min;
  if (!end) return std::nullopt;
  return withRelax.simplify(sumOf(outer, t) + ir::intImm(*end, t));
}

} // namespace

ir::Range relaxRange(const ir::Range& r, const std::vector<RelaxVar>& relax, const ir::Analyzer& context,
                     const ir::Expr& fallbackExtent) {
  std::vector<const ir::ExprNode*> vars;
  for (const auto& v : relax) vars.push_back(v.var.get());
  if (!usesAnyVar(r.min, vars) && !usesAnyVar(r.extent, vars)) return r;
  ir::Analyzer withRelax = context;
  for (const auto& v : relax) withRelax.bind(v.var, v.dom);
  const ir::DataType t = r.min.dtype();
  auto lo = relaxEnd(r.min, false, vars, withRelax);
  auto hi = relaxEnd(r.min + r.extent - ir::intImm(1, t), true, vars, withRelax);
  if (lo && hi) return {*lo, context.simplify(*hi - *lo + ir::intImm(1, t))};
  // Numeric cover of the whole range, else the whole dimension.
  const ir::IntBound a = withRelax.bound(r.min);
  const ir::IntBound b = withRelax.bound(r.min + r.extent - ir::intImm(1, t));
  if (a.min && b.max) return {ir::intImm(*a.min, t), ir::intImm(*b.max - *a.min + 1, t)};
  return {ir::intImm(0, t), fallbackExtent};
}

namespace {
class BufferRewriter final : public ir::StmtMutator {
public:
  explicit BufferRewriter(const BufferRewrite& rw) : m_rw(rw) {}

protected:
  ir::Expr visitBufferLoad(const ir::BufferLoad& op, const ir::Expr& self) override {
    ir::Expr e = ExprMutator::visitBufferLoad(op, self);
    const auto* load = e.as<ir::BufferLoad>();
    if (!load->buffer.sameAs(m_rw.oldBuffer)) return e;
    return ir::BufferLoad::make(m_rw.newBuffer, m_rw.mapIndices(load->indices));
  }
  ir::Stmt visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
    ir::Stmt s = StmtMutator::visitBufferStore(op, self);
    const auto* store = s.as<ir::BufferStore>();
    if (!store->buffer.sameAs(m_rw.oldBuffer)) return s;
    return ir::BufferStore::make(m_rw.newBuffer, store->value, m_rw.mapIndices(store->indices));
  }
  ir::Stmt visitBlock(const ir::Block& op, const ir::Stmt& self) override {
    ir::Stmt s = StmtMutator::visitBlock(op, self);
    const auto* b = s.as<ir::Block>();
    bool changed = false;
    auto regions = [&](const std::vector<ir::BufferRegion>& in) {
      std::vector<ir::BufferRegion> out;
      for (const auto& r : in) {
        if (r.buffer.sameAs(m_rw.oldBuffer)) {
          out.push_back({m_rw.newBuffer, m_rw.mapRegion(r.region)});
          changed = true;
        } else {
          out.push_back(r);
        }
      }
      return out;
    };
    auto reads = regions(b->reads);
    auto writes = regions(b->writes);
    std::vector<ir::Buffer> allocs = b->allocBuffers;
    for (auto& a : allocs)
      if (a.sameAs(m_rw.oldBuffer)) {
        a = m_rw.newBuffer;
        changed = true;
      }
    if (!changed) return s;
    return ir::Block::make(b->name, b->iterVars, std::move(reads), std::move(writes), b->body, b->init,
                           std::move(allocs), b->annotations);
  }
  ir::Stmt visitAllocate(const ir::Allocate& op, const ir::Stmt& self) override {
    ir::Stmt s = StmtMutator::visitAllocate(op, self);
    const auto* a = s.as<ir::Allocate>();
    if (!a->buffer.sameAs(m_rw.oldBuffer)) return s;
    return ir::Allocate::make(m_rw.newBuffer, a->body);
  }

private:
  const BufferRewrite& m_rw;
};
} // namespace

ir::Stmt rewriteBuffer(const ir::Stmt& s, const BufferRewrite& rewrite) {
  BufferRewriter r(rewrite);
  return r.mutate(s);
}

std::optional<std::int64_t> evalInt(const ir::Expr& e,
                                    const std::vector<std::pair<const ir::ExprNode*, std::int64_t>>& values) {
  using R = std::optional<std::int64_t>;
  auto floorDiv = [](std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  };
  auto bin = [&](const auto* op, auto fn) -> R {
    R a = evalInt(op->a, values), b = evalInt(op->b, values);
    if (!a || !b) return std::nullopt;
    return fn(*a, *b);
  };
  switch (e.kind()) {
  case ir::ExprKind::IntImm: return e.as<ir::IntImm>()->value;
  case ir::ExprKind::Var:
    for (const auto& [v, x] : values)
      if (v == e.get()) return x;
    return std::nullopt;
  case ir::ExprKind::Add: return bin(e.as<ir::Add>(), [](auto a, auto b) -> R { return a + b; });
  case ir::ExprKind::Sub: return bin(e.as<ir::Sub>(), [](auto a, auto b) -> R { return a - b; });
  case ir::ExprKind::Mul: return bin(e.as<ir::Mul>(), [](auto a, auto b) -> R { return a * b; });
  case ir::ExprKind::Min: return bin(e.as<ir::Min>(), [](auto a, auto b) -> R { return std::min(a, b); });
  case ir::ExprKind::Max: return bin(e.as<ir::Max>(), [](auto a, auto b) -> R { return std::max(a, b); });
  case ir::ExprKind::Div:
    return bin(e.as<ir::Div>(), [](auto a, auto b) -> R { return b == 0 ? R{} : R{a / b}; });
  case ir::ExprKind::FloorDiv:
    return bin(e.as<ir::FloorDiv>(), [&](auto a, auto b) -> R { return b == 0 ? R{} : R{floorDiv(a, b)}; });
  case ir::ExprKind::FloorMod:
    return bin(e.as<ir::FloorMod>(),
               [&](auto a, auto b) -> R { return b == 0 ? R{} : R{a - floorDiv(a, b) * b}; });
  case ir::ExprKind::EQ: return bin(e.as<ir::EQ>(), [](auto a, auto b) -> R { return a == b; });
  case ir::ExprKind::NE: return bin(e.as<ir::NE>(), [](auto a, auto b) -> R { return a != b; });
  case ir::ExprKind::LT: return bin(e.as<ir::LT>(), [](auto a, auto b) -> R { return a < b; });
  case ir::ExprKind::LE: return bin(e.as<ir::LE>(), [](auto a, auto b) -> R { return a <= b; });
  case ir::ExprKind::GT: return bin(e.as<ir::GT>(), [](auto a, auto b) -> R { return a > b; });
  case ir::ExprKind::GE: return bin(e.as<ir::GE>(), [](auto a, auto b) -> R { return a >= b; });
  case ir::ExprKind::Select: {
    const auto* s = e.as<ir::Select>();
    R c = evalInt(s->condition, values);
    if (!c) return std::nullopt;
    return evalInt(*c ? s->trueValue : s->falseValue, values);
  }
  case ir::ExprKind::Cast: return evalInt(e.as<ir::Cast>()->value, values);
  default: return std::nullopt;
  }
}

} // namespace loopscape::schedule::detail
