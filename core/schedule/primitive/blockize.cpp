// blockize(target, preserve_unit_iters=True) -> the outer block (TVM's tir.Schedule.blockize
// of a loop).
//
// The subtree under the loop `target` (loops around exactly one block) becomes an outer
// block `<name>_o` whose body is that subtree. Every binding of the block is divided into
// an outer part (over the loops above `target`) and an inner part (over `target` and the
// loops below it): binding = outer * inner_extent + inner. The outer block gets one
// iterator `<v>_o` per block iterator (extent of the outer part, bound to it); the inner
// block keeps its name and gets `<v>_i` for each iterator with an inner part of extent > 1;
// the block's uses of `v` become `v_o * inner_extent + v_i` (or just one of them). The
// outer block's regions are the inner regions relaxed over the inner iterators, clipped
// to the buffer (a guarded padding access relaxes to indices outside it). A
// reduction's init moves to the outer block's init as a block `<name>_init` under copies
// of the inner loops its data-parallel bindings use; the inner block loses its init and
// reads what it writes.
//
// Preconditions:
//   1. `target` is a loop (blockizing a list of blocks is not supported)  (bad-arguments)
//   2. the loops from `target` down form one chain around exactly one block
//                                                                      (not-single-block)
//   3. every binding is divisible by the inner loop subspace: its terms over inner loops
//      are `c * l` with the coefficients forming a mixed radix starting at 1 (so the inner
//      part covers [0, E) exactly), its other terms are multiples of E, the iterator's
//      extent is a multiple of E; each predicate conjunct mentions only inner or only
//      outer loops                                                       (not-divisible)
#include "core/schedule/primitive/blockize_layout_detail.h"
#include "core/schedule/primitive/buffer_util.h"
#include "core/schedule/primitive/region.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::schedule::detail {

