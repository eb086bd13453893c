#include "core/schedule/primitive/region.h"

#include "core/schedule/primitive/util.h"

#include "core/ir/op.h"
#include "core/ir/structural_equal.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::schedule::detail {

namespace {

bool usesRelaxed(const ir::Expr& e, const RelaxMap& relax) {
  bool found = false;
  ir::forEachExpr(e, [&](const ir::Expr& sub) {
    if (sub.is<ir::Var>() && relax.contains(sub.get())) found = true;
  });
  return found;
}

std::optional<std::int64_t> positiveConst(const ir::Expr& e) {
  auto v = ir::asConstInt(e);
  if (v && *v > 0) return v;
  return std::nullopt;
}

} // namespace

std::optional<Interval> evalInterval(const ir::Expr& e, const RelaxMap& relax) {
  if (!usesRelaxed(e, relax)) return Interval{e, e};
  if (e.is<ir::Var>()) {
    const ir::Range& r = relax.at(e.get());
    auto lo = evalInterval(r.min, relax);
    auto hi = evalInterval(r.min + r.extent - 1, relax);
    if (!lo || !hi) return std::nullopt;
    return Interval{lo->min, hi->max};
  }
  auto binary = [&](const ir::Expr& a, const ir::Expr& b) -> std::optional<std::pair<Interval, Interval>> {
    auto x = evalInterval(a, relax);
    auto y = evalInterval(b, relax);
    if (!x || !y) return std::nullopt;
    return std::pair{*x, *y};
  };
  if (const auto* op = e.as<ir::Add>()) {
    auto p = binary(op->a, op->b);
    if (!p) return std::nullopt;
    return Interval{p->first.min + p->second.min, p->first.max + p->second.max};
  }
  if (const auto* op = e.as<ir::Sub>()) {
    auto p = binary(op->a, op->b);
    if (!p) return std::nullopt;
    return Interval{p->first.min - p->second.max, p->first.max - p->second.min};
  }
  if (const auto* op = e.as<ir::Mul>()) {
    const ir::Expr* var = &op->a;
    auto c = ir::asConstInt(op->b);
    if (!c) {
      c = ir::asConstInt(op->a);
      var = &op->b;
    }
    if (!c) return std::nullopt;
    auto x = evalInterval(*var, relax);
    if (!x) return std::nullopt;
    if (*c >= 0) return Interval{x->min * *c, x->max * *c};
    return Interval{x->max * *c, x->min * *c};
  }
  if (const auto* op = e.as<ir::FloorDiv>()) {
    auto c = positiveConst(op->b);
    auto x = c ? evalInterval(op->a, relax) : std::nullopt;
    if (!x) return std::nullopt;
    return Interval{ir::floordiv(x->min, *c), ir::floordiv(x->max, *c)};
  }
  if (const auto* op = e.as<ir::FloorMod>()) {
    auto c = positiveConst(op->b);
    if (!c || !evalInterval(op->a, relax)) return std::nullopt;
    return Interval{ir::intImm(0, e.dtype()), ir::intImm(*c - 1, e.dtype())};
  }
  if (const auto* op = e.as<ir::Min>()) {
    auto p = binary(op->a, op->b);
    if (!p) return std::nullopt;
    return Interval{ir::min(p->first.min, p->second.min), ir::min(p->first.max, p->second.max)};
  }
  if (const auto* op = e.as<ir::Max>()) {
    auto p = binary(op->a, op->b);
    if (!p) return std::nullopt;
    return Interval{ir::max(p->first.min, p->second.min), ir::max(p->first.max, p->second.max)};
  }
  return std::nullopt;
}

RelaxMap loopDomainsBetween(const TreeNode& node, const TreeNode* ancestor) {
  RelaxMap map;
  for (const TreeNode* p = node.parent; p && p != ancestor && !p->isBlock(); p = p->parent)
    map[p->loop()->loopVar.get()] = {p->loop()->min, p->loop()->extent};
  return map;
}

ir::VarMap bindingsOf(const TreeNode& block) {
  ir::VarMap map;
  const auto* realize = block.realize.as<ir::BlockRealize>();
  if (!realize) return map;
  const auto& ivs = block.block()->iterVars;
  for (std::size_t k = 0; k < ivs.size() && k < realize->iterValues.size(); ++k)
    map[ivs[k].var.get()] = realize->iterValues[k];
  return map;
}

