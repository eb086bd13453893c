// GPU lowering: barriers for "shared" buffers (TVM's ThreadSync pass for the shared
// scope, simplified). Runs on the kernel body of lower_gpu.h, where every thread of a
// block runs every statement outside an IfThenElse.
//
// Placement, in each statement sequence (recursively, not inside IfThenElse):
//   * before a statement that reads a shared buffer written by an earlier statement of
//     the sequence since the last barrier (read after write: other threads' elements),
//     or writes one read since then (write after read);
//   * at the end of a loop's body when the body both writes and reads one shared buffer
//     (the next iteration would overwrite what another thread still reads).
// Accesses inside the single-thread guard of lower_gpu.h (`threadIdx_x == 0 && ...` over
// every threadIdx tag) are one thread's: among themselves they need no barrier (a
// reduction that thread 0 runs into a shared buffer gets none per iteration). Otherwise it
// is conservative: a buffer element written and read by the same thread also gets one.
// Two writes of one buffer by every thread get none (as in TVM: each thread is taken to
// write its own elements). A barrier is Evaluate(StringImm(kBarrierMarker)) (lowered_func.h); it is never
// placed inside an IfThenElse, so every thread of the block reaches it.
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/ir/stmt.h"

namespace loopscape::codegen {

/// The barrier statement.
ir::Stmt makeBarrier();
/// Whether `s` is one.
bool isBarrier(const ir::Stmt& s);

/// The pass.
ir::Stmt insertSharedBarriers(const ir::Stmt& kernelBody, const GpuKernel& kernel);

} // namespace loopscape::codegen
