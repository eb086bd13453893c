// The process-wide limits on what one input may cost: memory for interpreter and buffer
// storage, input file sizes, parser nesting depth, expanded expression size and unrolled
// statement count. Front ends, the interpreter, the schedule and code generation consult
// them and refuse with a Diagnostic that states the amount needed and the limit; the CLI
// (options) and the workbench may change them at start-up, before any work runs.
#pragma once

#include <cstdint>

namespace loopscape::ir {

struct ResourceLimits {
  /// Bytes one NDArray (argument, intermediate or interpreter buffer) may allocate, and
  /// the total the interpreter may hold at once.
  std::int64_t maxBufferBytes = std::int64_t{8} << 30;
  /// Bytes of a program, trace or session file.
  std::int64_t maxSourceFileBytes = std::int64_t{16} << 20;
  /// Bytes of an .npy input file (its header must also agree with its size).
  std::int64_t maxNpyFileBytes = std::int64_t{8} << 30;
  /// Nesting depth of expressions, brackets and JSON values in any parser.
  int maxNestingDepth = 200;
  /// Nodes of an expression once expanded into a tree (te's lambdas inline DAGs).
  std::int64_t maxExpressionNodes = 1'000'000;
  /// Statements that unrolling may create from one loop nest (TVM's auto_unroll_max_step
  /// bounds the same thing).
  std::int64_t maxUnrolledStatements = 65'536;
};

/// The limits in force (defaults above until setResourceLimits).
const ResourceLimits& resourceLimits();
/// Replaces the limits; call before starting work on other threads.
void setResourceLimits(const ResourceLimits& limits);

} // namespace loopscape::ir
