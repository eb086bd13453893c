// This machine's peak: fp32 FMA throughput (one core and all cores) and streaming memory
// bandwidth, measured once by built-in micro-benchmarks and cached per machine, so that a
// profile can say "x % of peak" and place a kernel on the roofline.
//
//  * FMA: independent chains of fused multiply-adds on the widest vectors the CPU has
//    (AVX-512, else AVX2+FMA, else scalar std::fma), chosen at run time with
//    __builtin_cpu_supports; each ISA version is compiled for its ISA with a target
//    attribute (the binary stays portable; -march=native is not needed). 12 chains hide
//    the FMA latency on two pipes. One thread gives the per-core peak; one thread per core
//    at once gives the all-core peak. FLOPs = 2 per lane per FMA.
//  * Bandwidth: every core copies its slice of a 64 MiB buffer into another (memcpy) at
//    once; bytes = read + written; the best of several passes.
//  * Cache: a JSON file (machineCachePath()) with one entry per machine, keyed by the CPU
//    model name from /proc/cpuinfo and the number of cores; measured again when missing.
//    Each entry says whether an optimised build measured it ("optimised"): an unoptimised
//    one (the Debug sanitizer tree) measures a fraction of the peak, so an optimised build
//    measures again over such an entry (or one without the field) and replaces it. A
//    peak is a maximum: a measurement made while other work ran (a test suite, a build)
//    reads low, so measuring again keeps the higher of each figure, and a kernel that
//    runs faster than the cached peak has it measured again (peakFor in profile.h).
#pragma once

#include <string>

namespace loopscape::codegen {

struct MachinePeak {
  std::string cpuModel;      ///< "AMD EPYC 9R14 ..." (the "model name" of /proc/cpuinfo)
  int cores = 1;             ///< hardware threads usable by this process
  std::string isa;           ///< "avx512f", "avx2", "scalar": what the FMA benchmark used
  double gflopsPerCore = 0;  ///< fp32 GFLOP/s of one thread
  double gflopsAllCores = 0; ///< fp32 GFLOP/s of `cores` threads together
  double bandwidthGBs = 0;   ///< streaming copy bandwidth, GB/s (1e9 bytes), all cores
  std::string measuredAt;    ///< UTC time of the measurement, ISO 8601
  bool fromCache = false;    ///< read from the cache file rather than measured now
  std::string cacheNote;     ///< why the cache could not be read or written (else empty)
};

/// The "model name" line of /proc/cpuinfo ("unknown CPU" when absent).
std::string cpuModelName();
/// Hardware threads this process may run on (sched_getaffinity), at least 1.
int coreCount();

/// $LOOPSCAPE_MACHINE_CACHE, else $XDG_CACHE_HOME/loopscape/machine.json, else
/// ~/.cache/loopscape/machine.json.
std::string machineCachePath();

/// Runs the micro-benchmarks now (about a second).
MachinePeak measureMachinePeak();

struct PeakOptions {
  std::string cachePath;  ///< empty: machineCachePath()
  bool remeasure = false; ///< measure again (the entry keeps the higher of each figure)
};

/// The cached peak of this machine, measuring (and caching) it when there is none.
/// Never fails: cache problems are reported in `cacheNote`.
MachinePeak machinePeak(const PeakOptions& options = {});

} // namespace loopscape::codegen
