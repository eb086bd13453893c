// compute_at and reverse_compute_at (TVM's tir.Schedule semantics,
// src/tir/schedule/primitive/compute_at.cc of v0.18).
//
// compute_at(block, loop, preserve_unit_loops=False, index=-1)
//   Moves a producer under `loop` and regenerates its loops (ax0, ax1, ...) so that it
//   produces exactly what the consumers under `loop` read: per dimension of each buffer it
//   writes, the consumers' read region relaxed over the loops inside `loop` gives the
//   domain of the iterator indexing that dimension; iterators nothing constrains (the
//   reduce iterators of a reduction producer) take their whole domain. Bindings become
//   `domain_min + ax_k`; where the needed domain is not provably inside the iterator's
//   domain and the buffer, a predicate (T.where) keeps the block inside them. The block
//   itself (iterators, regions, body) is unchanged. Preconditions, in this order:
//   1. `block` and `loop` are in the same scope                      (not-in-same-scope)
//      and `loop` is not an ancestor of `block`                       (loop-is-ancestor)
//   2. the scope is a stage pipeline: no write-after-read between its child blocks, and
//      every region a block reads of a buffer produced in the scope is covered by its
//      producers' writes                                              (not-stage-pipeline)
//   3. compact dataflow: every child block of the scope is a complete or a reduction
//      block                                                          (not-compact-dataflow)
//   4. the block is not an output block: every buffer it writes is allocated by the scope
//      block                                                          (output-block)
//   5. every consumer of the block is under `loop`                    (consumer-not-under-loop)
//   5a. no producer of the block outside `loop` runs after `loop` (compute_at), no
//      consumer of the block outside `loop` runs before `loop` (reverse_compute_at); only
//      a block with no consumers (producers) to anchor it can get there. TVM v0.18 does
//      not check this and moves the block past its dependencies (it then reads data not
//      yet produced, or its consumer does)   (producer-after-loop / consumer-before-loop)
//   6. under `loop`, every statement holding a producer of the block precedes every
//      statement holding a consumer                                    (no-insertion-point)
//   7. `index` is -1 (last possible position: before the first consumer), -2 (first
//      possible: after the last producer) or a position between them  (bad-index)
//   8. each dimension the block writes is a constant, an iterator, iterator * constant or
//      iterator // constant (the forms TVM solves)                     (unsupported-region)
//
// reverse_compute_at(block, loop, preserve_unit_loops=False, index=-1)
//   The mirror image for a consumer: its loops are regenerated to consume exactly what
//   the producers under `loop` write; where several buffers constrain one iterator, the
//   domains intersect (an instance runs only where all it reads is produced; compute_at
//   unites them). Preconditions 1-3, 5a and 6-7 as above, no output-block condition, and
//   5. every producer of the block is under `loop`                    (producer-not-under-loop)
//   8. every producer under `loop` that writes a buffer the block reads is complete there:
//      each of its reduce iterators covers its whole domain over the loops between it
//      and `loop` (TVM's ProducerNotCompleteError; else the block would read partial
//      reductions)                                                    (producer-not-complete)
//   9. as 8 above, on the regions it reads                            (unsupported-region)
//
// Marks: `loop` may be the root or inline mark that sample_compute_location returns
// (Schedule::loopMark). As TVM's ConcreteScheduleNode::ComputeAt, the root mark leaves the
// block where it is (nothing changes, the step is recorded) and the inline mark applies
// compute_inline (reverse_compute_at: reverse_compute_inline) with its preconditions.
//
// Both define no RVs. Block RVs stay valid; RVs of the loops that enclosed the moved block
// alone (removed with it) go stale; the regenerated loops are new (get_loops finds them).
#include "core/schedule/primitive/compute_location.h"
#include "core/schedule/primitive/region.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace loopscape::schedule {

using namespace detail;

