#include "core/codegen/machine_peak.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <immintrin.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sched.h>
#include <sstream>
#include <thread>
#include <vector>

namespace loopscape::codegen {

namespace {

constexpr int kChains = 12;

// Each kernel runs `iterations` rounds of kChains independent FMAs and returns a value
// depending on every chain so that nothing is optimised away. Returns FLOPs done.
__attribute__((target("avx512f,fma"))) double fmaAvx512(long iterations, float* sink) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(1.0f + 0.001f * static_cast<float>(c));
  const __m512 a = _mm512_set1_ps(0.9999999f), b = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float s = 0;
  for (float v : lanes) s += v;
  *sink = s;
  return 2.0 * 16 * kChains * static_cast<double>(iterations);
}

__attribute__((target("avx2,fma"))) double fmaAvx2(long iterations, float* sink) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(1.0f + 0.001f * static_cast<float>(c));
  const __m256 a = _mm256_set1_ps(0.9999999f), b = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float s = 0;
  for (float v : lanes) s += v;
  *sink = s;
  return 2.0 * 8 * kChains * static_cast<double>(iterations);
}

double fmaScalar(long iterations, float* sink) {
  float acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = 1.0f + 0.001f * static_cast<float>(c);
  for (long i = 0; i < iterations; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = std::fma(acc[c], 0.9999999f, 1e-7f);
  float s = 0;
  for (float v : acc) s += v;
  *sink = s;
  return 2.0 * kChains * static_cast<double>(iterations);
}

using FmaKernel = double (*)(long, float*);

std::pair<FmaKernel, const char*> bestFmaKernel() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {fmaAvx512, "avx512f"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {fmaAvx2, "avx2"};
  return {fmaScalar, "scalar"};
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// GFLOP/s of `threads` threads each running `kernel` at once: best of 3 timed passes,
/// iterations calibrated so one pass lasts at least 30 ms.
double fmaGflops(FmaKernel kernel, int threads) {
  std::vector<float> sinks(static_cast<std::size_t>(threads) * 16);
  auto pass = [&](long iterations) {
    const double t0 = now();
    std::vector<std::thread> pool;
    double flops = 0;
    for (int t = 1; t < threads; ++t)
      pool.emplace_back([&, t] { kernel(iterations, &sinks[static_cast<std::size_t>(t) * 16]); });
    flops = kernel(iterations, &sinks[0]) * threads;
    for (auto& th : pool) th.join();
    return std::pair{flops, now() - t0};
  };
  long iterations = 1 << 14;
  while (pass(iterations).second < 0.03 && iterations < (1L << 34)) iterations *= 2;
  double best = 0;
  for (int r = 0; r < 3; ++r) {
    auto [flops, seconds] = pass(iterations);
    best = std::max(best, flops / seconds / 1e9);
  }
  return best;
}

double copyBandwidth(int threads) {
  constexpr std::size_t kBytes = 64u << 20;
  std::unique_ptr<char[]> src(new char[kBytes]), dst(new char[kBytes]);
  std::memset(src.get(), 1, kBytes);
  std::memset(dst.get(), 0, kBytes);
  const std::size_t slice = kBytes / static_cast<std::size_t>(threads);
  double best = 0;
  for (int r = 0; r < 4; ++r) {
    const double t0 = now();
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
      pool.emplace_back([&, t] {
        std::memcpy(dst.get() + slice * static_cast<std::size_t>(t), src.get() + slice * static_cast<std::size_t>(t), slice);
      });
    std::memcpy(dst.get(), src.get(), slice);
    for (auto& th : pool) th.join();
    const double seconds = now() - t0;
    best = std::max(best, 2.0 * static_cast<double>(slice) * threads / seconds / 1e9);
  }
  return best;
}

std::string utcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// Whether this library was compiled with optimisation: an unoptimised build (the Debug
/// ASan tree) keeps its accumulators in memory and measures a fraction of the peak.
#ifdef __OPTIMIZE__
constexpr bool kOptimisedBuild = true;
#else
constexpr bool kOptimisedBuild = false;
#endif

nlohmann::json toJson(const MachinePeak& p) {
  return {{"cpu", p.cpuModel},
          {"optimised", kOptimisedBuild},
          {"cores", p.cores},
          {"isa", p.isa},
          {"fp32_gflops_per_core", p.gflopsPerCore},
          {"fp32_gflops_all_cores", p.gflopsAllCores},
          {"bandwidth_gbs", p.bandwidthGBs},
          {"measured_at", p.measuredAt}};
}

} // namespace

std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("model name")) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(colon + 1);
    const auto first = name.find_first_not_of(" \t");
    return first == std::string::npos ? "unknown CPU" : name.substr(first);
  }
  return "unknown CPU";
}

