#include "core/tune/prior_model.h"

#include "core/poly/tile_model.h"
#include "core/tune/features_detail.h"
#include "core/tune/model_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace loopscape::tune {

using namespace detail;

namespace {

bool sameIndex(const Affine& a, const Affine& b) { return a.coef == b.coef && a.constant == b.constant; }

/// Whether `store` reads the element it writes (an accumulator's update).
bool readsItsElement(const Store& store) {
  const Access& write = store.accesses.front();
  return std::any_of(store.accesses.begin() + 1, store.accesses.end(),
                     [&](const Access& a) { return a.buffer == write.buffer && sameIndex(a.index, write.index); });
}

/// The innermost loop of an accumulator's update with extent > 1 that does not move its
/// element (its position in the store's loops); -1 when there is none, or for another store.
int accumulatorLoop(const Store& store) {
  if (!readsItsElement(store)) return -1;
  const Access& write = store.accesses.front();
  for (std::size_t k = store.loops.size(); k-- > 0;)
    if (store.extents[k] > 1 && !write.index.coef.contains(store.loops[k])) return static_cast<int>(k);
  return -1;
}

/// The share of the issue rate an accumulator's update runs at, `r` its accumulatorLoop
/// (prior_model.h: chains, their overlap, spills).
double accumulatorRate(const Program& program, const Store& store, int r, double vectors, double nodes,
                       const PriorOptions& options) {
  const Affine& write = store.accesses.front().index;
  double chains = vectors;
  for (std::size_t k = static_cast<std::size_t>(r) + 1; k < store.extents.size(); ++k)
    chains *= store.extents[k];
  const auto& inR = program.loops[static_cast<std::size_t>(store.loops[static_cast<std::size_t>(r)])].stores;
  // Unrolled copies that update the same element (a reduction loop unrolled inside R)
  // extend one chain; copies on other elements are chains of their own.
  std::vector<const Affine*> elements;
  for (int s : inR) {
    const Store& other = program.stores[static_cast<std::size_t>(s)];
    if (other.buffer != store.buffer || !readsItsElement(other)) continue;
    const Affine& index = other.accesses.front().index;
    if (std::none_of(elements.begin(), elements.end(), [&](const Affine* e) { return sameIndex(*e, index); }))
      elements.push_back(&index);
  }
  chains *= static_cast<double>(elements.size());
  // A short chain (its run of dependent updates: R and the loops around it that do not
  // move the element, times the copies on the element) overlaps the next ones, on other
  // elements, as far as the out-of-order window reaches.
  double length = static_cast<double>(std::count_if(inR.begin(), inR.end(), [&](int s) {
    const Store& other = program.stores[static_cast<std::size_t>(s)];
    return other.buffer == store.buffer && sameIndex(other.accesses.front().index, write);
  }));
  auto interleaves = [&](int loop) { // other elements' updates in the loop's body
    const auto& body = program.loops[static_cast<std::size_t>(loop)].stores;
    return std::any_of(body.begin(), body.end(), [&](int s) {
      const Store& other = program.stores[static_cast<std::size_t>(s)];
      return other.buffer == store.buffer && readsItsElement(other) && !sameIndex(other.accesses.front().index, write);
    });
  };
  for (int k = r; k >= 0; --k) {
    const int loop = store.loops[static_cast<std::size_t>(k)];
    if (write.coef.contains(loop) || (k < r && interleaves(loop))) break;
    length *= store.extents[static_cast<std::size_t>(k)];
  }
  chains = std::max(1.0, chains);
  const double live = chains; // accumulators in registers at once
  chains *= std::max(1.0, std::floor(options.window / (std::max(1.0, length) * std::max(1.0, nodes))));
  const double registers = options.vectorRegisters - options.reservedRegisters;
  // A loop left inside R (not unrolled, not the lanes) cycles through the accumulators.
  const bool looped = std::any_of(store.extents.begin() + r + 1, store.extents.end(), [](double e) { return e > 1; });
  return looped || live > registers ? options.spillRate : std::min(1.0, chains / (options.latency * options.pipes));
}

/// The cycles the store's cache fills take at the slowest level (prior_model.h).
double fillCycles(const Program& program, const Store& store, const PriorOptions& options) {
  const std::size_t depth = store.loops.size();
  std::vector<double> bytes(depth + 1, -1); // storeBytesFrom by level, computed on demand
  auto footprint = [&](std::size_t level) {
    if (bytes[level] < 0) bytes[level] = storeBytesFrom(program, store, static_cast<int>(level));
    return bytes[level];
  };
  double cycles = 0;
  const std::pair<double, double> levels[] = {
      {options.l1Bytes, options.l2Bandwidth},
      {options.l2Bytes, options.l3Bandwidth},
      {options.l3Bytes, options.memBandwidth},
  };
  for (const auto& [capacity, bandwidth] : levels) {
    // A nest that fits stays in the cache from one call to the next.
    if (footprint(0) <= capacity) continue;
    std::size_t level = 0;
    double outer = store.runs;
    while (level < depth && footprint(level) > capacity)
      outer *= store.extents[level++];
    cycles = std::max(cycles, outer * footprint(level) / bandwidth);
  }
  // Unrolled copies share what they read (a register tile's rows share its columns).
  return cycles / store.unroll;
}

} // namespace