namespace {

constexpr std::string_view kBlockizePrim = "blockize";

struct Division {
  ir::Expr outer, inner;           ///< the two parts (inner undefined when unit)
  ir::Expr outerExtent, innerExtent;
};

void signedTerms(const ir::Expr& e, bool negate, std::vector<std::pair<ir::Expr, bool>>& out) {
  if (const auto* a = e.as<ir::Add>()) {
    signedTerms(a->a, negate, out);
    signedTerms(a->b, negate, out);
  } else if (const auto* s = e.as<ir::Sub>()) {
    signedTerms(s->a, negate, out);
    signedTerms(s->b, !negate, out);
  } else {
    out.emplace_back(e, negate);
  }
}

/// `c * v` / `v * c` / `v` with a constant c: (v, c).
std::optional<std::pair<ir::Expr, std::int64_t>> scaledVar(const ir::Expr& e) {
  if (e.is<ir::Var>()) return std::pair{e, std::int64_t{1}};
  if (const auto* m = e.as<ir::Mul>()) {
    if (m->a.is<ir::Var>() && ir::asConstInt(m->b)) return std::pair{m->a, *ir::asConstInt(m->b)};
    if (m->b.is<ir::Var>() && ir::asConstInt(m->a)) return std::pair{m->b, *ir::asConstInt(m->a)};
  }
  return std::nullopt;
}

/// Divides `binding` (of an iterator with domain extent `extent`) by the inner loops.
std::optional<Division> divide(const ir::Expr& binding, const ir::Expr& extent,
                               const std::vector<const ir::For*>& innerLoops, const ir::Analyzer& analyzer) {
  std::vector<const ir::ExprNode*> innerVars;
  for (const auto* f : innerLoops) innerVars.push_back(f->loopVar.get());
  const ir::DataType t = binding.dtype();
  if (!usesAnyVar(binding, innerVars)) return Division{binding, {}, extent, ir::intImm(1, t)};
  const ir::Expr s = analyzer.simplify(binding);
  std::vector<std::pair<ir::Expr, bool>> terms;
  signedTerms(s, false, terms);
  struct Inner {
    ir::Expr var;
    std::int64_t coef, extent;
  };
  std::vector<Inner> inner;
  std::vector<std::pair<ir::Expr, bool>> outer;
  for (const auto& [term, neg] : terms) {
    if (!usesAnyVar(term, innerVars)) {
      outer.emplace_back(term, neg);
      continue;
    }
    auto sv = scaledVar(term);
    if (!sv || neg || sv->second <= 0) return std::nullopt;
    const auto loop = std::find_if(innerLoops.begin(), innerLoops.end(),
                                   [&](const ir::For* f) { return f->loopVar.get() == sv->first.get(); });
    const auto ext = ir::asConstInt((*loop)->extent);
    if (!ext || !ir::isConstInt((*loop)->min, 0)) return std::nullopt;
    inner.push_back({sv->first, sv->second, *ext});
  }
  std::sort(inner.begin(), inner.end(), [](const Inner& a, const Inner& b) { return a.coef < b.coef; });
  std::int64_t radix = 1;
  for (const auto& in : inner) {
    if (in.coef != radix) return std::nullopt;
    radix *= in.extent;
  }
  if (outer.empty()) {
    // The binding is all inner: the inner iterator keeps the iterator's extent when that
    // is smaller (k_0 * 4 + k_1 < 6 covers [0, 6) under its predicate, not [0, 8)).
    const auto ext = ir::asConstInt(extent);
    const std::int64_t innerExtent = ext && *ext < radix ? *ext : radix;
    return Division{ir::intImm(0, t), s, ir::intImm(1, t), ir::intImm(innerExtent, t)};
  }
  // The outer terms are multiples of the inner extent.
  ir::Expr outerSum;
  for (const auto& [term, neg] : outer) {
    ir::Expr q;
    if (auto c = ir::asConstInt(term)) {
      if (*c % radix != 0) return std::nullopt;
      q = ir::intImm(*c / radix, t);
    } else if (auto sv = scaledVar(term); sv && sv->second % radix == 0) {
      q = sv->second / radix == 1 ? sv->first : sv->first * ir::intImm(sv->second / radix, t);
    } else if (const auto* m = term.as<ir::Mul>(); m && ir::asConstInt(m->b) && *ir::asConstInt(m->b) % radix == 0) {
      const std::int64_t c = *ir::asConstInt(m->b) / radix;
      q = c == 1 ? m->a : m->a * ir::intImm(c, t);
    } else {
      return std::nullopt;
    }
    outerSum = !outerSum.defined() ? (neg ? ir::intImm(0, t) - q : q) : (neg ? outerSum - q : outerSum + q);
  }
  const auto ext = ir::asConstInt(extent);
  ir::Expr outerExtent;
  if (ext) {
    if (*ext % radix != 0) return std::nullopt;
    outerExtent = ir::intImm(*ext / radix, t);
  } else {
    outerExtent = ir::simplify(ir::floordiv(extent, radix));
  }
  std::vector<std::pair<ir::Expr, bool>> innerTerms;
  for (const auto& [term, neg] : terms)
    if (usesAnyVar(term, innerVars)) innerTerms.emplace_back(term, neg);
  ir::Expr innerSum;
  for (const auto& [term, neg] : innerTerms) innerSum = innerSum.defined() ? innerSum + term : term;
  return Division{analyzer.simplify(outerSum), innerSum, outerExtent, ir::intImm(radix, t)};
}

} // namespace

