// The tensor ops: elementwise math, broadcast binary ops and comparisons, where, clip,
// cast, reshape/transpose/expand_dims/squeeze/concatenate/strided_slice/take, the
// reductions sum/max/min/mean, and zeros/ones. Relations follow
// src/relay/op/tensor/*.cc at TVM v0.18; computes follow TOPI's names (T_add, T_reshape).
#include "core/frontend/relay/relay_op.h"

#include "core/ir/checked_arith.h"
#include "core/ir/op.h"

#include <fmt/format.h>

#include <numeric>

namespace loopscape::frontend::relay {

namespace {

using ir::Expr;
using Ints = std::vector<std::int64_t>;

Expected<const Type*> dataArg(TypeContext& ctx, std::size_t k = 0, std::string_view role = "data") {
  auto t = ctx.tensorArg(k, role);
  if (!t) return t;
  if (!(*t)->known())
    return Unexpected(
        Diagnostic::error("relay.type",
                          fmt::format("cannot infer the shape of the {} of {}: give it a type or a metadata section",
                                      role, ctx.call.name),
                          ctx.call.args[k]->loc));
  return t;
}

// ---- elementwise ----

using UnaryFn = std::function<Expr(const Expr& x, const CallAttrs& attrs)>;

Expected<Type> sameTypeRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  return **d;
}

Expected<Type> floatUnaryRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  if (!(*d)->dtype.isFloat())
    return ctx.error(fmt::format("{} needs a float operand, got {}", ctx.call.name, typeStr(**d)));
  return **d;
}

Compute unaryCompute(std::string name, UnaryFn fn, bool pythonLoops = false) {
  return [name = std::move(name), fn = std::move(fn),
          pythonLoops](ComputeContext& ctx) -> Expected<std::vector<TensorPtr>> {
    const Operand& x = ctx.inputs[0];
    const CallAttrs& attrs = ctx.attrs;
    return std::vector<TensorPtr>{ctx.compute(
        name, ctx.outType.shape, ctx.outType.dtype, loopNames(x.shape.size(), pythonLoops ? "i" : "ax"),
        [&](const std::vector<Expr>& i) { return fn(x.load(i), attrs); }, "elemwise")};
  };
}

Expr math(ir::CallOp op, const Expr& x) { return ir::Call::make(x.dtype(), op, {x}); }

Expected<Type> clipRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  if (ctx.attrs.isNone("a_min") || ctx.attrs.isNone("a_max")) return ctx.error("clip needs both a_min= and a_max=");
  if (ctx.attrs.f("a_min") > ctx.attrs.f("a_max"))
    return ctx.attrError("a_min",
                         fmt::format("clip: a_min={} is above a_max={}", ctx.attrs.f("a_min"), ctx.attrs.f("a_max")));
  return **d;
}

Expected<Type> castRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  auto t = ir::DataType::parse(ctx.attrs.s("dtype"));
  if (!t || !t->isScalar())
    return ctx.attrError("dtype", fmt::format("cast: unknown dtype \"{}\"", ctx.attrs.s("dtype")));
  return Type::tensor((*d)->shape, *t);
}

// ---- broadcast binary ----

Expected<Type> broadcastRel(TypeContext& ctx, bool compare) {
  std::size_t n = ctx.args.size();
  // An operand of unknown shape (a constant without metadata) takes the other's type.
  const Type* known = nullptr;
  for (const auto& a : ctx.args)
    if (a.isTensor() && !known) known = &a;
  if (!known)
    return Unexpected(Diagnostic::error("relay.type",
                                        fmt::format("cannot infer the shapes of the operands of {}: give "
                                                    "one of them a type or a metadata section",
                                                    ctx.call.name),
                                        ctx.call.loc));
  Type ref = *known;
  for (auto& a : ctx.args)
    if (!a.known()) a = ref;
  static const char* kRoles[] = {"first", "second", "third"};
  Ints shape = ctx.args[0].shape;
  for (std::size_t k = 0; k < n; ++k) {
    auto t = ctx.tensorArg(k, kRoles[k]);
    if (!t) return std::unexpected(t.error());
  }
  std::size_t valueStart = ctx.call.name == "where" ? 1 : 0;
  for (std::size_t k = valueStart + 1; k < n; ++k)
    if (ctx.args[k].dtype != ctx.args[valueStart].dtype)
      return ctx.error(fmt::format("{}: the {} operand is {} but the {} operand is {}", ctx.call.name,
                                   kRoles[valueStart], typeStr(ctx.args[valueStart]), kRoles[k], typeStr(ctx.args[k])));
  for (std::size_t k = 1; k < n; ++k) {
    auto b = broadcastShapes(shape, ctx.args[k].shape);
    if (!b)
      return ctx.error(fmt::format("{}: the shapes {} of the {} operand and {} of the {} operand do not broadcast",
                                   ctx.call.name, shapeStr(k == 1 ? ctx.args[0].shape : shape),
                                   kRoles[k == 1 ? 0 : k - 1], shapeStr(ctx.args[k].shape), kRoles[k]));
    shape = *b;
  }
  if (ctx.call.name == "where" && !ctx.args[0].dtype.isBool())
    return ctx.error(fmt::format("where: the condition must be bool, got {}", typeStr(ctx.args[0])));
  ir::DataType t = compare ? ir::DataType::boolean() : ctx.args[valueStart].dtype;
  return Type::tensor(shape, t);
}

