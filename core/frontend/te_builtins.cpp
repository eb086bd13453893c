// The builtin functions of the .te language (TVM's te / tir API subset): placeholder,
// compute, reduce_axis, var/size_var, the reductions sum/max/min, if_then_else/select,
// scan (te_scan.cpp),
// math intrinsics, casts, const, all/any, floordiv/floormod, elementwise max/min.
#include "core/frontend/te_eval_detail.h"
#include "core/ir/buffer.h"
#include "core/ir/op.h"
#include "core/ir/resource_limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace loopscape::frontend::detail {

namespace {

struct Signature {
  std::vector<std::string> params;
  std::size_t required = 0;
};

const std::vector<std::string> kMath1 = {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "fabs", "floor", "ceil", "round"};
const std::vector<std::string> kCasts = {"bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"};

bool contains(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::optional<Signature> signatureOf(std::string_view name) {
  if (name == "placeholder") return Signature{{"shape", "dtype", "name"}, 1};
  if (name == "compute") return Signature{{"shape", "fcompute", "name", "tag", "attrs"}, 2};
  if (name == "reduce_axis") return Signature{{"dom", "name"}, 1};
  if (name == "scan") return Signature{{"init", "update", "state_placeholder", "inputs", "name", "tag", "attrs"}, 3};
  if (name == "var") return Signature{{"name", "dtype"}, 0};
  if (name == "size_var") return Signature{{"name", "dtype"}, 0};
  if (name == "sum") return Signature{{"expr", "axis"}, 2};
  if (name == "if_then_else" || name == "select") return Signature{{"cond", "t", "f"}, 3};
  if (contains(kMath1, name) || name == "abs") return Signature{{"x"}, 1};
  if (name == "pow" || name == "power") return Signature{{"x", "y"}, 2};
  if (name == "fma") return Signature{{"a", "b", "c"}, 3};
  if (name == "const") return Signature{{"value", "dtype"}, 1};
  if (contains(kCasts, name)) return Signature{{"x"}, 1};
  if (name == "floordiv" || name == "floormod") return Signature{{"a", "b"}, 2};
  return std::nullopt;
}

bool isIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

} // namespace

const std::vector<std::string>& builtinNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = {"placeholder", "compute", "reduce_axis", "var", "size_var", "sum", "max", "min",
                                  "if_then_else", "select", "pow", "power", "fma", "abs", "const", "all", "any",
                                  "floordiv", "floormod", "scan"};
    v.insert(v.end(), kMath1.begin(), kMath1.end());
    v.insert(v.end(), kCasts.begin(), kCasts.end());
    std::sort(v.begin(), v.end());
    return v;
  }();
  return names;
}

bool isBuiltin(std::string_view name) { return contains(builtinNames(), name); }

namespace {

/// Matches the evaluated arguments of a call against a signature, Python style.
Expected<std::vector<std::optional<Value>>> bindArgs(const Evaluator& ev, const std::string& fn, const Signature& sig,
                                                     const ast::Node& call, const std::vector<Arg>& args) {
  std::vector<std::optional<Value>> bound(sig.params.size());
  std::size_t positional = 0;
  for (const auto& a : args) {
    if (a.keyword.empty()) {
      if (positional >= sig.params.size())
        return Unexpected(ev.error("te.argument-count",
                                   fmt::format("{}() takes at most {} argument{} ({} given)", fn, sig.params.size(),
                                               sig.params.size() == 1 ? "" : "s", std::count_if(args.begin(), args.end(), [](const Arg& x) { return x.keyword.empty(); })),
                                   a.value.loc));
      bound[positional++] = a.value;
      continue;
    }
    auto it = std::find(sig.params.begin(), sig.params.end(), a.keyword);
    if (it == sig.params.end()) {
      auto d = ev.error("te.unknown-keyword", fmt::format("{}() got an unexpected keyword argument '{}'", fn, a.keyword), a.keywordLoc);
      if (auto best = closestName(a.keyword, sig.params); !best.empty()) d.notes.push_back(fmt::format("did you mean '{}'?", best));
      else d.notes.push_back(fmt::format("{}() takes: {}", fn, joined(sig.params)));
      return Unexpected(std::move(d));
    }
    auto index = static_cast<std::size_t>(it - sig.params.begin());
    if (bound[index])
      return Unexpected(ev.error("te.argument-count", fmt::format("{}() got multiple values for argument '{}'", fn, a.keyword), a.keywordLoc));
    bound[index] = a.value;
  }
  for (std::size_t i = 0; i < sig.required; ++i)
    if (!bound[i])
      return Unexpected(ev.error("te.argument-count", fmt::format("{}() missing required argument '{}'", fn, sig.params[i]), call.loc));
  return bound;
}

} // namespace

