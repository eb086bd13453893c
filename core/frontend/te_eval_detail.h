// Internal to the .te evaluator (te_eval.cpp, te_arith.cpp, te_builtins.cpp): the runtime
// values of the language and the Evaluator class. Not a public header.
#pragma once

#include "core/frontend/te_expr_size.h"
#include "core/frontend/te_parser.h"
#include "core/frontend/te_program.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace loopscape::frontend::detail {

enum class ValueKind { None, Bool, Int, Float, Str, Tuple, List, Dict, Expr, Tensor, Axis, Reduction, Lambda, Builtin, Module };

/// A value of the language. Python scalars (Bool/Int/Float) stay Python values until they
/// meet an ir expression; Expr holds an ir::Expr (a size Var, an index, a tensor body).
struct Value {
  ValueKind kind = ValueKind::None;
  bool b = false;
  std::int64_t i = 0;
  double f = 0.0;
  std::string s; ///< Str; Builtin name; Module dotted path
  std::shared_ptr<std::vector<Value>> items; ///< Tuple/List; Dict as key, value, key, value ...
  ir::Expr expr;
  TensorPtr tensor;
  ReduceAxisPtr axis;
  std::shared_ptr<const ReductionInfo> reduction;
  const ast::Node* lambda = nullptr;
  SourceLocation loc; ///< where the value was written

  bool isPyNumber() const { return kind == ValueKind::Bool || kind == ValueKind::Int || kind == ValueKind::Float; }
};

Value makeInt(std::int64_t v, SourceLocation loc);
Value makeFloat(double v, SourceLocation loc);
Value makeBool(bool v, SourceLocation loc);
Value makeExpr(ir::Expr e, SourceLocation loc);
/// "int 3", "float 1.5", "str 'x'", "tensor 'A'", "a tuple", "an expression of type int32".
std::string describeValue(const Value& v);

using Result = Expected<Value>;

/// One argument of a call, evaluated.
struct Arg {
  std::string keyword; ///< empty when positional
  SourceLocation keywordLoc;
  Value value;
  std::size_t useBegin = 0, useEnd = 0; ///< reduce-axis uses recorded while evaluating it
};

/// A reduce axis turned into an expression inside a compute lambda.
struct AxisUse {
  ReduceAxisPtr axis;
  SourceLocation loc;
  bool claimed = false; ///< inside a reduction that lists the axis
};

/// Levenshtein distance with adjacent transpositions (for "did you mean" notes).
int editDistance(std::string_view a, std::string_view b);
/// The closest candidate within a small distance, or "".
std::string closestName(std::string_view name, const std::vector<std::string>& candidates);

/// `x op y` (op: + - * / // % max min) on same-typed operands, constant-folded as TVM's
/// operator overloads do.
ir::Expr foldedArith(std::string_view op, const ir::Expr& x, const ir::Expr& y);

/// Names callable without a prefix (and through te./tvm.te./tvm.tir./T.).
const std::vector<std::string>& builtinNames();
bool isBuiltin(std::string_view name);

class Evaluator {
public:
  explicit Evaluator(std::string fileName) : m_file(std::move(fileName)) {}

  Expected<TeProgram> run(const ast::Module& module);

  // te_eval.cpp: expressions and statements
  /// Evaluates `n`; an expression value is refused when its expanded tree would exceed
  /// ir::resourceLimits().maxExpressionNodes or syntax::maxExpressionHeight().
  Result eval(const ast::Node& n);

  // te_arith.cpp: conversions and operators
  Expected<ir::Expr> toExpr(const Value& v);
  Result binaryOp(const std::string& op, const Value& a, const Value& b, const SourceLocation& loc);
  Result unaryOp(const std::string& op, const Value& a, const SourceLocation& loc);
  Result compare(const std::string& op, const Value& a, const Value& b, const SourceLocation& loc);
  Result logical(const std::string& op, const Value& a, const Value& b, const SourceLocation& loc);
  /// Converts both operands to ir expressions of one type (TVM's promotion rules).
  Expected<std::pair<ir::Expr, ir::Expr>> unify(const Value& a, const Value& b, const SourceLocation& loc);
  Expected<ir::Expr> toCondition(const Value& v, std::string_view what);