using BinaryFn = std::function<Expr(const Expr&, const Expr&)>;

Compute binaryCompute(std::string name, BinaryFn fn) {
  return [name = std::move(name), fn = std::move(fn)](ComputeContext& ctx) -> Expected<std::vector<TensorPtr>> {
    const Operand& a = ctx.inputs[0];
    const Operand& b = ctx.inputs[1];
    const Ints& out = ctx.outType.shape;
    return std::vector<TensorPtr>{ctx.compute(
        name, out, ctx.outType.dtype, loopNames(out.size()),
        [&](const std::vector<Expr>& i) {
          return fn(a.load(broadcastIndices(i, a.shape)), b.load(broadcastIndices(i, b.shape)));
        },
        "broadcast")};
  };
}

Expected<std::vector<TensorPtr>> whereCompute(ComputeContext& ctx) {
  const Ints& out = ctx.outType.shape;
  return std::vector<TensorPtr>{ctx.compute(
      "T_where", out, ctx.outType.dtype, loopNames(out.size()),
      [&](const std::vector<Expr>& i) {
        const auto& in = ctx.inputs;
        return ir::Select::make(in[0].load(broadcastIndices(i, in[0].shape)),
                                in[1].load(broadcastIndices(i, in[1].shape)),
                                in[2].load(broadcastIndices(i, in[2].shape)));
      },
      "broadcast")};
}

// ---- injective transforms ----

/// Row-major unravel of the flat index `flat` over `shape`.
std::vector<Expr> unravel(Expr flat, const Ints& shape) {
  std::vector<Expr> idx(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    idx[k] = k == 0 ? flat : Expr(ir::floormod(flat, shape[k]));
    flat = ir::floordiv(flat, shape[k]);
  }
  return idx;
}

Expr ravel(const std::vector<Expr>& idx, const Ints& shape) {
  Expr flat = idx.empty() ? ir::intImm(0) : idx[0];
  for (std::size_t k = 1; k < shape.size(); ++k)
    flat = flat * shape[k] + idx[k];
  return flat;
}

Expected<Type> reshapeRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  const Ints& in = (*d)->shape;
  Ints spec = ctx.attrs.ints("newshape");
  Ints out;
  int inferred = -1;
  std::size_t src = 0;
  for (std::size_t k = 0; k < spec.size(); ++k) {
    std::int64_t v = spec[k];
    if (v > 0) {
      out.push_back(v);
      ++src;
    } else if (v == 0) {
      if (src >= in.size())
        return ctx.attrError(
            "newshape",
            fmt::format("reshape: newshape entry {} is 0 but the data {} has no dimension {}", k, shapeStr(in), src));
      out.push_back(in[src++]);
    } else if (v == -1) {
      if (inferred >= 0) return ctx.attrError("newshape", "reshape: newshape may contain -1 only once");
      inferred = static_cast<int>(out.size());
      out.push_back(1);
      ++src;
    } else if (v == -2) {
      for (; src < in.size(); ++src)
        out.push_back(in[src]);
    } else if (v == -3) {
      if (src + 1 >= in.size()) return ctx.attrError("newshape", "reshape: -3 needs two remaining input dimensions");
      out.push_back(in[src] * in[src + 1]);
      src += 2;
    } else {
      return ctx.attrError("newshape",
                           fmt::format("reshape: newshape entry {} is not supported (use >0, 0, -1, -2, -3)", v));
    }
  }
  std::int64_t total = (*d)->numel();
  std::int64_t known = 1;
  for (std::size_t k = 0; k < out.size(); ++k)
    if (static_cast<int>(k) != inferred) {
      auto product = ir::checkedMul(known, out[k]);
      if (!product)
        return ctx.error(
            fmt::format("reshape: newshape {} has too many elements", attrValueStr(ctx.attrs.get("newshape"))));
      known = *product;
    }
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      return ctx.error(fmt::format("reshape: cannot reshape the data {} ({} elements) to newshape {}", shapeStr(in),
                                   total, attrValueStr(ctx.attrs.get("newshape"))));
    out[static_cast<std::size_t>(inferred)] = total / known;
  } else if (known != total) {
    return ctx.error(fmt::format("reshape: cannot reshape the data {} ({} elements) to {} ({} elements)", shapeStr(in),
                                 total, shapeStr(out), known));
  }
  return Type::tensor(out, (*d)->dtype);
}

Expected<std::vector<TensorPtr>> reshapeCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  const Ints& out = ctx.outType.shape;
  return std::vector<TensorPtr>{ctx.compute(
      "T_reshape", out, x.dtype, loopNames(out.size()),
      [&](const std::vector<Expr>& i) { return x.load(unravel(ravel(i, out), x.shape)); }, "injective")};
}

