// GPU thread bindings against the dependences of the program: a loop bound to
// blockIdx.* or threadIdx.* runs its iterations at the same time on the GPU, so it must
// carry no dependence (dependences.h: a dependence is carried by a loop when two of its
// instances agree on every loop outside it but not on it). One exception: a loop bound to
// threadIdx.* that feeds only reduce bindings of a reduction block may carry that block's
// dependences on its own output (update -> update on the buffer it writes): that is a
// cross-thread reduction, which the GPU lowering turns into a shared-memory tree
// (core/codegen/lower_cross_thread.h). On-chip buffers have one copy per thread ("local")
// or per block ("shared"): a WAR or WAW on such a buffer carried by a loop whose iterations
// get their own copies orders nothing and is not refused (a RAW is: a thread or block would
// read a value it never wrote). Accesses to a "shared" buffer by the threads of one block
// are ordered by the barriers (lower_storage_sync.h), not by this check. vthread loops run
// serially and are not checked.
//
// core/codegen cannot depend on core/poly (DESIGN.md), so the GPU lowering calls this
// through the hook of core/codegen/gpu_bound_loop_check.h, installed by whoever owns both
// (the CLI, the workbench, the tests).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"

namespace loopscape::poly {

/// Success when no bound loop of `func` carries a dependence (other than a cross-thread
/// reduction's), or when the program has no polyhedral model ("poly.non-affine",
/// "poly.unsupported": the lowering's own checks stand alone). Otherwise the Diagnostic
/// "codegen.gpu-bound-loop-dependence" for the first carried dependence (loops in program
/// order), e.g. "loop 'i' is bound to threadIdx.x but carries a RAW dependence on 'B' from
/// block 'B' to block 'B': B(i=0) and B(i=1), in different iterations of 'i', touch the
/// same element; the iterations of a bound loop run at the same time on the GPU", naming
/// the loop and the blocks. Other failures: "poly.isl".
Expected<void> checkBoundLoopDependences(const ir::PrimFunc& func);

} // namespace loopscape::poly
