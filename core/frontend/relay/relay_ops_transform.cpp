// Ops that split, create or re-lay-out tensors: split (a tuple result), full and
// layout_transform (plain layouts such as NCHW <-> NHWC and blocked ones such as
// NCHW4c). Relations follow src/relay/op/tensor/transform.cc at TVM v0.18.
#include "core/frontend/relay/relay_layout.h"
#include "core/frontend/relay/relay_op.h"

#include "core/ir/op.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace loopscape::frontend::relay {

namespace {

using ir::Expr;
using Ints = std::vector<std::int64_t>;

Expected<const Type*> knownData(TypeContext& ctx) {
  auto t = ctx.tensorArg(0, "data");
  if (!t) return t;
  if (!(*t)->known())
    return Unexpected(Diagnostic::error(
        "relay.type",
        fmt::format("cannot infer the shape of the data of {}: give it a type or a metadata section", ctx.call.name),
        ctx.call.args[0]->loc));
  return t;
}

// ---- split ----

/// The [begin, end) ranges of split's outputs along the axis.
std::optional<std::vector<std::pair<std::int64_t, std::int64_t>>> splitRanges(const AttrValue& v, std::int64_t extent) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  if (v.kind == AttrValue::Kind::Int) {
    if (v.i <= 0 || extent % v.i != 0) return std::nullopt;
    std::int64_t step = extent / v.i;
    for (std::int64_t k = 0; k < v.i; ++k)
      out.emplace_back(k * step, (k + 1) * step);
    return out;
  }
  std::int64_t begin = 0;
  for (const auto& x : v.list) {
    if (x.i <= begin || x.i >= extent) return std::nullopt;
    out.emplace_back(begin, x.i);
    begin = x.i;
  }
  out.emplace_back(begin, extent);
  return out;
}

Expected<Type> splitRel(TypeContext& ctx) {
  auto d = knownData(ctx);
  if (!d) return std::unexpected(d.error());
  const Ints& in = (*d)->shape;
  auto axis = normalizeAxis(ctx.attrs.i("axis"), in.size());
  if (!axis)
    return ctx.attrError(
        "axis", fmt::format("split: axis={} is out of range for the data {}", ctx.attrs.i("axis"), shapeStr(in)));
  const AttrValue& ios = ctx.attrs.get("indices_or_sections");
  auto ranges = splitRanges(ios, in[static_cast<std::size_t>(*axis)]);
  if (!ranges)
    return ctx.attrError(
        "indices_or_sections",
        fmt::format("split: indices_or_sections={} does not split dimension {} of the data {} (sections must "
                    "divide it; indices must increase inside it)",
                    attrValueStr(ios), *axis, shapeStr(in)));
  std::vector<Type> fields;
  for (auto [b, e] : *ranges) {
    Ints s = in;
    s[static_cast<std::size_t>(*axis)] = e - b;
    fields.push_back(Type::tensor(s, (*d)->dtype));
  }
  return Type::tuple(std::move(fields));
}

Expected<std::vector<TensorPtr>> splitCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  std::size_t axis = static_cast<std::size_t>(*normalizeAxis(ctx.attrs.i("axis"), x.shape.size()));
  const AttrValue& ios = ctx.attrs.get("indices_or_sections");
  auto ranges = *splitRanges(ios, x.shape[axis]);
  std::string name = ios.kind == AttrValue::Kind::Int ? "T_split_sections" : "T_split";
  std::vector<TensorPtr> outs;
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    const Ints& s = ctx.outType.fields[k].shape;
    std::int64_t begin = ranges[k].first;
    outs.push_back(ctx.compute(
        name, s, x.dtype, loopNames(s.size()),
        [&](const std::vector<Expr>& i) {
          std::vector<Expr> idx = i;
          if (begin) idx[axis] = i[axis] + begin;
          return x.load(idx);
        },
        "injective"));
  }
  return outs;
}

// ---- full ----

Expected<Type> fullRel(TypeContext& ctx) {
  auto v = ctx.tensorArg(0, "fill value");
  if (!v) return std::unexpected(v.error());
  if ((*v)->known() && !(*v)->shape.empty())
    return ctx.error(fmt::format("full: the fill value must be a scalar, got {}", typeStr(**v)));
  auto t = ctx.attrs.s("dtype").empty() ? std::optional<ir::DataType>((*v)->dtype)
                                        : ir::DataType::parse(ctx.attrs.s("dtype"));
  if (!t || !t->isScalar())
    return ctx.attrError("dtype", fmt::format("full: unknown dtype \"{}\"", ctx.attrs.s("dtype")));
  if (!(*v)->known()) ctx.args[0] = Type::tensor({}, *t);
  Ints shape = ctx.attrs.ints("shape");
  for (auto d : shape)
    if (d <= 0) return ctx.attrError("shape", fmt::format("full: every extent of shape must be positive, got {}", d));
  return Type::tensor(shape, *t);
}

