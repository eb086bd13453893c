#include "core/codegen/cancel.h"

#include <string>

namespace loopscape::codegen {

Diagnostic cancelledDiagnostic(std::string_view stage) {
  return Diagnostic::error(std::string(kCancelledCode), "cancelled while " + std::string(stage));
}

bool isCancelled(const Diagnostic& d) { return d.code == kCancelledCode; }

} // namespace loopscape::codegen
