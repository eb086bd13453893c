#include "core/codegen/lower_vectorize.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/simplify.h"
#include "core/ir/structural_equal.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <functional>
#include <map>
#include <optional>

namespace loopscape::codegen {

using namespace ir;

namespace {

/// An int64 index for stride analysis only: int32 -> int64 casts (from flattening with
/// int64 offsets) are pushed down to the leaves, so that the affine structure is visible
/// to the simplifier (exact as long as the int32 index itself does not overflow, which is
/// the program's own semantics); the loop variable becomes `var64`.
Expr pushCasts(const Expr& e, const Expr& var, const Expr& var64) {
  auto leaf = [&](const Expr& x) { return x.sameAs(var) ? var64 : Cast::make(DataType::int64(), x); };
  std::function<Expr(const Expr&)> widen = [&](const Expr& x) -> Expr {
    if (auto c = asConstInt(x)) return intImm(*c, DataType::int64());
    if (const auto* a = x.as<Add>()) return Add::make(widen(a->a), widen(a->b));
    if (const auto* a = x.as<Sub>()) return Sub::make(widen(a->a), widen(a->b));
    if (const auto* a = x.as<Mul>()) return Mul::make(widen(a->a), widen(a->b));
    return leaf(x);
  };
  std::function<Expr(const Expr&)> walk = [&](const Expr& x) -> Expr {
    if (const auto* c = x.as<Cast>(); c && c->dtype == DataType::int64() && c->value.dtype() == DataType::int32())
      return widen(c->value);
    if (const auto* a = x.as<Add>()) return Add::make(walk(a->a), walk(a->b));
    if (const auto* a = x.as<Sub>()) return Sub::make(walk(a->a), walk(a->b));
    if (const auto* a = x.as<Mul>()) return Mul::make(walk(a->a), walk(a->b));
    return x;
  };
  return walk(e);
}

/// The loop being vectorized and what is known about the enclosing loops.
struct VectorLoop {
  Expr var, min;
  int lanes = 0;
  const Analyzer* an = nullptr; ///< enclosing loops bound, `var` and `var64` bound to [min, min + lanes - 1)
  Expr var64;                   ///< an int64 stand-in for `var` (stride analysis of int64 offsets)

  /// idx(var + 1) - idx(var) when the analyzer proves it constant.
  std::optional<std::int64_t> stride(const Expr& index) const {
    Expr e = index.dtype() == DataType::int64() ? pushCasts(index, var, var64) : index;
    const Expr& v = index.dtype() == DataType::int64() ? var64 : var;
    Expr next = substitute(e, VarMap{{v.get(), v + 1}});
    return asConstInt(an->simplify(next - e));
  }
};

/// Finds the first reason the body cannot be vectorized (empty when it can).
class Checker final : public StmtVisitor {
public:
  Checker(const VectorLoop& loop, bool maskedLoads) : m_loop(loop), m_maskedLoads(maskedLoads) {}
  std::string reason;

