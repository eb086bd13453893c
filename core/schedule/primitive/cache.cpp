// Caching: cache_read and cache_write (TVM's tir.Schedule semantics, as in
// src/tir/schedule/primitive/cache_read_write.cc), plus the family's table; set_scope and
// storage_align live in cache_storage.cpp.
//
// cache_read(block, read_buffer_index, storage_scope, consumer_blocks=[])
//   Preconditions, checked in this order:
//   1. storage_scope is "global", "shared" or "local"                  (bad-scope)
//   2. read_buffer_index indexes the block's reads                      (index-out-of-range)
//   3. at most one block of the block's scope writes the buffer         (multiple-writers)
//   4. every consumer block lies in that scope and reads the buffer
//      (itself or a block nested in it)                                 (not-a-consumer)
//   Effect: a copy block `<buffer>_<scope>` (a fresh name if taken) with loops ax0, ax1, ...
//   and iterators v0, v1, ... copies the buffer into a new buffer `<buffer>_<scope>` of
//   that scope, allocated (appended) at the scope block. For an input buffer (no writer in
//   the scope) the copy covers the scope's read region of the buffer, else the whole
//   buffer, and goes first in the scope. Otherwise it covers the writer's write region and
//   goes right before the first consumer that follows the writer, at the innermost loop
//   or block holding both (TVM's CacheLocDetector). Readers are redirected: every block
//   that reads the buffer and does not write it, or with consumer_blocks only those blocks
//   and the blocks nested in them (their loads and read regions). The given block is not
//   redirected unless it is one of consumer_blocks (TVM). Returns the copy block.
//   When the copy goes directly into the scope block, the cache is compact (its shape is
//   the copied region, indices are shifted by the region's start); inside a loop it has
//   the buffer's full shape (TVM's cache_full_region).
//
// cache_write(block, write_buffer_index, storage_scope, consumer_blocks=[])
//   1. storage_scope is valid                                           (bad-scope)
//   2. write_buffer_index indexes the block's writes                    (index-out-of-range)
//   3. the block is the only writer of the buffer in its scope          (multiple-writers)
//   4. every consumer block lies in the scope and reads the buffer      (not-a-consumer)
//   5. neither the block nor a block nested in it reads the buffer, unless a block between
//      the reader and the cached block (both included) has an init statement (a reduction
//      initialized inside the cached block); the cache would be read before it is filled
//      (TVM fills it from nothing either)                               (reads-own-output)
//   6. the written region, relaxed over the loops below the write-back, is exact: a
//      region whose bounds depend both on loops around the write-back and on loops below it
//      would be widened to the whole buffer, one relaxed over a loop of symbolic range
//      bounded by constants; both copy back elements never written
//      (TVM keeps them symbolic)                                        (inexact-region)
//   Effect: the block (and blocks nested in it) writes and reads a new buffer
//   `<buffer>_<scope>` instead; a write-back block `<buffer>_<scope>` copies it to the
//   buffer, placed before the first later reader that is not in consumer_blocks (at the
//   end of the scope if there is none). consumer_blocks read the cache directly. The
//   block keeps its name. Returns the write-back block.
//
// Copied regions: the writer's region relaxed over the loops below the insertion point,
// bounded by its iterators' domains and covered by the buffer (a split that does not
// divide widens the loops; TVM bounds the region under the block predicate and covers it
// by the buffer). A copy whose region stays symbolic in loops around the insertion point
// is predicated (T.where) to the indices the writer can write, where that is not
// provable; TVM emits no predicate there and copies outside the buffer.
//
// Not modelled: TVM's region-cover check of the scope (every read region produced by the
// producers), which programs built from .te always satisfy. Regions whose bounds depend
// on loops outside the insertion point are widened to the whole buffer for cache_read
// (TVM keeps them symbolic); cache_write refuses them (inexact-region).
#include "core/schedule/primitive/cache_common.h"
#include "core/schedule/primitive/families.h"
#include "core/schedule/primitive/region.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/substitute.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

