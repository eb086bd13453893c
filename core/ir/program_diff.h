// A structural diff of two TensorIR programs that knows loops and blocks (not a line
// diff): what `loopscape-cli compare` prints and what a view can highlight. Blocks are
// matched by name. Loops are matched among the loops that enclose a common block: first
// by loop variable (two schedules of one program share the variables of the loops their
// primitives left in place), then by the variable's name (a loop that encloses blocks C
// and D in one program and only C in the other is the same loop); loops left over on
// both sides that enclose a common block, sit at the same depth and have the same extent
// are paired as renamed. Everything unmatched in the first program is Removed, in the
// second Added; a matched pair whose header or placement differs (extent, min, kind,
// thread binding, annotations, depth, enclosed blocks; for blocks: enclosing loops,
// bindings, iterator domains, predicate, reads, writes, allocated buffers, annotations,
// init, body) is Changed, with one description per difference. Structurally equal
// programs whose loops and blocks keep their names give an empty diff.
#pragma once

#include "core/ir/prim_func.h"
#include "core/ir/printer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscape::ir {

/// The marks a diff line carries: `-` only in the first program, `+` only in the
/// second, `~` in both but changed.
enum class DiffKind : std::uint8_t { Removed, Added, Changed };
/// "-", "+", "~".
const char* diffKindSign(DiffKind kind);

enum class DiffItem : std::uint8_t { Loop, Block };

/// Where an item was printed in one program (printPrimFuncWithSpans of that program with
/// the diff's PrintOptions); line 0 when the item is not in that program.
struct DiffLocation {
  int line = 0;                   ///< 1-based line of the item's header
  int column = 0;                 ///< 1-based; for a loop of a `T.grid`, its name in the header
  int length = 0;                 ///< characters of the header (or of the name in a `T.grid`)
  std::string text;               ///< the whole printed line, leading spaces removed
  int depth = 0;                  ///< loops around the item (0: outermost)
  const StmtNode* node = nullptr; ///< the For or Block
};

struct ProgramDiffEntry {
  DiffKind kind = DiffKind::Changed;
  DiffItem item = DiffItem::Loop;
  /// The block: the block itself, or for a loop the first block it encloses (in the
  /// first program when the loop is there, else in the second).
  std::string block;
  /// Loop entries: the loop variable's name (the first program's when it is there; a
  /// renamed loop's description says the second name). Empty for blocks.
  std::string loop;
  DiffLocation a, b; ///< the item in the first / second program (line 0 where absent)
  /// Changed: one line per difference, e.g. "extent 1024 -> 32", "kind serial ->
  /// parallel", "binding v_i: i -> i_0 * 32 + i_1". Empty for Removed and Added.
  std::vector<std::string> changes;
};

struct ProgramDiff {
  /// In merged program order: the second program's order, each item only in the first
  /// program placed after the items printed before it there.
  std::vector<ProgramDiffEntry> entries;
  bool empty() const { return entries.empty(); }
};

/// The diff of `a` (first) against `b` (second); lines as printed with `options`.
ProgramDiff diffPrograms(const PrimFunc& a, const PrimFunc& b, const PrintOptions& options = {});

/// One line per entry, indented by depth, e.g.
///   `- loop i_0 in block C (A line 7): for i_0 in T.parallel(32):`
///   `~ loop k in block C (A line 8, B line 7): depth 2 -> 2; ...`
/// and "no structural difference\n" for an empty diff.
std::string renderProgramDiff(const ProgramDiff& diff);

/// One loop of a program as the diff sees it (program order, pre-order).
struct LoopSummary {
  std::string name;   ///< the loop variable's name
  int depth = 0;      ///< loops around it
  std::string extent; ///< printed
  ForKind kind = ForKind::Serial;
  std::string threadTag;
  std::vector<std::string> blocks; ///< blocks it encloses, in program order
  const StmtNode* node = nullptr;
};
/// Every loop of `func` in program order.
std::vector<LoopSummary> programLoops(const PrimFunc& func);

} // namespace loopscape::ir
