// Sampling instructions: sample_perfect_tile, sample_categorical, sample_compute_location
// (TVM's tir.Schedule, src/tir/schedule/primitive/sampling.cc). Each draws from the
// schedule's seeded engine (sch.rng()) unless the instruction carries a decision, in which
// case the decision is validated and reused; the decision made is recorded in the trace.
// Draws use only the raw 64-bit outputs of the engine, so a seed gives the same decisions
// on every platform.
//
// sample_perfect_tile(loop, n, max_innermost_factor=16, decision=None)
//   -> n ExprRVs whose product is the loop's extent, the innermost <= max_innermost_factor
//   (-1: no bound). Sampling distributes each prime factor of the extent to a uniformly
//   chosen tile and retries until the innermost bound holds (TVM's algorithm).
//   Preconditions:
//   1. n >= 2 and max_innermost_factor is -1 or >= 1          (bad-arguments)
//      n <= the nesting limit (ResourceLimits::maxNestingDepth) (too-large)
//   2. the loop's extent is a constant                        (symbolic-extent)
//      (TVM returns [-1, 1, ...] here; Loopscape refuses so that split never gets -1)
//   3. a given decision is a list of n positive ints whose product is the extent and
//      whose last element is <= max_innermost_factor         (bad-decision)
//      (the product is computed without wrapping)
//      (TVM silently repairs such a decision; Loopscape reports it)
//
// sample_categorical(candidates, probs, decision=None)
//   -> one ExprRV, candidates[i] with probability probs[i] / sum(probs); decision = i.
//   1. candidates non-empty, as many probs as candidates        (bad-arguments)
//   2. every prob >= 0 and their sum > 0                       (bad-probability)
//   3. a given decision is an index into candidates            (bad-decision)
//
// sample_compute_location(block, decision=None)
//   -> a LoopRV: a loop, or the root mark (decision -1), or the inline mark (-2).
//   Candidates, as TVM's CollectComputeLocation:
//   * -2 if compute_inline of the block would succeed (tried on a copy of the schedule);
//   * -1 (stay at root) always;
//   * with consumers (blocks of the same scope reading a buffer the block writes), the
//     loops of the first consumer from the outermost down to the lowest common ancestor
//     of all consumers (the consumer's own parent when there is one consumer), numbered
//     by their position i among that consumer's loops, skipping loops of extent 1,
//     stopping at a data-parallel loop after a reduction loop and at a reduction loop past
//     the last data-parallel one, and keeping only loops where compute_at of the block
//     succeeds (tried on a copy; every such loop when compute_at is not registered).
//   Sampling is uniform over the candidates; decision = the chosen number.
//   1. a given decision is an int >= -2                         (bad-decision)
//   A decision that is no longer a candidate falls back, as in TVM, to the nearest
//   smaller candidate (or the root mark).
#include "core/schedule/primitive/families.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/checked_arith.h"
#include "core/ir/printer.h"
#include "core/ir/resource_limits.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::schedule {

using namespace detail;

namespace {

/// Uniform integer in [0, n).
std::int64_t uniformIndex(std::mt19937_64& rng, std::int64_t n) {
  return static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n));
}

/// Uniform double in [0, 1).
double uniformUnit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::optional<std::int64_t> intAttr(const TraceValue& v) {
  if (const auto* i = v.get<std::int64_t>()) return *i;
  return std::nullopt;
}

std::optional<double> numberOf(const TraceValue& v) {
  if (const auto* i = v.get<std::int64_t>()) return static_cast<double>(*i);
  if (const auto* d = v.get<double>()) return *d;
  return std::nullopt;
}

// ---------------------------------------------------------------------------- perfect tile
std::vector<std::int64_t> primeFactors(std::int64_t x) {
  std::vector<std::int64_t> out;
  for (std::int64_t p = 2; p <= x / p; ++p)
    while (x % p == 0) {
      out.push_back(p);
      x /= p;
    }
  if (x > 1) out.push_back(x);
  return out;
}

