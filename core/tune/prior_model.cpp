#include "core/tune/prior_model.h"

#include "core/poly/tile_model.h"
#include "core/tune/features_detail.h"
#include "core/tune/model_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace loopscape::tune {

using namespace detail;

namespace {

/// Whether `store` reads the element it writes (an accumulator's update).
bool readsItsElement(const Store& store) {
  const Access& write = store.accesses.front();
  return std::any_of(store.accesses.begin() + 1, store.accesses.end(), [&](const Access& a) {
    return a.buffer == write.buffer && a.index.coef == write.index.coef && a.index.constant == write.index.constant;
  });
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

} // namespace

PriorOptions PriorOptions::host(int threads) {
  const poly::MachineModel machine = poly::MachineModel::host();
  PriorOptions o;
  o.threads = std::max(1, threads);
  o.vectorBytes = machine.vectorBytes;
  o.vectorRegisters = machine.vectorRegisters;
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
    if (!(iterations > 0)) continue; // under an empty loop (a partial tile's, evaluated)
    double rate = 1;                 // share of the issue rate
    if (const int r = accumulatorLoop(store); r >= 0 && nodes > 0) {
      double chains = vectors;
      for (std::size_t k = static_cast<std::size_t>(r) + 1; k < store.extents.size(); ++k)
        chains *= store.extents[k];
      const auto& inR = program.loops[static_cast<std::size_t>(store.loops[static_cast<std::size_t>(r)])].stores;
      chains *= static_cast<double>(std::count_if(inR.begin(), inR.end(), [&](int s) {
        const Store& other = program.stores[static_cast<std::size_t>(s)];
        return other.buffer == store.buffer && readsItsElement(other);
      }));
      const double registers = m_options.vectorRegisters - m_options.reservedRegisters;
      chains = std::max(1.0, chains);
      rate = chains > registers ? m_options.spillRate : std::min(1.0, chains / (m_options.latency * m_options.pipes));
    }
    double speedup = 1;
    for (std::size_t k = 0; k < store.loops.size(); ++k) {
      if (!program.loops[static_cast<std::size_t>(store.loops[k])].parallel || store.extents[k] < 2) continue;
      const double e = store.extents[k];
      speedup = e / std::ceil(e / m_options.threads);
      break;
    }
    total += iterations * instructions / m_options.pipes / rate / speedup;
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