Expected<Type> transposeRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  const Ints& in = (*d)->shape;
  Ints axes;
  if (ctx.attrs.isNone("axes")) {
    for (std::size_t k = in.size(); k-- > 0;)
      axes.push_back(static_cast<std::int64_t>(k));
  } else {
    axes = ctx.attrs.ints("axes");
  }
  if (axes.size() != in.size())
    return ctx.attrError("axes", fmt::format("transpose: axes has {} entries for the {}-D data {}", axes.size(),
                                             in.size(), shapeStr(in)));
  std::vector<bool> seen(in.size());
  Ints out;
  for (auto a : axes) {
    auto n = normalizeAxis(a, in.size());
    if (!n || seen[static_cast<std::size_t>(*n)])
      return ctx.attrError("axes", fmt::format("transpose: axes {} is not a permutation of the data's {} dimensions",
                                               attrValueStr(ctx.attrs.get("axes")), in.size()));
    seen[static_cast<std::size_t>(*n)] = true;
    out.push_back(in[static_cast<std::size_t>(*n)]);
  }
  return Type::tensor(out, (*d)->dtype);
}

Expected<std::vector<TensorPtr>> transposeCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  Ints axes;
  if (ctx.attrs.isNone("axes"))
    for (std::size_t k = x.shape.size(); k-- > 0;)
      axes.push_back(static_cast<std::int64_t>(k));
  else
    for (auto a : ctx.attrs.ints("axes"))
      axes.push_back(*normalizeAxis(a, x.shape.size()));
  const Ints& out = ctx.outType.shape;
  return std::vector<TensorPtr>{ctx.compute(
      "T_transpose", out, x.dtype, loopNames(out.size()),
      [&](const std::vector<Expr>& i) {
        std::vector<Expr> idx(x.shape.size());
        for (std::size_t k = 0; k < axes.size(); ++k)
          idx[static_cast<std::size_t>(axes[k])] = i[k];
        return x.load(idx);
      },
      "injective")};
}

Expected<Type> expandDimsRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  Ints out = (*d)->shape;
  std::int64_t num = ctx.attrs.i("num_newaxis");
  if (num < 0 || num > 32)
    return ctx.attrError("num_newaxis", fmt::format("expand_dims: num_newaxis must be in [0, 32], got {}", num));
  auto axis = normalizeAxis(ctx.attrs.i("axis"), out.size() + 1);
  if (!axis)
    return ctx.attrError("axis", fmt::format("expand_dims: axis={} is out of range for the data {}",
                                             ctx.attrs.i("axis"), shapeStr(out)));
  out.insert(out.begin() + *axis, static_cast<std::size_t>(num), 1);
  return Type::tensor(out, (*d)->dtype);
}

/// An op whose output only drops or adds size-1 dimensions: index by the kept ones.
Compute keepDimsCompute(std::string name) {
  return [name = std::move(name)](ComputeContext& ctx) -> Expected<std::vector<TensorPtr>> {
    const Operand& x = ctx.inputs[0];
    const Ints& out = ctx.outType.shape;
    // Walk both shapes, matching the input's non-1 dims in order.
    return std::vector<TensorPtr>{ctx.compute(
        name, out, x.dtype, loopNames(out.size()),
        [&](const std::vector<Expr>& i) { return x.load(unravel(ravel(i, out), x.shape)); }, "injective")};
  };
}

Expected<Type> squeezeRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  const Ints& in = (*d)->shape;
  std::vector<bool> drop(in.size());
  if (ctx.attrs.isNone("axis")) {
    for (std::size_t k = 0; k < in.size(); ++k)
      drop[k] = in[k] == 1;
  } else {
    for (auto a : ctx.attrs.ints("axis")) {
      auto n = normalizeAxis(a, in.size());
      if (!n)
        return ctx.attrError("axis", fmt::format("squeeze: axis {} is out of range for the data {}", a, shapeStr(in)));
      if (in[static_cast<std::size_t>(*n)] != 1)
        return ctx.attrError("axis", fmt::format("squeeze: dimension {} of the data {} is {}, not 1", *n, shapeStr(in),
                                                 in[static_cast<std::size_t>(*n)]));
      drop[static_cast<std::size_t>(*n)] = true;
    }
  }
  Ints out;
  for (std::size_t k = 0; k < in.size(); ++k)
    if (!drop[k]) out.push_back(in[k]);
  return Type::tensor(out, (*d)->dtype);
}

