#include "core/schedule/primitive/util.h"

#include "core/schedule/schedule_error.h"

#include "core/ir/checked_arith.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/simplify.h"
#include "core/ir/substitute.h"
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

bool isSum(const ir::Expr& e) { return e.is<ir::Add>() || e.is<ir::Sub>(); }

/// A binding in the form TVM's iterator-map simplification leaves it: the analyzer's
/// canonical form, except that a floordiv/floormod of a sum of loop terms (a split of a
/// fused loop: TVM's IterSplit of a fused IterMark) is kept rather than distributed, and
/// `x // c1 % c2` is written `x % (c1 * c2) // c1`. Both forms have the same value.
class BindingForm final : public ir::ExprMutator {
public:
  explicit BindingForm(ir::Analyzer& analyzer) : m_analyzer(analyzer) {}

  ir::Expr operator()(const ir::Expr& v) {
    ir::Expr opaque = mutate(v);
    if (m_kept.empty()) return m_analyzer.simplify(v);
    ir::Expr simplified = m_analyzer.simplify(opaque);
    // A kept value may hold placeholders kept before it (a nested floordiv of a sum):
    // put the values back latest first, so each substitution uncovers only earlier ones.
    ir::Expr out = simplified;
    for (auto it = m_kept.rbegin(); it != m_kept.rend(); ++it)
      out = ir::substitute(out, ir::VarMap{{it->first.get(), it->second}});
    for (const auto& kept : m_kept)
      m_analyzer.unbind(kept.first);
    m_kept.clear();
    return out;
  }

protected:
  // Each kept floordiv/floormod of a sum becomes a placeholder variable bound to its
  // range, so that the analyzer treats it as one term.
  ir::Expr visitFloorDiv(const ir::FloorDiv& op, const ir::Expr& self) override { return divMod(self, op.a, op.b); }
  ir::Expr visitFloorMod(const ir::FloorMod& op, const ir::Expr& self) override { return divMod(self, op.a, op.b); }

private:
  ir::Expr divMod(const ir::Expr& e, const ir::Expr& a, const ir::Expr& b) {
    const bool div = e.is<ir::FloorDiv>();
    const auto c = ir::asConstInt(b);
    // (x // c1) % c2 where x // c1 may reach c2: x % (c1 * c2) // c1.
    if (const auto* d = a.as<ir::FloorDiv>(); !div && c && *c > 0 && d) {
      const auto c1 = ir::asConstInt(d->b);
      ir::Expr x = m_analyzer.simplify(mutate(d->a));
      if (c1 && *c1 > 0 && m_analyzer.bound(ir::floordiv(x, d->b)).max.value_or(*c) >= *c)
        return keep(ir::floordiv(ir::floormod(x, ir::makeConst(b.dtype(), *c1 * *c)), d->b));
    }
    ir::Expr inner = m_analyzer.simplify(mutate(a));
    auto make = [&](const ir::Expr& x) { return div ? ir::floordiv(x, b) : ir::floormod(x, b); };
    if (!c || *c <= 0) return make(inner);
    if (!isSum(inner)) return make(inner);
    const ir::IntBound range = m_analyzer.bound(inner);
    if (range.min && *range.min >= 0 && range.max && *range.max < *c) // decided by the bounds
      return div ? ir::makeConst(e.dtype(), 0) : inner;
    return keep(make(inner));
  }

  ir::Expr keep(const ir::Expr& value) {
    ir::Expr placeholder = ir::Var::make("kept" + std::to_string(m_kept.size()), value.dtype());
    m_analyzer.bindBound(placeholder, m_analyzer.bound(value));
    m_kept.emplace_back(placeholder, value);
    return placeholder;
  }

  ir::Analyzer& m_analyzer;
  std::vector<std::pair<ir::Expr, ir::Expr>> m_kept;
};

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
      values.push_back(v.is<ir::Var>() ? v : BindingForm(m_analyzer)(v));
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
