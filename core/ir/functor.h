// Functors that dispatch on the node kind: subclasses implement one `visit<Kind>` per
// kind (pure virtual, so a new kind in node_kinds.h fails to compile until handled).
// `self` is the handle of the node being visited, for the "return it unchanged" case.
#pragma once

#include "core/ir/stmt.h"

namespace loopscape::ir {

template <typename R, typename... Args> class ExprFunctor {
public:
  virtual ~ExprFunctor() = default;

  R operator()(const Expr& e, Args... args) { return visitExpr(e, args...); }

  virtual R visitExpr(const Expr& e, Args... args) {
    LS_ASSERT(e.defined(), "visiting an undefined Expr");
    switch (e.kind()) {
#define LS_X(name)                                                                        \
  case ExprKind::name:                                                                    \
    return visit##name(static_cast<const name&>(*e.get()), e, args...);
      LS_EXPR_KINDS(LS_X)
#undef LS_X
    }
    LS_UNREACHABLE("bad ExprKind");
  }

protected:
#define LS_X(name) virtual R visit##name(const name& op, const Expr& self, Args... args) = 0;
  LS_EXPR_KINDS(LS_X)
#undef LS_X
};

template <typename R, typename... Args> class StmtFunctor {
public:
  virtual ~StmtFunctor() = default;

  R operator()(const Stmt& s, Args... args) { return visitStmt(s, args...); }

  virtual R visitStmt(const Stmt& s, Args... args) {
    LS_ASSERT(s.defined(), "visiting an undefined Stmt");
    switch (s.kind()) {
#define LS_X(name)                                                                        \
  case StmtKind::name:                                                                    \
    return visit##name(static_cast<const name&>(*s.get()), s, args...);
      LS_STMT_KINDS(LS_X)
#undef LS_X
    }
    LS_UNREACHABLE("bad StmtKind");
  }

protected:
#define LS_X(name) virtual R visit##name(const name& op, const Stmt& self, Args... args) = 0;
  LS_STMT_KINDS(LS_X)
#undef LS_X
};

} // namespace loopscape::ir
