// The prior: a cost model that needs no measurements. It estimates a candidate's cycles
// from its lowered program and this machine's vector unit, so that a search's first batch
// (before the learned model has any data, MetaSchedule draws it at random) already goes to
// the candidates most likely to be fast. The search ranks with it until the learned model's
// first update (search.h); `--model prior` uses it alone (to evaluate it on records).
//
// Per BufferStore (the walk the features use, features.h), with N = vector lanes of this
// machine for the store's type, c = the number of vector instructions of one innermost
// iteration (float operation nodes, a mad counting once, times ceil(lanes / N); a store
// without floating-point work counts one, the move) and P = the product of its loop extents
// (0 in the version of a partial register tile that the loops' midpoints do not take,
// features_detail.h):
//   * its instructions issue at `pipes` a cycle: P * c / pipes cycles at best;
//   * an accumulator (a store whose buffer it also reads, under a loop R that does not
//     move the stored element: the innermost such loop of extent > 1) is a chain of
//     dependent operations along R. The chains that advance together in one iteration of
//     R, held in registers, are A = ceil(lanes / N) * E * I: E the elements of that buffer
//     that accumulators in R's body update (unrolled copies on other elements count;
//     copies on the same element, a reduction loop unrolled inside R, extend one chain),
//     I the product of the extents of the loops inside R. Short chains overlap: with L the
//     chain's run of dependent updates (the extents of R and of the loops around it up to
//     the first that moves the element or whose body updates other elements of the buffer
//     too, times the copies in R's body on the same element), the out-of-order core keeps
//     A' = A * max(1, floor(`window` / (L * the float operation nodes of one update)))
//     chains in flight. Each takes `latency` cycles a step: the store runs at
//     min(1, A' / (latency * pipes)) of the issue rate. With A above the vector registers
//     less `reservedRegisters`, or with a loop inside R (neither unrolled nor the lanes:
//     each of its iterations moves to other accumulators), the accumulators live in
//     memory: `spillRate` of the issue rate;
//   * under a parallel loop of extent E, with T threads, it takes E / ceil(E / T) times
//     fewer cycles;
//   * with T > 1, each start of a parallel loop (not inside another: that one runs
//     serially) costs `parallelLaunch` cycles, the fork and join of the threads: a parallel
//     loop under serial loops starts once per iteration of theirs.
//   * caches: for each level (capacity S, fill bandwidth W bytes a cycle: L1 filled from L2,
//     L2 from L3, L3 from memory) that the store's whole nest does not fit (what fits stays
//     from one call to the next), the outermost loop level l of the store whose nest (its
//     loops at depth >= l and the lanes iterating) touches at most S unique bytes of the
//     store's buffers (features_detail.h storeBytesFrom) is what stays in the cache; it is
//     filled once per iteration of the loops outside it: traffic = (product of the extents
//     of the loops above l) * those bytes, taking traffic / W cycles, divided among the
//     store's unrolled copies (they share what they read). The store takes the most of its
//     issue cycles and its fill cycles (a roofline; the fills of a parallel store share its
//     speedup: each core has its own caches).
// The score is -log2 of the sum of the stores' cycles: higher is predicted faster; the
// learned model takes over from measurements.
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
  double window = 64;        ///< vector operations the out-of-order core overlaps
  double parallelLaunch = 8000; ///< cycles of one fork and join (an OpenMP region: a few microseconds)
  double l1Bytes = 32 * 1024;   ///< cache capacities of one core
  double l2Bytes = 1 << 20;
  double l3Bytes = 8 << 20;
  double l2Bandwidth = 32; ///< bytes a cycle that fill L1 from L2
  double l3Bandwidth = 16; ///< from L3 into L2
  double memBandwidth = 6; ///< from memory into L3, per core
  /// This machine (poly::MachineModel::host: vector width, registers and cache sizes) on
  /// `threads`.
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
