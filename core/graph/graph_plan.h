// The compiled model's data flow: every tensor a kernel reads or writes is a slot of one
// arena (a model input, a constant, an intermediate in its memory-plan storage, or a
// function output), and every group with a call is one kernel call over slots (its
// inputs p0, p1, ... then its outputs, as the group's PrimFunc takes them). The same plan
// drives the in-process run, the isolated run (runner.h's multi-call request) and the
// group-by-group verification.
#pragma once

#include "core/graph/model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace loopscape::graph {

struct Slot {
  enum class Kind : std::uint8_t { Input, Constant, Intermediate, Output };
  Kind kind = Kind::Intermediate;
  std::string name; ///< "%x", "const_3", "<group name>", "output 0"
  std::vector<std::int64_t> shape;
  ir::DataType dtype;
  std::int64_t bytes = 0;
  std::uint64_t offset = 0; ///< in the arena (64-byte aligned); shared by storage-mates
  std::size_t index = 0;    ///< Input: parameter index; Output: output index
  ir::NDArray value;        ///< Constant: its value
};

struct PlannedCall {
  std::size_t group = 0;         ///< into Model::groups
  std::vector<std::size_t> args; ///< slot per parameter of the group's PrimFunc
  std::size_t firstOutput = 0;   ///< args[firstOutput..] are the group's outputs
};

struct GraphPlan {
  std::vector<Slot> slots;
  std::vector<PlannedCall> calls;   ///< execution order
  std::vector<std::size_t> outputs; ///< slot of each function output, in order
  std::uint64_t arenaBytes = 0;
  /// With `reuse` false every intermediate gets its own space (verification keeps every
  /// group's result); otherwise the memory plan's storages are shared.
  bool reuse = true;
};

/// The plan of `model`. "graph.unsupported" when an output is not produced by a group
/// (a parameter or constant returned as it is).
Expected<GraphPlan> planGraph(const Model& model, bool reuse = true);

/// Copies the inputs and constants into `arena` (GraphPlan::arenaBytes bytes).
void fillArena(const GraphPlan& plan, const std::vector<ir::NDArray>& inputs, std::span<std::byte> arena);
/// The value in `slot` of `arena`.
ir::NDArray readSlot(const Slot& slot, std::span<const std::byte> arena);

} // namespace loopscape::graph