Expected<std::vector<RV>> applyBlockize(Schedule& sch, const std::vector<TraceValue>& inputs,
                                        const std::vector<TraceValue>& attrs) {
  const bool preserveUnitIters = attrs.at(0).get<bool>() ? *attrs.at(0).get<bool>() : true;
  // 1. a loop.
  if (inputs.empty() || inputs[0].get<TraceList>())
    return Unexpected(scheduleError(kBlockizePrim, "bad-arguments",
                                    "blockize expects a loop; blockizing a list of blocks is not supported"));
  auto loopNode = sch.loop(inputs[0], kBlockizePrim);
  if (!loopNode) return Unexpected(loopNode.error());
  const TreeNode& loopTn = **loopNode;
  const std::string& name0 = loopName(loopTn);
  const IrTree& tree = sch.tree();

  // 2. one chain of loops around one block.
  const auto children = tree.childBlocks(loopTn);
  std::vector<const ir::For*> innerLoops{loopTn.loop()};
  ir::Stmt s = loopTn.loop()->body;
  while (const auto* f = s.as<ir::For>()) {
    innerLoops.push_back(f);
    s = f->body;
  }
  if (children.size() != 1 || !s.is<ir::BlockRealize>())
    return Unexpected(scheduleError(
        kBlockizePrim, "not-single-block",
        children.size() != 1
            ? fmt::format("the loop '{}' has {} child blocks; blockize needs exactly one", name0, children.size())
            : fmt::format("the statements under loop '{}' are not a single chain of loops "
                          "around one block",
                          name0),
        {loopRef(name0)}));
  const TreeNode& blockTn = *children[0];
  const ir::Block& block = *blockTn.block();
  const auto& realize = *blockTn.realize.as<ir::BlockRealize>();

  // 3. subspace division of every binding and of the predicate.
  ir::Analyzer analyzer = analyzerAt(loopTn);
  for (const auto* f : innerLoops) analyzer.bind(f->loopVar, {f->min, f->extent});
  std::vector<const ir::ExprNode*> innerVars, outerVars;
  for (const auto* f : innerLoops) innerVars.push_back(f->loopVar.get());
  for (const auto* l : tree.loopsAbove(loopTn)) outerVars.push_back(l->loop()->loopVar.get());
  auto notDivisible = [&](std::string why) {
    return Unexpected(scheduleError(kBlockizePrim, "not-divisible",
                                    fmt::format("the bindings of block '{}' cannot be blockized by the loops starting "
                                                "at '{}': {}",
                                                block.name, name0, why),
                                    {blockRef(block.name), loopRef(name0)}));
  };
  std::vector<Division> divisions;
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    auto d = divide(realize.iterValues[i], block.iterVars[i].dom.extent, innerLoops, analyzer);
    // An iterator with an inner part must start at 0 (the parts are offsets from 0).
    if (d && !ir::isConstInt(d->innerExtent, 1) && !ir::isConstInt(block.iterVars[i].dom.min, 0)) d.reset();
    if (!d)
      return notDivisible(fmt::format("the binding {} of '{}' is not an outer part times an inner extent plus an "
                                      "inner part",
                                      ir::printExpr(realize.iterValues[i]),
                                      block.iterVars[i].var.as<ir::Var>()->name));
    divisions.push_back(*d);
  }
  std::vector<ir::Expr> outerPred, innerPred;
  for (const auto& c : conjuncts(realize.predicate)) {
    const bool in = usesAnyVar(c, innerVars), out = usesAnyVar(c, outerVars);
    if (in && out) return notDivisible(fmt::format("the predicate {} mixes inner and outer loops", ir::printExpr(c)));
    (in ? innerPred : outerPred).push_back(c);
  }

  // Iterators and bindings of the two blocks; the substitution of the old iterators.
  std::vector<ir::IterVar> outerIters, innerIters;
  std::vector<ir::Expr> outerValues, innerValues;
  ir::VarMap subst;
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    const auto& iv = block.iterVars[i];
    const auto& d = divisions[i];
    const std::string& vn = iv.var.as<ir::Var>()->name;
    const ir::DataType t = iv.var.dtype();
    // Without an inner part the outer iterator takes the iterator's domain (which may not
    // start at 0, e.g. in a loop_partition copy).
    const ir::Range outerDom =
        ir::isConstInt(d.innerExtent, 1) ? iv.dom : ir::Range{ir::intImm(0, t), d.outerExtent};
    ir::IterVar outer{ir::Var::make(vn + "_o", t), outerDom, iv.kind};
    outerIters.push_back(outer);
    outerValues.push_back(d.outer);
    if (ir::isConstInt(d.innerExtent, 1)) {
      subst[iv.var.get()] = (ir::isConstInt(d.outerExtent, 1) && !preserveUnitIters) ? ir::intImm(0, t) : outer.var;
      continue;
    }
    ir::IterVar inner{ir::Var::make(vn + "_i", t), {ir::intImm(0, t), d.innerExtent}, iv.kind};
    innerIters.push_back(inner);
    innerValues.push_back(d.inner);
    subst[iv.var.get()] =
        ir::isConstInt(d.outerExtent, 1) ? inner.var : outer.var * d.innerExtent + inner.var;
  }

  // The inner block: substituted, simplified, without init.
  ir::Analyzer innerAnalyzer;
  for (const auto& iv : outerIters) innerAnalyzer.bind(iv.var, iv.dom);
  for (const auto& iv : innerIters) innerAnalyzer.bind(iv.var, iv.dom);
  struct Simplifier final : ir::StmtMutator {
    const ir::Analyzer* analyzer;
    ir::Expr visitExpr(const ir::Expr& e) override {
      ir::Expr m = ir::StmtMutator::visitExpr(e);
      return m.sameAs(e) ? m : analyzer->simplify(m);
    }
  };
  auto substituteSimplified = [&](const ir::Stmt& st) {
    Simplifier simp;
    simp.analyzer = &innerAnalyzer;
    return simp.mutate(ir::substitute(st, subst));
  };
  auto regionsOf = [&](const std::vector<ir::BufferRegion>& in) {
    std::vector<ir::BufferRegion> out;
    for (const auto& r : in) {
      ir::BufferRegion nr{r.buffer, {}};
      for (const auto& rg : r.region)
        nr.region.push_back({innerAnalyzer.simplify(ir::substitute(rg.min, subst)),
                             innerAnalyzer.simplify(ir::substitute(rg.extent, subst))});
      out.push_back(std::move(nr));
    }
    return out;
  };
  const auto reads = regionsOf(block.reads);
  const auto writes = regionsOf(block.writes);
  const ir::Stmt body = substituteSimplified(block.body);
  const ir::Stmt init = block.init.defined() ? substituteSimplified(block.init) : ir::Stmt{};
  const bool outerReduction =
      init.defined() && std::any_of(outerIters.begin(), outerIters.end(),
                                    [](const ir::IterVar& iv) { return iv.kind == ir::IterKind::Reduce; });
  std::vector<ir::BufferRegion> innerReads = reads;
  if (outerReduction) {
    innerReads = writes;
    innerReads.insert(innerReads.end(), reads.begin(), reads.end());
  }
  const ir::Expr innerPredicate = conjunction(innerPred);
  ir::Stmt innerRealize = ir::BlockRealize::make(
      innerValues, innerPredicate,
      ir::Block::make(block.name, innerIters, innerReads, writes, body, {}, block.allocBuffers, block.annotations));
  ir::Stmt nest = innerRealize;
  for (auto it = innerLoops.rbegin(); it != innerLoops.rend(); ++it) {
    const ir::For& f = **it;
    nest = ir::For::make(f.loopVar, f.min, f.extent, f.forKind, nest, f.threadTag, f.annotations);
  }

  // The outer block's init: the init under copies of the inner loops it needs.
  const std::string outerName = uniqueBlockName(tree, block.name + "_o");
  ir::Stmt outerInit;
  if (init.defined()) {
    const std::string initName = uniqueBlockName(tree, block.name + "_init", {outerName});
    std::vector<ir::IterVar> initIters;
    std::vector<ir::Expr> initValues;
    ir::VarMap initMap;
    for (std::size_t i = 0; i < innerIters.size(); ++i) {
      const auto& iv = innerIters[i];
      bool used = false;
      ir::forEachExpr(init, [&](const ir::Expr& e) { used |= e.get() == iv.var.get(); });
      if (iv.kind != ir::IterKind::Spatial || !used) continue;
      ir::IterVar nv{ir::Var::make(iv.var.as<ir::Var>()->name + "_init", iv.var.dtype()), iv.dom, iv.kind};
      initMap[iv.var.get()] = nv.var;
      initIters.push_back(nv);
      initValues.push_back(innerValues[i]);
    }
    // The loops the init bindings use are copied; the predicate conjuncts that mention
    // any other inner loop are dropped (as decompose_reduction's RemakePredicate).
    std::vector<const ir::For*> initLoops;
    std::vector<const ir::ExprNode*> droppedLoops;
    for (const auto* f : innerLoops) {
      const bool needed = std::any_of(initValues.begin(), initValues.end(),
                                      [&](const ir::Expr& e) { return usesAnyVar(e, {f->loopVar.get()}); });
      if (needed)
        initLoops.push_back(f);
      else
        droppedLoops.push_back(f->loopVar.get());
    }
    std::vector<ir::Expr> initPred;
    for (const auto& c : innerPred)
      if (!usesAnyVar(c, droppedLoops)) initPred.push_back(c);
    ir::Stmt st = ir::BlockRealize::make(initValues, conjunction(initPred),
                                         ir::Block::make(initName, initIters, {}, writes, init));
    for (auto it = initLoops.rbegin(); it != initLoops.rend(); ++it) {
      const ir::For& f = **it;
      ir::Expr nv = ir::Var::make(f.loopVar.as<ir::Var>()->name, f.loopVar.dtype());
      initMap[f.loopVar.get()] = nv;
      st = ir::For::make(nv, f.min, f.extent, f.forKind, st, f.threadTag, f.annotations);
    }
    outerInit = ir::substitute(st, initMap);
  }

  // The outer block: regions relaxed over the inner iterators.
  std::vector<RelaxVar> relax;
  for (const auto& iv : innerIters) relax.push_back({iv.var, iv.dom});
  ir::Analyzer outerAnalyzer = analyzerAt(loopTn);
  for (const auto& iv : outerIters) outerAnalyzer.bind(iv.var, iv.dom);
  auto relaxed = [&](const std::vector<ir::BufferRegion>& in) {
    std::vector<ir::BufferRegion> out;
    for (const auto& r : in) {
      ir::BufferRegion nr{r.buffer, {}};
      for (std::size_t d = 0; d < r.region.size(); ++d)
      {
        // Clipped to the buffer: a guarded access (padding) may relax outside it.
        const ir::Range rg = relaxRange(r.region[d], relax, outerAnalyzer, r.buffer->shape[d]);
        const ir::Expr& dim = r.buffer->shape[d];
        const ir::Expr lo = maxOf(rg.min, ir::intImm(0, dim.dtype()), outerAnalyzer);
        const ir::Expr hi = minOf(outerAnalyzer.simplify(rg.min + rg.extent - 1), outerAnalyzer.simplify(dim - 1),
                                  outerAnalyzer);
        nr.region.push_back(lo.sameAs(rg.min) && ir::structuralEqual(hi, outerAnalyzer.simplify(rg.min + rg.extent - 1))
                                ? rg
                                : ir::Range{lo, outerAnalyzer.simplify(hi - lo + 1)});
      }
      out.push_back(std::move(nr));
    }
    return out;
  };
  ir::Stmt outerRealize = ir::BlockRealize::make(
      outerValues, conjunction(outerPred),
      ir::Block::make(outerName, outerIters, relaxed(reads), relaxed(writes), nest, outerInit));
  if (auto ok = sch.replace(replaced(sch, loopTn.node, outerRealize)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{sch.defineBlock(outerName)};
}

} // namespace loopscape::schedule::detail