Expected<std::vector<TensorPtr>> fullCompute(ComputeContext& ctx) {
  const Operand& v = ctx.inputs[0];
  const Ints& out = ctx.outType.shape;
  return std::vector<TensorPtr>{ctx.compute(
      "T_full", out, ctx.outType.dtype, loopNames(out.size()), [&](const std::vector<Expr>&) { return v.load({}); },
      "elemwise")};
}

// ---- layout_transform ----

Expected<Type> layoutTransformRel(TypeContext& ctx) {
  auto d = knownData(ctx);
  if (!d) return std::unexpected(d.error());
  auto src = parseLayout(ctx.attrs.s("src_layout"));
  auto dst = parseLayout(ctx.attrs.s("dst_layout"));
  if (!src)
    return ctx.attrError("src_layout",
                         fmt::format("layout_transform: bad src_layout \"{}\"", ctx.attrs.s("src_layout")));
  if (!dst)
    return ctx.attrError("dst_layout",
                         fmt::format("layout_transform: bad dst_layout \"{}\"", ctx.attrs.s("dst_layout")));
  const Ints& in = (*d)->shape;
  if (src->size() != in.size())
    return ctx.attrError("src_layout",
                         fmt::format("layout_transform: src_layout \"{}\" has {} axes but the data {} has {}",
                                     ctx.attrs.s("src_layout"), src->size(), shapeStr(in), in.size()));
  auto extents = primalExtents(*src, in);
  Ints out;
  for (const auto& a : *dst) {
    auto it = extents.find(a.primal);
    if (it == extents.end())
      return ctx.attrError("dst_layout", fmt::format("layout_transform: axis {} of \"{}\" is not in \"{}\"", a.primal,
                                                     ctx.attrs.s("dst_layout"), ctx.attrs.s("src_layout")));
    std::int64_t f = subFactor(*dst, a.primal);
    if (a.factor) {
      out.push_back(a.factor);
    } else {
      if (it->second % f != 0)
        return ctx.error(fmt::format("layout_transform: axis {} of the data {} has extent {}, not a multiple of {}",
                                     a.primal, shapeStr(in), it->second, f));
      out.push_back(it->second / f);
    }
  }
  if (extents.size() !=
      static_cast<std::size_t>(std::count_if(dst->begin(), dst->end(), [](const LayoutAxis& a) { return !a.factor; })))
    return ctx.attrError("dst_layout", "layout_transform: src_layout and dst_layout must have the same primal axes");
  return Type::tensor(out, (*d)->dtype);
}

Expected<std::vector<TensorPtr>> layoutTransformCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  auto src = *parseLayout(ctx.attrs.s("src_layout"));
  auto dst = *parseLayout(ctx.attrs.s("dst_layout"));
  const Ints& out = ctx.outType.shape;
  return std::vector<TensorPtr>{ctx.compute(
      "T_layout_trans", out, x.dtype, loopNames(out.size()),
      [&](const std::vector<Expr>& i) {
        // The primal index of each axis: outer * factor + inner.
        std::map<char, Expr> primal;
        for (std::size_t k = 0; k < dst.size(); ++k)
          if (!dst[k].factor) primal[dst[k].primal] = i[k];
        for (std::size_t k = 0; k < dst.size(); ++k)
          if (dst[k].factor) primal[dst[k].primal] = primal[dst[k].primal] * dst[k].factor + i[k];
        std::vector<Expr> idx;
        for (const auto& a : src) {
          std::int64_t f = subFactor(src, a.primal);
          const Expr& p = primal[a.primal];
          idx.push_back(a.factor ? Expr(ir::floormod(p, a.factor)) : f == 1 ? p : Expr(ir::floordiv(p, f)));
        }
        return x.load(idx);
      },
      "injective")};
}

OpDef op(std::string name, int minArgs, int maxArgs, OpPattern p, TypeRelation rel, Compute compute,
         std::vector<AttrDef> attrs) {
  OpDef d;
  d.name = std::move(name);
  d.minArgs = minArgs;
  d.maxArgs = maxArgs;
  d.attrs = std::move(attrs);
  d.pattern = p;
  d.relation = std::move(rel);
  d.compute = std::move(compute);
  return d;
}

} // namespace

void addTransformOps(std::vector<OpDef>& t) {
  t.push_back(op("split", 1, 1, OpPattern::Injective, splitRel, splitCompute,
                 {{"indices_or_sections", AttrKind::OptInts, AttrValue::integer(1)},
                  {"axis", AttrKind::Int, AttrValue::integer(0)}}));
  t.push_back(op("full", 1, 1, OpPattern::ElemWise, fullRel, fullCompute,
                 {{"shape", AttrKind::Ints, AttrValue::ints({})}, {"dtype", AttrKind::String, AttrValue::string("")}}));
  t.push_back(op("layout_transform", 1, 1, OpPattern::Injective, layoutTransformRel, layoutTransformCompute,
                 {{"src_layout", AttrKind::String, AttrValue::string("")},
                  {"dst_layout", AttrKind::String, AttrValue::string("")}}));
}

} // namespace loopscape::frontend::relay
