// LoweredFunc: a scheduled PrimFunc brought down to what a target plugin turns into code.
//
// The lowering passes (lower.h) guarantee, for the body of a LoweredFunc:
//   * no Block or BlockRealize: each block instance became its statements; a block's
//     predicate became an IfThenElse; a reduction init became a statement placed where
//     the block's reduce loops start (guarded by "every reduce iterator at its minimum"
//     when it could not be hoisted);
//   * every buffer access is flat: BufferLoad/BufferStore have exactly one index, the
//     row-major (or strided) offset, on a 1-D buffer from `flatParams` or an Allocate;
//   * intermediate buffers are Allocate statements whose buffer scope says where they
//     live: Local -> stack (small, constant size), Global/Shared -> aligned heap. Every
//     target zero-fills an Allocate's buffer where it starts, as the interpreter does, so
//     a program that reads an intermediate element before writing it (which TVM leaves
//     undefined) reads 0 on every backend;
//   * loop kinds: Serial, Parallel (a parallel region: iterations independent),
//     Unrolled loops are already unrolled (none remain), Vectorized loops are gone where
//     the body was vectorized (Ramp/Broadcast expressions of `lanes` lanes, vector
//     loads/stores with a Ramp index; with LowerOptions::maskedLoads also vector loads in
//     the branches of a vector Select, which the target must load only for the lanes the
//     branch is taken for) and remain Serial with a remark where it could not
//     be; no ThreadBinding loops (a CPU target refuses them, naming the loop; a GPU target
//     lowers them into `gpu`, below);
//   * symbolic sizes are int64 scalar parameters, in `sizeVars` order.
//   * block markers (added with lower_blocks.h): an Evaluate whose value is a StringImm is
//     a no-op that marks where a block's statements start; the string is the block name
//     ("C") or, before its reduction init, "<name>.init" ("C.init"). Targets print them as
//     comments (or ignore them); Evaluate(IntImm 0) is the plain no-op.
//
// For a GPU target (LowerOptions::deviceKind "gpu", lower_gpu.h) `gpu` is set and `body`
// is the device kernel as ONE thread runs it (the host part is the launch that `gpu`
// describes; every plugin prints the same form):
//   * no ThreadBinding loop remains: a loop bound to a tag was replaced by its body, its
//     variable by the tag's index variable of `gpu->axes` (plus the loop's min);
//     vthread loops became Serial loops; Vectorized loops are vectorized as for a CPU
//     (Ramp/Broadcast, vector loads and stores with a Ramp index), with at most 4 lanes;
//   * "shared" buffers are listed in `gpu->shared` (allocated once per thread block, not
//     zero-filled) and have no Allocate; "local" buffers are Allocates inside the body
//     (per thread, zero-filled); every other intermediate was refused;
//   * a store to a global or shared buffer that the serial program runs once per
//     thread-index value of fewer tags than the kernel launches is guarded so that one
//     thread runs it (`if (threadIdx_x == 0)`), as the serial program does;
//   * Evaluate(StringImm(kBarrierMarker)) is a barrier of the thread block
//     (__syncthreads / barrier(CLK_LOCAL_MEM_FENCE)), placed by lower_storage_sync.h
//     only where every thread of the block reaches it.
#pragma once

#include "core/ir/prim_func.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::codegen {

/// The text of the barrier statement Evaluate(StringImm(kBarrierMarker)) of a GPU kernel
/// (a block name never contains '@').
inline constexpr std::string_view kBarrierMarker = "@barrier.shared";

/// A variable of the kernel bound to a thread index: `var = min + <index of tag>`.
struct ThreadAxis {
  std::string tag; ///< "blockIdx.x", "threadIdx.y", ...
  ir::Expr var;    ///< an integer Var used by the kernel body
  std::int64_t min = 0;
};

/// The launch of a GPU kernel and its on-chip memory.
struct GpuKernel {
  std::array<std::int64_t, 3> grid{1, 1, 1};  ///< blockIdx.x/y/z extents
  std::array<std::int64_t, 3> block{1, 1, 1}; ///< threadIdx.x/y/z extents
  /// One int32 Var per launched tag (extent > 1), named like "threadIdx_x", min 0.
  std::vector<ThreadAxis> axes;
  std::vector<ir::Buffer> shared; ///< 1-D, constant size; allocated per thread block
  std::int64_t sharedBytes = 0;   ///< their total size
  std::int64_t localBytes = 0;    ///< the "local" Allocates of one thread, in total
};

/// A note for the user about a lowering decision (e.g. a vectorize that fell back).
struct Remark {
  std::string loop;    ///< the loop it is about, by name
  std::string message; ///< "vectorize fell back to a scalar loop: the body calls T.exp"
};

struct LoweredFunc {
  std::string name;                  ///< C symbol: "<func name>" sanitised, e.g. "main_kernel"
  std::vector<ir::Buffer> params;    ///< the PrimFunc's parameters (multi-dimensional), in order
  std::vector<ir::Buffer> flatParams; ///< one 1-D buffer per param, used by the body
  std::vector<ir::Expr> sizeVars;    ///< symbolic sizes (int64 Vars), after the buffer pointers
  ir::Stmt body;
  std::vector<Remark> remarks;
  /// Set for a GPU target: `body` is the device kernel of this launch (see above).
  std::optional<GpuKernel> gpu;
  /// For a GPU target, the kernels launched after this one, in order (lower_gpu_split.h):
  /// each a whole LoweredFunc of one kernel with the same params, flatParams and
  /// sizeVars, named "<name>_1", "<name>_2", ...; their remarks are in `remarks`. Each
  /// kernel finishes before the next starts.
  std::vector<LoweredFunc> moreKernels;
};

} // namespace loopscape::codegen