std::vector<Interval> relaxRegion(const ir::BufferRegion& region, const ir::VarMap& bindings, const RelaxMap& relax) {
  std::vector<Interval> out;
  for (std::size_t d = 0; d < region.region.size(); ++d) {
    const ir::Range& r = region.region[d];
    const ir::Expr lo = ir::substitute(r.min, bindings);
    std::optional<Interval> iv;
    if (ir::isConstInt(r.extent, 1)) {
      iv = evalInterval(lo, relax);
    } else {
      auto a = evalInterval(lo, relax);
      auto b = evalInterval(ir::substitute(r.min + r.extent - 1, bindings), relax);
      if (a && b) iv = Interval{a->min, b->max};
    }
    if (!iv) {
      const ir::Expr& dim = region.buffer->shape[d];
      iv = Interval{ir::intImm(0, dim.dtype()), dim - 1};
    }
    out.push_back(*iv);
  }
  return out;
}

ir::Expr minOf(const ir::Expr& a, const ir::Expr& b, const ir::Analyzer& analyzer) {
  if (ir::structuralEqual(a, b) || analyzer.canProve(a <= b)) return a;
  if (analyzer.canProve(b <= a)) return b;
  return analyzer.simplify(ir::min(a, b));
}
ir::Expr maxOf(const ir::Expr& a, const ir::Expr& b, const ir::Analyzer& analyzer) {
  if (ir::structuralEqual(a, b) || analyzer.canProve(a >= b)) return a;
  if (analyzer.canProve(b >= a)) return b;
  return analyzer.simplify(ir::max(a, b));
}

std::vector<Interval> hull(const std::vector<Interval>& a, const std::vector<Interval>& b,
                           const ir::Analyzer& analyzer) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  std::vector<Interval> out;
  for (std::size_t d = 0; d < a.size(); ++d)
    out.push_back({minOf(a[d].min, b[d].min, analyzer), maxOf(a[d].max, b[d].max, analyzer)});
  return out;
}

ir::Analyzer analyzerInside(const TreeNode& node) {
  ir::Analyzer analyzer = analyzerAt(node);
  if (const auto* f = node.loop()) analyzer.bind(f->loopVar, {f->min, f->extent});
  return analyzer;
}

std::optional<std::vector<ir::Range>> accessRegionUnder(const IrTree& tree, const TreeNode& loop,
                                                        const ir::Buffer& buffer, Access access) {
  const ir::Analyzer analyzer = analyzerInside(loop);
  const TreeNode* scope = tree.scopeBlock(loop);
  std::vector<Interval> acc;
  bool found = false;
  for (const TreeNode* b : tree.childBlocks(loop)) {
    if (tree.scopeBlock(*b) != scope) continue;
    const auto& regions = access == Access::Read ? b->block()->reads : b->block()->writes;
    for (const auto& r : regions) {
      if (!r.buffer.sameAs(buffer)) continue;
      auto relaxed = relaxRegion(r, bindingsOf(*b), loopDomainsBetween(*b, &loop));
      for (auto& iv : relaxed) iv = {analyzer.simplify(iv.min), analyzer.simplify(iv.max)};
      acc = hull(acc, relaxed, analyzer);
      found = true;
    }
  }
  if (!found) return std::nullopt;
  std::vector<ir::Range> out;
  for (const auto& iv : acc) out.push_back({iv.min, analyzer.simplify(iv.max - iv.min + 1)});
  return out;
}

// ---------------------------------------------------------------------------- dataflow

bool touches(const std::vector<ir::BufferRegion>& regions, const ir::BufferNode* buffer) {
  return std::any_of(regions.begin(), regions.end(), [&](const auto& r) { return r.buffer.get() == buffer; });
}

std::vector<const TreeNode*> producersOf(const IrTree& tree, const TreeNode& block) {
  std::vector<const TreeNode*> out;
  const auto siblings = tree.childBlocks(*tree.scopeBlock(block));
  const ir::Block& self = *block.block();
  for (const TreeNode* s : siblings) {
    if (s == &block) break;
    bool dep = false;
    for (const auto& w : s->block()->writes)
      dep |= touches(self.reads, w.buffer.get()) || touches(self.writes, w.buffer.get());
    if (dep) out.push_back(s);
  }
  return out;
}