Expected<std::vector<RV>> applySamplePerfectTile(Schedule& sch, const std::vector<TraceValue>& inputs,
                                                 const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "sample_perfect_tile";
  auto loop = sch.loop(inputs.at(0), prim);
  if (!loop) return Unexpected(loop.error());
  const std::string& name = loopName(**loop);
  const auto n = intAttr(attrs.at(0));
  const auto maxInner = intAttr(attrs.at(1));
  // 1. arguments.
  if (!n || *n < 2 || !maxInner || (*maxInner != -1 && *maxInner < 1))
    return Unexpected(scheduleError(prim, "bad-arguments",
                                    "sample_perfect_tile needs n >= 2 and max_innermost_factor -1 or >= 1",
                                    {loopRef(name)}));
  // n loops will be nested: at most the nesting depth any parser accepts.
  if (*n > ir::resourceLimits().maxNestingDepth)
    return Unexpected(scheduleError(prim, "too-large",
                                    fmt::format("sample_perfect_tile of loop '{}' asks for n = {} tiles; at most {} "
                                                "loops may be nested, so use a smaller n",
                                                name, *n, ir::resourceLimits().maxNestingDepth),
                                    {loopRef(name)}));
  // 2. constant extent.
  const auto extent = ir::asConstInt((*loop)->loop()->extent);
  if (!extent || *extent < 1)
    return Unexpected(scheduleError(prim, "symbolic-extent",
                                    fmt::format("the extent of loop '{}' is {}, not a constant; "
                                                "sample_perfect_tile needs a constant extent",
                                                name, ir::printExpr((*loop)->loop()->extent)),
                                    {loopRef(name)}));
  std::vector<std::int64_t> tiles;
  if (const auto& d = sch.pendingDecision(); d && !d->isNone()) {
    // 3. validate the recorded decision.
    const auto* list = d->get<TraceList>();
    bool ok = list && static_cast<std::int64_t>(list->size()) == *n;
    std::int64_t product = 1;
    if (ok)
      for (const auto& v : *list) {
        auto x = intAttr(v);
        ok &= x && *x >= 1;
        if (!ok) break;
        const auto next = ir::checkedMul(product, *x);
        ok &= next.has_value(); // a product that wraps is not the extent
        if (!ok) break;
        product = *next;
        tiles.push_back(*x);
      }
    if (!ok || product != *extent || (*maxInner != -1 && tiles.back() > *maxInner))
      return Unexpected(scheduleError(
          prim, "bad-decision",
          fmt::format("the decision is not a perfect tiling of loop '{}': it needs {} positive factors whose product "
                      "is the extent {}{}",
                      name, *n, *extent,
                      *maxInner == -1 ? std::string() : fmt::format(", the last at most {}", *maxInner)),
          {loopRef(name)}));
  } else {
    const auto primes = primeFactors(*extent);
    do {
      tiles.assign(static_cast<std::size_t>(*n), 1);
      for (const auto p : primes) tiles[static_cast<std::size_t>(uniformIndex(sch.rng(), *n))] *= p;
    } while (*maxInner != -1 && tiles.back() > *maxInner);
  }
  TraceList decision;
  std::vector<RV> out;
  for (const auto t : tiles) {
    decision.emplace_back(t);
    out.push_back(sch.defineExpr(t));
  }
  sch.setDecision(std::move(decision));
  return out;
}

