// Test-only plugin: the right ABI version but no `loopscape_create_target` symbol, so that
// the registry test can check the missing-symbol refusal.
#include "core/codegen/target.h"

extern "C" int loopscape_target_abi_version() { return loopscape::codegen::kTargetAbiVersion; }
