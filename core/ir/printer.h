// TVMScript-style printer. Deterministic: the same IR always prints the same text, so the
// output is used for golden files, error rendering and the TensorIR view. A TVM user
// recognises the program at once (T.prim_func, T.Buffer, T.grid, T.block,
// T.axis.remap, T.reads/T.writes, T.init, T.alloc_buffer, T.parallel, ...).
//
// Besides the text, printing records where each block and loop landed (line, column,
// length of its header) so that error renderers can mark a node and views can make it
// clickable.
#pragma once

#include "core/ir/prim_func.h"

#include <string>
#include <vector>

namespace loopscape::ir {

/// Where a statement's header (`for ...:` or `with T.block(...):`) was printed; 1-based.
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

/// The whole function, starting with `# from tvm.script import tir as T`.
PrintedProgram printPrimFuncWithSpans(const PrimFunc& func);
std::string printPrimFunc(const PrimFunc& func);
/// Every function of a module, as `@I.ir_module class Module:`.
std::string printModule(const IRModule& module);
/// An expression as it appears inside a printed program (`A[i, k] * B[k, j]`).
std::string printExpr(const Expr& e);
/// A statement at indentation zero (for debugging and tests).
std::string printStmt(const Stmt& s);

} // namespace loopscape::ir
