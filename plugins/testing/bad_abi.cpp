// Test-only plugin: reports an ABI version the host does not expect, so that the registry
// test can check the refusal message. Its factory must never be called.
#include "core/codegen/target.h"

#include <cstdlib>

extern "C" int loopscape_target_abi_version() { return loopscape::codegen::kTargetAbiVersion + 41; }

extern "C" loopscape::codegen::Target* loopscape_create_target() {
  std::abort(); // the registry refuses this plugin before calling the factory
}