int coreCount() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::string machineCachePath() {
  if (const char* p = std::getenv("LOOPSCAPE_MACHINE_CACHE"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (std::filesystem::path(x) / "loopscape" / "machine.json").string();
  const char* home = std::getenv("HOME");
  return (std::filesystem::path(home && *home ? home : "/tmp") / ".cache" / "loopscape" / "machine.json").string();
}

MachinePeak measureMachinePeak() {
  MachinePeak p;
  p.cpuModel = cpuModelName();
  p.cores = coreCount();
  auto [kernel, isa] = bestFmaKernel();
  p.isa = isa;
  p.gflopsPerCore = fmaGflops(kernel, 1);
  p.gflopsAllCores = p.cores > 1 ? fmaGflops(kernel, p.cores) : p.gflopsPerCore;
  p.bandwidthGBs = copyBandwidth(p.cores);
  p.measuredAt = utcNow();
  return p;
}

MachinePeak machinePeak(const PeakOptions& options) {
  const std::string path = options.cachePath.empty() ? machineCachePath() : options.cachePath;
  const std::string model = cpuModelName();
  const int cores = coreCount();
  nlohmann::json doc = {{"version", 1}, {"machines", nlohmann::json::array()}};
  std::string note;
  if (std::ifstream in(path); in) {
    try {
      auto parsed = nlohmann::json::parse(in);
      if (parsed.is_object() && parsed.value("version", 0) == 1 && parsed.contains("machines") &&
          parsed["machines"].is_array())
        doc = std::move(parsed);
      else
        note = fmt::format("the machine cache '{}' has an unknown layout; it is rewritten", path);
    } catch (const nlohmann::json::exception& e) {
      note = fmt::format("the machine cache '{}' is not valid JSON ({}); it is rewritten", path, e.what());
    }
  }
  auto& machines = doc["machines"];
  std::optional<MachinePeak> cached; // this machine's entry, by a build like this one
  for (const auto& m : machines) {
    try {
      if (m.at("cpu").get<std::string>() != model || m.at("cores").get<int>() != cores) continue;
      // An optimised build measures again what an unoptimised one (or a version before
      // the field) measured.
      if (kOptimisedBuild && !m.value("optimised", false)) continue;
      MachinePeak p;
      p.cpuModel = model;
      p.cores = cores;
      p.isa = m.at("isa").get<std::string>();
      p.gflopsPerCore = m.at("fp32_gflops_per_core").get<double>();
      p.gflopsAllCores = m.at("fp32_gflops_all_cores").get<double>();
      p.bandwidthGBs = m.at("bandwidth_gbs").get<double>();
      p.measuredAt = m.value("measured_at", "");
      p.fromCache = true;
      if (p.gflopsPerCore > 0 && p.gflopsAllCores > 0 && p.bandwidthGBs > 0) cached = p;
    } catch (const nlohmann::json::exception&) {
      // A damaged entry is measured again and replaced below.
    }
  }
  if (cached && !options.remeasure) return *cached;
  MachinePeak p = measureMachinePeak();
  if (cached && cached->isa == p.isa) {
    // Only higher figures replace the entry's: what else runs can only slow a measurement.
    p.gflopsPerCore = std::max(p.gflopsPerCore, cached->gflopsPerCore);
    p.gflopsAllCores = std::max(p.gflopsAllCores, cached->gflopsAllCores);
    p.bandwidthGBs = std::max(p.bandwidthGBs, cached->bandwidthGBs);
  }
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& m : machines)
    if (!(m.is_object() && m.value("cpu", "") == model && m.value("cores", 0) == cores)) kept.push_back(m);
  kept.push_back(toJson(p));
  doc["machines"] = std::move(kept);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << doc.dump(2) << '\n';
    if (!out) note = fmt::format("cannot write the machine cache '{}'", path);
  }
  if (note.empty() || note.find("rewritten") != std::string::npos) {
    std::filesystem::rename(tmp, path, ec);
    if (ec) note = fmt::format("cannot write the machine cache '{}': {}", path, ec.message());
  }
  p.cacheNote = note;
  return p;
}

} // namespace loopscape::codegen
