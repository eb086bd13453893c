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
// A scan (which create_prim_func does not lower; we lower it as TVM's scan semantics
// imply) becomes one buffer named after the scan, written by the init block (named
// after the init compute, time loop [0, k)) and then by the update block (named after the
// update compute, time loop [k, m)), whose loads of the state placeholder read that same
// buffer; every iterator is spatial and the time loop carries the recurrence. The state,
// init and update tensors get no buffer of their own.
#pragma once

#include "core/frontend/te_program.h"
#include "core/ir/prim_func.h"

namespace loopscape::frontend {

Expected<ir::PrimFunc> lowerTe(const TeProgram& program);

} // namespace loopscape::frontend
