// Lowering pass (CPU, before unrolling): two versions of a register tile that may be
// partial. A register tile that does not divide its cache tile, or the extent, leaves an
// Unrolled loop whose extent is not a constant but is bounded by one:
// `T.min(11, 1023 - i_0 * 480 - i_1_0 * 12) + 1` is at most 12. Unrolling keeps such a loop
// serial (lower_unroll.h), and the register tile is lost on every tile. Here the code
// around it is copied: `if extent == 12:` the copy with a constant extent of 12, which
// unrolls, `else:` the copy with a serial loop (the partial tiles).
//
// The test goes as far out as it is invariant: above the serial loops between it and the
// unrolled loop whose variables the extent does not use (the reduction loop of a matmul's
// register tile: its accumulators then stay in registers across the whole strip). It stops
// at a loop or let that binds a variable of the extent, at a loop that is not serial
// (parallel, vectorized, thread-bound), and before the copied code would exceed
// kMaxVersionedStatements statements. Two such loops reaching the same point share one
// test (both at their full extent); loops in different statements of a sequence get one
// test each. Each versioned loop gets a Remark. The copies run the same iterations in the
// same order; only the unrolling differs.
#pragma once

#include "core/codegen/lowered_func.h"

namespace loopscape::codegen {

/// Statements (countLoweredStatements) that one version test may copy.
inline constexpr std::int64_t kMaxVersionedStatements = 64;

ir::Stmt versionPartialUnrolls(const ir::Stmt& body, std::vector<Remark>& remarks);

} // namespace loopscape::codegen
