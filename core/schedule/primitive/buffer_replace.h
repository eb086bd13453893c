// Buffer replacement for the schedule primitives. Buffers are immutable and have identity
// (core/ir/buffer.h): changing a buffer's scope, strides or name means making a new
// Buffer and replacing every reference to the old one — loads, stores, block read/write
// regions, block alloc_buffers, Allocate statements and the function's parameters.
#pragma once

#include "core/ir/prim_func.h"

#include <string>
#include <unordered_map>

namespace loopscape::schedule::detail {

/// Old buffer (by identity) -> its replacement.
using BufferMap = std::unordered_map<const ir::BufferNode*, ir::Buffer>;

/// `s` with every reference to a buffer of `map` replaced; untouched subtrees are shared.
ir::Stmt replaceBuffers(const ir::Stmt& s, const BufferMap& map);
/// `f` with every reference to a buffer of `map` replaced, parameters included.
ir::PrimFunc replaceBuffers(const ir::PrimFunc& f, const BufferMap& map);

/// A new buffer like `b` with another name and scope (TVM's WithScope names it
/// `<name>_<scope>`; the caller chooses).
ir::Buffer withNameAndScope(const ir::Buffer& b, std::string name, ir::MemoryScope scope);
/// A new buffer like `b` with the given strides (empty: compact row-major).
ir::Buffer withStrides(const ir::Buffer& b, std::vector<ir::Expr> strides);

} // namespace loopscape::schedule::detail
