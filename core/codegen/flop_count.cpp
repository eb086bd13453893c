#include "core/codegen/flop_count.h"

#include "core/ir/simplify.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <algorithm>
#include <fmt/format.h>

namespace loopscape::codegen {

namespace {

using namespace loopscape::ir;

/// Counts the operations of a stored value; does not descend into load indices.
class ValueOpCounter final : public ExprVisitor {
public:
  double flops = 0;
  double intOps = 0;

  void count(const Expr& e, double n) {
    if (e.dtype().isFloat())
      flops += n * e.dtype().lanes();
    else if (e.dtype().isInteger())
      intOps += n * e.dtype().lanes();
  }
  /// Comparisons are typed bool; what they compare decides float or integer.
  void countCompare(const Expr& operand) {
    if (operand.dtype().isFloat())
      flops += operand.dtype().lanes();
    else if (operand.dtype().isInteger())
      intOps += operand.dtype().lanes();
  }

protected:
#define LS_ARITH(name)                                                                    \
  void visit##name(const name& op, const Expr& self) override {                           \
    count(self, 1);                                                                       \
    ExprVisitor::visit##name(op, self);                                                   \
  }
  LS_ARITH_BINARY_KINDS(LS_ARITH)
#undef LS_ARITH
#define LS_CMP(name)                                                                      \
  void visit##name(const name& op, const Expr& self) override {                           \
    countCompare(op.a);                                                                   \
    ExprVisitor::visit##name(op, self);                                                   \
  }
  LS_COMPARE_KINDS(LS_CMP)
#undef LS_CMP
  void visitCall(const Call& op, const Expr& self) override {
    count(self, op.op == CallOp::Fma ? 2 : 1);
    ExprVisitor::visitCall(op, self);
  }
  void visitBufferLoad(const BufferLoad&, const Expr&) override {}
  void visitRamp(const Ramp&, const Expr&) override {}
};

class InstanceCounter {
public:
  explicit InstanceCounter(FlopCount& out) : m_out(out) {}

  void stmt(const Stmt& s, double mult, const std::string& block, bool init) {
    if (const auto* op = s.as<For>()) {
      const double extent = extentOf(op->extent, fmt::format("loop '{}'", op->loopVar.as<Var>()->name));
      m_analyzer.bind(op->loopVar, Range::fromMinExtent(op->min, op->extent));
      stmt(op->body, mult * extent, block, init);
      m_analyzer.unbind(op->loopVar);
      return;
    }
    if (const auto* op = s.as<BlockRealize>()) {
      const Block& b = op->blockNode();
      double domain = 1, reduce = 1;
      for (const auto& iv : b.iterVars) {
        const double e = extentOf(iv.dom.extent, fmt::format("iterator '{}' of block '{}'", iv.var.as<Var>()->name, b.name));
        domain *= e;
        if (iv.kind == IterKind::Reduce) reduce *= e;
        m_analyzer.bind(iv.var, iv.dom);
      }
      double instances = mult;
      const Expr pred = m_analyzer.simplify(op->predicate);
      if (!isConstInt(pred, 1) && b.name != "root") {
        instances = std::min(mult, domain);
        m_out.notes.push_back(fmt::format("block '{}' has a predicate: counted as min(loop iterations {:.0f}, iterator "
                                          "domain {:.0f}) = {:.0f} instances",
                                          b.name, mult, domain, instances));
      }
      if (b.init.defined()) stmt(b.init, reduce > 0 ? instances / reduce : 0, b.name, true);
      stmt(b.body, instances, b.name, init);
      for (const auto& iv : b.iterVars) m_analyzer.unbind(iv.var);
      return;
    }
    if (const auto* op = s.as<BufferStore>()) {
      const auto [flops, intOps] = countValueOps(op->value);
      m_out.statements.push_back({block, op->buffer->name, init, mult, flops, intOps});
      m_out.flops += flops * mult;
      m_out.intOps += intOps * mult;
      m_out.instances += mult;
      return;
    }
    if (const auto* op = s.as<SeqStmt>()) {
      for (const auto& c : op->seq) stmt(c, mult, block, init);
      return;
    }
    if (const auto* op = s.as<IfThenElse>()) {
      noteInexact("an if-then-else outside blocks: both branches counted at the full count (an upper bound)");
      stmt(op->thenCase, mult, block, init);
      if (op->elseCase.defined()) stmt(op->elseCase, mult, block, init);
      return;
    }
    if (const auto* op = s.as<LetStmt>()) {
      stmt(op->body, mult, block, init);
      return;
    }
    if (const auto* op = s.as<Allocate>()) {
      stmt(op->body, mult, block, init);
      return;
    }
    if (const auto* op = s.as<Block>()) {
      stmt(op->body, mult, op->name, init);
      return;
    }
    // Evaluate: no stored value, no work.
  }

private:
  double extentOf(const Expr& extent, const std::string& what) {
    const Expr simplified = m_analyzer.simplify(extent);
    if (auto c = asConstInt(simplified)) return static_cast<double>(std::max<std::int64_t>(*c, 0));
    const IntBound b = m_analyzer.bound(simplified);
    if (b.max) {
      noteInexact(fmt::format("{} has a non-constant extent; counted at its upper bound {}", what, *b.max));
      return static_cast<double>(std::max<std::int64_t>(*b.max, 0));
    }
    noteInexact(fmt::format("{} has an unbounded extent; counted as 1", what));
    return 1;
  }
  void noteInexact(std::string note) {
    m_out.exact = false;
    if (std::find(m_out.notes.begin(), m_out.notes.end(), note) == m_out.notes.end())
      m_out.notes.push_back(std::move(note));
  }

  FlopCount& m_out;
  Analyzer m_analyzer;
};

} // namespace

std::pair<double, double> countValueOps(const ir::Expr& value) {
  ValueOpCounter c;
  c(value);
  return {c.flops, c.intOps};
}

Expected<FlopCount> countFlops(const ir::PrimFunc& func, const ir::SizeBindings& sizes) {
  ir::VarMap map;
  for (const auto& v : func.sizeVars()) {
    const auto* var = v.as<ir::Var>();
    auto it = sizes.find(var->name);
    if (it == sizes.end())
      return Unexpected(Diagnostic::error(
          "flops.unbound-size", fmt::format("cannot count operations: symbolic size '{}' is not bound", var->name)));
    map[v.get()] = ir::intImm(it->second, v.dtype());
  }
  FlopCount out;
  InstanceCounter counter(out);
  counter.stmt(map.empty() ? func.body : ir::substitute(func.body, map), 1, "", false);
  return out;
}

Expected<double> compulsoryBytes(const ir::PrimFunc& func, const ir::SizeBindings& sizes) {
  double bytes = 0;
  for (const auto& p : func.params) {
    auto shape = ir::evalShape(p, sizes);
    if (!shape) return Unexpected(shape.error());
    double n = p->dtype.bytes();
    for (auto e : *shape) n *= static_cast<double>(e);
    bytes += n;
  }
  return bytes;
}

} // namespace loopscape::codegen
