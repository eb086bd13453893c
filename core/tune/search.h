// The search: rounds of candidates from the space (space.h), ranked by the cost model
// (cost_model.h), the most promising measured (measure.h) and recorded (records.h).
//
// Strategies:
//   evolutionary  MetaSchedule's EvolutionarySearch on the TIR family: a population of
//                 the best measured candidates (a fifth) and fresh samples, evolved for a
//                 few generations by mutating decisions (space.h's mutate) and keeping the
//                 candidates the model scores best; each round measures the top unmeasured
//                 ones, a small share (eps-greedy) picked at random instead.
//   annealing     AutoTVM's simulated annealing on the TIR family: chains of mutations
//                 from the best measured and random points, a worse score accepted with
//                 probability exp(delta / temperature), the temperature falling to 0.
//   poly          evolutionary on the polyhedral family only (poly_optimize's decisions).
//   mixed         evolutionary on both families: one search, Halide-style and polyhedral
//                 candidates side by side; records say which family each came from.
//                 Fresh samples come from a family chosen first (then a sketch of it):
//                 half each until both have run, then by polyShare of their bests, so
//                 the trials go to the family that is winning (on the ResNet-18 conv
//                 layer poly_optimize tiles poorly, and a mixed search drawing sketches
//                 uniformly reached a third of the TIR family's result).
//   random        fresh samples only, no model (the baseline the others must beat).
//
// Until the cost model first learns (and unless it was loaded with the records), the other
// strategies rank by the prior instead (prior_model.h: cycles estimated from the vector
// width, the accumulator chains and the parallel loop), so that their first batch is not a
// random draw; TuneOptions::warmStart turns that off.
//
// Candidates are made (the sketch replayed with their decisions, and lowered) on a pool of
// worker threads, one per core (worker_pool.h): the random draws are made first on the
// search's thread, so a seed gives the same search on any number of cores. A polyhedral
// candidate is a run of poly_optimize; the runs of one search share the program's
// analysis and isl's tree (they differ by tile sizes only), and a chain of mutations makes
// only its last candidate.
//
// Every candidate measured is recorded, failures included. Candidates that cannot be
// generated or lowered are dropped before measurement, and counted by reason. A candidate
// faster than the best so far must pass the exact legality check (checkLegality against
// the original) and then a second run verified against the reference before it becomes the
// best (its record keeps the times of both runs, two worker processes, and is ranked by
// their median); one that fails is recorded with the error "illegal: ..." or "wrong: ...".
// (The exact check takes up to seconds on a tiled conv2d: every candidate would pay that,
// and the sketch rules only make steps the primitives themselves check.) These checks come
// at the end of each batch, fastest candidate first, the next only where the one before
// failed: a batch that beats the best several times over pays for one check. A check that
// cannot decide (isl's operation bound, kLegalityMaxOperations) leaves the verification to
// decide, and is counted in TuneResult::legalityUnknown.
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/ir/interpreter.h"
#include "core/ir/prim_func.h"
#include "core/tune/cost_model.h"
#include "core/tune/measure.h"
#include "core/tune/records.h"
#include "core/tune/space.h"

#include <functional>
#include <map>
#include <memory>
#include <stop_token>

namespace loopscape::tune {

enum class Strategy : std::uint8_t { Evolutionary, Annealing, Poly, Mixed, Random };
/// "evolutionary", ...; errors "tune.bad-strategy" list the names.
Expected<Strategy> parseStrategy(std::string_view name);
std::string_view strategyName(Strategy strategy);

struct TuneOptions {
  int trials = 64;    ///< candidates to measure (this run)
  int batchSize = 16; ///< candidates measured per round
  Strategy strategy = Strategy::Mixed;
  SpaceOptions space;  ///< families are set from the strategy
  int population = 64; ///< candidates evolved per round
  int generations = 2; ///< rounds of mutation per batch
  double mutateProbability = 0.85;
  double epsGreedy = 0.05; ///< share of each batch picked at random
  std::uint64_t seed = 1;
  double timeBudgetSeconds = 0; ///< 0: no limit
  bool checkLegality = true;    ///< the exact check of each new best
  /// Rank by the prior (prior_model.h) until the cost model has learnt (or was loaded):
  /// off, the first batch is drawn at random (MetaSchedule's cold start).
  bool warmStart = true;
};

/// The task: a program on a target.
struct TuneTask {
  ir::PrimFunc func;
  ir::SizeBindings sizes;
  std::string target;
  int threads = 0;
  bool fastMath = false;
  /// Lowers a scheduled program for the target (pipeline.lower).
  std::function<Expected<codegen::LoweredFunc>(const ir::PrimFunc&)> lower;
};

struct TuneProgress {
  int trials = 0;         ///< measured in this run
  int total = 0;          ///< to measure in this run
  int errors = 0;         ///< measured candidates that failed
  double bestGflops = 0;  ///< best so far (resumed records included)
  double bestGbps = 0;    ///< its compulsory bytes per second
  /// The program has no floating-point work (its GFLOP/s is 0): its speed is in GB/s.
  bool perByte = false;
  int bestSteps = 0;      ///< trace length of the best
  std::string bestFamily; ///< "tir" or "poly"
  double elapsedSeconds = 0;
  double trialsPerSecond = 0;
  double etaSeconds = 0;
  /// Each measurement is reported twice. At once, with `last` null: `trials` counts it,
  /// `errors` counts its failure if it failed to build or run. Then at the end of its batch,
  /// once the batch's new bests are checked, with `last` its record (final: "illegal: ...",
  /// "wrong: ..." or verified) and the cost model's score for it before it was measured (its
  /// scale is the model's own; NaN where the prior ranked it, TuneOptions::warmStart);
  /// `trials` is then its trial in this run and `bestGflops` the best as of it, so these
  /// reports trace the curve.
  const Record* last = nullptr;
  double lastPredicted = 0;