namespace {

/// The needed domain of one block iterator and the bound (its own domain and the buffer)
/// that a predicate must enforce when the domain is not provably inside it.
struct IterDomain {
  std::optional<Interval> dom, bound;
};

/// The statements directly in a loop body.
std::vector<ir::Stmt> subtreesOf(const ir::Stmt& body) {
  if (const auto* seq = body.as<ir::SeqStmt>()) return seq->seq;
  return {body};
}

/// Solves `provided` (one dimension of the block's own region, in its iterators) against
/// `required`: the iterator it is written in, with the domain covering `required` and the
/// bound keeping it inside the buffer dimension [0, dimMax]. nullopt when the dimension is
/// a constant (nothing to solve); an error string when the form is not solvable.
struct Solved {
  const ir::ExprNode* var = nullptr;
  IterDomain domain;
};
std::variant<std::monostate, Solved, std::string> solveDimension(const Interval& provided, const Interval& required,
                                                                 const ir::Expr& dimMax,
                                                                 const ir::Analyzer& analyzer) {
  const ir::Expr pmin = ir::simplify(provided.min);
  const ir::Expr pmax = ir::simplify(provided.max);
  const bool point = ir::structuralEqual(pmin, pmax) || analyzer.canProve(pmin == pmax);
  if (point && pmin.is<ir::IntImm>()) return std::monostate{};
  const ir::DataType t = pmin.dtype();
  const ir::Expr zero = ir::intImm(0, t);
  if (const auto* mul = pmin.as<ir::Mul>()) {
    const ir::Expr* var = &mul->a;
    auto c = ir::asConstInt(mul->b);
    if (!c || !var->is<ir::Var>()) {
      var = &mul->b;
      c = ir::asConstInt(mul->a);
    }
    if (c && *c > 0 && var->is<ir::Var>())
      return Solved{var->get(),
                    {Interval{ir::floordiv(required.min, *c), ir::floordiv(required.max, *c)},
                     Interval{zero, ir::floordiv(dimMax, *c)}}};
  }
  if (point && pmin.is<ir::Var>())
    return Solved{pmin.get(), {Interval{required.min, required.max}, Interval{zero, dimMax}}};
  if (const auto* div = pmin.as<ir::FloorDiv>(); point && div && div->a.is<ir::Var>()) {
    auto c = ir::asConstInt(div->b);
    if (c && *c > 0)
      return Solved{div->a.get(),
                    {Interval{required.min * *c, required.max * *c + (*c - 1)},
                     Interval{zero, dimMax * *c + (*c - 1)}}};
  }
  return std::string(ir::printExpr(pmin));
}

/// True if `a` comes before `b` in program order (neither contains the other).
bool precedes(const TreeNode* a, const TreeNode* b) {
  std::vector<const TreeNode*> pathA;
  for (const TreeNode* p = a; p; p = p->parent) pathA.push_back(p);
  const TreeNode* childB = b;
  for (const TreeNode* p = b->parent; p; childB = p, p = p->parent) {
    auto it = std::find(pathA.begin(), pathA.end(), p);
    if (it == pathA.end()) continue;
    if (it == pathA.begin()) return false; // b is under a
    const TreeNode* childA = *(it - 1);
    for (const TreeNode* c : p->children) {
      if (c == childA) return true;
      if (c == childB) return false;
    }
    return false;
  }
  return false;
}

Expected<std::vector<RV>> computeAtImpl(Schedule& sch, const std::vector<TraceValue>& inputs,
                                        const std::vector<TraceValue>& attrs, bool isComputeAt) {
  const std::string_view prim = isComputeAt ? "compute_at" : "reverse_compute_at";
  // The marks sample_compute_location returns (TVM's StmtSRef::RootMark/InlineMark): the
  // root mark leaves the block where it is, the inline mark inlines it.
  switch (sch.loopMark(inputs.at(1))) {
  case LoopMark::Root: {
    if (auto b = sch.block(inputs.at(0), prim); !b) return Unexpected(b.error());
    return std::vector<RV>{};
  }
  case LoopMark::Inline:
    return isComputeAt ? applyComputeInline(sch, {inputs.at(0)}, {}) : applyReverseComputeInline(sch, {inputs.at(0)}, {});
  case LoopMark::None: break;
  }
  auto blockNode = sch.block(inputs.at(0), prim);
  if (!blockNode) return Unexpected(blockNode.error());
  auto loopNode = sch.loop(inputs.at(1), prim);
  if (!loopNode) return Unexpected(loopNode.error());
  const bool preserveUnitLoops = attrs.at(0).get<bool>() ? *attrs.at(0).get<bool>() : false;
  auto indexValue = sch.integer(attrs.at(1), prim);
  if (!indexValue) return Unexpected(indexValue.error());
  const std::int64_t index = *indexValue;

  const IrTree& tree = sch.tree();
  const TreeNode& block = **blockNode;
  const TreeNode& loop = **loopNode;
  const ir::Block& blk = *block.block();
  const ir::For& f = *loop.loop();
  const std::string& bname = blk.name;
  const std::string& lname = loopName(loop);
  const std::vector<IrReference> refs{blockRef(bname), loopRef(lname)};
  auto fail = [&](std::string_view reason, std::string message, std::vector<std::string> moreBlocks = {}) {
    auto r = refs;
    for (auto& b : moreBlocks)
      if (b != bname) r.push_back(blockRef(std::move(b)));
    return Unexpected(scheduleError(prim, reason, std::move(message), std::move(r)));
  };

  // 1. same scope, loop not an ancestor of the block.
  const TreeNode* scope = tree.scopeBlock(block);
  const TreeNode* loopScope = tree.scopeBlock(loop);
  if (loopScope != scope)
    return fail("not-in-same-scope",
                fmt::format("{}: block '{}' and loop '{}' are not in the same scope: the block is in the scope of "
                            "block '{}', the loop in the scope of block '{}'",
                            prim, bname, lname, scope->block()->name, loopScope->block()->name));
  for (const TreeNode* p = block.parent; p && p != scope; p = p->parent)
    if (p == &loop)
      return fail("loop-is-ancestor",
                  fmt::format("{}: loop '{}' is an ancestor of block '{}'; the block can only move under a loop "
                              "that does not already enclose it",
                              prim, lname, bname));

  // 2. stage pipeline.
  if (auto v = stagePipelineViolation(tree, *scope))
    return fail("not-stage-pipeline",
                fmt::format("{}: the scope of block '{}' (block '{}') is not a stage pipeline: {}", prim, bname,
                            scope->block()->name, v->why),
                v->blocks);

  // 3. compact dataflow.
  if (auto v = compactDataflowViolation(tree, *scope))
    return fail("not-compact-dataflow",
                fmt::format("{}: the scope of block '{}' (block '{}') does not have compact dataflow: {}", prim,
                            bname, scope->block()->name, v->why),
                v->blocks);

  // 4. not an output block.
  if (isComputeAt) {
    const auto& allocs = scope->block()->allocBuffers;
    for (const auto& w : blk.writes) {
      if (std::any_of(allocs.begin(), allocs.end(), [&](const ir::Buffer& b) { return b.sameAs(w.buffer); }))
        continue;
      const auto& params = sch.func().params;
      const bool isParam =
          std::any_of(params.begin(), params.end(), [&](const ir::Buffer& b) { return b.sameAs(w.buffer); });
      return fail("output-block",
                  fmt::format("{}: block '{}' is an output block: it writes '{}', {}; only blocks writing buffers "
                              "allocated in the scope can move",
                              prim, bname, w.buffer->name,
                              isParam ? std::string("a parameter of the function")
                                      : fmt::format("which the scope block '{}' does not allocate",
                                                    scope->block()->name)));
    }
  }

  // 5-7. required blocks under the loop, insertion position.
  const auto producers = producersOf(tree, block);
  const auto consumers = consumersOf(tree, block);
  const auto subtrees = subtreesOf(f.body);
  std::vector<std::set<const ir::StmtNode*>> blocksIn(subtrees.size());
  for (std::size_t i = 0; i < subtrees.size(); ++i)
    for (const auto* r : realizesBelow(subtrees[i])) blocksIn[i].insert(r->block.get());
  auto positionOf = [&](const TreeNode* b) -> int {
    for (std::size_t i = 0; i < subtrees.size(); ++i)
      if (blocksIn[i].contains(b->node)) return static_cast<int>(i);
    return -1;
  };
  const auto& required = isComputeAt ? consumers : producers;
  std::vector<std::string> missing;
  for (const TreeNode* r : required)
    if (positionOf(r) < 0) missing.push_back(r->block()->name);
  if (!missing.empty()) {
    const char* relation = isComputeAt ? "consumer" : "producer";
    return fail(isComputeAt ? "consumer-not-under-loop" : "producer-not-under-loop",
                fmt::format("{}: every {} of block '{}' must be under loop '{}', but {} '{}' {} not", prim, relation,
                            bname, lname, missing.size() == 1 ? fmt::format("its {}", relation)
                                                              : fmt::format("its {}s", relation),
                            fmt::join(missing, "', '"), missing.size() == 1 ? "is" : "are"),
                missing);
  }
  // 5a. the dependencies outside `loop` keep their order: a consumer of a moved consumer
  // (reverse_compute_at) must not run before the loop, a producer of a moved producer
  // (compute_at) not after it. Only a block without required blocks can be moved that far.
  const auto& others = isComputeAt ? producers : consumers;
  std::vector<std::string> misplaced;
  for (const TreeNode* o : others)
    if (positionOf(o) < 0 && (isComputeAt ? precedes(&loop, o) : precedes(o, &loop)))
      misplaced.push_back(o->block()->name);
  if (!misplaced.empty()) {
    const char* relation = isComputeAt ? "producer" : "consumer";
    return fail(isComputeAt ? "producer-after-loop" : "consumer-before-loop",
                fmt::format("{}: block '{}' under loop '{}' would run {} its {} '{}', which {} outside the loop",
                            prim, bname, lname, isComputeAt ? "before" : "after",
                            misplaced.size() == 1 ? relation : fmt::format("{}s", relation),
                            fmt::join(misplaced, "', '"), misplaced.size() == 1 ? "runs" : "run"),
                misplaced);
  }
  int lastProducer = -1;
  int firstConsumer = static_cast<int>(subtrees.size());
  for (const TreeNode* p : producers)
    if (int i = positionOf(p); i >= 0) lastProducer = std::max(lastProducer, i);
  for (const TreeNode* c : consumers)
    if (int i = positionOf(c); i >= 0) firstConsumer = std::min(firstConsumer, i);
  if (lastProducer >= firstConsumer)
    return fail("no-insertion-point",
                fmt::format("{}: under loop '{}', a statement holding a producer of block '{}' comes after one "
                            "holding a consumer, so no position satisfies both",
                            prim, lname, bname));
  int position = 0;
  if (index == -1)
    position = firstConsumer;
  else if (index == -2)
    position = lastProducer + 1;
  else if (index >= lastProducer + 1 && index <= firstConsumer)
    position = static_cast<int>(index);
  else
    return fail("bad-index", fmt::format("{}: index {} is not valid for block '{}' under loop '{}'; valid: -1, -2 "
                                         "or {} to {}",
                                         prim, index, bname, lname, lastProducer + 1, firstConsumer));

  // Provided regions (per buffer, in the block's iterators) and required regions
  // (relaxed over the loops inside `loop`).
  ir::Analyzer analyzer = analyzerInside(loop);

  // 8. reverse_compute_at: what the producers under `loop` write is final there; a
  // producer whose reduction still runs across `loop` would be read half-reduced.
  if (!isComputeAt) {
    for (const TreeNode* r : producers) {
      const bool feeds = std::any_of(r->block()->writes.begin(), r->block()->writes.end(),
                                     [&](const ir::BufferRegion& w) { return touches(blk.reads, w.buffer.get()); });
      const auto* realize = r->realize.as<ir::BlockRealize>();
      if (!feeds || !realize) continue;
      const RelaxMap relax = loopDomainsBetween(*r, &loop);
      const auto& ivs = r->block()->iterVars;
      for (std::size_t k = 0; k < ivs.size() && k < realize->iterValues.size(); ++k) {
        if (ivs[k].kind != ir::IterKind::Reduce) continue;
        auto iv = evalInterval(realize->iterValues[k], relax);
        const ir::Expr lastValue = ivs[k].dom.min + ivs[k].dom.extent - 1;
        if (!iv || !analyzer.canProve(iv->min == ivs[k].dom.min) || !analyzer.canProve(iv->max == lastValue))
          return fail("producer-not-complete",
                      fmt::format("{}: the producer '{}' of block '{}' is not complete under loop '{}': its reduce "
                                  "iterator '{}' does not cover its whole domain inside the loop, so block '{}' "
                                  "would read partial results",
                                  prim, r->block()->name, bname, lname, ivs[k].var.as<ir::Var>()->name, bname),
                      {r->block()->name});
      }
    }
  }
  struct BufferNeed {
    ir::Buffer buffer;
    std::vector<Interval> provided, required;
  };
  std::vector<BufferNeed> needs;
  for (const auto& r : isComputeAt ? blk.writes : blk.reads) {
    std::vector<Interval> p;
    for (const auto& range : r.region) p.push_back({range.min, ir::simplify(range.min + range.extent - 1)});
    auto it = std::find_if(needs.begin(), needs.end(), [&](const auto& n) { return n.buffer.sameAs(r.buffer); });
    if (it == needs.end())
      needs.push_back({r.buffer, p, {}});
    else
      it->provided = hull(it->provided, p, ir::Analyzer());
  }
  for (const TreeNode* r : required) {
    for (const auto& region : isComputeAt ? r->block()->reads : r->block()->writes) {
      auto it = std::find_if(needs.begin(), needs.end(), [&](const auto& n) { return n.buffer.sameAs(region.buffer); });
      if (it == needs.end()) continue;
      auto relaxed = relaxRegion(region, bindingsOf(*r), loopDomainsBetween(*r, &loop));
      for (auto& iv : relaxed) iv = {analyzer.simplify(iv.min), analyzer.simplify(iv.max)};
      it->required = hull(it->required, relaxed, analyzer);
    }
  }

  // Domain of every iterator.
  std::unordered_map<const ir::ExprNode*, IterDomain> domains;
  // compute_at unites what the consumers need; reverse_compute_at intersects (an
  // instance of the consumer runs only where everything it reads is produced), as TVM's
  // BlockVarDomainInfo::Join.
  auto unite = [&](std::optional<Interval>& into, const Interval& iv) {
    if (!into)
      into = iv;
    else if (isComputeAt)
      into = Interval{minOf(into->min, iv.min, analyzer), maxOf(into->max, iv.max, analyzer)};
    else
      into = Interval{maxOf(into->min, iv.min, analyzer), minOf(into->max, iv.max, analyzer)};
  };
  for (const auto& need : needs) {
    if (need.required.empty()) continue;
    for (std::size_t d = 0; d < need.provided.size(); ++d) {
      const ir::Expr dimMax = ir::simplify(need.buffer->shape[d] - 1);
      auto solved = solveDimension(need.provided[d], need.required[d], dimMax, analyzer);
      if (auto* form = std::get_if<std::string>(&solved))
        return fail("unsupported-region",
                    fmt::format("{}: block '{}' {} '{}' at dimension {} as '{}'; only a constant, an iterator, "
                                "iterator * constant or iterator // constant can be solved for the region its "
                                "{} need",
                                prim, bname, isComputeAt ? "writes" : "reads", need.buffer->name, d, *form,
                                isComputeAt ? "consumers" : "producers"));
      if (auto* s = std::get_if<Solved>(&solved)) {
        auto& dom = domains[s->var];
        unite(dom.dom, *s->domain.dom);
        unite(dom.bound, *s->domain.bound);
      }
    }
  }

  // Loops, bindings and predicate.
  std::vector<ir::Expr> loopVars, extents, values;
  ir::Expr predicate = ir::boolImm(true);
  for (const auto& iv : blk.iterVars) {
    const Interval own{iv.dom.min, ir::simplify(iv.dom.min + iv.dom.extent - 1)};
    IterDomain d = domains.contains(iv.var.get()) ? domains.at(iv.var.get()) : IterDomain{};
    d.bound = d.bound ? Interval{maxOf(d.bound->min, own.min, analyzer), minOf(d.bound->max, own.max, analyzer)} : own;
    if (!d.dom) {
      d.dom = d.bound;
      d.bound.reset();
    } else {
      d.dom = Interval{analyzer.simplify(d.dom->min), analyzer.simplify(d.dom->max)};
      const Interval isect{maxOf(d.dom->min, d.bound->min, analyzer), minOf(d.dom->max, d.bound->max, analyzer)};
      auto equal = [&](const ir::Expr& a, const ir::Expr& b) {
        return ir::structuralEqual(a, b) || analyzer.canProve(a == b);
      };
      if (equal(d.dom->min, isect.min) && equal(d.dom->max, isect.max)) {
        d.bound.reset();
      } else if (equal(d.bound->min, isect.min) && equal(d.bound->max, isect.max)) {
        d.dom = d.bound;
        d.bound.reset();
      }
    }
    const ir::Expr extent = analyzer.simplify(d.dom->max - d.dom->min + 1);
    ir::Expr value;
    if (preserveUnitLoops || !ir::isConstInt(extent, 1)) {
      ir::Expr var = ir::Var::make(fmt::format("ax{}", loopVars.size()), iv.var.dtype());
      loopVars.push_back(var);
      extents.push_back(extent);
      value = ir::isConstInt(d.dom->min, 0) ? var : d.dom->min + var;
      analyzer.bind(var, {ir::intImm(0, var.dtype()), extent});
    } else {
      value = d.dom->min;
    }
    values.push_back(value);
    if (d.bound) {
      ir::Expr lo = value >= d.bound->min;
      if (!analyzer.canProve(lo)) predicate = ir::isConstInt(predicate, 1) ? lo : (predicate && lo);
      ir::Expr hi = value < analyzer.simplify(d.bound->max + 1);
      if (!analyzer.canProve(hi)) predicate = ir::isConstInt(predicate, 1) ? hi : (predicate && hi);
    }
  }
  ir::Stmt subtree = ir::BlockRealize::make(values, analyzer.simplify(predicate), block.handle);
  for (std::size_t k = loopVars.size(); k-- > 0;)
    subtree = ir::For::make(loopVars[k], ir::intImm(0, loopVars[k].dtype()), extents[k], ir::ForKind::Serial,
                            subtree);
  // Bindings stay `min + ax_k` (min simplified, as TVM builds them; `i + ax0` with a unit
  // ax0 is not folded to `i`).
  auto newSubtrees = subtrees;
  newSubtrees.insert(newSubtrees.begin() + position, subtree);
  const ir::Stmt newLoop =
      ir::For::make(f.loopVar, f.min, f.extent, f.forKind, ir::SeqStmt::make(newSubtrees), f.threadTag, f.annotations);

  // Removal of the block from its old place: its realize and the loops that hold nothing
  // else, up to the first statement sequence.
  const ir::StmtNode* target = block.realize.get();
  const TreeNode* p = block.parent;
  for (; p && !p->isBlock(); p = p->parent) {
    const auto* seq = p->loop()->body.as<ir::SeqStmt>();
    if (seq && seq->seq.size() > 1) break;
    target = p->node;
  }
  if (p && p->isBlock()) {
    const auto* seq = p->block()->body.as<ir::SeqStmt>();
    if (!seq || seq->seq.size() < 2)
      return fail("only-leaf", fmt::format("{}: block '{}' is the only statement of its scope '{}' and cannot be "
                                           "removed from it",
                                           prim, bname, p->block()->name));
  }
  ir::PrimFunc func = sch.func();
  func.body = replaceStmt(func.body, target, {});
  func.body = replaceStmt(func.body, loop.node, newLoop);
  if (auto ok = sch.replace(std::move(func)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{};
}

} // namespace

Expected<std::vector<RV>> applyComputeAt(Schedule& sch, const std::vector<TraceValue>& inputs,
                                         const std::vector<TraceValue>& attrs) {
  return computeAtImpl(sch, inputs, attrs, true);
}

Expected<std::vector<RV>> applyReverseComputeAt(Schedule& sch, const std::vector<TraceValue>& inputs,
                                                const std::vector<TraceValue>& attrs) {
  return computeAtImpl(sch, inputs, attrs, false);
}

} // namespace loopscape::schedule
