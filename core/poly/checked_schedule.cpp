#include "core/poly/checked_schedule.h"

#include "core/poly/legality.h"
#include "core/poly/poly_schedule.h"

namespace loopscape::poly {

schedule::Schedule makeSchedule(ir::PrimFunc func, schedule::LegalityPolicy policy, std::uint64_t seed) {
  return makeSchedule(schedule::ProgramState::make(std::move(func)), policy, seed);
}

schedule::Schedule makeSchedule(schedule::StatePtr original, schedule::LegalityPolicy policy, std::uint64_t seed) {
  registerPolyInstructionKinds(); // idempotent
  schedule::Schedule sch(std::move(original), seed);
  if (policy == schedule::LegalityPolicy::Exact) installLegalityVerifier(sch);
  return sch;
}

Expected<schedule::Schedule> replaySchedule(const ir::PrimFunc& func, const schedule::Trace& trace,
                                            schedule::LegalityPolicy policy, std::uint64_t seed) {
  return schedule::replayTrace(makeSchedule(func, policy, seed), trace);
}

const char* legalityPolicyName(schedule::LegalityPolicy policy) {
  switch (policy) {
  case schedule::LegalityPolicy::Exact: return "exact legality check";
  case schedule::LegalityPolicy::Unverified: return "legality not verified (--no-verify-legality)";
  }
  return "";
}

} // namespace loopscape::poly
