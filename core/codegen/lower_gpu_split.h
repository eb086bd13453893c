// GPU lowering: several kernels per function. A scheduled PrimFunc whose root block holds
// two or more statements, each a loop bound to blockIdx/threadIdx (e.g. two blocks, each
// with its own bound loops), becomes one PrimFunc per kernel, in program order; `lower`
// (lower.h) lowers each as one kernel and the host part launches them in that order
// (LoweredFunc::moreKernels), each kernel finishing before the next starts, as the
// statements run in the serial program.
//
// Kernels share only the function's parameters: an intermediate buffer (an alloc_buffer
// of the root block) used by one kernel goes with it; one used by two kernels is refused
// with the Diagnostic "codegen.gpu-buffer-across-kernels" naming the buffer and both
// loops ("shared" and "local" memory does not outlive a kernel, and a GPU target
// allocates no global intermediates). A root whose statements are not all bound loops
// is left whole (lowerGpuKernel says what is wrong with it).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"

#include <vector>

namespace loopscape::codegen {

/// The kernels of `func`: `{func}` itself when it is not split.
Expected<std::vector<ir::PrimFunc>> splitGpuKernels(const ir::PrimFunc& func);

} // namespace loopscape::codegen