// ---------------------------------------------------------------------------- categorical
Expected<std::vector<RV>> applySampleCategorical(Schedule& sch, const std::vector<TraceValue>&,
                                                 const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "sample_categorical";
  const auto* candidates = attrs.at(0).get<TraceList>();
  const auto* probs = attrs.at(1).get<TraceList>();
  // 1. shapes.
  if (!candidates || !probs || candidates->empty() || candidates->size() != probs->size())
    return Unexpected(scheduleError(prim, "bad-arguments",
                                    fmt::format("sample_categorical needs a non-empty list of candidates and as many "
                                                "probabilities; got {} candidates and {} probabilities",
                                                candidates ? candidates->size() : 0, probs ? probs->size() : 0)));
  std::vector<std::int64_t> values;
  for (const auto& c : *candidates) {
    auto x = intAttr(c);
    if (!x) return Unexpected(scheduleError(prim, "bad-arguments", "sample_categorical candidates must be integers"));
    values.push_back(*x);
  }
  // 2. probabilities.
  std::vector<double> weights;
  double sum = 0;
  for (const auto& p : *probs) {
    auto x = numberOf(p);
    if (!x || !(*x >= 0))
      return Unexpected(scheduleError(prim, "bad-probability",
                                      "sample_categorical probabilities must be non-negative numbers"));
    weights.push_back(*x);
    sum += *x;
  }
  if (!(sum > 0))
    return Unexpected(scheduleError(prim, "bad-probability", "sample_categorical probabilities sum to 0"));
  std::int64_t index = 0;
  if (const auto& d = sch.pendingDecision(); d && !d->isNone()) {
    // 3. validate the recorded decision.
    auto x = intAttr(*d);
    if (!x || *x < 0 || *x >= static_cast<std::int64_t>(values.size()))
      return Unexpected(scheduleError(prim, "bad-decision",
                                      fmt::format("the decision must be an index in [0, {})", values.size())));
    index = *x;
  } else {
    double u = uniformUnit(sch.rng()) * sum;
    index = static_cast<std::int64_t>(weights.size()) - 1;
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (u < weights[i]) {
        index = static_cast<std::int64_t>(i);
        break;
      }
      u -= weights[i];
    }
    while (weights[static_cast<std::size_t>(index)] == 0) --index; // rounding at the top end
  }
  sch.setDecision(index);
  return std::vector<RV>{sch.defineExpr(values[static_cast<std::size_t>(index)])};
}

// ---------------------------------------------------------------------------- compute location
bool readsAny(const ir::Block& reader, const ir::Block& writer) {
  for (const auto& r : reader.reads)
    for (const auto& w : writer.writes)
      if (r.buffer.get() == w.buffer.get()) return true;
  return false;
}

/// Whether the loop only feeds spatial iterators (TVM's GetLoopIterType == kDataPar).
bool isDataParallel(const TreeNode& loop) {
  const std::vector<const ir::ExprNode*> self{loop.loop()->loopVar.get()};
  for (const auto* realize : realizesBelow(loop.loop()->body)) {
    const auto& block = realize->blockNode();
    for (std::size_t i = 0; i < realize->iterValues.size(); ++i)
      if (block.iterVars[i].kind != ir::IterKind::Spatial && usesAnyVar(realize->iterValues[i], self)) return false;
  }
  return true;
}

/// Whether `kind` applied to the block (and the loop) succeeds on a copy of the schedule.
bool trial(const Schedule& sch, std::string_view kind, const std::string& block, const TreeNode* loop) {
  if (!findInstructionKind(kind)) return loop != nullptr; // unknown compute_at: keep loops, no inline
  Schedule copy = sch;
  copy.setVerifier(nullptr, LegalityPolicy::Unverified);
  std::vector<TraceValue> in;
  in.reserve(2);
  in.emplace_back(copy.defineBlock(block));
  if (loop) in.emplace_back(copy.defineLoop(loop->loop()->loopVar));
  // TVM's CanComputeAt checks with preserve_unit_loops=True.
  std::vector<TraceValue> attrs;
  if (loop) attrs.emplace_back(true);
  return copy.apply(kind, std::move(in), std::move(attrs)).has_value();
}

