// Reductions: decompose_reduction (here) and rfactor (rfactor.cpp), with TVM's
// tir.Schedule semantics.
//
// decompose_reduction(block, loop) -> the init block
//   Splits the block's init out as a block `<name>_init` placed right before `loop`,
//   under copies (`i_init`, `j_init`) of the loops between `loop` and the block that its
//   data-parallel bindings use; the reduction block loses its init, is renamed
//   `<name>_update` and reads what it writes. Block RVs of the block follow it.
//   Preconditions:
//   1. `loop` is an ancestor of the block                          (not-ancestor)
//   2. the block is a reduction block: it has an init, it is the only writer of its
//      outputs in its scope, no reduce iterator indexes them        (not-reduction)
//   3. no loop above `loop` feeds a reduce iterator (`loop` is higher than every loop
//      related to a reduce block var), not even a loop above the block's scope block
//      (TVM only looks at the loops up to the scope block)          (below-reduce-loop)
//   4. every loop from `loop` (included) down to the block with an extent other than 1
//      feeds some iterator of the block                             (redundant-loop)
//      A loop that feeds none (left by compute_at when the consumer's loop does not index
//      the reduction's output) recomputes the whole reduction at each iteration, and the
//      update restarts from the current value each time. The init inside the block runs
//      at each restart; hoisted before `loop` it would run fewer times than the update
//      restarts and the partial sums would accumulate. TVM performs this decomposition
//      and changes the result; Loopscape refuses it (decompose at a loop below the
//      redundant one instead).
//   5. no loop the init copies has bounds that use a loop the init drops (dependent-bounds)
//
// rfactor(loop, factor_axis) -> the rf block: see rfactor.cpp.
#include "core/schedule/primitive/buffer_util.h"
#include "core/schedule/primitive/families.h"
#include "core/schedule/primitive/reduction_detail.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <unordered_set>

namespace loopscape::schedule {

using namespace detail;

namespace detail {

std::optional<std::string> reductionBlockProblem(const IrTree& tree, const TreeNode& node) {
  const ir::Block& block = *node.block();
  const std::string& name = block.name;
  if (!block.init.defined())
    return fmt::format("the block '{}' is not a reduction block: it has no init statement (T.init())", name);
  for (const auto& iv : block.iterVars)
    if (iv.kind != ir::IterKind::Spatial && iv.kind != ir::IterKind::Reduce)
      return fmt::format("the block '{}' is not a reduction block: it has the {} iterator '{}'", name,
                         ir::iterKindName(iv.kind), iv.var.as<ir::Var>()->name);
  // Dominant: the only writer of its outputs among the blocks of its scope.
  const TreeNode* scope = tree.scopeBlock(node);
  if (scope) {
    for (const TreeNode* other : tree.childBlocks(*scope)) {
      if (other == &node) continue;
      for (const auto& w : block.writes)
        for (const auto& ow : other->block()->writes)
          if (ow.buffer.sameAs(w.buffer))
            return fmt::format("the block '{}' is not a reduction block: it is not the only writer of buffer '{}' "
                               "in its scope (block '{}' writes it too)",
                               name, w.buffer->name, other->block()->name);
    }
  }
  // Reduce iterators do not index the written buffers.
  std::vector<const ir::ExprNode*> reduceVars;
  for (const auto& iv : block.iterVars)
    if (iv.kind == ir::IterKind::Reduce) reduceVars.push_back(iv.var.get());
  std::optional<std::string> problem;
  auto checkIndices = [&](const ir::Buffer& buffer, const std::vector<ir::Expr>& indices) {
    for (const auto& w : block.writes)
      if (w.buffer.sameAs(buffer))
        for (const auto& idx : indices)
          if (!problem && usesAnyVar(idx, reduceVars))
            problem = fmt::format("the block '{}' is not a reduction block: a reduce iterator indexes the buffer "
                                  "'{}' it writes ({})",
                                  name, buffer->name, ir::printExpr(idx));
  };
  struct Visitor final : ir::StmtVisitor {
    std::function<void(const ir::Buffer&, const std::vector<ir::Expr>&)> fn;
    void visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
      fn(op.buffer, op.indices);
      StmtVisitor::visitBufferStore(op, self);
    }
    void visitBufferLoad(const ir::BufferLoad& op, const ir::Expr& self) override {
      fn(op.buffer, op.indices);
      StmtVisitor::visitBufferLoad(op, self);
    }
  } visitor;
  visitor.fn = checkIndices;
  visitor(block.body);
  visitor(block.init);
  return problem;
}

} // namespace detail

