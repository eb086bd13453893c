// The device kernel of a GPU LoweredFunc (lowered_func.h, lower_gpu.h) printed as C for a
// GPU dialect: OpenCL C (the opencl plugin) or CUDA C (a cuda plugin). Both print the same
// lowered form; only the spelling differs:
//
//               OpenCL C                         CUDA C
//   kernel      __kernel void f(__global T* ..)  extern "C" __global__ void f(T* ...)
//   index       get_group_id(d) get_local_id(d)  blockIdx.x threadIdx.x
//   shared      __local T b[N];                  __shared__ T b[N];
//   barrier     barrier(CLK_LOCAL_MEM_FENCE);    __syncthreads();
//
// Every parameter is a pointer to flat row-major data of its dtype in parameter order,
// then one 64-bit integer per symbolic size. Bound variables are declared at the top of
// the kernel (`int i_0 = (int)get_group_id(0);`). Arithmetic follows the interpreter:
// integer floordiv/floormod round toward negative infinity (helper functions), min/max
// are `a < b ? a : b`, "local" Allocates are zero-filled arrays; binary operators are
// fully parenthesised. A vector store (a Ramp index, from a Vectorized loop) prints lane
// by lane with float2/float4 loads and stores where the access is contiguous and aligned
// (gpu_source.cpp says when); float16 and vector expressions elsewhere are refused.
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/ir/diagnostic.h"

#include <string>
#include <vector>

namespace loopscape::codegen::gpu {

enum class Dialect { OpenCL, Cuda };

struct KernelSource {
  std::string text;                    ///< the whole translation unit of the kernel
  std::vector<std::string> paramNames; ///< the C names of the parameters, then the sizes
};

/// The kernel of `func` (whose `gpu` is set). Errors: "<plugin>.unsupported" naming the
/// dtype or expression that the dialect cannot print (float16, vectors), where <plugin>
/// is "opencl" or "cuda".
Expected<KernelSource> printKernel(const LoweredFunc& func, Dialect dialect);

/// `text` as a C string literal ("...\n" lines joined), for embedding a kernel in host code.
std::string cStringLiteral(const std::string& text);

} // namespace loopscape::codegen::gpu
