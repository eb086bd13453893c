// XgbModel ("xgb"): gradient-boosted trees over the per-store features (features.h),
// trained in process through XGBoost's C API, as Ansor's XGBModel.
//
// Pack-sum: the model predicts one value per store row; a program's score is the sum over
// its rows, so a program is scored by adding up the predicted cost of its statements
// however many there are (unrolled copies, init and update, several stages).
//
// Rows: the lowered program's per-store rows with exact duplicates kept once. The copies
// of an unrolled loop give identical rows (their count is a feature of the row itself);
// summed one by one they made a program's score grow with its unrolling (the most
// unrolled schedules scored highest whatever their speed). Trained on 24 measured matmul
// 1024^3 schedules and tested on 24 others, the rank correlation went from 0.39 to 0.68.
//
// Objective: squared error on normalised throughput, with pack-sum gradients (Ansor's
// "pack-sum-rmse", MetaSchedule's default). The label of a program is gflops / the best
// gflops seen for the same workload (the function's name and parameter shapes), so batches
// of one workload share one scale in [0, 1] and failed candidates are 0. Each boosting
// round supplies the gradients itself (XGBoosterBoostOneIter): for every row of program p,
// g = w_p * (sum of p's row predictions - label_p), h = w_p * n_p, with the weight
// w_p = max(label_p, minWeight) so that fast programs, the ones a search keeps, are fitted
// best while slow and failed ones still count a little, and n_p = p's row count. Ansor
// uses h = w_p; but the loss moves with the sum of n_p rows, whose curvature is up to n_p
// times a row's, and with h = w_p a program of many rows (our lowered programs keep every
// unrolled copy as a row) overshoots by about n_p * eta per round and training diverges.
// h = w_p * n_p bounds that curvature, so a round moves a program's sum by at most eta
// times its residual. We chose this over rank:pairwise
// because a ranking objective scores rows, not programs: it cannot express the pack-sum,
// and its groups would have to be the measured batches, whose pairs carry no information
// across batches; normalised regression keeps every measurement comparable to every other
// and ranks well (Spearman > 0.8 on held-out programs in tests/tune/tst_cost_model.cpp).
//
// Online training: update() appends the batch (feature rows, gflops, workload) to the
// data kept so far (a program it holds already, same workload and same rows, only takes
// the new gflops: a resumed search presents the records a loaded model learnt from
// again, model_file.h), drops the oldest programs beyond XgbOptions::maxPrograms, and retrains
// a new booster from scratch on all of it (labels renormalised). Until the first
// successful training, predict returns 0 for every candidate (no fallback heuristic: a
// search should sample at random until it has measured something). A program without
// stores scores 0 and is not kept.
//
// Errors: every XGBoost call's return code is checked. save/load return them
// ("tune.xgboost", with XGBGetLastError()'s text); update and predict cannot (the
// CostModel interface returns none), so they keep the previous booster (predict: returns
// zeros) and leave the Diagnostic in lastError() until the next call succeeds.
//
// Files: save(path) writes the booster as XGBoost's JSON model at `path` (whatever its
// extension) and the training data beside it at `path` + ".data" (binary: magic
// "LSXGBD01", feature count, trained flag, workloads, then per program its workload,
// gflops, row count and rows as float32, little-endian), so that a loaded model predicts
// exactly as the saved one and keeps learning from where it stopped. load(path) reads
// both; without the ".data" file it loads the booster alone and starts the data afresh.
// An untrained model writes only the ".data" file.
#pragma once

#include "core/tune/cost_model.h"
#include "core/tune/features.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace loopscape::tune {

/// Ansor's parameters by default, fewer rounds (it uses early stopping on up to 10000).
/// One thread: XGBoost's OpenMP threads spin, and on a machine busy building and running
/// candidates two threads trained 20x slower here; one thread trains 5000 programs
/// (about 35k rows) for 100 rounds in about 0.6 s.
struct XgbOptions {
  int maxDepth = 10;
  double eta = 0.2;
  double gamma = 0.001;
  double minChildWeight = 0;
  int rounds = 100;
  int threads = 1;
  std::size_t maxPrograms = 10000;
  /// Smallest training weight of a program (see the objective above).
  double minWeight = 0.05;
  std::uint64_t seed = 0;
  FeatureOptions features;
};

class XgbModel final : public CostModel {
public:
  explicit XgbModel(XgbOptions options = {});
  ~XgbModel() override;
  XgbModel(const XgbModel&) = delete;
  XgbModel& operator=(const XgbModel&) = delete;

  std::string_view name() const override { return "xgb"; }
  bool informed() const override { return trained(); }
  /// Sum of the row predictions per candidate; all 0 before training.
  std::vector<double> predict(std::span<const codegen::LoweredFunc* const> candidates) override;
  /// Keeps the batch and retrains on everything kept (see above). Sizes must match.
  void update(std::span<const codegen::LoweredFunc* const> candidates, std::span<const double> gflops) override;
  /// "tune.model-io" (cannot write), "tune.xgboost".
  Expected<void> save(const std::filesystem::path& path) const override;
  /// "tune.model-io" (cannot read), "tune.model-format" (a bad ".data" file, or one made
  /// with another feature count), "tune.xgboost" (XGBoost refused the model). On error the
  /// model is unchanged.
  Expected<void> load(const std::filesystem::path& path) override;

  /// A booster has been trained (or loaded).
  bool trained() const { return m_booster != nullptr; }
  /// Programs kept for training.
  std::size_t programCount() const { return m_programs.size(); }
  /// The failure of the last update or predict, if it failed.
  const std::optional<Diagnostic>& lastError() const { return m_lastError; }
  const XgbOptions& options() const { return m_options; }

private:
  struct Program {
    std::vector<float> rows; ///< row-major, kFeatureCount per row
    std::uint32_t workload = 0;
    double gflops = 0;
  };

  std::uint32_t workloadId(const codegen::LoweredFunc& func);
  Expected<void*> train() const;
  Expected<std::vector<double>> scores(std::span<const codegen::LoweredFunc* const> candidates) const;
  void setBooster(void* booster);

  XgbOptions m_options;
  std::vector<Program> m_programs;
  std::vector<std::string> m_workloads;
  void* m_booster = nullptr; ///< XGBoost's BoosterHandle, owned
  std::optional<Diagnostic> m_lastError;
};

/// Spearman's rank correlation of `a` and `b` (equal lengths; ties get their average
/// rank; NaN ranks lowest), in [-1, 1]; 0 when fewer than two values or when either is
/// constant.
double rankCorrelation(std::span<const double> a, std::span<const double> b);

} // namespace loopscape::tune
