// The one factory of schedules for every entry point (the CLI's commands, the workbench,
// the tests' helpers, the benchmarks, later the tuner): a Schedule with the legality
// policy installed, so that the same trace is accepted or refused the same way wherever
// it is applied. The policy is the exact dependence check (legality.h) unless the user
// asked for none (`--no-verify-legality`); reports name the policy a schedule ran under.
// The poly instruction kinds are registered here too, so traces may use them.
#pragma once

#include "core/schedule/schedule.h"

namespace loopscape::poly {

/// A schedule of `func` under `policy`.
schedule::Schedule makeSchedule(ir::PrimFunc func, schedule::LegalityPolicy policy = schedule::LegalityPolicy::Exact,
                                std::uint64_t seed = 1);
/// The same, sharing an existing state of the original (its analyses).
schedule::Schedule makeSchedule(schedule::StatePtr original,
                                schedule::LegalityPolicy policy = schedule::LegalityPolicy::Exact,
                                std::uint64_t seed = 1);

/// Replays `trace` on makeSchedule(func, policy, seed).
Expected<schedule::Schedule> replaySchedule(const ir::PrimFunc& func, const schedule::Trace& trace,
                                            schedule::LegalityPolicy policy = schedule::LegalityPolicy::Exact,
                                            std::uint64_t seed = 1);

/// "exact legality check" or "legality not verified (--no-verify-legality)": how a report
/// names the policy.
const char* legalityPolicyName(schedule::LegalityPolicy policy);

} // namespace loopscape::poly