Expected<Type> concatenateRel(TypeContext& ctx) {
  const Type& tup = ctx.args[0];
  if (tup.kind != Type::Kind::Tuple || tup.fields.empty())
    return ctx.error(fmt::format("concatenate takes a non-empty tuple such as (%a, %b), got {}", typeStr(tup)));
  for (const auto& f : tup.fields)
    if (!f.isTensor())
      return ctx.error(fmt::format("concatenate: every field must be a tensor of known shape, got {}", typeStr(tup)));
  const Type& first = tup.fields[0];
  auto axis = normalizeAxis(ctx.attrs.i("axis"), first.shape.size());
  if (!axis)
    return ctx.attrError(
        "axis", fmt::format("concatenate: axis={} is out of range for {}", ctx.attrs.i("axis"), typeStr(first)));
  Ints out = first.shape;
  for (std::size_t k = 1; k < tup.fields.size(); ++k) {
    const Type& f = tup.fields[k];
    bool ok = f.dtype == first.dtype && f.shape.size() == out.size();
    for (std::size_t d = 0; ok && d < out.size(); ++d)
      ok = static_cast<std::int64_t>(d) == *axis || f.shape[d] == out[d];
    if (!ok)
      return ctx.error(fmt::format("concatenate: field {} is {} but field 0 is {} (only axis {} may differ)", k,
                                   typeStr(f), typeStr(first), *axis));
    out[static_cast<std::size_t>(*axis)] += f.shape[static_cast<std::size_t>(*axis)];
  }
  return Type::tensor(out, first.dtype);
}

Expected<std::vector<TensorPtr>> concatenateCompute(ComputeContext& ctx) {
  const Ints& out = ctx.outType.shape;
  std::size_t axis = static_cast<std::size_t>(*normalizeAxis(ctx.attrs.i("axis"), out.size()));
  return std::vector<TensorPtr>{ctx.compute(
      "T_concat", out, ctx.outType.dtype, loopNames(out.size()),
      [&](const std::vector<Expr>& i) {
        // Last field first: select(i < start_k, earlier..., field_k[i - start_k]).
        std::vector<std::int64_t> starts;
        std::int64_t s = 0;
        for (const auto& in : ctx.inputs) {
          starts.push_back(s);
          s += in.shape[axis];
        }
        Expr value;
        for (std::size_t k = ctx.inputs.size(); k-- > 0;) {
          std::vector<Expr> idx = i;
          if (starts[k]) idx[axis] = i[axis] - starts[k];
          Expr v = ctx.inputs[k].load(idx);
          value = value.defined() ? ir::Select::make(i[axis] < starts[k + 1], v, value, /*lazy=*/true) : v;
        }
        return value;
      },
      "injective")};
}

Expected<Type> stridedSliceRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  const Ints& in = (*d)->shape;
  Ints begin = ctx.attrs.ints("begin"), end = ctx.attrs.ints("end");
  Ints strides = ctx.attrs.isNone("strides") ? Ints{1} : ctx.attrs.ints("strides");
  if (ctx.attrs.s("slice_mode") != "end")
    return ctx.attrError("slice_mode", "strided_slice supports slice_mode \"end\" only");
  if (begin.size() > in.size() || end.size() > in.size())
    return ctx.error(
        fmt::format("strided_slice: begin/end have more entries than the data {} has dimensions", shapeStr(in)));
  Ints out = in;
  for (std::size_t k = 0; k < begin.size(); ++k) {
    std::int64_t s = k < strides.size() ? strides[k] : strides.size() == 1 ? strides[0] : 1;
    if (s <= 0) return ctx.attrError("strides", "strided_slice supports positive strides only");
    std::int64_t b = begin[k] < 0 ? begin[k] + in[k] : begin[k];
    std::int64_t e = k < end.size() ? (end[k] < 0 ? end[k] + in[k] : end[k]) : in[k];
    b = std::clamp<std::int64_t>(b, 0, in[k]);
    e = std::clamp<std::int64_t>(e, 0, in[k]);
    out[k] = e > b ? (e - b + s - 1) / s : 0;
    if (out[k] == 0)
      return ctx.error(fmt::format("strided_slice: dimension {} of the data {} becomes empty", k, shapeStr(in)));
  }
  return Type::tensor(out, (*d)->dtype);
}

Expected<std::vector<TensorPtr>> stridedSliceCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  Ints begin = ctx.attrs.ints("begin");
  Ints strides = ctx.attrs.isNone("strides") ? Ints{1} : ctx.attrs.ints("strides");
  const Ints& out = ctx.outType.shape;
  return std::vector<TensorPtr>{ctx.compute(
      "T_strided_slice", out, x.dtype, loopNames(out.size()),
      [&](const std::vector<Expr>& i) {
        std::vector<Expr> idx = i;
        for (std::size_t k = 0; k < begin.size(); ++k) {
          std::int64_t s = k < strides.size() ? strides[k] : strides.size() == 1 ? strides[0] : 1;
          std::int64_t b = std::clamp<std::int64_t>(begin[k] < 0 ? begin[k] + x.shape[k] : begin[k], 0, x.shape[k]);
          idx[k] = i[k] * s + b;
        }
        return x.load(idx);
      },
      "injective")};
}