Expected<std::vector<RV>> applySampleComputeLocation(Schedule& sch, const std::vector<TraceValue>& inputs,
                                                     const std::vector<TraceValue>&) {
  constexpr std::string_view prim = "sample_compute_location";
  auto blockNode = sch.block(inputs.at(0), prim);
  if (!blockNode) return Unexpected(blockNode.error());
  const std::string name = (*blockNode)->block()->name;
  std::optional<std::int64_t> old;
  if (const auto& d = sch.pendingDecision(); d && !d->isNone()) {
    old = intAttr(*d);
    if (!old || *old < -2)
      return Unexpected(scheduleError(prim, "bad-decision",
                                      "the decision must be -2 (inline), -1 (root) or a loop position >= 0",
                                      {blockRef(name)}));
  }

  std::vector<std::int64_t> indices;
  std::vector<const TreeNode*> locations;
  if (trial(sch, "compute_inline", name, nullptr)) {
    indices.push_back(-2);
    locations.push_back(nullptr);
  }
  indices.push_back(-1);
  locations.push_back(nullptr);

  const TreeNode* scope = sch.tree().scopeBlock(**blockNode);
  std::vector<const TreeNode*> consumers;
  for (const auto* other : sch.tree().childBlocks(*scope))
    if (other != *blockNode && readsAny(*other->block(), *(*blockNode)->block())) consumers.push_back(other);
  if (!consumers.empty()) {
    const TreeNode* boundary = consumers.front()->parent;
    for (const auto* c : consumers) {
      // lowest common ancestor of `boundary` and `c`
      auto isAncestor = [](const TreeNode* a, const TreeNode* n) {
        for (; n; n = n->parent)
          if (n == a) return true;
        return false;
      };
      while (boundary && !isAncestor(boundary, c)) boundary = boundary->parent;
    }
    if (boundary && !boundary->isBlock()) {
      const auto loops = sch.tree().loopsAbove(*consumers.front());
      const auto pos = std::find(loops.begin(), loops.end(), boundary) - loops.begin();
      int lastDataPar = -1;
      std::vector<bool> dataPar;
      for (int i = 0; i <= pos; ++i) {
        dataPar.push_back(isDataParallel(*loops[i]));
        if (dataPar.back()) lastDataPar = i;
      }
      bool visitedReduce = false;
      for (int i = 0; i <= pos; ++i) {
        if (ir::isConstInt(loops[i]->loop()->extent, 1)) continue;
        if (dataPar[i]) {
          if (visitedReduce) break;
        } else {
          visitedReduce = true;
          if (i > lastDataPar) break;
        }
        if (trial(sch, "compute_at", name, loops[i])) {
          indices.push_back(i);
          locations.push_back(loops[i]);
        }
      }
    }
  }

  std::size_t chosen = 0;
  if (old) {
    // TVM: the recorded location if still a candidate, else the nearest smaller one.
    auto it = std::lower_bound(indices.begin(), indices.end(), *old);
    if (it != indices.end() && *it == *old)
      chosen = static_cast<std::size_t>(it - indices.begin());
    else if (it != indices.begin())
      chosen = static_cast<std::size_t>(it - indices.begin()) - 1;
    else
      chosen = static_cast<std::size_t>(std::find(indices.begin(), indices.end(), -1) - indices.begin());
  } else {
    chosen = static_cast<std::size_t>(uniformIndex(sch.rng(), static_cast<std::int64_t>(indices.size())));
  }
  sch.setDecision(indices[chosen]);
  if (indices[chosen] == -2) return std::vector<RV>{sch.defineLoopMark(LoopMark::Inline)};
  if (indices[chosen] == -1) return std::vector<RV>{sch.defineLoopMark(LoopMark::Root)};
  return std::vector<RV>{sch.defineLoop(locations[chosen]->loop()->loopVar)};
}

} // namespace

std::span<const InstructionKind> samplingKinds() {
  static const InstructionKind kinds[] = {
      {.name = "sample_perfect_tile",
       .jsonName = "SamplePerfectTile",
       .inputNames = {"loop"},
       .attrs = {{"n", TraceValue(), ParamKind::Int}, {"max_innermost_factor", 16}},
       .outputs = {RVKind::Expr},
       .outputsVariadic = true,
       .isSampling = true,
       .apply = applySamplePerfectTile,
       .inputSpecs = {{}},
       .description = "sample the factors of a perfect tiling of the loop",
       .isStep = false},
      {.name = "sample_categorical",
       .jsonName = "SampleCategorical",
       .inputNames = {},
       .attrs = {{"candidates", TraceValue(), ParamKind::IntList}, {"probs", TraceValue()}},
       .outputs = {RVKind::Expr},
       .isSampling = true,
       .apply = applySampleCategorical,
       .description = "sample one of the candidates with the given probabilities",
       .isStep = false},
      {.name = "sample_compute_location",
       .jsonName = "SampleComputeLocation",
       .inputNames = {"block"},
       .outputs = {RVKind::Loop},
       .isSampling = true,
       .apply = applySampleComputeLocation,
       .inputSpecs = {{}},
       .description = "sample a loop to compute the block at",
       .isStep = false},
  };
  return kinds;
}

} // namespace loopscape::schedule
