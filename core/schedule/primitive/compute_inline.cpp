// compute_inline and reverse_compute_inline (TVM's tir.Schedule semantics,
// src/tir/schedule/primitive/compute_inline.cc of v0.18).
//
// compute_inline(block)
//   Inlines a producer into its consumers: every load `B[e0, e1, ...]` of the buffer it
//   writes becomes the producer's value with its index variables replaced by e0, e1, ...
//   (no simplification, as TVM). The block, the loops that held only it and the buffer's
//   allocation are removed; the blocks that read the buffer get their read/write regions
//   derived again from their bodies (TVM's GetBlockReadWriteRegion). Preconditions, in
//   this order:
//   1. the block has no reduce iterator and no init               (reduction-block)
//   2. it writes exactly one buffer                               (not-single-write)
//   3. its scope is a stage pipeline                              (not-stage-pipeline)
//   4. the buffer is allocated by the scope block, not a parameter (output-block)
//   5. the block is complete: the only writer of the buffer in the scope and it does not
//      read it                                                    (not-complete)
//   6. its body is a single store `B[v0, v1, ...] = value` whose indices are distinct
//      variables and whose value uses no other variable           (body-pattern)
//   7. it is not the only leaf of its scope                       (only-leaf)
//   (The root block cannot be named by a block RV, so "not the root" always holds.)
//
// reverse_compute_inline(block)
//   Inlines a consumer into its single producer: the producer's store `B[p] = v` becomes
//   the consumer's store with its loads of B replaced by v and the consumer's load-index
//   variables replaced by p. The consumer, its lone loops and B's allocation are removed;
//   the producer's regions are derived again from its new body. Preconditions:
//   1. the block has no reduce iterator and no init               (reduction-block)
//   2. its scope is a stage pipeline                              (not-stage-pipeline)
//   3. it reads exactly one buffer that a block of the scope writes (not-single-read)
//   4. it is complete (see above)                                 (not-complete)
//   5. that buffer has one producer in the scope; it is complete, allocated by the scope
//      (not a parameter) and read by no other block               (not-single-producer)
//   6. the producer is a leaf block (no nested blocks) whose body is a single store of
//      the buffer (the rewrite replaces its stores; loads and allocations of the buffer
//      inside an opaque producer, e.g. a partitioned reduction, would stay) (opaque-producer)
//   7. the block has no predicate, its body is one store, all its loads of the buffer use
//      the same indices, which are distinct variables and the only variables of the store
//                                                                  (body-pattern)
//   8. it is not the only leaf of its scope                       (only-leaf)
//
// Both define no RVs; the RV of the inlined block and of its removed loops go stale.
#include "core/schedule/primitive/compute_location.h"
#include "core/schedule/primitive/region.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/mutator.h"
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