  // te_builtins.cpp
  Result callBuiltin(const std::string& name, const ast::Node& call, std::vector<Arg>& args);

  Diagnostic error(std::string code, std::string message, const SourceLocation& loc) const {
    return Diagnostic::error(std::move(code), std::move(message), loc);
  }

private:
  Result evalNode(const ast::Node& n);
  /// `v` unless it is an expression too large or too deep once expanded (located at `loc`).
  Result checkSize(Result v, const SourceLocation& loc);
  Result evalName(const ast::Node& n, bool callee);
  /// A left-deep chain of Binary (or of BoolOp) nodes, folded in a loop from its
  /// innermost left operand; binaryStep/boolStep apply one node to the value on its left.
  Result evalChain(const ast::Node& n);
  Result binaryStep(const ast::Node& n, Value lhs);
  Result boolStep(const ast::Node& n, Value lhs);
  /// A chain of attributes, subscripts and calls, applied in a loop from its innermost
  /// base outwards; each evalX takes the node and the evaluated value it applies to.
  Result evalPostfix(const ast::Node& n);
  Result evalCall(const ast::Node& n, Value callee);
  Result evalSubscript(const ast::Node& n, Value target);
  Result evalAttribute(const ast::Node& n, Value base);
  Result callLambda(const Value& fn, const ast::Node& call, std::vector<Arg>& args);
  Expected<void> exec(const ast::Stmt& s);
  Expected<void> assign(const ast::Node& target, const Value& value);
  Expected<void> collectOutputs(TeProgram& program);
  std::vector<std::string> namesInScope(bool callableOnly) const;

  // builtins (te_builtins.cpp)
  Result builtinPlaceholder(const ast::Node& call, std::vector<std::optional<Value>>& a);
  Result builtinCompute(const ast::Node& call, std::vector<std::optional<Value>>& a);
  Result builtinReduceAxis(const ast::Node& call, std::vector<std::optional<Value>>& a);
  Result builtinReduction(const std::string& name, const ast::Node& call, std::vector<Arg>& args);
  Expected<std::vector<ir::Expr>> shapeOf(const Value& v, std::string_view fn);
  Expected<ir::DataType> dtypeOf(const Value& v);
  Expected<std::string> nameArg(const std::optional<Value>& v, std::string fallback, std::string_view fn);
  Expected<void> checkNewTensorName(const std::string& name, const SourceLocation& loc);
  /// A default tensor name made unique as te.create_prim_func does: base, base_1, base_2 ...
  std::string uniqueTensorName(const std::string& base) const;
  Expected<ir::Annotations> attrsOf(const Value& v);

  // te_scan.cpp: scan(init, update, state_placeholder, inputs=, name=, tag=, attrs=)
  Result builtinScan(const ast::Node& call, std::vector<std::optional<Value>>& a);
  /// After the last statement: no compute reads a scan's state, init or update except
  /// the update reading its own state.
  Expected<void> checkScanUses();
  /// Where the tensor access `load` was written (recorded by evalSubscript), else `fallback`.
  SourceLocation loadLocation(const ir::Expr& load, const SourceLocation& fallback) const;

  friend struct BuiltinContext;

  std::string m_file;
  std::map<std::string, Value> m_globals;
  std::vector<std::map<std::string, Value>> m_locals;
  std::map<std::string, int> m_firstAssignLine;
  std::vector<std::shared_ptr<TensorInfo>> m_tensors;
  std::vector<AxisUse> m_axisUses;
  int m_computeDepth = 0; ///< > 0 while a compute lambda body is evaluated
  int m_callDepth = 0;    ///< user lambda calls (recursion guard)
  int m_evalDepth = 0;    ///< nested eval() calls (recursion guard across lambda calls)
  const ast::Stmt* m_stmt = nullptr;
  std::unordered_map<const ir::ExprNode*, SourceLocation> m_loadLocs; ///< tensor accesses written in the source
  std::vector<ir::Expr> m_loadKeep; ///< keeps the keys of m_loadLocs alive
  ExprSizes m_sizes;                ///< expanded sizes of the expressions built so far
};

} // namespace loopscape::frontend::detail
