// Loop transformations: split, fuse, reorder (TVM's tir.Schedule semantics).
//
// split(loop, factors, preserve_unit_iters=True, disable_predication=False)
//   Preconditions:
//   1. the loop has no annotations and no thread binding   (annotated-loop)
//   2. the loop starts at 0                                 (nonzero-min)
//   3. at most one factor is None                           (multiple-none)
//   4. every factor is a positive integer                   (bad-factor)
//      that fits the loop's type                            (too-large)
//   5. the product of the factors fits the loop's type, so that no index of the new loops
//      wraps                                                (too-large)
//   6. the product of the factors covers the extent         (factor-product)
//   Non-divisible splits add `outer*f + inner < extent` to the predicate of every block
//   below (unless disable_predication).
//
// fuse(*loops, preserve_unit_iters=True)
//   1. at least one loop                                    (bad-arguments)
//   2. loop i+1 is the only statement in the body of loop i (not-nested)
//   3. no annotations or thread binding                     (annotated-loop)
//   4. every loop starts at 0                               (nonzero-min)
//   5. no extent depends on another fused loop              (dependent-extent)
//   6. the product of the constant extents fits the fused loop's type, the widest of the
//      loops' types (TVM's choice)                          (too-large)
//
// reorder(*loops)
//   1. no loop appears twice                                (duplicate-loop)
//   2. the loops lie on one chain of nested loops, and every loop strictly between the
//      outermost and the innermost has exactly one child     (not-single-chain)
//   3. after reordering no loop's bounds use a loop that would be inside it
//                                                           (dependent-extent)
//   4. no moved loop feeds both a spatial and a reduce iterator of a block with an init
//      (a fused spatial+reduce loop): the init runs when the reduce iterators are at
//      their minimum, and moving such a loop can run updates before it (mixed-loop;
//      stricter than TVM, which accepts this and computes a wrong result)
#include "core/schedule/primitive/families.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/checked_arith.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/substitute.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace loopscape::schedule {

using namespace detail;