  void check(const Stmt& body) {
    visitStmt(body);
    if (!reason.empty()) return;
    // A buffer the loop writes is read and written only at one element per lane, the same
    // one in every iteration of the loops inside: the lanes are then independent, and
    // running the inner loops outside them (outer-loop vectorization) reorders nothing.
    for (const auto& [buffer, index] : m_loads) {
      auto it = m_stores.find(buffer);
      if (it != m_stores.end() && !structuralEqual(it->second.second, index))
        return fail("the loop reads " + it->second.first + " at another element than it writes");
    }
    for (const auto& [buffer, store] : m_stores)
      for (const Expr& inner : m_inner)
        if (usesVar(store.second, inner))
          return fail("the store to " + store.first + " moves with the inner loop '" + inner.as<Var>()->name +
                      "' (its lanes would be reordered)");
  }

protected:
  void fail(std::string why) {
    if (reason.empty()) reason = std::move(why);
  }
  void visitFor(const For& op, const Stmt& self) override {
    const std::string& name = op.loopVar.as<Var>()->name;
    if (op.forKind != ForKind::Serial && op.forKind != ForKind::Unrolled)
      return fail("the body contains the " + std::string(forKindName(op.forKind)) + " loop '" + name + "'");
    if (usesVar(op.min, m_loop.var) || usesVar(op.extent, m_loop.var))
      return fail("the bounds of the inner loop '" + name + "' depend on the vectorized loop");
    m_inner.push_back(op.loopVar);
    StmtVisitor::visitFor(op, self);
  }
  void visitAllocate(const Allocate& op, const Stmt&) override {
    fail("the body allocates '" + op.buffer->name + "'");
  }
  void visitLetStmt(const LetStmt&, const Stmt&) override { fail("the body has a let binding"); }
  void visitIfThenElse(const IfThenElse& op, const Stmt& self) override {
    if (usesVar(op.condition, m_loop.var))
      return fail("the condition " + printExpr(op.condition) + " depends on the vectorized loop");
    StmtVisitor::visitIfThenElse(op, self);
  }
  void visitBufferStore(const BufferStore& op, const Stmt& self) override {
    const Expr& index = op.indices[0];
    auto s = m_loop.stride(index);
    if (!s || *s != 1) {
      if (s && *s == 0)
        return fail("every iteration stores to the same element of " + op.buffer->name +
                    " (a reduction over the vectorized loop)");
      return fail("the store to " + op.buffer->name + " is not contiguous in the loop variable");
    }
    auto [it, inserted] = m_stores.try_emplace(op.buffer.get(), op.buffer->name, index);
    if (!inserted && !structuralEqual(it->second.second, index))
      return fail("the loop writes " + op.buffer->name + " at two different elements");
    StmtVisitor::visitBufferStore(op, self);
  }
  void visitBufferLoad(const BufferLoad& op, const Expr& self) override {
    const Expr& index = op.indices[0];
    if (usesVar(index, m_loop.var)) {
      auto s = m_loop.stride(index);
      if (!s || (*s != 1 && *s != 0))
        return fail("the load from " + op.buffer->name + " is not contiguous in the loop variable");
    }
    m_loads.emplace_back(op.buffer.get(), index);
    StmtVisitor::visitBufferLoad(op, self);
  }
  void visitCall(const Call& op, const Expr& self) override {
    switch (op.op) {
    case CallOp::Fma:
    case CallOp::Fabs:
    case CallOp::Sqrt:
    case CallOp::Floor:
    case CallOp::Ceil:
    case CallOp::Round: break;
    default: return fail(std::string("the body calls T.") + callOpName(op.op));
    }
    StmtVisitor::visitCall(op, self);
  }
  void visitSelect(const Select& op, const Expr& self) override {
    for (const Expr* branch : {&op.trueValue, &op.falseValue}) {
      if (!hasLoad(*branch)) continue;
      if (!m_maskedLoads)
        return fail("a load sits in a branch of T.if_then_else / T.Select and would be evaluated for every lane");
      if (std::string why = unmaskable(*branch); !why.empty()) return fail(why);
    }
    StmtVisitor::visitSelect(op, self);
  }
  void visitAnd(const And& op, const Expr& self) override {
    if (hasLoad(op.b)) return fail("a load sits on the right of 'and' and would be evaluated for every lane");
    StmtVisitor::visitAnd(op, self);
  }
  void visitOr(const Or& op, const Expr& self) override {
    if (hasLoad(op.b)) return fail("a load sits on the right of 'or' and would be evaluated for every lane");
    StmtVisitor::visitOr(op, self);
  }
  void visitRamp(const Ramp&, const Expr&) override { fail("the body is already vectorized"); }
  void visitBroadcast(const Broadcast&, const Expr&) override { fail("the body is already vectorized"); }

private:
  /// Why a Select branch cannot be evaluated under a lane mask ("" when it can): a load
  /// every lane shares (a scalar load, not masked) or an integer division by a variable.
  std::string unmaskable(const Expr& branch) const {
    std::string why;
    forEachExpr(branch, [&](const Expr& sub) {
      if (!why.empty()) return;
      if (const auto* load = sub.as<BufferLoad>()) {
        if (!usesVar(load->indices[0], m_loop.var) || m_loop.stride(load->indices[0]) == 0)
          why = "the load from " + load->buffer->name +
                " in a branch of T.if_then_else / T.Select is the same for every lane (it cannot be masked)";
        return;
      }
      if (const Expr* divisor = variableIntegerDivisor(sub))
        why = "a branch of T.if_then_else / T.Select with a load divides by " + printExpr(*divisor) +
              ", which the lanes it does not hold for would evaluate";
    });
    return why;
  }
  static bool hasLoad(const Expr& e) {
    bool found = false;
    forEachExpr(e, [&](const Expr& sub) { found = found || sub.is<BufferLoad>(); });
    return found;
  }

