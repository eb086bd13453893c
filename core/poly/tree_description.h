// A plain description of a schedule tree for views and the CLI (no isl types): one
// TreeNodeView per node with its kind, the payload as isl text (domain and filter sets,
// band partial schedules, extension maps), band flags, marks, and stable ids. Band
// members carry the name and index of the loop they stand for (band members and loops
// have the same names), so a view can link a member to the TensorIR loop.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/schedule/program_state.h"

#include <string>
#include <vector>

namespace loopscape::poly {

enum class TreeNodeKind { Domain, Band, Sequence, Set, Filter, Mark, Leaf, Extension, Expansion, Context, Guard };
/// "domain", "band", ... as isl names them.
const char* treeNodeKindName(TreeNodeKind kind);

struct BandMemberView {
  std::string name;     ///< the member's dimension id: the loop name
  int loopIndex = -1;   ///< index of the loop in pre-order (Scop::loops), -1 when no loop has this name
  std::string schedule; ///< this member's partial schedule, e.g. `[n] -> { C[i, j, k] -> [(k)] }`
  bool coincident = false; ///< isl's coincident flag of the member
  bool parallel = false;   ///< carries no dependence of the current program (when known)
};

struct TreeNodeView {
  /// Stable id: the child positions from the root, "0" for the root, "0.1.2" below.
  std::string id;
  TreeNodeKind kind = TreeNodeKind::Leaf;
  /// Domain/filter/context/guard set, band partial schedule (all members), extension map,
  /// expansion contraction, or mark name, as isl prints it; empty for sequence/set/leaf.
  std::string text;
  bool permutable = false;             ///< band only
  std::vector<BandMemberView> members; ///< band only
  std::string mark;                    ///< mark only: "parallel", "vectorized", "unroll", "thread_binding(...)"
  std::vector<TreeNodeView> children;
};

struct TreeDescription {
  TreeNodeView root;
  std::string yaml; ///< the whole tree in isl's block YAML
  /// Whether the members' `parallel` flags come from a dependence analysis (false for a
  /// structure-only description: the flags are all false and mean nothing).
  bool dependencesKnown = true;
};

/// What describeScheduleTree computes: the tree with every member's `parallel` flag (the
/// dependence analysis, 50-250 ms on the convolutions), or the structure alone (the Scop,
/// a few ms), which views show at once while the analysis runs in the background.
enum class TreeFacts { WithDependences, StructureOnly };

/// The schedule tree of `func`'s Scop, with `parallel` filled from its dependences unless
/// `facts` is StructureOnly. Errors: those of extractScop and computeDependences.
/// The state's analyses are used (and the description with dependences is kept on the
/// state, shared by every thread).
Expected<std::shared_ptr<const TreeDescription>> describeScheduleTree(const schedule::ProgramState& state,
                                                                      TreeFacts facts = TreeFacts::WithDependences);
/// The same on a fresh state of `func`.
Expected<TreeDescription> describeScheduleTree(const ir::PrimFunc& func, TreeFacts facts = TreeFacts::WithDependences);

/// Indented text, one node per line: `band [i] schedule: ... (member i: parallel)`.
std::string renderTree(const TreeDescription& tree);

} // namespace loopscape::poly