PriorOptions PriorOptions::host(int threads) {
  const poly::MachineModel machine = poly::MachineModel::host();
  PriorOptions o;
  o.threads = std::max(1, threads);
  o.vectorBytes = machine.vectorBytes;
  o.vectorRegisters = machine.vectorRegisters;
  o.l1Bytes = static_cast<double>(machine.l1Bytes);
  o.l2Bytes = static_cast<double>(machine.l2Bytes);
  o.l3Bytes = static_cast<double>(machine.l3Bytes);
  return o;
}

double PriorModel::cycles(const codegen::LoweredFunc& func) const {
  if (!func.body.defined()) return 0;
  const Program program = collectProgram(func.body, FeatureOptions{});
  double total = 0;
  for (const Store& store : program.stores) {
    const int elemBytes = std::max(1, store.buffer ? store.buffer->dtype.bytes() : 4);
    const double nativeLanes = std::max(1, m_options.vectorBytes / elemBytes);
    const double vectors = std::ceil(store.lanes / nativeLanes);
    double nodes = 0; // float operation nodes of one innermost iteration (lane-weighted counts / lanes)
    for (int k = feature::kFloatMad; k <= feature::kFloatMathFunc; ++k)
      nodes += store.ops[static_cast<std::size_t>(k)];
    nodes /= store.lanes;
    const double instructions = std::max(1.0, nodes) * vectors;
    double iterations = 1;
    for (double e : store.extents)
      iterations *= e;
    iterations *= store.runs;
    if (!(iterations > 0)) continue; // under an empty loop, or in a version not taken
    double rate = 1;                 // share of the issue rate
    if (const int r = accumulatorLoop(store); r >= 0 && nodes > 0)
      rate = accumulatorRate(program, store, r, vectors, nodes, m_options);
    double speedup = 1;
    for (std::size_t k = 0; k < store.loops.size(); ++k) {
      if (!program.loops[static_cast<std::size_t>(store.loops[k])].parallel || store.extents[k] < 2) continue;
      const double e = store.extents[k];
      speedup = e / std::ceil(e / m_options.threads);
      break;
    }
    const double issue = iterations * instructions / m_options.pipes / rate;
    total += std::max(issue, fillCycles(program, store, m_options)) / speedup;
  }
  if (m_options.threads > 1)
    for (const Loop& loop : program.loops) {
      if (!loop.parallel || loop.stores.empty()) continue;
      const Store& store = program.stores[static_cast<std::size_t>(loop.stores.front())];
      double launches = 1;
      for (std::size_t k = 0; k < static_cast<std::size_t>(loop.depth); ++k) {
        const Loop& outer = program.loops[static_cast<std::size_t>(store.loops[k])];
        launches *= outer.parallel ? 0 : outer.extent; // inside another parallel loop: serial
      }
      total += launches * m_options.parallelLaunch;
    }
  return total;
}

std::vector<double> PriorModel::predict(std::span<const codegen::LoweredFunc* const> candidates) {
  std::vector<double> scores;
  scores.reserve(candidates.size());
  for (const auto* c : candidates)
    scores.push_back(c ? -std::log2(1 + cycles(*c)) : 0.0);
  return scores;
}

Expected<void> PriorModel::save(const std::filesystem::path& path) const {
  return writeNamedModel(path, "prior", nlohmann::json::object());
}

Expected<void> PriorModel::load(const std::filesystem::path& path) {
  auto j = readNamedModel(path, "prior");
  if (!j) return Unexpected(j.error());
  return {};
}

} // namespace loopscape::tune
