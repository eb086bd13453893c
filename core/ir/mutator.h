// Copy-on-change rewriting. Each visit returns the node's own handle when no child
// changed, so an untouched subtree is shared, not copied. StmtMutator also rewrites the
// expressions inside statements through visitExpr. Buffers are not rewritten.
#pragma once

#include "core/ir/functor.h"

namespace loopscape::ir {

class ExprMutator : public ExprFunctor<Expr> {
public:
  Expr mutate(const Expr& e) { return e.defined() ? visitExpr(e) : e; }

protected:
  std::vector<Expr> mutateAll(const std::vector<Expr>& exprs, bool& changed);
#define LS_X(name) Expr visit##name(const name& op, const Expr& self) override;
  LS_EXPR_KINDS(LS_X)
#undef LS_X
};

class StmtMutator : public ExprMutator, public StmtFunctor<Stmt> {
public:
  using ExprMutator::mutate;
  Stmt mutate(const Stmt& s) { return s.defined() ? visitStmt(s) : s; }

protected:
  Range mutateRange(const Range& r, bool& changed);
  std::vector<BufferRegion> mutateRegions(const std::vector<BufferRegion>& regions, bool& changed);
#define LS_X(name) Stmt visit##name(const name& op, const Stmt& self) override;
  LS_STMT_KINDS(LS_X)
#undef LS_X
};

} // namespace loopscape::ir
