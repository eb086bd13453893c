// The rules of the search space, applied to a schedule (sketch_rules.h, space.h).
#include "core/tune/sketch_rules.h"

#include "core/ir/visitor.h"
#include "core/poly/checked_schedule.h"
#include "core/schedule/primitives.h"

#include <algorithm>

namespace loopscape::tune {

namespace {

using namespace schedule;

enum class Role : std::uint8_t { None, Spatial, Reduce };

/// How `loopVar` feeds `block`'s iterators: a reduce iterator (Reduce), only spatial ones
/// (Spatial), or none.
Role roleIn(const TreeNode& block, const ir::ExprNode* loopVar) {
  const auto* realize = block.realize.as<ir::BlockRealize>();
  if (!realize) return Role::None;
  const ir::Block& b = *block.block();
  Role role = Role::None;
  for (std::size_t i = 0; i < b.iterVars.size() && i < realize->iterValues.size(); ++i) {
    bool uses = false;
    ir::forEachExpr(realize->iterValues[i], [&](const ir::Expr& e) { uses |= e.get() == loopVar; });
    if (!uses) continue;
    if (b.iterVars[i].kind != ir::IterKind::Spatial) return Role::Reduce; // scan and opaque are not parallel
    role = Role::Spatial;
  }
  return role;
}

/// Whether `loop` feeds a reduce iterator of some block below it.
bool feedsReduction(const TreeNode& loop) {
  const ir::ExprNode* var = loop.loop()->loopVar.get();
  bool reduce = false;
  auto visit = [&](auto&& self, const TreeNode& n) -> void {
    if (n.isBlock() && roleIn(n, var) == Role::Reduce) reduce = true;
    for (const TreeNode* c : n.children)
      self(self, *c);
  };
  visit(visit, loop);
  return reduce;
}

std::optional<std::int64_t> constExtent(const TreeNode& loop) { return ir::asConstInt(loop.loop()->extent); }

std::optional<std::int64_t> intOf(const std::optional<TraceValue>& v) {
  if (!v) return std::nullopt;
  const auto* i = v->get<std::int64_t>();
  return i ? std::optional(*i) : std::nullopt;
}

std::optional<std::vector<std::int64_t>> intsOf(const std::optional<TraceValue>& v) {
  return v ? intListOf(*v) : std::nullopt;
}

class Applier {
public:
  Applier(Schedule sch, const SpaceOptions& options, const Decisions& forced)
      : m_sch(std::move(sch)), m_options(options), m_forced(forced) {}

  Schedule& schedule() { return m_sch; }

  Expected<void> run(const Sketch& sketch) {
    if (sketch.family == Family::Poly) return poly(sketch);
    for (const auto& plan : sketch.plans) {
      Expected<void> done;
      switch (plan.rule) {
      case Sketch::Rule::Skip: break;
      case Sketch::Rule::Inline: done = inlineBlock(plan.block); break;
      case Sketch::Rule::Tile: done = tile(plan.block, plan.writeLevel, plan.pack); break;
      case Sketch::Rule::RFactor: done = rfactor(plan.block); break;
      case Sketch::Rule::ComputeLocation: done = computeLocation(plan.block); break;
      }
      if (!done) return done;
    }
    return postSteps();
  }

private:
  /// The next forced decision (nullopt: sample).
  std::optional<TraceValue> take() {
    const std::size_t i = m_next++;
    if (i < m_forced.size() && !m_forced[i].isNone()) return m_forced[i];
    return std::nullopt;
  }

  const TreeNode& node(const RV& rv) { return **m_sch.blockOrLoop(rv, "tune"); }

  /// The prime factors of `x` spread over `k` slots at random (sample_perfect_tile's way).
  std::vector<std::int64_t> spread(std::int64_t x, std::size_t k) {
    std::vector<std::int64_t> slots(k, 1);
    for (std::int64_t p = 2; p * p <= x; ++p)
      while (x % p == 0)
        slots[m_sch.rng()() % k] *= p, x /= p;
    if (x > 1) slots[m_sch.rng()() % k] *= x;
    return slots;
  }

