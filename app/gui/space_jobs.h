// Computing what the iteration-space view draws (views/iteration_space_view.h): plain C++
// run inside background jobs. A slice of a program state (poly::iterationSpace), and the
// preview of a step the Primitives panel is about to apply: the step is applied to a copy
// of the session's schedule with its legality verifier; the slice of the state before the
// step is ordered by the state after it; a step the verifier refuses is applied again
// unverified (when the primitive itself allows it) to order the slice, and its
// counterexample is placed in a slice of the source's block that shows it.
#pragma once

#include "core/poly/iteration_space.h"
#include "core/schedule/schedule.h"
#include "views/iteration_space_view.h"
#include "views/primitive_request.h"

#include <memory>
#include <stop_token>
#include <string>

namespace loopscape::gui {

struct SpaceJobResult {
  std::shared_ptr<const views::SpaceDrawing> drawing; ///< null on error
  std::string error;                                  ///< why there is no drawing
  bool cancelled = false;
};

/// The slice `request` of `state`.
SpaceJobResult computeSpace(const schedule::StatePtr& state, const poly::IterationSpaceRequest& request,
                            std::stop_token stop);

/// The preview of `step` on `before` (the session's current schedule, its verifier
/// installed): `request` is the view's slice of the current state; for a step refused
/// with a counterexample, the slice becomes the source's block on the same axes when that
/// block has them, else on its first two iterators, with the loops fixed where the
/// source runs.
SpaceJobResult computeStepPreview(const schedule::Schedule& before, const views::PrimitiveRequest& step,
                                  const poly::IterationSpaceRequest& request, std::stop_token stop);

} // namespace loopscape::gui
