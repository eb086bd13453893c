// More loop primitives: add_unit_loop, loop_partition (TVM's tir.Schedule semantics,
// src/tir/schedule/primitive/loop_transformation.cc), and the `tile` helper (tile.h).
//
// add_unit_loop(block_or_loop)
//   Requires nothing. Wraps the loop, or the block's BlockRealize, in a new serial loop
//   `u` of extent 1 (TVM names it "u") and returns it.
//
// loop_partition(loop, factors, preserve_unit_iters=True)
//   Cuts the loop into sequential sibling loops over consecutive ranges. The factors are
//   the SIZES of the ranges (ints, sampled ExprRVs, at most one None):
//   * with a None, it is inferred as extent - sum(other factors), and there are exactly
//     len(factors) ranges;
//   * without a None, a last range covers the remainder [sum(factors), extent), so there
//     are len(factors) + 1 ranges.
//   E.g. extent 100, factors [None, 32] -> [0, 68) and [68, 100); factors [32] -> [0, 32)
//   and [32, 100).
//   Preconditions, in TVM's order:
//   1. the loop's min and extent are constants                (symbolic-shape)
//   2. the loop starts at 0                                   (nonzero-min)
//      (TVM's cumulative bounds ignore a nonzero min, so Loopscape refuses it)
//   3. at most one factor is None                             (multiple-none)
//   4. every factor is a positive integer                     (bad-factor)
//   5. the given factors sum to less than the extent          (factor-sum)
//   6. the loop has no annotations and no thread binding      (annotated-loop)
//   7. there is a block under the loop (it names the result)  (no-block)
//   8. the loop feeds no reduce iterator of a block with an init (reduce-loop)
//      (each copy would re-run the init at the start of its own range and drop the
//      partial result of the ranges before it; TVM produces that wrong program)
//   9. the renamed copies do not clash with existing blocks   (name-clash)
//   The result is TVM's: the loop is replaced by an opaque block "<b>_<l>_common" (b the
//   first block under the loop, l the loop) whose body is, for each range k, an opaque
//   block "<b>_<l><k>_partition" holding the loop `<l><k>` over [start_k, end_k) (the loop
//   variable is not rebased: bindings keep their values). Inside each copy every loop gets
//   a fresh variable and every block is renamed "<name>_<l><k>"; the block iterator bound
//   directly to the loop gets the domain [start_k, end_k), its iterators are fresh
//   variables. The partition loops are returned. preserve_unit_iters is recorded but, as
//   in TVM, has no effect.
//   Regions: the copies keep their exact read/write regions (in their fresh iterators).
//   TVM's BlockMutator instead widens each region of a buffer indexed by bare iterators
//   to the iterators' whole domains (C[0:8, 0:13] for an instance that writes C[v_i, v_j]);
//   a later cache_write then copies back elements the block never wrote, so Loopscape
//   does not copy that. The opaque "_partition" blocks declare what their loop accesses
//   and "_common" what the whole loop accesses (as TVMScript infers the regions of a
//   block from its body): the hull of the inner blocks' regions with every loop inside
//   ranging over its range and every block iterator over its binding's values within its
//   domain, clipped to the buffer; buffers allocated inside are left out (as TVM's
//   GetBlockReadWriteRegion, a reduction's output is not listed as read, so a loop above
//   the partition can still be parallel). Other blocks of the scope thus see the
//   partitioned computation's dataflow.
#include "core/schedule/tile.h"

#include "core/schedule/instruction.h"
#include "core/schedule/primitive/families.h"
#include "core/schedule/primitive/region.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/primitives.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/checked_arith.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace loopscape::schedule {

using namespace detail;

