// Internals of the blockize/transform_layout family: the apply functions live in
// blockize.cpp and transform_layout.cpp, the registry rows in blockize_layout.cpp.
#pragma once

#include "core/schedule/instruction.h"

namespace loopscape::schedule::detail {

Expected<std::vector<RV>> applyBlockize(Schedule& sch, const std::vector<TraceValue>& inputs,
                                        const std::vector<TraceValue>& attrs);
Expected<std::vector<RV>> applyTransformLayout(Schedule& sch, const std::vector<TraceValue>& inputs,
                                               const std::vector<TraceValue>& attrs);

} // namespace loopscape::schedule::detail
