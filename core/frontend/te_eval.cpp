#include "core/frontend/te_eval.h"

#include "core/frontend/te_eval_detail.h"
#include "core/ir/buffer.h"
#include "core/ir/resource_limits.h"
#include "core/ir/visitor.h"
#include "core/syntax/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace loopscape::frontend {

const char* combinerName(Combiner c) {
  switch (c) {
  case Combiner::Sum: return "sum";
  case Combiner::Max: return "max";
  case Combiner::Min: return "min";
  }
  return "sum";
}

namespace detail {

Value makeInt(std::int64_t v, SourceLocation loc) {
  Value r;
  r.kind = ValueKind::Int;
  r.i = v;
  r.loc = std::move(loc);
  return r;
}
Value makeFloat(double v, SourceLocation loc) {
  Value r;
  r.kind = ValueKind::Float;
  r.f = v;
  r.loc = std::move(loc);
  return r;
}
Value makeBool(bool v, SourceLocation loc) {
  Value r;
  r.kind = ValueKind::Bool;
  r.b = v;
  r.loc = std::move(loc);
  return r;
}
Value makeExpr(ir::Expr e, SourceLocation loc) {
  Value r;
  r.kind = ValueKind::Expr;
  r.expr = std::move(e);
  r.loc = std::move(loc);
  return r;
}

std::string describeValue(const Value& v) {
  switch (v.kind) {
  case ValueKind::None: return "None";
  case ValueKind::Bool: return v.b ? "bool True" : "bool False";
  case ValueKind::Int: return fmt::format("int {}", v.i);
  case ValueKind::Float: return fmt::format("float {}", v.f);
  case ValueKind::Str: return fmt::format("str '{}'", v.s);
  case ValueKind::Tuple: return "a tuple";
  case ValueKind::List: return "a list";
  case ValueKind::Dict: return "a dict";
  case ValueKind::Expr: return fmt::format("an expression of type {}", v.expr.dtype().str());
  case ValueKind::Tensor: return fmt::format("tensor '{}'", v.tensor->name);
  case ValueKind::Axis: return fmt::format("reduce axis '{}'", v.axis->name);
  case ValueKind::Reduction: return "a reduction";
  case ValueKind::Lambda: return "a lambda";
  case ValueKind::Builtin: return fmt::format("function '{}'", v.s);
  case ValueKind::Module: return fmt::format("module '{}'", v.s);
  }
  return "a value";
}

int editDistance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::string closestName(std::string_view name, const std::vector<std::string>& candidates) {
  if (name.size() > 64) return {};
  int limit = std::max<int>(1, static_cast<int>(name.size()) / 3);
  std::string best;
  int bestDistance = limit + 1;
  for (const auto& c : candidates) {
    if (c == name || c.size() > 64) continue;
    int d = editDistance(name, c);
    if (d < bestDistance || (d == bestDistance && !best.empty() && c < best)) {
      bestDistance = d;
      best = c;
    }
  }
  return bestDistance <= limit ? best : std::string();
}

namespace {

const char* const kModules[] = {"te", "tvm", "tir", "T"};

bool knownModulePath(std::string_view path) {
  return path == "tvm" || path == "te" || path == "tir" || path == "T" || path == "tvm.te" || path == "tvm.tir" ||
         path == "tvm.script" || path == "tvm.script.tir" || path == "tvm.topi" || path == "topi";
}

Value makeModule(std::string path, SourceLocation loc) {
  Value r;
  r.kind = ValueKind::Module;
  r.s = std::move(path);
  r.loc = std::move(loc);
  return r;
}

Value makeSeq(ValueKind kind, std::vector<Value> items, SourceLocation loc) {
  Value r;
  r.kind = kind;
  r.items = std::make_shared<std::vector<Value>>(std::move(items));
  r.loc = std::move(loc);
  return r;
}

void collectTargetNames(const ast::Node& target, int line, std::map<std::string, int>& out) {
  if (target.kind == ast::NodeKind::Name) {
    out.emplace(target.text, line);
  } else if (target.kind == ast::NodeKind::Tuple || target.kind == ast::NodeKind::List) {
    for (const auto& k : target.kids) collectTargetNames(*k, line, out);
  }
}

bool truthy(const Value& v) {
  switch (v.kind) {
  case ValueKind::None: return false;
  case ValueKind::Bool: return v.b;
  case ValueKind::Int: return v.i != 0;
  case ValueKind::Float: return v.f != 0.0;
  case ValueKind::Str: return !v.s.empty();
  case ValueKind::Tuple:
  case ValueKind::List:
  case ValueKind::Dict: return !v.items->empty();
  default: return true;
  }
}

} // namespace

std::vector<std::string> Evaluator::namesInScope(bool callableOnly) const {
  std::vector<std::string> names;
  auto add = [&](const std::string& name, const Value& v) {
    if (!callableOnly || v.kind == ValueKind::Lambda || v.kind == ValueKind::Builtin) names.push_back(name);
  };
  for (const auto& scope : m_locals)
    for (const auto& [name, v] : scope) add(name, v);
  for (const auto& [name, v] : m_globals) add(name, v);
  if (callableOnly) {
    for (const auto& b : builtinNames()) names.push_back(b);
  } else {
    for (const char* m : kModules) names.emplace_back(m);
  }
  return names;
}

Result Evaluator::evalName(const ast::Node& n, bool callee) {
  for (auto scope = m_locals.rbegin(); scope != m_locals.rend(); ++scope) {
    if (auto it = scope->find(n.text); it != scope->end()) {
      Value v = it->second;
      v.loc = n.loc;
      return v;
    }
  }
  if (auto it = m_globals.find(n.text); it != m_globals.end()) {
    Value v = it->second;
    v.loc = n.loc;
    return v;
  }
  if (isBuiltin(n.text)) {
    Value v;
    v.kind = ValueKind::Builtin;
    v.s = n.text;
    v.loc = n.loc;
    return v;
  }
  for (const char* m : kModules)
    if (n.text == m) return makeModule(n.text == "te" ? "tvm.te" : n.text == "tir" ? "tvm.tir" : n.text, n.loc);
  if (auto it = m_firstAssignLine.find(n.text); it != m_firstAssignLine.end() && m_stmt && it->second >= m_stmt->loc.line)
    return Unexpected(error("te.use-before-assignment",
                            fmt::format("name '{}' is used before it is assigned (on line {})", n.text, it->second), n.loc));
  auto d = error("te.unknown-name", fmt::format("name '{}' is not defined", n.text), n.loc);
  if (auto best = closestName(n.text, namesInScope(callee)); !best.empty())
    d.notes.push_back(fmt::format("did you mean '{}'?", best));
  return Unexpected(std::move(d));
}

Result Evaluator::eval(const ast::Node& n) {
  // Operator and postfix chains are evaluated in loops (evalChain, evalPostfix), so an
  // expression recurses about as deep as it nests (at most maxNestingDepth); lambda calls
  // stack the bodies they call on top of it. This bounds the stack (an eval level takes
  // about 10 KiB in an unoptimised build with AddressSanitizer).
  const int limit = ir::resourceLimits().maxNestingDepth + 50;
  if (m_evalDepth >= limit)
    return Unexpected(
        error("te.too-deep", fmt::format("lambda calls nest this expression more than {} levels deep", limit), n.loc));
  ++m_evalDepth;
  Result r = checkSize(evalNode(n), n.loc);
  --m_evalDepth;
  return r;
}

Result Evaluator::checkSize(Result v, const SourceLocation& loc) {
  if (!v || v->kind != ValueKind::Expr) return v;
  const ExprSizes::Size size = m_sizes.of(v->expr);
  const std::int64_t maxNodes = ir::resourceLimits().maxExpressionNodes;
  if (size.nodes > maxNodes)
    return Unexpected(error("te.too-large",
                            fmt::format("this expression has {} nodes once expanded, more than the limit of {}: a "
                                        "value used several times is copied into every use; compute it once as a "
                                        "tensor of its own and read that instead",
                                        size.nodes, maxNodes),
                            loc));
  if (size.height > syntax::maxExpressionHeight())
    return Unexpected(error("te.too-deep",
                            fmt::format("expression nested more than {} levels deep; compute part of it as a tensor "
                                        "of its own",
                                        syntax::maxExpressionHeight()),
                            loc));
  return v;
}

Result Evaluator::evalNode(const ast::Node& n) {
  using K = ast::NodeKind;
  switch (n.kind) {
  case K::Int: return makeInt(n.ival, n.loc);
  case K::Float: return makeFloat(n.fval, n.loc);
  case K::Str: {
    Value v;
    v.kind = ValueKind::Str;
    v.s = n.text;
    v.loc = n.loc;
    return v;
  }
  case K::None: {
    Value v;
    v.loc = n.loc;
    return v;
  }
  case K::True: return makeBool(true, n.loc);
  case K::False: return makeBool(false, n.loc);
  case K::Name: return evalName(n, false);
  case K::Tuple:
  case K::List:
  case K::Dict: {
    std::vector<Value> items;
    for (const auto& k : n.kids) {
      auto v = eval(*k);
      if (!v) return v;
      items.push_back(std::move(*v));
    }
    return makeSeq(n.kind == K::Tuple ? ValueKind::Tuple : n.kind == K::List ? ValueKind::List : ValueKind::Dict,
                   std::move(items), n.loc);
  }
  case K::Attribute:
  case K::Subscript:
  case K::Call: return evalPostfix(n);
  case K::Lambda: {
    Value v;
    v.kind = ValueKind::Lambda;
    v.lambda = &n;
    v.loc = n.loc;
    return v;
  }
  case K::Binary:
  case K::BoolOp: return evalChain(n);
  case K::Unary: {
    auto a = eval(*n.kids[0]);
    if (!a) return a;
    return unaryOp(n.text, *a, n.loc);
  }
  case K::Compare: {
    auto lhs = eval(*n.kids[0]);
    if (!lhs) return lhs;
    std::optional<Value> acc;
    for (std::size_t i = 0; i < n.ops.size(); ++i) {
      auto rhs = eval(*n.kids[i + 1]);
      if (!rhs) return rhs;
      auto c = compare(n.ops[i], *lhs, *rhs, n.loc);
      if (!c) return c;
      if (acc && acc->kind == ValueKind::Bool && c->kind == ValueKind::Bool) {
        acc = makeBool(acc->b && c->b, n.loc);
      } else if (acc) {
        auto joined = logical("and", *acc, *c, n.loc);
        if (!joined) return joined;
        acc = std::move(*joined);
      } else {
        acc = std::move(*c);
      }
      lhs = std::move(rhs);
    }
    acc->loc = n.loc;
    return *acc;
  }
  case K::IfExp: {
    auto cond = eval(*n.kids[0]);
    if (!cond) return cond;
    if (cond->kind == ValueKind::Expr || cond->kind == ValueKind::Axis)
      return Unexpected(error("te.bad-condition",
                              "a Python conditional expression needs a constant condition; use if_then_else(cond, a, b) "
                              "for conditions on tensor expressions",
                              n.kids[0]->loc));
    return eval(*n.kids[truthy(*cond) ? 1 : 2]);
  }
  case K::Slice:
  case K::Starred:
  case K::ListComp: break; // not in the .te grammar (te_parser.h)
  }
  return Unexpected(error("te.unsupported", "unsupported expression", n.loc));
}

Result Evaluator::evalChain(const ast::Node& n) {
  const ast::NodeKind kind = n.kind;
  std::vector<const ast::Node*> spine; // n, its left operand, ... while of n's kind
  for (const ast::Node* x = &n; x->kind == kind; x = x->kids[0].get())
    spine.push_back(x);
  auto acc = eval(*spine.back()->kids[0]);
  for (auto it = spine.rbegin(); it != spine.rend() && acc; ++it) {
    const ast::Node& op = **it;
    acc = checkSize(kind == ast::NodeKind::Binary ? binaryStep(op, std::move(*acc)) : boolStep(op, std::move(*acc)),
                    op.loc);
  }
  return acc;
}

Result Evaluator::binaryStep(const ast::Node& n, Value a) {
  auto b = eval(*n.kids[1]);
  if (!b) return b;
  return binaryOp(n.text, a, *b, n.loc);
}

Result Evaluator::boolStep(const ast::Node& n, Value a) {
  // Python short-circuits on plain values; expressions build And/Or.
  if (a.kind != ValueKind::Expr && a.kind != ValueKind::Axis && a.kind != ValueKind::Reduction) {
    bool t = truthy(a);
    if ((n.text == "and" && !t) || (n.text == "or" && t)) return a;
    auto b = eval(*n.kids[1]);
    if (!b) return b;
    if (b->kind != ValueKind::Expr && b->kind != ValueKind::Axis && b->kind != ValueKind::Reduction) return b;
    return logical(n.text, a, *b, n.loc);
  }
  auto b = eval(*n.kids[1]);
  if (!b) return b;
  return logical(n.text, a, *b, n.loc);
}

Result Evaluator::evalPostfix(const ast::Node& n) {
  auto isPostfix = [](ast::NodeKind k) {
    return k == ast::NodeKind::Attribute || k == ast::NodeKind::Subscript || k == ast::NodeKind::Call;
  };
  std::vector<const ast::Node*> spine; // n, its base, ... while attributes, subscripts or calls
  for (const ast::Node* x = &n; isPostfix(x->kind); x = x->kids[0].get())
    spine.push_back(x);
  const ast::Node& innermost = *spine.back();
  const ast::Node& base = *innermost.kids[0];
  // A called name is looked up among callables (for the "did you mean" note).
  Result v =
      innermost.kind == ast::NodeKind::Call && base.kind == ast::NodeKind::Name ? evalName(base, true) : eval(base);
  for (auto it = spine.rbegin(); it != spine.rend() && v; ++it) {
    const ast::Node& op = **it;
    Value target = std::move(*v);
    v = checkSize(op.kind == ast::NodeKind::Attribute   ? evalAttribute(op, std::move(target))
                  : op.kind == ast::NodeKind::Subscript ? evalSubscript(op, std::move(target))
                                                        : evalCall(op, std::move(target)),
                  op.loc);
  }
  return v;
}

Result Evaluator::evalAttribute(const ast::Node& n, Value baseValue) {
  const Value* base = &baseValue;
  const std::string& attr = n.text;
  SourceLocation attrLoc = n.loc;
  if (base->kind == ValueKind::Module) {
    std::string path = base->s + "." + attr;
    if (knownModulePath(path)) return makeModule(path, n.loc);
    if (isBuiltin(attr)) {
      Value v;
      v.kind = ValueKind::Builtin;
      v.s = attr;
      v.loc = n.loc;
      return v;
    }
    auto d = error("te.unknown-attribute", fmt::format("module '{}' has no attribute '{}'", base->s, attr), attrLoc);
    if (auto best = closestName(attr, builtinNames()); !best.empty()) d.notes.push_back(fmt::format("did you mean '{}'?", best));
    return Unexpected(std::move(d));
  }
  if (base->kind == ValueKind::Tensor) {
    const auto& t = *base->tensor;
    if (attr == "shape") {
      std::vector<Value> dims;
      for (const auto& e : t.buffer->shape) {
        if (auto c = ir::asConstInt(e)) dims.push_back(makeInt(*c, n.loc));
        else dims.push_back(makeExpr(e, n.loc));
      }
      return makeSeq(ValueKind::Tuple, std::move(dims), n.loc);
    }
    if (attr == "ndim") return makeInt(static_cast<std::int64_t>(t.buffer->ndim()), n.loc);
    if (attr == "dtype" || attr == "name") {
      Value v;
      v.kind = ValueKind::Str;
      v.s = attr == "dtype" ? t.buffer->dtype.str() : t.name;
      v.loc = n.loc;
      return v;
    }
    auto d = error("te.unknown-attribute", fmt::format("tensor '{}' has no attribute '{}'", t.name, attr), attrLoc);
    if (auto best = closestName(attr, {"shape", "ndim", "dtype", "name"}); !best.empty())
      d.notes.push_back(fmt::format("did you mean '{}'?", best));
    return Unexpected(std::move(d));
  }
  if (base->kind == ValueKind::Axis && attr == "var") {
    Value v = *base;
    v.loc = n.loc;
    return v;
  }
  return Unexpected(error("te.unknown-attribute", fmt::format("{} has no attribute '{}'", describeValue(*base), attr), attrLoc));
}

Result Evaluator::evalSubscript(const ast::Node& n, Value targetValue) {
  const Value* target = &targetValue;
  std::vector<Value> indices;
  for (std::size_t i = 1; i < n.kids.size(); ++i) {
    auto v = eval(*n.kids[i]);
    if (!v) return v;
    indices.push_back(std::move(*v));
  }
  if (target->kind == ValueKind::Tuple || target->kind == ValueKind::List) {
    if (indices.size() != 1 || indices[0].kind != ValueKind::Int)
      return Unexpected(error("te.bad-index", fmt::format("{} must be indexed by one integer", describeValue(*target)), n.loc));
    auto size = static_cast<std::int64_t>(target->items->size());
    std::int64_t i = indices[0].i;
    if (i < -size || i >= size)
      return Unexpected(error("te.index-out-of-range", fmt::format("index {} is out of range for {} of {} elements", i,
                                                                   target->kind == ValueKind::Tuple ? "a tuple" : "a list", size),
                              indices[0].loc));
    Value v = (*target->items)[static_cast<std::size_t>(i < 0 ? i + size : i)];
    v.loc = n.loc;
    return v;
  }
  if (target->kind != ValueKind::Tensor) {
    std::string what = describeValue(*target);
    if (n.kids[0]->kind == ast::NodeKind::Name)
      return Unexpected(error("te.not-a-tensor", fmt::format("'{}' is not a tensor ({}) and cannot be indexed", n.kids[0]->text, what), n.kids[0]->loc));
    return Unexpected(error("te.not-a-tensor", fmt::format("{} is not a tensor and cannot be indexed", what), n.kids[0]->loc));
  }
  const TensorInfo& t = *target->tensor;
  const auto& shape = t.buffer->shape;
  if (indices.size() != shape.size())
    return Unexpected(error("te.index-arity",
                            fmt::format("'{}' has {} dimension{} but {} ind{} given", t.name, shape.size(),
                                        shape.size() == 1 ? "" : "s", indices.size(), indices.size() == 1 ? "ex was" : "ices were"),
                            n.loc));
  std::vector<ir::Expr> exprs;
  for (std::size_t d = 0; d < indices.size(); ++d) {
    const Value& iv = indices[d];
    if (iv.kind == ValueKind::Float || iv.kind == ValueKind::Bool || (iv.kind == ValueKind::Expr && !iv.expr.dtype().isInteger()))
      return Unexpected(error("te.bad-index",
                              fmt::format("index {} of '{}' must be an integer, got {}", d, t.name,
                                          iv.kind == ValueKind::Expr ? iv.expr.dtype().str() : describeValue(iv)),
                              iv.loc));
    if (iv.kind == ValueKind::Int) {
      auto extent = ir::asConstInt(shape[d]);
      if (iv.i < 0 || (extent && iv.i >= *extent))
        return Unexpected(error("te.index-out-of-range",
                                extent ? fmt::format("index {} is out of bounds for dimension {} of '{}' (extent {})", iv.i, d, t.name, *extent)
                                       : fmt::format("index {} is out of bounds for dimension {} of '{}'", iv.i, d, t.name),
                                iv.loc));
    }
    auto e = toExpr(iv);
    if (!e) return std::unexpected(e.error());
    if (!e->dtype().isInteger() || !e->dtype().isScalar())
      return Unexpected(error("te.bad-index", fmt::format("index {} of '{}' must be an integer, got {}", d, t.name, describeValue(iv)), iv.loc));
    exprs.push_back(std::move(*e));
  }
  ir::Expr load = ir::BufferLoad::make(t.buffer, std::move(exprs));
  m_loadLocs.emplace(load.get(), n.loc);
  m_loadKeep.push_back(load);
  return makeExpr(std::move(load), n.loc);
}

Result Evaluator::evalCall(const ast::Node& n, Value calleeValue) {
  const ast::Node& calleeNode = *n.kids[0];
  const Value* callee = &calleeValue;
  std::vector<Arg> args;
  for (std::size_t i = 1; i < n.kids.size(); ++i) {
    Arg a;
    a.keyword = n.keywords[i - 1];
    a.keywordLoc = n.keywordLocs[i - 1];
    for (const auto& prev : args)
      if (!a.keyword.empty() && prev.keyword == a.keyword)
        return Unexpected(error("te.argument-count", fmt::format("keyword argument '{}' repeated", a.keyword), a.keywordLoc));
    a.useBegin = m_axisUses.size();
    auto v = eval(*n.kids[i]);
    if (!v) return v;
    a.useEnd = m_axisUses.size();
    a.value = std::move(*v);
    args.push_back(std::move(a));
  }
  if (callee->kind == ValueKind::Builtin) return callBuiltin(callee->s, n, args);
  if (callee->kind == ValueKind::Lambda) return callLambda(*callee, n, args);
  std::string what = describeValue(*callee);
  if (calleeNode.kind == ast::NodeKind::Name)
    return Unexpected(error("te.not-callable", fmt::format("'{}' is not callable ({})", calleeNode.text, what), calleeNode.loc));
  return Unexpected(error("te.not-callable", fmt::format("{} is not callable", what), calleeNode.loc));
}

Result Evaluator::callLambda(const Value& fn, const ast::Node& call, std::vector<Arg>& args) {
  const ast::Node& lambda = *fn.lambda;
  for (const auto& a : args)
    if (!a.keyword.empty())
      return Unexpected(error("te.unknown-keyword", fmt::format("a lambda takes no keyword arguments ('{}')", a.keyword), a.keywordLoc));
  if (args.size() != lambda.params.size())
    return Unexpected(error("te.argument-count",
                            fmt::format("the lambda takes {} argument{} but {} {} given", lambda.params.size(),
                                        lambda.params.size() == 1 ? "" : "s", args.size(), args.size() == 1 ? "was" : "were"),
                            call.loc));
  if (m_callDepth >= 64) return Unexpected(error("te.too-deep", "lambda calls nested too deeply", call.loc));
  std::map<std::string, Value> scope;
  for (std::size_t i = 0; i < args.size(); ++i) scope[lambda.params[i]] = args[i].value;
  m_locals.push_back(std::move(scope));
  ++m_callDepth;
  auto r = eval(*lambda.kids[0]);
  --m_callDepth;
  m_locals.pop_back();
  return r;
}

Expected<void> Evaluator::assign(const ast::Node& target, const Value& value) {
  using K = ast::NodeKind;
  switch (target.kind) {
  case K::Name: m_globals[target.text] = value; return {};
  case K::Tuple:
  case K::List: {
    if (value.kind != ValueKind::Tuple && value.kind != ValueKind::List)
      return Unexpected(error("te.unpack-mismatch",
                              fmt::format("cannot unpack {} into {} names", describeValue(value), target.kids.size()), value.loc));
    if (value.items->size() != target.kids.size())
      return Unexpected(error("te.unpack-mismatch",
                              fmt::format("cannot unpack {} value{} into {} name{}", value.items->size(),
                                          value.items->size() == 1 ? "" : "s", target.kids.size(), target.kids.size() == 1 ? "" : "s"),
                              target.loc));
    for (std::size_t i = 0; i < target.kids.size(); ++i)
      if (auto r = assign(*target.kids[i], (*value.items)[i]); !r) return r;
    return {};
  }
  case K::Subscript:
    return Unexpected(error("te.bad-assignment", "cannot assign to an element: tensors are immutable, define a new compute instead", target.loc));
  case K::Call: return Unexpected(error("te.bad-assignment", "cannot assign to a function call", target.loc));
  case K::Attribute: return Unexpected(error("te.bad-assignment", "cannot assign to an attribute", target.loc));
  case K::Int:
  case K::Float:
  case K::Str:
  case K::None:
  case K::True:
  case K::False: return Unexpected(error("te.bad-assignment", "cannot assign to a literal", target.loc));
  default: return Unexpected(error("te.bad-assignment", "cannot assign to an expression", target.loc));
  }
}

Expected<void> Evaluator::exec(const ast::Stmt& s) {
  m_stmt = &s;
  switch (s.kind) {
  case ast::StmtKind::Import:
    for (const auto& b : s.imports) {
      if (!knownModulePath(b.module) && b.module.rfind("tvm.", 0) != 0 && b.module != "tvm")
        return Unexpected(error("te.unsupported-import",
                                fmt::format("module '{}' is not available: only tvm modules (tvm, tvm.te, tvm.tir) may be imported", b.module),
                                b.loc));
      m_globals[b.alias] = makeModule(b.module, b.loc);
    }
    return {};
  case ast::StmtKind::Expr: {
    auto v = eval(*s.value);
    if (!v) return std::unexpected(v.error());
    return {};
  }
  case ast::StmtKind::AugAssign: {
    const ast::Node& target = *s.targets[0];
    if (target.kind != ast::NodeKind::Name)
      return Unexpected(error("te.bad-assignment", fmt::format("'{}=' needs a plain name on its left", s.op), target.loc));
    auto current = evalName(target, false);
    if (!current) return std::unexpected(current.error());
    auto rhs = eval(*s.value);
    if (!rhs) return std::unexpected(rhs.error());
    auto v = checkSize(binaryOp(s.op, *current, *rhs, s.loc), s.loc);
    if (!v) return std::unexpected(v.error());
    m_globals[target.text] = std::move(*v);
    return {};
  }
  case ast::StmtKind::Assign: {
    for (const auto& t : s.targets) {
      // Reject bad targets before evaluating the value, so the error is about the target.
      if (t->kind != ast::NodeKind::Name && t->kind != ast::NodeKind::Tuple && t->kind != ast::NodeKind::List)
        return assign(*t, Value{});
    }
    auto v = eval(*s.value);
    if (!v) return std::unexpected(v.error());
    for (const auto& t : s.targets)
      if (auto r = assign(*t, *v); !r) return r;
    return {};
  }
  case ast::StmtKind::Pass: return {};
  case ast::StmtKind::Return:
  case ast::StmtKind::FunctionDef:
  case ast::StmtKind::ClassDef:
  case ast::StmtKind::For:
  case ast::StmtKind::If:
  case ast::StmtKind::With: break; // refused by the .te parser (te_parser.h)
  }
  return Unexpected(error("te.unsupported", "unsupported statement", s.loc));
}

Expected<void> Evaluator::collectOutputs(TeProgram& program) {
  auto it = m_globals.find("outputs");
  if (it == m_globals.end()) {
    for (const auto& t : m_tensors) {
      if (!t->isCompute || !t->scanOwner.empty()) continue;
      bool consumed = false;
      for (const auto& other : m_tensors) {
        if (!other->isCompute || other == t || other->scan) continue;
        ir::Expr body = other->reduction ? other->reduction->source : other->body;
        ir::forEachExpr(body, [&](const ir::Expr& e) {
          if (const auto* load = e.as<ir::BufferLoad>(); load && load->buffer.sameAs(t->buffer)) consumed = true;
        });
      }
      if (!consumed) program.outputs.push_back(t);
    }
    return {};
  }
  const Value& v = it->second;
  if (v.kind != ValueKind::List && v.kind != ValueKind::Tuple)
    return Unexpected(error("te.bad-outputs", fmt::format("outputs must be a list of computes, got {}", describeValue(v)), v.loc));
  if (v.items->empty()) return Unexpected(error("te.bad-outputs", "outputs must name at least one compute", v.loc));
  for (const auto& item : *v.items) {
    if (item.kind != ValueKind::Tensor || !item.tensor->isCompute)
      return Unexpected(error("te.bad-outputs",
                              fmt::format("outputs must be a list of computes, but this element is {}{}", describeValue(item),
                                          item.kind == ValueKind::Tensor ? " (a placeholder)" : ""),
                              item.loc));
    if (const auto& owner = item.tensor->scanOwner; !owner.empty()) {
      const auto& scan = *std::find_if(m_tensors.begin(), m_tensors.end(), [&](const auto& x) { return x->name == owner; });
      return Unexpected(error("te.bad-outputs",
                              fmt::format("compute '{}' is the {} of scan '{}'; list the scan '{}' in outputs instead", item.tensor->name,
                                          scan->scan->init == item.tensor ? "init" : "update", owner, owner),
                              item.loc));
    }
    for (const auto& prev : program.outputs)
      if (prev == item.tensor)
        return Unexpected(error("te.bad-outputs", fmt::format("compute '{}' is listed twice in outputs", item.tensor->name), item.loc));
    program.outputs.push_back(item.tensor);
  }
  return {};
}

Expected<TeProgram> Evaluator::run(const ast::Module& module) {
  for (const auto& s : module.body)
    if (s.kind == ast::StmtKind::Assign || s.kind == ast::StmtKind::AugAssign)
      for (const auto& t : s.targets) collectTargetNames(*t, s.loc.line, m_firstAssignLine);
  for (const auto& s : module.body)
    if (auto r = exec(s); !r) return std::unexpected(r.error());
  m_stmt = nullptr;
  if (auto r = checkScanUses(); !r) return std::unexpected(r.error());
  TeProgram program;
  bool anyCompute = false;
  for (const auto& t : m_tensors) {
    program.tensors.push_back(t);
    anyCompute = anyCompute || t->isCompute;
  }
  if (!anyCompute)
    return Unexpected(error("te.empty-program", "the program defines no compute: nothing to lower", SourceLocation{m_file, 0, 0, 1}));
  if (auto r = collectOutputs(program); !r) return std::unexpected(r.error());
  return program;
}

} // namespace detail

Expected<TeProgram> evaluateTe(const ast::Module& module, const std::string& fileName) {
  return detail::Evaluator(fileName).run(module);
}

} // namespace loopscape::frontend