namespace loopscape::schedule {

using namespace detail;

namespace {

/// The distinct buffers of `regions`, in order.
std::vector<ir::Buffer> buffersOf(const std::vector<ir::BufferRegion>& regions) {
  std::vector<ir::Buffer> out;
  for (const auto& r : regions)
    if (std::none_of(out.begin(), out.end(), [&](const ir::Buffer& b) { return b.sameAs(r.buffer); }))
      out.push_back(r.buffer);
  return out;
}

/// Why `b` is not a complete block: "is a reduction block (...)" or, for a scan or opaque
/// iterator, "is not a complete block (...)".
std::optional<std::string> reductionReason(const ir::Block& b) {
  for (const auto& iv : b.iterVars)
    if (iv.kind != ir::IterKind::Spatial)
      return fmt::format("is {} block (it has the {} iterator '{}')",
                         iv.kind == ir::IterKind::Reduce ? "a reduction" : "not a complete", ir::iterKindName(iv.kind),
                         iv.var.as<ir::Var>()->name);
  if (b.init.defined()) return std::string("is a reduction block (it has an init statement)");
  return std::nullopt;
}

/// The variables `s` uses, by identity.
std::set<const ir::ExprNode*> varsOf(const ir::Stmt& s) {
  std::set<const ir::ExprNode*> out;
  ir::forEachExpr(s, [&](const ir::Expr& e) {
    if (e.is<ir::Var>()) out.insert(e.get());
  });
  return out;
}

/// True if `indices` are distinct variables and exactly the variables `store` uses.
bool distinctVarsCoveringStore(const std::vector<ir::Expr>& indices, const ir::Stmt& store) {
  std::set<const ir::ExprNode*> seen;
  for (const auto& i : indices) {
    if (!i.is<ir::Var>() || !seen.insert(i.get()).second) return false;
  }
  return seen == varsOf(store);
}

/// Where the block is removed: its realize and the loops that hold nothing else; null if
/// it is the only leaf of its scope.
const ir::StmtNode* removalTarget(const TreeNode& block) {
  const ir::StmtNode* target = block.realize.get();
  const TreeNode* p = block.parent;
  for (; p && !p->isBlock(); p = p->parent) {
    const auto* seq = p->loop()->body.as<ir::SeqStmt>();
    if (seq && seq->seq.size() > 1) return target;
    target = p->node;
  }
  const auto* seq = p->block()->body.as<ir::SeqStmt>();
  return seq && seq->seq.size() > 1 ? target : nullptr;
}

/// Rewrites blocks after an inlining: loads of the inlined buffer through `load`, the
/// buffer's allocation dropped, and the regions of every block that accessed the buffer
/// (or `rederive`) derived again from its body.
class Inliner final : public ir::StmtMutator {
public:
  /// The replacement of a load of the buffer, given its (already rewritten) indices.
  using LoadFn = std::function<ir::Expr(const std::vector<ir::Expr>&)>;
  Inliner(ir::Buffer buffer, LoadFn load, const ir::StmtNode* replaceBlock = nullptr, ir::Stmt newBody = {})
      : m_buffer(std::move(buffer)), m_load(std::move(load)), m_replaceBlock(replaceBlock),
        m_newBody(std::move(newBody)) {}

protected:
  ir::Expr visitBufferLoad(const ir::BufferLoad& op, const ir::Expr& self) override {
    if (m_load && op.buffer.sameAs(m_buffer)) {
      bool changed = false;
      return m_load(mutateAll(op.indices, changed));
    }
    return ir::StmtMutator::visitBufferLoad(op, self);
  }
  ir::Stmt visitBlock(const ir::Block& op, const ir::Stmt& self) override {
    const bool replace = self.get() == m_replaceBlock;
    ir::Stmt s = ir::StmtMutator::visitBlock(op, self);
    const ir::Block* b = s.as<ir::Block>();
    ir::Stmt body = replace ? m_newBody : b->body;
    std::vector<ir::Buffer> allocs;
    for (const auto& a : b->allocBuffers)
      if (!a.sameAs(m_buffer)) allocs.push_back(a);
    const bool accessed = replace || touches(op.reads, m_buffer.get()) || touches(op.writes, m_buffer.get());
    if (!accessed && allocs.size() == b->allocBuffers.size()) return s;
    auto reads = b->reads;
    auto writes = b->writes;
    ir::Stmt rebuilt = ir::Block::make(b->name, b->iterVars, reads, writes, body, b->init, allocs, b->annotations);
    if (accessed) std::tie(reads, writes) = accessRegionsOfBody(*rebuilt.as<ir::Block>());
    return ir::Block::make(b->name, b->iterVars, std::move(reads), std::move(writes), std::move(body), b->init,
                           std::move(allocs), b->annotations);
  }

private:
  ir::Buffer m_buffer;
  LoadFn m_load;
  const ir::StmtNode* m_replaceBlock;
  ir::Stmt m_newBody;
};

bool allocatedBy(const TreeNode& scope, const ir::Buffer& buffer) {
  const auto& allocs = scope.block()->allocBuffers;
  return std::any_of(allocs.begin(), allocs.end(), [&](const ir::Buffer& b) { return b.sameAs(buffer); });
}

// ---------------------------------------------------------------------------- compute_inline
Expected<std::vector<RV>> computeInline(Schedule& sch, const std::vector<TraceValue>& inputs) {
  constexpr std::string_view prim = "compute_inline";
  auto blockNode = sch.block(inputs.at(0), prim);
  if (!blockNode) return Unexpected(blockNode.error());
  const IrTree& tree = sch.tree();
  const TreeNode& block = **blockNode;
  const ir::Block& blk = *block.block();
  const std::string& name = blk.name;
  const TreeNode* scope = tree.scopeBlock(block);
  auto fail = [&](std::string_view reason, std::string message, std::vector<std::string> more = {}) {
    std::vector<IrReference> refs{blockRef(name)};
    for (auto& b : more)
      if (b != name) refs.push_back(blockRef(std::move(b)));
    return Unexpected(scheduleError(prim, reason, std::move(message), std::move(refs)));
  };

  // 1. complete, not reduction.
  if (auto why = reductionReason(blk))
    return fail("reduction-block",
                fmt::format("compute_inline: block '{}' {}; only a complete block can be inlined", name, *why));
  // 2. one output buffer.
  const auto written = buffersOf(blk.writes);
  if (written.size() != 1)
    return fail("not-single-write", fmt::format("compute_inline: block '{}' writes {} buffers; it must write "
                                                "exactly one",
                                                name, written.size()));
  const ir::Buffer& buffer = written.front();
  // 3. stage pipeline.
  if (auto v = stagePipelineViolation(tree, *scope))
    return fail("not-stage-pipeline",
                fmt::format("compute_inline: the scope of block '{}' (block '{}') is not a stage pipeline: {}", name,
                            scope->block()->name, v->why),
                v->blocks);
  // 4. not an output.
  if (!allocatedBy(*scope, buffer)) {
    const auto& params = sch.func().params;
    const bool isParam =
        std::any_of(params.begin(), params.end(), [&](const ir::Buffer& b) { return b.sameAs(buffer); });
    return fail("output-block",
                fmt::format("compute_inline: block '{}' is an output block: it writes '{}', {}; only a block writing "
                            "a buffer allocated in its scope can be inlined",
                            name, buffer->name,
                            isParam ? std::string("a parameter of the function")
                                    : fmt::format("which the scope block '{}' does not allocate", scope->block()->name)));
  }
  // 5. complete.
  if (auto why = completeViolation(blk, tree.childBlocks(*scope)))
    return fail("not-complete", fmt::format("compute_inline: block '{}' is not a complete block: {}", name, *why));
  // 6. body pattern.
  const auto* store = blk.body.as<ir::BufferStore>();
  if (!store || !store->buffer.sameAs(buffer) || !distinctVarsCoveringStore(store->indices, blk.body))
    return fail("body-pattern",
                fmt::format("compute_inline: the body of block '{}' must be a single store to '{}' whose indices are "
                            "distinct variables, the only variables of the store{}",
                            name, buffer->name,
                            store ? fmt::format("; it is '{}[{}] = ...'", store->buffer->name,
                                                fmt::join([&] {
                                                  std::vector<std::string> s;
                                                  for (const auto& i : store->indices) s.push_back(ir::printExpr(i));
                                                  return s;
                                                }(),
                                                          ", "))
                                  : std::string("; it is not a single store")));
  // 7. not the only leaf.
  const ir::StmtNode* target = removalTarget(block);
  if (!target)
    return fail("only-leaf", fmt::format("compute_inline: block '{}' is the only leaf of its scope '{}' and cannot be "
                                         "removed",
                                         name, scope->block()->name));

  const ir::BufferStore producer = *store;
  Inliner inliner(buffer, [producer](const std::vector<ir::Expr>& indices) {
    ir::VarMap map;
    for (std::size_t k = 0; k < producer.indices.size(); ++k) map[producer.indices[k].get()] = indices[k];
    return ir::substitute(producer.value, map);
  });
  ir::PrimFunc func = sch.func();
  func.body = inliner.mutate(replaceStmt(func.body, target, {}));
  if (auto ok = sch.replace(std::move(func)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{};
}

// ---------------------------------------------------------------------------- reverse_compute_inline
Expected<std::vector<RV>> reverseComputeInline(Schedule& sch, const std::vector<TraceValue>& inputs) {
  constexpr std::string_view prim = "reverse_compute_inline";
  auto blockNode = sch.block(inputs.at(0), prim);
  if (!blockNode) return Unexpected(blockNode.error());
  const IrTree& tree = sch.tree();
  const TreeNode& block = **blockNode;
  const ir::Block& blk = *block.block();
  const std::string& name = blk.name;
  const TreeNode* scope = tree.scopeBlock(block);
  const auto siblings = tree.childBlocks(*scope);
  auto fail = [&](std::string_view reason, std::string message, std::vector<std::string> more = {}) {
    std::vector<IrReference> refs{blockRef(name)};
    for (auto& b : more)
      if (b != name) refs.push_back(blockRef(std::move(b)));
    return Unexpected(scheduleError(prim, reason, std::move(message), std::move(refs)));
  };

  // 1. not a reduction.
  if (auto why = reductionReason(blk))
    return fail("reduction-block",
                fmt::format("reverse_compute_inline: block '{}' {}; only a complete block can be inlined", name, *why));
  // 2. stage pipeline.
  if (auto v = stagePipelineViolation(tree, *scope))
    return fail("not-stage-pipeline",
                fmt::format("reverse_compute_inline: the scope of block '{}' (block '{}') is not a stage pipeline: {}",
                            name, scope->block()->name, v->why),
                v->blocks);
  // 3. one buffer read that the scope produces.
  std::vector<ir::Buffer> produced;
  for (const auto& b : buffersOf(blk.reads))
    if (std::any_of(siblings.begin(), siblings.end(),
                    [&](const TreeNode* s) { return s != &block && touches(s->block()->writes, b.get()); }))
      produced.push_back(b);
  if (produced.size() != 1) {
    std::vector<std::string> names;
    for (const auto& b : produced) names.push_back(b->name);
    return fail("not-single-read",
                fmt::format("reverse_compute_inline: block '{}' must read exactly one buffer written in its scope; "
                            "it reads {}",
                            name, names.empty() ? std::string("none") : fmt::format("'{}'", fmt::join(names, "', '"))));
  }
  const ir::Buffer buffer = produced.front();
  // 4. complete.
  if (auto why = completeViolation(blk, siblings))
    return fail("not-complete",
                fmt::format("reverse_compute_inline: block '{}' is not a complete block: {}", name, *why));
  // 5. a single complete producer, whose only consumer is this block.
  const auto producers = producersOf(tree, block);
  std::vector<std::string> producerNames;
  for (const auto* p : producers) producerNames.push_back(p->block()->name);
  if (producers.size() != 1 || !touches(producers.front()->block()->writes, buffer.get()))
    return fail("not-single-producer",
                fmt::format("reverse_compute_inline: block '{}' must have exactly one producer (the writer of '{}'); "
                            "it has {}",
                            name, buffer->name,
                            producerNames.empty() ? std::string("none")
                                                  : fmt::format("'{}'", fmt::join(producerNames, "', '"))),
                producerNames);
  const TreeNode& producer = *producers.front();
  const std::string& pname = producer.block()->name;
  if (auto why = completeViolation(*producer.block(), siblings))
    return fail("not-single-producer",
                fmt::format("reverse_compute_inline: the producer '{}' of block '{}' is not a complete block: {}", pname,
                            name, *why),
                {pname});
  if (!allocatedBy(*scope, buffer))
    return fail("not-single-producer",
                fmt::format("reverse_compute_inline: the producer '{}' of block '{}' writes '{}', which the scope does "
                            "not allocate (a parameter of the function stays written)",
                            pname, name, buffer->name),
                {pname});
  for (const TreeNode* c : consumersOf(tree, producer))
    if (c != &block)
      return fail("not-single-producer",
                  fmt::format("reverse_compute_inline: the producer '{}' of block '{}' has another consumer, block "
                              "'{}'; it must feed only the inlined block",
                              pname, name, c->block()->name),
                  {pname, c->block()->name});
  // 6. the producer is a leaf block whose body is a single store of the buffer.
  const auto* producerStore = producer.block()->body.as<ir::BufferStore>();
  if (!tree.childBlocks(producer).empty() || !producerStore || !producerStore->buffer.sameAs(buffer))
    return fail("opaque-producer",
                fmt::format("reverse_compute_inline: the producer '{}' of block '{}' must be a leaf block whose body "
                            "is a single store to '{}'; it {}",
                            pname, name, buffer->name,
                            !tree.childBlocks(producer).empty()
                                ? fmt::format("contains the nested block '{}'",
                                              tree.childBlocks(producer).front()->block()->name)
                                : std::string("has another body")),
                {pname});
  // 7. body pattern.
  const auto* realize = block.realize.as<ir::BlockRealize>();
  const auto* store = blk.body.as<ir::BufferStore>();
  std::vector<const ir::BufferLoad*> loads;
  if (store)
    ir::forEachExpr(blk.body, [&](const ir::Expr& e) {
      if (const auto* l = e.as<ir::BufferLoad>(); l && l->buffer.sameAs(buffer)) loads.push_back(l);
    });
  bool sameIndices = !loads.empty();
  for (const auto* l : loads)
    for (std::size_t k = 0; sameIndices && k < l->indices.size(); ++k)
      sameIndices = ir::structuralEqual(l->indices[k], loads.front()->indices[k]);
  if (!realize || !ir::isConstInt(realize->predicate, 1) || !store || !sameIndices ||
      !distinctVarsCoveringStore(loads.front()->indices, blk.body))
    return fail("body-pattern",
                fmt::format("reverse_compute_inline: block '{}' must have no predicate and a body that is a single "
                            "store whose loads of '{}' all use the same indices, distinct variables that are the "
                            "only variables of the store",
                            name, buffer->name));
  // 8. not the only leaf.
  const ir::StmtNode* target = removalTarget(block);
  if (!target)
    return fail("only-leaf", fmt::format("reverse_compute_inline: block '{}' is the only leaf of its scope '{}' and "
                                         "cannot be removed",
                                         name, scope->block()->name));

  // 9. the consumer reads all the producer writes: where both index a dimension by an
  //    iterator of constant range, the producer's range lies within the consumer's (else the
  //    inlined store would also run for elements the consumer never computes, past the end
  //    of its output).
  auto iterOf = [](const ir::Block& b, const ir::Expr& e) -> const ir::IterVar* {
    for (const auto& iv : b.iterVars)
      if (iv.var.sameAs(e)) return &iv;
    return nullptr;
  };
  for (std::size_t k = 0; k < loads.front()->indices.size() && k < producerStore->indices.size(); ++k) {
    const ir::IterVar* c = iterOf(blk, loads.front()->indices[k]);
    const ir::IterVar* p = iterOf(*producer.block(), producerStore->indices[k]);
    if (!c || !p) continue;
    const auto cMin = ir::asConstInt(c->dom.min), cExtent = ir::asConstInt(c->dom.extent);
    const auto pMin = ir::asConstInt(p->dom.min), pExtent = ir::asConstInt(p->dom.extent);
    if (!cMin || !cExtent || !pMin || !pExtent) continue;
    // In 128 bits: the ends of ranges read from the program must not wrap.
    const __int128 cEnd = static_cast<__int128>(*cMin) + *cExtent, pEnd = static_cast<__int128>(*pMin) + *pExtent;
    if (*pMin < *cMin || pEnd > cEnd)
      return fail("overcomputed-producer",
                  fmt::format("reverse_compute_inline: block '{}' reads '{}' in dimension {} over [{}, {}), but its "
                              "producer '{}' writes it over [{}, {}): the inlined store would also run where '{}' "
                              "computes nothing",
                              name, buffer->name, k, *cMin, cEnd, pname, *pMin, pEnd, name),
                  {pname});
  }

  // The producer's stores of the buffer become the consumer's store.
  const std::vector<ir::Expr> loadIndices = loads.front()->indices;
  const ir::BufferStore consumerStore = *store;
  struct Rewriter final : ir::StmtMutator {
    ir::Buffer buffer;
    std::vector<ir::Expr> loadIndices;
    ir::BufferStore consumer;
    ir::Stmt visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
      if (!op.buffer.sameAs(buffer)) return self;
      ir::VarMap map;
      for (std::size_t k = 0; k < loadIndices.size(); ++k) map[loadIndices[k].get()] = op.indices[k];
      const ir::Expr value = op.value;
      struct LoadReplacer final : ir::ExprMutator {
        ir::Buffer buffer;
        ir::Expr value;
        const ir::VarMap* map = nullptr;
        ir::Expr visitBufferLoad(const ir::BufferLoad& l, const ir::Expr& s) override {
          if (l.buffer.sameAs(buffer)) return value;
          return ir::ExprMutator::visitBufferLoad(l, s);
        }
        ir::Expr visitVar(const ir::Var&, const ir::Expr& s) override {
          auto it = map->find(s.get());
          return it == map->end() ? s : it->second;
        }
      } replacer;
      replacer.buffer = buffer;
      replacer.value = value;
      replacer.map = &map;
      std::vector<ir::Expr> indices;
      for (const auto& i : consumer.indices) indices.push_back(replacer.mutate(i));
      return ir::BufferStore::make(consumer.buffer, replacer.mutate(consumer.value), std::move(indices));
    }
  } rewriter;
  rewriter.buffer = buffer;
  rewriter.loadIndices = loadIndices;
  rewriter.consumer = consumerStore;
  const ir::Stmt newBody = rewriter.mutate(producer.block()->body);

  Inliner inliner(buffer, nullptr, producer.node, newBody);
  ir::PrimFunc func = sch.func();
  func.body = inliner.mutate(replaceStmt(func.body, target, {}));
  if (auto ok = sch.replace(std::move(func)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{};
}

} // namespace

Expected<std::vector<RV>> applyComputeInline(Schedule& sch, const std::vector<TraceValue>& inputs,
                                             const std::vector<TraceValue>&) {
  return computeInline(sch, inputs);
}

Expected<std::vector<RV>> applyReverseComputeInline(Schedule& sch, const std::vector<TraceValue>& inputs,
                                                    const std::vector<TraceValue>&) {
  return reverseComputeInline(sch, inputs);
}

} // namespace loopscape::schedule
