// RandomModel ("random"): the cost model that knows nothing. Scores are uniform in [0, 1)
// from a 64-bit Mersenne Twister seeded at construction (or by load), taken from the
// engine's raw outputs so that a seed gives the same scores on every platform; update
// learns nothing. It is the baseline the XGBoost model is compared with, and what a
// search that has no data yet may use.
#pragma once

#include "core/tune/cost_model.h"

#include <cstdint>
#include <random>

namespace loopscape::tune {

class RandomModel final : public CostModel {
public:
  explicit RandomModel(std::uint64_t seed = 0);

  std::string_view name() const override { return "random"; }
  bool informed() const override { return false; }
  /// One draw per candidate, in order: the k-th score since seeding depends only on the
  /// seed and k.
  std::vector<double> predict(std::span<const codegen::LoweredFunc* const> candidates) override;
  /// Does nothing.
  void update(std::span<const codegen::LoweredFunc* const> candidates, std::span<const double> gflops) override;
  /// Writes `{"model": "random", "seed": N}`; "tune.model-io" when the file cannot be written.
  Expected<void> save(const std::filesystem::path& path) const override;
  /// Reads that file and reseeds (the draws start again from the seed's first);
  /// "tune.model-io" (unreadable), "tune.model-format" (not such an object).
  Expected<void> load(const std::filesystem::path& path) override;

  std::uint64_t seed() const { return m_seed; }

private:
  std::uint64_t m_seed;
  std::mt19937_64 m_engine;
};

} // namespace loopscape::tune