  /// A decision for splitting a loop of `extent` in `n` whose last factor is one of the
  /// divisors in [lo, hi] (nullopt when there is none).
  std::optional<std::vector<std::int64_t>> guided(std::int64_t extent, std::int64_t n, std::int64_t lo,
                                                  std::int64_t hi) {
    std::vector<std::int64_t> inner;
    for (std::int64_t d = lo; d <= std::min(hi, extent); ++d)
      if (extent % d == 0) inner.push_back(d);
    if (inner.empty()) return std::nullopt;
    const std::int64_t last = inner[m_sch.rng()() % inner.size()];
    std::vector<std::int64_t> decision = spread(extent / last, static_cast<std::size_t>(n - 1));
    decision.push_back(last);
    return decision;
  }

  /// sample_perfect_tile, with a guided decision (space.h) for a spatial loop when no
  /// decision is forced: `vectorAxis` the innermost spatial loop.
  Expected<std::vector<ExprRV>> sampleTile(LoopRV loop, std::int64_t n, bool spatial, bool vectorAxis) {
    auto forced = intsOf(take());
    const auto extent = constExtent(node(loop));
    const double unit = static_cast<double>(m_sch.rng()() >> 11) * 0x1.0p-53;
    if (!forced && spatial && extent && unit < m_options.guidedTileProbability) {
      forced = vectorAxis ? guided(*extent, n, m_options.vectorLanes, m_options.maxInnermostFactor)
                          : guided(*extent, n, 1, 8);
    }
    auto r = samplePerfectTile(m_sch, loop, n, m_options.maxInnermostFactor, forced);
    if (!r && forced) r = samplePerfectTile(m_sch, loop, n, m_options.maxInnermostFactor);
    return r;
  }

  Expected<void> inlineBlock(const std::string& name) {
    auto b = getBlock(m_sch, name, m_sch.func().name);
    if (!b) return std::unexpected(b.error());
    if (computeInline(m_sch, *b)) return {};
    // Not inlinable after all: it stays a compute-location candidate.
    return computeLocation(name);
  }

  Expected<void> computeLocation(const std::string& name) {
    auto b = getBlock(m_sch, name, m_sch.func().name);
    if (!b) return std::unexpected(b.error());
    auto forced = intOf(take());
    auto loc = sampleComputeLocation(m_sch, *b, forced);
    if (!loc && forced) loc = sampleComputeLocation(m_sch, *b);
    if (!loc) return std::unexpected(loc.error());
    return computeAt(m_sch, *b, *loc, true);
  }

  /// Multi-level tiling SSRSRS with write reuse at `writeLevel` (0: none) and the input
  /// `pack` packed into panels of the register tile's width (empty: none).
  Expected<void> tile(const std::string& name, int writeLevel, const std::string& pack) {
    auto b = getBlock(m_sch, name, m_sch.func().name);
    if (!b) return std::unexpected(b.error());
    auto loops = getLoops(m_sch, *b);
    if (!loops) return std::unexpected(loops.error());
    std::vector<LoopRV> S[4], R[2];
    // Reduce loops keep their order (the exact legality check holds a reduction to its
    // sequential order): only the first one of extent > 1 is split; the ones before it go
    // to R0, the ones after it to R1 whole.
    bool reduceSplit = false;
    // The innermost spatial loop (the contiguous axis of the output, as te lays it out).
    LoopRV vectorAxis;
    std::int64_t panel = 1; // its register tile factor
    for (const LoopRV& l : *loops) {
      const auto extent = constExtent(node(l));
      if (extent && *extent > 1 &&
          roleIn(*m_sch.tree().findBlock(name), node(l).loop()->loopVar.get()) == Role::Spatial)
        vectorAxis = l;
    }
    for (const LoopRV& l : *loops) {
      const TreeNode& loopNode = node(l);
      const Role role = roleIn(*m_sch.tree().findBlock(name), loopNode.loop()->loopVar.get());
      const auto extent = constExtent(loopNode);
      const bool reduce = role == Role::Reduce;
      if (!extent || *extent <= 1 || (reduce && reduceSplit)) {
        (reduce ? R[reduceSplit ? 1 : 0] : S[0]).push_back(l);
        continue;
      }
      reduceSplit |= reduce;
      auto factors = sampleTile(l, reduce ? 2 : 4, !reduce, l == vectorAxis);
      if (!factors) return std::unexpected(factors.error());
      if (l == vectorAxis && !factors->empty()) panel = m_sch.integer(RV(factors->back()), "tune").value_or(1);
      auto parts = split(m_sch, l, *factors);
      if (!parts) return std::unexpected(parts.error());
      for (std::size_t i = 0; i < parts->size(); ++i)
        (reduce ? R[i] : S[i]).push_back((*parts)[i]);
    }
    std::vector<LoopRV> order;
    for (const auto* group : {&S[0], &S[1], &R[0], &S[2], &R[1], &S[3]})
      order.insert(order.end(), group->begin(), group->end());
    if (order.size() > 1)
      if (auto r = reorder(m_sch, order); !r) return r;
    if (!pack.empty())
      if (auto r = packPanels(*b, pack, panel); !r) return r;
    if (writeLevel <= 0) return {};
    const std::vector<LoopRV>& anchorGroup = S[writeLevel - 1];
    if (anchorGroup.empty()) return {};
    const LoopRV anchor = anchorGroup.back();
    auto consumers = getConsumers(m_sch, *b);
    if (!consumers) return std::unexpected(consumers.error());
    // A single consumer (an epilogue) moves into the tile; otherwise a write cache does.
    if (consumers->size() == 1 && reverseComputeAt(m_sch, consumers->front(), anchor, true)) return {};
    auto cache = cacheWrite(m_sch, *b, 0, "global");
    if (!cache) return std::unexpected(cache.error());
    return reverseComputeAt(m_sch, *cache, anchor, true);
  }

