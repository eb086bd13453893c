// Cross-validation of a cost model on measured records (model_eval.h).
#include "core/tune/model_eval.h"

#include "core/schedule/schedule.h"
#include "core/tune/worker_pool.h"
#include "core/tune/xgb_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>

namespace loopscape::tune {

namespace {

double foldMean(const std::vector<FoldScore>& folds, double FoldScore::*field) {
  if (folds.empty()) return 0;
  double sum = 0;
  for (const auto& f : folds)
    sum += f.*field;
  return sum / static_cast<double>(folds.size());
}

/// Scores one fold: `scores` and `gflops` of its programs.
std::optional<FoldScore> scoreFold(const std::vector<double>& scores, const std::vector<double>& gflops) {
  std::vector<double> s, g;
  for (std::size_t i = 0; i < scores.size(); ++i)
    if (gflops[i] > 0) {
      s.push_back(scores[i]);
      g.push_back(gflops[i]);
    }
  if (s.size() < 2) return std::nullopt;
  FoldScore fold;
  fold.programs = static_cast<int>(s.size());
  fold.correlation = rankCorrelation(s, g);
  const std::size_t pick = static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin());
  fold.topPick = g[pick] / *std::max_element(g.begin(), g.end());
  return fold;
}

} // namespace

double ModelEvaluation::meanCorrelation() const { return foldMean(folds, &FoldScore::correlation); }
double ModelEvaluation::meanTopPick() const { return foldMean(folds, &FoldScore::topPick); }

Expected<ModelEvaluation> crossValidate(std::span<const codegen::LoweredFunc* const> programs,
                                        std::span<const double> gflops, int folds, std::uint64_t seed,
                                        const std::function<std::unique_ptr<CostModel>()>& makeModel) {
  LS_ASSERT(programs.size() == gflops.size(), "crossValidate: {} programs, {} measurements", programs.size(),
            gflops.size());
  const auto n = static_cast<int>(programs.size());
  if (folds < 2 || n < folds)
    return Unexpected(Diagnostic::error(
        "tune.model-eval",
        fmt::format("cannot cross-validate {} measured program{} in {} folds (at least 2 folds, and a program per "
                    "fold)",
                    n, n == 1 ? "" : "s", folds)));
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);

  ModelEvaluation result;
  result.programs = n;
  for (int k = 0; k < folds; ++k) {
    std::vector<const codegen::LoweredFunc*> train, test;
    std::vector<double> trainGflops, testGflops;
    for (int i = 0; i < n; ++i) {
      const auto p = static_cast<std::size_t>(order[static_cast<std::size_t>(i)]);
      if (i % folds == k) {
        test.push_back(programs[p]);
        testGflops.push_back(gflops[p]);
      } else {
        train.push_back(programs[p]);
        trainGflops.push_back(gflops[p]);
      }
    }
    std::unique_ptr<CostModel> model = makeModel();
    if (result.model.empty()) result.model = std::string(model->name());
    model->update(train, trainGflops);
    if (auto fold = scoreFold(model->predict(test), testGflops)) result.folds.push_back(*fold);
  }
  return result;
}

LoweredRecords lowerRecords(const TuneTask& task, const std::vector<Record>& records, int threads,
                            const std::function<void(int, int)>& onProgress, std::stop_token stop) {
  const std::string workload = workloadKey(task.func, task.sizes);
  std::vector<const Record*> mine;
  for (const auto& r : records)
    if (r.isFor(workload, task.target, task.threads)) mine.push_back(&r);

  std::vector<std::optional<codegen::LoweredFunc>> made(mine.size());
  std::atomic<int> done{0};
  std::mutex progressMutex;
  WorkerPool pool(std::max(1, threads));
  pool.run(mine.size(), [&](std::size_t i) {
    if (stop.stop_requested()) return;
    if (auto sch = schedule::replayTrace(task.func, mine[i]->trace))
      if (auto lowered = task.lower(sch->func())) made[i] = std::move(*lowered);
    const int now = ++done;
    if (onProgress) {
      std::lock_guard lock(progressMutex);
      onProgress(now, static_cast<int>(mine.size()));
    }
  });

  LoweredRecords out;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    if (!made[i]) {
      if (!stop.stop_requested()) ++out.skipped;
      continue;
    }
    out.programs.push_back(std::move(*made[i]));
    out.gflops.push_back(mine[i]->throughput());
  }
  return out;
}

} // namespace loopscape::tune
