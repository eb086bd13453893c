#include "core/codegen/profile_timer.h"

#include "core/ir/assert.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>

namespace loopscape::codegen {

double TimingResult::min() const {
  return perRepeat.empty() ? 0 : *std::min_element(perRepeat.begin(), perRepeat.end());
}
double TimingResult::max() const {
  return perRepeat.empty() ? 0 : *std::max_element(perRepeat.begin(), perRepeat.end());
}

double TimingResult::median() const {
  if (perRepeat.empty()) return 0;
  auto sorted = perRepeat;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double TimingResult::mean() const {
  if (perRepeat.empty()) return 0;
  return std::accumulate(perRepeat.begin(), perRepeat.end(), 0.0) / static_cast<double>(perRepeat.size());
}

double TimingResult::stddev() const {
  if (perRepeat.size() < 2) return 0;
  const double m = mean();
  double sq = 0;
  for (double t : perRepeat)
    sq += (t - m) * (t - m);
  return std::sqrt(sq / static_cast<double>(perRepeat.size() - 1));
}

double TimingResult::spread() const {
  const double med = median();
  return med > 0 ? (max() - min()) / med : 0;
}

Expected<TimingResult> timeCalls(const std::function<Expected<void>()>& call, const TimingOptions& options) {
  LS_ASSERT(options.repeat >= 1 && options.warmup >= 0 && options.number >= 0, "bad TimingOptions {} {} {}",
            options.warmup, options.repeat, options.number);
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };

  // A first call slower than the cutoff is the only repeat.
  auto slow = [&](double took) -> std::optional<TimingResult> {
    if (options.slowCutoffSeconds <= 0 || took <= options.slowCutoffSeconds) return std::nullopt;
    TimingResult cut;
    cut.number = 1;
    cut.perRepeat = {took};
    return cut;
  };
  auto timedCall = [&]() -> Expected<double> {
    const auto t0 = Clock::now();
    if (auto r = call(); !r) return Unexpected(r.error());
    return seconds(Clock::now() - t0);
  };
  for (int i = 0; i < options.warmup; ++i) {
    auto took = timedCall();
    if (!took) return Unexpected(took.error());
    // The first call of a fresh worker pays for cold caches, page faults and the thread
    // pool's start (on the ResNet-18 conv layer, often 8x a warm call): only a second
    // call that is as slow is cut.
    if (i == 0 && slow(*took)) {
      took = timedCall();
      if (!took) return Unexpected(took.error());
      if (auto cut = slow(*took)) return *cut;
    }
  }

  TimingResult result;
  result.number = options.number;
  if (result.number == 0) {
    // As TVM: grow `number` until `number` calls last at least minRepeatMs.
    const double wanted = options.minRepeatMs / 1000.0;
    int number = 1;
    for (;;) {
      const auto t0 = Clock::now();
      for (int i = 0; i < number; ++i)
        if (auto r = call(); !r) return Unexpected(r.error());
      const double took = std::max(seconds(Clock::now() - t0), 1e-9);
      if (number == 1 && options.warmup == 0)
        if (auto cut = slow(took)) return *cut;
      if (took >= wanted || number >= 1000000000) break;
      const double next = std::max(wanted / (took / number) + 1, number * 1.618);
      number = static_cast<int>(std::min(std::ceil(next), 1e9));
    }
    result.number = number;
  }

  std::optional<HardwareCounters> counters;
  result.countersRequested = options.counters;
  if (options.counters) {
    counters.emplace();
    counters->start();
  }
  result.perRepeat.reserve(static_cast<std::size_t>(options.repeat));
  for (int r = 0; r < options.repeat; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < result.number; ++i)
      if (auto ok = call(); !ok) return Unexpected(ok.error());
    result.perRepeat.push_back(seconds(Clock::now() - t0) / result.number);
  }
  if (counters) result.counters = counters->stop();
  return result;
}

} // namespace loopscape::codegen
