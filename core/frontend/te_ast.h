// Syntax tree of the tensor-expression language (.te): a Python-like subset in which TVM
// users write `placeholder` / `compute` / `reduce_axis` programs. The parser builds it; the
// evaluator (te_eval.h) walks it. Every node keeps the source range it came from, so each
// diagnostic can point at the offending token or expression.
#pragma once

#include "core/ir/diagnostic.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loopscape::frontend::ast {

enum class NodeKind : std::uint8_t {
  Int,       ///< ival
  Float,     ///< fval
  Str,       ///< text
  Name,      ///< text
  None,
  True,
  False,
  Tuple,     ///< kids = elements
  List,      ///< kids = elements
  Dict,      ///< kids = key0, value0, key1, value1, ...
  Attribute, ///< kids[0].text
  Subscript, ///< kids[0][kids[1], ...]; a tuple index is flattened into kids
  Call,      ///< kids[0](kids[1..]); keywords[i] names argument kids[i+1] ("" positional)
  Lambda,    ///< params = parameter names (paramLocs their spans); kids[0] = body
  Binary,    ///< kids[0] text kids[1]; text is "+", "-", "*", "/", "//", "%", "**", "&", "|"
  Unary,     ///< text kids[0]; text is "-", "+", "not"
  BoolOp,    ///< kids[0] text kids[1]; text is "and" / "or"
  Compare,   ///< kids[0] ops[0] kids[1] ops[1] kids[2] ... (chained)
  IfExp,     ///< kids[1] if kids[0] else kids[2]
};

struct Node;
using NodePtr = std::unique_ptr<Node>;

struct Node {
  NodeKind kind = NodeKind::None;
  SourceLocation loc; ///< the whole expression (length clipped to its first line)
  std::string text;
  std::int64_t ival = 0;
  double fval = 0.0;
  std::vector<NodePtr> kids;
  std::vector<std::string> keywords;          ///< Call: one per argument
  std::vector<SourceLocation> keywordLocs;    ///< Call: span of each keyword name
  std::vector<std::string> params;            ///< Lambda
  std::vector<SourceLocation> paramLocs;      ///< Lambda
  std::vector<std::string> ops;               ///< Compare
  int height = 1;                             ///< 1 + the largest height of the kids
};

enum class StmtKind : std::uint8_t {
  Assign,    ///< targets = value (chained `a = b = v` has several targets)
  AugAssign, ///< targets[0] op= value
  Expr,      ///< value evaluated and dropped
  Import,    ///< binds each alias to a module path
};

struct ImportBinding {
  std::string alias;  ///< the name bound in scope
  std::string module; ///< dotted path ("tvm.te")
  SourceLocation loc;
};

struct Stmt {
  StmtKind kind = StmtKind::Expr;
  SourceLocation loc;
  std::vector<NodePtr> targets;
  NodePtr value;
  std::string op; ///< AugAssign: "+", "-", ...
  std::vector<ImportBinding> imports;
};

struct Module {
  std::vector<Stmt> body;
};

} // namespace loopscape::frontend::ast
