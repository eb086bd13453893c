// TVMScript-style printer. Deterministic: the same IR always prints the same text, so the
// output is used for golden files, error rendering and the TensorIR view. A TVM user
// recognises the program at once (T.prim_func, T.Buffer, T.grid, T.block,
// T.axis.remap, T.reads/T.writes, T.init, T.alloc_buffer, T.parallel, ...): the text
// follows what TVM v0.12-v0.19 `func.script()` prints for the same program, including
// its choice of sugar (T.grid for perfectly nested serial loops, T.axis.remap for runs
// of iterators bound to enclosing loop variables, the implicit root block comment,
// `T.Add(1, 2)` instead of `1 + 2` where re-parsing would constant-fold) and its
// minimal parenthesisation by Python operator precedence.
//
// Names: every Var and Buffer prints under its own name; when a name is already taken
// by a different variable or buffer *visible in the same scope*, the later one is
// suffixed `_1`, `_2`, ... (TVM's rule), so the text never aliases two variables.
// Names leave scope with their loop/block/let, so sibling loops may both be `i`.
// Characters other than [A-Za-z0-9_] in names print as `_`; the module prefixes `I`, `T`
// and `R` are never used as names.
//
// Besides the text, printing records where each block and loop landed (line, column,
// length of its header) so that error renderers can mark a node and views can make it
// clickable.
#pragma once

#include "core/ir/prim_func.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace loopscape::ir {

/// Where a statement's header (`for ...:` or `with T.block(...):`) was printed; 1-based.
/// `column` is where `for`/`with` starts and `length` covers the header up to and
/// including its final `:`. A loop of a `T.grid` is marked by its variable name in that
/// header instead (column and length of the name). The
/// implicit root block is recorded at the `with T.block("root"):` inside its comment.
struct PrintedSpan {
  const StmtNode* node = nullptr; ///< the For or Block node
  int line = 0;
  int column = 0;
  int length = 0;
};

struct PrintedProgram {
  std::string text;
  std::vector<PrintedSpan> spans; ///< every For and Block, in printing order
};

/// The spelling of TVMScript to print.
enum class ScriptDialect : std::uint8_t {
  /// TVM 0.12-0.20: `from tvm.script import tir as T`, `@T.prim_func`, T.block,
  /// T.alloc_buffer, "tir.noalias", integral floats as `T.float32(0)`, buffers of
  /// symbolic shape as handles bound by T.match_buffer.
  Tir,
  /// TVM 0.25-0.27: `from tvm.script import tirx as T`, `@T.prim_func(s_tir=True)`,
  /// T.sblock, T.sblock_alloc_buffer, T.sblock_attr, {"tirx.noalias": True}, integral
  /// floats as `T.float32(0.0)`, a size named by a string at its first use in a parameter's
  /// shape (`T.Buffer(("n", 8))`) and declared at the top of the body (`n = T.int32()`).
  Tirx,
};

struct PrintOptions {
  ScriptDialect dialect = ScriptDialect::Tir;
};

/// The whole function, starting with `# from tvm.script import tir as T` (or tirx), a
/// blank line, `@T.prim_func`; every line ends with '\n'.
PrintedProgram printPrimFuncWithSpans(const PrimFunc& func, const PrintOptions& options = {});
std::string printPrimFunc(const PrimFunc& func, const PrintOptions& options = {});
/// Every function of a module, as `@I.ir_module class Module:`; like TVM, "main" comes
/// first and the other functions follow sorted by name, separated by blank lines.
std::string printModule(const IRModule& module, const PrintOptions& options = {});
/// An expression as it appears inside a printed program (`A[i, k] * B[k, j]`).
std::string printExpr(const Expr& e);
/// A statement at indentation zero (for debugging and tests).
std::string printStmt(const Stmt& s);

/// A float value as Python's repr() writes it (shortest round-trip digits in `bits` precision,
/// `1e-05`, `1e+20`, `0.5`), except that an integral value drops the `.0` (`0`, `128`),
/// as TVMScript prints `T.float32(0)`. Not for inf/nan.
std::string formatFloatLiteral(double value, int bits = 64);
/// `text` as a double-quoted Python string literal with backslash escapes.
std::string quoteString(std::string_view text);

namespace detail {

/// The printed names of the Vars and Buffers of one printed program, with TVM's scoping:
/// a name is taken while its defining scope is open; popScope() releases the names
/// defined since the matching pushScope().
class NameTable {
public:
  /// Starts with TVMScript's module prefixes `I`, `T` and `R` taken (TVM's builtin
  /// keywords), so a buffer named `T` prints as `T_1` and never shadows the module.
  NameTable() : m_taken{{"I", 1}, {"T", 1}, {"R", 1}} { pushScope(); }
  void pushScope();
  void popScope();
  /// Defines `node` in the innermost scope under `hint` (sanitised), suffixed `_1`,
  /// `_2`, ... while the name is taken; returns the name.
  std::string define(const void* node, std::string_view hint);
  /// The name `node` was defined with; an undefined node is defined in the outermost
  /// scope (free variables of a standalone expression).
  std::string nameOf(const void* node, std::string_view hint);
  bool isDefined(const void* node) const { return m_names.contains(node); }

private:
  struct Entry {
    const void* node;
    std::string name;
    std::string previous; ///< the node's name before this definition ("" if none)
  };
  std::unordered_map<const void*, std::string> m_names;
  std::unordered_map<std::string, int> m_taken; ///< name -> number of live definitions
  std::vector<std::vector<Entry>> m_scopes;
};

/// `e` printed with the names of `names` (undefined variables get defined globally).
std::string printExpr(const Expr& e, NameTable& names, ScriptDialect dialect = ScriptDialect::Tir);
/// `A[i, j]`-style subscript list (without the buffer name): `[i, j]`, `[()]` for a
/// 0-dim buffer; a Ramp index with constant stride prints as a slice `i:i + 8`.
std::string printIndices(const std::vector<Expr>& indices, NameTable& names);
/// Structural equality of small index expressions (same variables, same constants), as
/// TVM's ExprDeepEqual is used to decide whether an iterator may be remapped.
bool exprEqual(const Expr& a, const Expr& b);
/// `a + b` folded as TVM's operator+ does for printing ends of ranges: constant + constant
/// is the sum, x + 0 is x; a + ((x - a) + c) is x + c, and a + (x - a) is x for a
/// non-constant a.
Expr addFolded(const Expr& a, const Expr& b);

} // namespace detail

} // namespace loopscape::ir