namespace {

// ---------------------------------------------------------------------------- decompose_reduction
Expected<std::vector<RV>> applyDecomposeReduction(Schedule& sch, const std::vector<TraceValue>& inputs,
                                                  const std::vector<TraceValue>&) {
  constexpr std::string_view prim = "decompose_reduction";
  auto blockNode = sch.block(inputs.at(0), prim);
  if (!blockNode) return Unexpected(blockNode.error());
  auto loopNode = inputs.size() > 1 ? sch.loop(inputs[1], prim)
                                    : Expected<const TreeNode*>(Unexpected(scheduleError(
                                          prim, "bad-arguments", "decompose_reduction expects a block and a loop")));
  if (!loopNode) return Unexpected(loopNode.error());
  const TreeNode& blockTn = **blockNode;
  const TreeNode& loopTn = **loopNode;
  const ir::Block& block = *blockTn.block();
  const auto& realize = *blockTn.realize.as<ir::BlockRealize>();
  const std::string& loopN = loopName(loopTn);

  // 1. `loop` is an ancestor of the block.
  const auto loops = sch.tree().loopsAbove(blockTn);
  const auto pos = std::find(loops.begin(), loops.end(), &loopTn);
  if (pos == loops.end())
    return Unexpected(scheduleError(prim, "not-ancestor",
                                    fmt::format("the loop '{}' is not an ancestor of block '{}'; decompose_reduction "
                                                "inserts the init before a loop that encloses the block",
                                                loopN, block.name),
                                    {loopRef(loopN), blockRef(block.name)}));
  // 2. reduction block.
  if (auto problem = reductionBlockProblem(sch.tree(), blockTn))
    return Unexpected(scheduleError(prim, "not-reduction", *problem, {blockRef(block.name)}));
  // 3. no loop above `loop` feeds a reduce iterator.
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    if (block.iterVars[i].kind != ir::IterKind::Reduce) continue;
    for (auto it = loops.begin(); it != pos; ++it) {
      if (usesAnyVar(realize.iterValues[i], {(*it)->loop()->loopVar.get()}))
        return Unexpected(scheduleError(
            prim, "below-reduce-loop",
            fmt::format("decompose_reduction expects the loop '{}' to be higher than all the loops related to reduce "
                        "block vars of block '{}', but the loop '{}' above it feeds the reduce iterator '{}'",
                        loopN, block.name, loopName(**it), block.iterVars[i].var.as<ir::Var>()->name),
            {loopRef(loopN), blockRef(block.name), loopRef(loopName(**it))}));
    }
  }

