// rfactor(loop, factor_axis=0) -> the rf block (TVM's tir.Schedule.rfactor).
//
// Factorises an associative reduction along `loop`: a new buffer `<C>_rf` (the written
// buffer with one more axis, of the loop's extent, inserted at `factor_axis`) is
// allocated in the scope block; the rf block `<block>_rf` computes partial reductions
// into it under copies of all the loops (same names, new variables), with the loop's
// iterator `v<loop>` data-parallel; the write-back block (keeping the block's name, so
// its RVs follow it) reduces the partial results over the new axis under the original
// data-parallel loops and `loop`. Iterators, bindings, regions and names follow TVM's
// RFactorBlockCreator / WriteBackBlockCreator exactly. Predicates: the rf block keeps the
// block's predicate (as TVM); the write-back block keeps its conjuncts that mention none
// of the removed reduction loops (TVM gives it `True`, so after a split of a data-parallel
// loop that does not divide it writes outside the buffer).
//
// Preconditions, in the order they are checked:
//   1. `loop` has exactly one child block                          (not-single-block)
//   2. the scope is a stage pipeline: no block of the scope writes a buffer that an
//      earlier block of the scope reads                             (not-stage-pipeline)
//   3. the block is a reduction block                               (not-reduction)
//   4. `loop` is serial, not parallel, vectorized, unrolled or bound (not-serial)
//   5. the outermost loop above the block has it as its first child block
//                                                                   (not-first-child)
//   6. no loop feeds both a data-parallel and a reduce iterator     (mixed-loop)
//   7. `loop` feeds only reduce iterators, and at least one         (not-reduction-loop)
//   8. the outermost loop feeding a reduce iterator has a single child block
//                                                                   (multiple-children)
//   9. no loop of extent > 1 bound to no iterator sits under a reduction loop
//                                                                   (unbound-loop)
//  10. the block writes one buffer, init and body are stores to the same element, the
//      init is the identity and the body `C = C op x` of a known reducer: sum (+),
//      product (*), min (T.min), max (T.max)                         (no-reducer)
//  11. factor_axis is in [-(ndim+1), ndim], normalised numpy-style  (bad-factor-axis)
#include "core/schedule/primitive/buffer_util.h"
#include "core/schedule/primitive/reduction_detail.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cfloat>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace loopscape::schedule::detail {

namespace {

constexpr std::string_view kRfactorPrim = "rfactor";

enum class ReducerKind { Sum, Product, Min, Max };

const char* reducerName(ReducerKind k) {
  switch (k) {
  case ReducerKind::Sum: return "sum";
  case ReducerKind::Product: return "product";
  case ReducerKind::Min: return "min";
  case ReducerKind::Max: return "max";
  }
  return "";
}

/// The identity of a reducer in `t`: 0, 1, the highest value, the lowest finite value.
ir::Expr identityOf(ReducerKind k, ir::DataType t) {
  if (k == ReducerKind::Sum) return ir::makeConst(t, 0);
  if (k == ReducerKind::Product) return ir::makeConst(t, 1);
  const bool lowest = k == ReducerKind::Max;
  if (t.isFloat()) {
    const double m = t.bits() == 16 ? 65504.0 : t.bits() == 32 ? static_cast<double>(FLT_MAX) : DBL_MAX;
    return ir::FloatImm::make(t, lowest ? -m : m);
  }
  if (t.isUInt()) {
    const std::int64_t max = t.bits() >= 64 ? -1 : static_cast<std::int64_t>((std::uint64_t{1} << t.bits()) - 1);
    return ir::IntImm::make(t, lowest ? 0 : max);
  }
  const std::int64_t max =
      t.bits() >= 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (t.bits() - 1)) - 1;
  return ir::IntImm::make(t, lowest ? -max - 1 : max);
}

bool sameConst(const ir::Expr& a, const ir::Expr& b) {
  if (a.dtype() != b.dtype()) return false;
  if (const auto* x = a.as<ir::IntImm>(); x && b.as<ir::IntImm>()) return x->value == b.as<ir::IntImm>()->value;
  if (const auto* x = a.as<ir::FloatImm>(); x && b.as<ir::FloatImm>()) return x->value == b.as<ir::FloatImm>()->value;
  return false;
}

