#include "core/frontend/relay/relay_op.h"

#include "core/ir/buffer.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/simplify.h"

#include <fmt/format.h>

#include <cmath>

namespace loopscape::frontend::relay {

const char* patternName(OpPattern p) {
  switch (p) {
  case OpPattern::ElemWise: return "elemwise";
  case OpPattern::Broadcast: return "broadcast";
  case OpPattern::Injective: return "injective";
  case OpPattern::CommReduce: return "comm-reduce";
  case OpPattern::OutEWiseFusable: return "out-elemwise-fusable";
  case OpPattern::Tuple: return "tuple";
  case OpPattern::Opaque: return "opaque";
  }
  return "opaque";
}

// ---- attributes ----

const AttrValue& CallAttrs::get(std::string_view name) const {
  if (const Attr* a = m_call.attr(name)) return a->value;
  for (const auto& d : m_defs)
    if (d.name == name) return d.defaultValue;
  LS_UNREACHABLE("attribute {} is not declared", name);
}

std::int64_t CallAttrs::i(std::string_view name) const {
  const AttrValue& v = get(name);
  return v.kind == AttrValue::Kind::Bool ? v.b : v.i;
}

double CallAttrs::f(std::string_view name) const {
  const AttrValue& v = get(name);
  return v.kind == AttrValue::Kind::Int ? static_cast<double>(v.i) : v.f;
}

const std::string& CallAttrs::s(std::string_view name) const { return get(name).s; }

bool CallAttrs::b(std::string_view name) const {
  const AttrValue& v = get(name);
  return v.kind == AttrValue::Kind::Int ? v.i != 0 : v.b;
}

std::vector<std::int64_t> CallAttrs::ints(std::string_view name) const {
  const AttrValue& v = get(name);
  if (v.kind == AttrValue::Kind::Int) return {v.i};
  std::vector<std::int64_t> out;
  for (const auto& x : v.list)
    out.push_back(x.i);
  return out;
}

std::vector<std::vector<std::int64_t>> CallAttrs::intLists(std::string_view name) const {
  std::vector<std::vector<std::int64_t>> out;
  for (const auto& row : get(name).list) {
    out.emplace_back();
    for (const auto& x : row.list)
      out.back().push_back(x.i);
  }
  return out;
}

SourceLocation CallAttrs::loc(std::string_view name) const {
  if (const Attr* a = m_call.attr(name)) return a->loc;
  return m_call.loc;
}

namespace {

bool allInts(const AttrValue& v) {
  if (v.kind != AttrValue::Kind::List) return false;
  for (const auto& x : v.list)
    if (x.kind != AttrValue::Kind::Int) return false;
  return true;
}

const char* kindWord(AttrKind k) {
  switch (k) {
  case AttrKind::Int: return "an integer";
  case AttrKind::Float: return "a number";
  case AttrKind::String: return "a string";
  case AttrKind::Bool: return "True or False";
  case AttrKind::Ints: return "a list of integers";
  case AttrKind::OptInt: return "an integer or None";
  case AttrKind::OptInts: return "a list of integers or None";
  case AttrKind::IntLists: return "a list of lists of integers";
  }
  return "a value";
}

/// Integers of attributes stay within int32, as TVM's attribute fields do; shape
/// arithmetic in the relations then cannot overflow.
bool inInt32Range(const AttrValue& v) {
  if (v.kind == AttrValue::Kind::Int) return v.i >= INT32_MIN && v.i <= INT32_MAX;
  for (const auto& x : v.list)
    if (!inInt32Range(x)) return false;
  return true;
}

bool accepts(AttrKind k, const AttrValue& v) {
  using K = AttrValue::Kind;
  switch (k) {
  case AttrKind::Int: return v.kind == K::Int;
  case AttrKind::Float: return v.kind == K::Int || v.kind == K::Float;
  case AttrKind::String: return v.kind == K::String;
  case AttrKind::Bool: return v.kind == K::Bool || (v.kind == K::Int && (v.i == 0 || v.i == 1));
  case AttrKind::Ints: return v.kind == K::Int || allInts(v);
  case AttrKind::OptInt: return v.kind == K::Int || v.kind == K::None;
  case AttrKind::OptInts: return v.kind == K::None || v.kind == K::Int || allInts(v);
  case AttrKind::IntLists:
    if (v.kind != K::List) return false;
    for (const auto& row : v.list)
      if (!allInts(row)) return false;
    return true;
  }
  return false;
}

} // namespace

Expected<void> checkAttrs(const Node& call, const OpDef& op) {
  for (const auto& a : call.attrs) {
    const AttrDef* def = nullptr;
    for (const auto& d : op.attrs)
      if (d.name == a.name) def = &d;
    if (!def) {
      std::string known;
      for (const auto& d : op.attrs)
        known += (known.empty() ? "" : ", ") + d.name;
      return Unexpected(Diagnostic::error(
          "relay.attr",
          known.empty() ? fmt::format("{} takes no attributes, got '{}'", op.name, a.name)
                        : fmt::format("{} has no attribute '{}' (it has: {})", op.name, a.name, known),
          a.loc));
    }
    if (!inInt32Range(a.value))
      return Unexpected(
          Diagnostic::error("relay.attr",
                            fmt::format("attribute '{}' of {} holds an integer outside the 32-bit range: {}", a.name,
                                        op.name, attrValueStr(a.value)),
                            a.loc));
    if (!accepts(def->kind, a.value))
      return Unexpected(Diagnostic::error("relay.attr",
                                          fmt::format("attribute '{}' of {} must be {}, got {}", a.name, op.name,
                                                      kindWord(def->kind), attrValueStr(a.value)),
                                          a.loc));
  }
  return {};
}

Unexpected TypeContext::error(std::string message) const {
  return Unexpected(Diagnostic::error("relay.type", std::move(message), call.loc));
}

Unexpected TypeContext::attrError(std::string_view attr, std::string message) const {
  return Unexpected(Diagnostic::error("relay.attr", std::move(message), attrs.loc(attr)));
}

Expected<const Type*> TypeContext::tensorArg(std::size_t k, std::string_view role) const {
  const Type& t = args[k];
  if (t.isTensor()) return &t;
  if (!t.known()) return &t; // an unknown constant: the caller reports it
  return error(fmt::format("the {} of {} must be a tensor, got {}", role, call.name, typeStr(t)));
}

// ---- computes ----

ir::Expr Operand::load(const std::vector<ir::Expr>& indices) const {
  if (scalar.defined()) return scalar;
  return ir::BufferLoad::make(tensor->buffer, indices);
}

std::string ComputeContext::uniqueName(const std::string& base) {
  std::string name = base;
  for (int k = 1; usedNames && usedNames->contains(name); ++k)
    name = fmt::format("{}_{}", base, k);
  if (usedNames) usedNames->insert(name);
  return name;
}

namespace {

/// Simplifies the indices of every load with the loop and reduction variables bound to
/// their ranges, as TOPI's computes come out of TVM's arithmetic simplifier
/// (`floordiv(i, 1)` -> `i`, `i * 1 + 0` -> `i`).
class IndexSimplifier final : public ir::ExprMutator {
public:
  ir::Analyzer analyzer;

protected:
  ir::Expr visitBufferLoad(const ir::BufferLoad& op, const ir::Expr& self) override {
    ir::Expr e = ir::ExprMutator::visitBufferLoad(op, self);
    const auto* load = e.as<ir::BufferLoad>();
    std::vector<ir::Expr> indices;
    for (const auto& i : load->indices)
      indices.push_back(analyzer.simplify(i));
    return ir::BufferLoad::make(load->buffer, std::move(indices));
  }
};

ir::Expr simplifyIndices(const ir::Expr& e, const std::vector<ir::Expr>& vars,
                         const std::vector<std::int64_t>& extents) {
  IndexSimplifier s;
  // Extent-1 variables stay unbound: binding them would turn `x[i0]` into `x[0]`.
  for (std::size_t k = 0; k < vars.size(); ++k)
    if (extents[k] > 1) s.analyzer.bind(vars[k], ir::Range::fromMinExtent(ir::intImm(0), ir::intImm(extents[k])));
  return s.mutate(e);
}

std::vector<ir::Expr> shapeExprs(const std::vector<std::int64_t>& shape) {
  std::vector<ir::Expr> out;
  for (auto d : shape)
    out.push_back(ir::intImm(d));
  return out;
}

} // namespace

std::shared_ptr<TensorInfo> ComputeContext::newStage(const std::string& name, const std::vector<std::int64_t>& shape,
                                                     ir::DataType dtype, const std::vector<std::string>& loops,
                                                     const std::string& tag) {
  auto t = std::make_shared<TensorInfo>();
  t->name = uniqueName(name);
  t->buffer = ir::makeBuffer(t->name, dtype, shapeExprs(shape));
  t->isCompute = true;
  t->loc = call.loc;
  t->tag = tag;
  for (std::size_t d = 0; d < shape.size(); ++d)
    t->params.push_back(ir::Var::make(loops[d]));
  return t;
}

TensorPtr ComputeContext::compute(const std::string& name, const std::vector<std::int64_t>& shape, ir::DataType dtype,
                                  const std::vector<std::string>& loops,
                                  const std::function<ir::Expr(const std::vector<ir::Expr>&)>& body,
                                  const std::string& tag) {
  auto t = newStage(name, shape, dtype, loops, tag);
  ir::Expr value = simplifyIndices(body(t->params), t->params, shape);
  t->body = value.dtype() == dtype ? value : ir::Cast::make(dtype, value);
  stages.push_back(t);
  return t;
}

TensorPtr ComputeContext::reduce(
    const std::string& name, const std::vector<std::int64_t>& shape, ir::DataType dtype,
    const std::vector<std::string>& loops, const std::vector<std::pair<std::string, std::int64_t>>& axes,
    Combiner combiner,
    const std::function<ir::Expr(const std::vector<ir::Expr>&, const std::vector<ir::Expr>&)>& source,
    const std::string& tag) {
  auto t = newStage(name, shape, dtype, loops, tag);
  auto red = std::make_shared<ReductionInfo>();
  red->combiner = combiner;
  std::vector<ir::Expr> axisVars;
  for (const auto& [axName, extent] : axes) {
    auto ax = std::make_shared<ReduceAxisInfo>();
    ax->name = axName;
    ax->var = ir::Var::make(axName);
    ax->min = ir::intImm(0);
    ax->extent = ir::intImm(extent);
    axisVars.push_back(ax->var);
    red->axes.push_back(ax);
  }
  std::vector<ir::Expr> vars = t->params;
  std::vector<std::int64_t> extents = shape;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    vars.push_back(axisVars[k]);
    extents.push_back(axes[k].second);
  }
  ir::Expr value = simplifyIndices(source(t->params, axisVars), vars, extents);
  red->source = value.dtype() == dtype ? value : ir::Cast::make(dtype, value);
  t->reduction = red;
  stages.push_back(t);
  return t;
}

