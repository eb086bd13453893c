// CostModel: predicts how fast a scheduled candidate will run, from its lowered program,
// and learns from measured candidates (Ansor/MetaSchedule's cost model). The search asks it
// to rank candidates before measuring the most promising ones.
//
// Implementations: the random model (core/tune, for comparison), the prior (prior_model.h:
// an estimate of cycles that needs no measurements, the search's warm start) and the
// XGBoost model over Ansor-style per-store features (xgb_model.h). Scores only rank: higher
// means predicted faster; their scale is the model's own.
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/ir/diagnostic.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace loopscape::tune {

class CostModel {
public:
  virtual ~CostModel() = default;

  /// "random", "prior", "xgb": what records and reports call the model.
  virtual std::string_view name() const = 0;

  /// Whether its scores carry information now (the XGBoost model: once it has learnt or
  /// been loaded); the search ranks by the prior while they do not (search.h).
  virtual bool informed() const = 0;

  /// One score per candidate, in order; higher = predicted faster.
  virtual std::vector<double> predict(std::span<const codegen::LoweredFunc* const> candidates) = 0;

  /// Learns from measured candidates: `gflops[i]` is candidate i's measured throughput
  /// (0 for one that failed to build, run or verify). Called after each measured batch
  /// with that batch only; a model keeps what it needs of earlier batches itself.
  virtual void update(std::span<const codegen::LoweredFunc* const> candidates, std::span<const double> gflops) = 0;

  /// Saves / loads the trained state (beside the tuning records).
  virtual Expected<void> save(const std::filesystem::path& path) const = 0;
  virtual Expected<void> load(const std::filesystem::path& path) = 0;
};

/// The model named `name` ("xgb", "random", "prior"), seeded; the prior estimates for
/// `threads` threads (0: this machine's cores). "tune.bad-model" for another name.
Expected<std::unique_ptr<CostModel>> makeCostModel(std::string_view name, std::uint64_t seed, int threads = 0);

} // namespace loopscape::tune
