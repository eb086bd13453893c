// A kernel's profile: its timing (profile_timer.h), the work it does (flop_count.h), the
// compulsory traffic and the modeled traffic of its schedule (traffic_model.h), and where
// that puts it against this machine's peak (machine_peak.h): GFLOP/s, arithmetic
// intensity, percent of peak and the roofline bound.
// `formatProfile` renders it as the timing table `loopscape-cli run` prints.
#pragma once

#include "core/codegen/flop_count.h"
#include "core/codegen/lowered_func.h"
#include "core/codegen/machine_peak.h"
#include "core/codegen/profile_timer.h"
#include "core/codegen/traffic_model.h"
#include "core/ir/interpreter.h"
#include "core/ir/prim_func.h"

#include <optional>
#include <string>

namespace loopscape::codegen {

struct ProfileReport {
  TimingResult timing;
  FlopCount work;                 ///< counted on the unscheduled program (useful work)
  double bytes = 0;               ///< compulsory bytes: every parameter once
  /// Modeled bytes between the cache and memory for this schedule (traffic_model.h); 0:
  /// not modeled.
  double modeledBytes = 0;
  std::string trafficModel;        ///< the model in words: "beyond a 1 MiB cache, 64-byte lines"
  std::optional<MachinePeak> peak; ///< absent: no percent of peak
  std::string peakNote;            ///< without a peak: why, printed as "peak: <note>"
  int threads = 1;                ///< cores the kernel can use (1 without parallel loops)
  std::string mode;               ///< "isolated worker" or "in process"

  /// work.flops / median seconds / 1e9 (0 without a median).
  double gflops() const;
  /// FLOP per compulsory byte (0 when bytes is 0).
  double arithmeticIntensity() const;
  /// FLOP per modeled byte (0 when modeledBytes is 0).
  double modeledIntensity() const;
  /// The FMA peak for `threads` cores: per-core peak for 1 thread, all-core peak for
  /// more (scaled by threads / cores when fewer than every core); 0 without a peak.
  double peakGflops() const;
  /// 100 * gflops() / peakGflops(); 0 without a peak.
  double percentOfPeak() const;
  /// min(peak, AI * bandwidth): what the roofline allows this kernel; 0 without a peak.
  double rooflineGflops() const;
};

/// ProfileReport::peakNote for a GPU kernel, which gets no peak and no modeled traffic.
extern const char* const kGpuPeakNote;

/// This machine's peak for `report` (machinePeak), measured again when the report's
/// kernel ran faster than the cached figure for its cores: that figure was measured while
/// other work ran (it read 85 GFLOP/s per core for 157 on an idle Intel core under ctest).
MachinePeak peakFor(const ProfileReport& report, const PeakOptions& options = {});

/// True when the program has a Parallel loop (the kernel then uses every core).
bool usesParallelLoops(const ir::PrimFunc& func);

/// The profile of `scheduled` timed as `timing`: the useful work and the compulsory bytes
/// of `original` under `sizes` (left at zero when they cannot be counted), the cores it
/// uses (1 without parallel loops, else `threads` (BuildOptions::threads; 0 = every core)
/// capped at the core count), no peak and no mode.
ProfileReport makeProfile(const ir::PrimFunc& original, const ir::PrimFunc& scheduled, const ir::SizeBindings& sizes,
                          TimingResult timing, int threads);

/// Sets report.modeledBytes and trafficModel from the lowered kernel that was timed
/// (estimateTraffic under `sizes`, this core's L2 unless `options` say otherwise).
void addModeledTraffic(ProfileReport& report, const LoweredFunc& lowered, const ir::SizeBindings& sizes,
                       TrafficOptions options = {});

/// The timing table:
///   timing: <mode>, <R> repeats x <N> calls, <W> warm-up
///      min ms   median ms      max ms   spread     GFLOP/s   % of peak   AI FLOP/B
///     <values, same columns>
///   work: <F> FLOP (exact|estimate), <B> bytes compulsory
///   modeled traffic: <M> bytes <model> (AI <x> FLOP/B)   | only when modeled
///   peak: <P> GFLOP/s fp32 on <T> core(s) (<isa>), <BW> GB/s; roofline bound <R> GFLOP/s
///   counters: cycles C, instructions I (IPC x), cache misses M   | or the unavailable note
/// Columns without data (no peak) print "-".
std::string formatProfile(const ProfileReport& report, int warmup);

} // namespace loopscape::codegen
