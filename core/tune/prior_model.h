// The prior: a cost model that needs no measurements. It estimates a candidate's cycles
// from its lowered program and this machine's vector unit, so that a search's first batch
// (before the learned model has any data, MetaSchedule draws it at random) already goes to
// the candidates most likely to be fast. The search ranks with it until the learned model's
// first update (search.h); `--model prior` uses it alone (to evaluate it on records).
//
// Per BufferStore (the walk the features use, features.h), with N = vector lanes of this
// machine for the store's type, c = the number of vector instructions of one innermost
// iteration (float operation nodes, a mad counting once, times ceil(lanes / N); a store
// without floating-point work counts one, the move) and P = the product of its loop extents:
//   * its instructions issue at `pipes` a cycle: P * c / pipes cycles at best;
//   * an accumulator (a store whose buffer it also reads, under a loop R that does not
//     move the stored element: the innermost such loop of extent > 1) is a chain of
//     dependent operations along R. The chains that advance together in one iteration of
//     R are A = ceil(lanes / N) * (the updates of that buffer's accumulators in R's body,
//     unrolled copies each counting) * (the product of the extents of the loops inside R). Each chain takes
//     `latency` cycles a step, so the store runs at min(1, A / (latency * pipes)) of the
//     issue rate; with A above the vector registers less `reservedRegisters` the
//     accumulators live in memory: `spillRate` of the issue rate;
//   * under a parallel loop of extent E, with T threads, it takes E / ceil(E / T) times
//     fewer cycles.
// The score is -log2 of the sum of the stores' cycles: higher is predicted faster. The model
// knows nothing of caches; the learned model takes over from measurements.
#pragma once

#include "core/tune/cost_model.h"

namespace loopscape::tune {

struct PriorOptions {
  int threads = 1;           ///< the threads the candidates run on
  int vectorBytes = 32;      ///< widest vector register (64: AVX-512)
  int vectorRegisters = 16;  ///< 32 with AVX-512
  int reservedRegisters = 4; ///< registers the loads and broadcasts need beside the accumulators
  double pipes = 2;          ///< vector operations issued per cycle
  double latency = 4;        ///< cycles from one dependent vector operation to the next
  double spillRate = 0.4;    ///< share of the issue rate left to accumulators kept in memory
  /// This machine (poly::MachineModel::host: vector width and registers) on `threads`.
  static PriorOptions host(int threads);
};

class PriorModel final : public CostModel {
public:
  explicit PriorModel(PriorOptions options) : m_options(options) {}
  std::string_view name() const override { return "prior"; }
  bool informed() const override { return true; }
  std::vector<double> predict(std::span<const codegen::LoweredFunc* const> candidates) override;
  /// Learns nothing.
  void update(std::span<const codegen::LoweredFunc* const>, std::span<const double>) override {}
  /// A JSON file naming the model (nothing is learnt, the options are the machine's).
  Expected<void> save(const std::filesystem::path& path) const override;
  Expected<void> load(const std::filesystem::path& path) override;

  /// The estimated cycles of `func` (what predict scores).
  double cycles(const codegen::LoweredFunc& func) const;

private:
  PriorOptions m_options;
};

} // namespace loopscape::tune
