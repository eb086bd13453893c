#include "core/ir/resource_limits.h"

namespace loopscape::ir {

namespace {
ResourceLimits& current() {
  static ResourceLimits limits;
  return limits;
}
} // namespace

const ResourceLimits& resourceLimits() { return current(); }

void setResourceLimits(const ResourceLimits& limits) { current() = limits; }

} // namespace loopscape::ir
