#include "core/codegen/gpu_bound_loop_check.h"

namespace loopscape::codegen {

namespace {
BoundLoopCheck& installed() {
  static BoundLoopCheck check;
  return check;
}
} // namespace

void setBoundLoopCheck(BoundLoopCheck check) { installed() = std::move(check); }

const BoundLoopCheck& boundLoopCheck() { return installed(); }

} // namespace loopscape::codegen
