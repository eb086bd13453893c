// Syntax tree of the Python subset shared by Loopscape's front ends: expressions
// (literals, names, tuples, lists, dicts, attributes, subscripts with slices, calls with
// positional, keyword and starred arguments, lambdas, unary/binary/boolean/comparison
// operators, conditional expressions, list comprehensions) and statements (assignments,
// expression statements, pass, return, imports, def with decorators, class, for, if/elif/
// else, with). Every node keeps the source range it came from so that each front end's
// diagnostics point at the offending token or expression. The tree says nothing about
// meaning: each front end walks it with its own semantics.
#pragma once

#include "core/ir/diagnostic.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loopscape::syntax {

enum class NodeKind : std::uint8_t {
  Int,   ///< ival (text: the spelling)
  Float, ///< fval (text: the spelling)
  Str,   ///< text (adjacent literals concatenated)
  Name,  ///< text
  None,
  True,
  False,
  Tuple,     ///< kids = elements
  List,      ///< kids = elements
  Dict,      ///< kids = key0, value0, key1, value1, ...
  Attribute, ///< kids[0].text
  Subscript, ///< kids[0][kids[1], ...]; a tuple index is flattened into kids
  Slice,     ///< kids = lower, upper, step, each null when absent; opLocs[0] = the first ':'
  Call,      ///< kids[0](kids[1..]); keywords[i] names argument kids[i+1] ("" positional)
  Starred,   ///< text ("*" or "**") kids[0], as a call argument
  Lambda,    ///< params = parameter names (paramLocs their spans); kids[0] = body
  Binary,    ///< kids[0] text kids[1]; text is "+", "-", "*", "/", "//", "%", "**", "&", "|"
  Unary,     ///< text kids[0]; text is "-", "+", "not"
  BoolOp,    ///< kids[0] text kids[1]; text is "and" / "or"
  Compare,   ///< kids[0] ops[0] kids[1] ops[1] kids[2] ... (chained); opLocs the operators
  IfExp,     ///< kids[1] if kids[0] else kids[2]
  ListComp,  ///< [kids[0] generators...]
};

struct Node;
using NodePtr = std::unique_ptr<Node>;

/// `for target in iter if cond ...` inside a comprehension.
struct Comprehension {
  SourceLocation loc; ///< the 'for' keyword
  NodePtr target;
  NodePtr iter;
  std::vector<NodePtr> conditions;
};

struct Node {
  NodeKind kind = NodeKind::None;
  SourceLocation loc; ///< the whole expression (length clipped to its first line)
  std::string text;
  std::int64_t ival = 0;
  double fval = 0.0;
  std::vector<NodePtr> kids;
  std::vector<std::string> keywords;       ///< Call: one per argument
  std::vector<SourceLocation> keywordLocs; ///< Call: span of each keyword name (positional: the argument's start)
  std::vector<std::string> params;         ///< Lambda
  std::vector<SourceLocation> paramLocs;   ///< Lambda
  std::vector<std::string> ops;            ///< Compare
  std::vector<SourceLocation> opLocs;      ///< Compare: each operator; Slice: the first ':'
  std::vector<Comprehension> generators;   ///< ListComp
  int height = 1;                          ///< 1 + the largest height of the kids
};

enum class StmtKind : std::uint8_t {
  Assign,    ///< targets = value (chained `a = b = v` has several targets)
  AugAssign, ///< targets[0] op= value
  Expr,      ///< value evaluated and dropped
  Pass,
  Return,      ///< value (null for a bare return)
  Import,      ///< binds each alias to a module path
  FunctionDef, ///< decorators, name, params, returns, body
  ClassDef,    ///< decorators, name, bases, body
  For,         ///< for targets[0] in value: body
  If,          ///< if value: body else: orelse (an elif is a single If in orelse)
  With,        ///< with items: body
};

struct ImportBinding {
  std::string alias;  ///< the name bound in scope
  std::string module; ///< dotted path ("tvm.te")
  SourceLocation loc;
};

/// A function parameter: `name[: annotation][= defaultValue]`.
struct Param {
  std::string name;
  SourceLocation loc;
  NodePtr annotation;
  NodePtr defaultValue;
};

/// `context [as target]` in a with statement.
struct WithItem {
  NodePtr context;
  NodePtr target;
};

struct Stmt {
  StmtKind kind = StmtKind::Expr;
  SourceLocation loc; ///< the first token of the statement ('def' after decorators)
  std::vector<NodePtr> targets;
  NodePtr value;
  std::string op;                     ///< AugAssign: "+", "-", ...
  std::vector<SourceLocation> opLocs; ///< Assign: each '='; AugAssign: the operator
  NodePtr annotation;                 ///< Assign: `target: annotation = value` (Dialect::annotatedAssignments)
  std::vector<ImportBinding> imports;
  std::string name; ///< FunctionDef, ClassDef
  SourceLocation nameLoc;
  std::vector<NodePtr> decorators; ///< FunctionDef, ClassDef: the expressions after '@'
  std::vector<Param> params;       ///< FunctionDef
  NodePtr returns;                 ///< FunctionDef: the annotation after '->', if any
  std::vector<NodePtr> bases;      ///< ClassDef
  std::vector<WithItem> items;     ///< With
  std::vector<Stmt> body;
  std::vector<Stmt> orelse; ///< If
};

struct Module {
  std::vector<Stmt> body;
};

} // namespace loopscape::syntax
