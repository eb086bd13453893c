// The cost model's quality on held-out records: K-fold cross-validation over the measured
// candidates of one workload, as the benchmark reports it (`tune --evaluate-model K`).
//
// The in-search figure (TuneResult::modelCorrelation) scores the candidates the model
// itself picked to measure: they are the ones it already ranks high, so their scores span
// little and that correlation says little about the rest of the space. Here every record
// counts: the records of the workload (same target and threads) are replayed and lowered
// again, shuffled with the seed and split into K folds; for each fold a fresh model
// learns the other folds (one update with all of them) and scores the fold. Per fold:
//   correlation  Spearman's rank correlation of the scores with the measured GFLOP/s,
//                over the fold's successful records;
//   top pick     the measured GFLOP/s of the fold's record the model scores highest, as a
//                share of the fold's best: what a search measuring the model's first
//                choice would get (1 = it picked the best).
// Failed records (GFLOP/s 0) are learnt from, as in the search, and left out of both
// figures. A fold with fewer than two successful records is not scored.
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/ir/diagnostic.h"
#include "core/tune/records.h"
#include "core/tune/search.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::tune {

struct FoldScore {
  int programs = 0;       ///< successful records scored
  double correlation = 0; ///< Spearman's rho of scores and GFLOP/s
  double topPick = 0;     ///< GFLOP/s of the model's first choice / the fold's best
};

struct ModelEvaluation {
  std::string model;            ///< the model's name
  int programs = 0;             ///< records replayed and lowered (failed ones included)
  std::vector<FoldScore> folds; ///< the folds scored, in order
  double meanCorrelation() const;
  double meanTopPick() const;
};

/// Cross-validates fresh models made by `makeModel` (one per fold) on `programs` and
/// their measured `gflops` (same length), in `folds` folds (2..programs) after a shuffle
/// with `seed`. "tune.model-eval" when there are fewer programs than folds or fewer than
/// two folds.
Expected<ModelEvaluation> crossValidate(std::span<const codegen::LoweredFunc* const> programs,
                                        std::span<const double> gflops, int folds, std::uint64_t seed,
                                        const std::function<std::unique_ptr<CostModel>()>& makeModel);

/// The lowered programs of `task`'s records (its workload, target and threads) with their
/// GFLOP/s (0 for a failed record), each record's trace replayed on the task's program
/// and lowered by the task, on `threads` threads; `onProgress(done, total)` after each.
/// Records that no longer replay or lower are counted in `skipped`. A stop request ends
/// the replay early with what was made.
struct LoweredRecords {
  std::vector<codegen::LoweredFunc> programs;
  std::vector<double> gflops;
  int skipped = 0;
};
LoweredRecords lowerRecords(const TuneTask& task, const std::vector<Record>& records, int threads,
                            const std::function<void(int, int)>& onProgress = {}, std::stop_token stop = {});

} // namespace loopscape::tune
