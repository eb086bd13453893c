// GPU lowering: what `lower` (lower.h) does for a "gpu" device kind (TVM's SplitHostDevice
// + VerifyGPUCode, for one kernel per function), in two passes:
//
// lowerGpuKernel, on the body after lowerBlocks (N-d buffers): the body of a scheduled
// PrimFunc whose loops are bound with sch.bind becomes the body of ONE device kernel as
// one thread runs it, plus its launch (GpuKernel in lowered_func.h, which states what the
// result guarantees). Each bound loop is removed and its variable replaced by the tag's
// index (`threadIdx_x`, plus the loop's min); the on-chip Allocates stay where they are.
//
// placeOnChipBuffers, on the flattened kernel: the shared Allocates become
// GpuKernel::shared; shared and local sizes are checked against the limits.
//
// The kernel is the statement under the outermost bound loop; around it only Allocates
// and no-ops may remain (the host part is the launch). Checks, in this order, each a
// Diagnostic naming the loop, block or buffer (IrReference):
//   codegen.gpu-global-intermediate  an intermediate buffer in "global" scope (the kernel
//                                    only allocates "shared" and "local" memory)
//   codegen.gpu-unbound-loop         a loop left unbound outside the kernel (it encloses a
//                                    bound loop), named with its block
//   codegen.gpu-no-binding           a block outside every bound loop
//   codegen.gpu-several-kernels      two statements at the top each bound (lower() splits
//                                    such a function into kernels first, lower_gpu_split.h)
//   codegen.gpu-bad-thread-tag       a tag other than blockIdx/threadIdx/vthread .x/.y/.z
//   codegen.gpu-dynamic-extent       a bound loop whose min or extent is not a constant,
//                                    or whose extent is below 1
//   codegen.gpu-inconsistent-extent  one tag bound with two extents
//   codegen.gpu-nested-binding       a loop bound inside a loop bound to the same tag
//                                    whose body uses the outer loop's variable (on the
//                                    GPU both are one index; serially every pair runs)
//   codegen.gpu-thread-limit         threads per block, or one threadIdx extent, over the
//                                    target's limit (GpuLimits); gpu-grid-limit likewise
//   codegen.gpu-shared-limit         the shared buffers over the per-block limit, or of
//                                    symbolic size; gpu-local-limit for "local" per thread
// vthread loops become Serial loops (with a remark each); Vectorized loops are left for
// vectorizeLoops (lower.h), which the GPU lowering runs with at most 4 lanes.
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/codegen/target.h"
#include "core/ir/diagnostic.h"

#include <vector>

namespace loopscape::codegen {

struct GpuLowering {
  ir::Stmt body;    ///< the kernel as one thread runs it
  GpuKernel kernel; ///< its launch and on-chip memory
};

/// The first pass (see the file comment), on a body after lowerBlocks; `remarks` gets one
/// line per loop that changed kind. The result's kernel has no shared buffers yet.
Expected<GpuLowering> lowerGpuKernel(const ir::Stmt& body, const GpuLimits& limits, std::vector<Remark>& remarks);

/// The second pass, on the flattened kernel body: fills kernel.shared, sharedBytes and
/// localBytes, checks them (gpu-shared-limit, gpu-local-limit) and removes the shared
/// Allocates.
Expected<ir::Stmt> placeOnChipBuffers(const ir::Stmt& body, const GpuLimits& limits, GpuKernel& kernel);

} // namespace loopscape::codegen
