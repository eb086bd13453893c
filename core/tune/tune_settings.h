// TuneSettings: the auto-scheduler's options as a user gives them (the flags of
// `loopscape-cli tune`, the controls of the GUI's Tune dock), and the one place that turns
// them into what the search runs with: the search's TuneOptions, the cost model, the
// measurer's options and the task. The command line and the GUI both go through here, so
// the same settings give the same search (and, with the same seed, the same candidates
// before the first measurement).
#pragma once

#include "core/tune/cost_model.h"
#include "core/tune/measure.h"
#include "core/tune/search.h"

#include <cstdint>
#include <memory>
#include <string>

namespace loopscape::tune {

struct TuneSettings {
  std::string target = "cpu-llvm"; ///< the target plugin that builds and runs the candidates
  std::string strategy = "mixed";  ///< parseStrategy's names
  std::string model = "xgb";       ///< makeCostModel's names: xgb, random, prior
  int trials = 64;                 ///< candidates to measure
  int batch = 16;                  ///< candidates measured per round
  int population = 64;             ///< candidates evolved per round
  int threads = 0;                 ///< threads of parallel loops (0: all cores)
  std::uint64_t seed = 1;          ///< the search's and the cost model's
  double timeBudget = 0;           ///< seconds the search may take (0: no limit)
  double timeout = 10;             ///< seconds one kernel call may take in the worker
  bool fastMath = false;           ///< candidates compiled with fast-math
  bool warmStart = true;           ///< rank by the prior until the model learns (TuneOptions)
};

/// The search's options: the strategy parsed ("tune.bad-strategy"), the space's cores
/// the threads (at most the host's cores; all of them for 0), its vector lanes the host's
/// (32-bit lanes).
Expected<TuneOptions> makeTuneOptions(const TuneSettings& settings);

/// The cost model named by the settings, seeded with their seed, for their threads
/// ("tune.bad-model").
Expected<std::unique_ptr<CostModel>> makeCostModel(const TuneSettings& settings);

/// The measurer's options: target, threads, fast-math, the time limit of one call.
LocalMeasureOptions makeMeasureOptions(const TuneSettings& settings);

/// The task of `func` with `sizes` on the settings' target, lowered by `measurer`'s
/// pipeline for its target (the measurer must outlive the task).
TuneTask makeTuneTask(ir::PrimFunc func, ir::SizeBindings sizes, const TuneSettings& settings,
                      const LocalMeasurer& measurer);

} // namespace loopscape::tune