Unexpected ComputeContext::error(std::string message) const {
  return Unexpected(Diagnostic::error("relay.lower", std::move(message), call.loc));
}

// ---- shared helpers ----

std::optional<std::vector<std::int64_t>> broadcastShapes(const std::vector<std::int64_t>& a,
                                                         const std::vector<std::int64_t>& b) {
  std::size_t n = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
    std::int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = x == 1 ? y : x;
  }
  return out;
}

std::optional<std::int64_t> normalizeAxis(std::int64_t axis, std::size_t ndim) {
  auto n = static_cast<std::int64_t>(ndim);
  if (axis < -n || axis >= n) return std::nullopt;
  return axis < 0 ? axis + n : axis;
}

std::vector<ir::Expr> broadcastIndices(const std::vector<ir::Expr>& out, const std::vector<std::int64_t>& shape) {
  std::vector<ir::Expr> idx;
  std::size_t offset = out.size() - shape.size();
  for (std::size_t k = 0; k < shape.size(); ++k)
    idx.push_back(shape[k] == 1 ? ir::intImm(0) : out[offset + k]);
  return idx;
}

ir::Expr windowIndex(const ir::Expr& i, std::int64_t stride, const ir::Expr& r, std::int64_t dilation) {
  ir::Expr a = stride == 1 ? i : ir::Expr(i * stride);
  ir::Expr b = dilation == 1 ? r : ir::Expr(r * dilation);
  return a + b;
}

std::int64_t saturatingFlops(double flops) {
  constexpr double kMax = 4611686018427387904.0; // 2^62
  return flops >= kMax ? static_cast<std::int64_t>(kMax) : static_cast<std::int64_t>(flops);
}

std::vector<std::string> loopNames(std::size_t n, const char* prefix) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < n; ++k)
    out.push_back(fmt::format("{}{}", prefix, k));
  return out;
}

const std::vector<OpDef>& opTable() {
  static const std::vector<OpDef> table = [] {
    std::vector<OpDef> t;
    addNnOps(t);
    addTensorOps(t);
    addTransformOps(t);
    return t;
  }();
  return table;
}

const OpDef* findOp(std::string_view name) {
  for (const auto& op : opTable())
    if (op.name == name) return &op;
  return nullptr;
}

} // namespace loopscape::frontend::relay
