// Applying a sketch (space.h) to a schedule: the TIR rules (auto-inline, multi-level
// tiling with write reuse, rfactor, compute location), their post-steps (parallel,
// decompose, vectorize, unroll), and the polyhedral sketch (poly_optimize). space.h's
// comment describes each rule; this is the one place that applies them.
#pragma once

#include "core/schedule/program_state.h"
#include "core/tune/space.h"

namespace loopscape::tune {

/// The integers of a list value (a tile decision); nullopt for anything else.
std::optional<std::vector<std::int64_t>> intListOf(const schedule::TraceValue& value);

/// space.h's `generate` on a state of the original (shared by every candidate, with its
/// analyses).
Expected<schedule::Schedule> applySketch(const schedule::StatePtr& original, const Sketch& sketch,
                                         const SpaceOptions& options, const Decisions& forced, std::uint64_t seed);

} // namespace loopscape::tune
