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
//     loads/stores with a Ramp index) and remain Serial with a remark where it could not
//     be; ThreadBinding loops only for GPU targets (a CPU target refuses them, naming the loop);
//   * symbolic sizes are int64 scalar parameters, in `sizeVars` order.
//   * block markers (added with lower_blocks.h): an Evaluate whose value is a StringImm is
//     a no-op that marks where a block's statements start; the string is the block name
//     ("C") or, before its reduction init, "<name>.init" ("C.init"). Targets print them as
//     comments (or ignore them); Evaluate(IntImm 0) is the plain no-op.
#pragma once

#include "core/ir/prim_func.h"

#include <string>
#include <vector>

namespace loopscape::codegen {

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
};

} // namespace loopscape::codegen