  /// `buffer` (read by `block`, its last dimension the vector axis) copied into panels
  /// `width` wide: B[k, j] -> B_global[j // width, k, j % width], the copy's panel loop
  /// outermost and its `width` loop innermost (the post-steps parallelise and vectorise
  /// it). Nothing when the panel is one column or the whole row.
  Expected<void> packPanels(BlockRV block, const std::string& buffer, std::int64_t width) {
    auto node = m_sch.block(RV(block), "tune");
    if (!node) return std::unexpected(node.error());
    const auto& reads = (*node)->block()->reads;
    const auto it =
        std::find_if(reads.begin(), reads.end(), [&](const ir::BufferRegion& r) { return r.buffer->name == buffer; });
    if (it == reads.end() || width <= 1) return {};
    const std::size_t rank = it->region.size();
    const auto last = ir::asConstInt(it->buffer->shape.back());
    if (!last || width >= *last || *last % width != 0) return {};
    auto copy = cacheRead(m_sch, block, it - reads.begin(), "global");
    if (!copy) return std::unexpected(copy.error());
    IndexMap map;
    for (std::size_t d = 0; d < rank; ++d)
      map.params.push_back(ir::Var::make(fmt::format("d{}", d)));
    const ir::Expr w = ir::IntImm::make(ir::DataType::int32(), width);
    map.results.push_back(ir::FloorDiv::make(map.params.back(), w));
    for (std::size_t d = 0; d + 1 < rank; ++d)
      map.results.push_back(map.params[d]);
    map.results.push_back(ir::FloorMod::make(map.params.back(), w));
    if (auto r = transformLayout(m_sch, *copy, {BufferIndex::Kind::Write, 0}, std::move(map)); !r) return r;
    auto loops = getLoops(m_sch, *copy);
    if (!loops) return std::unexpected(loops.error());
    if (loops->size() != rank) return {};
    auto parts = split(m_sch, loops->back(), {std::nullopt, width});
    if (!parts) return std::unexpected(parts.error());
    std::vector<LoopRV> order{parts->front()};
    order.insert(order.end(), loops->begin(), loops->end() - 1);
    order.push_back(parts->back());
    if (auto r = reorder(m_sch, order); !r) return r;
    return {};
  }

  /// The reduce loops fused, split in 2 by sampled factors and the outer (decision 0) or
  /// inner (1) factored out with rfactor.
  Expected<void> rfactor(const std::string& name) {
    auto b = getBlock(m_sch, name, m_sch.func().name);
    if (!b) return std::unexpected(b.error());
    auto loops = getLoops(m_sch, *b);
    if (!loops) return std::unexpected(loops.error());
    std::vector<LoopRV> reduce;
    for (const LoopRV& l : *loops)
      if (roleIn(*m_sch.tree().findBlock(name), node(l).loop()->loopVar.get()) == Role::Reduce) reduce.push_back(l);
    if (reduce.empty()) return {};
    LoopRV fused = reduce.front();
    if (reduce.size() > 1) {
      auto f = fuse(m_sch, reduce);
      if (!f) return std::unexpected(f.error());
      fused = *f;
    }
    if (!constExtent(node(fused))) return {};
    auto factors = sampleTile(fused, 2, false, false);
    if (!factors) return std::unexpected(factors.error());
    auto parts = split(m_sch, fused, *factors);
    if (!parts) return std::unexpected(parts.error());
    auto forced = intOf(take());
    auto which = sampleCategorical(m_sch, {0, 1}, {0.5, 0.5}, forced);
    if (!which) which = sampleCategorical(m_sch, {0, 1}, {0.5, 0.5});
    if (!which) return std::unexpected(which.error());
    // A loop of extent 1 feeds no reduce iterator: the other one is factored out then.
    std::int64_t index = *m_sch.integer(RV(*which), "tune");
    if (constExtent(node((*parts)[index])).value_or(2) == 1) index = 1 - index;
    if (constExtent(node((*parts)[index])).value_or(2) == 1) return {};
    auto rf = schedule::rfactor(m_sch, (*parts)[index], 0);
    if (!rf) return std::unexpected(rf.error());
    return {};
  }

