// Internal to core/poly: the isl scheduler step of poly_auto, on an extracted Scop (isl
// types). Split from polyAuto so that callers that already hold the dependences (the
// benchmark, the poly primitives) do not compute them twice.
#pragma once

#include "core/poly/dependences.h"
#include "core/poly/poly_schedule.h"
#include "core/poly/scop.h"

#include <isl/cpp.h>

namespace loopscape::poly {

/// The schedule tree isl computes for `scop` with `options` (dependences computed here).
/// Errors: "schedule.poly_auto.bad-option", "poly.quota", "poly.isl".
Expected<isl::schedule> computeIslSchedule(const Scop& scop, const PolyAutoOptions& options);

/// The same with the dependences of `scop` given: validity = coincidence = RAW + WAR +
/// WAW, proximity = RAW.
Expected<isl::schedule> computeIslSchedule(const Scop& scop, const Dependences& deps, const PolyAutoOptions& options);

} // namespace loopscape::poly