  //    (also a loop outside the block's scope, above an enclosing block such as a
  //    loop_partition block: the init would restart at each of its iterations)
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    if (block.iterVars[i].kind != ir::IterKind::Reduce) continue;
    std::string outside;
    ir::forEachExpr(realize.iterValues[i], [&](const ir::Expr& e) {
      const auto* v = e.as<ir::Var>();
      if (!v || !outside.empty()) return;
      if (std::none_of(loops.begin(), loops.end(), [&](const TreeNode* l) { return l->loop()->loopVar.get() == v; }))
        outside = v->name;
    });
    if (!outside.empty())
      return Unexpected(scheduleError(
          prim, "below-reduce-loop",
          fmt::format("decompose_reduction expects the loop '{}' to be higher than all the loops related to reduce "
                      "block vars of block '{}', but the loop '{}' outside the block's scope feeds the reduce "
                      "iterator '{}'",
                      loopN, block.name, outside, block.iterVars[i].var.as<ir::Var>()->name),
          {loopRef(loopN), blockRef(block.name), loopRef(outside)}));
  }
  // 4. no redundant-recomputation loop between `loop` and the block.
  for (auto it = pos; it != loops.end(); ++it) {
    const ir::For& f = *(*it)->loop();
    if (ir::isConstInt(f.extent, 1)) continue;
    const bool feeds = std::any_of(realize.iterValues.begin(), realize.iterValues.end(),
                                   [&](const ir::Expr& v) { return usesAnyVar(v, {f.loopVar.get()}); });
    if (feeds) continue;
    const std::string& redundant = loopName(**it);
    return Unexpected(scheduleError(
        prim, "redundant-loop",
        fmt::format("the loop '{}' feeds no iterator of block '{}': each of its iterations recomputes the whole "
                    "reduction, so an init placed before loop '{}' would run fewer times than the update restarts "
                    "and the results would accumulate; decompose at a loop below '{}'",
                    redundant, block.name, loopN, redundant),
        {loopRef(loopN), blockRef(block.name), loopRef(redundant)}));
  }

  // The init block: the data-parallel iterators (same names, new Vars), their bindings.
  std::vector<ir::IterVar> initIters;
  std::vector<ir::Expr> initValues;
  ir::VarMap blockVarMap;
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    const auto& iv = block.iterVars[i];
    if (iv.kind != ir::IterKind::Spatial) continue;
    ir::Expr v = ir::Var::make(iv.var.as<ir::Var>()->name, iv.var.dtype());
    initIters.push_back({v, iv.dom, iv.kind});
    initValues.push_back(realize.iterValues[i]);
    blockVarMap[iv.var.get()] = v;
  }
  ir::Stmt initBody = ir::substitute(block.init, blockVarMap);
  std::vector<ir::BufferRegion> initWrites;
  for (const auto& w : block.writes) {
    ir::BufferRegion r{w.buffer, {}};
    for (const auto& rg : w.region)
      r.region.push_back({ir::substitute(rg.min, blockVarMap), ir::substitute(rg.extent, blockVarMap)});
    initWrites.push_back(std::move(r));
  }

  // Loops from the block up to `loop`: those the init bindings use are copied (`i_init`),
  // the others are dropped, with the predicate conjuncts that mention them.
  std::vector<const TreeNode*> chosen; // innermost first
  std::vector<const ir::ExprNode*> discarded;
  for (auto it = loops.end(); it != pos;) {
    --it;
    const ir::Expr& var = (*it)->loop()->loopVar;
    const bool used = std::any_of(initValues.begin(), initValues.end(),
                                  [&](const ir::Expr& e) { return usesAnyVar(e, {var.get()}); });
    if (used)
      chosen.push_back(*it);
    else
      discarded.push_back(var.get());
  }
  // 5. a copied loop's bounds do not use a dropped loop (a loop fused from a spatial and
  //    a reduce dimension bounds the spatial loop below it: the copy would name a
  //    variable that is not in scope).
  for (const TreeNode* l : chosen) {
    const ir::For& f = *l->loop();
    if (!usesAnyVar(f.min, discarded) && !usesAnyVar(f.extent, discarded)) continue;
    return Unexpected(scheduleError(
        prim, "dependent-bounds",
        fmt::format("the bounds of loop '{}', which the init of block '{}' needs, depend on a loop the init does not "
                    "iterate; decompose at a loop below them",
                    loopName(*l), block.name),
        {loopRef(loopN), blockRef(block.name), loopRef(loopName(*l))}));
  }
  std::vector<ir::Expr> kept;
  for (const auto& c : conjuncts(realize.predicate))
    if (!usesAnyVar(c, discarded)) kept.push_back(c);

  const std::string initName = uniqueBlockName(sch.tree(), block.name + "_init");
  const std::string updateName = uniqueBlockName(sch.tree(), block.name + "_update", {initName});
  ir::Stmt body = ir::BlockRealize::make(
      initValues, conjunction(kept),
      ir::Block::make(initName, initIters, {}, initWrites, initBody, {}, {}, block.annotations));
  ir::VarMap loopVarMap;
  for (const TreeNode* l : chosen) {
    const ir::For& f = *l->loop();
    ir::Expr nv = ir::Var::make(f.loopVar.as<ir::Var>()->name + "_init", f.loopVar.dtype());
    loopVarMap[f.loopVar.get()] = nv;
    body = ir::For::make(nv, f.min, f.extent, f.forKind, body, f.threadTag);
  }
  body = ir::substitute(body, loopVarMap);

  // The update block: no init, renamed, reads what it writes.
  std::vector<ir::BufferRegion> reads;
  for (const auto& w : block.writes)
    if (std::none_of(block.reads.begin(), block.reads.end(), [&](const auto& r) { return r.buffer.sameAs(w.buffer); }))
      reads.push_back(w);
  reads.insert(reads.end(), block.reads.begin(), block.reads.end());
  ir::Stmt update = ir::Block::make(updateName, block.iterVars, reads, block.writes, block.body, {}, block.allocBuffers,
                                    block.annotations);
  ir::Stmt newLoop = replaceStmt(loopTn.handle, blockTn.node, update);
  if (auto ok = sch.replace(replaced(sch, loopTn.node, ir::SeqStmt::make({body, newLoop}))); !ok)
    return Unexpected(ok.error());
  sch.renameBlock(block.name, updateName);
  return std::vector<RV>{sch.defineBlock(initName)};
}

} // namespace

std::span<const InstructionKind> reductionKinds() {
  static const InstructionKind kinds[] = {
      {.name = "decompose_reduction",
       .jsonName = "DecomposeReduction",
       .inputNames = {"block", "loop"},
       .outputs = {RVKind::Block},
       .apply = applyDecomposeReduction,
       .appliesTo = AppliesTo::Block,
       .inputSpecs = {{}, {ParamKind::TargetLoop}},
       .description = "separate the init of a reduction",
       .shortcut = "Ctrl+Alt+D",
       .panelRank = 13},
      {.name = "rfactor",
       .jsonName = "RFactor",
       .inputNames = {"loop"},
       .attrs = {{"factor_axis", 0}},
       .outputs = {RVKind::Block},
       .apply = applyRfactor,
       .appliesTo = AppliesTo::Loop,
       .inputSpecs = {{}},
       .description = "factor a reduction over this loop",
       .shortcut = "Ctrl+Alt+Shift+F",
       .panelRank = 12},
  };
  return kinds;
}

} // namespace loopscape::schedule