std::vector<const TreeNode*> consumersOf(const IrTree& tree, const TreeNode& block) {
  std::vector<const TreeNode*> out;
  const auto siblings = tree.childBlocks(*tree.scopeBlock(block));
  const ir::Block& self = *block.block();
  auto it = std::find(siblings.begin(), siblings.end(), &block);
  for (++it; it < siblings.end(); ++it) {
    bool dep = false;
    for (const auto& w : self.writes)
      dep |= touches((*it)->block()->reads, w.buffer.get()) || touches((*it)->block()->writes, w.buffer.get());
    if (dep) out.push_back(*it);
  }
  return out;
}

namespace {
const TreeNode* lowestCommonAncestor(const TreeNode* a, const TreeNode* b) {
  std::vector<const TreeNode*> chain;
  for (const TreeNode* p = a; p; p = p->parent) chain.push_back(p);
  for (const TreeNode* p = b; p; p = p->parent)
    if (std::find(chain.begin(), chain.end(), p) != chain.end()) return p;
  return nullptr;
}
} // namespace

std::optional<Violation> stagePipelineViolation(const IrTree& tree, const TreeNode& scope) {
  const auto siblings = tree.childBlocks(scope);
  // No write-after-read: a later block writing what an earlier one reads.
  for (std::size_t j = 0; j < siblings.size(); ++j) {
    for (const auto& w : siblings[j]->block()->writes) {
      for (std::size_t i = 0; i < j; ++i) {
        if (touches(siblings[i]->block()->reads, w.buffer.get()))
          return Violation{fmt::format("block '{}' writes '{}' after block '{}' reads it (a write-after-read "
                                       "dependency)",
                                       siblings[j]->block()->name, w.buffer->name, siblings[i]->block()->name),
                           {siblings[i]->block()->name, siblings[j]->block()->name}};
      }
    }
  }
  // Region cover: what a block reads of a buffer produced in the scope is produced
  // before it, compared at the lowest common ancestor of the consumer and its producers.
  for (std::size_t j = 0; j < siblings.size(); ++j) {
    const TreeNode* consumer = siblings[j];
    for (const auto& r : consumer->block()->reads) {
      std::vector<const TreeNode*> producers;
      for (std::size_t i = 0; i < j; ++i)
        if (touches(siblings[i]->block()->writes, r.buffer.get())) producers.push_back(siblings[i]);
      if (producers.empty()) continue;
      const TreeNode* lca = consumer;
      for (const TreeNode* p : producers) lca = lowestCommonAncestor(lca, p);
      if (lca == consumer) lca = consumer->parent;
      const ir::Analyzer analyzer = analyzerInside(*lca);
      auto consumed = relaxRegion(r, bindingsOf(*consumer), loopDomainsBetween(*consumer, lca));
      std::vector<Interval> produced;
      for (const TreeNode* p : producers)
        for (const auto& w : p->block()->writes)
          if (w.buffer.sameAs(r.buffer))
            produced = hull(produced, relaxRegion(w, bindingsOf(*p), loopDomainsBetween(*p, lca)), analyzer);
      for (std::size_t d = 0; d < consumed.size(); ++d) {
        // What lies outside the buffer is never read by a correct program: clip to it.
        const ir::Expr zero = ir::intImm(0, r.buffer->shape[d].dtype());
        const ir::Expr lo = ir::max(consumed[d].min, zero);
        const ir::Expr hi = ir::min(consumed[d].max, r.buffer->shape[d] - 1);
        if (!analyzer.canProve(produced[d].min <= lo) || !analyzer.canProve(hi <= produced[d].max)) {
          std::vector<std::string> names{consumer->block()->name};
          for (const TreeNode* p : producers) names.push_back(p->block()->name);
          return Violation{fmt::format("the region of '{}' that block '{}' reads is not covered by what {} "
                                       "writes before it (region cover)",
                                       r.buffer->name, consumer->block()->name,
                                       producers.size() == 1
                                           ? fmt::format("block '{}'", producers.front()->block()->name)
                                           : std::string("its producers")),
                           names};
        }
      }
    }
  }
  return std::nullopt;
}

