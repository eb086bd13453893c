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
// generation turns into a ThreadBinding loop (ast_to_tir.h).
//
// Program step (finishGpuMapping), on the regenerated PrimFunc:
//   - a thread loop whose extent is not a constant (a partial tile: min(32, N - 32 * i))
//     runs over its constant bound with the body guarded by the loop's real end;
//   - shared-memory promotion with the TIR primitives (as matmul_gpu.py does by hand):
//     an input that the block reads through an access that does not depend on one of the
//     thread loops (each element is read by several threads: matmul's A and B tiles) is
//     cache_read into "shared" at the innermost sequential tile loop above the threads (or
//     the innermost block loop), and its copy loops are fused and split over the block's
//     threads, so the threads copy the tile together. The barriers before and after the
//     use are inserted by the GPU lowering's storage-sync pass (lower_storage_sync.h).
//     Promotion is skipped (with a note) where the copy would not fit kGpuSharedBytes.
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
/// Errors: "schedule.poly_auto.gpu-extent" (a thread loop with no constant bound).
Expected<ir::PrimFunc> finishGpuMapping(const ir::PrimFunc& func, bool promoteShared, std::vector<std::string>* notes);

} // namespace loopscape::poly::detail
