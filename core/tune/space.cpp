// The sketches of a program and the mutation of their decisions (space.h). The rules that
// apply a sketch to a schedule are in sketch_rules.cpp.
#include "core/tune/space.h"

#include "core/ir/visitor.h"
#include "core/schedule/instruction.h"
#include "core/tune/sketch_rules.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <set>

namespace loopscape::tune {

namespace {

using schedule::TraceList;
using schedule::TraceValue;

/// The buffers `func`'s parameters name (outputs are among them).
std::set<const ir::BufferNode*> paramBuffers(const ir::PrimFunc& func) {
  std::set<const ir::BufferNode*> out;
  for (const auto& p : func.params)
    out.insert(p.get());
  return out;
}

/// Whether the block reads some buffer at indices that leave out one of its spatial
/// iterators (data reuse: MetaSchedule's NeedsMultiLevelTiling).
bool hasDataReuse(const ir::Block& b) {
  std::vector<const ir::ExprNode*> spatial;
  for (const auto& iv : b.iterVars)
    if (iv.kind == ir::IterKind::Spatial) spatial.push_back(iv.var.get());
  for (const auto& region : b.reads) {
    std::set<const ir::ExprNode*> used;
    for (const auto& r : region.region) {
      ir::forEachExpr(r.min, [&](const ir::Expr& e) { used.insert(e.get()); });
      ir::forEachExpr(r.extent, [&](const ir::Expr& e) { used.insert(e.get()); });
    }
    if (std::any_of(spatial.begin(), spatial.end(), [&](auto* v) { return !used.contains(v); })) return true;
  }
  return false;
}

/// Whether the block computes a conditional value (a padding's T.if_then_else): inlined
/// into its consumer it would put the condition in the consumer's innermost loop, which
/// MetaSchedule's auto-inline refuses (disallow_if_then_else).
bool hasConditional(const ir::Block& b) {
  bool found = false;
  ir::forEachExpr(b.body, [&](const ir::Expr& e) { found = found || e.kind() == ir::Select::kKind; });
  return found;
}

/// The input parameter a tiled block's panels pack (space.h's "+ packing"): read at
/// distinct block iterators, the last the innermost spatial iterator of extent at least
/// two vectors, another a reduce iterator; empty when there is none.
std::string packableInput(const ir::Block& b, const std::set<const ir::BufferNode*>& params, int vectorLanes) {
  // The innermost spatial iterator with an extent above 1 (te's innermost output axis).
  int vector = -1;
  for (std::size_t i = 0; i < b.iterVars.size(); ++i)
    if (b.iterVars[i].kind == ir::IterKind::Spatial && ir::asConstInt(b.iterVars[i].dom.extent).value_or(1) > 1)
      vector = static_cast<int>(i);
  if (vector < 0 || ir::asConstInt(b.iterVars[vector].dom.extent).value_or(0) < 2 * vectorLanes) return {};
  std::set<const ir::BufferNode*> written;
  for (const auto& w : b.writes)
    written.insert(w.buffer.get());
  for (const auto& region : b.reads) {
    const ir::BufferNode* buffer = region.buffer.get();
    if (!params.contains(buffer) || written.contains(buffer) || region.region.size() < 2) continue;
    std::vector<int> iters;
    for (const auto& r : region.region) {
      int found = -1;
      for (std::size_t i = 0; i < b.iterVars.size(); ++i)
        if (r.min.get() == b.iterVars[i].var.get()) found = static_cast<int>(i);
      if (found < 0 || ir::asConstInt(r.extent).value_or(0) != 1 ||
          std::find(iters.begin(), iters.end(), found) != iters.end())
        break;
      iters.push_back(found);
    }
    if (iters.size() != region.region.size() || iters.back() != vector) continue;
    if (std::any_of(iters.begin(), iters.end(), [&](int i) { return b.iterVars[i].kind == ir::IterKind::Reduce; }))
      return buffer->name;
  }
  return {};
}

/// Products of the constant spatial and reduce iterator extents (symbolic ones count 1).
std::pair<std::int64_t, std::int64_t> iterProducts(const ir::Block& b) {
  std::int64_t spatial = 1, reduce = 1;
  for (const auto& iv : b.iterVars) {
    const std::int64_t e = ir::asConstInt(iv.dom.extent).value_or(1);
    (iv.kind == ir::IterKind::Spatial ? spatial : reduce) *= std::max<std::int64_t>(e, 1);
    spatial = std::min<std::int64_t>(spatial, std::int64_t{1} << 40);
    reduce = std::min<std::int64_t>(reduce, std::int64_t{1} << 40);
  }
  return {spatial, reduce};
}

/// Positions of the prime factors > 1 in a tile decision.
std::vector<std::int64_t> primeFactorsOf(std::int64_t x) {
  std::vector<std::int64_t> out;
  for (std::int64_t p = 2; p * p <= x; ++p)
    while (x % p == 0)
      out.push_back(p), x /= p;
  if (x > 1) out.push_back(x);
  return out;
}

TraceValue listValue(const std::vector<std::int64_t>& xs) {
  TraceList list;
  for (auto x : xs)
    list.emplace_back(x);
  return list;
}

std::int64_t uniform(std::mt19937_64& rng, std::int64_t n) {
  return static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(std::max<std::int64_t>(n, 1)));
}

/// A tile size factor moved from one level to another (MutateTileSize).
std::optional<TraceValue> mutateTile(const TraceValue& decision, std::int64_t maxInnermost, std::mt19937_64& rng) {
  auto d = intListOf(decision);
  if (!d || d->size() < 2) return std::nullopt;
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::vector<std::int64_t> m = *d;
    std::vector<std::size_t> from;
    for (std::size_t i = 0; i < m.size(); ++i)
      if (m[i] > 1) from.push_back(i);
    if (from.empty()) return std::nullopt;
    const std::size_t i = from[uniform(rng, static_cast<std::int64_t>(from.size()))];
    const auto primes = primeFactorsOf(m[i]);
    const std::int64_t p = primes[uniform(rng, static_cast<std::int64_t>(primes.size()))];
    std::size_t j = uniform(rng, static_cast<std::int64_t>(m.size()) - 1);
    if (j >= i) ++j;
    m[i] /= p;
    m[j] *= p;
    if (maxInnermost > 0 && m.back() > maxInnermost) continue;
    return listValue(m);
  }
  return std::nullopt;
}