namespace {

Expected<void> checkPlainLoop(const TreeNode& loop, std::string_view prim) {
  const auto* f = loop.loop();
  if (!f->annotations.empty() || f->forKind == ir::ForKind::ThreadBinding)
    return Unexpected(scheduleError(prim, "annotated-loop",
                                    fmt::format("the loop '{}' has {}; {} needs a loop without annotations or "
                                                "thread binding",
                                                loopName(loop),
                                                f->forKind == ir::ForKind::ThreadBinding
                                                    ? fmt::format("the thread binding '{}'", f->threadTag)
                                                    : std::string("annotations"),
                                                prim),
                                    {loopRef(loopName(loop))}));
  if (!ir::isConstInt(f->min, 0))
    return Unexpected(scheduleError(prim, "nonzero-min",
                                    fmt::format("the loop '{}' does not start at 0; {} needs loops that start at 0",
                                                loopName(loop), prim),
                                    {loopRef(loopName(loop))}));
  return {};
}

/// Adds `cond` to the predicate of every block realized below `s`.
ir::Stmt addPredicate(const ir::Stmt& s, const ir::Expr& cond) {
  struct Adder final : ir::StmtMutator {
    ir::Expr cond;
    ir::Expr visitExpr(const ir::Expr& e) override { return e; }
    ir::Stmt visitBlockRealize(const ir::BlockRealize& op, const ir::Stmt&) override {
      ir::Expr pred = ir::isConstInt(op.predicate, 1) ? cond : (op.predicate && cond);
      return ir::BlockRealize::make(op.iterValues, pred, op.block);
    }
  } adder;
  adder.cond = cond;
  return adder.mutate(s);
}

// ---------------------------------------------------------------------------- split
Expected<std::vector<RV>> applySplit(Schedule& sch, const std::vector<TraceValue>& inputs,
                                     const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "split";
  auto loopNode = sch.loop(inputs.at(0), prim);
  if (!loopNode) return Unexpected(loopNode.error());
  const TreeNode& loop = **loopNode;
  const ir::For& f = *loop.loop();
  const bool preserveUnitIters = attrs.at(0).get<bool>() ? *attrs.at(0).get<bool>() : true;
  const bool disablePredication = attrs.at(1).get<bool>() ? *attrs.at(1).get<bool>() : false;
  const auto* factorList = inputs.size() > 1 ? inputs[1].get<TraceList>() : nullptr;
  if (!factorList || factorList->empty())
    return Unexpected(scheduleError(prim, "bad-arguments", "split expects a non-empty list of factors"));

  // 1-2. plain loop from 0.
  if (auto ok = checkPlainLoop(loop, prim); !ok) return Unexpected(ok.error());

  // 3-4. factors.
  std::vector<std::optional<std::int64_t>> factors;
  int noneCount = 0;
  for (const auto& v : *factorList) {
    if (v.isNone()) {
      ++noneCount;
      factors.push_back(std::nullopt);
      continue;
    }
    auto value = sch.integer(v, prim);
    if (!value) return Unexpected(value.error());
    if (*value <= 0)
      return Unexpected(scheduleError(prim, "bad-factor",
                                      fmt::format("split factor {} of loop '{}' is not positive", *value,
                                                  loopName(loop)),
                                      {loopRef(loopName(loop))}));
    if (auto ok = checkFitsLoopType(*value, loop, prim, "split factor"); !ok) return Unexpected(ok.error());
    factors.push_back(*value);
  }
  if (noneCount > 1)
    return Unexpected(scheduleError(prim, "multiple-none",
                                    fmt::format("split of loop '{}': at most one factor may be None, got {}",
                                                loopName(loop), noneCount),
                                    {loopRef(loopName(loop))}));

  // Extents of the new loops; the None factor is ceildiv(extent, product of the others).
  // 5. every index the new loops compute, up to the product of their extents, fits the
  // loop's type: a product that wraps would make the legality check sign off a different
  // iteration space.
  const ir::DataType t = f.loopVar.dtype();
  const auto constExtent = ir::asConstInt(f.extent);
  std::optional<std::int64_t> noneExtent;
  if (constExtent && noneCount == 1) noneExtent = 0; // set below, once the others' product is known
  auto productTooLarge = [&](std::optional<std::int64_t> product) {
    std::vector<std::string> shown;
    for (const auto& fct : factors)
      shown.push_back(fct ? std::to_string(*fct)
                          : (noneExtent ? fmt::format("None (= {})", *noneExtent) : std::string("None")));
    return Unexpected(scheduleError(
        prim, "too-large",
        fmt::format("split of loop '{}': the factors {} multiply to {}, which does not fit {} (the loop's type); "
                    "choose factors whose product is at most {}",
                    loopName(loop), fmt::join(shown, ", "),
                    product ? std::to_string(*product) : std::string("more than 9223372036854775807"), t.str(),
                    maxOfType(t)),
        {loopRef(loopName(loop))}));
  };
  std::vector<std::int64_t> given;
  for (const auto& fct : factors)
    if (fct) given.push_back(*fct);
  const auto knownProduct = ir::checkedProduct(given);
  if (!knownProduct || !ir::fitsSignedBits(*knownProduct, t.bits())) {
    noneExtent.reset();
    return productTooLarge(knownProduct);
  }
  const std::int64_t known = *knownProduct;
  if (noneExtent) noneExtent = *constExtent <= 0 ? 0 : (*constExtent - 1) / known + 1;
  std::vector<ir::Expr> extents;
  for (const auto& fct : factors) {
    if (fct)
      extents.push_back(ir::intImm(*fct, t));
    else if (noneExtent)
      extents.push_back(ir::intImm(*noneExtent, t));
    else
      extents.push_back(ir::simplify(ir::floordiv(f.extent + (known - 1), known)));
  }

  // 6. the product covers the extent.
  bool exact = false;
  if (constExtent) {
    const auto total = ir::checkedMul(known, noneExtent.value_or(1));
    if (!total || !ir::fitsSignedBits(*total, t.bits())) return productTooLarge(total);
    const std::int64_t product = *total;
    if (product < *constExtent)
      return Unexpected(scheduleError(prim, "factor-product",
                                      fmt::format("split of loop '{}': the factors multiply to {}, less than the "
                                                  "extent {}",
                                                  loopName(loop), product, *constExtent),
                                      {loopRef(loopName(loop))}));
    exact = product == *constExtent;
  } else if (noneCount == 0) {
    return Unexpected(scheduleError(prim, "factor-product",
                                    fmt::format("split of loop '{}' with symbolic extent {}: one factor must be None "
                                                "so that the factors cover the extent",
                                                loopName(loop), ir::printExpr(f.extent)),
                                    {loopRef(loopName(loop))}));
  } else {
    exact = known == 1;
  }

  // New loop variables i_0, i_1, ... and the substitution i -> ((i_0*f1 + i_1)*f2 + i_2).
  const std::string& base = loopName(loop);
  std::vector<ir::Expr> vars;
  ir::Expr combined;
  for (std::size_t k = 0; k < extents.size(); ++k) {
    vars.push_back(ir::Var::make(fmt::format("{}_{}", base, k), t));
    ir::Expr term = (!preserveUnitIters && ir::isConstInt(extents[k], 1)) ? ir::intImm(0, t) : vars.back();
    combined = combined.defined() ? combined * extents[k] + term : term;
  }
  ir::Stmt body = ir::substitute(f.body, {{f.loopVar.get(), combined}});
  if (!exact && !disablePredication) body = addPredicate(body, combined < f.extent);
  for (std::size_t k = extents.size(); k-- > 0;)
    body = ir::For::make(vars[k], ir::intImm(0, t), extents[k], ir::ForKind::Serial, body);
  body = simplifyBindings(body, analyzerAt(loop));

  if (auto ok = sch.replace(replaced(sch, loop.node, body)); !ok) return Unexpected(ok.error());
  std::vector<RV> out;
  for (const auto& v : vars) out.push_back(sch.defineLoop(v));
  return out;
}

// ---------------------------------------------------------------------------- fuse
Expected<std::vector<RV>> applyFuse(Schedule& sch, const std::vector<TraceValue>& inputs,
                                    const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "fuse";
  const bool preserveUnitIters = attrs.at(0).get<bool>() ? *attrs.at(0).get<bool>() : true;
  if (inputs.empty()) return Unexpected(scheduleError(prim, "bad-arguments", "fuse expects at least one loop"));
  std::vector<const TreeNode*> loops;
  for (const auto& in : inputs) {
    auto l = sch.loop(in, prim);
    if (!l) return Unexpected(l.error());
    if (auto ok = checkPlainLoop(**l, prim); !ok) return Unexpected(ok.error());
    loops.push_back(*l);
  }
  // 2. each loop is the whole body of the previous one.
  for (std::size_t k = 1; k < loops.size(); ++k) {
    if (!loops[k - 1]->loop()->body.sameAs(loops[k]->handle))
      return Unexpected(scheduleError(prim, "not-nested",
                                      fmt::format("fuse: the loop '{}' is not the only statement in the body of "
                                                  "loop '{}'",
                                                  loopName(*loops[k]), loopName(*loops[k - 1])),
                                      {loopRef(loopName(*loops[k - 1])), loopRef(loopName(*loops[k]))}));
  }
  // 5. extents independent of the fused loops.
  std::vector<const ir::ExprNode*> vars;
  for (const auto* l : loops) vars.push_back(l->loop()->loopVar.get());
  for (const auto* l : loops)
    if (usesAnyVar(l->loop()->extent, vars))
      return Unexpected(scheduleError(prim, "dependent-extent",
                                      fmt::format("fuse: the extent of loop '{}' depends on another fused loop",
                                                  loopName(*l)),
                                      {loopRef(loopName(*l))}));

  // 6. the fused extent fits the type of the fused loop, the widest of the loops' types (as
  // in TVM), so that the fused index never wraps.
  ir::DataType t = loops.front()->loop()->loopVar.dtype();
  for (const auto* l : loops)
    if (l->loop()->loopVar.dtype().bits() > t.bits()) t = l->loop()->loopVar.dtype();
  {
    std::vector<std::int64_t> extents;
    for (const auto* l : loops)
      if (auto e = ir::asConstInt(l->loop()->extent)) extents.push_back(*e);
    const auto product = ir::checkedProduct(extents);
    if (!product || !ir::fitsSignedBits(*product, t.bits())) {
      std::vector<std::string> names;
      for (const auto* l : loops)
        names.push_back(fmt::format("'{}'", loopName(*l)));
      std::vector<IrReference> refs;
      for (const auto* l : loops)
        refs.push_back(loopRef(loopName(*l)));
      return Unexpected(scheduleError(
          prim, "too-large",
          fmt::format("fuse: the loops {} have {} iterations together, which does not fit {} (the loops' type); "
                      "fuse fewer loops or split them first",
                      fmt::join(names, ", "),
                      product ? std::to_string(*product) : std::string("more than 9223372036854775807"), t.str()),
          refs));
    }
  }
  auto widen = [&](ir::Expr e) { return e.dtype() == t ? e : ir::Cast::make(t, e); };
  std::string name;
  for (const auto* l : loops) name += loopName(*l) + "_";
  name += "fused";
  ir::Expr fused = ir::Var::make(name, t);
  ir::Expr total;
  for (const auto* l : loops)
    total = total.defined() ? total * widen(l->loop()->extent) : widen(l->loop()->extent);
  total = ir::simplify(total);

  // loop k = (fused // prod(extents after k)) % extent_k; the outermost needs no %.
  ir::VarMap map;
  ir::Expr stride = ir::intImm(1, t);
  for (std::size_t k = loops.size(); k-- > 0;) {
    const auto* l = loops[k]->loop();
    ir::Expr value = ir::isConstInt(stride, 1) ? fused : ir::floordiv(fused, stride);
    if (k > 0) value = ir::floormod(value, widen(l->extent));
    if (!preserveUnitIters && ir::isConstInt(l->extent, 1)) value = ir::intImm(0, t);
    // A narrower loop's value is below its extent, so it fits the loop's own type.
    if (value.dtype() != l->loopVar.dtype()) value = ir::Cast::make(l->loopVar.dtype(), value);
    map[l->loopVar.get()] = value;
    stride = ir::simplify(stride * widen(l->extent));
  }
  ir::Stmt body = ir::substitute(loops.back()->loop()->body, map);
  body = ir::For::make(fused, ir::intImm(0, t), total, ir::ForKind::Serial, body);
  body = simplifyBindings(body, analyzerAt(*loops.front()));
  if (auto ok = sch.replace(replaced(sch, loops.front()->node, body)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{sch.defineLoop(fused)};
}

// ---------------------------------------------------------------------------- reorder
Expected<std::vector<RV>> applyReorder(Schedule& sch, const std::vector<TraceValue>& inputs,
                                       const std::vector<TraceValue>&) {
  constexpr std::string_view prim = "reorder";
  std::vector<const TreeNode*> loops;
  for (const auto& in : inputs) {
    auto l = sch.loop(in, prim);
    if (!l) return Unexpected(l.error());
    // 1. no duplicates.
    if (std::find(loops.begin(), loops.end(), *l) != loops.end())
      return Unexpected(scheduleError(prim, "duplicate-loop",
                                      fmt::format("reorder: the loop '{}' appears twice", loopName(**l)),
                                      {loopRef(loopName(**l))}));
    loops.push_back(*l);
  }
  if (loops.size() < 2) return std::vector<RV>{};

  // 2. one chain: find the innermost (the one with the deepest position), walk up to the
  // outermost, and require every loop in between to have a single child.
  auto depth = [](const TreeNode* n) {
    int d = 0;
    for (; n; n = n->parent) ++d;
    return d;
  };
  const TreeNode* inner = *std::max_element(loops.begin(), loops.end(),
                                             [&](auto* a, auto* b) { return depth(a) < depth(b); });
  std::vector<const TreeNode*> chain; // innermost first
  std::size_t found = 0;
  for (const TreeNode* n = inner; n && !n->isBlock(); n = n->parent) {
    chain.push_back(n);
    if (std::find(loops.begin(), loops.end(), n) != loops.end() && ++found == loops.size()) break;
  }
  if (found != loops.size()) {
    std::vector<IrReference> refs;
    for (const auto* l : loops) refs.push_back(loopRef(loopName(*l)));
    return Unexpected(scheduleError(prim, "not-single-chain",
                                    "reorder: the loops are not nested in one another (they must lie on one chain "
                                    "of nested loops)",
                                    refs));
  }
  std::reverse(chain.begin(), chain.end()); // outermost first
  for (std::size_t k = 0; k + 1 < chain.size(); ++k) {
    if (!chain[k]->loop()->body.sameAs(chain[k + 1]->handle))
      return Unexpected(scheduleError(prim, "not-single-chain",
                                      fmt::format("reorder: the loop '{}' has more than one child, so the loops "
                                                  "below it cannot move above it",
                                                  loopName(*chain[k])),
                                      {loopRef(loopName(*chain[k]))}));
  }

  // The new order: positions of the listed loops in the chain take the listed order.
  std::vector<const TreeNode*> order = chain;
  std::size_t next = 0;
  for (auto& slot : order)
    if (std::find(loops.begin(), loops.end(), slot) != loops.end()) slot = loops[next++];

  // 3. bounds only use loops outside.
  for (std::size_t k = 0; k < order.size(); ++k) {
    std::vector<const ir::ExprNode*> innerVars;
    for (std::size_t m = k; m < order.size(); ++m) innerVars.push_back(order[m]->loop()->loopVar.get());
    const auto* l = order[k]->loop();
    if (usesAnyVar(l->min, innerVars) || usesAnyVar(l->extent, innerVars))
      return Unexpected(scheduleError(prim, "dependent-extent",
                                      fmt::format("reorder: the bounds of loop '{}' depend on a loop that would be "
                                                  "inside it",
                                                  loopName(*order[k])),
                                      {loopRef(loopName(*order[k]))}));
  }

  // 4. no moved loop mixes spatial and reduce iterators of a block with an init.
  for (const auto* realize : realizesBelow(chain.front()->handle)) {
    const auto& block = realize->blockNode();
    if (!block.init.defined()) continue;
    for (const auto* l : loops) {
      const std::vector<const ir::ExprNode*> var{l->loop()->loopVar.get()};
      bool spatial = false, reduce = false;
      for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
        if (!usesAnyVar(realize->iterValues[i], var)) continue;
        (block.iterVars[i].kind == ir::IterKind::Reduce ? reduce : spatial) = true;
      }
      if (spatial && reduce)
        return Unexpected(scheduleError(prim, "mixed-loop",
                                        fmt::format("reorder: the loop '{}' feeds both spatial and reduce iterators "
                                                    "of block '{}', which has an init; moving it could run updates "
                                                    "before their init",
                                                    loopName(*l), block.name),
                                        {loopRef(loopName(*l)), blockRef(block.name)}));
    }
  }

  ir::Stmt body = chain.back()->loop()->body;
  for (std::size_t k = order.size(); k-- > 0;) {
    const auto* l = order[k]->loop();
    body = ir::For::make(l->loopVar, l->min, l->extent, l->forKind, body, l->threadTag, l->annotations);
  }
  if (auto ok = sch.replace(replaced(sch, chain.front()->node, body)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{};
}

} // namespace

std::span<const InstructionKind> loopTransformKinds() {
  static const InstructionKind kinds[] = {
      {.name = "split",
       .jsonName = "Split",
       .inputNames = {"loop", "factors"},
       .attrs = {{"preserve_unit_iters", true}, {"disable_predication", false}},
       .outputs = {RVKind::Loop},
       .outputsVariadic = true,
       .apply = applySplit,
       .appliesTo = AppliesTo::Loop,
       .inputSpecs = {{}, {ParamKind::Factors}},
       .description = "split the loop into nested loops",
       .shortcut = "Ctrl+Alt+S",
       .panelRank = 0},
      {.name = "fuse",
       .jsonName = "Fuse",
       .inputNames = {"loops"},
       .attrs = {{"preserve_unit_iters", true}},
       .outputs = {RVKind::Loop},
       .variadic = true,
       .apply = applyFuse,
       .appliesTo = AppliesTo::Loop,
       .inputSpecs = {{ParamKind::LoopChain}},
       .description = "fuse the loop with the loops nested in it",
       .shortcut = "Ctrl+Alt+F",
       .panelRank = 1},
      {.name = "reorder",
       .jsonName = "Reorder",
       .inputNames = {"loops"},
       .outputs = {},
       .variadic = true,
       .apply = applyReorder,
       .appliesTo = AppliesTo::Loop,
       .inputSpecs = {{ParamKind::LoopOrder}},
       .description = "reorder the loops of the block",
       .shortcut = "Ctrl+Alt+R",
       .panelRank = 2},
  };
  return kinds;
}

} // namespace loopscape::schedule
