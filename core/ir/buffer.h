// Buffer: a named multi-dimensional array (shape, element type, strides, memory scope).
// Empty strides mean compact row-major. Shapes may hold symbolic size Vars (dynamic
// shapes). Buffers have identity: loads and stores refer to the node, not the name.
#pragma once

#include "core/ir/expr.h"

#include <string>
#include <vector>

namespace loopscape::ir {

enum class MemoryScope : std::uint8_t { Global, Shared, Local };
/// "global", "shared", "local".
const char* memoryScopeName(MemoryScope scope);
std::optional<MemoryScope> parseMemoryScope(std::string_view name);

struct BufferNode {
  std::string name;
  DataType dtype;
  std::vector<Expr> shape;
  std::vector<Expr> strides; ///< empty: compact row-major
  MemoryScope scope = MemoryScope::Global;

  std::size_t ndim() const { return shape.size(); }
};

/// Builds a buffer; shape and strides must be integer expressions.
Buffer makeBuffer(std::string name, DataType dtype, std::vector<Expr> shape,
                  MemoryScope scope = MemoryScope::Global, std::vector<Expr> strides = {});

/// A half-open integer interval [min, min + extent).
struct Range {
  Expr min;
  Expr extent;
  static Range fromMinExtent(Expr min, Expr extent) { return {std::move(min), std::move(extent)}; }
};

/// The part of a buffer that a block reads or writes: one Range per dimension.
struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region;
};

} // namespace loopscape::ir
