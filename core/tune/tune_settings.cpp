// The settings of a search turned into its options (tune_settings.h).
#include "core/tune/tune_settings.h"

#include "core/codegen/pipeline.h"
#include "core/poly/tile_model.h"

#include <algorithm>
#include <thread>

namespace loopscape::tune {

Expected<TuneOptions> makeTuneOptions(const TuneSettings& settings) {
  auto strategy = parseStrategy(settings.strategy);
  if (!strategy) return std::unexpected(strategy.error());
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  TuneOptions options;
  options.trials = settings.trials;
  options.batchSize = settings.batch;
  options.population = settings.population;
  options.strategy = *strategy;
  options.seed = settings.seed;
  options.timeBudgetSeconds = settings.timeBudget;
  options.warmStart = settings.warmStart;
  options.space.cores = settings.threads > 0 ? std::min(settings.threads, cores) : cores;
  options.space.vectorLanes = std::max(1, poly::MachineModel::host().vectorBytes / 4);
  return options;
}

Expected<std::unique_ptr<CostModel>> makeCostModel(const TuneSettings& settings) {
  return makeCostModel(settings.model, settings.seed, settings.threads);
}

LocalMeasureOptions makeMeasureOptions(const TuneSettings& settings) {
  LocalMeasureOptions options;
  options.target = settings.target;
  options.build.threads = settings.threads;
  options.build.fastMath = settings.fastMath;
  options.timeoutSeconds = settings.timeout;
  return options;
}

TuneTask makeTuneTask(ir::PrimFunc func, ir::SizeBindings sizes, const TuneSettings& settings,
                      const LocalMeasurer& measurer) {
  TuneTask task;
  task.func = std::move(func);
  task.sizes = std::move(sizes);
  task.target = settings.target;
  task.threads = settings.threads;
  task.fastMath = settings.fastMath;
  const codegen::Target* target = &measurer.target();
  const codegen::Pipeline* pipeline = &measurer.pipeline();
  task.lower = [target, pipeline](const ir::PrimFunc& f) { return pipeline->lower(*target, f); };
  return task;
}

} // namespace loopscape::tune
