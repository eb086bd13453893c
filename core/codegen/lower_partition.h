// Lowering pass (CPU): loop partitioning, as TVM's LoopPartition and Halide's boundary
// splitting. A Serial loop with constant bounds whose body holds conditions on its
// variable (the condition of a T.if_then_else / select or of an `if`, split at `and`,
// `or`, `not` into comparisons; orderings <, <=, >, >= only, so the `k == 0` guard of a
// reduction init peels nothing) that the bounds decide on parts of its range but not on
// the whole (padding, image borders) becomes consecutive loops over those parts, in the
// original order: `for i in range(112)` with `1 <= i` and `i + 2 < 113` becomes
// [0, 1), [1, 111), [111, 112). The simplifier then drops the conditions in each part,
// so the interior loads are plain and the loops inside it vectorize.
//
// The split points come from the Analyzer: for each comparison, the largest prefix or
// suffix of the range on which it is proven true (or false). The rewrite runs the same
// iterations in the same order whatever the analysis finds; only what the simplifier can
// fold afterwards depends on it. A loop is partitioned only when the stores with such
// conditions (in their value or in an enclosing `if`) are at least half of the store
// instances of one iteration: a tile loop around a padding stage computed at it and a
// larger unconditional nest stays whole. Limits, for the compile time (LLVM's grows faster
// than the code: a tuned conv layer with its padding inlined compiled in 0.8 s whole and in
// 7 s with one loop of 64 statements in three parts, for a 2.3x faster kernel): a loop gets
// at most 5 parts and is copied only if its body has at most 32 statements, the loops along
// one path multiply the copies of a body by at most 9 (3 x 3: two padded axes), and the
// copies add at most 128 statements to the function (outer loops first: a loop past a limit
// stays whole). Each partitioned loop gets a Remark with its parts.
#pragma once

#include "core/codegen/lowered_func.h"

namespace loopscape::codegen {

ir::Stmt partitionLoops(const ir::Stmt& body, std::vector<Remark>& remarks);

} // namespace loopscape::codegen
