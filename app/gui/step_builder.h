// Turning a PrimitiveRequest (IR nodes chosen in the views) into trace instructions on a
// Schedule: every loop or block input becomes an RV, reusing an RV the trace already
// bound to that node, else adding the lookups TVM users write (`b = sch.get_block("C")`,
// `i, j, k = sch.get_loops(b)`); then the primitive itself is applied. Runs on a copy of
// the session's schedule: on error the caller discards the copy, so nothing changes.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/schedule/schedule.h"
#include "views/primitive_request.h"

namespace loopscape::gui {

/// Applies `request` to `sch`; the nodes of the request must belong to `sch.func()`.
Expected<void> applyRequest(schedule::Schedule& sch, const views::PrimitiveRequest& request);

/// An RV of `sch` for the loop or block `node` (reused or looked up).
Expected<schedule::RV> rvForNode(schedule::Schedule& sch, const ir::StmtNode* node);

} // namespace loopscape::gui
