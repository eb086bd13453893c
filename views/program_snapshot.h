// ProgramSnapshot: everything the views show about one program state, computed once (in
// a background job) from a Schedule and never changed afterwards. The TensorIR view
// displays `text`; `nodes` maps each printed loop/block header back to its IR node, so
// clicks and hovers resolve to a block or loop; the primitive panel reads the node facts
// (extent, kind, the loops of a block, buffers it accesses) to build its forms.
//
// The snapshot keeps the PrimFunc alive, so the `node` pointers stay valid as long as the
// snapshot exists. No Qt here: the snapshot is built off the GUI thread.
#pragma once

#include "core/ir/prim_func.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::schedule {
class Schedule;
}
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
  ir::PrimFunc func;
  std::string text;
  std::vector<NodeInfo> nodes; ///< in printing order
  int instructionCount = 0;    ///< length of the trace this state is the result of
  std::string dependenceError; ///< why loops have no dependence facts ("" when they have)
  /// Built without the dependence analysis (makeSnapshot with Facts::Structure): the loops'
  /// `parallel` facts and the tree's member flags come with withAnalysis's copy.
  bool analysisPending = false;
  /// The isl schedule tree of the program (core/poly), or null with `treeError`.
  std::shared_ptr<const poly::TreeDescription> tree;
  std::string treeError;
  /// The same program state (the same IR nodes, hence the same text and node indices):
  /// true for a Structure snapshot and its withAnalysis copy.
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
  /// Loops directly nested in the chain under loop `index` (children with a single loop
  /// child, TVM's fusable chain), starting with `index` itself.
  std::vector<int> loopChain(int index) const;
  /// The loops of the first block below loop `index` (TVM's get_loops of that block).
  std::vector<int> loopsOfBlockBelow(int index) const;
};

/// What a snapshot holds: everything, or the text, nodes and schedule-tree structure alone
/// (a few ms; the dependence analysis of a convolution takes 50-250 ms), for views that
/// update at once and take the dependence facts when withAnalysis delivers them.
enum class SnapshotFacts { All, Structure };

/// The snapshot of the schedule's current program, with the loops' dependence facts unless
/// `facts` is Structure.
std::shared_ptr<const ProgramSnapshot> makeSnapshot(const schedule::Schedule& sch,
                                                    SnapshotFacts facts = SnapshotFacts::All);

/// A copy of a Structure snapshot with the dependence facts and the full schedule tree (the
/// same program, text and node indices); `snap` itself if it is not pending.
std::shared_ptr<const ProgramSnapshot> withAnalysis(const std::shared_ptr<const ProgramSnapshot>& snap);

} // namespace loopscape::views
