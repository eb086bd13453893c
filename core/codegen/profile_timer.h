// Timing of repeated kernel calls, following TVM's time_evaluator:
//   1. `warmup` untimed calls;
//   2. when `number` is 0, it is chosen so that one repeat lasts at least `minRepeatMs`:
//      starting from 1, `number` calls are timed and `number` grows (to the estimate
//      minRepeatMs / time-per-call + 1, at least x1.618) until they last long enough;
//   3. `repeat` repeats, each timing `number` back-to-back calls with a steady clock;
//      a repeat's result is its total time divided by `number` (seconds per call).
// The statistics are over the repeats. Hardware counters (profile_counters.h), when
// requested, cover exactly the timed calls of step 3. The same function times kernels in
// process and inside the isolated worker, so both modes mean the same thing.
#pragma once

#include "core/codegen/profile_counters.h"
#include "core/ir/diagnostic.h"

#include <functional>
#include <string>
#include <vector>

namespace loopscape::codegen {

struct TimingOptions {
  int warmup = 1;           ///< untimed calls before measuring
  int repeat = 5;           ///< measurements, each of `number` calls
  int number = 0;           ///< calls per repeat; 0 = choose from minRepeatMs
  double minRepeatMs = 100; ///< with number == 0: the least duration of one repeat
  bool counters = true;     ///< read hardware counters around the timed calls
  /// > 0: a kernel whose first call takes longer than this many seconds is not timed
  /// further: that call is its only repeat (the tuner: a candidate many times slower than
  /// its best needs no precise time). With a warm-up, a slow first call (cold) is followed
  /// by a second one, and only a slow second call is cut, as the only repeat.
  double slowCutoffSeconds = 0;
  /// One call, nothing else: warmup 0, repeat 1, number 1, no counters (verification).
  static TimingOptions single() { return {0, 1, 1, 0, false}; }
};

/// Seconds per call of each repeat, and their statistics.
struct TimingResult {
  std::vector<double> perRepeat; ///< seconds per call, one entry per repeat, in run order
  int number = 0;                ///< calls per repeat actually used
  CounterReport counters;        ///< over all timed calls (available == false with a note)
  bool countersRequested = false;
  /// A run of several kernel calls in sequence (runner_protocol.h's multi-call requests):
  /// the median seconds of each call over every run of the sequence; empty otherwise.
  std::vector<double> callSeconds;

  double min() const;
  double max() const;
  double median() const; ///< of perRepeat (mean of the middle two for an even count)
  double mean() const;
  /// Sample standard deviation (0 for a single repeat).
  double stddev() const;
  /// (max - min) / median, the spread as a fraction.
  double spread() const;
};

/// Times `call` as described above. The first failing call's Diagnostic is returned.
/// Requires repeat >= 1, warmup >= 0, number >= 0.
Expected<TimingResult> timeCalls(const std::function<Expected<void>()>& call, const TimingOptions& options);

} // namespace loopscape::codegen
