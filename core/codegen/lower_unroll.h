// Lowering pass 5: unrolling. An Unrolled loop with a constant extent becomes the
// sequence of its bodies with the loop variable replaced by min, min + 1, ... (an extent
// of 0 becomes the no-op Evaluate(0)). An Unrolled loop whose extent is not a constant
// stays a Serial loop, with a Remark naming the loop and its extent; so does one whose
// copies would hold more than ResourceLimits::maxUnrolledStatements statements (TVM's
// auto_unroll_max_step; the Remark gives the count and the limit).
#pragma once

#include "core/codegen/lowered_func.h"

namespace loopscape::codegen {

ir::Stmt unrollLoops(const ir::Stmt& body, std::vector<Remark>& remarks);

/// Statements in `s`, every nesting level counted, except sequences and the block markers
/// (comments in the generated code): what the unrolling limit counts.
std::int64_t countLoweredStatements(const ir::Stmt& s);

} // namespace loopscape::codegen
