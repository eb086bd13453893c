// Read-only traversals. ExprVisitor walks every sub-expression; StmtVisitor walks every
// statement and, through visitExpr, every expression inside statements (loop bounds,
// block bindings and predicates, region bounds, indices, values). Override a visit method
// and call the base version to keep descending. Buffer shapes are not visited.
#pragma once

#include "core/ir/functor.h"

namespace loopscape::ir {

class ExprVisitor : public ExprFunctor<void> {
protected:
#define LS_X(name) void visit##name(const name& op, const Expr& self) override;
  LS_EXPR_KINDS(LS_X)
#undef LS_X
};

class StmtVisitor : public ExprVisitor, public StmtFunctor<void> {
public:
  using ExprVisitor::visitExpr;
  using StmtFunctor<void>::visitStmt;
  void operator()(const Expr& e) { visitExpr(e); }
  void operator()(const Stmt& s) { visitStmt(s); }

protected:
  void visitRange(const Range& r);
  void visitRegion(const BufferRegion& region);
#define LS_X(name) void visit##name(const name& op, const Stmt& self) override;
  LS_STMT_KINDS(LS_X)
#undef LS_X
};


namespace detail {
template <typename Fn> class LambdaExprVisitor final : public StmtVisitor {
public:
  explicit LambdaExprVisitor(Fn& fn) : m_fn(fn) {}
  void visitExpr(const Expr& e) override {
    m_fn(e);
    ExprVisitor::visitExpr(e);
  }

private:
  Fn& m_fn;
};
} // namespace detail

/// Calls `fn(const Expr&)` on every expression node reachable from `e` (pre-order).
template <typename Fn> void forEachExpr(const Expr& e, Fn&& fn) {
  detail::LambdaExprVisitor<Fn> v(fn);
  v.visitExpr(e);
}
/// Calls `fn(const Expr&)` on every expression node inside `s` (pre-order).
template <typename Fn> void forEachExpr(const Stmt& s, Fn&& fn) {
  detail::LambdaExprVisitor<Fn> v(fn);
  v.visitStmt(s);
}

/// Whether `var` (a Var, by identity) occurs in `e`.
bool usesVar(const Expr& e, const Expr& var);

} // namespace loopscape::ir
