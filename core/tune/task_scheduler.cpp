// Gradient-based allocation of trials among tasks (task_scheduler.h).
#include "core/tune/task_scheduler.h"

#include <cmath>
#include <limits>
#include <random>

namespace loopscape::tune {

double weightedLatency(const std::vector<ScheduledTask>& tasks) {
  double sum = 0;
  for (const auto& t : tasks)
    sum += t.weight * t.tuner->bestSeconds();
  return sum;
}

std::vector<int> scheduleTasks(std::vector<ScheduledTask>& tasks, const SchedulerOptions& options,
                               const RoundReport& onRound) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<int> rounds(tasks.size(), 0);
  std::vector<std::vector<double>> history(tasks.size()); ///< best latency after each round
  std::mt19937_64 rng(options.seed);
  int measured = 0;
  auto runRound = [&](std::size_t i) {
    const int want = std::min(options.batchSize, options.trials - measured);
    measured += tasks[i].tuner->round(want);
    ++rounds[i];
    history[i].push_back(tasks[i].tuner->bestSeconds());
    if (onRound) onRound(i, weightedLatency(tasks));
  };
  auto live = [&](std::size_t i) { return !tasks[i].tuner->exhausted(); };
  auto stopping = [&] {
    for (const auto& t : tasks)
      if (t.tuner->stopping()) return true;
    return false;
  };
  // 1. Round robin.
  for (std::size_t i = 0; i < tasks.size() && measured < options.trials && !stopping(); ++i)
    runRound(i);
  // 2. The largest weighted gradient.
  while (measured < options.trials && !stopping()) {
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < tasks.size(); ++i)
      if (live(i)) candidates.push_back(i);
    if (candidates.empty()) break;
    std::size_t chosen = candidates.front();
    if (std::uniform_real_distribution<double>(0, 1)(rng) < options.epsGreedy) {
      chosen = candidates[rng() % candidates.size()];
    } else {
      double bestGradient = -inf;
      for (std::size_t i : candidates) {
        const auto& h = history[i];
        const double latest = h.empty() ? inf : h.back();
        double gradient = inf; // no result yet: first
        if (std::isfinite(latest)) {
          const std::size_t n = h.size();
          const double backward = n > static_cast<std::size_t>(options.window)
                                      ? (h[n - 1 - options.window] - latest) / options.window
                                      : 0.0;
          const double backwardFinite = std::isfinite(backward) ? backward : latest;
          gradient = tasks[i].weight *
                     (options.alpha * backwardFinite + (1 - options.alpha) * latest / static_cast<double>(n));
        }
        if (gradient > bestGradient) bestGradient = gradient, chosen = i;
      }
    }
    runRound(chosen);
  }
  return rounds;
}

} // namespace loopscape::tune