  const VectorLoop& m_loop;
  bool m_maskedLoads = false;
  std::map<const BufferNode*, std::pair<std::string, Expr>> m_stores;
  std::vector<std::pair<const BufferNode*, Expr>> m_loads;
  std::vector<Expr> m_inner; ///< the loop variables of the loops inside
};

/// Rewrites a checked body into vector form.
class Widen final : public StmtMutator {
public:
  explicit Widen(const VectorLoop& loop) : m_loop(loop) {}

protected:
  Expr broadcast(const Expr& e) const {
    return e.dtype().lanes() == m_loop.lanes ? e : Broadcast::make(e, m_loop.lanes);
  }
  Expr ramp(const Expr& index) const {
    Expr base = m_loop.an->simplify(substitute(index, VarMap{{m_loop.var.get(), m_loop.min}}));
    return Ramp::make(base, intImm(1, base.dtype()), m_loop.lanes);
  }

  Expr visitVar(const Var& op, const Expr& self) override {
    if (&op != m_loop.var.get()) return self;
    return Ramp::make(m_loop.min, intImm(1, m_loop.min.dtype()), m_loop.lanes);
  }
  Expr visitBufferLoad(const BufferLoad& op, const Expr& self) override {
    if (!usesVar(op.indices[0], m_loop.var)) return self;
    if (m_loop.stride(op.indices[0]) == 0) // the same element for every lane: a scalar load
      return BufferLoad::make(op.buffer, {m_loop.an->simplify(substitute(op.indices[0], VarMap{{m_loop.var.get(), m_loop.min}}))});
    return BufferLoad::make(op.buffer, {ramp(op.indices[0])});
  }
  Stmt visitBufferStore(const BufferStore& op, const Stmt&) override {
    return BufferStore::make(op.buffer, broadcast(mutate(op.value)), {ramp(op.indices[0])});
  }

#define LS_WIDEN_BINARY(Kind)                                                                \
  Expr visit##Kind(const Kind& op, const Expr& self) override {                            \
    Expr a = mutate(op.a), b = mutate(op.b);                                                \
    if (a.sameAs(op.a) && b.sameAs(op.b)) return self;                                     \
    if (a.dtype().lanes() == 1 && b.dtype().lanes() == 1) return Kind::make(a, b);         \
    return Kind::make(broadcast(a), broadcast(b));                                          \
  }
  LS_BINARY_KINDS(LS_WIDEN_BINARY)
#undef LS_WIDEN_BINARY

