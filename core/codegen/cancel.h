// Cancellation of long code generation operations. Every long operation of core/codegen
// and of the target plugins (lowering, building, running in the worker, verifying) takes
// a std::stop_token, through its options struct (LowerOptions, BuildOptions, RunOptions,
// VerifyOptions) or as a parameter (pipeline.h). A stop request makes it return promptly
// with the Diagnostic below: code "codegen.cancelled", message "cancelled while <stage>"
// ("lowering", "building", "running", "verifying"). Nothing it started is left behind (a
// compiler or worker process is killed and reaped).
#pragma once

#include "core/ir/diagnostic.h"

#include <string_view>

namespace loopscape::codegen {

inline constexpr std::string_view kCancelledCode = "codegen.cancelled";

/// "cancelled while <stage>", code kCancelledCode.
Diagnostic cancelledDiagnostic(std::string_view stage);

/// True for a Diagnostic made by cancelledDiagnostic.
bool isCancelled(const Diagnostic& d);

} // namespace loopscape::codegen
