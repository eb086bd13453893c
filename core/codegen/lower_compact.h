// GPU lowering: on-chip buffers shrunk to the region one kernel instance uses (TVM's
// CompactBufferAllocation, for "shared" and "local" buffers). A cache made by
// cache_read/cache_write under a loop has the whole buffer's shape (TVM's
// cache_full_region); in a GPU kernel it only ever holds one tile, so it is allocated with
// the tile's shape and indexed relative to the tile.
//
// For a buffer B allocated in the kernel, every access index i_d (per dimension) is read
// as base_d + rest_d, where base_d is the linear part in "outer" variables (the loops
// around every access of B, the blockIdx indices, and for a "local" buffer also the
// threadIdx indices: they are fixed for one block, or one thread) and rest_d depends only
// on "inner" variables (the other loops around the access, and for a "shared" buffer the
// threadIdx indices) of known constant range. When every access has the same base_d, B
// gets the extent hi_d - lo_d + 1 of the union of the rest_d ranges and every index
// becomes i_d - (base_d + lo_d). A buffer whose accesses do not fit this form keeps its
// shape (the size limits then see the whole buffer).
#pragma once

#include "core/codegen/lowered_func.h"

namespace loopscape::codegen {

/// The pass, on the kernel body of lowerGpuKernel (N-d buffers, before flattenBuffers).
ir::Stmt compactOnChipBuffers(const ir::Stmt& kernelBody, const GpuKernel& kernel);

} // namespace loopscape::codegen
