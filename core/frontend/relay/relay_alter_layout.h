// AlterOpLayout for x86, as TVM does it at opt_level 3. Every NCHW nn.conv2d (groups 1)
// becomes nn.contrib_conv2d_NCHWc on data in NCHW[x]c and a kernel in OIHW[x]i[y]o, so
// the innermost axis of its output is a block of y output channels that fills a vector.
// The blocked layout is carried through the ops that do not care (elementwise and
// broadcast ops, bias_add, the pools) and layout_transform is inserted at the borders:
// before the first conv, before any other op, and before the function's result.
// Every nn.dense becomes nn.contrib_dense_pack with its weight (N, K) packed as NC[b]n,
// (N / b, K, b), so b consecutive output features are one contiguous vector per k
// (TOPI's dense_pack); its result stays plain. Every NT nn.batch_matmul (TVM's default,
// transpose_b=True) becomes NN on its second operand transposed first: the transpose is
// injective (it fuses into the operand's producer), and the product's output columns
// are then contiguous in both operands (not a TVM rewrite; TVM vectorises the NT form).
// Block sizes follow TOPI's x86 fallback: y is the largest divisor of the output
// channels up to the SIMD lanes, x the largest divisor of the input channels up to y; b
// the largest divisor of the output features up to twice the lanes.
// The weights' layout_transform reads constants: FoldConstant (run after this pass)
// evaluates them once. New nodes are untyped: run inferTypes after.
#pragma once

#include "core/frontend/relay/relay_ir.h"

namespace loopscape::frontend::relay {

struct AlterLayoutOptions {
  int lanes = 16; ///< fp32 lanes of the target's vectors: the largest block
};

struct AlterLayoutCounts {
  int conv2d = 0; ///< convolutions now in NCHW[x]c
  int dense = 0;  ///< dense layers with a packed weight
  int batchMatmul = 0; ///< NT batch_matmuls made NN (the second operand transposed first)
};

/// @main with its NCHW convolutions in NCHW[x]c and its dense weights packed.
Module alterOpLayout(const Module& typed, const AlterLayoutOptions& options, AlterLayoutCounts* counts = nullptr);

} // namespace loopscape::frontend::relay
