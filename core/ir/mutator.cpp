#include "core/ir/mutator.h"

namespace loopscape::ir {

std::vector<Expr> ExprMutator::mutateAll(const std::vector<Expr>& exprs, bool& changed) {
  std::vector<Expr> out;
  out.reserve(exprs.size());
  for (const auto& e : exprs) {
    out.push_back(mutate(e));
    changed |= !out.back().sameAs(e);
  }
  return out;
}

Expr ExprMutator::visitIntImm(const IntImm&, const Expr& self) { return self; }
Expr ExprMutator::visitFloatImm(const FloatImm&, const Expr& self) { return self; }
Expr ExprMutator::visitStringImm(const StringImm&, const Expr& self) { return self; }
Expr ExprMutator::visitVar(const Var&, const Expr& self) { return self; }

#define LS_X(name)                                                                        \
  Expr ExprMutator::visit##name(const name& op, const Expr& self) {                       \
    Expr a = mutate(op.a), b = mutate(op.b);                                              \
    if (a.sameAs(op.a) && b.sameAs(op.b)) return self;                                    \
    return name::make(std::move(a), std::move(b));                                        \
  }
LS_BINARY_KINDS(LS_X)
#undef LS_X

Expr ExprMutator::visitNot(const Not& op, const Expr& self) {
  Expr a = mutate(op.a);
  return a.sameAs(op.a) ? self : Not::make(std::move(a));
}

Expr ExprMutator::visitSelect(const Select& op, const Expr& self) {
  Expr c = mutate(op.condition), t = mutate(op.trueValue), f = mutate(op.falseValue);
  if (c.sameAs(op.condition) && t.sameAs(op.trueValue) && f.sameAs(op.falseValue)) return self;
  return Select::make(std::move(c), std::move(t), std::move(f), op.lazy);
}

Expr ExprMutator::visitCast(const Cast& op, const Expr& self) {
  Expr v = mutate(op.value);
  return v.sameAs(op.value) ? self : Cast::make(op.dtype, std::move(v));
}

Expr ExprMutator::visitCall(const Call& op, const Expr& self) {
  bool changed = false;
  auto args = mutateAll(op.args, changed);
  return changed ? Call::make(op.dtype, op.op, std::move(args)) : self;
}

Expr ExprMutator::visitBufferLoad(const BufferLoad& op, const Expr& self) {
  bool changed = false;
  auto indices = mutateAll(op.indices, changed);
  return changed ? BufferLoad::make(op.buffer, std::move(indices)) : self;
}

Expr ExprMutator::visitRamp(const Ramp& op, const Expr& self) {
  Expr b = mutate(op.base), s = mutate(op.stride);
  if (b.sameAs(op.base) && s.sameAs(op.stride)) return self;
  return Ramp::make(std::move(b), std::move(s), op.lanes);
}

Expr ExprMutator::visitBroadcast(const Broadcast& op, const Expr& self) {
  Expr v = mutate(op.value);
  return v.sameAs(op.value) ? self : Broadcast::make(std::move(v), op.lanes);
}

Range StmtMutator::mutateRange(const Range& r, bool& changed) {
  Range out{mutate(r.min), mutate(r.extent)};
  changed |= !out.min.sameAs(r.min) || !out.extent.sameAs(r.extent);
  return out;
}

std::vector<BufferRegion> StmtMutator::mutateRegions(const std::vector<BufferRegion>& regions, bool& changed) {
  std::vector<BufferRegion> out;
  out.reserve(regions.size());
  for (const auto& r : regions) {
    BufferRegion m{r.buffer, {}};
    for (const auto& range : r.region) m.region.push_back(mutateRange(range, changed));
    out.push_back(std::move(m));
  }
  return out;
}

Stmt StmtMutator::visitFor(const For& op, const Stmt& self) {
  Expr var = mutate(op.loopVar), min = mutate(op.min), extent = mutate(op.extent);
  Stmt body = mutate(op.body);
  if (var.sameAs(op.loopVar) && min.sameAs(op.min) && extent.sameAs(op.extent) && body.sameAs(op.body)) return self;
  return For::make(std::move(var), std::move(min), std::move(extent), op.forKind, std::move(body), op.threadTag,
                   op.annotations);
}

Stmt StmtMutator::visitBlockRealize(const BlockRealize& op, const Stmt& self) {
  bool changed = false;
  auto values = mutateAll(op.iterValues, changed);
  Expr pred = mutate(op.predicate);
  Stmt block = mutate(op.block);
  if (!changed && pred.sameAs(op.predicate) && block.sameAs(op.block)) return self;
  return BlockRealize::make(std::move(values), std::move(pred), std::move(block));
}

Stmt StmtMutator::visitBlock(const Block& op, const Stmt& self) {
  bool changed = false;
  std::vector<IterVar> iters;
  for (const auto& iv : op.iterVars) {
    IterVar m{mutate(iv.var), mutateRange(iv.dom, changed), iv.kind};
    changed |= !m.var.sameAs(iv.var);
    iters.push_back(std::move(m));
  }
  auto reads = mutateRegions(op.reads, changed);
  auto writes = mutateRegions(op.writes, changed);
  Stmt init = mutate(op.init);
  Stmt body = mutate(op.body);
  if (!changed && init.sameAs(op.init) && body.sameAs(op.body)) return self;
  return Block::make(op.name, std::move(iters), std::move(reads), std::move(writes), std::move(body), std::move(init),
                     op.allocBuffers, op.annotations);
}

Stmt StmtMutator::visitBufferStore(const BufferStore& op, const Stmt& self) {
  bool changed = false;
  Expr value = mutate(op.value);
  auto indices = mutateAll(op.indices, changed);
  if (!changed && value.sameAs(op.value)) return self;
  return BufferStore::make(op.buffer, std::move(value), std::move(indices));
}

Stmt StmtMutator::visitSeqStmt(const SeqStmt& op, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> seq;
  for (const auto& s : op.seq) {
    seq.push_back(mutate(s));
    changed |= !seq.back().sameAs(s);
  }
  return changed ? SeqStmt::make(std::move(seq)) : self;
}

Stmt StmtMutator::visitIfThenElse(const IfThenElse& op, const Stmt& self) {
  Expr c = mutate(op.condition);
  Stmt t = mutate(op.thenCase), e = mutate(op.elseCase);
  if (c.sameAs(op.condition) && t.sameAs(op.thenCase) && e.sameAs(op.elseCase)) return self;
  return IfThenElse::make(std::move(c), std::move(t), std::move(e));
}

Stmt StmtMutator::visitAssume(const Assume& op, const Stmt& self) {
  Expr c = visitExpr(op.condition);
  return c.sameAs(op.condition) ? self : Assume::make(std::move(c));
}

Stmt StmtMutator::visitEvaluate(const Evaluate& op, const Stmt& self) {
  Expr v = mutate(op.value);
  return v.sameAs(op.value) ? self : Evaluate::make(std::move(v));
}

Stmt StmtMutator::visitLetStmt(const LetStmt& op, const Stmt& self) {
  Expr var = mutate(op.var), value = mutate(op.value);
  Stmt body = mutate(op.body);
  if (var.sameAs(op.var) && value.sameAs(op.value) && body.sameAs(op.body)) return self;
  return LetStmt::make(std::move(var), std::move(value), std::move(body));
}

Stmt StmtMutator::visitAllocate(const Allocate& op, const Stmt& self) {
  Stmt body = mutate(op.body);
  return body.sameAs(op.body) ? self : Allocate::make(op.buffer, std::move(body));
}

} // namespace loopscape::ir
