// ProgramSnapshot: everything the views show about one program state, computed once (in
// a background job) from a schedule::ProgramState and never changed afterwards. Snapshots
// are analyses of the state (program_state.h): the structure snapshot (text, nodes, the
// schedule tree's structure; a few ms) and the analysed one (with the dependence facts;
// 50-250 ms on the convolutions) are each computed once per state and shared by every
// holder of the state (undo/redo, the views, a trace preview). The TensorIR view
// displays `text`; `nodes` maps each printed loop/block header back to its IR node, so
// clicks and hovers resolve to a block or loop; the primitive panel reads the node facts
// (extent, kind, the loops of a block, buffers it accesses) to build its forms.
//
// The snapshot keeps the PrimFunc alive, so the `node` pointers stay valid as long as the
// snapshot exists. No Qt here: the snapshot is built off the GUI thread.
#pragma once

#include "core/ir/prim_func.h"
#include "core/ir/printer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule/program_state.h"

namespace loopscape::poly {
struct TreeDescription;
}

namespace loopscape::views {

/// One printed loop or block.
struct NodeInfo {
  enum class Kind { Block, Loop };
  Kind kind = Kind::Loop;
  const ir::StmtNode* node = nullptr; ///< the For or Block (identity within the snapshot)
  std::string name;                   ///< block name, or loop variable name
  int line = 0, column = 0, length = 0; ///< header span in `text` (1-based line/column)
  int parent = -1;                    ///< index of the enclosing loop/block node, -1 for the root
  int depth = 0;
  // loops
  std::string extent;   ///< printed extent expression ("1024", "n")
  std::string min;      ///< printed min ("0")
  std::optional<std::int64_t> constExtent;
  std::string loopKind; ///< serial, parallel, vectorized, unroll, thread_binding
  std::string threadTag;
  std::vector<std::string> blocksBelow; ///< names of the blocks nested in the loop
  /// From core/poly's dependence analysis (unset when the analysis failed): whether the
  /// loop carries no dependence, and the dependences it carries, one line each
  /// ("RAW C -> C on C, distance (0, 0, 1) over (i, j, k)").
  std::optional<bool> parallel;
  std::vector<std::string> carried;
  // blocks
  bool isRoot = false;
  bool isReduction = false;
  std::vector<std::string> reads, writes; ///< buffer names, in region order
  std::vector<int> loopsAbove; ///< node indices of the loops between the block and its scope block
};

struct ProgramSnapshot {
  schedule::StatePtr state; ///< the program state shown (keeps `func`'s nodes alive)
  ir::PrimFunc func;        ///< state->func()
  std::string text;
  std::vector<NodeInfo> nodes; ///< in printing order
  std::string dependenceError; ///< why loops have no dependence facts ("" when they have)
  /// The structure snapshot (no dependence facts yet): the loops' `parallel` facts and the
  /// tree's member flags come with the state's analysed snapshot.
  bool analysisPending = false;
  /// The isl schedule tree of the program (core/poly), or null with `treeError`.
  std::shared_ptr<const poly::TreeDescription> tree;
  std::string treeError;
  /// The same program state (the same IR nodes, hence the same text and node indices):
  /// true for the structure and the analysed snapshot of one state.
  bool sameProgramAs(const ProgramSnapshot& other) const { return func.body.sameAs(other.func.body); }
  /// Snapshot index of the `ordinal`-th loop in program order (-1 if out of range).
  int loopByOrdinal(int ordinal) const;
  /// Program-order ordinal of loop `index` (-1 for a block).
  int ordinalOf(int index) const;

  /// Index of the innermost node whose header span contains (line, column), or -1.
  int nodeAt(int line, int column) const;
  int indexOf(const ir::StmtNode* node) const;
  /// Index of the loop or block named `name` (first in printing order), or -1.
  int find(NodeInfo::Kind kind, std::string_view name) const;
  /// Where node `index` sits in the tree: its position among its siblings, for it and
  /// each enclosing loop or block, outermost first. A loop's identity across two
  /// snapshots of related programs (after an edit, undo or redo), never its name: two
  /// blocks may each have a loop `i`.
  std::vector<int> positionOf(int index) const;
  /// The node at `position` (positionOf of another snapshot) when it is of kind `kind`
  /// there, else -1. (After undoing a split, the loop at the outer loop's position is the
  /// loop that was split: positions, not names, are what stays.)
  int atPosition(const std::vector<int>& position, NodeInfo::Kind kind) const;
  /// Loops directly nested in the chain under loop `index` (children with a single loop
  /// child, TVM's fusable chain), starting with `index` itself.
  std::vector<int> loopChain(int index) const;
  /// The loops of the first block below loop `index` (TVM's get_loops of that block).
  std::vector<int> loopsOfBlockBelow(int index) const;
};

/// The structure snapshot of `state`: text, nodes and schedule-tree structure, without the
/// dependence analysis (`analysisPending`), for views that update at once. Computed once
/// per state.
/// `dialect` is the TVMScript spelling of the text (each dialect its own snapshot).
std::shared_ptr<const ProgramSnapshot> structureSnapshot(const schedule::StatePtr& state,
                                                         ir::ScriptDialect dialect = ir::ScriptDialect::Tir);

/// The snapshot with the dependence facts and the full schedule tree (the same text and
/// node indices as the structure snapshot). Computed once per state: the first caller
/// computes it, the others wait for it.
std::shared_ptr<const ProgramSnapshot> analysedSnapshot(const schedule::StatePtr& state,
                                                        ir::ScriptDialect dialect = ir::ScriptDialect::Tir);

/// What the views show of `state` now, without computing anything that is not there: the
/// analysed snapshot when it is ready, the structure snapshot otherwise (null when neither
/// was computed).
std::shared_ptr<const ProgramSnapshot> currentSnapshot(const schedule::StatePtr& state,
                                                       ir::ScriptDialect dialect = ir::ScriptDialect::Tir);

} // namespace loopscape::views
