// Shared helpers of the core/poly tests: small programs (parsed from .te text or built by
// hand, like the 1-D stencil over time), and the brute-force legality oracle: it walks a
// lowered loop nest with concrete values, records every executed statement instance
// (block name or `<block>_init`, iterator values) with its concrete accesses, derives
// the RAW/WAR/WAW pairs of the original program from its access trace, and checks them
// (and the parallel/vectorized loops) against the execution of a scheduled program.
#pragma once

#include "core/ir/prim_func.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loopscape::polytest {

/// Parses .te source; the test fails (qFatal) on a parse error.
ir::PrimFunc parseProgram(const std::string& source);

/// A[t + 1, i] = A[t, i - 1] + A[t, i] + A[t, i + 1] for t in [0, steps), i in [1, n - 1):
/// one block "stencil" (spatial iterators v_t, v_i) reading and writing one buffer A of
/// shape (steps + 1, n). With `symbolic`, steps and n are size Vars "T" and "N". Loop
/// `markedLoop` (0: t, 1: i) gets `kind`.
ir::PrimFunc stencil1d(std::int64_t steps, std::int64_t n, bool symbolic = false, int markedLoop = -1,
                       ir::ForKind kind = ir::ForKind::Serial);

/// The verdict of the brute-force oracle: empty when legal, else a short description.
std::string bruteForceLegality(const ir::PrimFunc& original, const ir::PrimFunc& current);

} // namespace loopscape::polytest