  Expr visitSelect(const Select& op, const Expr& self) override {
    Expr c = mutate(op.condition), t = mutate(op.trueValue), f = mutate(op.falseValue);
    if (c.sameAs(op.condition) && t.sameAs(op.trueValue) && f.sameAs(op.falseValue)) return self;
    return Select::make(broadcast(c), broadcast(t), broadcast(f), op.lazy);
  }
  Expr visitCast(const Cast& op, const Expr& self) override {
    Expr v = mutate(op.value);
    if (v.sameAs(op.value)) return self;
    return Cast::make(op.dtype.withLanes(v.dtype().lanes()), v);
  }
  Expr visitCall(const Call& op, const Expr& self) override {
    bool changed = false;
    auto args = mutateAll(op.args, changed);
    if (!changed) return self;
    for (auto& a : args) a = broadcast(a);
    return Call::make(op.dtype.withLanes(m_loop.lanes), op.op, std::move(args));
  }

private:
  const VectorLoop& m_loop;
};

class Vectorizer final : public StmtMutator {
public:
  Vectorizer(int maxLanes, std::vector<Remark>& remarks, bool maskedLoads)
      : m_maxLanes(maxLanes), m_maskedLoads(maskedLoads), m_remarks(remarks) {}

protected:
  Stmt visitFor(const For& op, const Stmt& self) override {
    auto extent = asConstInt(op.extent);
    Stmt body;
    {
      auto old = m_an.varBound(op.loopVar);
      m_an.bind(op.loopVar, Range::fromMinExtent(op.min, op.extent));
      body = mutate(op.body);
      if (op.forKind == ForKind::Vectorized && extent && *extent > 1)
        m_an.bind(op.loopVar, Range::fromMinExtent(op.min, intImm(*extent - 1, op.extent.dtype())));
      if (op.forKind == ForKind::Vectorized) {
        if (auto vec = tryVectorize(op, body, extent)) body = *vec;
        else body = For::make(op.loopVar, op.min, op.extent, ForKind::Serial, body, {}, op.annotations);
      }
      if (old) m_an.bindBound(op.loopVar, *old);
      else m_an.unbind(op.loopVar);
    }
    if (op.forKind == ForKind::Vectorized) return body;
    if (body.sameAs(op.body)) return self;
    return For::make(op.loopVar, op.min, op.extent, op.forKind, body, op.threadTag, op.annotations);
  }

private:
  std::optional<Stmt> tryVectorize(const For& op, const Stmt& body, std::optional<std::int64_t> extent) {
    const std::string& name = op.loopVar.as<Var>()->name;
    auto fallBack = [&](const std::string& why) -> std::optional<Stmt> {
      m_remarks.push_back({name, "vectorize fell back to a scalar loop: " + why});
      return std::nullopt;
    };
    if (!extent) return fallBack("the extent " + printExpr(op.extent) + " is not a constant");
    if (*extent <= 0) return Evaluate::make(intImm(0));
    if (*extent == 1) return substitute(body, VarMap{{op.loopVar.get(), op.min}});
    if (*extent > m_maxLanes)
      return fallBack("the extent " + std::to_string(*extent) + " exceeds the widest vector (" +
                      std::to_string(m_maxLanes) + " lanes); split the loop first");
    Expr var64 = Var::make(name + "_i64", DataType::int64());
    m_an.bind(var64, Range::fromMinExtent(Cast::make(DataType::int64(), op.min), intImm(*extent - 1, DataType::int64())));
    VectorLoop loop{op.loopVar, op.min, static_cast<int>(*extent), &m_an, var64};
    Checker checker(loop, m_maskedLoads);
    checker.check(body);
    std::optional<Stmt> result;
    if (checker.reason.empty()) result = Widen(loop).mutate(body);
    m_an.unbind(var64);
    if (!result) return fallBack(checker.reason);
    return result;
  }

  Analyzer m_an;
  int m_maxLanes;
  bool m_maskedLoads;
  std::vector<Remark>& m_remarks;
};

} // namespace

Stmt vectorizeLoops(const Stmt& body, int maxLanes, std::vector<Remark>& remarks, bool maskedLoads) {
  Vectorizer vectorizer(maxLanes, remarks, maskedLoads);
  return vectorizer.mutate(body);
}

} // namespace loopscape::codegen
