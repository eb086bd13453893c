#include "core/ir/buffer.h"

namespace loopscape::ir {

const char* memoryScopeName(MemoryScope scope) {
  switch (scope) {
  case MemoryScope::Global: return "global";
  case MemoryScope::Shared: return "shared";
  case MemoryScope::Local: return "local";
  }
  LS_UNREACHABLE("bad MemoryScope");
}

std::optional<MemoryScope> parseMemoryScope(std::string_view name) {
  if (name == "global") return MemoryScope::Global;
  if (name == "shared") return MemoryScope::Shared;
  if (name == "local") return MemoryScope::Local;
  return std::nullopt;
}

Buffer makeBuffer(std::string name, DataType dtype, std::vector<Expr> shape, MemoryScope scope,
                  std::vector<Expr> strides) {
  LS_ASSERT(!name.empty(), "buffer needs a name");
  for (const auto& s : shape) LS_ASSERT(s.defined() && s.dtype().isInteger(), "buffer {} has a non-integer extent", name);
  LS_ASSERT(strides.empty() || strides.size() == shape.size(), "buffer {}: {} strides for {} dims", name,
            strides.size(), shape.size());
  auto node = std::make_shared<BufferNode>();
  node->name = std::move(name);
  node->dtype = dtype;
  node->shape = std::move(shape);
  node->strides = std::move(strides);
  node->scope = scope;
  return Buffer(std::move(node));
}

} // namespace loopscape::ir