namespace {

// ---------------------------------------------------------------------------- add_unit_loop
Expected<std::vector<RV>> applyAddUnitLoop(Schedule& sch, const std::vector<TraceValue>& inputs,
                                           const std::vector<TraceValue>&) {
  auto node = sch.blockOrLoop(inputs.at(0), "add_unit_loop");
  if (!node) return Unexpected(node.error());
  ir::Expr u = ir::Var::make("u", ir::DataType::int32());
  const ir::Stmt& target = (*node)->isBlock() ? (*node)->realize : (*node)->handle;
  ir::Stmt loop = ir::For::make(u, ir::intImm(0), ir::intImm(1), ir::ForKind::Serial, target);
  if (auto ok = sch.replace(replaced(sch, target.get(), loop)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{sch.defineLoop(u)};
}

// ---------------------------------------------------------------------------- loop_partition

/// The regions that the blocks under a statement access when its loops (and the loops in
/// `relax`) take every value of their ranges: per buffer, in order of first access, the
/// hull of the blocks' regions, each block iterator relaxed over its binding's values
/// intersected with its domain, clipped to the buffer. Buffers allocated under the
/// statement are left out. A block's own regions stand for its body.
class RegionCollector {
public:
  explicit RegionCollector(ir::Analyzer analyzer) : m_analyzer(std::move(analyzer)) {}

  void collect(const ir::Stmt& s, RelaxMap relax) {
    if (const auto* f = s.as<ir::For>()) {
      relax[f->loopVar.get()] = ir::Range{f->min, f->extent};
      collect(f->body, std::move(relax));
    } else if (const auto* seq = s.as<ir::SeqStmt>()) {
      for (const auto& c : seq->seq) collect(c, relax);
    } else if (const auto* br = s.as<ir::BlockRealize>()) {
      const ir::Block& b = br->blockNode();
      for (const auto& a : b.allocBuffers) m_allocated.insert(a.get());
      std::vector<const ir::ExprNode*> relaxed;
      for (const auto& [v, r] : relax) relaxed.push_back(v);
      ir::VarMap bindings;
      RelaxMap iterRelax = relax;
      for (std::size_t i = 0; i < b.iterVars.size(); ++i) {
        const auto& iv = b.iterVars[i];
        const ir::Expr& value = br->iterValues[i];
        if (!usesAnyVar(value, relaxed)) {
          bindings[iv.var.get()] = value;
          continue;
        }
        ir::Expr lo = iv.dom.min, hi = iv.dom.min + iv.dom.extent - 1;
        if (auto in = evalInterval(value, relax)) {
          lo = maxOf(in->min, lo, m_analyzer);
          hi = minOf(in->max, hi, m_analyzer);
        }
        iterRelax[iv.var.get()] = ir::Range{lo, m_analyzer.simplify(hi - lo + 1)};
      }
      for (const auto& r : b.reads) add(m_reads, r, relaxRegion(r, bindings, iterRelax));
      for (const auto& w : b.writes) add(m_writes, w, relaxRegion(w, bindings, iterRelax));
    } else if (const auto* ite = s.as<ir::IfThenElse>()) {
      collect(ite->thenCase, relax);
      if (ite->elseCase.defined()) collect(ite->elseCase, relax);
    }
  }

  std::vector<ir::BufferRegion> reads() const { return regions(m_reads); }
  std::vector<ir::BufferRegion> writes() const { return regions(m_writes); }

private:
  struct Acc {
    ir::Buffer buffer;
    std::vector<Interval> hull;
  };
  void add(std::vector<Acc>& acc, const ir::BufferRegion& r, const std::vector<Interval>& iv) {
    for (auto& a : acc)
      if (a.buffer.sameAs(r.buffer)) {
        a.hull = hull(a.hull, iv, m_analyzer);
        return;
      }
    acc.push_back({r.buffer, iv});
  }
  std::vector<ir::BufferRegion> regions(const std::vector<Acc>& acc) const {
    std::vector<ir::BufferRegion> out;
    for (const auto& a : acc) {
      if (m_allocated.contains(a.buffer.get())) continue;
      ir::BufferRegion r{a.buffer, {}};
      for (std::size_t d = 0; d < a.hull.size(); ++d) {
        const ir::Expr& dim = a.buffer->shape[d];
        const ir::Expr lo = maxOf(m_analyzer.simplify(a.hull[d].min), ir::intImm(0, dim.dtype()), m_analyzer);
        const ir::Expr hi = minOf(m_analyzer.simplify(a.hull[d].max), m_analyzer.simplify(dim - 1), m_analyzer);
        r.region.push_back({lo, m_analyzer.simplify(hi - lo + 1)});
      }
      out.push_back(std::move(r));
    }
    return out;
  }
  ir::Analyzer m_analyzer;
  std::vector<Acc> m_reads, m_writes;
  std::set<const ir::BufferNode*> m_allocated;
};

/// TVM's BlockMutator for one partition copy.
class PartitionCopier final : public ir::StmtMutator {
public:
  PartitionCopier(ir::Expr loopVar, ir::Expr start, ir::Expr end, std::string suffix)
      : m_loopVar(std::move(loopVar)), m_start(std::move(start)), m_end(std::move(end)), m_suffix(std::move(suffix)) {}
  std::vector<std::string> renamed; ///< old block names, in visiting order

protected:
  ir::Stmt visitFor(const ir::For& op, const ir::Stmt& self) override {
    ir::Stmt res = StmtMutator::visitFor(op, self);
    const auto* f = res.as<ir::For>();
    ir::Expr fresh = ir::Var::make(op.loopVar.as<ir::Var>()->name, op.loopVar.dtype());
    ir::Stmt body = ir::substitute(f->body, {{op.loopVar.get(), fresh}});
    return ir::For::make(fresh, f->min, f->extent, f->forKind, body, f->threadTag, f->annotations);
  }

  ir::Stmt visitBlockRealize(const ir::BlockRealize& op, const ir::Stmt&) override {
    int index = -1;
    for (std::size_t i = 0; i < op.iterValues.size(); ++i)
      if (op.iterValues[i].sameAs(m_loopVar)) {
        index = static_cast<int>(i);
        break;
      }
    std::vector<ir::Expr> values;
    for (const auto& v : op.iterValues) values.push_back(mutate(v));
    return ir::BlockRealize::make(std::move(values), mutate(op.predicate), copyBlock(op.blockNode(), index));
  }

private:
  ir::Stmt copyBlock(const ir::Block& op, int index) {
    renamed.push_back(op.name);
    ir::Stmt inner = StmtMutator::visitBlock(op, ir::Stmt()); // nested statements first
    const auto* b = inner.defined() ? inner.as<ir::Block>() : &op;
    const std::string name = op.name + "_" + m_suffix;
    if (b->iterVars.empty() || index < 0)
      return ir::Block::make(name, b->iterVars, b->reads, b->writes, b->body, b->init, b->allocBuffers,
                             b->annotations);
    ir::VarMap map;
    std::vector<ir::IterVar> iters;
    for (std::size_t i = 0; i < b->iterVars.size(); ++i) {
      ir::IterVar iv = b->iterVars[i];
      ir::Expr fresh = ir::Var::make(iv.var.as<ir::Var>()->name, iv.var.dtype());
      map[iv.var.get()] = fresh;
      iv.var = fresh;
      if (static_cast<int>(i) == index) iv.dom = ir::Range::fromMinExtent(m_start, ir::simplify(m_end - m_start));
      iters.push_back(iv);
    }
    auto regions = [&](const std::vector<ir::BufferRegion>& in) {
      std::vector<ir::BufferRegion> out;
      for (const auto& r : in) {
        ir::BufferRegion nr{r.buffer, {}};
        for (const auto& range : r.region)
          nr.region.push_back(ir::Range::fromMinExtent(ir::substitute(range.min, map), ir::substitute(range.extent, map)));
        out.push_back(std::move(nr));
      }
      return out;
    };
    ir::Stmt init = b->init.defined() ? ir::substitute(b->init, map) : ir::Stmt();
    return ir::Block::make(name, std::move(iters), regions(b->reads), regions(b->writes), ir::substitute(b->body, map),
                           init, b->allocBuffers, b->annotations);
  }

  ir::Expr m_loopVar, m_start, m_end;
  std::string m_suffix;
};

Expected<std::vector<RV>> applyLoopPartition(Schedule& sch, const std::vector<TraceValue>& inputs,
                                             const std::vector<TraceValue>&) {
  constexpr std::string_view prim = "loop_partition";
  auto loopNode = sch.loop(inputs.at(0), prim);
  if (!loopNode) return Unexpected(loopNode.error());
  const TreeNode& loop = **loopNode;
  const ir::For& f = *loop.loop();
  const std::string& name = loopName(loop);
  const auto* factorList = inputs.size() > 1 ? inputs[1].get<TraceList>() : nullptr;
  if (!factorList || factorList->empty())
    return Unexpected(scheduleError(prim, "bad-arguments", "loop_partition expects a non-empty list of factors"));

  // 1-2. constant bounds from 0.
  const auto extent = ir::asConstInt(f.extent);
  if (!extent || !ir::asConstInt(f.min))
    return Unexpected(scheduleError(prim, "symbolic-shape",
                                    fmt::format("the min and extent of loop '{}' must be constants; its extent is {}",
                                                name, ir::printExpr(f.extent)),
                                    {loopRef(name)}));
  if (!ir::isConstInt(f.min, 0))
    return Unexpected(scheduleError(prim, "nonzero-min",
                                    fmt::format("the loop '{}' does not start at 0; loop_partition needs a loop "
                                                "that starts at 0",
                                                name),
                                    {loopRef(name)}));
  // 3-4. factors.
  std::vector<std::optional<std::int64_t>> factors;
  int noneCount = 0;
  std::int64_t sum = 0;
  for (const auto& v : *factorList) {
    if (v.isNone()) {
      if (++noneCount > 1)
        return Unexpected(scheduleError(prim, "multiple-none",
                                        fmt::format("loop_partition of loop '{}': at most one factor may be None",
                                                    name),
                                        {loopRef(name)}));
      factors.push_back(std::nullopt);
      continue;
    }
    auto value = sch.integer(v, prim);
    if (!value) return Unexpected(value.error());
    if (*value <= 0)
      return Unexpected(scheduleError(prim, "bad-factor",
                                      fmt::format("loop_partition factor {} of loop '{}' is not positive", *value,
                                                  name),
                                      {loopRef(name)}));
    factors.push_back(*value);
    const auto next = ir::checkedAdd(sum, *value);
    if (!next)
      return Unexpected(scheduleError(prim, "factor-sum",
                                      fmt::format("loop_partition of loop '{}': the factors sum to more than "
                                                  "9223372036854775807, which is not less than the extent {}",
                                                  name, *extent),
                                      {loopRef(name)}));
    sum = *next;
  }
  // 5. the given factors leave a non-empty range.
  if (sum >= *extent)
    return Unexpected(scheduleError(prim, "factor-sum",
                                    fmt::format("loop_partition of loop '{}': the factors sum to {}, which is not "
                                                "less than the extent {}",
                                                name, sum, *extent),
                                    {loopRef(name)}));
  // 6. plain loop.
  if (!f.annotations.empty() || f.forKind == ir::ForKind::ThreadBinding)
    return Unexpected(scheduleError(prim, "annotated-loop",
                                    fmt::format("the loop '{}' has {}; loop_partition needs a loop without "
                                                "annotations or thread binding",
                                                name,
                                                f.forKind == ir::ForKind::ThreadBinding
                                                    ? fmt::format("the thread binding '{}'", f.threadTag)
                                                    : std::string("annotations")),
                                    {loopRef(name)}));
  // 7. a block names the result.
  const auto realizes = realizesBelow(f.body);
  if (realizes.empty())
    return Unexpected(scheduleError(prim, "no-block", fmt::format("there is no block under loop '{}'", name),
                                    {loopRef(name)}));
  const std::string blockName = realizes.front()->blockNode().name + "_" + name;
  // 8. no reduction restarted per range.
  const std::vector<const ir::ExprNode*> self{f.loopVar.get()};
  for (const auto* realize : realizes) {
    const auto& block = realize->blockNode();
    if (!block.init.defined()) continue;
    for (std::size_t i = 0; i < realize->iterValues.size(); ++i)
      if (block.iterVars[i].kind == ir::IterKind::Reduce && usesAnyVar(realize->iterValues[i], self))
        return Unexpected(scheduleError(prim, "reduce-loop",
                                        fmt::format("the loop '{}' is bound to the reduce iterator '{}' of block '{}', "
                                                    "which has an init: every partition would restart the reduction",
                                                    name, block.iterVars[i].var.as<ir::Var>()->name, block.name),
                                        {loopRef(name), blockRef(block.name)}));
  }

  // Range ends: the None factor is the rest; without None the remainder is a last range.
  std::vector<std::int64_t> ends;
  std::int64_t acc = 0;
  for (const auto& fct : factors) {
    acc += fct ? *fct : *extent - sum;
    ends.push_back(acc);
  }
  if (noneCount == 0) ends.push_back(*extent);

  const ir::DataType t = f.loopVar.dtype();
  const ir::Analyzer outerAnalyzer = analyzerAt(loop);
  RegionCollector commonRegions(outerAnalyzer);
  commonRegions.collect(loop.handle, {});
  std::vector<ir::Stmt> partitions;
  std::vector<ir::Expr> vars;
  std::vector<std::string> newNames;
  std::int64_t start = 0;
  for (std::size_t k = 0; k < ends.size(); ++k) {
    const std::string suffix = fmt::format("{}{}", name, k);
    ir::Expr var = ir::Var::make(suffix, t);
    ir::Stmt body = ir::substitute(f.body, {{f.loopVar.get(), var}});
    PartitionCopier copier(var, ir::intImm(start, t), ir::intImm(ends[k], t), suffix);
    body = copier.mutate(body);
    for (const auto& old : copier.renamed) newNames.push_back(old + "_" + suffix);
    ir::Stmt loopStmt = ir::For::make(var, ir::intImm(start, t), ir::intImm(ends[k] - start, t), ir::ForKind::Serial, body);
    RegionCollector partRegions(outerAnalyzer);
    partRegions.collect(loopStmt, {});
    ir::Stmt block = ir::Block::make(fmt::format("{}{}_partition", blockName, k), {}, partRegions.reads(),
                                     partRegions.writes(), loopStmt);
    partitions.push_back(ir::BlockRealize::make({}, ir::boolImm(true), block));
    newNames.push_back(fmt::format("{}{}_partition", blockName, k));
    vars.push_back(var);
    start = ends[k];
  }
  newNames.push_back(blockName + "_common");
  // 9. unique block names.
  for (const auto& n : newNames)
    if (sch.tree().findBlock(n))
      return Unexpected(scheduleError(prim, "name-clash",
                                      fmt::format("loop_partition of loop '{}' would create a second block named "
                                                  "'{}'",
                                                  name, n),
                                      {loopRef(name), blockRef(n)}));
  ir::Stmt common = ir::BlockRealize::make(
      {}, ir::boolImm(true), ir::Block::make(blockName + "_common", {}, commonRegions.reads(), commonRegions.writes(),
                                         ir::SeqStmt::make(partitions)));
  if (auto ok = sch.replace(replaced(sch, loop.node, common)); !ok) return Unexpected(ok.error());
  std::vector<RV> out;
  for (const auto& v : vars) out.push_back(sch.defineLoop(v));
  return out;
}

} // namespace

// ---------------------------------------------------------------------------- tile
Expected<std::vector<RV>> tile(Schedule& sch, const std::vector<RV>& loops, const std::vector<std::int64_t>& tileSizes) {
  if (loops.empty() || loops.size() != tileSizes.size())
    return Unexpected(scheduleError("tile", "bad-arguments",
                                    fmt::format("tile expects one tile size per loop, got {} loops and {} sizes",
                                                loops.size(), tileSizes.size())));
  Schedule work = sch; // all or nothing
  std::vector<LoopRV> outer, inner;
  for (std::size_t k = 0; k < loops.size(); ++k) {
    auto parts = split(work, LoopRV(loops[k]), {std::nullopt, tileSizes[k]});
    if (!parts) return Unexpected(parts.error());
    outer.push_back((*parts)[0]);
    inner.push_back((*parts)[1]);
  }
  std::vector<LoopRV> order = outer;
  order.insert(order.end(), inner.begin(), inner.end());
  if (auto ok = reorder(work, order); !ok) return Unexpected(ok.error());
  sch = work;
  return std::vector<RV>(order.begin(), order.end());
}

std::span<const InstructionKind> loopExtraKinds() {
  static const InstructionKind kinds[] = {
      {.name = "add_unit_loop",
       .jsonName = "AddUnitLoop",
       .inputNames = {"block_or_loop"},
       .outputs = {RVKind::Loop},
       .apply = applyAddUnitLoop,
       .appliesTo = AppliesTo::BlockOrLoop,
       .inputSpecs = {{}},
       .description = "add a loop of extent 1",
       .shortcut = "Ctrl+Alt+Shift+U"},
      {.name = "loop_partition",
       .jsonName = "LoopPartition",
       .inputNames = {"loop", "factors"},
       .attrs = {{"preserve_unit_iters", true}},
       .outputs = {RVKind::Loop},
       .outputsVariadic = true,
       .apply = applyLoopPartition,
       .appliesTo = AppliesTo::Loop,
       .inputSpecs = {{}, {ParamKind::Factors}},
       .description = "partition the loop into ranges",
       .shortcut = "Ctrl+Alt+Shift+P"},
  };
  return kinds;
}

} // namespace loopscape::schedule