/// One of poly_optimize's per-band sizes doubled or halved; a tile size stays a multiple of
/// its register size and at least 1.
std::optional<TraceValue> mutatePolyDecision(const TraceValue& decision, std::mt19937_64& rng) {
  const auto* bands = decision.get<TraceList>();
  if (!bands) return std::nullopt;
  std::vector<std::size_t> usable;
  for (std::size_t b = 0; b < bands->size(); ++b)
    if (auto d = intListOf((*bands)[b]); d && !d->empty() && d->size() % 2 == 0) usable.push_back(b);
  if (usable.empty()) return std::nullopt;
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::size_t b = usable[uniform(rng, static_cast<std::int64_t>(usable.size()))];
    std::vector<std::int64_t> d = *intListOf((*bands)[b]);
    const std::size_t n = d.size() / 2;
    const std::size_t k = uniform(rng, static_cast<std::int64_t>(d.size()));
    const bool up = uniform(rng, 2) == 0;
    const std::size_t t = k % n, r = n + k % n;
    // A register tile stays within its cache tile. A power of two (a vector width, whose
    // loop needs a constant trip count) must divide it; other rows (6, 12) need not:
    // poly_optimize keeps them and lowering versions the partial register tile.
    auto fits = [](std::int64_t tile, std::int64_t reg) {
      return reg <= tile && (tile % reg == 0 || (reg & (reg - 1)) != 0);
    };
    if (k < n) {
      const std::int64_t v = up ? d[t] * 2 : d[t] / 2;
      if (v < 1 || v > (std::int64_t{1} << 20) || !fits(v, d[r]) || v == d[t]) continue;
      d[t] = v;
    } else {
      const std::int64_t v = up ? d[r] * 2 : d[r] / 2;
      if (v < 1 || v > 64 || !fits(d[t], v) || v == d[r]) continue;
      d[r] = v;
    }
    TraceList out = *bands;
    out[b] = listValue(d);
    return TraceValue(std::move(out));
  }
  return std::nullopt;
}

} // namespace

