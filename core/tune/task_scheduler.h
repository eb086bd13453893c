// The task scheduler: one budget of measurements shared by several tasks (the fused groups
// of a Relay model, or several programs), each weighted by how often it runs, as TVM's
// gradient-based task scheduler (MetaSchedule's task_scheduler/gradient_based.cc, Ansor's
// task_scheduler.py) allocates trials:
//   1. every task gets one round first (round robin);
//   2. then each round goes to the task with the largest weighted gradient
//        g_i = w_i * (alpha * (b_i[n - 1 - window] - b_i[n - 1]) / window + (1 - alpha) * b_i[n - 1] / n)
//      where b_i[k] is the task's best latency after its k-th round (the recent improvement,
//      and the latency still to gain per round spent), a task without a result first; with
//      probability eps a task at random instead;
//   3. a task whose space is exhausted is left out.
// The objective the rounds reduce is the weighted latency sum_i w_i * b_i.
#pragma once

#include "core/tune/search.h"

#include <functional>
#include <vector>

namespace loopscape::tune {

struct SchedulerOptions {
  int trials = 64;    ///< measurements in all
  int batchSize = 16; ///< measurements per round of one task
  double alpha = 0.2;
  int window = 3;
  double epsGreedy = 0.05;
  std::uint64_t seed = 1;
};

struct ScheduledTask {
  TaskTuner* tuner = nullptr;
  double weight = 1; ///< times the task runs per model execution
};

/// After each round: the task that ran and the weighted latency so far (infinity while
/// some task has no result).
using RoundReport = std::function<void(std::size_t task, double weightedSeconds)>;

/// Runs rounds of the tasks (begun already) until `options.trials` measurements are made,
/// every task is exhausted, or a task's tuner is stopping. Returns the rounds each task got.
std::vector<int> scheduleTasks(std::vector<ScheduledTask>& tasks, const SchedulerOptions& options,
                               const RoundReport& onRound = {});

/// sum_i w_i * best_i (infinity while a task has no result).
double weightedLatency(const std::vector<ScheduledTask>& tasks);

} // namespace loopscape::tune