namespace loopscape::schedule {

using namespace detail;

namespace {

using BlockSet = std::unordered_set<const ir::Block*>;

const ir::BufferRegion* regionOf(const std::vector<ir::BufferRegion>& regions, const ir::Buffer& b) {
  for (const auto& r : regions)
    if (r.buffer.sameAs(b)) return &r;
  return nullptr;
}

bool isUnder(const TreeNode& node, const TreeNode& ancestor) {
  for (const TreeNode* p = node.parent; p; p = p->parent)
    if (p == &ancestor) return true;
  return false;
}

void addWithDescendants(const TreeNode& node, BlockSet& set) {
  if (node.isBlock()) set.insert(node.block());
  for (const TreeNode* c : node.children) addWithDescendants(*c, set);
}

/// A block in `node`'s subtree (itself included) that reads `b` with no block between it
/// and `node` (both included) having an init statement, or null.
const TreeNode* uninitializedReader(const IrTree& tree, const TreeNode& node, const ir::Buffer& b, bool initAbove) {
  initAbove = initAbove || node.block()->init.defined();
  if (!initAbove && regionOf(node.block()->reads, b)) return &node;
  for (const TreeNode* c : tree.childBlocks(node))
    if (const TreeNode* r = uninitializedReader(tree, *c, b, initAbove)) return r;
  return nullptr;
}

bool readsBelow(const TreeNode& node, const ir::Buffer& b) {
  if (node.isBlock() && regionOf(node.block()->reads, b)) return true;
  return std::any_of(node.children.begin(), node.children.end(), [&](const TreeNode* c) { return readsBelow(*c, b); });
}

std::vector<const TreeNode*> writersOf(const IrTree& tree, const TreeNode& scope, const ir::Buffer& b) {
  std::vector<const TreeNode*> out;
  for (const TreeNode* c : tree.childBlocks(scope))
    if (regionOf(c->block()->writes, b)) out.push_back(c);
  return out;
}

/// Child blocks of `scope` after `writer` (program order) that read `b` (TVM's RAW
/// dependencies of the writer), minus `exclude`.
BlockSet laterReaders(const IrTree& tree, const TreeNode& scope, const TreeNode& writer, const ir::Buffer& b,
                      const BlockSet& exclude) {
  BlockSet out;
  bool after = false;
  for (const TreeNode* c : tree.childBlocks(scope)) {
    if (c == &writer) {
      after = true;
      continue;
    }
    if (after && regionOf(c->block()->reads, b) && !exclude.contains(c->block())) out.insert(c->block());
  }
  return out;
}

Expected<std::vector<const TreeNode*>> consumerList(const Schedule& sch, const std::vector<TraceValue>& inputs,
                                                    std::string_view prim) {
  std::vector<const TreeNode*> out;
  if (inputs.size() < 2 || inputs[1].isNone()) return out;
  const auto* list = inputs[1].get<TraceList>();
  if (!list)
    return Unexpected(scheduleError(prim, "bad-arguments", fmt::format("{}: consumer_blocks must be a list of blocks", prim)));
  for (const auto& v : *list) {
    auto b = sch.block(v, prim);
    if (!b) return Unexpected(b.error());
    out.push_back(*b);
  }
  return out;
}

Expected<void> checkConsumers(const std::vector<const TreeNode*>& consumers, const TreeNode& scope,
                              const ir::Buffer& b, std::string_view prim) {
  for (const TreeNode* c : consumers) {
    if (!isUnder(*c, scope) || !readsBelow(*c, b))
      return Unexpected(scheduleError(
          prim, "not-a-consumer",
          fmt::format("{}: the block '{}' is not a consumer of the buffer '{}' (it does not read it{})", prim,
                      c->block()->name, b->name, isUnder(*c, scope) ? "" : " in the scope of the cached block"),
          {blockRef(c->block()->name), IrReference{IrReference::Kind::Buffer, b->name}}));
  }
  return {};
}

/// TVM's CacheLocDetector: the statement (a For or the scope Block) whose body receives
/// the stage, and the position in that body: right before the first child that contains a
/// related block, in the innermost sequence that contains both the writer and a related
/// block; position 0 of the scope when a related block comes first (input buffers).
struct LocDetector {
  const ir::Block* scope = nullptr;
  const ir::Block* writer = nullptr;
  const BlockSet* related = nullptr;
  bool visitedBlock = false, visitedRelated = false;
  const ir::StmtNode* loc = nullptr;
  int pos = -1;