Expected<Type> takeRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  auto idx = dataArg(ctx, 1, "indices");
  if (!idx) return std::unexpected(idx.error());
  if (!(*idx)->dtype.isInteger())
    return ctx.error(fmt::format("take: the indices must be integers, got {}", typeStr(**idx)));
  if (ctx.attrs.s("mode") != "clip") return ctx.attrError("mode", "take supports mode \"clip\" only");
  const Ints& in = (*d)->shape;
  if (ctx.attrs.isNone("axis")) {
    return Type::tensor((*idx)->shape, (*d)->dtype);
  }
  auto axis = normalizeAxis(ctx.attrs.i("axis"), in.size());
  if (!axis)
    return ctx.attrError(
        "axis", fmt::format("take: axis={} is out of range for the data {}", ctx.attrs.i("axis"), shapeStr(in)));
  Ints out(in.begin(), in.begin() + *axis);
  out.insert(out.end(), (*idx)->shape.begin(), (*idx)->shape.end());
  out.insert(out.end(), in.begin() + *axis + 1, in.end());
  return Type::tensor(out, (*d)->dtype);
}

Expected<std::vector<TensorPtr>> takeCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  const Operand& ind = ctx.inputs[1];
  const Ints& out = ctx.outType.shape;
  bool flat = ctx.attrs.isNone("axis");
  std::size_t axis = flat ? 0 : static_cast<std::size_t>(*normalizeAxis(ctx.attrs.i("axis"), x.shape.size()));
  std::size_t ni = ind.shape.size();
  return std::vector<TensorPtr>{ctx.compute(
      "T_take", out, x.dtype, loopNames(out.size()),
      [&](const std::vector<Expr>& i) {
        std::vector<Expr> ii(i.begin() + static_cast<std::ptrdiff_t>(axis),
                             i.begin() + static_cast<std::ptrdiff_t>(axis + ni));
        Expr raw = ind.load(ii);
        Expr pos = raw.dtype() == ir::DataType::int32() ? raw : ir::Cast::make(ir::DataType::int32(), raw);
        std::int64_t extent =
            flat ? std::accumulate(x.shape.begin(), x.shape.end(), std::int64_t{1}, std::multiplies<>())
                 : x.shape[axis];
        pos = ir::min(ir::max(pos, ir::intImm(0)), ir::intImm(extent - 1));
        if (flat) return x.load(unravel(pos, x.shape));
        std::vector<Expr> idx(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(axis));
        idx.push_back(pos);
        idx.insert(idx.end(), i.begin() + static_cast<std::ptrdiff_t>(axis + ni), i.end());
        return x.load(idx);
      },
      "injective")};
}

// ---- reductions ----

/// The reduced axes of a reduction call (sorted, normalised) or an error.
Expected<std::vector<std::size_t>> reduceAxes(TypeContext& ctx, std::size_t ndim) {
  std::vector<bool> on(ndim, false);
  if (ctx.attrs.isNone("axis")) {
    on.assign(ndim, true);
  } else {
    for (auto a : ctx.attrs.ints("axis")) {
      auto n = normalizeAxis(a, ndim);
      if (!n)
        return ctx.attrError("axis", fmt::format("{}: axis {} is out of range for {}-D data", ctx.call.name, a, ndim));
      on[static_cast<std::size_t>(*n)] = true;
    }
  }
  if (ctx.attrs.b("exclude"))
    for (std::size_t k = 0; k < ndim; ++k)
      on[k] = !on[k];
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < ndim; ++k)
    if (on[k]) out.push_back(k);
  return out;
}

std::vector<std::size_t> reduceAxesOf(const CallAttrs& attrs, std::size_t ndim) {
  std::vector<bool> on(ndim, attrs.isNone("axis"));
  if (!attrs.isNone("axis"))
    for (auto a : attrs.ints("axis"))
      on[static_cast<std::size_t>(*normalizeAxis(a, ndim))] = true;
  if (attrs.b("exclude"))
    for (std::size_t k = 0; k < ndim; ++k)
      on[k] = !on[k];
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < ndim; ++k)
    if (on[k]) out.push_back(k);
  return out;
}

Expected<Type> reduceRel(TypeContext& ctx) {
  auto d = dataArg(ctx);
  if (!d) return std::unexpected(d.error());
  const Ints& in = (*d)->shape;
  auto axes = reduceAxes(ctx, in.size());
  if (!axes) return std::unexpected(axes.error());
  bool keep = ctx.attrs.b("keepdims");
  Ints out;
  for (std::size_t k = 0; k < in.size(); ++k) {
    bool reduced = std::find(axes->begin(), axes->end(), k) != axes->end();
    if (!reduced)
      out.push_back(in[k]);
    else if (keep)
      out.push_back(1);
  }
  const std::string& op = ctx.call.name;
  if ((op == "mean" || op == "variance") && !(*d)->dtype.isFloat())
    return ctx.error(fmt::format("{} needs float data, got {}", op, typeStr(**d)));
  if (op == "variance") {
    if (!ctx.args[1].known()) ctx.args[1] = Type::tensor(out, (*d)->dtype);
    auto m = dataArg(ctx, 1, "mean");
    if (!m) return std::unexpected(m.error());
    auto b = broadcastShapes(in, (*m)->shape);
    if (!b || *b != in)
      return ctx.error(
          fmt::format("variance: the mean {} does not broadcast to the data {}", shapeStr((*m)->shape), shapeStr(in)));
  }
  if (op == "argmax" || op == "argmin") {
    if (axes->empty()) return ctx.error(fmt::format("{} needs at least one axis to reduce", op));
    if (ctx.attrs.b("select_last_index"))
      return ctx.attrError("select_last_index", fmt::format("{} supports select_last_index=False only", op));
    return Type::tensor(out, ir::DataType::int32());
  }
  return Type::tensor(out, (*d)->dtype);
}

