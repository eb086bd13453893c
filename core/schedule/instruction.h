// The one registry table of instruction kinds. Each schedule primitive (TIR families in
// core/schedule/primitive/, the polyhedral family registered by core/poly) is a row: its
// Python name as in TVM's tir.Schedule, its JSON name as in TVM's trace JSON, the keyword
// names of its inputs and attributes (with defaults) for printing and parsing, the kinds
// of RVs it defines, and the function that applies it to a Schedule.
#pragma once

#include "core/schedule/schedule.h"

#include <span>
#include <string_view>

namespace loopscape::schedule {

/// Applies an instruction: checks preconditions (returning a schedule error), replaces
/// the program, defines and returns the output RVs.
using ApplyFn = Expected<std::vector<RV>> (*)(Schedule& sch, const std::vector<TraceValue>& inputs,
                                              const std::vector<TraceValue>& attrs);

struct AttrSpec {
  std::string_view name;
  TraceValue defaultValue;
};

struct InstructionKind {
  std::string_view name;     ///< Python method name: "split"
  std::string_view jsonName; ///< TVM trace JSON name: "Split"
  /// Keyword names of the inputs, in order. When `variadic` is set, the inputs are one
  /// list printed positionally (`sch.reorder(l1, l2)`, `sch.fuse(l1, l2)`).
  std::vector<std::string_view> inputNames;
  std::vector<AttrSpec> attrs;
  /// Kind of every output RV; `outputsVariadic` means "any number of this kind"
  /// (get_loops, split).
  std::vector<RVKind> outputs;
  bool outputsVariadic = false;
  bool variadic = false;
  bool isSampling = false; ///< carries a decision
  ApplyFn apply = nullptr;
};

/// Adds kinds to the table (names must be new). core/schedule registers its own kinds on
/// first use; other modules (core/poly) call this once at start-up.
void registerInstructionKinds(std::span<const InstructionKind> kinds);
const InstructionKind* findInstructionKind(std::string_view pythonOrJsonName);
/// Every registered kind, in registration order.
std::vector<const InstructionKind*> instructionKinds();

} // namespace loopscape::schedule