  void visit(const ir::Stmt& s) {
    switch (s.kind()) {
    case ir::StmtKind::SeqStmt: {
      const bool previous = visitedBlock;
      visitedBlock = false;
      const auto& seq = s.as<ir::SeqStmt>()->seq;
      for (std::size_t i = 0; i < seq.size() && pos == -1; ++i) {
        visit(seq[i]);
        if (visitedBlock && visitedRelated && pos == -1) {
          pos = static_cast<int>(i);
          break;
        }
        if (visitedRelated) break;
      }
      visitedBlock = visitedBlock || previous;
      return;
    }
    case ir::StmtKind::BlockRealize: visit(s.as<ir::BlockRealize>()->block); return;
    case ir::StmtKind::Block: {
      const auto* b = s.as<ir::Block>();
      if (b == scope) {
        visit(b->body);
        if (visitedRelated && !loc) {
          loc = b;
          if (!visitedBlock && pos == -1) pos = 0;
        }
      } else if (b == writer) {
        visitedBlock = true;
      } else if (related->contains(b)) {
        visitedRelated = true;
      }
      return;
    }
    case ir::StmtKind::For:
      visit(s.as<ir::For>()->body);
      if (visitedBlock && visitedRelated && !loc && pos != -1) loc = s.get();
      return;
    case ir::StmtKind::IfThenElse: {
      const auto* ite = s.as<ir::IfThenElse>();
      visit(ite->thenCase);
      if (ite->elseCase.defined()) visit(ite->elseCase);
      return;
    }
    case ir::StmtKind::LetStmt: visit(s.as<ir::LetStmt>()->body); return;
    case ir::StmtKind::Allocate: visit(s.as<ir::Allocate>()->body); return;
    default: return;
    }
  }
};

int endPosition(const ir::Block& scope) {
  const auto* seq = scope.body.as<ir::SeqStmt>();
  return seq ? static_cast<int>(seq->seq.size()) : 1;
}

struct Location {
  const ir::StmtNode* loc = nullptr;
  int pos = 0;
};

Location detectLocation(const TreeNode& scope, const TreeNode& writer, const BlockSet& related) {
  if (related.empty()) return {scope.node, endPosition(*scope.block())};
  LocDetector d;
  d.scope = scope.block();
  d.writer = writer.block();
  d.related = &related;
  d.visit(scope.handle);
  if (!d.loc || d.pos < 0) return {scope.node, endPosition(*scope.block())};
  return {d.loc, d.pos};
}

ir::Range fullRange(const ir::Expr& dim) { return {ir::intImm(0, dim.dtype()), dim}; }

/// A copied region and, per dimension, the indices that hold data (the writer's iterators
/// inside their domains, inside the buffer): the copy is predicated to them where the
/// region, symbolic in the loops around the insertion point, can leave them.
struct CopyRegion {
  std::vector<ir::Range> region;
  std::vector<ir::IntBound> valid;
  /// Dimensions whose region is not exact: it could not be computed and was widened to
  /// the whole buffer dimension (bounds symbolic in loops around the insertion point and
  /// in relaxed loops), or it was bounded through a relaxed loop whose range is symbolic
  /// (an over-approximation of what the writer writes).
  std::vector<std::size_t> inexact;
};

std::vector<ir::IntBound> bufferBounds(const ir::Buffer& b) {
  std::vector<ir::IntBound> out;
  for (const auto& dim : b->shape) {
    const auto n = ir::asConstInt(dim);
    out.push_back({std::int64_t{0}, n ? std::optional<std::int64_t>(*n - 1) : std::nullopt});
  }
  return out;
}

/// The region of `b` written by `writer`, relaxed over the loops between the writer and
/// the insertion point `loc` (TVM's RelaxBufferRegion).
CopyRegion relaxedRegion(const TreeNode& writer, const ir::Buffer& b, const ir::StmtNode* loc) {
  const ir::Block* blk = writer.block();
  const auto* realize = writer.realize.as<ir::BlockRealize>();
  ir::VarMap binding;
  for (std::size_t i = 0; i < blk->iterVars.size(); ++i) binding[blk->iterVars[i].var.get()] = realize->iterValues[i];
  ir::Analyzer analyzer;
  std::vector<const ir::ExprNode*> relaxed, symbolicRange;
  for (const TreeNode* p = writer.parent; p && p->node != loc && !p->isBlock(); p = p->parent) {
    analyzer.bind(p->loop()->loopVar, {p->loop()->min, p->loop()->extent});
    relaxed.push_back(p->loop()->loopVar.get());
    if (!ir::asConstInt(p->loop()->min) || !ir::asConstInt(p->loop()->extent))
      symbolicRange.push_back(p->loop()->loopVar.get());
  }
  // The block's iterators stay inside their domains whatever the loops do (a split that
  // does not divide widens the loops, and the predicate keeps the bindings in range), so
  // the region in the iterators bounds it too; so does the buffer (TVM's
  // AnalyzeRegionUpperBound with the predicate, then CoverRange of the buffer).
  ir::Analyzer iterAnalyzer;
  for (const auto& iv : blk->iterVars) iterAnalyzer.bind(iv.var, iv.dom);
  const ir::BufferRegion* r = regionOf(blk->writes, b);
  CopyRegion copy{{}, bufferBounds(b), {}};
  std::vector<ir::Range>& out = copy.region;
  for (std::size_t d = 0; d < b->ndim(); ++d) {
    const ir::Expr lo = ir::substitute(r->region[d].min, binding);
    const ir::Expr ext = ir::substitute(r->region[d].extent, binding);
    const ir::DataType t = b->shape[d].dtype();
    auto lb = analyzer.bound(lo);
    auto hb = analyzer.bound(ir::simplify(lo + ext - 1));
    const auto ilb = iterAnalyzer.bound(r->region[d].min);
    const auto ihb = iterAnalyzer.bound(ir::simplify(r->region[d].min + r->region[d].extent - 1));
    if (ilb.min) copy.valid[d].min = std::max(*copy.valid[d].min, *ilb.min);
    if (ihb.max) copy.valid[d].max = copy.valid[d].max ? std::min(*copy.valid[d].max, *ihb.max) : *ihb.max;
    if (lb.min && ilb.min) lb.min = std::max(*lb.min, *ilb.min);
    if (hb.max && ihb.max) hb.max = std::min(*hb.max, *ihb.max);
    if (lb.min) lb.min = std::max<std::int64_t>(*lb.min, 0);
    if (const auto dim = ir::asConstInt(b->shape[d]); dim && hb.max) hb.max = std::min(*hb.max, *dim - 1);
    if (lb.min && hb.max && *hb.max >= *lb.min) {
      out.push_back({ir::intImm(*lb.min, t), ir::intImm(*hb.max - *lb.min + 1, t)});
    } else if (!usesAnyVar(lo, relaxed) && !usesAnyVar(ext, relaxed)) {
      out.push_back({ir::simplify(lo), ir::simplify(ext)});
    } else {
      out.push_back(fullRange(b->shape[d]));
      copy.inexact.push_back(d);
      continue;
    }
    if (usesAnyVar(lo, symbolicRange) || usesAnyVar(ext, symbolicRange)) copy.inexact.push_back(d);
  }
  return copy;
}

ir::Expr plus(const ir::Expr& a, const ir::Expr& b) {
  if (ir::isConstInt(a, 0)) return b;
  return ir::simplify(a + b);
}

ir::Expr minus(const ir::Expr& a, const ir::Expr& b) {
  if (ir::isConstInt(b, 0)) return a;
  return ir::simplify(a - b);
}

/// The copy stage `dst[...] = src[...]` over `copy.region` of `original` (src for
/// cache_read, dst for cache_write), as TVM's MakeCacheStage builds it; `analyzer` knows
/// the loops around the insertion point. Where a copied index is not provably inside
/// `copy.valid` (a region symbolic in loops widened by a split that does not divide),
/// the stage gets a predicate keeping it there, as the writer's own predicate does; TVM
/// omits it and copies out of the buffer.
ir::Stmt makeStage(const std::string& name, const ir::Buffer& src, const ir::Buffer& dst, const ir::Buffer& original,
                   const CopyRegion& copy, bool compact, ir::Analyzer analyzer) {
  const std::vector<ir::Range>& region = copy.region;
  ir::Expr predicate = ir::boolImm(true);
  auto require = [&](const ir::Expr& cond) {
    if (!analyzer.canProve(cond)) predicate = ir::isConstInt(predicate, 1) ? cond : (predicate && cond);
  };
  std::vector<ir::Expr> loopVars, values, srcIdx, dstIdx;
  std::vector<ir::IterVar> iters;
  std::vector<ir::Range> srcRegion, dstRegion;
  for (std::size_t d = 0; d < region.size(); ++d) {
    const ir::DataType t = region[d].extent.dtype();
    loopVars.push_back(ir::Var::make(fmt::format("ax{}", d), t));
    values.push_back(compact ? loopVars.back() : plus(region[d].min, loopVars.back()));
    analyzer.bind(loopVars.back(), {ir::intImm(0, t), region[d].extent});
    if (!compact && d < copy.valid.size()) {
      if (copy.valid[d].min) require(values.back() >= ir::intImm(*copy.valid[d].min, t));
      if (copy.valid[d].max) require(values.back() < ir::intImm(*copy.valid[d].max + 1, t));
    }
    ir::Expr v = ir::Var::make(fmt::format("v{}", d), t);
    const ir::Range dom = compact ? ir::Range{ir::intImm(0, t), region[d].extent} : fullRange(original->shape[d]);
    iters.push_back({v, dom, ir::IterKind::Spatial});
    const ir::Expr originalIdx = compact ? plus(region[d].min, v) : v;
    srcIdx.push_back(src.sameAs(original) ? originalIdx : v);
    dstIdx.push_back(dst.sameAs(original) ? originalIdx : v);
    srcRegion.push_back({srcIdx.back(), ir::intImm(1, srcIdx.back().dtype())});
    dstRegion.push_back({dstIdx.back(), ir::intImm(1, dstIdx.back().dtype())});
  }
  ir::Stmt body = ir::BufferStore::make(dst, ir::BufferLoad::make(src, srcIdx), dstIdx);
  ir::Stmt block = ir::Block::make(name, std::move(iters), {{src, srcRegion}}, {{dst, dstRegion}}, body);
  ir::Stmt s = ir::BlockRealize::make(std::move(values), analyzer.simplify(predicate), block);
  for (std::size_t d = region.size(); d-- > 0;)
    s = ir::For::make(loopVars[d], ir::intImm(0, region[d].extent.dtype()), region[d].extent, ir::ForKind::Serial, s);
  return s;
}

ir::Stmt insertAt(const ir::Stmt& body, int pos, const ir::Stmt& stage) {
  if (const auto* seq = body.as<ir::SeqStmt>()) {
    std::vector<ir::Stmt> v = seq->seq;
    v.insert(v.begin() + std::min<std::size_t>(static_cast<std::size_t>(pos), v.size()), stage);
    return ir::SeqStmt::make(std::move(v));
  }
  return pos == 0 ? ir::SeqStmt::make({stage, body}) : ir::SeqStmt::make({body, stage});
}

/// Rewrites the scope for cache_read (Read) or cache_write (Write): redirects accesses of
/// `original` to `cache`, inserts the stage at `loc`/`pos` and allocates the cache at the
/// scope block (TVM's CacheReadRewriter / CacheWriteRewriter).
class CacheRewriter final : public ir::StmtMutator {
public:
  enum class Mode { Read, Write };
  Mode mode = Mode::Read;
  const ir::Block* scope = nullptr;
  const ir::Block* writer = nullptr; ///< Write: the cached block
  ir::Buffer original, cache;
  std::vector<ir::Expr> offset; ///< region start subtracted from indices (compact caches)
  BlockSet consumers;
  bool allConsume = false; ///< Read without consumer_blocks
  Location at;
  ir::Stmt stage;

protected:
  std::vector<ir::Expr> shift(const std::vector<ir::Expr>& idx) const {
    if (offset.empty()) return idx;
    std::vector<ir::Expr> out;
    for (std::size_t d = 0; d < idx.size(); ++d) out.push_back(minus(idx[d], offset[d]));
    return out;
  }
  std::vector<ir::BufferRegion> redirect(const std::vector<ir::BufferRegion>& regions) const {
    std::vector<ir::BufferRegion> out = regions;
    for (auto& r : out) {
      if (!r.buffer.sameAs(original)) continue;
      r.buffer = cache;
      if (!offset.empty())
        for (std::size_t d = 0; d < r.region.size(); ++d) r.region[d].min = minus(r.region[d].min, offset[d]);
    }
    return out;
  }
  static ir::Stmt withRegions(const ir::Stmt& s, std::vector<ir::BufferRegion> reads,
                              std::vector<ir::BufferRegion> writes) {
    const auto* b = s.as<ir::Block>();
    return ir::Block::make(b->name, b->iterVars, std::move(reads), std::move(writes), b->body, b->init,
                           b->allocBuffers, b->annotations);
  }
  ir::Stmt visitActive(const ir::Block& op, const ir::Stmt& self, bool inWriter) {
    const bool savedActive = m_active, savedInWriter = m_inWriter;
    m_active = true;
    m_inWriter = inWriter;
    ir::Stmt s = StmtMutator::visitBlock(op, self);
    m_active = savedActive;
    m_inWriter = savedInWriter;
    return s;
  }

