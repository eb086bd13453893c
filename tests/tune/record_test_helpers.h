// Shared by the tuning tests: a successful tuning record of a schedule's trace.
#pragma once

#include "core/schedule/schedule.h"
#include "core/tune/records.h"

namespace loopscape::testing {

/// A verified record of `sch`'s trace on its original program: cpu-llvm, 2 threads, family
/// "tir", sketch "tir(C: tile)"; the caller sets the times, GFLOP/s and trial.
inline tune::Record tirRecord(const schedule::Schedule& sch) {
  tune::Record r;
  r.workload = tune::workloadKey(sch.original());
  r.func = "main";
  r.target = "cpu-llvm";
  r.threads = 2;
  r.family = "tir";
  r.sketch = "tir(C: tile)";
  r.trace = sch.trace();
  r.verified = true;
  return r;
}

} // namespace loopscape::testing