namespace {
bool isQuasiAffine(const ir::Expr& e) {
  if (e.is<ir::IntImm>() || e.is<ir::Var>()) return true;
  if (const auto* op = e.as<ir::Add>()) return isQuasiAffine(op->a) && isQuasiAffine(op->b);
  if (const auto* op = e.as<ir::Sub>()) return isQuasiAffine(op->a) && isQuasiAffine(op->b);
  if (const auto* op = e.as<ir::Mul>())
    return (op->a.is<ir::IntImm>() && isQuasiAffine(op->b)) || (op->b.is<ir::IntImm>() && isQuasiAffine(op->a));
  if (const auto* op = e.as<ir::FloorDiv>()) return positiveConst(op->b) && isQuasiAffine(op->a);
  if (const auto* op = e.as<ir::FloorMod>()) return positiveConst(op->b) && isQuasiAffine(op->a);
  return false;
}

std::optional<std::string> otherWriter(const ir::Block& block, const std::vector<const TreeNode*>& siblings) {
  for (const auto& w : block.writes)
    for (const auto* other : siblings)
      if (other->block() != &block && touches(other->block()->writes, w.buffer.get()))
        return fmt::format("it is not the only writer of '{}' in its scope (block '{}' writes it too)",
                           w.buffer->name, other->block()->name);
  return std::nullopt;
}
} // namespace

std::optional<std::string> completeViolation(const ir::Block& block, const std::vector<const TreeNode*>& siblings) {
  for (const auto& iv : block.iterVars)
    if (iv.kind != ir::IterKind::Spatial)
      return fmt::format("it has the {} iterator '{}'", ir::iterKindName(iv.kind), iv.var.as<ir::Var>()->name);
  if (auto why = otherWriter(block, siblings)) return why;
  for (const auto& r : block.reads)
    if (touches(block.writes, r.buffer.get()))
      return fmt::format("it reads the buffer '{}' that it writes", r.buffer->name);
  return std::nullopt;
}

std::optional<std::string> completeOrReductionViolation(const ir::Block& block,
                                                        const std::vector<const TreeNode*>& siblings,
                                                        const ir::BlockRealize* realize) {
  bool hasReduce = false;
  for (const auto& iv : block.iterVars) hasReduce |= iv.kind == ir::IterKind::Reduce;
  if (!hasReduce) return completeViolation(block, siblings);
  for (const auto& iv : block.iterVars)
    if (iv.kind != ir::IterKind::Spatial && iv.kind != ir::IterKind::Reduce)
      return fmt::format("it has the {} iterator '{}'", ir::iterKindName(iv.kind), iv.var.as<ir::Var>()->name);
  if (!block.init.defined()) return "it has reduce iterators but no init statement";
  if (realize)
    for (const auto& v : realize->iterValues)
      if (!isQuasiAffine(v)) return "its bindings are not quasi-affine";
  if (auto why = otherWriter(block, siblings)) return why;
  std::vector<const ir::ExprNode*> reduceVars;
  for (const auto& iv : block.iterVars)
    if (iv.kind == ir::IterKind::Reduce) reduceVars.push_back(iv.var.get());
  for (const auto& w : block.writes)
    for (const auto& range : w.region)
      if (usesAnyVar(range.min, reduceVars) || usesAnyVar(range.extent, reduceVars))
        return fmt::format("a reduce iterator indexes its output '{}'", w.buffer->name);
  return std::nullopt;
}

std::optional<Violation> compactDataflowViolation(const IrTree& tree, const TreeNode& scope) {
  const auto children = tree.childBlocks(scope);
  for (const TreeNode* c : children) {
    if (auto why = completeOrReductionViolation(*c->block(), children, c->realize.as<ir::BlockRealize>()))
      return Violation{fmt::format("block '{}' is neither a complete block nor a reduction block: {}",
                                   c->block()->name, *why),
                       {c->block()->name}};
  }
  return std::nullopt;
}

namespace {
/// Buffer accesses in TVM's visiting order: a store's value, then its indices. A nested
/// block contributes its declared regions with its bindings substituted and the loops
/// between it and the collected block relaxed (TVM relaxes nested blocks' regions the
/// same way); its own allocations are not accesses of the outer block.
struct AccessCollector final : ir::StmtVisitor {
  struct Entry {
    ir::Buffer buffer;
    std::vector<std::vector<Interval>> accesses; ///< per access, [min, max] per dimension
  };
  std::vector<Entry> reads, writes;
  RelaxMap loops; ///< loops between the collected block and the current statement