Expected<std::string> Evaluator::nameArg(const std::optional<Value>& v, std::string fallback, std::string_view fn) {
  if (!v || v->kind == ValueKind::None) return fallback;
  if (v->kind != ValueKind::Str)
    return Unexpected(error("te.bad-argument", fmt::format("the name given to {}() must be a string, got {}", fn, describeValue(*v)), v->loc));
  if (!isIdentifier(v->s))
    return Unexpected(error("te.bad-argument", fmt::format("name '{}' is not an identifier (letters, digits and '_')", v->s), v->loc));
  return v->s;
}

Expected<ir::DataType> Evaluator::dtypeOf(const Value& v) {
  if (v.kind != ValueKind::Str)
    return Unexpected(error("te.bad-argument", fmt::format("dtype must be a string such as \"float32\", got {}", describeValue(v)), v.loc));
  auto t = ir::DataType::parse(v.s);
  if (t && t->isScalar()) return *t;
  auto d = error("te.unknown-dtype", fmt::format("unknown dtype '{}'", v.s), v.loc);
  if (auto best = closestName(v.s, kCasts); !best.empty()) d.notes.push_back(fmt::format("did you mean '{}'?", best));
  d.notes.push_back(fmt::format("known dtypes: {}", joined(kCasts)));
  return Unexpected(std::move(d));
}

Expected<std::vector<ir::Expr>> Evaluator::shapeOf(const Value& v, std::string_view fn) {
  if (v.kind != ValueKind::Tuple && v.kind != ValueKind::List)
    return Unexpected(error("te.bad-shape", fmt::format("the shape given to {}() must be a tuple or list of extents, got {}", fn, describeValue(v)), v.loc));
  if (const auto limit = static_cast<std::size_t>(ir::resourceLimits().maxNestingDepth); v.items->size() > limit)
    return Unexpected(error("te.too-many-dims",
                            fmt::format("the shape given to {}() has {} dimensions, more than the limit of {} (each "
                                        "dimension becomes a nested loop)",
                                        fn, v.items->size(), limit),
                            v.loc));
  std::vector<ir::Expr> shape;
  for (const auto& e : *v.items) {
    if (e.kind == ValueKind::Int) {
      if (e.i <= 0) return Unexpected(error("te.bad-extent", fmt::format("extent must be positive, got {}", e.i), e.loc));
      if (e.i > std::numeric_limits<std::int32_t>::max())
        return Unexpected(error("te.bad-extent", fmt::format("extent {} does not fit in int32", e.i), e.loc));
      shape.push_back(ir::intImm(e.i));
      continue;
    }
    if (e.kind == ValueKind::Expr && e.expr.dtype() == ir::DataType::int32()) {
      if (auto c = ir::asConstInt(e.expr); c && *c <= 0)
        return Unexpected(error("te.bad-extent", fmt::format("extent must be positive, got {}", *c), e.loc));
      shape.push_back(e.expr);
      continue;
    }
    std::string got = e.kind == ValueKind::Expr ? fmt::format("an expression of type {}", e.expr.dtype().str()) : describeValue(e);
    return Unexpected(error("te.bad-shape", fmt::format("shape element must be an int32 integer or size expression, got {}", got), e.loc));
  }
  return shape;
}

std::string Evaluator::uniqueTensorName(const std::string& base) const {
  auto taken = [&](const std::string& n) {
    return std::any_of(m_tensors.begin(), m_tensors.end(), [&](const auto& t) { return t->name == n; });
  };
  std::string name = base;
  for (int k = 1; taken(name); ++k) name = fmt::format("{}_{}", base, k);
  return name;
}

