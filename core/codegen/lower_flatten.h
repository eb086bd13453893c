// Lowering passes 3 and 4: size parameters and buffer flattening.
//
// makeSizeParams turns the PrimFunc's symbolic sizes into int64 scalar parameters: a
// size Var of another integer type is replaced everywhere by Cast(<its type>, <int64 Var
// of the same name>), so the kernel ABI always passes sizes as int64_t.
//
// flattenBuffers rewrites every BufferLoad/BufferStore to one index on a 1-D buffer:
// offset = sum_d index_d * stride_d with the buffer's strides (Buffer::strides when
// given, else compact row-major: stride_d = prod_{e>d} shape_e). The flat buffer keeps
// the name, dtype and scope; its one extent is the element count the offsets can reach
// (prod shape_d for compact buffers, 1 + sum_d (shape_d - 1) * stride_d for strided).
// Offsets are computed in int32 when the buffer's extent is a constant below 2^31, and
// in int64 otherwise (each index cast to int64 first), so they never overflow.
#pragma once

#include "core/ir/prim_func.h"
#include "core/ir/substitute.h"

#include <vector>

namespace loopscape::codegen {

struct SizeParams {
  std::vector<ir::Expr> vars; ///< int64 Vars, in PrimFunc::sizeVars() order
  ir::VarMap replace;         ///< old size Var -> its replacement (empty if already int64)
  ir::VarMap wide;            ///< old size Var -> the int64 Var itself (for int64 extents)
};
SizeParams makeSizeParams(const ir::PrimFunc& func);

struct FlatBuffers {
  std::vector<ir::Buffer> flatParams; ///< one 1-D buffer per parameter, in order
  ir::Stmt body;
};

/// Flattens `body` (already through lowerBlocks). Parameter and Allocate buffers get
/// their 1-D counterparts; `sizes` is applied to shapes, strides and the body.
FlatBuffers flattenBuffers(const ir::Stmt& body, const std::vector<ir::Buffer>& params, const SizeParams& sizes);

} // namespace loopscape::codegen
