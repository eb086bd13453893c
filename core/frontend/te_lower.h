// Lowering of an evaluated .te program to a PrimFunc, following TVM's
// te.create_prim_func: parameters are the placeholders in definition order, then the
// outputs; other computes become alloc_buffers of the root block "root"; one block per
// compute, in definition order, named after it, under serial loops named after the
// lambda parameters and then the reduce axes; block iterators `v_<loop>` bound to the
// bare loop variables (spatial for parameters, reduce for axes); a reduction gets an
// init (0 for sum, the lowest / highest finite value for max / min) and the body
// `C[v] = C[v] + x` (T.max / T.min for max / min). Reads list each buffer read by the
// body once (accumulator excluded), in order of first appearance; several accesses of a
// buffer are joined per dimension (constant offsets of one base: [base+lo, base+hi];
// otherwise the whole dimension). The function carries "tir.noalias" = True.
#pragma once

#include "core/frontend/te_program.h"
#include "core/ir/prim_func.h"

namespace loopscape::frontend {

Expected<ir::PrimFunc> lowerTe(const TeProgram& program);

} // namespace loopscape::frontend
