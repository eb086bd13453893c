// Measuring candidates: the search hands a batch of lowered programs to a Measurer and
// gets one result per program. The interface is all the search knows, so another backend
// (a cluster of machines) can be added without touching the search.
//
// LocalMeasurer builds the programs of a batch with a target plugin through the codegen
// pipeline, in parallel when the target builds concurrently (TargetCapabilities), then
// runs them one at a time in the isolated worker (runner.h), so that no build disturbs a
// timing. A build failure, a crash, a timeout or a wrong result is that candidate's
// error, never the caller's. With `verify` set, the
// result is compared with the reference (the interpreter, or the unscheduled program
// compiled when it is too large to interpret) before it counts; the reference runs once
// per measurer (the inputs are the same for every candidate) and is reused.
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/codegen/pipeline.h"
#include "core/codegen/verify.h"
#include "core/ir/diagnostic.h"
#include "core/ir/ndarray.h"

#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::tune {

struct MeasureResult {
  std::vector<double> seconds; ///< per-call time of each repeat; empty on error
  std::string error;           ///< "" or "<kind>: <message>" (kinds: records.h)
  bool verified = false;       ///< compared with the reference and equal
  double buildSeconds = 0;
  double runSeconds = 0;
  bool ok() const { return error.empty() && !seconds.empty(); }
};

/// Called with each result as soon as it is measured, in program order, on the thread that
/// called measure(); returning false ends the batch (the rest get "cancelled"). It may call
/// measure() again (the search re-measures a new best with verification).
using OnMeasured = std::function<bool(std::size_t index, const MeasureResult& result)>;

class Measurer {
public:
  virtual ~Measurer() = default;
  /// One result per program, in order. `verify[i]`: compare program i with the reference.
  /// A stop request ends the batch early: the rest get the error "cancelled".
  virtual std::vector<MeasureResult> measure(std::span<const codegen::LoweredFunc> programs,
                                             const std::vector<bool>& verify, std::stop_token stop,
                                             const OnMeasured& onMeasured = {}) = 0;
};

struct LocalMeasureOptions {
  std::string target = "cpu-llvm";
  codegen::BuildOptions build;                       ///< threads, fast math
  codegen::TimingOptions timing{1, 3, 0, 50, false}; ///< warm-up 1, 3 repeats of >= 50 ms
  double timeoutSeconds = 10;                        ///< per kernel call in the worker
  /// Most seconds one program's build may take (0: no limit); a longer one is stopped
  /// (between LLVM's passes with cpu-llvm) and is that candidate's error. MetaSchedule's
  /// builder allows 30 s too: one fully unrolled conv2d tile kept LLVM busy for 146 s.
  double buildTimeoutSeconds = 30;
  std::string workerPath;                            ///< empty: findWorker()
  std::uint64_t seed = 0;                            ///< inputs: fillRandom(seed + i) as `check` makes them
  /// Verification: most statement instances to interpret. Above it the reference is the
  /// unscheduled program compiled by the same target, checked by the interpreter on
  /// sampled elements (verify.h). Lower than `run --verify`'s 2e8: the interpreter takes
  /// about 120 ns an instance, so the ResNet-18 conv layer (1.2e8) cost a search 14 s of
  /// one core before its first best counted, the compiled reference about 1.5 s.
  double interpretLimit = 2e7;
  /// Threads building a batch when the target builds concurrently (0: one per core).
  int buildThreads = 0;
  /// Once a program has run, a later one whose warm-up call takes longer than this many
  /// times the fastest median so far is timed by that call alone (TimingOptions::
  /// slowCutoffSeconds; 0: every program timed in full). Its time still ranks it.
  double slowCutoffFactor = 8;
};

class LocalMeasurer final : public Measurer {
public:
  /// Errors: the target's (unknown, unusable here) and the arguments' (too large).
  static Expected<std::unique_ptr<LocalMeasurer>> create(ir::PrimFunc original, ir::SizeBindings sizes,
                                                         LocalMeasureOptions options);
  std::vector<MeasureResult> measure(std::span<const codegen::LoweredFunc> programs, const std::vector<bool>& verify,
                                     std::stop_token stop, const OnMeasured& onMeasured = {}) override;
  /// The target the programs must be lowered for.
  const codegen::Target& target() const { return *m_target; }
  const codegen::Pipeline& pipeline() const { return m_pipeline; }

private:
  LocalMeasurer() = default;
  /// Verifies (when asked) and times one built program; a failed build is its error.
  MeasureResult runOne(const Expected<codegen::CompiledKernel>& kernel, bool verify, std::stop_token stop);

  codegen::Pipeline m_pipeline;
  codegen::Target* m_target = nullptr;
  ir::PrimFunc m_original;
  ir::SizeBindings m_sizes;
  LocalMeasureOptions m_options;
  std::vector<ir::NDArray> m_args;
  /// The reference's outputs on m_args, computed at the first verification.
  std::shared_ptr<codegen::ReferenceCache> m_reference = std::make_shared<codegen::ReferenceCache>();
  double m_fastest = 0; ///< the fastest median measured so far (0: none yet)
};

} // namespace loopscape::tune
