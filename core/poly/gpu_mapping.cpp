// poly_auto(target="gpu") (see gpu_mapping.h): the band mapping on the isl tree, then the
// thread-loop guards and the shared-memory promotion on the regenerated program.
#include "core/poly/gpu_mapping.h"

#include "core/poly/ast_to_tir.h"
#include "core/poly/isl_util.h"
#include "core/poly/tree_transform.h"

#include "core/poly/gpu_bound_loops.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/simplify.h"
#include "core/ir/visitor.h"
#include "core/schedule/ir_tree.h"
#include "core/schedule/primitives.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_error.h"

#include <isl/aff.h>
#include <isl/schedule_node.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

namespace loopscape::poly::detail {

namespace {

bool isBand(const isl::schedule_node& n) { return isl_schedule_node_get_type(n.get()) == isl_schedule_node_band; }

int memberCount(const isl::schedule_node& band) {
  return static_cast<int>(isl_schedule_node_band_n_member(band.get()));
}

/// The blocks whose instances run below `node` (an init counts as its block), in the
/// Scop's program order.
std::vector<std::string> blocksBelow(const isl::schedule_node& node, const Scop& scop) {
  isl::union_set domain = isl::manage(check(isl_schedule_node_get_domain(node.get()), "domain"));
  std::vector<std::string> out;
  for (const auto& st : scop.statements) {
    if (domain.intersect(isl::union_set(st.domain)).is_empty()) continue;
    if (std::find(out.begin(), out.end(), st.blockName) == out.end()) out.push_back(st.blockName);
  }
  return out;
}

/// "blockIdx.x" for the innermost of `mapped` members, then y, z.
std::string tag(const char* kind, int member, int mapped) {
  return fmt::format("{}.{}", kind, "xyz"[mapped - 1 - member]);
}

/// Per member of `band`: whether it takes a single value over the band's instances (its
/// loop is substituted away by code generation, and a mark above it would land on the
/// next loop generated).
std::vector<bool> singleValued(const isl::schedule_node& band) {
  const int n = memberCount(band);
  isl::union_set domain = isl::manage(check(isl_schedule_node_get_domain(band.get()), "band domain"));
  isl::union_map partial =
      isl::manage(check(isl_schedule_node_band_get_partial_schedule_union_map(band.get()), "partial schedule"))
          .intersect_domain(domain);
  std::vector<bool> out(n, false);
  if (partial.is_empty()) return out;
  isl::set range = isl::manage(check(isl_set_from_union_set(partial.range().release()), "band range"));
  for (int d = 0; d < n; ++d) {
    isl::val lo = range.dim_min_val(d), hi = range.dim_max_val(d);
    out[d] = lo.is_int() && hi.is_int() && lo.eq(hi);
  }
  return out;
}

/// Binds members 0 .. tags.size() - 1 of `band` (one mark above a one-member band each,
/// innermost first so that each split leaves the outer members at the band's position);
/// a member with a single value is not bound (it has no loop). Returns the node at the
/// band's position.
isl::schedule_node bindMembers(isl::schedule_node band, const std::vector<std::string>& tags) {
  const int m = static_cast<int>(tags.size());
  const std::vector<bool> single = singleValued(band);
  if (memberCount(band) > m) {
    const std::vector<std::string> names = bandMemberNames(band);
    band = isl::manage(check(isl_schedule_node_band_split(band.release(), m), "split"));
    band = setBandMemberNames(band, std::vector<std::string>(names.begin(), names.begin() + m));
    band = setBandMemberNames(band.child(0), std::vector<std::string>(names.begin() + m, names.end())).parent();
  }
  for (int d = m - 1; d >= 0; --d)
    if (!single[d]) band = markBandMemberNode(band, d, fmt::format("thread_binding({})", tags[d]));
  return band;
}

/// A band with the partial schedule `mupa`, named `names`, permutable, inserted above `node`.
isl::schedule_node insertBand(const isl::schedule_node& node, isl::multi_union_pw_aff mupa,
                              const std::vector<std::string>& names, const std::vector<bool>& coincident) {
  isl_schedule_node* n = isl_schedule_node_insert_partial_schedule(node.copy(), mupa.release());
  n = isl_schedule_node_band_set_permutable(n, 1);
  for (std::size_t d = 0; d < coincident.size(); ++d)
    n = isl_schedule_node_band_member_set_coincident(n, static_cast<int>(d), coincident[d] ? 1 : 0);
  return setBandMemberNames(isl::manage(check(n, "inserting a band")), names);
}

/// The point band: thread members (p mod b where the tile has more points than threads)
/// bound to threadIdx, then a sequential band with p / b of those members and the
/// unmapped members. Returns the node at the point band's position.
isl::schedule_node mapPointBand(isl::schedule_node point, int mapped, const std::vector<std::int64_t>& sizes,
                                const std::vector<std::int64_t>& threads) {
  std::vector<std::string> tags;
  for (int d = 0; d < mapped; ++d)
    tags.push_back(tag("threadIdx", d, mapped));
  bool strided = false;
  for (int d = 0; d < mapped; ++d)
    strided = strided || threads[d] < sizes[d];
  if (!strided) return bindMembers(point, tags);
  const std::vector<std::string> names = bandMemberNames(point);
  const int n = memberCount(point);
  isl::multi_union_pw_aff mupa = point.as<isl::schedule_node_band>().get_partial_schedule();
  std::vector<bool> coincident;
  for (int d = 0; d < n; ++d)
    coincident.push_back(isl_schedule_node_band_member_get_coincident(point.get(), d) == isl_bool_true);
  // Inner (sequential) band: p / b of each strided member, then the unmapped members.
  isl_union_pw_aff_list* innerList = isl_union_pw_aff_list_alloc(point.ctx().get(), n);
  isl_union_pw_aff_list* threadList = isl_union_pw_aff_list_alloc(point.ctx().get(), mapped);
  std::vector<std::string> innerNames, threadNames;
  std::vector<bool> innerCoincident;
  for (int d = 0; d < n; ++d) {
    isl::union_pw_aff p = mupa.at(d);
    if (d >= mapped) {
      innerList = isl_union_pw_aff_list_add(innerList, p.release());
      innerNames.push_back(names[d]);
      innerCoincident.push_back(coincident[d]);
      continue;
    }
    if (threads[d] >= sizes[d]) {
      threadList = isl_union_pw_aff_list_add(threadList, p.release());
      threadNames.push_back(names[d]);
      continue;
    }
    isl_val* b = isl_val_int_from_si(point.ctx().get(), threads[d]);
    threadList = isl_union_pw_aff_list_add(threadList, isl_union_pw_aff_mod_val(p.copy(), isl_val_copy(b)));
    innerList =
        isl_union_pw_aff_list_add(innerList, isl_union_pw_aff_floor(isl_union_pw_aff_scale_down_val(p.release(), b)));
    threadNames.push_back(names[d]);
    std::string serial = names[d];
    if (serial.ends_with("_1"))
      serial.back() = '2';
    else
      serial += "_s";
    innerNames.push_back(serial);
    innerCoincident.push_back(true);
  }
  auto toMupa = [&](isl_union_pw_aff_list* list) {
    isl_space* space = isl_space_set_alloc(point.ctx().get(), 0, isl_union_pw_aff_list_n_union_pw_aff(list));
    space = isl_space_align_params(space, isl_multi_union_pw_aff_get_space(mupa.get()));
    return isl::manage(check(isl_multi_union_pw_aff_from_union_pw_aff_list(space, list), "partial schedule"));
  };
  isl::multi_union_pw_aff threadMupa = toMupa(threadList);
  isl::multi_union_pw_aff innerMupa = toMupa(innerList);
  isl::schedule_node node = isl::manage(check(isl_schedule_node_delete(point.copy()), "deleting the point band"));
  node = insertBand(node, innerMupa, innerNames, innerCoincident);
  node = insertBand(node, threadMupa, threadNames, std::vector<bool>(mapped, true));
  return bindMembers(node, tags);
}

struct Mapper {
  const Scop& scop;
  const std::vector<std::int64_t>& tile;