std::string_view familyName(Family family) { return family == Family::Tir ? "tir" : "poly"; }

std::vector<Sketch> generateSketches(const ir::PrimFunc& func, const SpaceOptions& options) {
  std::vector<Sketch> sketches;
  if (options.tir) {
    // One rule per block, last block first; the tiled blocks fork by write-reuse level
    // and the rfactor candidates by rfactor or not.
    const schedule::IrTree tree(func);
    const auto params = paramBuffers(func);
    const std::int64_t parallelBound = std::int64_t{options.maxJobsPerCore} * std::max(options.cores, 1);
    std::vector<std::vector<Sketch::BlockPlan>> choices;
    const auto& blocks = tree.blocks();
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
      const ir::Block& b = *(*it)->block();
      const bool reduction = std::any_of(b.iterVars.begin(), b.iterVars.end(),
                                         [](const ir::IterVar& iv) { return iv.kind == ir::IterKind::Reduce; });
      const bool output = std::any_of(b.writes.begin(), b.writes.end(),
                                      [&](const ir::BufferRegion& w) { return params.contains(w.buffer.get()); });
      std::vector<Sketch::BlockPlan> options_;
      if (reduction && hasDataReuse(b)) {
        for (int level : {0, 1, 2})
          options_.push_back({b.name, Sketch::Rule::Tile, level, {}});
        if (const std::string pack = packableInput(b, params, options.vectorLanes); !pack.empty())
          for (int level : {0, 1, 2})
            options_.push_back({b.name, Sketch::Rule::Tile, level, pack});
      } else if (reduction) {
        const auto [spatial, reduce] = iterProducts(b);
        options_.push_back({b.name, Sketch::Rule::Skip, 0, {}});
        if (spatial <= parallelBound && spatial < reduce) options_.push_back({b.name, Sketch::Rule::RFactor, 0, {}});
      } else if (!output) {
        if (!hasConditional(b)) options_.push_back({b.name, Sketch::Rule::Inline, 0, {}});
        options_.push_back({b.name, Sketch::Rule::ComputeLocation, 0, {}});
      } else {
        options_.push_back({b.name, Sketch::Rule::Skip, 0, {}});
      }
      choices.push_back(std::move(options_));
    }
    // The cross product, first choices first, at most 24 sketches.
    std::vector<std::vector<Sketch::BlockPlan>> combos{{}};
    for (const auto& c : choices) {
      std::vector<std::vector<Sketch::BlockPlan>> next;
      for (const auto& prefix : combos)
        for (const auto& plan : c) {
          if (next.size() >= 24) break;
          auto p = prefix;
          p.push_back(plan);
          next.push_back(std::move(p));
        }
      combos = std::move(next);
    }
    for (auto& plans : combos) {
      Sketch s;
      s.family = Family::Tir;
      std::string what;
      for (const auto& p : plans) {
        if (p.rule == Sketch::Rule::Skip) continue;
        static constexpr const char* kRule[] = {"skip", "inline", "tile", "rfactor", "compute_at"};
        what += fmt::format("{}{}: {}", what.empty() ? "" : ", ", p.block, kRule[static_cast<int>(p.rule)]);
        if (p.rule == Sketch::Rule::Tile && p.writeLevel > 0) what += fmt::format(" write@{}", p.writeLevel);
        if (p.rule == Sketch::Rule::Tile && !p.pack.empty()) what += " pack " + p.pack;
      }
      s.name = fmt::format("tir({})", what.empty() ? "post-steps only" : what);
      s.plans = std::move(plans);
      sketches.push_back(std::move(s));
    }
  }
  if (options.poly) {
    for (const char* fusion : {"smart", "max", "min"}) {
      Sketch s;
      s.family = Family::Poly;
      s.fusion = fusion;
      s.name = fmt::format("poly(fusion={})", fusion);
      sketches.push_back(std::move(s));
    }
  }
  return sketches;
}