  /// The best as people read it: GFLOP/s, or GB/s where `perByte`.
  Rate bestRate() const { return perByte ? Rate{bestGbps, "GB/s"} : Rate{bestGflops, "GFLOP/s"}; }
};

struct CurvePoint {
  int trial = 0;      ///< measured so far in this run
  double seconds = 0; ///< elapsed
  double bestGflops = 0;
  double bestGbps = 0;
};

struct TuneResult {
  std::optional<Record> best; ///< fastest verified successful record (resumed ones included)
  std::vector<CurvePoint> curve;
  std::vector<Record> records;        ///< measured in this run, in order
  std::map<std::string, int> dropped; ///< reason -> candidates dropped before measuring
  /// Error code ("poly.quota", ...) -> new bests the exact legality check could not decide
  /// (kept on their verification against the reference alone).
  std::map<std::string, int> legalityUnknown;
  int errors = 0;
  bool stopped = false; ///< by the stop token or the time budget
  /// The space ran out before the trials asked for: three rounds in a row drew no
  /// candidate that was not measured before (a small program, or the poly family's space).
  bool exhausted = false;
  std::string modelName;
  /// The cost model's prediction quality on unseen programs: Spearman's rank correlation
  /// of its scores (made before measuring) with the measured GFLOP/s, over the candidates
  /// measured after its first update; `modelSamples` of them (0: not enough to say).
  double modelCorrelation = 0;
  int modelSamples = 0;
};

/// The share of fresh mixed-search samples drawn from the polyhedral family, from the
/// best throughput measured in each family: tirBest² / (sum of squares) for TIR, the rest
/// for poly, kept within [0.1, 0.9] so that the losing family is still explored; 0.5
/// while either has no successful measurement.
double polyShare(double tirBest, double polyBest);

/// Tunes `task` for `options.trials` measurements: `previous` records of the workload are
/// the starting point (resume), each measurement is reported to `onProgress` (TuneProgress::
/// last says when) and appended to `writer` when open (at the end of its batch). A stop
/// request ends the search after the candidate being measured (its worker is killed) and
/// returns what was found.
Expected<TuneResult> tune(const TuneTask& task, Measurer& measurer, CostModel& model,
                          const std::vector<Record>& previous, RecordWriter* writer, const TuneOptions& options,
                          const std::function<void(const TuneProgress&)>& onProgress = {}, std::stop_token stop = {});

/// One task's search driven round by round (the task scheduler's unit; `tune` is begin,
/// then rounds until options.trials are measured). It keeps copies of the task and the
/// options; the measurer, the model and the writer must outlive it.
class TaskTuner {
public:
  TaskTuner(TuneTask task, Measurer& measurer, CostModel& model, RecordWriter* writer, const TuneOptions& options,
            std::function<void(const TuneProgress&)> onProgress = {}, std::stop_token stop = {});
  ~TaskTuner();
  TaskTuner(const TaskTuner&) = delete;
  TaskTuner& operator=(const TaskTuner&) = delete;

  /// Builds the space and resumes from `previous` (the task's own records are picked).
  Expected<void> begin(const std::vector<Record>& previous);
  /// Measures up to `want` candidates; returns how many were measured (fewer when the
  /// space is exhausted or the search is stopped).
  int round(int want);
  bool exhausted() const;
  bool stopping() const;
  int measured() const;
  /// The best verified median seconds so far (infinity without one).
  double bestSeconds() const;
  const TuneResult& result() const;
  const TuneTask& task() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// The curve as CSV: "trial,seconds,best_gflops,best_gbps" then one line per point.
std::string curveCsv(const std::vector<CurvePoint>& curve);

} // namespace loopscape::tune
