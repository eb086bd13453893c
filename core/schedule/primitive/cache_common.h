// Helpers shared by the caching family (cache.cpp: cache_read, cache_write;
// cache_storage.cpp: set_scope, storage_align): the n-th read/write buffer of a block, the
// storage scope argument, where a buffer is allocated, fresh block names.
#pragma once

#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"

#include <string>

namespace loopscape::schedule::detail {

/// The buffer of `block`'s reads (or writes) at `index`; error `<prim>.index-out-of-range`.
Expected<ir::Buffer> nthAccessBuffer(const TreeNode& block, std::int64_t index, bool write, std::string_view prim);

/// The storage scope named `name` ("global", "shared", "local"); error `<prim>.bad-scope`.
Expected<ir::MemoryScope> storageScope(const TraceValue& name, std::string_view prim);

/// The block (the given one or an ancestor) whose alloc_buffers hold `buffer`, or null.
const TreeNode* allocationSite(const TreeNode& block, const ir::Buffer& buffer);

/// Checks that `buffer` is an intermediate buffer allocated by `block` or an ancestor:
/// `<prim>.is-parameter` for a function parameter, `<prim>.not-allocated` otherwise.
Expected<const TreeNode*> requireAllocated(const Schedule& sch, const TreeNode& block, const ir::Buffer& buffer,
                                           std::string_view prim);

/// `base` if no block has that name, else `base_1`, `base_2`, ...
std::string freshBlockName(const IrTree& tree, const std::string& base);

/// An integer attribute; error `<prim>.bad-arguments` naming `what`.
Expected<std::int64_t> integerArg(const Schedule& sch, const TraceValue& v, std::string_view prim, std::string_view what);

Expected<std::vector<RV>> applySetScope(Schedule& sch, const std::vector<TraceValue>& inputs,
                                        const std::vector<TraceValue>& attrs);
Expected<std::vector<RV>> applyStorageAlign(Schedule& sch, const std::vector<TraceValue>& inputs,
                                            const std::vector<TraceValue>& attrs);

} // namespace loopscape::schedule::detail