  /// Parallel outer loops, decomposed reductions, vectorized and unrolled inner loops.
  Expected<void> postSteps() {
    // As MetaSchedule's postprocessors: the loop annotations first (vectorize and
    // parallel refuse a reduction block without its init), then the inits hoisted (the
    // copied loops keep their kinds).
    if (m_options.cores > 1) {
      auto jobs = sampleJobs();
      if (!jobs) return std::unexpected(jobs.error());
      if (*jobs > 0) parallelize(*jobs);
    }
    vectorize();
    auto unrolled = unroll();
    if (!unrolled) return unrolled;
    decompose();
    return {};
  }

  /// Each nest's outer loops that feed no reduce iterator, fused while their product is
  /// within the bound (the first always), marked parallel.
  /// The parallel jobs per core, sampled: 0 (no parallel loop: small kernels lose more to
  /// the threads' start than they gain), 1, 4 or max_jobs_per_core, the last most of the
  /// time (16 in 20). MetaSchedule starts every candidate at max_jobs_per_core and lets
  /// its MutateParallel move it; the mutation here draws the other three uniformly. (With
  /// the four equally likely but the last twice, a 256-trial search on the ResNet-18 conv
  /// layer measured 210 candidates at 16 jobs, median 69.6 GFLOP/s, and 46 at the others,
  /// median 16.1: most of its first batches were lost.)
  Expected<std::int64_t> sampleJobs() {
    const std::vector<std::int64_t> jobs{0, 1, 4, m_options.maxJobsPerCore};
    const std::vector<double> probs{1, 1, 2, 16};
    auto forced = intOf(take());
    auto sampled = sampleCategorical(m_sch, jobs, probs, forced);
    if (!sampled && forced) sampled = sampleCategorical(m_sch, jobs, probs);
    if (!sampled) return std::unexpected(sampled.error());
    return *m_sch.integer(RV(*sampled), "tune");
  }

  void parallelize(std::int64_t jobsPerCore) {
    const std::int64_t bound = jobsPerCore * m_options.cores;
    // The first block of each top-level nest names the nest's loops (get_loops).
    std::vector<std::string> firstBlocks;
    for (const TreeNode* top : m_sch.tree().root().children) {
      const TreeNode* n = top;
      while (n && !n->isBlock())
        n = n->children.empty() ? nullptr : n->children.front();
      if (top->loop() && n) firstBlocks.push_back(n->block()->name);
    }
    for (const std::string& name : firstBlocks) {
      auto b = getBlock(m_sch, name, m_sch.func().name);
      if (!b) continue;
      auto loops = getLoops(m_sch, *b);
      if (!loops) continue;
      std::vector<LoopRV> chain;
      std::int64_t product = 1;
      for (const LoopRV& l : *loops) {
        const TreeNode& n = node(l);
        const auto extent = constExtent(n);
        if (!extent || n.loop()->forKind != ir::ForKind::Serial || feedsReduction(n)) break;
        if (!chain.empty() && product * *extent > bound) break;
        chain.push_back(l);
        product *= *extent;
        if (n.children.size() != 1 || !n.children.front()->loop()) break;
      }
      if (chain.empty() || product < 2) continue;
      LoopRV target = chain.front();
      if (chain.size() > 1) {
        auto fused = fuse(m_sch, chain);
        if (!fused) continue;
        target = *fused;
      }
      (void)schedule::parallel(m_sch, target);
    }
  }