ir::Expr combine(ReducerKind k, const ir::Expr& a, const ir::Expr& b) {
  switch (k) {
  case ReducerKind::Sum: return a + b;
  case ReducerKind::Product: return a * b;
  case ReducerKind::Min: return ir::min(a, b);
  case ReducerKind::Max: return ir::max(a, b);
  }
  return {};
}

bool sameIndices(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b) {
  if (a.size() != b.size()) return false;
  ir::Analyzer analyzer;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!a[i].sameAs(b[i]) && !analyzer.canProve(a[i] == b[i])) return false;
  return true;
}

bool readsBuffer(const ir::Expr& e, const ir::Buffer& buffer) {
  bool found = false;
  ir::forEachExpr(e, [&](const ir::Expr& sub) {
    if (const auto* l = sub.as<ir::BufferLoad>(); l && l->buffer.sameAs(buffer)) found = true;
  });
  return found;
}

struct ReducerMatch {
  ReducerKind kind;
  const ir::BufferStore* update = nullptr;
  ir::Expr lhs; ///< the load of the reduced element
  ir::Expr rhs; ///< the value combined into it
};

/// Condition 10: the reducer of the block, or why there is none.
Expected<ReducerMatch> matchReducer(const ir::Block& block) {
  auto fail = [&](std::string why) {
    return Unexpected(scheduleError(
        kRfactorPrim, "no-reducer",
        fmt::format("the reduction of block '{}' cannot be factorised: {}", block.name, why), {blockRef(block.name)}));
  };
  if (block.writes.size() != 1)
    return fail(fmt::format("it writes {} buffers; rfactor needs exactly one", block.writes.size()));
  const auto* init = block.init.as<ir::BufferStore>();
  const auto* update = block.body.as<ir::BufferStore>();
  if (!init || !update) return fail("its init and its body must each be a single buffer store");
  if (!init->buffer.sameAs(update->buffer) || !update->buffer.sameAs(block.writes[0].buffer) ||
      !sameIndices(init->indices, update->indices))
    return fail("its init and its body must store to the same element of the buffer it writes");
  const ir::Expr& v = update->value;
  std::optional<ReducerKind> kind;
  ir::Expr a, b;
  auto binary = [&](auto* node, ReducerKind k) {
    if (node) {
      kind = k;
      a = node->a;
      b = node->b;
    }
  };
  binary(v.as<ir::Add>(), ReducerKind::Sum);
  binary(v.as<ir::Mul>(), ReducerKind::Product);
  binary(v.as<ir::Min>(), ReducerKind::Min);
  binary(v.as<ir::Max>(), ReducerKind::Max);
  if (!kind)
    return fail(fmt::format("the update '{}' is not a sum, product, min or max of the element with a value",
                            ir::printExpr(v)));
  auto isSelf = [&](const ir::Expr& e) {
    const auto* l = e.as<ir::BufferLoad>();
    return l && l->buffer.sameAs(update->buffer) && sameIndices(l->indices, update->indices);
  };
  ReducerMatch m{*kind, update, {}, {}};
  if (isSelf(a) && !readsBuffer(b, update->buffer)) {
    m.lhs = a;
    m.rhs = b;
  } else if (isSelf(b) && !readsBuffer(a, update->buffer)) {
    m.lhs = b;
    m.rhs = a;
  } else {
    return fail(fmt::format("the update '{}' does not combine the element '{}' with a value that does not read it",
                            ir::printExpr(v), update->buffer->name));
  }
  if (!sameConst(init->value, identityOf(*kind, init->value.dtype())))
    return fail(fmt::format("the init value {} is not the identity {} of the {} reducer", ir::printExpr(init->value),
                            ir::printExpr(identityOf(*kind, init->value.dtype())), reducerName(*kind)));
  return m;
}

