// The apply functions of the compute-location family (compute_at.cpp: compute_at,
// reverse_compute_at; compute_inline.cpp: compute_inline, reverse_compute_inline), put
// in the instruction table by compute_location.cpp.
#pragma once

#include "core/schedule/instruction.h"

namespace loopscape::schedule {

Expected<std::vector<RV>> applyComputeAt(Schedule& sch, const std::vector<TraceValue>& inputs,
                                         const std::vector<TraceValue>& attrs);
Expected<std::vector<RV>> applyReverseComputeAt(Schedule& sch, const std::vector<TraceValue>& inputs,
                                                const std::vector<TraceValue>& attrs);
Expected<std::vector<RV>> applyComputeInline(Schedule& sch, const std::vector<TraceValue>& inputs,
                                             const std::vector<TraceValue>& attrs);
Expected<std::vector<RV>> applyReverseComputeInline(Schedule& sch, const std::vector<TraceValue>& inputs,
                                                    const std::vector<TraceValue>& attrs);

} // namespace loopscape::schedule
