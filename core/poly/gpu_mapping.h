// poly_auto(target="gpu"): PPCG's mapping of an isl schedule onto the GPU, as bind
// annotations on the regenerated loops (core/poly internal: isl types).
//
// Tree step (mapScheduleToGpu), for every outermost band of the computed schedule (one
// kernel each):
//   1. the band's leading coincident members (at most 3) are the mapped members; a band
//      whose first member is not coincident is refused ("schedule.poly_auto.
//      no-coincident-member", naming the band's loops and blocks), as is a statement under
//      no band ("schedule.poly_auto.no-band");
//   2. the band is tiled (all of its members when it is permutable, the mapped ones
//      otherwise) with the `tile` sizes (leading; 32 by default, PPCG's --tile-size);
//   3. the mapped tile members are bound to blockIdx (innermost -> x, then y, z), the
//      other tile members stay sequential loops inside the block (a reduction's k tile);
//   4. the mapped point members are bound to threadIdx (innermost -> x). The threads of
//      a block are the tile's point sizes, halved from the outermost mapped member while
//      their product exceeds kGpuMaxThreads (threadIdx.z at most 64); a point member with
//      more points than threads is split into p mod b (the thread) and p / b, a
//      sequential loop inside the thread (PPCG's strided thread loops);
//   5. the remaining point members (non-coincident: a reduction's k) stay sequential
//      inside the thread.
// Each binding is a "thread_binding(<tag>)" mark above a one-member band, which code
// generation turns into a ThreadBinding loop (ast_to_tir.h). A member that takes a single
// value (a tile loop over a dimension no larger than its tile) has no loop and is not
// bound.
//
// Program step (finishGpuMapping), on the regenerated PrimFunc:
//   - a thread loop whose extent is not a constant (a partial tile: min(32, N - 32 * i))
//     runs over its constant bound with the body guarded by the loop's real end;
//   - an intermediate that only one nest (kernel) uses becomes "local" (set_scope) when
//     the bound-loop dependence check then accepts the program (each thread reads only
//     what it wrote: a fused elementwise chain, softmax's row max and sum); otherwise it
//     stays global, which the GPU lowering refuses naming it;
//   - the bound-loop dependence check (gpu_bound_loops.h), whose Diagnostic is returned;
//   - shared-memory promotion with the TIR primitives (as matmul_gpu.py does by hand):
//     an input that the block reads through an access that does not depend on one of the
//     thread loops (each element is read by several threads: matmul's A and B tiles, a
//     convolution's weights and input window) is cache_read into "shared" at the
//     innermost loop above the threads (the k tile loop, or the innermost block loop),
//     and its copy is mapped as PPCG maps copies: its innermost dimension of more than
//     one element on threadIdx.x, the next on threadIdx.y, ... (split where the tile is
//     wider than the threads, predicated where it is narrower), so the threads copy the
//     tile together. The barriers after the copies and before the next tile's copies
//     are inserted by the GPU lowering's storage-sync pass (lower_storage_sync.h).
//     Smallest tiles first; a promotion that a primitive refuses, or that would take the
//     shared buffers over kGpuSharedBytes, is skipped (with a note).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/poly/scop.h"

#include <isl/cpp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace loopscape::poly::detail {

/// Threads per block the mapping uses at most (every CUDA and OpenCL GPU target allows it).
inline constexpr std::int64_t kGpuMaxThreads = 1024;
/// Shared memory the promotion uses at most per block (CUDA's static limit: 48 KiB).
inline constexpr std::int64_t kGpuSharedBytes = 48 * 1024;
/// PPCG's default tile size.
inline constexpr std::int64_t kGpuDefaultTile = 32;

/// The mapped tree (see the file comment). `tile`: leading tile sizes, each positive.
/// Errors: "schedule.poly_auto.no-coincident-member", "schedule.poly_auto.no-band".
Expected<isl::schedule> mapScheduleToGpu(const isl::schedule& schedule, const Scop& scop,
                                         const std::vector<std::int64_t>& tile);

/// The program step (see the file comment); `notes` gets what was promoted or why not.
/// Errors: "schedule.poly_auto.gpu-extent" (a thread loop with no constant bound),
/// "codegen.gpu-bound-loop-dependence", "poly.isl".
Expected<ir::PrimFunc> finishGpuMapping(const ir::PrimFunc& func, bool promoteShared, std::vector<std::string>* notes);

} // namespace loopscape::poly::detail