/// Condition 2: a later block of the scope writes what an earlier one reads.
std::optional<std::pair<std::string, std::string>> writeAfterRead(const IrTree& tree, const TreeNode& scope) {
  const auto blocks = tree.childBlocks(scope);
  for (std::size_t j = 0; j < blocks.size(); ++j)
    for (std::size_t i = 0; i < j; ++i)
      for (const auto& w : blocks[j]->block()->writes)
        for (const auto& r : blocks[i]->block()->reads)
          if (r.buffer.sameAs(w.buffer)) return std::pair{blocks[i]->block()->name, blocks[j]->block()->name};
  return std::nullopt;
}

ir::IterVar iterFromLoop(const ir::For& loop, std::string name, ir::IterKind kind) {
  return {ir::Var::make(std::move(name), loop.loopVar.dtype()), {loop.min, loop.extent}, kind};
}

ir::Range substituteRange(const ir::Range& r, const ir::VarMap& map) {
  return {ir::substitute(r.min, map), ir::substitute(r.extent, map)};
}

} // namespace

Expected<std::vector<RV>> applyRfactor(Schedule& sch, const std::vector<TraceValue>& inputs,
                                       const std::vector<TraceValue>& attrs) {
  auto loopNode = sch.loop(inputs.at(0), kRfactorPrim);
  if (!loopNode) return Unexpected(loopNode.error());
  auto axisArg = sch.integer(attrs.at(0), kRfactorPrim);
  if (!axisArg) return Unexpected(axisArg.error());
  const TreeNode& rfTn = **loopNode;
  const ir::For& rfLoop = *rfTn.loop();
  const std::string& rfName = loopName(rfTn);
  const IrTree& tree = sch.tree();

  // 1. a single child block.
  const auto children = tree.childBlocks(rfTn);
  if (children.size() != 1)
    return Unexpected(scheduleError(
        kRfactorPrim, "not-single-block",
        fmt::format("the loop '{}' has {} child blocks; rfactor needs exactly one", rfName, children.size()),
        {loopRef(rfName)}));
  const TreeNode& blockTn = *children[0];
  const ir::Block& block = *blockTn.block();
  const auto& realize = *blockTn.realize.as<ir::BlockRealize>();
  const TreeNode* scope = tree.scopeBlock(blockTn);
  // 2. stage pipeline.
  if (auto war = writeAfterRead(tree, *scope))
    return Unexpected(scheduleError(kRfactorPrim, "not-stage-pipeline",
                                    fmt::format("the scope of block '{}' is not a stage pipeline: block '{}' writes a "
                                                "buffer that the earlier block '{}' reads",
                                                block.name, war->second, war->first),
                                    {blockRef(war->first), blockRef(war->second)}));
  // 3. reduction block.
  if (auto problem = reductionBlockProblem(tree, blockTn))
    return Unexpected(scheduleError(kRfactorPrim, "not-reduction", *problem, {blockRef(block.name)}));
  // 4. serial.
  if (rfLoop.forKind != ir::ForKind::Serial)
    return Unexpected(scheduleError(kRfactorPrim, "not-serial",
                                    fmt::format("the loop '{}' of rfactor must be serial, but it is {}", rfName,
                                                rfLoop.forKind == ir::ForKind::ThreadBinding
                                                    ? fmt::format("bound to '{}'", rfLoop.threadTag)
                                                    : std::string(ir::forKindName(rfLoop.forKind))),
                                    {loopRef(rfName)}));

  // Loop vars feeding data-parallel and reduce iterators.
  std::unordered_set<const ir::ExprNode*> dataParVars, reduceVars;
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    auto& set = block.iterVars[i].kind == ir::IterKind::Spatial ? dataParVars : reduceVars;
    ir::forEachExpr(realize.iterValues[i], [&](const ir::Expr& e) {
      if (e.is<ir::Var>()) set.insert(e.get());
    });
  }
  const auto loops = tree.loopsAbove(blockTn);
  // 5. first child of the outermost loop.
  if (tree.childBlocks(*loops.front()).front() != &blockTn)
    return Unexpected(scheduleError(kRfactorPrim, "not-first-child",
                                    fmt::format("the first child block of the outermost loop '{}' is not the "
                                                "reduction block '{}'",
                                                loopName(*loops.front()), block.name),
                                    {loopRef(loopName(*loops.front())), blockRef(block.name)}));
  // 6-9. loop properties, outermost first.
  bool metReductionLoop = false;
  for (const TreeNode* l : loops) {
    const ir::ExprNode* var = l->loop()->loopVar.get();
    const bool dp = dataParVars.contains(var), red = reduceVars.contains(var);
    const std::string& n = loopName(*l);
    if (dp && red)
      return Unexpected(scheduleError(kRfactorPrim, "mixed-loop",
                                      fmt::format("the loop '{}' feeds both data-parallel and reduce iterators of "
                                                  "block '{}'",
                                                  n, block.name),
                                      {loopRef(n), blockRef(block.name)}));
    if (dp) {
      if (l == &rfTn)
        return Unexpected(
            scheduleError(kRfactorPrim, "not-reduction-loop",
                          fmt::format("the loop '{}' feeds data-parallel iterators of block '{}'; rfactor "
                                      "needs a loop that only feeds reduce iterators",
                                      n, block.name),
                          {loopRef(n), blockRef(block.name)}));
      continue;
    }
    if (red) {
      if (!metReductionLoop && tree.childBlocks(*l).size() != 1)
        return Unexpected(scheduleError(kRfactorPrim, "multiple-children",
                                        fmt::format("the outermost reduction loop '{}' of block '{}' has more than one "
                                                    "child block",
                                                    n, block.name),
                                        {loopRef(n)}));
      metReductionLoop = true;
      continue;
    }
    if (l == &rfTn)
      return Unexpected(scheduleError(kRfactorPrim, "not-reduction-loop",
                                      fmt::format("the loop '{}' feeds no reduce iterator of block '{}'; rfactor needs "
                                                  "a loop that the reduction runs over",
                                                  n, block.name),
                                      {loopRef(n), blockRef(block.name)}));
    if (metReductionLoop && !ir::isConstInt(l->loop()->extent, 1))
      return Unexpected(scheduleError(kRfactorPrim, "unbound-loop",
                                      fmt::format("the loop '{}' has an extent other than 1 and feeds no iterator of "
                                                  "block '{}', so it may not sit under a reduction loop",
                                                  n, block.name),
                                      {loopRef(n)}));
  }
  // 10. reducer.
  auto match = matchReducer(block);
  if (!match) return Unexpected(match.error());
  const ir::BufferStore& update = *match->update;
  const ir::Buffer& buffer = update.buffer;
  // 11. factor_axis.
  const auto ndim = static_cast<std::int64_t>(buffer->ndim());
  std::int64_t axis = *axisArg;
  if (axis < -(ndim + 1) || axis > ndim)
    return Unexpected(scheduleError(kRfactorPrim, "bad-factor-axis",
                                    fmt::format("the write buffer '{}' has {} dimension(s), so factor_axis must be in "
                                                "[{}, {}]; got {}",
                                                buffer->name, ndim, -(ndim + 1), ndim, axis)));
  if (axis < 0) axis += ndim + 1;

  // ---- the rf buffer
  std::vector<ir::Expr> rfShape = buffer->shape;
  rfShape.insert(rfShape.begin() + axis, rfLoop.extent);
  const ir::Buffer rfBuffer = ir::makeBuffer(buffer->name + "_rf", buffer->dtype, rfShape, buffer->scope);

  // ---- the rf block
  std::unordered_map<const ir::ExprNode*, const ir::For*> loopOfVar;
  for (const TreeNode* l : loops) loopOfVar[l->loop()->loopVar.get()] = l->loop();
  const std::string rfBlockName = uniqueBlockName(tree, block.name + "_rf");
  const ir::IterVar additional = iterFromLoop(rfLoop, "v" + rfName, ir::IterKind::Spatial);
  ir::VarMap loopToIter{{rfLoop.loopVar.get(), additional.var}};
  ir::VarMap rfVarMap; // old iterator -> expression over the rf block's iterators
  std::vector<ir::IterVar> rfIters{additional};
  std::vector<ir::Expr> rfValues{rfLoop.loopVar};
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    const auto& iv = block.iterVars[i];
    const ir::Expr& binding = realize.iterValues[i];
    if (iv.kind == ir::IterKind::Spatial || !usesAnyVar(binding, {rfLoop.loopVar.get()})) {
      rfIters.push_back(iv);
      rfValues.push_back(binding);
      continue;
    }
    // A reduce iterator over the rf loop: one new reduce iterator per other loop it uses.
    ir::forEachExpr(binding, [&](const ir::Expr& e) {
      if (!e.is<ir::Var>() || loopToIter.contains(e.get())) return;
      auto it = loopOfVar.find(e.get());
      if (it == loopOfVar.end()) return;
      ir::IterVar nv = iterFromLoop(*it->second, "v" + e.as<ir::Var>()->name, ir::IterKind::Reduce);
      loopToIter[e.get()] = nv.var;
      rfIters.push_back(nv);
      rfValues.push_back(e);
    });
    rfVarMap[iv.var.get()] = ir::substitute(binding, loopToIter);
  }
  std::vector<ir::Expr> rfIndices = update.indices;
  rfIndices.insert(rfIndices.begin() + axis, additional.var);
  for (auto& e : rfIndices) e = ir::substitute(e, rfVarMap);
  const ir::Expr rhs = ir::substitute(match->rhs, rfVarMap);
  ir::Stmt rfUpdate =
      ir::BufferStore::make(rfBuffer, combine(match->kind, ir::BufferLoad::make(rfBuffer, rfIndices), rhs), rfIndices);
  ir::Stmt rfInit = ir::BufferStore::make(rfBuffer, identityOf(match->kind, buffer->dtype), rfIndices);
  auto rfRegions = [&](const std::vector<ir::BufferRegion>& regions) {
    std::vector<ir::BufferRegion> out;
    for (const auto& r : regions) {
      if (r.buffer.sameAs(buffer)) {
        std::vector<ir::Range> region = r.region;
        region.insert(region.begin() + axis, ir::Range{additional.var, ir::intImm(1, additional.var.dtype())});
        for (auto& rg : region) rg = substituteRange(rg, rfVarMap);
        out.push_back({rfBuffer, std::move(region)});
      } else {
        ir::BufferRegion nr{r.buffer, {}};
        for (const auto& rg : r.region) nr.region.push_back(substituteRange(rg, rfVarMap));
        out.push_back(std::move(nr));
      }
    }
    return out;
  };
  ir::Stmt rfBlock = ir::Block::make(rfBlockName, rfIters, rfRegions(block.reads), rfRegions(block.writes), rfUpdate,
                                     rfInit, {}, block.annotations);
  // Copies of every loop (same names, new variables) around the rf block.
  ir::VarMap newLoopVars;
  for (const TreeNode* l : loops) {
    const auto& v = l->loop()->loopVar;
    newLoopVars[v.get()] = ir::Var::make(v.as<ir::Var>()->name, v.dtype());
  }
  for (auto& e : rfValues) e = ir::substitute(e, newLoopVars);
  ir::Stmt rfNest = ir::BlockRealize::make(rfValues, ir::substitute(realize.predicate, newLoopVars), rfBlock);
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    const ir::For& f = *(*it)->loop();
    rfNest = ir::For::make(newLoopVars.at(f.loopVar.get()), ir::substitute(f.min, newLoopVars),
                           ir::substitute(f.extent, newLoopVars), f.forKind, rfNest, f.threadTag, f.annotations);
  }

  // ---- the write-back block
  const ir::IterVar wbIter = iterFromLoop(rfLoop, "v" + rfName, ir::IterKind::Reduce);
  ir::VarMap wbVarMap{{additional.var.get(), wbIter.var}};
  std::vector<ir::IterVar> wbIters{wbIter};
  std::vector<ir::Expr> wbValues{rfLoop.loopVar};
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    const auto& iv = block.iterVars[i];
    if (iv.kind != ir::IterKind::Spatial) continue;
    ir::IterVar nv{ir::Var::make(iv.var.as<ir::Var>()->name, iv.var.dtype()), iv.dom, iv.kind};
    wbVarMap[iv.var.get()] = nv.var;
    wbIters.push_back(nv);
    wbValues.push_back(realize.iterValues[i]);
  }
  const ir::Expr wbLhs = ir::substitute(match->lhs, wbVarMap);
  std::vector<ir::Expr> wbRfIndices = update.indices;
  wbRfIndices.insert(wbRfIndices.begin() + axis, additional.var);
  for (auto& e : wbRfIndices) e = ir::substitute(e, wbVarMap);
  const ir::Expr wbRhs = ir::BufferLoad::make(rfBuffer, wbRfIndices);
  std::vector<ir::Expr> wbIndices;
  for (const auto& e : update.indices) wbIndices.push_back(ir::substitute(e, wbVarMap));
  auto pointRegion = [](const ir::Expr& load) {
    const auto* l = load.as<ir::BufferLoad>();
    ir::BufferRegion r{l->buffer, {}};
    for (const auto& idx : l->indices) r.region.push_back({idx, ir::intImm(1, idx.dtype())});
    return r;
  };
  ir::Stmt wbBlock = ir::Block::make(
      block.name, wbIters, {pointRegion(wbRhs)}, {pointRegion(wbLhs)},
      ir::BufferStore::make(buffer, combine(match->kind, wbLhs, wbRhs), wbIndices),
      ir::BufferStore::make(buffer, identityOf(match->kind, buffer->dtype), wbIndices), {}, block.annotations);
  // The write-back block keeps the predicate conjuncts over the loops it keeps (TVM gives
  // it `True`, which lets a split that does not divide write outside the buffer); the
  // conjuncts over the removed reduction loops only restricted the partial reductions.
  std::vector<const ir::ExprNode*> removedLoops;
  for (const TreeNode* l : loops)
    if (l != &rfTn && reduceVars.contains(l->loop()->loopVar.get())) removedLoops.push_back(l->loop()->loopVar.get());
  std::vector<ir::Expr> wbPred;
  for (const auto& c : conjuncts(realize.predicate))
    if (!usesAnyVar(c, removedLoops)) wbPred.push_back(c);
  ir::Stmt wbRealize = ir::BlockRealize::make(wbValues, conjunction(wbPred), wbBlock);

  // The original nest with the block replaced by the write-back block and the loops
  // that feed reduce iterators (except the rf loop) removed.
  std::function<ir::Stmt(const ir::Stmt&)> rebuild = [&](const ir::Stmt& s) -> ir::Stmt {
    if (const auto* f = s.as<ir::For>()) {
      if (!loopOfVar.contains(f->loopVar.get())) return s;
      ir::Stmt body = rebuild(f->body);
      if (f == &rfLoop || !reduceVars.contains(f->loopVar.get()))
        return ir::For::make(f->loopVar, f->min, f->extent, f->forKind, body, f->threadTag, f->annotations);
      return body;
    }
    if (const auto* seq = s.as<ir::SeqStmt>()) {
      std::vector<ir::Stmt> out;
      for (const auto& c : seq->seq) out.push_back(rebuild(c));
      return ir::SeqStmt::make(std::move(out));
    }
    if (s.get() == blockTn.realize.get()) return wbRealize;
    return s;
  };
  ir::Stmt wbNest = rebuild(loops.front()->handle);

  const ir::Block& scopeBlock = *scope->block();
  std::vector<ir::Buffer> allocs = scopeBlock.allocBuffers;
  allocs.push_back(rfBuffer);
  ir::Stmt newScopeBody =
      replaceStmt(scopeBlock.body, loops.front()->node, ir::SeqStmt::make({rfNest, wbNest}));
  ir::Stmt newScope = ir::Block::make(scopeBlock.name, scopeBlock.iterVars, scopeBlock.reads, scopeBlock.writes,
                                      newScopeBody, scopeBlock.init, allocs, scopeBlock.annotations);
  if (auto ok = sch.replace(replaced(sch, scope->node, newScope)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{sch.defineBlock(rfBlockName)};
}

} // namespace loopscape::schedule::detail