Expected<schedule::Schedule> generate(const ir::PrimFunc& original, const Sketch& sketch, const SpaceOptions& options,
                                      const Decisions& forced, std::uint64_t seed) {
  return applySketch(schedule::ProgramState::make(original), sketch, options, forced, seed);
}

Decisions decisionsOf(const schedule::Trace& trace) {
  Decisions out;
  for (const auto& inst : trace.instructions)
    if (inst.kind && inst.kind->isSampling) out.push_back(inst.decision.value_or(TraceValue{}));
  return out;
}

std::optional<Decisions> mutate(const schedule::Trace& trace, const SpaceOptions& options, std::mt19937_64& rng) {
  struct Site {
    std::size_t index; ///< in the decisions
    const schedule::Instruction* inst;
    int mutator;
  };
  // MetaSchedule's mutator probabilities: a mutator first (tile sizes 0.9, compute location
  // 0.05, unroll and parallel, both categorical, 0.05), then one of its sites uniformly.
  // Weighting each site instead let a conv's six tile decisions crowd out its one compute
  // location (0.9 % of the mutations instead of 5 %).
  constexpr std::array kMutatorWeight{0.9, 0.05, 0.05};
  std::array<int, kMutatorWeight.size()> sitesOf{};
  std::vector<Site> sites;
  Decisions decisions;
  for (const auto& inst : trace.instructions) {
    if (!inst.kind || !inst.kind->isSampling) continue;
    const std::string_view name = inst.kind->name;
    const int mutator = name == "sample_perfect_tile" || name == "poly_optimize" ? 0
                        : name == "sample_compute_location"                      ? 1
                                                                                 : 2;
    ++sitesOf[mutator];
    sites.push_back({decisions.size(), &inst, mutator});
    decisions.push_back(inst.decision.value_or(TraceValue{}));
  }
  const auto weight = [&](const Site& s) { return kMutatorWeight[s.mutator] / sitesOf[s.mutator]; };
  for (int attempt = 0; attempt < 16 && !sites.empty(); ++attempt) {
    double total = 0;
    for (const auto& s : sites)
      total += weight(s);
    double pick = static_cast<double>(rng() >> 11) * 0x1.0p-53 * total;
    const Site* site = &sites.back();
    for (const auto& s : sites) {
      if (pick < weight(s)) {
        site = &s;
        break;
      }
      pick -= weight(s);
    }
    const TraceValue& old = decisions[site->index];
    const std::string_view name = site->inst->kind->name;
    std::optional<TraceValue> changed;
    if (name == "sample_perfect_tile") {
      const auto* bound = site->inst->attrs.size() > 1 ? site->inst->attrs[1].get<std::int64_t>() : nullptr;
      changed = mutateTile(old, bound ? *bound : options.maxInnermostFactor, rng);
    } else if (name == "poly_optimize") {
      changed = mutatePolyDecision(old, rng);
    } else if (name == "sample_categorical") {
      const auto* candidates = site->inst->attrs.empty() ? nullptr : site->inst->attrs[0].get<TraceList>();
      const auto* index = old.get<std::int64_t>();
      if (candidates && index && candidates->size() > 1) {
        std::int64_t next = uniform(rng, static_cast<std::int64_t>(candidates->size()) - 1);
        if (next >= *index) ++next;
        changed = TraceValue(next);
      }
    } else if (name == "sample_compute_location") {
      // The candidates are not recorded: a location near the old one (the instruction
      // falls back to the nearest smaller candidate).
      const auto* index = old.get<std::int64_t>();
      if (index) {
        const std::int64_t next = std::max<std::int64_t>(-2, *index + uniform(rng, 5) - 2);
        if (next != *index) changed = TraceValue(next);
      }
    }
    if (!changed) continue;
    decisions[site->index] = std::move(*changed);
    return decisions;
  }
  return std::nullopt;
}

} // namespace loopscape::tune
