// Primitive family: see families.h. Rows are added as the primitives are implemented.
#include "core/schedule/primitive/families.h"

namespace loopscape::schedule {

std::span<const InstructionKind> blockizeLayoutKinds() { return {}; }

} // namespace loopscape::schedule
