// Lowering: a scheduled PrimFunc brought down to a LoweredFunc (lowered_func.h states
// what the result guarantees). `lower` runs the passes below in order, Halide-style; each
// pass is one free function in its own lower_*.h:
//
//   1. checkThreadBindings  (lower_thread_check.h)  CPU targets refuse ThreadBinding loops
//   2. lowerBlocks          (lower_blocks.h)        blocks -> statements, init placement,
//                                                    predicates, Allocate, block markers
//   3. makeSizeParams       (lower_flatten.h)       symbolic sizes -> int64 parameters
//   4. flattenBuffers       (lower_flatten.h)       N-d accesses -> 1-D strided offsets
//   5. unrollLoops          (lower_unroll.h)        Unrolled loops with constant extent
//   6. simplify             (core/ir/simplify.h)    canonical affine indices
//   7. partitionLoops       (lower_partition.h)     serial loops split where conditions
//                                                    on them (padding) are decided
//   8. vectorizeLoops       (lower_vectorize.h)     Vectorized loops -> Ramp/Broadcast
//                                                    (7 and 8: CPU device kinds only)
// and for device kind "gpu", first:
//   0. splitGpuKernels      (lower_gpu_split.h)     several bound top loops -> one
//                                                    lowering per kernel (moreKernels)
// and before 2:
//   1a. lowerCrossThreadReductions (lower_cross_thread.h) reductions over a threadIdx
//                                   loop -> per-thread part + shared-memory tree
// and after 2:
//   2a. lowerGpuKernel       (lower_gpu.h)          bound loops -> one kernel + launch
//       boundLoopCheck       (gpu_bound_loop_check.h) no bound loop carries a dependence
//                                                    (when a check is installed)
//   2b. compactOnChipBuffers (lower_compact.h)      shared/local caches -> tile shape
// and instead of 7 and 8:
//   7. placeOnChipBuffers   (lower_gpu.h)           shared buffers listed, sizes checked
//   8. vectorizeLoops       (lower_vectorize.h)     at most kGpuMaxVectorLanes lanes: the
//                                                    GPU printers make an aligned
//                                                    contiguous access one float2/float4
//   9. insertSharedBarriers (lower_storage_sync.h)  barriers for shared buffers
//
// With LowerOptions::trace the IR is logged after every pass (ir::printStmt). A stop
// requested through LowerOptions::stop is seen between passes ("codegen.cancelled",
// cancel.h).
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/codegen/target.h"
#include "core/ir/diagnostic.h"

#include <functional>
#include <stop_token>
#include <string>
#include <string_view>

namespace loopscape::codegen {

/// The widest vector of a GPU kernel (float4, int4); a longer Vectorized loop falls back
/// to a Serial loop with a remark.
inline constexpr int kGpuMaxVectorLanes = 4;

struct LowerOptions {
  /// The device the code is for (Target::deviceKind()): "cpu" refuses ThreadBinding loops
  /// (Diagnostic "codegen.thread-binding-on-cpu"); "gpu" lowers them to one kernel (lower_gpu.h).
  std::string deviceKind = "cpu";
  /// For "gpu": the target's limits on one kernel (TargetCapabilities::gpu).
  GpuLimits gpuLimits;
  /// Log the IR after each pass through `log` (stderr when `log` is empty).
  bool trace = false;
  std::function<void(std::string_view pass, std::string_view ir)> log;
  /// Widest vector a Vectorized loop may become; a longer constant extent falls back to a
  /// Serial loop with a remark (split the loop first).
  int maxVectorLanes = 64;
  /// The target masks vector loads in a vector Select's branches (TargetCapabilities::
  /// maskedLoads): such loads may then be vectorized (lower_vectorize.h).
  bool maskedLoads = false;
  /// Cancels the lowering between passes (cancel.h).
  std::stop_token stop;
};

/// Lowers `func` (a scheduled PrimFunc, root block "root") to a LoweredFunc. Errors:
/// "codegen.thread-binding-on-cpu" (names the loop); for "gpu" those of lower_gpu.h. The name is the sanitised function
/// name with "_kernel" appended ("main" -> "main_kernel").
Expected<LoweredFunc> lower(const ir::PrimFunc& func, const LowerOptions& options = {});

/// `name` with every character outside [A-Za-z0-9_] replaced by '_' (and a leading '_'
/// when it starts with a digit or is empty), prefixed with "v_" when it is a reserved C
/// name (isReservedCName): a valid C identifier that no header of a kernel redefines.
std::string sanitizeIdentifier(std::string_view name);

/// Whether a generated identifier `name` would collide with C itself: a keyword, a name
/// reserved for the implementation (`__x`, `_X`), a macro of the headers a kernel
/// includes (INFINITY, NULL, INT32_MAX, M_PI, isnan, linux, ...) or an OpenMP name.
bool isReservedCName(std::string_view name);

} // namespace loopscape::codegen