  static void add(std::vector<Entry>& list, const ir::Buffer& b, const std::vector<Interval>& region) {
    auto it = std::find_if(list.begin(), list.end(), [&](const Entry& e) { return e.buffer.sameAs(b); });
    if (it == list.end()) {
      list.push_back({b, {region}});
      return;
    }
    for (const auto& seen : it->accesses) {
      bool same = seen.size() == region.size();
      for (std::size_t k = 0; same && k < seen.size(); ++k)
        same = ir::structuralEqual(seen[k].min, region[k].min) && ir::structuralEqual(seen[k].max, region[k].max);
      if (same) return;
    }
    it->accesses.push_back(region);
  }
  static std::vector<Interval> points(const std::vector<ir::Expr>& indices) {
    std::vector<Interval> out;
    for (const auto& i : indices) out.push_back({i, i});
    return out;
  }
  void visitExpr(const ir::Expr& e) override {
    if (const auto* load = e.as<ir::BufferLoad>()) add(reads, load->buffer, relaxed(load->indices));
    ir::ExprVisitor::visitExpr(e);
  }
  void visitBufferStore(const ir::BufferStore& op, const ir::Stmt&) override {
    add(writes, op.buffer, relaxed(op.indices));
    visitExpr(op.value);
    for (const auto& i : op.indices) visitExpr(i);
  }
  void visitFor(const ir::For& op, const ir::Stmt& self) override {
    loops[op.loopVar.get()] = {op.min, op.extent};
    ir::StmtVisitor::visitFor(op, self);
    loops.erase(op.loopVar.get());
  }
  void visitBlockRealize(const ir::BlockRealize& op, const ir::Stmt&) override {
    const ir::Block& nested = op.blockNode();
    ir::VarMap bindings;
    for (std::size_t k = 0; k < nested.iterVars.size() && k < op.iterValues.size(); ++k)
      bindings[nested.iterVars[k].var.get()] = op.iterValues[k];
    auto local = [&](const ir::Buffer& b) {
      return std::any_of(nested.allocBuffers.begin(), nested.allocBuffers.end(),
                         [&](const ir::Buffer& a) { return a.sameAs(b); });
    };
    for (const auto& r : nested.reads)
      if (!local(r.buffer)) add(reads, r.buffer, relaxRegion(r, bindings, loops));
    for (const auto& w : nested.writes)
      if (!local(w.buffer)) add(writes, w.buffer, relaxRegion(w, bindings, loops));
  }

private:
  /// Direct accesses below loops of the collected block are relaxed over them too.
  std::vector<Interval> relaxed(const std::vector<ir::Expr>& indices) const {
    if (loops.empty()) return points(indices);
    std::vector<Interval> out;
    for (const auto& i : indices) {
      auto iv = evalInterval(i, loops);
      out.push_back(iv ? *iv : Interval{i, i});
    }
    return out;
  }
};

ir::BufferRegion regionOf(const AccessCollector::Entry& e, const ir::Analyzer& analyzer) {
  ir::BufferRegion out{e.buffer, {}};
  for (std::size_t d = 0; d < e.accesses.front().size(); ++d) {
    ir::Expr lo = analyzer.simplify(e.accesses.front()[d].min), hi = analyzer.simplify(e.accesses.front()[d].max);
    if (ir::structuralEqual(e.accesses.front()[d].min, e.accesses.front()[d].max)) {
      lo = e.accesses.front()[d].min;
      hi = lo;
    }
    for (std::size_t a = 1; a < e.accesses.size(); ++a) {
      lo = minOf(lo, e.accesses[a][d].min, analyzer);
      hi = maxOf(hi, e.accesses[a][d].max, analyzer);
    }
    out.region.push_back({lo, ir::structuralEqual(lo, hi) ? ir::intImm(1, lo.dtype())
                                                          : analyzer.simplify(hi - lo + 1)});
  }
  return out;
}
} // namespace

std::pair<std::vector<ir::BufferRegion>, std::vector<ir::BufferRegion>> accessRegionsOfBody(const ir::Block& block) {
  AccessCollector c;
  if (block.init.defined()) c(block.init);
  c(block.body);
  ir::Analyzer analyzer;
  for (const auto& iv : block.iterVars) analyzer.bind(iv.var, iv.dom);
  std::vector<ir::BufferRegion> reads, writes;
  for (const auto& w : c.writes) writes.push_back(regionOf(w, analyzer));
  for (const auto& r : c.reads) {
    if (std::any_of(c.writes.begin(), c.writes.end(), [&](const auto& w) { return w.buffer.sameAs(r.buffer); }))
      continue;
    reads.push_back(regionOf(r, analyzer));
  }
  return {reads, writes};
}

} // namespace loopscape::schedule::detail
