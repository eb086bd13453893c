// Lowering pass 7: vectorization. A Vectorized loop `for v in [min, min + L)` whose body
// can be vectorized becomes that body executed once on vectors of L lanes (TVM's
// VectorizeLoop): v becomes Ramp(min, 1, L); a load or store whose flat index is affine
// in v with stride 1 becomes a vector access with index Ramp(base, 1, L); loop-invariant
// scalars stay scalar and are Broadcast where they meet a vector. Vector statements keep
// statement order: each statement runs for all lanes before the next one.
//
// The body is vectorizable when it is made of stores, sequences, block markers,
// conditions that do not depend on v, and serial or unrolled loops whose bounds do not
// depend on v; every store is contiguous in v (stride 1); every load is contiguous or
// invariant; a buffer the loop writes is read only at the element it writes (same index),
// and that index does not use the variable of a loop inside, so no lane sees another
// lane's result and the lanes are independent. Loops inside then run once, on vectors
// (outer-loop vectorization: `for v: for r: C[v] += A[v + r] * w[r]` becomes
// `for r: C[v0:v0+L] += A[v0+r:v0+r+L] * Broadcast(w[r])`), which is the same result
// since no lane's work depends on another's. The operations are
// arithmetic, min/max, comparisons, logic, select and casts, and the calls fma, fabs,
// sqrt, floor, ceil and round; no load sits under a Select branch or the right side of
// And/Or (a vector would evaluate it for every lane, possibly out of bounds), except, with
// `maskedLoads` (a target that masks them, TargetCapabilities::maskedLoads), a Select
// branch's loads that move with the loop (one element per lane) and nothing else in the
// branch that could trap (an integer division by a variable): the target loads only the
// lanes whose condition holds (the false branch: fails), so a padded conv2d's
// T.if_then_else(1 <= w and w < 57, data[...], 0) becomes a masked vector load. Otherwise
// the loop stays a Serial loop and a Remark names the loop and the first reason, e.g.
// "vectorize fell back to a scalar loop: the body calls T.exp". An extent of 1 is
// replaced by its single iteration; a non-constant extent or one above `maxLanes` falls
// back too.
#pragma once

#include "core/codegen/lowered_func.h"

namespace loopscape::codegen {

ir::Stmt vectorizeLoops(const ir::Stmt& body, int maxLanes, std::vector<Remark>& remarks, bool maskedLoads = false);

} // namespace loopscape::codegen