  /// Each reduction's init hoisted to its outermost reduce loop.
  void decompose() {
    std::vector<std::string> names;
    for (const TreeNode* b : m_sch.tree().blocks())
      if (b->block()->init.defined()) names.push_back(b->block()->name);
    for (const auto& name : names) {
      auto b = getBlock(m_sch, name, m_sch.func().name);
      if (!b) continue;
      auto loops = getLoops(m_sch, *b);
      if (!loops) continue;
      for (const LoopRV& l : *loops) {
        if (roleIn(*m_sch.tree().findBlock(name), node(l).loop()->loopVar.get()) != Role::Reduce) continue;
        (void)decomposeReduction(m_sch, *b, l);
        break;
      }
    }
  }

  std::vector<std::string> blockNames() {
    std::vector<std::string> names;
    for (const TreeNode* b : m_sch.tree().blocks())
      names.push_back(b->block()->name);
    return names;
  }

  /// The innermost loop of each block, when it feeds no reduce iterator and its extent is
  /// a constant in [2, max_vectorize_extent].
  void vectorize() {
    for (const auto& name : blockNames()) {
      auto b = getBlock(m_sch, name, m_sch.func().name);
      if (!b) continue;
      auto loops = getLoops(m_sch, *b);
      if (!loops || loops->empty()) continue;
      const TreeNode& inner = node(loops->back());
      const auto extent = constExtent(inner);
      if (!extent || *extent < 2 || *extent > m_options.maxVectorizeExtent) continue;
      if (inner.loop()->forKind != ir::ForKind::Serial || feedsReduction(inner)) continue;
      (void)schedule::vectorize(m_sch, loops->back());
    }
  }

  /// The unroll depth sampled; the innermost serial loops of each block unrolled outward
  /// while the product of their extents stays within it and each loop holds one nest.
  Expected<void> unroll() {
    std::vector<std::int64_t> steps = m_options.unrollSteps;
    if (steps.empty()) return {};
    std::vector<double> probs(steps.size(), 1.0);
    auto forced = intOf(take());
    auto depth = sampleCategorical(m_sch, steps, probs, forced);
    if (!depth && forced) depth = sampleCategorical(m_sch, steps, probs);
    if (!depth) return std::unexpected(depth.error());
    const std::int64_t step = *m_sch.integer(RV(*depth), "tune");
    if (step <= 1) return {};
    for (const auto& name : blockNames()) {
      auto b = getBlock(m_sch, name, m_sch.func().name);
      if (!b) continue;
      auto loops = getLoops(m_sch, *b);
      if (!loops) continue;
      std::int64_t product = 1;
      for (auto it = loops->rbegin(); it != loops->rend(); ++it) {
        const TreeNode& l = node(*it);
        const ir::ForKind kind = l.loop()->forKind;
        if (kind == ir::ForKind::Vectorized || kind == ir::ForKind::Unrolled) continue;
        const auto extent = constExtent(l);
        if (kind != ir::ForKind::Serial || !extent || product * *extent > step) break;
        // A loop around other nests too (an epilogue moved into the tile) stays a loop.
        if (l.children.size() != 1) break;
        product *= *extent;
        if (*extent > 1) (void)schedule::unroll(m_sch, *it);
      }
    }
    return {};
  }

  Expected<void> poly(const Sketch& sketch) {
    std::optional<TraceValue> decision = take();
    const std::vector<TraceValue> attrs{sketch.fusion, TraceList{}, TraceList{},  m_options.cores > 1,
                                        false,         true,        std::string()};
    auto r = m_sch.apply("poly_optimize", {}, attrs, decision);
    if (!r && decision) r = m_sch.apply("poly_optimize", {}, attrs);
    if (!r) return std::unexpected(r.error());
    return {};
  }

  Schedule m_sch;
  const SpaceOptions& m_options;
  const Decisions& m_forced;
  std::size_t m_next = 0;
};

} // namespace

std::optional<std::vector<std::int64_t>> intListOf(const TraceValue& value) {
  const auto* list = value.get<TraceList>();
  if (!list) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const auto& x : *list) {
    const auto* i = x.get<std::int64_t>();
    if (!i) return std::nullopt;
    out.push_back(*i);
  }
  return out;
}

Expected<Schedule> applySketch(const StatePtr& original, const Sketch& sketch, const SpaceOptions& options,
                               const Decisions& forced, std::uint64_t seed) {
  Applier applier(poly::makeSchedule(original, LegalityPolicy::Unverified, seed), options, forced);
  if (auto done = applier.run(sketch); !done) return std::unexpected(done.error());
  return std::move(applier.schedule());
}

} // namespace loopscape::tune