  ir::Expr visitBufferLoad(const ir::BufferLoad& op, const ir::Expr& self) override {
    ir::Expr e = ExprMutator::visitBufferLoad(op, self);
    const auto* load = e.as<ir::BufferLoad>();
    if (m_active && load->buffer.sameAs(original)) return ir::BufferLoad::make(cache, shift(load->indices));
    return e;
  }
  ir::Stmt visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
    ir::Stmt s = StmtMutator::visitBufferStore(op, self);
    const auto* store = s.as<ir::BufferStore>();
    if (mode == Mode::Write && m_active && store->buffer.sameAs(original))
      return ir::BufferStore::make(cache, store->value, shift(store->indices));
    return s;
  }
  ir::Stmt visitFor(const ir::For& op, const ir::Stmt& self) override {
    ir::Stmt s = StmtMutator::visitFor(op, self);
    if (&op != at.loc) return s;
    const auto* f = s.as<ir::For>();
    return ir::For::make(f->loopVar, f->min, f->extent, f->forKind, insertAt(f->body, at.pos, stage), f->threadTag,
                         f->annotations);
  }
  ir::Stmt visitBlock(const ir::Block& op, const ir::Stmt& self) override {
    if (&op == scope) {
      ir::Stmt s = StmtMutator::visitBlock(op, self);
      const auto* b = s.as<ir::Block>();
      ir::Stmt body = at.loc == scope ? insertAt(b->body, at.pos, stage) : b->body;
      std::vector<ir::Buffer> allocs = b->allocBuffers;
      allocs.push_back(cache);
      return ir::Block::make(b->name, b->iterVars, b->reads, b->writes, body, b->init, std::move(allocs),
                             b->annotations);
    }
    if (mode == Mode::Read) {
      // The producer of the buffer keeps writing it.
      if (regionOf(op.writes, original)) return self;
      if (!allConsume && !consumers.contains(&op)) {
        const bool saved = m_active;
        m_active = false;
        ir::Stmt s = StmtMutator::visitBlock(op, self);
        m_active = saved;
        return s;
      }
      ir::Stmt s = visitActive(op, self, false);
      const auto* b = s.as<ir::Block>();
      return withRegions(s, redirect(b->reads), b->writes);
    }
    if (!consumers.contains(&op) && &op != writer && !m_inWriter) return self;
    ir::Stmt s = visitActive(op, self, m_inWriter || &op == writer);
    const auto* b = s.as<ir::Block>();
    return withRegions(s, redirect(b->reads), redirect(b->writes));
  }

private:
  bool m_active = false;
  bool m_inWriter = false;
};

struct CacheArgs {
  const TreeNode* block = nullptr;
  ir::MemoryScope scope{};
  std::string scopeName;
  ir::Buffer buffer;
  const TreeNode* scopeBlock = nullptr;
  std::vector<const TreeNode*> consumers;
  BlockSet consumerSet;
};

/// Resolves and checks the arguments shared by cache_read and cache_write (preconditions
/// 1-4 of both).
Expected<CacheArgs> resolve(const Schedule& sch, const std::vector<TraceValue>& inputs,
                            const std::vector<TraceValue>& attrs, bool write, std::string_view prim) {
  CacheArgs a;
  auto block = sch.block(inputs.at(0), prim);
  if (!block) return Unexpected(block.error());
  a.block = *block;
  auto scope = storageScope(attrs.at(1), prim);
  if (!scope) return Unexpected(scope.error());
  a.scope = *scope;
  a.scopeName = ir::memoryScopeName(*scope);
  auto index = integerArg(sch, attrs.at(0), prim, write ? "write_buffer_index" : "read_buffer_index");
  if (!index) return Unexpected(index.error());
  auto buffer = nthAccessBuffer(*a.block, *index, write, prim);
  if (!buffer) return Unexpected(buffer.error());
  a.buffer = *buffer;
  a.scopeBlock = sch.tree().scopeBlock(*a.block);
  const auto writers = writersOf(sch.tree(), *a.scopeBlock, a.buffer);
  if (writers.size() > 1) {
    std::vector<IrReference> refs;
    std::vector<std::string> names;
    for (const auto* w : writers) {
      refs.push_back(blockRef(w->block()->name));
      names.push_back("'" + w->block()->name + "'");
    }
    refs.push_back({IrReference::Kind::Buffer, a.buffer->name});
    return Unexpected(scheduleError(prim, "multiple-writers",
                                    fmt::format("{}: the buffer '{}' must be written by a single block, but {} "
                                                "blocks write it: {}",
                                                prim, a.buffer->name, writers.size(), fmt::join(names, ", ")),
                                    std::move(refs)));
  }
  auto consumers = consumerList(sch, inputs, prim);
  if (!consumers) return Unexpected(consumers.error());
  if (auto ok = checkConsumers(*consumers, *a.scopeBlock, a.buffer, prim); !ok) return Unexpected(ok.error());
  a.consumers = *consumers;
  for (const auto* c : a.consumers) addWithDescendants(*c, a.consumerSet);
  return a;
}

ir::Buffer makeCache(const CacheArgs& a, const std::vector<ir::Range>& region, bool compact) {
  std::vector<ir::Expr> shape = a.buffer->shape;
  if (compact)
    for (std::size_t d = 0; d < region.size(); ++d) shape[d] = region[d].extent;
  return ir::makeBuffer(a.buffer->name + "_" + a.scopeName, a.buffer->dtype, std::move(shape), a.scope,
                        a.buffer->strides);
}

std::vector<ir::Expr> offsetsOf(const std::vector<ir::Range>& region, bool compact) {
  std::vector<ir::Expr> out;
  if (!compact) return out;
  bool any = false;
  for (const auto& r : region) {
    out.push_back(r.min);
    any |= !ir::isConstInt(r.min, 0);
  }
  if (!any) out.clear();
  return out;
}

// ---------------------------------------------------------------------------- cache_read
Expected<std::vector<RV>> applyCacheRead(Schedule& sch, const std::vector<TraceValue>& inputs,
                                         const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "cache_read";
  auto args = resolve(sch, inputs, attrs, false, prim);
  if (!args) return Unexpected(args.error());
  const CacheArgs& a = *args;
  const TreeNode& scope = *a.scopeBlock;
  const auto writers = writersOf(sch.tree(), scope, a.buffer);

  Location at;
  CopyRegion copy{{}, bufferBounds(a.buffer), {}};
  std::vector<ir::Range>& region = copy.region;
  if (!writers.empty()) {
    BlockSet related = a.consumerSet.empty() ? laterReaders(sch.tree(), scope, *writers[0], a.buffer, {})
                                             : a.consumerSet;
    at = detectLocation(scope, *writers[0], related);
    copy = relaxedRegion(*writers[0], a.buffer, at.loc);
  } else {
    at = {scope.node, 0};
    if (const auto* r = regionOf(scope.block()->reads, a.buffer)) {
      region = r->region;
      // Covered by the buffer (a region relaxed over widened loops can exceed it).
      for (std::size_t d = 0; d < region.size(); ++d) {
        const auto lo = ir::asConstInt(region[d].min), ext = ir::asConstInt(region[d].extent);
        const auto dim = ir::asConstInt(a.buffer->shape[d]);
        if (!lo || !ext || !dim) continue;
        const std::int64_t from = std::max<std::int64_t>(*lo, 0), to = std::min(*lo + *ext, *dim);
        if (to > from && (from != *lo || to != *lo + *ext)) {
          const ir::DataType t = region[d].extent.dtype();
          region[d] = {ir::intImm(from, t), ir::intImm(to - from, t)};
        }
      }
    } else {
      for (const auto& dim : a.buffer->shape) region.push_back(fullRange(dim));
    }
  }
  const bool compact = at.loc == scope.node;
  const ir::Buffer cache = makeCache(a, region, compact);
  const std::string name = freshBlockName(sch.tree(), a.buffer->name + "_" + a.scopeName);

  CacheRewriter rw;
  rw.mode = CacheRewriter::Mode::Read;
  rw.scope = scope.block();
  rw.original = a.buffer;
  rw.cache = cache;
  rw.offset = offsetsOf(region, compact);
  rw.consumers = a.consumerSet;
  rw.allConsume = a.consumerSet.empty();
  rw.at = at;
  rw.stage = makeStage(name, a.buffer, cache, a.buffer, copy, compact, analyzerInside(*sch.tree().find(at.loc)));
  ir::Stmt newScope = rw.mutate(scope.handle);
  if (auto ok = sch.replace(replaced(sch, scope.node, newScope)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{sch.defineBlock(name)};
}

// ---------------------------------------------------------------------------- cache_write
Expected<std::vector<RV>> applyCacheWrite(Schedule& sch, const std::vector<TraceValue>& inputs,
                                          const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "cache_write";
  auto args = resolve(sch, inputs, attrs, true, prim);
  if (!args) return Unexpected(args.error());
  const CacheArgs& a = *args;
  const TreeNode& scope = *a.scopeBlock;

  // 5. no block of the cached subtree reads the buffer before the cache holds it.
  if (const TreeNode* reader = uninitializedReader(sch.tree(), *a.block, a.buffer, false))
    return Unexpected(scheduleError(
        prim, "reads-own-output",
        fmt::format("cache_write: block '{}' reads the buffer '{}' that it writes{} and no init statement in the "
                    "cached block initializes it first; the cache '{}_{}' would be read before it is filled",
                    a.block->block()->name, a.buffer->name,
                    reader == a.block ? std::string() : fmt::format(" (in its nested block '{}')", reader->block()->name),
                    a.buffer->name, a.scopeName),
        {blockRef(a.block->block()->name), IrReference{IrReference::Kind::Buffer, a.buffer->name}}));

  const BlockSet related = laterReaders(sch.tree(), scope, *a.block, a.buffer, a.consumerSet);
  const Location at = detectLocation(scope, *a.block, related);
  const CopyRegion copy = relaxedRegion(*a.block, a.buffer, at.loc);
  // 6. the written region is exact.
  if (!copy.inexact.empty())
    return Unexpected(scheduleError(
        prim, "inexact-region",
        fmt::format("cache_write: the region of '{}' that block '{}' writes cannot be computed exactly in dimension "
                    "{} (its bounds depend on loops around the write-back and on loops below it, or on a loop below "
                    "it whose range is symbolic); the write-back would copy elements the block never writes",
                    a.buffer->name, a.block->block()->name, copy.inexact.front()),
        {blockRef(a.block->block()->name), IrReference{IrReference::Kind::Buffer, a.buffer->name}}));
  const std::vector<ir::Range>& region = copy.region;
  const bool compact = at.loc == scope.node;
  const ir::Buffer cache = makeCache(a, region, compact);
  const std::string name = freshBlockName(sch.tree(), a.buffer->name + "_" + a.scopeName);

  CacheRewriter rw;
  rw.mode = CacheRewriter::Mode::Write;
  rw.scope = scope.block();
  rw.writer = a.block->block();
  rw.original = a.buffer;
  rw.cache = cache;
  rw.offset = offsetsOf(region, compact);
  rw.consumers = a.consumerSet;
  rw.at = at;
  rw.stage = makeStage(name, cache, a.buffer, a.buffer, copy, compact, analyzerInside(*sch.tree().find(at.loc)));
  ir::Stmt newScope = rw.mutate(scope.handle);
  if (auto ok = sch.replace(replaced(sch, scope.node, newScope)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{sch.defineBlock(name)};
}

} // namespace

std::span<const InstructionKind> cacheKinds() {
  static const std::vector<std::string_view> kScopes = {"global", "shared", "shared.dyn", "local", "warp"};
  static const InstructionKind kinds[] = {
      {.name = "cache_read",
       .jsonName = "CacheRead",
       .inputNames = {"block", "consumer_blocks"},
       .attrs = {{"read_buffer_index", TraceValue(), ParamKind::ReadBufferIndex},
                 {.name = "storage_scope",
                  .defaultValue = TraceValue(),
                  .kind = ParamKind::EditableChoice,
                  .choices = kScopes,
                  .formValue = "local"}},
       .outputs = {RVKind::Block},
       .apply = applyCacheRead,
       .appliesTo = AppliesTo::Block,
       .inputSpecs = {{}, {.kind = ParamKind::ConsumerBlocks, .optional = true}},
       .description = "stage a read buffer in a cache",
       .shortcut = "Ctrl+Alt+C",
       .panelRank = 10,
       .pythonOrder = {"block", "read_buffer_index", "storage_scope", "consumer_blocks"}},
      {.name = "cache_write",
       .jsonName = "CacheWrite",
       .inputNames = {"block", "consumer_blocks"},
       .attrs = {{"write_buffer_index", TraceValue(), ParamKind::WriteBufferIndex},
                 {.name = "storage_scope",
                  .defaultValue = TraceValue(),
                  .kind = ParamKind::EditableChoice,
                  .choices = kScopes,
                  .formValue = "local"}},
       .outputs = {RVKind::Block},
       .apply = applyCacheWrite,
       .appliesTo = AppliesTo::Block,
       .inputSpecs = {{}, {.kind = ParamKind::ConsumerBlocks, .optional = true}},
       .description = "stage a written buffer in a cache",
       .shortcut = "Ctrl+Alt+W",
       .panelRank = 11,
       .pythonOrder = {"block", "write_buffer_index", "storage_scope", "consumer_blocks"}},
      {.name = "set_scope",
       .jsonName = "SetScope",
       .inputNames = {"block"},
       .attrs = {{"buffer_index", TraceValue(), ParamKind::WriteBufferIndex},
                 {.name = "storage_scope",
                  .defaultValue = TraceValue(),
                  .kind = ParamKind::EditableChoice,
                  .choices = kScopes,
                  .formValue = "shared"}},
       .outputs = {},
       .apply = applySetScope,
       .appliesTo = AppliesTo::Block,
       .inputSpecs = {{}},
       .description = "change the storage scope of a buffer",
       .shortcut = "Ctrl+Alt+Shift+C"},
      {.name = "storage_align",
       .jsonName = "StorageAlign",
       .inputNames = {"block"},
       .attrs = {{"buffer_index", TraceValue(), ParamKind::WriteBufferIndex},
                 {"axis", TraceValue(), ParamKind::Int},
                 {.name = "factor", .defaultValue = TraceValue(), .kind = ParamKind::Int, .formValue = "32"},
                 {"offset", TraceValue(), ParamKind::Int}},
       .outputs = {},
       .apply = applyStorageAlign,
       .appliesTo = AppliesTo::Block,
       .inputSpecs = {{}},
       .description = "pad a buffer's strides",
       .shortcut = "Ctrl+Alt+G"},
  };
  return kinds;
}

} // namespace loopscape::schedule
