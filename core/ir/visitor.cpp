#include "core/ir/visitor.h"

namespace loopscape::ir {

void ExprVisitor::visitIntImm(const IntImm&, const Expr&) {}
void ExprVisitor::visitFloatImm(const FloatImm&, const Expr&) {}
void ExprVisitor::visitStringImm(const StringImm&, const Expr&) {}
void ExprVisitor::visitVar(const Var&, const Expr&) {}

#define LS_X(name)                                                                        \
  void ExprVisitor::visit##name(const name& op, const Expr&) {                            \
    visitExpr(op.a);                                                                      \
    visitExpr(op.b);                                                                      \
  }
LS_BINARY_KINDS(LS_X)
#undef LS_X

void ExprVisitor::visitNot(const Not& op, const Expr&) { visitExpr(op.a); }
void ExprVisitor::visitSelect(const Select& op, const Expr&) {
  visitExpr(op.condition);
  visitExpr(op.trueValue);
  visitExpr(op.falseValue);
}
void ExprVisitor::visitCast(const Cast& op, const Expr&) { visitExpr(op.value); }
void ExprVisitor::visitCall(const Call& op, const Expr&) {
  for (const auto& a : op.args) visitExpr(a);
}
void ExprVisitor::visitBufferLoad(const BufferLoad& op, const Expr&) {
  for (const auto& i : op.indices) visitExpr(i);
}
void ExprVisitor::visitRamp(const Ramp& op, const Expr&) {
  visitExpr(op.base);
  visitExpr(op.stride);
}
void ExprVisitor::visitBroadcast(const Broadcast& op, const Expr&) { visitExpr(op.value); }

void StmtVisitor::visitRange(const Range& r) {
  visitExpr(r.min);
  visitExpr(r.extent);
}

void StmtVisitor::visitRegion(const BufferRegion& region) {
  for (const auto& r : region.region) visitRange(r);
}

void StmtVisitor::visitFor(const For& op, const Stmt&) {
  visitExpr(op.loopVar);
  visitExpr(op.min);
  visitExpr(op.extent);
  visitStmt(op.body);
}

void StmtVisitor::visitBlockRealize(const BlockRealize& op, const Stmt&) {
  for (const auto& v : op.iterValues) visitExpr(v);
  visitExpr(op.predicate);
  visitStmt(op.block);
}

void StmtVisitor::visitBlock(const Block& op, const Stmt&) {
  for (const auto& iv : op.iterVars) {
    visitExpr(iv.var);
    visitRange(iv.dom);
  }
  for (const auto& r : op.reads) visitRegion(r);
  for (const auto& r : op.writes) visitRegion(r);
  if (op.init.defined()) visitStmt(op.init);
  visitStmt(op.body);
}

void StmtVisitor::visitBufferStore(const BufferStore& op, const Stmt&) {
  visitExpr(op.value);
  for (const auto& i : op.indices) visitExpr(i);
}

void StmtVisitor::visitSeqStmt(const SeqStmt& op, const Stmt&) {
  for (const auto& s : op.seq) visitStmt(s);
}

void StmtVisitor::visitIfThenElse(const IfThenElse& op, const Stmt&) {
  visitExpr(op.condition);
  visitStmt(op.thenCase);
  if (op.elseCase.defined()) visitStmt(op.elseCase);
}

void StmtVisitor::visitEvaluate(const Evaluate& op, const Stmt&) { visitExpr(op.value); }
void StmtVisitor::visitAssume(const Assume& op, const Stmt&) { visitExpr(op.condition); }

void StmtVisitor::visitLetStmt(const LetStmt& op, const Stmt&) {
  visitExpr(op.var);
  visitExpr(op.value);
  visitStmt(op.body);
}

void StmtVisitor::visitAllocate(const Allocate& op, const Stmt&) { visitStmt(op.body); }

bool usesVar(const Expr& e, const Expr& var) {
  bool found = false;
  forEachExpr(e, [&](const Expr& sub) { found = found || sub.sameAs(var); });
  return found;
}

} // namespace loopscape::ir
