#include "core/schedule/primitive/util.h"

#include "core/schedule/schedule_error.h"

#include "core/ir/checked_arith.h"
#include "core/ir/mutator.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace loopscape::schedule::detail {

const std::string& loopName(const TreeNode& loop) { return loop.loop()->loopVar.as<ir::Var>()->name; }

std::int64_t maxOfType(ir::DataType t) {
  return t.bits() >= 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (t.bits() - 1)) - 1;
}

Expected<void> checkFitsLoopType(std::int64_t value, const TreeNode& loop, std::string_view prim,
                                 std::string_view what) {
  const ir::DataType t = loop.loop()->loopVar.dtype();
  if (ir::fitsSignedBits(value, t.bits())) return {};
  return Unexpected(scheduleError(prim, "too-large",
                                  fmt::format("{} {} of loop '{}' does not fit {} (the loop's type); use a value of "
                                              "at most {}",
                                              what, value, loopName(loop), t.str(), maxOfType(t)),
                                  {loopRef(loopName(loop))}));
}

ir::Analyzer analyzerAt(const TreeNode& node) {
  ir::Analyzer analyzer;
  for (const TreeNode* p = node.parent; p; p = p->parent) {
    if (const auto* loop = p->loop()) {
      analyzer.bind(loop->loopVar, {loop->min, loop->extent});
    } else {
      for (const auto& iv : p->block()->iterVars) analyzer.bind(iv.var, iv.dom);
    }
  }
  return analyzer;
}

namespace {
class BindingSimplifier final : public ir::StmtMutator {
public:
  explicit BindingSimplifier(ir::Analyzer analyzer) : m_analyzer(std::move(analyzer)) {}
  ir::Expr visitExpr(const ir::Expr& e) override { return e; }

protected:
  ir::Stmt visitFor(const ir::For& op, const ir::Stmt& self) override {
    m_analyzer.bind(op.loopVar, {op.min, op.extent});
    return StmtMutator::visitFor(op, self);
  }
  ir::Stmt visitBlockRealize(const ir::BlockRealize& op, const ir::Stmt& self) override {
    std::vector<ir::Expr> values;
    bool changed = false;
    for (const auto& v : op.iterValues) {
      // A binding that is a loop variable stays one, as in TVM: the loop of a unit
      // extent keeps `T.axis.spatial(1, nn)` rather than becoming the constant 0.
      values.push_back(v.is<ir::Var>() ? v : m_analyzer.simplify(v));
      changed |= !values.back().sameAs(v);
    }
    ir::Expr pred = m_analyzer.simplify(op.predicate);
    changed |= !pred.sameAs(op.predicate);
    const auto& block = op.blockNode();
    for (const auto& iv : block.iterVars) m_analyzer.bind(iv.var, iv.dom);
    ir::Stmt newBlock = mutate(op.block);
    if (!changed && newBlock.sameAs(op.block)) return self;
    return ir::BlockRealize::make(std::move(values), std::move(pred), std::move(newBlock));
  }

private:
  ir::Analyzer m_analyzer;
};
} // namespace

ir::Stmt simplifyBindings(const ir::Stmt& s, ir::Analyzer analyzer) {
  BindingSimplifier simplifier(std::move(analyzer));
  return simplifier.mutate(s);
}

ir::PrimFunc replaced(const Schedule& sch, const ir::StmtNode* target, const ir::Stmt& replacement) {
  ir::PrimFunc f = sch.func();
  f.body = replaceStmt(f.body, target, replacement);
  return f;
}

bool usesAnyVar(const ir::Expr& e, const std::vector<const ir::ExprNode*>& vars) {
  bool found = false;
  ir::forEachExpr(e, [&](const ir::Expr& sub) {
    if (sub.is<ir::Var>() && std::find(vars.begin(), vars.end(), sub.get()) != vars.end()) found = true;
  });
  return found;
}

std::vector<const ir::BlockRealize*> realizesBelow(const ir::Stmt& s) {
  struct Collector final : ir::StmtVisitor {
    std::vector<const ir::BlockRealize*> out;
    void visitExpr(const ir::Expr&) override {}
    void visitBlockRealize(const ir::BlockRealize& op, const ir::Stmt& self) override {
      out.push_back(&op);
      StmtVisitor::visitBlockRealize(op, self);
    }
  } c;
  c(s);
  return c.out;
}

} // namespace loopscape::schedule::detail