Expected<void> Evaluator::checkNewTensorName(const std::string& name, const SourceLocation& loc) {
  if (name == "root") return Unexpected(error("te.duplicate-name", "the name 'root' is reserved for the root block", loc));
  for (const auto& t : m_tensors) {
    if (t->name != name) continue;
    auto d = error("te.duplicate-name", fmt::format("a tensor named '{}' is already defined", name), loc);
    d.notes.push_back(fmt::format("'{}' was first defined at line {}, column {}", name, t->loc.line, t->loc.column));
    return Unexpected(std::move(d));
  }
  return {};
}

Expected<ir::Annotations> Evaluator::attrsOf(const Value& v) {
  if (v.kind != ValueKind::Dict)
    return Unexpected(error("te.bad-argument", fmt::format("attrs must be a dict, got {}", describeValue(v)), v.loc));
  ir::Annotations attrs;
  const auto& items = *v.items;
  for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
    const Value& key = items[i];
    const Value& value = items[i + 1];
    if (key.kind != ValueKind::Str)
      return Unexpected(error("te.bad-argument", fmt::format("attrs keys must be strings, got {}", describeValue(key)), key.loc));
    if (value.kind == ValueKind::Int || value.kind == ValueKind::Bool) attrs[key.s] = ir::intImm(value.kind == ValueKind::Bool ? value.b : value.i, value.kind == ValueKind::Bool ? ir::DataType::boolean() : ir::DataType::int32());
    else if (value.kind == ValueKind::Float) attrs[key.s] = ir::floatImm(value.f);
    else if (value.kind == ValueKind::Str) attrs[key.s] = ir::StringImm::make(value.s);
    else
      return Unexpected(error("te.bad-argument", fmt::format("attrs values must be int, float or str, got {}", describeValue(value)), value.loc));
  }
  return attrs;
}

Result Evaluator::builtinPlaceholder(const ast::Node& call, std::vector<std::optional<Value>>& a) {
  auto shape = shapeOf(*a[0], "placeholder");
  if (!shape) return std::unexpected(shape.error());
  ir::DataType dtype = ir::DataType::float32();
  if (a[1] && a[1]->kind != ValueKind::None) {
    auto t = dtypeOf(*a[1]);
    if (!t) return std::unexpected(t.error());
    dtype = *t;
  }
  auto name = nameArg(a[2], "placeholder", "placeholder");
  if (!name) return std::unexpected(name.error());
  if (!a[2] || a[2]->kind == ValueKind::None) *name = uniqueTensorName(*name);
  if (auto r = checkNewTensorName(*name, a[2] ? a[2]->loc : call.loc); !r) return std::unexpected(r.error());
  auto t = std::make_shared<TensorInfo>();
  t->name = *name;
  t->loc = call.loc;
  t->buffer = ir::makeBuffer(*name, dtype, std::move(*shape));
  m_tensors.push_back(t);
  Value v;
  v.kind = ValueKind::Tensor;
  v.tensor = t;
  v.loc = call.loc;
  return v;
}

