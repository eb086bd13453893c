// GPU lowering: cross-thread reductions (TVM's LowerCrossThreadReduction, with a
// shared-memory tree instead of tvm_thread_allreduce). Runs for device kind "gpu" before
// lowerBlocks, on the scheduled body (blocks still present).
//
// A cross-thread reduction is a reduction block (sch.bind of one of its reduce loops to
// threadIdx.*) whose reduce loops form a perfect nest directly around it: the "reduce
// nest", from the outermost loop whose variable feeds a reduce binding down to the block,
// every loop feeding only reduce bindings, exactly one of them bound to threadIdx.* (the
// others serial, unrolled, vectorized or vthread: the part one thread reduces). The nest
// becomes, where it stood (T = the extent of the bound reduce loop):
//
//   <block>_red_local[0] = <init>                         (a "local" buffer: per thread)
//   <reduce nest>: <block>_red_local[0] = comb(<block>_red_local[0], <value>)
//   for t in thread_binding(T, <tag>):   red[slot(t)] = <block>_red_local[0]
//   for t in thread_binding(T, <tag>):   if t < T - P: red[slot(t)] = comb(red[slot(t)], red[slot(t) + P])
//   for t in thread_binding(T, <tag>):   if t < s: red[slot(t)] = comb(red[slot(t)], red[slot(t) + s])
//                                        ... for s = P/2, P/4, ..., 1
//   <out>[<indices>] = red[slot(0)]
//
// with red = <block>_red_shared, a "shared" buffer with one element per thread of the
// block, P the largest power of two <= T (the first step only when P < T). Every other
// threadIdx tag the function binds (extent > 1) that does not enclose the reduction
// encloses each step as a loop bound to it, so that each thread of the block has its own
// slot; a threadIdx loop enclosing the reduction is part of the slot. After lowerGpuKernel
// every thread runs the steps; insertSharedBarriers (lower_storage_sync.h) puts a barrier
// between two steps (each reads what the other threads wrote) and before the write-back,
// which lowerGpuKernel's single-thread guard gives to thread 0 (a "local" output is written
// by every thread).
//
// The combiner is recognised from the block body `out[idx] = comb(out[idx], value)` (or
// `comb(value, out[idx])`) with comb one of +, *, max, min, and the init must be its
// identity (0, 1, the lowest / highest value of the type or -inf / +inf): each thread's
// part starts from it. Errors, Diagnostic "codegen.gpu-cross-thread-reduction" naming the
// block and the bound loop:
//   * the block body is not such an update, or the init is not the identity;
//   * the reduce nest is not perfect (a reduce loop feeding the block encloses other
//     statements), holds a loop feeding a spatial binding, or binds two reduce loops to
//     threads;
//   * the reduction sits under a condition (a block predicate or an if outside the
//     nest): some threads would not reach the barriers.
// A block whose reduce loops are not bound to threadIdx is left for lowerBlocks.
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/ir/diagnostic.h"
#include "core/ir/stmt.h"

#include <vector>

namespace loopscape::codegen {

/// The pass; `remarks` gets one line per cross-thread reduction (on its bound loop).
Expected<ir::Stmt> lowerCrossThreadReductions(const ir::Stmt& body, std::vector<Remark>& remarks);

} // namespace loopscape::codegen