  Expected<isl::schedule_node> visit(isl::schedule_node node) {
    if (isBand(node) && memberCount(node) > 0) return mapBand(node);
    const int children = static_cast<int>(isl_schedule_node_n_children(node.get()));
    if (children == 0) {
      const std::vector<std::string> blocks = blocksBelow(node, scop);
      if (blocks.empty()) return node;
      return Unexpected(schedule::scheduleError(
          "poly_auto", "no-band",
          fmt::format("poly_auto(target=\"gpu\"): block '{}' runs under no loop of the schedule, so it cannot be "
                      "mapped to GPU blocks and threads",
                      blocks.front()),
          {schedule::blockRef(blocks.front())}));
    }
    for (int i = 0; i < children; ++i) {
      auto child = visit(node.child(i));
      if (!child) return child;
      node = child->parent();
    }
    return node;
  }

  Expected<isl::schedule_node> mapBand(isl::schedule_node band) {
    const int n = memberCount(band);
    const std::vector<std::string> names = bandMemberNames(band);
    int coincident = 0;
    while (coincident < n && isl_schedule_node_band_member_get_coincident(band.get(), coincident) == isl_bool_true)
      ++coincident;
    if (coincident == 0) {
      const std::vector<std::string> blocks = blocksBelow(band, scop);
      std::vector<IrReference> refs;
      for (const auto& b : blocks)
        refs.push_back(schedule::blockRef(b));
      return Unexpected(schedule::scheduleError(
          "poly_auto", "no-coincident-member",
          fmt::format("poly_auto(target=\"gpu\"): the outermost band ({}) of block{} {} has no coincident member: "
                      "its first loop '{}' carries a dependence, so no loop of it can be mapped to blockIdx (the "
                      "iterations of a bound loop run at the same time)",
                      fmt::join(names, ", "), blocks.size() == 1 ? "" : "s",
                      fmt::format("'{}'", fmt::join(blocks, "', '")), names[0]),
          std::move(refs)));
    }
    const int mapped = std::min(coincident, 3);
    const bool permutable = n == 1 || isl_schedule_node_band_get_permutable(band.get()) == isl_bool_true;
    int tiled = permutable ? n : mapped;
    if (tiled < n) {
      band = isl::manage(check(isl_schedule_node_band_split(band.release(), tiled), "split"));
      band = setBandMemberNames(band, std::vector<std::string>(names.begin(), names.begin() + tiled));
      band = setBandMemberNames(band.child(0), std::vector<std::string>(names.begin() + tiled, names.end())).parent();
    }
    std::vector<std::int64_t> sizes;
    for (int d = 0; d < tiled; ++d)
      sizes.push_back(d < static_cast<int>(tile.size()) ? tile[d] : kGpuDefaultTile);
    // Threads: the point sizes of the mapped members, halved from the outermost one while
    // the block has too many threads.
    std::vector<std::int64_t> threads(sizes.begin(), sizes.begin() + mapped);
    if (mapped == 3) threads[0] = std::min<std::int64_t>(threads[0], 64);
    threads[mapped - 1] = std::min(threads[mapped - 1], kGpuMaxThreads);
    auto product = [&] {
      std::int64_t p = 1;
      for (auto t : threads)
        p *= t;
      return p;
    };
    for (int d = 0; product() > kGpuMaxThreads; d = (d + 1) % mapped)
      if (threads[d] > 1) threads[d] = (threads[d] + 1) / 2;
    isl::schedule_node tileNode = tileBandNode(band, sizes);
    isl::schedule_node point = mapPointBand(tileNode.child(0), mapped, sizes, threads);
    std::vector<std::string> tags;
    for (int d = 0; d < mapped; ++d)
      tags.push_back(tag("blockIdx", d, mapped));
    return bindMembers(point.parent(), tags);
  }
};

} // namespace

Expected<isl::schedule> mapScheduleToGpu(const isl::schedule& schedule, const Scop& scop,
                                         const std::vector<std::int64_t>& tile) {
  Mapper mapper{scop, tile};
  auto root = mapper.visit(schedule.root());
  if (!root) return Unexpected(root.error());
  return root->schedule();
}

namespace {

// ---- program step ------------------------------------------------------------------

bool isThreadLoop(const ir::For& f) {
  return f.forKind == ir::ForKind::ThreadBinding && f.threadTag.starts_with("threadIdx.");
}

/// A constant upper bound of an extent isl generated (`min(31, N - 32 * i) + 1`).
std::optional<std::int64_t> constantUpperBound(const ir::Expr& e) {
  if (const auto* c = e.as<ir::IntImm>()) return c->value;
  if (const auto* m = e.as<ir::Min>()) {
    auto a = constantUpperBound(m->a), b = constantUpperBound(m->b);
    if (a && b) return std::min(*a, *b);
    return a ? a : b;
  }
  if (const auto* add = e.as<ir::Add>()) {
    auto a = constantUpperBound(add->a), b = constantUpperBound(add->b);
    if (a && b) return *a + *b;
    return std::nullopt;
  }
  if (const auto* sub = e.as<ir::Sub>()) {
    auto a = constantUpperBound(sub->a);
    auto b = ir::asConstInt(sub->b);
    if (a && b) return *a - *b;
  }
  return std::nullopt;
}

/// Thread loops of a partial tile run over their constant bound, the body guarded.
class ThreadGuards final : public ir::StmtMutator {
public:
  std::optional<std::string> failed; ///< the loop with no constant bound

protected:
  ir::Stmt visitFor(const ir::For& op, const ir::Stmt& self) override {
    ir::Stmt s = ir::StmtMutator::visitFor(op, self);
    const auto* f = s.as<ir::For>();
    if (!isThreadLoop(*f) || ir::asConstInt(f->extent)) return s;
    auto bound = constantUpperBound(f->extent);
    if (!bound || !ir::asConstInt(f->min)) {
      failed = op.loopVar.as<ir::Var>()->name;
      return s;
    }
    ir::Expr guard = f->loopVar < ir::simplify(f->min + f->extent);
    return ir::For::make(f->loopVar, f->min, ir::intImm(*bound, f->extent.dtype()), f->forKind,
                         ir::IfThenElse::make(guard, f->body), f->threadTag, f->annotations);
  }
};

/// The loop variables an expression uses.
std::set<const ir::ExprNode*> varsOf(const ir::Expr& e) {
  std::set<const ir::ExprNode*> out;
  ir::forEachExpr(e, [&](const ir::Expr& x) {
    if (x.is<ir::Var>()) out.insert(x.get());
  });
  return out;
}

/// Whether a block of `tree` writes `buffer`.
bool writtenByAnyBlock(const schedule::IrTree& tree, const ir::Buffer& buffer) {
  for (const schedule::TreeNode* b : tree.blocks())
    for (const auto& w : b->block()->writes)
      if (w.buffer.sameAs(buffer)) return true;
  return false;
}

/// Whether every block that reads or writes `buffer` is in one statement of the root
/// block (one kernel: on-chip memory does not outlive its kernel, and the bound-loop
/// check sees no loop carrying a dependence between two nests).
bool usedInOneNest(const schedule::IrTree& tree, const ir::Buffer& buffer) {
  const schedule::TreeNode* nest = nullptr;
  for (const schedule::TreeNode* b : tree.blocks()) {
    if (!b->parent) continue; // the root block
    bool uses = false;
    for (const auto* regions : {&b->block()->reads, &b->block()->writes})
      for (const auto& r : *regions)
        uses = uses || r.buffer.sameAs(buffer);
    if (!uses) continue;
    const schedule::TreeNode* top = b;
    while (top->parent && top->parent->parent)
      top = top->parent;
    if (nest && nest != top) return false;
    nest = top;
  }
  return true;
}

struct Promotion {
  std::string block;
  std::int64_t readIndex;
  std::string buffer;
};

/// The reads of blocks under thread loops that several threads read (the access does not
/// depend on one of the thread loops), inputs only (no block writes them).
std::vector<Promotion> promotionCandidates(const schedule::IrTree& tree) {
  std::vector<Promotion> out;
  for (const schedule::TreeNode* node : tree.blocks()) {
    if (!node->realize.defined()) continue;
    std::vector<const ir::ExprNode*> threadVars;
    for (const schedule::TreeNode* loop : tree.loopsAbove(*node))
      if (isThreadLoop(*loop->loop())) threadVars.push_back(loop->loop()->loopVar.get());
    if (threadVars.empty()) continue;
    const auto& realize = *node->realize.as<ir::BlockRealize>();
    const ir::Block& block = *node->block();
    for (std::size_t r = 0; r < block.reads.size(); ++r) {
      const ir::BufferRegion& read = block.reads[r];
      if (read.buffer->scope != ir::MemoryScope::Global || writtenByAnyBlock(tree, read.buffer)) continue;
      std::set<const ir::ExprNode*> used;
      for (const auto& range : read.region)
        for (const ir::ExprNode* v : varsOf(range.min))
          for (std::size_t i = 0; i < block.iterVars.size(); ++i)
            if (block.iterVars[i].var.get() == v) {
              auto loops = varsOf(realize.iterValues[i]);
              used.insert(loops.begin(), loops.end());
            }
      const bool reused =
          std::any_of(threadVars.begin(), threadVars.end(), [&](const ir::ExprNode* t) { return !used.contains(t); });
      if (reused) out.push_back({block.name, static_cast<std::int64_t>(r), read.buffer->name});
    }
  }
  return out;
}

/// cache_read of one candidate into "shared" at the innermost loop above the block's
/// first thread loop, its copy's dimensions bound to the block's threads. Returns
/// the copy's bytes, or nothing when a step is refused (the scratch schedule is then
/// dropped by the caller).
std::optional<std::int64_t> promote(schedule::Schedule& sch, const Promotion& p) {
  const schedule::TreeNode* node = sch.tree().findBlock(p.block);
  if (!node) return std::nullopt;
  std::vector<const schedule::TreeNode*> loops = sch.tree().loopsAbove(*node);
  const schedule::TreeNode* anchor = nullptr;
  std::vector<std::pair<std::string, std::int64_t>> threads; // tag, extent; outermost first
  for (const schedule::TreeNode* loop : loops) {
    if (isThreadLoop(*loop->loop())) {
      auto extent = ir::asConstInt(loop->loop()->extent);
      if (!extent) return std::nullopt;
      threads.emplace_back(loop->loop()->threadTag, *extent);
    } else if (threads.empty()) {
      anchor = loop;
    }
  }
  if (!anchor || threads.empty()) return std::nullopt;
  const ir::Expr anchorVar = anchor->loop()->loopVar;
  schedule::BlockRV block{sch.defineBlock(p.block)};
  auto copy = schedule::cacheRead(sch, block, p.readIndex, "shared");
  if (!copy) return std::nullopt;
  if (!schedule::computeAt(sch, *copy, schedule::LoopRV{sch.defineLoop(anchorVar)})) return std::nullopt;
  auto copyLoops = schedule::getLoops(sch, *copy);
  if (!copyLoops) return std::nullopt;
  // The copy's own loops (below the anchor) with their extents.
  std::vector<std::pair<schedule::LoopRV, std::int64_t>> own;
  bool below = false;
  std::int64_t elements = 1;
  for (const auto& l : *copyLoops) {
    auto loop = sch.loop(schedule::TraceValue(schedule::RV(l)), "poly_auto");
    if (!loop) return std::nullopt;
    if (below) {
      auto extent = ir::asConstInt((*loop)->loop()->extent);
      if (!extent) return std::nullopt;
      own.emplace_back(l, *extent);
      elements *= *extent;
    }
    if ((*loop)->loop()->loopVar.get() == anchorVar.get()) below = true;
  }
  // As PPCG maps copies: the innermost dimension of more than one element on threadIdx.x,
  // the next on threadIdx.y, ... (a strided loop where the tile is wider than the
  // threads, a predicate where it is narrower). Each index stays affine in the thread
  // indices (a fused and split copy would divide by the tile width), and consecutive
  // threads copy consecutive elements.
  std::size_t next = threads.size();
  for (std::size_t d = own.size(); d-- > 0 && next > 0;) {
    if (own[d].second == 1) continue;
    const auto& [tagName, count] = threads[--next];
    schedule::LoopRV bound = own[d].first;
    if (own[d].second != count) {
      auto parts = schedule::split(sch, own[d].first, {std::nullopt, count});
      if (!parts) return std::nullopt;
      bound = (*parts)[1];
    }
    if (!schedule::bind(sch, bound, tagName)) return std::nullopt;
  }
  const schedule::TreeNode* copyNode = sch.tree().findBlock(p.buffer + "_shared");
  const std::int64_t bytes = copyNode ? elements * copyNode->block()->writes[0].buffer->dtype.bytes() : elements * 4;
  return bytes;
}

} // namespace

Expected<ir::PrimFunc> finishGpuMapping(const ir::PrimFunc& func, bool promoteShared, std::vector<std::string>* notes) {
  ir::PrimFunc out = func;
  ThreadGuards guards;
  out.body = guards.mutate(func.body);
  if (guards.failed)
    return Unexpected(schedule::scheduleError(
        "poly_auto", "gpu-extent",
        fmt::format("poly_auto(target=\"gpu\"): the extent of thread loop '{}' has no constant bound", *guards.failed),
        {schedule::loopRef(*guards.failed)}));
  // Intermediates written and read by the same thread live in its registers ("local"):
  // a GPU kernel allocates no global buffers.
  const std::vector<ir::Buffer> intermediates = out.rootBlock().allocBuffers;
  for (const ir::Buffer& buffer : intermediates) {
    if (buffer->scope != ir::MemoryScope::Global) continue;
    schedule::Schedule scratch(out);
    const schedule::TreeNode* writer = nullptr;
    std::int64_t index = 0;
    for (const schedule::TreeNode* b : scratch.tree().blocks())
      for (std::size_t w = 0; w < b->block()->writes.size() && !writer; ++w)
        if (b->block()->writes[w].buffer.sameAs(buffer)) writer = b, index = static_cast<std::int64_t>(w);
    if (!writer) continue;
    if (!usedInOneNest(scratch.tree(), buffer)) {
      if (notes) notes->push_back(fmt::format("'{}' stays in global memory: two kernels use it", buffer->name));
      continue;
    }
    if (!schedule::setScope(scratch, schedule::BlockRV{scratch.defineBlock(writer->block()->name)}, index, "local"))
      continue;
    if (!checkBoundLoopDependences(scratch.func())) {
      if (notes) notes->push_back(fmt::format("'{}' stays in global memory: other threads read it", buffer->name));
      continue;
    }
    out = scratch.func();
    if (notes) notes->push_back(fmt::format("'{}' is local to each thread", buffer->name));
  }
  // What the GPU lowering checks too: no bound loop carries a dependence. (Checked
  // before the copies: those bind only copy loops, whose dependences are the shared
  // buffer's, which the barriers order.)
  if (auto ok = checkBoundLoopDependences(out); !ok) return Unexpected(ok.error());
  if (!promoteShared) return out;
  // Smallest tiles first: each promotion is tried alone to size it (compute_at refuses a
  // copy into a scope whose other copy leaves part of a region uncovered, e.g. a padded
  // input's copy under its bounds predicate, so the order decides what can follow).
  std::vector<std::pair<std::int64_t, Promotion>> sized;
  for (const Promotion& p : promotionCandidates(schedule::IrTree(out))) {
    schedule::Schedule trial(out);
    auto bytes = promote(trial, p);
    sized.emplace_back(bytes ? *bytes : 0, p);
  }
  std::stable_sort(sized.begin(), sized.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::int64_t used = 0;
  for (const auto& [size, p] : sized) {
    schedule::Schedule scratch(out);
    auto bytes = promote(scratch, p);
    if (!bytes) {
      if (notes) notes->push_back(fmt::format("'{}' of '{}' is not promoted: a step was refused", p.buffer, p.block));
      continue;
    }
    if (used + *bytes > kGpuSharedBytes) {
      if (notes)
        notes->push_back(fmt::format("'{}' of '{}' is not promoted: {} bytes of shared memory would exceed {}",
                                     p.buffer, p.block, used + *bytes, kGpuSharedBytes));
      continue;
    }
    used += *bytes;
    out = scratch.func();
    if (notes)
      notes->push_back(fmt::format("'{}' of '{}' is copied to shared memory ({} bytes)", p.buffer, p.block, *bytes));
  }
  return out;
}

} // namespace loopscape::poly::detail