Expected<std::vector<TensorPtr>> reduceCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  const std::string& op = ctx.call.name;
  auto axes = reduceAxesOf(ctx.attrs, x.shape.size());
  bool keep = ctx.attrs.b("keepdims");
  const Ints& out = ctx.outType.shape;
  std::vector<std::pair<std::string, std::int64_t>> raxes;
  std::int64_t count = 1;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    raxes.emplace_back(fmt::format("k{}", k), x.shape[axes[k]]);
    count *= x.shape[axes[k]];
  }
  // The data index for output index i and reduction index r.
  auto dataIndex = [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
    std::vector<Expr> idx;
    std::size_t o = 0, a = 0;
    for (std::size_t k = 0; k < x.shape.size(); ++k) {
      if (a < axes.size() && axes[a] == k) {
        idx.push_back(r[a++]);
        if (keep) ++o;
      } else {
        idx.push_back(i[o++]);
      }
    }
    return idx;
  };
  ir::DataType t = x.dtype;
  if (op == "argmax" || op == "argmin") {
    // TOPI reduces (index, value) pairs; we take the extremum, then the first index that
    // reaches it (the same value as TOPI's select_last_index=False).
    bool isMax = op == "argmax";
    TensorPtr ext =
        ctx.reduce(isMax ? "T_argmax_value" : "T_argmin_value", out, t, loopNames(out.size()), raxes,
                   isMax ? Combiner::Max : Combiner::Min,
                   [&](const std::vector<Expr>& i, const std::vector<Expr>& r) { return x.load(dataIndex(i, r)); });
    Operand e{ext, {}, out, t};
    return std::vector<TensorPtr>{ctx.reduce(
        "T_" + op, out, ir::DataType::int32(), loopNames(out.size()), raxes, Combiner::Min,
        [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
          Expr flatIndex = r.empty() ? ir::intImm(0) : r[0];
          for (std::size_t k = 1; k < r.size(); ++k)
            flatIndex = flatIndex * raxes[k].second + r[k];
          return ir::Select::make(x.load(dataIndex(i, r)) == e.load(i), flatIndex, ir::intImm(count));
        },
        "comm_reduce_idx")};
  }
  bool isVariance = op == "variance";
  Combiner c = op == "max" ? Combiner::Max : op == "min" ? Combiner::Min : Combiner::Sum;
  std::string name = op == "mean" || isVariance ? "T_sum" : "T_" + op;
  TensorPtr red = ctx.reduce(
      name, out, t, loopNames(out.size()), raxes, c,
      [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
        std::vector<Expr> idx = dataIndex(i, r);
        if (!isVariance) return x.load(idx);
        const Operand& m = ctx.inputs[1];
        Expr d = x.load(idx) - m.load(broadcastIndices(idx, m.shape));
        return d * d;
      },
      "comm_reduce");
  if (op != "mean" && !isVariance) return std::vector<TensorPtr>{red};
  if (isVariance && ctx.attrs.b("unbiased")) count -= 1;
  Operand s{red, {}, out, t};
  return std::vector<TensorPtr>{ctx.compute(
      "T_divide", out, t, loopNames(out.size()),
      [&](const std::vector<Expr>& i) { return s.load(i) / ir::makeConst(t, static_cast<double>(count)); },
      "elemwise")};
}

// ---- creation ----

Expected<Type> fillRel(TypeContext& ctx) {
  auto t = ir::DataType::parse(ctx.attrs.s("dtype"));
  if (!t || !t->isScalar())
    return ctx.attrError("dtype", fmt::format("{}: unknown dtype \"{}\"", ctx.call.name, ctx.attrs.s("dtype")));
  Ints shape = ctx.attrs.ints("shape");
  for (auto d : shape)
    if (d <= 0)
      return ctx.attrError("shape",
                           fmt::format("{}: every extent of shape must be positive, got {}", ctx.call.name, d));
  return Type::tensor(shape, *t);
}

Compute fillCompute(double value) {
  return [value](ComputeContext& ctx) -> Expected<std::vector<TensorPtr>> {
    const Ints& out = ctx.outType.shape;
    ir::DataType t = ctx.outType.dtype;
    return std::vector<TensorPtr>{ctx.compute(
        value == 0 ? "T_zeros" : "T_ones", out, t, loopNames(out.size()),
        [&](const std::vector<Expr>&) { return ir::makeConst(t, value); }, "elemwise")};
  };
}

