// The one registry table of instruction kinds. Each schedule primitive (TIR families in
// core/schedule/primitive/, the polyhedral family registered by core/poly) is a row: its
// Python name as in TVM's tir.Schedule, its JSON name as in TVM's trace JSON, the keyword
// names of its inputs and attributes (with defaults) for printing and parsing, the kinds
// of RVs it defines, and the function that applies it to a Schedule.
//
// A row also says everything the views know about a primitive, so that no view or menu
// names one: what it applies to (the selected loop or block), how each parameter is given
// (ParamKind: the form editor) with its help text, a description, a shortcut, whether it
// is a step of its own in the trace, and where it is listed. Adding a primitive is its
// family file plus its row; the panel, the menus, the trace view and the Python printer
// pick it up from here.
#pragma once

#include "core/schedule/schedule.h"

#include <span>
#include <string_view>

namespace loopscape::schedule {

/// Applies an instruction: checks preconditions (returning a schedule error), replaces
/// the program, defines and returns the output RVs.
using ApplyFn = Expected<std::vector<RV>> (*)(Schedule& sch, const std::vector<TraceValue>& inputs,
                                              const std::vector<TraceValue>& attrs);

/// What a primitive is applied to in the views: the loop or block the user selected.
/// Nothing: not offered for a selection (lookups and sampling, which tools write).
enum class AppliesTo : std::uint8_t { Nothing, Loop, Block, BlockOrLoop };

/// How a parameter is given, which is also the editor a form builds for it.
enum class ParamKind : std::uint8_t {
  Auto, ///< attributes only: from the default (bool, int, float, string, integer list; None: Literal)
  // ---- inputs ----
  Selection,        ///< the selected loop or block itself (an RV)
  LoopChain,        ///< the selected loop and loops perfectly nested in it (fuse)
  LoopOrder,        ///< loops of the block below the selection, in a new order (reorder)
  SiblingLoopNames, ///< the selected loop's name and a sibling loop's name (poly_fuse)
  Factors,          ///< integers, at most one None (inferred from the extent)
  TargetLoop,       ///< another loop of the program (compute_at's target)
  ConsumerBlocks,   ///< some blocks of the program; None: all consumers
  BufferAccess,     ///< ["read" | "write", index] into the selected block's buffers; a Python tuple
  IndexMap,         ///< `lambda i, j: (...)`
  // ---- attributes ----
  SelectionName,    ///< the name of the selected loop or block (the polyhedral family)
  LoopAboveName,    ///< the name of a loop around the selected block
  LoopName,         ///< the name of any loop of the program
  Choice,           ///< one of `choices`
  EditableChoice,   ///< one of `choices`, or other text
  ReadBufferIndex,  ///< index into the selected block's reads
  WriteBufferIndex, ///< index into the selected block's writes
  Bool,
  Int,
  Float,
  Text,
  IntList,
  Literal, ///< any Python literal (None, True, 1, 2.5, "text")
};

/// One input's metadata (its name is in InstructionKind::inputNames, same index).
struct InputSpec {
  ParamKind kind = ParamKind::Selection;
  std::string_view help = {};
  /// TVM's Python signature lets it be left out (then None): cache_read's consumer_blocks.
  bool optional = false;
};

struct AttrSpec {
  std::string_view name;
  TraceValue defaultValue;
  ParamKind kind = ParamKind::Auto; ///< never Auto once registered
  std::string_view help = {};
  std::vector<std::string_view> choices = {}; ///< Choice, EditableChoice
  /// What a form starts with where that is not the default ("32, 32" for poly_tile's sizes,
  /// the scope of cache_read); empty: the default (Choice: the first choice).
  std::string_view formValue = {};
};

/// Position of a kind that is not among the everyday primitives the panel lists first.
inline constexpr int kUnranked = 1000;

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

  // ---- what the views show ----
  AppliesTo appliesTo = AppliesTo::Nothing;
  std::vector<InputSpec> inputSpecs = {}; ///< one per input name
  std::string_view description = {};      ///< one line: "split the loop into nested loops"
  std::string_view displayName = {};      ///< empty: `name`
  std::string_view shortcut = {};         ///< key sequence in Qt's portable text: "Ctrl+Alt+S"
  /// False for lookups and sampling: they join the step of the next primitive.
  bool isStep = true;
  int panelRank = kUnranked; ///< everyday primitives are listed first, by rank
  /// TVM's Python signature order where it interleaves inputs and attributes
  /// (annotate(block_or_loop, ann_key, ann_val)); empty: the inputs, then the attributes.
  std::vector<std::string_view> pythonOrder = {};

  std::string_view label() const { return displayName.empty() ? name : displayName; }
};

/// Adds kinds to the table (names must be new; every input needs its InputSpec). An Auto
/// attribute kind is resolved from its default here. core/schedule registers its own kinds
/// on first use; other modules (core/poly) call this once at start-up.
void registerInstructionKinds(std::span<const InstructionKind> kinds);
const InstructionKind* findInstructionKind(std::string_view pythonOrJsonName);
/// Every registered kind, in registration order.
std::vector<const InstructionKind*> instructionKinds();

} // namespace loopscape::schedule
