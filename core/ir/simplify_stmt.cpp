// Statement simplification: every expression of a statement is simplified by one
// Analyzer that knows the ranges of the enclosing loop variables ([min, min + extent)),
// block iterators (their domains) and let-bound variables (the bound of their value).
// Bindings are scoped: they are restored when the traversal leaves the defining node.
#include "core/ir/mutator.h"
#include "core/ir/simplify_detail.h"

namespace loopscape::ir {

namespace {

class StmtSimplifier final : public StmtMutator {
public:
  Expr visitExpr(const Expr& e) override { return m_an.simplify(e); }

protected:
  /// Binds `var` to `bound` until the returned guard is destroyed.
  class ScopedBinding {
  public:
    ScopedBinding(Analyzer& an, const Expr& var, IntBound bound) : m_an(an), m_var(var), m_old(an.varBound(var)) {
      m_an.bindBound(m_var, bound);
    }
    ~ScopedBinding() {
      if (m_old)
        m_an.bindBound(m_var, *m_old);
      else
        m_an.unbind(m_var);
    }
    ScopedBinding(const ScopedBinding&) = delete;
    ScopedBinding& operator=(const ScopedBinding&) = delete;

  private:
    Analyzer& m_an;
    Expr m_var;
    std::optional<IntBound> m_old;
  };

  IntBound rangeBound(const Range& r) const {
    IntBound lo = m_an.bound(r.min);
    IntBound hi = m_an.bound(Sub::make(Add::make(r.min, r.extent), IntImm::make(r.min.dtype(), 1)));
    return {lo.min, hi.max};
  }

  Stmt visitFor(const For& op, const Stmt& self) override {
    Expr min = mutate(op.min), extent = mutate(op.extent);
    Stmt body;
    {
      ScopedBinding bind(m_an, op.loopVar, rangeBound({min, extent}));
      body = mutate(op.body);
    }
    if (min.sameAs(op.min) && extent.sameAs(op.extent) && body.sameAs(op.body)) return self;
    return For::make(op.loopVar, std::move(min), std::move(extent), op.forKind, std::move(body), op.threadTag,
                     op.annotations);
  }

  Stmt visitBlock(const Block& op, const Stmt& self) override {
    bool changed = false;
    std::vector<IterVar> iters;
    for (const auto& iv : op.iterVars)
      iters.push_back({iv.var, mutateRange(iv.dom, changed), iv.kind});
    std::vector<std::unique_ptr<ScopedBinding>> bindings;
    for (const auto& iv : iters)
      bindings.push_back(std::make_unique<ScopedBinding>(m_an, iv.var, rangeBound(iv.dom)));
    auto reads = mutateRegions(op.reads, changed);
    auto writes = mutateRegions(op.writes, changed);
    Stmt init = mutate(op.init);
    Stmt body = mutate(op.body);
    while (!bindings.empty())
      bindings.pop_back(); // restore in reverse order
    if (!changed && init.sameAs(op.init) && body.sameAs(op.body)) return self;
    return Block::make(op.name, std::move(iters), std::move(reads), std::move(writes), std::move(body), std::move(init),
                       op.allocBuffers, op.annotations);
  }

  Stmt visitLetStmt(const LetStmt& op, const Stmt& self) override {
    Expr value = mutate(op.value);
    Stmt body;
    if (value.dtype().isInteger() && value.dtype().isScalar()) {
      ScopedBinding bind(m_an, op.var, m_an.bound(value));
      body = mutate(op.body);
    } else {
      body = mutate(op.body);
    }
    if (value.sameAs(op.value) && body.sameAs(op.body)) return self;
    return LetStmt::make(op.var, std::move(value), std::move(body));
  }

  Stmt visitIfThenElse(const IfThenElse& op, const Stmt& self) override {
    Expr condition = mutate(op.condition);
    if (auto c = asConstInt(condition)) {
      if (*c) return mutate(op.thenCase);
      if (op.elseCase.defined()) return mutate(op.elseCase);
      return Evaluate::make(IntImm::make(DataType::int32(), 0)); // the no-op statement
    }
    Stmt thenCase = mutate(op.thenCase), elseCase = mutate(op.elseCase);
    if (condition.sameAs(op.condition) && thenCase.sameAs(op.thenCase) && elseCase.sameAs(op.elseCase)) return self;
    return IfThenElse::make(std::move(condition), std::move(thenCase), std::move(elseCase));
  }

private:
  Analyzer m_an;
};

} // namespace

Stmt simplify(const Stmt& s) {
  if (!s.defined()) return s;
  StmtSimplifier simplifier;
  return simplifier.mutate(s);
}

} // namespace loopscape::ir