OpDef unary(std::string name, std::string block, OpPattern p, TypeRelation rel, UnaryFn fn,
            std::vector<AttrDef> attrs = {}, bool pythonLoops = false) {
  OpDef d;
  d.name = std::move(name);
  d.attrs = std::move(attrs);
  d.pattern = p;
  d.relation = std::move(rel);
  d.compute = unaryCompute(std::move(block), std::move(fn), pythonLoops);
  return d;
}

OpDef binary(std::string name, BinaryFn fn, bool compare = false) {
  OpDef d;
  d.name = name;
  d.minArgs = d.maxArgs = 2;
  d.pattern = OpPattern::Broadcast;
  d.relation = [compare](TypeContext& ctx) { return broadcastRel(ctx, compare); };
  d.compute = binaryCompute("T_" + name, std::move(fn));
  return d;
}

OpDef simple(std::string name, int args, OpPattern p, TypeRelation rel, Compute compute, std::vector<AttrDef> attrs) {
  OpDef d;
  d.name = std::move(name);
  d.minArgs = d.maxArgs = args;
  d.attrs = std::move(attrs);
  d.pattern = p;
  d.relation = std::move(rel);
  d.compute = std::move(compute);
  return d;
}

} // namespace

void addTensorOps(std::vector<OpDef>& t) {
  using P = OpPattern;
  using C = ir::CallOp;
  auto call = [](C op) { return [op](const Expr& x, const CallAttrs&) { return math(op, x); }; };
  t.push_back(unary("nn.relu", "T_relu", P::ElemWise, sameTypeRel,
                    [](const Expr& x, const CallAttrs&) { return ir::max(x, ir::makeConst(x.dtype(), 0)); }));
  t.push_back(unary("nn.leaky_relu", "T_leaky_relu", P::ElemWise, sameTypeRel,
                    [](const Expr& x, const CallAttrs& a) {
                      return ir::Select::make(x > ir::makeConst(x.dtype(), 0), x,
                                              x * ir::makeConst(x.dtype(), a.f("alpha")));
                    },
                    {{"alpha", AttrKind::Float, AttrValue::real(0.25)}}));
  t.push_back(unary("negative", "T_negative", P::ElemWise, sameTypeRel,
                    [](const Expr& x, const CallAttrs&) { return ir::makeConst(x.dtype(), 0) - x; }));
  t.push_back(unary("copy", "T_copy", P::ElemWise, sameTypeRel, [](const Expr& x, const CallAttrs&) { return x; }));
  t.push_back(unary("abs", "T_abs", P::ElemWise, floatUnaryRel, call(C::Fabs)));
  t.push_back(unary("sqrt", "T_sqrt", P::ElemWise, floatUnaryRel, call(C::Sqrt)));
  t.push_back(unary("rsqrt", "T_rsqrt", P::ElemWise, floatUnaryRel, call(C::Rsqrt)));
  t.push_back(unary("exp", "T_exp", P::ElemWise, floatUnaryRel, call(C::Exp)));
  t.push_back(unary("log", "T_log", P::ElemWise, floatUnaryRel, call(C::Log)));
  t.push_back(unary("tanh", "T_tanh", P::ElemWise, floatUnaryRel, call(C::Tanh)));
  t.push_back(unary("erf", "T_erf", P::ElemWise, floatUnaryRel, call(C::Erf)));
  t.push_back(unary("sigmoid", "T_sigmoid", P::ElemWise, floatUnaryRel, call(C::Sigmoid)));
  t.push_back(unary("floor", "T_floor", P::ElemWise, floatUnaryRel, call(C::Floor)));
  t.push_back(unary("ceil", "T_ceil", P::ElemWise, floatUnaryRel, call(C::Ceil)));
  t.push_back(unary("round", "T_round", P::ElemWise, floatUnaryRel, call(C::Round)));
  t.push_back(unary(
      "clip", "compute", P::ElemWise, clipRel,
      [](const Expr& x, const CallAttrs& a) {
        return ir::min(ir::max(x, ir::makeConst(x.dtype(), a.f("a_min"))), ir::makeConst(x.dtype(), a.f("a_max")));
      },
      {{"a_min", AttrKind::Float, AttrValue::none()}, {"a_max", AttrKind::Float, AttrValue::none()}}, true));
  t.push_back(
      unary("cast", "T_cast", P::ElemWise, castRel,
            [](const Expr& x, const CallAttrs& a) { return ir::Cast::make(*ir::DataType::parse(a.s("dtype")), x); },
            {{"dtype", AttrKind::String, AttrValue::string("")}}));
  t.push_back(binary("add", [](const Expr& a, const Expr& b) { return a + b; }));
  t.push_back(binary("subtract", [](const Expr& a, const Expr& b) { return a - b; }));
  t.push_back(binary("multiply", [](const Expr& a, const Expr& b) { return a * b; }));
  t.push_back(binary("divide", [](const Expr& a, const Expr& b) { return a / b; }));
  t.push_back(binary("floor_divide", [](const Expr& a, const Expr& b) { return ir::floordiv(a, b); }));
  t.push_back(binary("power", [](const Expr& a, const Expr& b) { return ir::Call::make(a.dtype(), C::Pow, {a, b}); }));
  t.push_back(binary("maximum", [](const Expr& a, const Expr& b) { return ir::max(a, b); }));
  t.push_back(binary("minimum", [](const Expr& a, const Expr& b) { return ir::min(a, b); }));
  t.push_back(binary(
      "less", [](const Expr& a, const Expr& b) { return a < b; }, true));
  t.push_back(binary(
      "greater", [](const Expr& a, const Expr& b) { return a > b; }, true));
  t.push_back(binary(
      "less_equal", [](const Expr& a, const Expr& b) { return a <= b; }, true));
  t.push_back(binary(
      "greater_equal", [](const Expr& a, const Expr& b) { return a >= b; }, true));
  t.push_back(binary(
      "equal", [](const Expr& a, const Expr& b) { return a == b; }, true));
  t.push_back(binary(
      "not_equal", [](const Expr& a, const Expr& b) { return a != b; }, true));
  {
    OpDef w =
        simple("where", 3, P::Broadcast, [](TypeContext& ctx) { return broadcastRel(ctx, false); }, whereCompute, {});
    t.push_back(std::move(w));
  }
  t.push_back(simple("reshape", 1, P::Injective, reshapeRel, reshapeCompute,
                     {{"newshape", AttrKind::Ints, AttrValue::ints({})}}));
  t.push_back(simple("transpose", 1, P::Injective, transposeRel, transposeCompute,
                     {{"axes", AttrKind::OptInts, AttrValue::none()}}));
  t.push_back(
      simple("expand_dims", 1, P::Broadcast, expandDimsRel, keepDimsCompute("T_expand_dims"),
             {{"axis", AttrKind::Int, AttrValue::integer(0)}, {"num_newaxis", AttrKind::Int, AttrValue::integer(1)}}));
  t.push_back(simple("squeeze", 1, P::Injective, squeezeRel, keepDimsCompute("T_squeeze"),
                     {{"axis", AttrKind::OptInts, AttrValue::none()}}));
  t.push_back(simple("concatenate", 1, P::Injective, concatenateRel, concatenateCompute,
                     {{"axis", AttrKind::Int, AttrValue::integer(0)}}));
  t.push_back(simple("strided_slice", 1, P::Injective, stridedSliceRel, stridedSliceCompute,
                     {{"begin", AttrKind::Ints, AttrValue::ints({})},
                      {"end", AttrKind::Ints, AttrValue::ints({})},
                      {"strides", AttrKind::OptInts, AttrValue::none()},
                      {"axes", AttrKind::OptInts, AttrValue::none()},
                      {"slice_mode", AttrKind::String, AttrValue::string("end")}}));
  t.push_back(simple("take", 2, P::Injective, takeRel, takeCompute,
                     {{"batch_dims", AttrKind::Int, AttrValue::integer(0)},
                      {"axis", AttrKind::OptInt, AttrValue::none()},
                      {"mode", AttrKind::String, AttrValue::string("clip")}}));
  std::vector<AttrDef> redAttrs = {{"axis", AttrKind::OptInts, AttrValue::none()},
                                   {"keepdims", AttrKind::Bool, AttrValue::boolean(false)},
                                   {"exclude", AttrKind::Bool, AttrValue::boolean(false)}};
  for (const char* r : {"sum", "max", "min", "mean"})
    t.push_back(simple(r, 1, P::CommReduce, reduceRel, reduceCompute, redAttrs));
  {
    std::vector<AttrDef> varAttrs = redAttrs;
    varAttrs.push_back({"unbiased", AttrKind::Bool, AttrValue::boolean(false)});
    t.push_back(simple("variance", 2, P::CommReduce, reduceRel, reduceCompute, varAttrs));
    std::vector<AttrDef> argAttrs = redAttrs;
    argAttrs.push_back({"select_last_index", AttrKind::Bool, AttrValue::boolean(false)});
    for (const char* r : {"argmax", "argmin"})
      t.push_back(simple(r, 1, P::CommReduce, reduceRel, reduceCompute, argAttrs));
  }
  std::vector<AttrDef> fillAttrs = {{"shape", AttrKind::Ints, AttrValue::ints({})},
                                    {"dtype", AttrKind::String, AttrValue::string("float32")}};
  for (auto [name, v] : {std::pair{"zeros", 0.0}, std::pair{"ones", 1.0}}) {
    OpDef d = simple(name, 0, P::ElemWise, fillRel, fillCompute(v), fillAttrs);
    d.minArgs = d.maxArgs = 0;
    t.push_back(std::move(d));
  }
}

} // namespace loopscape::frontend::relay
