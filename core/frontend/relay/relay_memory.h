// Static memory planning for a fused graph, as TVM's GraphPlanMemory does it: the groups
// run in order (step k = the k-th group with a call); every tensor a group produces lives
// from its step to the last step that reads it (through tuples and projections); at each
// step the group's outputs take storage first (a group never writes over its own inputs),
// then the tensors last read there give theirs back. A new tensor takes the smallest free
// storage at least as large, else the largest free one (grown to fit), else new storage.
// The function's outputs get storage of their own, never shared. Parameters and constants
// are not planned.
#pragma once

#include "core/frontend/relay/relay_fuse.h"

#include <cstdint>
#include <vector>

namespace loopscape::frontend::relay {

struct PlannedTensor {
  const Node* node = nullptr; ///< the group root producing it
  std::size_t field = 0;      ///< its field when the root is a tuple
  std::int64_t bytes = 0;
  std::size_t defined = 0, lastUse = 0; ///< steps
  int storage = -1;                     ///< index into MemoryPlan::storageBytes; -1 for a function output
};

struct MemoryPlan {
  std::vector<PlannedTensor> tensors;
  std::vector<std::int64_t> storageBytes;
  std::int64_t plannedBytes = 0; ///< sum of storageBytes
  std::int64_t naiveBytes = 0;   ///< sum of every planned tensor's bytes (no reuse)
  std::size_t steps = 0;
  const PlannedTensor* find(const Node* node, std::size_t field) const;
};

MemoryPlan planMemory(const Function& main, const FusionResult& fusion);

} // namespace loopscape::frontend::relay