Result Evaluator::builtinCompute(const ast::Node& call, std::vector<std::optional<Value>>& a) {
  auto shape = shapeOf(*a[0], "compute");
  if (!shape) return std::unexpected(shape.error());
  const Value& fn = *a[1];
  if (fn.kind != ValueKind::Lambda)
    return Unexpected(error("te.bad-argument", fmt::format("compute() needs a lambda for fcompute, got {}", describeValue(fn)), fn.loc));
  const ast::Node& lambda = *fn.lambda;
  if (lambda.params.size() != shape->size())
    return Unexpected(error("te.lambda-arity",
                            fmt::format("the lambda takes {} parameter{} but the shape has {} dimension{}", lambda.params.size(),
                                        lambda.params.size() == 1 ? "" : "s", shape->size(), shape->size() == 1 ? "" : "s"),
                            lambda.loc));
  for (std::size_t i = 0; i < lambda.params.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (lambda.params[i] == lambda.params[j])
        return Unexpected(error("te.duplicate-name", fmt::format("duplicate lambda parameter '{}'", lambda.params[i]), lambda.paramLocs[i]));
  auto name = nameArg(a[2], "compute", "compute");
  if (!name) return std::unexpected(name.error());
  if (!a[2] || a[2]->kind == ValueKind::None) *name = uniqueTensorName(*name);
  auto t = std::make_shared<TensorInfo>();
  t->isCompute = true;
  t->name = *name;
  t->loc = call.loc;
  if (a[3] && a[3]->kind != ValueKind::None) {
    if (a[3]->kind != ValueKind::Str)
      return Unexpected(error("te.bad-argument", fmt::format("tag must be a string, got {}", describeValue(*a[3])), a[3]->loc));
    t->tag = a[3]->s;
  }
  if (a[4] && a[4]->kind != ValueKind::None) {
    auto attrs = attrsOf(*a[4]);
    if (!attrs) return std::unexpected(attrs.error());
    t->attrs = std::move(*attrs);
  }
  if (auto r = checkNewTensorName(*name, a[2] ? a[2]->loc : call.loc); !r) return std::unexpected(r.error());

  // Evaluate the body once, with each parameter bound to an int32 Var of its name.
  std::map<std::string, Value> scope;
  for (std::size_t i = 0; i < lambda.params.size(); ++i) {
    auto var = ir::Var::make(lambda.params[i], ir::DataType::int32());
    t->params.push_back(var);
    scope[lambda.params[i]] = makeExpr(var, lambda.paramLocs[i]);
  }
  std::size_t useStart = m_axisUses.size();
  auto savedLocals = std::move(m_locals);
  m_locals.clear();
  m_locals.push_back(std::move(scope));
  ++m_computeDepth;
  auto body = eval(*lambda.kids[0]);
  --m_computeDepth;
  m_locals = std::move(savedLocals);
  std::vector<AxisUse> uses(m_axisUses.begin() + static_cast<std::ptrdiff_t>(useStart), m_axisUses.end());
  m_axisUses.resize(useStart);
  if (!body) return body;
  for (const auto& u : uses)
    if (!u.claimed)
      return Unexpected(error("te.reduce-axis-outside", fmt::format("reduce axis '{}' is used outside a reduction", u.axis->name), u.loc));
  ir::DataType dtype;
  if (body->kind == ValueKind::Reduction) {
    t->reduction = body->reduction;
    dtype = body->reduction->source.dtype();
  } else {
    if (body->kind != ValueKind::Expr && !body->isPyNumber() && body->kind != ValueKind::Tensor && body->kind != ValueKind::Axis)
      return Unexpected(error("te.bad-argument", fmt::format("the compute lambda must return an expression, got {}", describeValue(*body)), lambda.kids[0]->loc));
    auto e = toExpr(*body);
    if (!e) return std::unexpected(e.error());
    t->body = *e;
    dtype = e->dtype();
  }
  // Loop names must be unique within the block: parameters, then reduce axes.
  std::vector<std::string> loopNames = lambda.params;
  if (t->reduction)
    for (const auto& ax : t->reduction->axes) {
      if (contains(loopNames, ax->name))
        return Unexpected(error("te.duplicate-name",
                                fmt::format("loop name '{}' is used twice in compute '{}' (a lambda parameter or reduce axis has the same name)", ax->name, t->name),
                                t->reduction->loc));
      loopNames.push_back(ax->name);
    }
  if (const auto limit = static_cast<std::size_t>(ir::resourceLimits().maxNestingDepth); loopNames.size() > limit)
    return Unexpected(error("te.too-many-dims",
                            fmt::format("compute '{}' has {} nested loops (dimensions and reduce axes), more than the "
                                        "limit of {}",
                                        t->name, loopNames.size(), limit),
                            t->reduction ? t->reduction->loc : call.loc));
  t->buffer = ir::makeBuffer(t->name, dtype, std::move(*shape));
  m_tensors.push_back(t);
  Value v;
  v.kind = ValueKind::Tensor;
  v.tensor = t;
  v.loc = call.loc;
  return v;
}

Result Evaluator::builtinReduceAxis(const ast::Node& call, std::vector<std::optional<Value>>& a) {
  const Value& dom = *a[0];
  if ((dom.kind != ValueKind::Tuple && dom.kind != ValueKind::List) || dom.items->size() != 2)
    return Unexpected(error("te.bad-argument", fmt::format("reduce_axis() needs a domain (lo, hi), got {}", describeValue(dom)), dom.loc));
  const Value& lo = (*dom.items)[0];
  const Value& hi = (*dom.items)[1];
  for (const Value* b : {&lo, &hi}) {
    bool ok = b->kind == ValueKind::Int || (b->kind == ValueKind::Expr && b->expr.dtype() == ir::DataType::int32());
    if (!ok)
      return Unexpected(error("te.bad-shape", fmt::format("reduce_axis() bounds must be int32 integers or size expressions, got {}", describeValue(*b)), b->loc));
  }
  if (lo.kind == ValueKind::Int && hi.kind == ValueKind::Int) {
    if (hi.i <= lo.i) return Unexpected(error("te.bad-extent", fmt::format("reduce axis domain ({}, {}) is empty", lo.i, hi.i), dom.loc));
    if (hi.i - lo.i > std::numeric_limits<std::int32_t>::max() || lo.i < std::numeric_limits<std::int32_t>::min())
      return Unexpected(error("te.bad-extent", fmt::format("reduce axis domain ({}, {}) does not fit in int32", lo.i, hi.i), dom.loc));
  }
  auto name = nameArg(a[1], "rv", "reduce_axis");
  if (!name) return std::unexpected(name.error());
  auto extent = lo.kind == ValueKind::Int && lo.i == 0 ? hi : binaryOp("-", hi, lo, dom.loc);
  if (!extent) return extent;
  auto axis = std::make_shared<ReduceAxisInfo>();
  axis->name = *name;
  axis->var = ir::Var::make(*name, ir::DataType::int32());
  auto minExpr = toExpr(lo);
  auto extentExpr = toExpr(*extent);
  if (!minExpr || !extentExpr) return Unexpected(error("te.bad-extent", "bad reduce axis domain", dom.loc));
  axis->min = *minExpr;
  axis->extent = *extentExpr;
  axis->loc = call.loc;
  Value v;
  v.kind = ValueKind::Axis;
  v.axis = axis;
  v.loc = call.loc;
  return v;
}

Result Evaluator::builtinReduction(const std::string& name, const ast::Node& call, std::vector<Arg>& args) {
  bool hasAxisKeyword = std::any_of(args.begin(), args.end(), [](const Arg& x) { return x.keyword == "axis"; });
  auto isAxisValue = [](const Value& v) {
    if (v.kind == ValueKind::Axis) return true;
    if (v.kind != ValueKind::Tuple && v.kind != ValueKind::List) return false;
    return !v.items->empty() && std::all_of(v.items->begin(), v.items->end(), [](const Value& x) { return x.kind == ValueKind::Axis; });
  };
  bool reduction = name == "sum" || hasAxisKeyword || (args.size() == 2 && args[1].keyword.empty() && isAxisValue(args[1].value));
  if (!reduction) {
    // Elementwise max(a, b) / min(a, b), as te.max / te.min with two scalars.
    for (const auto& x : args)
      if (!x.keyword.empty())
        return Unexpected(error("te.unknown-keyword", fmt::format("{}() got an unexpected keyword argument '{}'", name, x.keyword), x.keywordLoc));
    if (args.size() != 2)
      return Unexpected(error("te.argument-count",
                              fmt::format("{}() takes two values (elementwise) or an expression and axis= (reduction), {} given", name, args.size()),
                              call.loc));
    const Value& x = args[0].value;
    const Value& y = args[1].value;
    if (x.isPyNumber() && y.isPyNumber()) {
      auto less = compare("<", x, y, call.loc);
      if (!less) return less;
      bool pickY = name == "max" ? less->b : !less->b;
      Value r = pickY ? y : x;
      r.loc = call.loc;
      return r;
    }
    auto operands = unify(x, y, call.loc);
    if (!operands) return std::unexpected(operands.error());
    if (operands->first.dtype().isBool())
      return Unexpected(error("te.type-mismatch", fmt::format("{}() needs numeric operands, got bool", name), call.loc));
    return makeExpr(foldedArith(name, operands->first, operands->second), call.loc);
  }
  Signature sig{{"expr", "axis"}, 2};
  auto bound = bindArgs(*this, name, sig, call, args);
  if (!bound) return std::unexpected(bound.error());
  if (m_computeDepth == 0)
    return Unexpected(error("te.reduction-not-top-level", "reduction must be the top level expression of compute", call.loc));
  const Value& axisValue = *(*bound)[1];
  if (!isAxisValue(axisValue))
    return Unexpected(error("te.bad-argument", fmt::format("axis= must be a reduce_axis or a list of them, got {}", describeValue(axisValue)), axisValue.loc));
  auto info = std::make_shared<ReductionInfo>();
  info->combiner = name == "sum" ? Combiner::Sum : name == "max" ? Combiner::Max : Combiner::Min;
  info->loc = call.loc;
  if (axisValue.kind == ValueKind::Axis) {
    info->axes.push_back(axisValue.axis);
  } else {
    for (const auto& x : *axisValue.items)
      if (std::find(info->axes.begin(), info->axes.end(), x.axis) == info->axes.end()) info->axes.push_back(x.axis);
  }
  // The source is the first argument (positional or expr=).
  const Arg* sourceArg = nullptr;
  for (const auto& x : args)
    if ((x.keyword.empty() && !sourceArg) || x.keyword == "expr") sourceArg = &x;
  std::size_t before = m_axisUses.size();
  auto source = toExpr(*(*bound)[0]);
  if (!source) return std::unexpected(source.error());
  if (source->dtype().isBool() || !source->dtype().isScalar())
    return Unexpected(error("te.type-mismatch", fmt::format("cannot {} values of type {}", name, source->dtype().str()), (*bound)[0]->loc));
  auto claim = [&](AxisUse& u) -> Expected<void> {
    if (std::find(info->axes.begin(), info->axes.end(), u.axis) == info->axes.end()) {
      std::vector<std::string> names;
      for (const auto& ax : info->axes) names.push_back(ax->name);
      names.push_back(u.axis->name);
      auto d = error("te.reduce-axis-not-listed", fmt::format("reduce axis '{}' is not listed in axis= of this reduction", u.axis->name), u.loc);
      d.notes.push_back(fmt::format("list every reduce axis the expression uses, e.g. axis=[{}]", joined(names)));
      return Unexpected(std::move(d));
    }
    u.claimed = true;
    return {};
  };
  if (sourceArg)
    for (std::size_t i = sourceArg->useBegin; i < sourceArg->useEnd && i < m_axisUses.size(); ++i)
      if (auto r = claim(m_axisUses[i]); !r) return std::unexpected(r.error());
  for (std::size_t i = before; i < m_axisUses.size(); ++i)
    if (auto r = claim(m_axisUses[i]); !r) return std::unexpected(r.error());
  info->source = *source;
  Value v;
  v.kind = ValueKind::Reduction;
  v.reduction = info;
  v.loc = call.loc;
  return v;
}

Result Evaluator::callBuiltin(const std::string& name, const ast::Node& call, std::vector<Arg>& args) {
  if (name == "max" || name == "min" || name == "sum") return builtinReduction(name, call, args);
  if (name == "all" || name == "any") {
    for (const auto& x : args)
      if (!x.keyword.empty())
        return Unexpected(error("te.unknown-keyword", fmt::format("{}() got an unexpected keyword argument '{}'", name, x.keyword), x.keywordLoc));
    std::vector<Value> conds;
    if (args.size() == 1 && (args[0].value.kind == ValueKind::List || args[0].value.kind == ValueKind::Tuple)) conds = *args[0].value.items;
    else
      for (const auto& x : args) conds.push_back(x.value);
    if (conds.empty()) return Unexpected(error("te.argument-count", fmt::format("{}() needs at least one condition", name), call.loc));
    std::optional<Value> acc;
    for (const auto& c : conds) {
      if (!acc) {
        auto e = toCondition(c, fmt::format("an argument of {}()", name));
        if (!e) return std::unexpected(e.error());
        acc = c.kind == ValueKind::Bool ? c : makeExpr(*e, c.loc);
        continue;
      }
      if (acc->kind == ValueKind::Bool && c.kind == ValueKind::Bool) {
        acc = makeBool(name == "all" ? (acc->b && c.b) : (acc->b || c.b), call.loc);
        continue;
      }
      auto r = logical(name == "all" ? "and" : "or", *acc, c, call.loc);
      if (!r) return r;
      acc = std::move(*r);
    }
    acc->loc = call.loc;
    return *acc;
  }
  auto sig = signatureOf(name);
  if (!sig) return Unexpected(error("te.not-callable", fmt::format("'{}' is not callable", name), call.loc));
  auto bound = bindArgs(*this, name, *sig, call, args);
  if (!bound) return std::unexpected(bound.error());
  auto& a = *bound;
  bool define = name == "placeholder" || name == "compute" || name == "reduce_axis" || name == "var" || name == "size_var" || name == "scan";
  if (define && m_computeDepth > 0)
    return Unexpected(error("te.unsupported", fmt::format("{}() cannot be called inside a compute lambda", name), call.loc));
  if (name == "placeholder") return builtinPlaceholder(call, a);
  if (name == "compute") return builtinCompute(call, a);
  if (name == "reduce_axis") return builtinReduceAxis(call, a);
  if (name == "scan") return builtinScan(call, a);
  if (name == "var" || name == "size_var") {
    auto varName = nameArg(a[0], name == "var" ? "tindex" : "size", name);
    if (!varName) return std::unexpected(varName.error());
    if (a[1] && a[1]->kind != ValueKind::None) {
      auto t = dtypeOf(*a[1]);
      if (!t) return std::unexpected(t.error());
      if (*t != ir::DataType::int32())
        return Unexpected(error("te.unsupported", fmt::format("only int32 size variables are supported, got {}", t->str()), a[1]->loc));
    }
    return makeExpr(ir::Var::make(*varName, ir::DataType::int32()), call.loc);
  }
  if (name == "if_then_else" || name == "select") {
    auto cond = toCondition(*a[0], fmt::format("the condition of {}", name));
    if (!cond) return std::unexpected(cond.error());
    auto branches = unify(*a[1], *a[2], call.loc);
    if (!branches) return std::unexpected(branches.error());
    // te.if_then_else evaluates only the taken branch (TVM's tir.if_then_else); select
    // is TVM's Select.
    return makeExpr(ir::Select::make(*cond, branches->first, branches->second, name == "if_then_else"), call.loc);
  }
  if (name == "floordiv") return binaryOp("//", *a[0], *a[1], call.loc);
  if (name == "floormod") return binaryOp("%", *a[0], *a[1], call.loc);
  if (name == "abs") {
    const Value& x = *a[0];
    if (x.kind == ValueKind::Int || x.kind == ValueKind::Bool) return unaryOp(x.kind == ValueKind::Int && x.i < 0 ? "-" : "+", x, call.loc);
    if (x.kind == ValueKind::Float) return makeFloat(std::fabs(x.f), call.loc);
    auto e = toExpr(x);
    if (!e) return std::unexpected(e.error());
    ir::DataType t = e->dtype();
    if (t.isFloat()) return makeExpr(ir::Call::make(t, ir::CallOp::Fabs, {*e}), call.loc);
    if (t.isUInt()) return makeExpr(*e, call.loc);
    if (t.isInt()) return makeExpr(foldedArith("max", *e, foldedArith("*", *e, ir::makeConst(t, -1))), call.loc);
    return Unexpected(error("te.type-mismatch", fmt::format("abs() needs a numeric argument, got {}", t.str()), x.loc));
  }
  if (name == "const") {
    const Value& x = *a[0];
    if (!x.isPyNumber())
      return Unexpected(error("te.bad-argument", fmt::format("const() needs a number, got {}", describeValue(x)), x.loc));
    if (!a[1] || a[1]->kind == ValueKind::None) {
      auto e = toExpr(x);
      if (!e) return std::unexpected(e.error());
      return makeExpr(*e, call.loc);
    }
    auto t = dtypeOf(*a[1]);
    if (!t) return std::unexpected(t.error());
    std::vector<Arg> castArgs(1);
    castArgs[0].value = x;
    return callBuiltin(t->str(), call, castArgs);
  }
  if (contains(kCasts, name)) {
    ir::DataType t = *ir::DataType::parse(name);
    const Value& x = *a[0];
    if (x.isPyNumber()) {
      if (t.isFloat()) return makeExpr(ir::FloatImm::make(t, x.kind == ValueKind::Float ? x.f : static_cast<double>(x.kind == ValueKind::Bool ? x.b : x.i)), call.loc);
      std::int64_t v;
      if (x.kind == ValueKind::Float) {
        if (!std::isfinite(x.f) || x.f != std::trunc(x.f) || std::fabs(x.f) > 9.2e18)
          return Unexpected(error("te.bad-argument", fmt::format("{} is not an integer constant of type {}", x.f, name), x.loc));
        v = static_cast<std::int64_t>(x.f);
      } else {
        v = x.kind == ValueKind::Bool ? x.b : x.i;
      }
      if (t.isBool()) return makeExpr(ir::boolImm(v != 0), call.loc);
      if (ir::wrapInt(t, v) != v)
        return Unexpected(error("te.overflow", fmt::format("{} does not fit in {}", v, name), x.loc));
      return makeExpr(ir::IntImm::make(t, v), call.loc);
    }
    auto e = toExpr(x);
    if (!e) return std::unexpected(e.error());
    if (!e->dtype().isScalar()) return Unexpected(error("te.type-mismatch", "vector expressions are not supported", x.loc));
    return makeExpr(e->dtype() == t ? *e : ir::Cast::make(t, *e), call.loc);
  }
  // Math intrinsics: floating-point arguments of one type (Python numbers adopt it).
  std::optional<ir::DataType> t;
  for (const auto& x : a) {
    if (!x || x->isPyNumber()) continue;
    auto e = toExpr(*x);
    if (!e) return std::unexpected(e.error());
    if (!e->dtype().isFloat() || !e->dtype().isScalar()) {
      auto d = error("te.type-mismatch", fmt::format("{}() needs floating-point arguments, got {}", name, e->dtype().str()), x->loc);
      d.notes.push_back(fmt::format("cast the argument, e.g. {}(float32(...))", name));
      return Unexpected(std::move(d));
    }
    if (t && *t != e->dtype()) {
      auto d = error("te.type-mismatch", fmt::format("type mismatch: {} and {}", t->str(), e->dtype().str()), call.loc);
      d.notes.push_back(fmt::format("cast one operand explicitly, e.g. {}(...)", t->bits() > e->dtype().bits() ? t->str() : e->dtype().str()));
      return Unexpected(std::move(d));
    }
    t = e->dtype();
  }
  ir::DataType type = t.value_or(ir::DataType::float32());
  std::vector<ir::Expr> operands;
  for (const auto& x : a) {
    if (!x) continue;
    if (x->isPyNumber()) {
      operands.push_back(ir::FloatImm::make(type, x->kind == ValueKind::Float ? x->f : static_cast<double>(x->kind == ValueKind::Bool ? x->b : x->i)));
      continue;
    }
    auto e = toExpr(*x);
    if (!e) return std::unexpected(e.error());
    operands.push_back(*e);
  }
  static const std::pair<std::string_view, ir::CallOp> kOps[] = {
      {"exp", ir::CallOp::Exp},         {"log", ir::CallOp::Log},     {"sqrt", ir::CallOp::Sqrt},   {"rsqrt", ir::CallOp::Rsqrt},
      {"tanh", ir::CallOp::Tanh},       {"sigmoid", ir::CallOp::Sigmoid}, {"erf", ir::CallOp::Erf}, {"pow", ir::CallOp::Pow},
      {"power", ir::CallOp::Pow},       {"fabs", ir::CallOp::Fabs},   {"floor", ir::CallOp::Floor}, {"ceil", ir::CallOp::Ceil},
      {"round", ir::CallOp::Round},     {"fma", ir::CallOp::Fma}};
  for (const auto& [opName, op] : kOps)
    if (opName == name) return makeExpr(ir::Call::make(type, op, std::move(operands)), call.loc);
  return Unexpected(error("te.not-callable", fmt::format("'{}' is not callable", name), call.loc));
}

} // namespace loopscape::frontend::detail
