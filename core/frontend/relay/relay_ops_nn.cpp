// The nn.* ops: convolution, dense, batch matmul, pools, normalisations, softmax, pad,
// batch_flatten, dropout. Relations follow src/relay/op/nn/*.cc at TVM v0.18; computes
// follow TOPI's stages and names.
#include "core/frontend/relay/relay_layout.h"
#include "core/frontend/relay/relay_op.h"

#include "core/ir/op.h"

#include <fmt/format.h>

#include <cfloat>

namespace loopscape::frontend::relay {

namespace {

using ir::Expr;
using Ints = std::vector<std::int64_t>;

AttrValue str(const char* s) { return AttrValue::string(s); }

/// Padding in TVM's 1-, 2- or 4-value forms as [top, left, bottom, right].
std::optional<Ints> padding4(const Ints& p) {
  if (p.size() == 1) return Ints{p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return Ints{p[0], p[1], p[0], p[1]};
  if (p.size() == 4) return p;
  return std::nullopt;
}

/// Checks that `name` is a list of `n` positive integers (or, for padding, >= 0).
Expected<Ints> pairAttr(TypeContext& ctx, const char* name, std::int64_t minValue = 1) {
  Ints v = ctx.attrs.ints(name);
  if (v.size() != 2)
    return ctx.attrError(name, fmt::format("{} of {} must have 2 values, got {}", name, ctx.call.name, v.size()));
  for (auto x : v)
    if (x < minValue)
      return ctx.attrError(name, fmt::format("{} of {} must be >= {}, got {}", name, ctx.call.name, minValue, x));
  return v;
}

Expected<Ints> paddingAttr(TypeContext& ctx) {
  Ints raw = ctx.attrs.ints("padding");
  auto p = padding4(raw);
  if (!p)
    return ctx.attrError("padding",
                         fmt::format("padding of {} must have 1, 2 or 4 values, got {}", ctx.call.name, raw.size()));
  for (auto x : *p)
    if (x < 0) return ctx.attrError("padding", fmt::format("padding of {} must be >= 0, got {}", ctx.call.name, x));
  return *p;
}

Unexpected cannotInfer(const TypeContext& ctx, std::size_t k, std::string_view role, std::string_view how) {
  const Node& arg = *ctx.call.args[k];
  return Unexpected(Diagnostic::error("relay.type",
                                      fmt::format("cannot infer the shape of the {} meta[relay.Constant][{}] of {}: {}",
                                                  role, arg.index, ctx.call.name, how),
                                      arg.loc));
}

Unexpected needTensor(const TypeContext& ctx, std::size_t k, std::string_view role) {
  return Unexpected(Diagnostic::error(
      "relay.type",
      fmt::format("cannot infer the shape of the {} of {}: give it a type or a metadata section", role, ctx.call.name),
      ctx.call.args[k]->loc));
}

Expected<const Type*> knownTensor(TypeContext& ctx, std::size_t k, std::string_view role, std::size_t rank = 0) {
  auto t = ctx.tensorArg(k, role);
  if (!t) return t;
  if (!(*t)->known()) return needTensor(ctx, k, role);
  if (rank && (*t)->shape.size() != rank)
    return ctx.error(
        fmt::format("the {} of {} must be {}-D, got shape {}", role, ctx.call.name, rank, shapeStr((*t)->shape)));
  return t;
}

ir::DataType outDtype(const CallAttrs& attrs, ir::DataType fallback) {
  const std::string& s = attrs.s("out_dtype");
  if (s.empty()) return fallback;
  return ir::DataType::parse(s).value_or(fallback);
}

Expected<void> checkOutDtype(TypeContext& ctx) {
  const std::string& s = ctx.attrs.s("out_dtype");
  if (!s.empty() && !ir::DataType::parse(s))
    return ctx.attrError("out_dtype", fmt::format("unknown out_dtype \"{}\" of {}", s, ctx.call.name));
  return {};
}

/// The value `v` in `t`, cast when needed.
Expr castTo(ir::DataType t, const Expr& v) { return v.dtype() == t ? v : ir::Cast::make(t, v); }

/// The lowest (or highest) finite value of `t`: max-pool padding.
Expr lowest(ir::DataType t) {
  if (t.isFloat())
    return ir::FloatImm::make(t, t.bits() == 16 ? -65504.0 : t.bits() == 32 ? -static_cast<double>(FLT_MAX) : -DBL_MAX);
  if (t.isUInt() || t.isBool()) return ir::makeConst(t, 0);
  return ir::IntImm::make(t, t.bits() >= 64 ? INT64_MIN : -(std::int64_t{1} << (t.bits() - 1)));
}

/// TOPI's pad stage: `name[i...] = in-bounds ? data[i - before] : value`.
TensorPtr padStage(ComputeContext& ctx, const Operand& data, const Ints& before, const Ints& after, const Expr& value,
                   const std::string& name) {
  Ints shape = data.shape;
  for (std::size_t d = 0; d < shape.size(); ++d)
    shape[d] += before[d] + after[d];
  return ctx.compute(name, shape, data.dtype, loopNames(shape.size(), "i"), [&](const std::vector<Expr>& i) {
    std::vector<Expr> src;
    Expr cond;
    for (std::size_t d = 0; d < i.size(); ++d) {
      src.push_back(before[d] ? Expr(i[d] - before[d]) : i[d]);
      if (before[d]) cond = cond.defined() ? (cond && (i[d] >= before[d])) : Expr(i[d] >= before[d]);
      if (before[d] || after[d]) {
        Expr c = i[d] < before[d] + data.shape[d];
        cond = cond.defined() ? (cond && c) : c;
      }
    }
    Expr load = data.load(src);
    return cond.defined() ? ir::Select::make(cond, load, castTo(data.dtype, value), /*lazy=*/true) : load;
  });
}

// ---- nn.conv2d ----

Expected<Type> conv2dRel(TypeContext& ctx) {
  const std::string& dl = ctx.attrs.s("data_layout");
  const std::string& kl = ctx.attrs.s("kernel_layout");
  bool nhwc = dl == "NHWC";
  if (!((dl == "NCHW" && kl == "OIHW") || (nhwc && kl == "HWIO")))
    return ctx.attrError(
        dl != "NCHW" && dl != "NHWC" ? "data_layout" : "kernel_layout",
        fmt::format("nn.conv2d supports data_layout/kernel_layout NCHW/OIHW and NHWC/HWIO, got {}/{}", dl, kl));
  if (!ctx.attrs.s("out_layout").empty() && ctx.attrs.s("out_layout") != dl)
    return ctx.attrError("out_layout", fmt::format("nn.conv2d out_layout \"{}\" must equal data_layout \"{}\"",
                                                   ctx.attrs.s("out_layout"), dl));
  if (auto r = checkOutDtype(ctx); !r) return std::unexpected(r.error());
  auto data = knownTensor(ctx, 0, "data", 4);
  if (!data) return std::unexpected(data.error());
  auto strides = pairAttr(ctx, "strides");
  if (!strides) return std::unexpected(strides.error());
  auto dilation = pairAttr(ctx, "dilation");
  if (!dilation) return std::unexpected(dilation.error());
  auto pad = paddingAttr(ctx);
  if (!pad) return std::unexpected(pad.error());
  std::int64_t groups = ctx.attrs.i("groups");
  const Ints& ds = (*data)->shape;
  std::int64_t n = ds[0], c = nhwc ? ds[3] : ds[1], h = nhwc ? ds[1] : ds[2], w = nhwc ? ds[2] : ds[3];
  if (groups < 1 || c % groups != 0)
    return ctx.attrError("groups",
                         fmt::format("groups={} of nn.conv2d must divide the data's {} channels (data shape {})",
                                     groups, c, shapeStr(ds)));
  if (!ctx.args[1].known()) {
    if (ctx.attrs.isNone("channels") || ctx.attrs.isNone("kernel_size"))
      return cannotInfer(ctx, 1, "weight", "give channels= and kernel_size= or a metadata section");
    Ints ks = ctx.attrs.ints("kernel_size");
    if (ks.size() != 2) return ctx.attrError("kernel_size", "kernel_size of nn.conv2d must have 2 values");
    std::int64_t o = ctx.attrs.i("channels");
    ctx.args[1] =
        Type::tensor(nhwc ? Ints{ks[0], ks[1], c / groups, o} : Ints{o, c / groups, ks[0], ks[1]}, (*data)->dtype);
  }
  auto weight = knownTensor(ctx, 1, "weight", 4);
  if (!weight) return std::unexpected(weight.error());
  const Ints& ws = (*weight)->shape;
  std::int64_t o = nhwc ? ws[3] : ws[0], wi = nhwc ? ws[2] : ws[1], kh = nhwc ? ws[0] : ws[2],
               kw = nhwc ? ws[1] : ws[3];
  if (wi * groups != c)
    return ctx.error(
        fmt::format("nn.conv2d: the weight {} has {} input channels per group, but the data {} has {} channels "
                    "and groups={} (expected {} per group)",
                    shapeStr(ws), wi, shapeStr(ds), c, groups, c / groups));
  if (o % groups != 0)
    return ctx.error(fmt::format("nn.conv2d: the weight {} has {} output channels, not a multiple of groups={}",
                                 shapeStr(ws), o, groups));
  if (!ctx.attrs.isNone("channels") && ctx.attrs.i("channels") != o)
    return ctx.attrError("channels",
                         fmt::format("channels={} of nn.conv2d disagrees with the weight {} ({} output channels)",
                                     ctx.attrs.i("channels"), shapeStr(ws), o));
  if (!ctx.attrs.isNone("kernel_size") && ctx.attrs.ints("kernel_size") != Ints{kh, kw})
    return ctx.attrError("kernel_size",
                         fmt::format("kernel_size of nn.conv2d disagrees with the weight {}", shapeStr(ws)));
  if (nhwc && groups != 1) return ctx.attrError("groups", "nn.conv2d with NHWC layout supports groups=1 only");
  std::int64_t oh = (h + (*pad)[0] + (*pad)[2] - ((kh - 1) * (*dilation)[0] + 1)) / (*strides)[0] + 1;
  std::int64_t ow = (w + (*pad)[1] + (*pad)[3] - ((kw - 1) * (*dilation)[1] + 1)) / (*strides)[1] + 1;
  if (h + (*pad)[0] + (*pad)[2] < (kh - 1) * (*dilation)[0] + 1 ||
      w + (*pad)[1] + (*pad)[3] < (kw - 1) * (*dilation)[1] + 1)
    return ctx.error(fmt::format("nn.conv2d: the kernel {}x{} (dilation {}x{}) is larger than the padded data {}", kh,
                                 kw, (*dilation)[0], (*dilation)[1], shapeStr(ds)));
  ir::DataType t = outDtype(ctx.attrs, (*data)->dtype);
  return Type::tensor(nhwc ? Ints{n, oh, ow, o} : Ints{n, o, oh, ow}, t);
}

Expected<std::vector<TensorPtr>> conv2dCompute(ComputeContext& ctx) {
  const Operand& data = ctx.inputs[0];
  const Operand& weight = ctx.inputs[1];
  bool nhwc = ctx.attrs.s("data_layout") == "NHWC";
  Ints strides = ctx.attrs.ints("strides"), dil = ctx.attrs.ints("dilation"),
       pad = *padding4(ctx.attrs.ints("padding"));
  std::int64_t groups = ctx.attrs.i("groups");
  const Ints& out = ctx.outType.shape;
  ir::DataType t = ctx.outType.dtype;
  Ints before = nhwc ? Ints{0, pad[0], pad[1], 0} : Ints{0, 0, pad[0], pad[1]};
  Ints after = nhwc ? Ints{0, pad[2], pad[3], 0} : Ints{0, 0, pad[2], pad[3]};
  TensorPtr padded = padStage(ctx, data, before, after, ir::makeConst(data.dtype, 0), "pad_temp");
  Operand p{padded, {}, {}, data.dtype};
  const Ints& ws = weight.shape;
  if (nhwc) {
    std::int64_t kh = ws[0], kw = ws[1], ci = ws[2];
    return std::vector<TensorPtr>{ctx.reduce(
        "conv2d_nhwc", out, t, {"nn", "yy", "xx", "ff"}, {{"ry", kh}, {"rx", kw}, {"rc", ci}}, Combiner::Sum,
        [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
          Expr a = p.load(
              {i[0], windowIndex(i[1], strides[0], r[0], dil[0]), windowIndex(i[2], strides[1], r[1], dil[1]), r[2]});
          Expr b = weight.load({r[0], r[1], r[2], i[3]});
          return castTo(t, a) * castTo(t, b);
        },
        "conv2d_nhwc")};
  }
  std::int64_t ci = ws[1], kh = ws[2], kw = ws[3], o = ws[0];
  std::int64_t c = data.shape[1];
  bool depthwise = groups > 1 && groups == c && groups == o;
  std::string name = groups == 1 ? "conv2d_nchw" : depthwise ? "DepthwiseConv2d" : "group_conv2d_nchw";
  std::int64_t outPerGroup = o / groups;
  std::vector<std::pair<std::string, std::int64_t>> axes = {{"rc", ci}, {"ry", kh}, {"rx", kw}};
  if (depthwise) axes = {{"ry", kh}, {"rx", kw}};
  return std::vector<TensorPtr>{ctx.reduce(
      name, out, t, {"nn", "ff", "yy", "xx"}, axes, Combiner::Sum,
      [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
        Expr ry = depthwise ? r[0] : r[1], rx = depthwise ? r[1] : r[2];
        Expr chan = depthwise ? i[1] : groups == 1 ? r[0] : Expr(ir::floordiv(i[1], outPerGroup) * ci + r[0]);
        Expr a =
            p.load({i[0], chan, windowIndex(i[2], strides[0], ry, dil[0]), windowIndex(i[3], strides[1], rx, dil[1])});
        Expr b = weight.load({i[1], depthwise ? ir::intImm(0) : r[0], ry, rx});
        return castTo(t, a) * castTo(t, b);
      },
      name)};
}

std::int64_t conv2dFlops(const std::vector<Type>& args, const Type& out, const CallAttrs& attrs) {
  const Ints& w = args[1].shape;
  bool nhwc = attrs.s("data_layout") == "NHWC";
  std::int64_t perOut = nhwc ? w[0] * w[1] * w[2] : w[1] * w[2] * w[3];
  return saturatingFlops(2.0 * static_cast<double>(out.numel()) * static_cast<double>(perOut));
}

// ---- nn.contrib_conv2d_NCHWc (what AlterOpLayout makes of an NCHW conv2d on x86) ----

/// The blocks of NCHW[x]c / OIHW[x]i[y]o / NCHW[y]c layouts: x and y, or 0 when a layout
/// is not of that form.
struct NchwcBlocks {
  std::int64_t data = 0, kernelIn = 0, kernelOut = 0, out = 0;
};

std::int64_t blockOf(const std::string& layout, const std::string& primal, char sub) {
  auto l = parseLayout(layout);
  if (!l || l->size() != primal.size() + 1) return 0;
  for (std::size_t k = 0; k < primal.size(); ++k)
    if ((*l)[k].primal != primal[k] || (*l)[k].factor) return 0;
  return l->back().primal == sub ? l->back().factor : 0;
}

NchwcBlocks nchwcBlocks(const CallAttrs& attrs) {
  NchwcBlocks b;
  b.data = blockOf(attrs.s("data_layout"), "NCHW", 'C');
  b.out = blockOf(attrs.s("out_layout"), "NCHW", 'C');
  // OIHW[x]i[y]o: two sub-axes.
  auto l = parseLayout(attrs.s("kernel_layout"));
  if (l && l->size() == 6 && (*l)[0].primal == 'O' && (*l)[1].primal == 'I' && (*l)[2].primal == 'H' &&
      (*l)[3].primal == 'W' && !(*l)[0].factor && !(*l)[1].factor && !(*l)[2].factor && !(*l)[3].factor &&
      (*l)[4].primal == 'I' && (*l)[5].primal == 'O') {
    b.kernelIn = (*l)[4].factor;
    b.kernelOut = (*l)[5].factor;
  }
  return b;
}

Expected<Type> conv2dNchwcRel(TypeContext& ctx) {
  const NchwcBlocks b = nchwcBlocks(ctx.attrs);
  if (!b.data)
    return ctx.attrError("data_layout", fmt::format("nn.contrib_conv2d_NCHWc needs data_layout NCHW[x]c, got \"{}\"",
                                                    ctx.attrs.s("data_layout")));
  if (!b.kernelIn)
    return ctx.attrError("kernel_layout",
                         fmt::format("nn.contrib_conv2d_NCHWc needs kernel_layout OIHW[x]i[y]o, got \"{}\"",
                                     ctx.attrs.s("kernel_layout")));
  if (!b.out)
    return ctx.attrError("out_layout", fmt::format("nn.contrib_conv2d_NCHWc needs out_layout NCHW[y]c, got \"{}\"",
                                                   ctx.attrs.s("out_layout")));
  if (b.kernelIn != b.data || b.kernelOut != b.out)
    return ctx.attrError("kernel_layout",
                         fmt::format("kernel_layout \"{}\" of nn.contrib_conv2d_NCHWc does not match data_layout "
                                     "\"{}\" and out_layout \"{}\"",
                                     ctx.attrs.s("kernel_layout"), ctx.attrs.s("data_layout"),
                                     ctx.attrs.s("out_layout")));
  if (ctx.attrs.i("groups") != 1) return ctx.attrError("groups", "nn.contrib_conv2d_NCHWc supports groups=1 only");
  if (auto r = checkOutDtype(ctx); !r) return std::unexpected(r.error());
  auto data = knownTensor(ctx, 0, "data", 5);
  if (!data) return std::unexpected(data.error());
  const Ints& ds = (*data)->shape;
  if (ds[4] != b.data)
    return ctx.error(fmt::format("nn.contrib_conv2d_NCHWc: the data {} does not match data_layout \"{}\"", shapeStr(ds),
                                 ctx.attrs.s("data_layout")));
  auto strides = pairAttr(ctx, "strides");
  if (!strides) return std::unexpected(strides.error());
  auto dilation = pairAttr(ctx, "dilation");
  if (!dilation) return std::unexpected(dilation.error());
  auto pad = paddingAttr(ctx);
  if (!pad) return std::unexpected(pad.error());
  if (!ctx.args[1].known()) {
    if (ctx.attrs.isNone("channels") || ctx.attrs.isNone("kernel_size"))
      return cannotInfer(ctx, 1, "weight", "give channels= and kernel_size= or a metadata section");
    Ints ks = ctx.attrs.ints("kernel_size");
    std::int64_t o = ctx.attrs.i("channels");
    if (ks.size() != 2)
      return ctx.attrError("kernel_size", "kernel_size of nn.contrib_conv2d_NCHWc must have 2 values");
    if (o % b.out != 0)
      return ctx.attrError("channels",
                           fmt::format("channels={} of nn.contrib_conv2d_NCHWc is not a multiple of {}", o, b.out));
    ctx.args[1] = Type::tensor({o / b.out, ds[1], ks[0], ks[1], b.data, b.out}, (*data)->dtype);
  }
  auto weight = knownTensor(ctx, 1, "weight", 6);
  if (!weight) return std::unexpected(weight.error());
  const Ints& ws = (*weight)->shape;
  if (ws[1] != ds[1] || ws[4] != b.data || ws[5] != b.out)
    return ctx.error(fmt::format("nn.contrib_conv2d_NCHWc: the weight {} does not match the data {} in layout \"{}\"",
                                 shapeStr(ws), shapeStr(ds), ctx.attrs.s("kernel_layout")));
  if (!ctx.attrs.isNone("channels") && ctx.attrs.i("channels") != ws[0] * b.out)
    return ctx.attrError("channels",
                         fmt::format("channels={} of nn.contrib_conv2d_NCHWc disagrees with the weight {} ({} output "
                                     "channels)",
                                     ctx.attrs.i("channels"), shapeStr(ws), ws[0] * b.out));
  std::int64_t kh = ws[2], kw = ws[3];
  if (ds[2] + (*pad)[0] + (*pad)[2] < (kh - 1) * (*dilation)[0] + 1 ||
      ds[3] + (*pad)[1] + (*pad)[3] < (kw - 1) * (*dilation)[1] + 1)
    return ctx.error(fmt::format("nn.contrib_conv2d_NCHWc: the kernel {}x{} is larger than the padded data {}", kh, kw,
                                 shapeStr(ds)));
  std::int64_t oh = (ds[2] + (*pad)[0] + (*pad)[2] - ((kh - 1) * (*dilation)[0] + 1)) / (*strides)[0] + 1;
  std::int64_t ow = (ds[3] + (*pad)[1] + (*pad)[3] - ((kw - 1) * (*dilation)[1] + 1)) / (*strides)[1] + 1;
  return Type::tensor({ds[0], ws[0], oh, ow, b.out}, outDtype(ctx.attrs, (*data)->dtype));
}

/// TOPI's conv2d_NCHWc (topi/nn/conv2d.py), with the input channels as two reduction
/// axes (chunk, block) instead of one axis divided and taken modulo the block.
Expected<std::vector<TensorPtr>> conv2dNchwcCompute(ComputeContext& ctx) {
  const Operand& data = ctx.inputs[0];
  const Operand& weight = ctx.inputs[1];
  Ints strides = ctx.attrs.ints("strides"), dil = ctx.attrs.ints("dilation"),
       pad = *padding4(ctx.attrs.ints("padding"));
  ir::DataType t = ctx.outType.dtype;
  TensorPtr padded = padStage(ctx, data, {0, 0, pad[0], pad[1], 0}, {0, 0, pad[2], pad[3], 0},
                              ir::makeConst(data.dtype, 0), "data_pad");
  Operand p{padded, {}, {}, data.dtype};
  const Ints& ws = weight.shape;
  return std::vector<TensorPtr>{ctx.reduce(
      "conv2d_NCHWc", ctx.outType.shape, t, {"n", "oc_chunk", "oh", "ow", "oc_block"},
      {{"ic_outer", ws[1]}, {"kh", ws[2]}, {"kw", ws[3]}, {"ic_inner", ws[4]}}, Combiner::Sum,
      [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
        Expr a = p.load({i[0], r[0], windowIndex(i[2], strides[0], r[1], dil[0]),
                         windowIndex(i[3], strides[1], r[2], dil[1]), r[3]});
        Expr b = weight.load({i[1], r[0], r[1], r[2], r[3], i[4]});
        return castTo(t, a) * castTo(t, b);
      },
      "conv2d_NCHWc")};
}

std::int64_t conv2dNchwcFlops(const std::vector<Type>& args, const Type& out, const CallAttrs&) {
  const Ints& w = args[1].shape;
  return saturatingFlops(2.0 * static_cast<double>(out.numel()) * static_cast<double>(w[1] * w[2] * w[3] * w[4]));
}

// ---- nn.dense, nn.batch_matmul ----

Expected<Type> denseRel(TypeContext& ctx) {
  if (auto r = checkOutDtype(ctx); !r) return std::unexpected(r.error());
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  const Ints& ds = (*data)->shape;
  if (ds.empty()) return ctx.error("the data of nn.dense must have at least 1 dimension, got a scalar");
  if (!ctx.args[1].known()) {
    if (ctx.attrs.isNone("units")) return cannotInfer(ctx, 1, "weight", "give units= or a metadata section");
    ctx.args[1] = Type::tensor({ctx.attrs.i("units"), ds.back()}, (*data)->dtype);
  }
  auto weight = knownTensor(ctx, 1, "weight", 2);
  if (!weight) return std::unexpected(weight.error());
  const Ints& ws = (*weight)->shape;
  if (ws[1] != ds.back())
    return ctx.error(fmt::format("nn.dense: the data {} has {} features but the weight {} expects {}", shapeStr(ds),
                                 ds.back(), shapeStr(ws), ws[1]));
  if (!ctx.attrs.isNone("units") && ctx.attrs.i("units") != ws[0])
    return ctx.attrError(
        "units", fmt::format("units={} of nn.dense disagrees with the weight {}", ctx.attrs.i("units"), shapeStr(ws)));
  Ints out = ds;
  out.back() = ws[0];
  return Type::tensor(out, outDtype(ctx.attrs, (*data)->dtype));
}

Expected<std::vector<TensorPtr>> denseCompute(ComputeContext& ctx) {
  const Operand& a = ctx.inputs[0];
  const Operand& b = ctx.inputs[1];
  ir::DataType t = ctx.outType.dtype;
  std::size_t rank = ctx.outType.shape.size();
  return std::vector<TensorPtr>{ctx.reduce(
      "T_matmul_NT", ctx.outType.shape, t, loopNames(rank, "i"), {{"k", a.shape.back()}}, Combiner::Sum,
      [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
        std::vector<Expr> ai(i.begin(), i.end() - 1);
        ai.push_back(r[0]);
        return castTo(t, a.load(ai)) * castTo(t, b.load({i.back(), r[0]}));
      },
      "dense")};
}

std::int64_t denseFlops(const std::vector<Type>& args, const Type& out, const CallAttrs&) {
  return saturatingFlops(2.0 * static_cast<double>(out.numel()) * static_cast<double>(args[0].shape.back()));
}

// nn.contrib_dense_pack: what AlterOpLayout makes of nn.dense on x86. The weight (N, K)
// packed as NC[b]n, (N / b, K, b): b consecutive output features per k are contiguous.

Expected<Type> densePackRel(TypeContext& ctx) {
  if (auto r = checkOutDtype(ctx); !r) return std::unexpected(r.error());
  auto l = parseLayout(ctx.attrs.s("weight_layout"));
  if (!l || l->size() != 3 || (*l)[0].primal != 'N' || (*l)[0].factor || (*l)[1].primal != 'C' || (*l)[1].factor ||
      (*l)[2].primal != 'N' || !(*l)[2].factor)
    return ctx.attrError("weight_layout", fmt::format("nn.contrib_dense_pack needs weight_layout NC[b]n, got \"{}\"",
                                                      ctx.attrs.s("weight_layout")));
  const std::int64_t b = (*l)[2].factor;
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  const Ints& ds = (*data)->shape;
  if (ds.empty()) return ctx.error("the data of nn.contrib_dense_pack must have at least 1 dimension, got a scalar");
  auto weight = knownTensor(ctx, 1, "weight", 3);
  if (!weight) return std::unexpected(weight.error());
  const Ints& ws = (*weight)->shape;
  if (ws[1] != ds.back() || ws[2] != b)
    return ctx.error(fmt::format("nn.contrib_dense_pack: the weight {} does not match the data {} in layout \"{}\"",
                                 shapeStr(ws), shapeStr(ds), ctx.attrs.s("weight_layout")));
  if (!ctx.attrs.isNone("units") && ctx.attrs.i("units") != ws[0] * b)
    return ctx.attrError("units", fmt::format("units={} of nn.contrib_dense_pack disagrees with the weight {}",
                                              ctx.attrs.i("units"), shapeStr(ws)));
  Ints out = ds;
  out.back() = ws[0] * b;
  return Type::tensor(out, outDtype(ctx.attrs, (*data)->dtype));
}

Expected<std::vector<TensorPtr>> densePackCompute(ComputeContext& ctx) {
  const Operand& a = ctx.inputs[0];
  const Operand& w = ctx.inputs[1];
  ir::DataType t = ctx.outType.dtype;
  const std::int64_t b = w.shape[2];
  std::size_t rank = ctx.outType.shape.size();
  return std::vector<TensorPtr>{ctx.reduce(
      "T_dense_pack", ctx.outType.shape, t, loopNames(rank, "i"), {{"k", a.shape.back()}}, Combiner::Sum,
      [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
        std::vector<Expr> ai(i.begin(), i.end() - 1);
        ai.push_back(r[0]);
        Expr n = i.back();
        return castTo(t, a.load(ai)) * castTo(t, w.load({ir::floordiv(n, b), r[0], ir::floormod(n, b)}));
      },
      "dense_pack")};
}

Expected<Type> batchMatmulRel(TypeContext& ctx) {
  if (auto r = checkOutDtype(ctx); !r) return std::unexpected(r.error());
  auto x = knownTensor(ctx, 0, "first operand", 3);
  if (!x) return std::unexpected(x.error());
  auto y = knownTensor(ctx, 1, "second operand", 3);
  if (!y) return std::unexpected(y.error());
  bool ta = ctx.attrs.b("transpose_a"), tb = ctx.attrs.b("transpose_b");
  const Ints& xs = (*x)->shape;
  const Ints& ys = (*y)->shape;
  std::int64_t m = ta ? xs[2] : xs[1], k = ta ? xs[1] : xs[2];
  std::int64_t n = tb ? ys[1] : ys[2], k2 = tb ? ys[2] : ys[1];
  if (k != k2)
    return ctx.error(fmt::format("nn.batch_matmul: the reduction extents differ: {} of x {} against {} of y {}", k,
                                 shapeStr(xs), k2, shapeStr(ys)));
  if (xs[0] != ys[0] && xs[0] != 1 && ys[0] != 1)
    return ctx.error(
        fmt::format("nn.batch_matmul: the batch sizes of x {} and y {} do not broadcast", shapeStr(xs), shapeStr(ys)));
  return Type::tensor({std::max(xs[0], ys[0]), m, n}, outDtype(ctx.attrs, (*x)->dtype));
}

Expected<std::vector<TensorPtr>> batchMatmulCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  const Operand& y = ctx.inputs[1];
  bool ta = ctx.attrs.b("transpose_a"), tb = ctx.attrs.b("transpose_b");
  ir::DataType t = ctx.outType.dtype;
  std::int64_t k = ta ? x.shape[1] : x.shape[2];
  std::string name = fmt::format("T_batch_matmul_{}{}", ta ? "T" : "N", tb ? "T" : "N");
  return std::vector<TensorPtr>{ctx.reduce(
      name, ctx.outType.shape, t, {"b", "i", "j"}, {{"k", k}}, Combiner::Sum,
      [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
        Expr bx = x.shape[0] == 1 ? ir::intImm(0) : i[0], by = y.shape[0] == 1 ? ir::intImm(0) : i[0];
        Expr a = ta ? x.load({bx, r[0], i[1]}) : x.load({bx, i[1], r[0]});
        Expr b = tb ? y.load({by, i[2], r[0]}) : y.load({by, r[0], i[2]});
        return castTo(t, a) * castTo(t, b);
      },
      "batch_matmul")};
}

std::int64_t batchMatmulFlops(const std::vector<Type>& args, const Type& out, const CallAttrs& attrs) {
  return saturatingFlops(2.0 * static_cast<double>(out.numel()) *
                         static_cast<double>(attrs.b("transpose_a") ? args[0].shape[1] : args[0].shape[2]));
}

// ---- nn.bias_add, nn.batch_norm, nn.dropout ----

/// A per-channel parameter `k` of shape [c]: inferred when unknown, checked otherwise.
Expected<void> channelParam(TypeContext& ctx, std::size_t k, std::string_view role, std::int64_t c, ir::DataType dtype,
                            const Ints& dataShape) {
  if (!ctx.args[k].known()) ctx.args[k] = Type::tensor({c}, dtype);
  auto p = ctx.tensorArg(k, role);
  if (!p) return std::unexpected(p.error());
  if ((*p)->shape != Ints{c})
    return ctx.error(fmt::format("{}: the {} has shape {} but the data {} has {} channels on the axis (expected ({},))",
                                 ctx.call.name, role, shapeStr((*p)->shape), shapeStr(dataShape), c, c));
  return {};
}

Expected<Type> biasAddRel(TypeContext& ctx) {
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  auto axis = normalizeAxis(ctx.attrs.i("axis"), (*data)->shape.size());
  if (!axis)
    return ctx.attrError("axis", fmt::format("axis={} of nn.bias_add is out of range for the data {}",
                                             ctx.attrs.i("axis"), shapeStr((*data)->shape)));
  Type d = **data;
  if (auto r = channelParam(ctx, 1, "bias", d.shape[*axis], d.dtype, d.shape); !r) return std::unexpected(r.error());
  return d;
}

Expected<std::vector<TensorPtr>> biasAddCompute(ComputeContext& ctx) {
  const Operand& data = ctx.inputs[0];
  const Operand& bias = ctx.inputs[1];
  std::size_t axis = static_cast<std::size_t>(*normalizeAxis(ctx.attrs.i("axis"), data.shape.size()));
  return std::vector<TensorPtr>{ctx.compute(
      "T_add", data.shape, data.dtype, loopNames(data.shape.size()),
      [&](const std::vector<Expr>& i) { return data.load(i) + bias.load({i[axis]}); }, "broadcast")};
}

Expected<Type> batchNormRel(TypeContext& ctx) {
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  auto axis = normalizeAxis(ctx.attrs.i("axis"), (*data)->shape.size());
  if (!axis)
    return ctx.attrError("axis", fmt::format("axis={} of nn.batch_norm is out of range for the data {}",
                                             ctx.attrs.i("axis"), shapeStr((*data)->shape)));
  Type d = **data;
  std::int64_t c = d.shape[*axis];
  static const char* kRoles[] = {"gamma", "beta", "moving_mean", "moving_var"};
  for (std::size_t k = 1; k <= 4; ++k)
    if (auto r = channelParam(ctx, k, kRoles[k - 1], c, d.dtype, d.shape); !r) return std::unexpected(r.error());
  Type vec = Type::tensor({c}, d.dtype);
  return Type::tuple({d, vec, vec});
}

Expected<Type> layerNormRel(TypeContext& ctx) {
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  auto axis = normalizeAxis(ctx.attrs.i("axis"), (*data)->shape.size());
  if (!axis)
    return ctx.attrError("axis", fmt::format("axis={} of nn.layer_norm is out of range for the data {}",
                                             ctx.attrs.i("axis"), shapeStr((*data)->shape)));
  Type d = **data;
  for (std::size_t k = 1; k <= 2; ++k)
    if (auto r = channelParam(ctx, k, k == 1 ? "gamma" : "beta", d.shape[*axis], d.dtype, d.shape); !r)
      return std::unexpected(r.error());
  return d;
}

Expected<Type> dropoutRel(TypeContext& ctx) {
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  double rate = ctx.attrs.f("rate");
  if (rate < 0 || rate >= 1) return ctx.attrError("rate", fmt::format("rate={} of nn.dropout must be in [0, 1)", rate));
  return Type::tuple({**data, **data});
}

// ---- pools ----

struct PoolAxes {
  std::size_t rank = 4, h = 2, w = 3;
};

/// The H and W axes of a pool's layout: NCHW, NHWC or a blocked layout such as NCHW16c
/// (H and W not split), as TOPI's pools take them.
PoolAxes poolAxes(const std::string& layout) {
  Layout l = parseLayout(layout).value_or(Layout{});
  return {l.size(), static_cast<std::size_t>(primalIndex(l, 'H')), static_cast<std::size_t>(primalIndex(l, 'W'))};
}

Expected<PoolAxes> poolLayout(TypeContext& ctx, const char* attr, const Type& data) {
  const std::string& s = ctx.attrs.s(attr);
  auto l = parseLayout(s);
  bool ok = l && primalIndex(*l, 'N') >= 0 && primalIndex(*l, 'C') >= 0 && primalIndex(*l, 'H') >= 0 &&
            primalIndex(*l, 'W') >= 0 && l->size() - static_cast<std::size_t>(subFactor(*l, 'C') > 1) == 4 &&
            subFactor(*l, 'H') == 1 && subFactor(*l, 'W') == 1;
  if (!ok)
    return ctx.attrError(attr, fmt::format("{} of {} must be \"NCHW\", \"NHWC\" or a blocked layout such as "
                                           "\"NCHW16c\", got \"{}\"",
                                           attr, ctx.call.name, s));
  if (data.shape.size() != l->size())
    return ctx.error(fmt::format("the data of {} must be {}-D for layout \"{}\", got shape {}", ctx.call.name,
                                 l->size(), s, shapeStr(data.shape)));
  for (std::size_t k = 0; k < l->size(); ++k)
    if ((*l)[k].factor && data.shape[k] != (*l)[k].factor)
      return ctx.error(fmt::format("the data {} of {} does not match layout \"{}\" (axis {} is {}, not {})",
                                   shapeStr(data.shape), ctx.call.name, s, k, data.shape[k], (*l)[k].factor));
  return poolAxes(s);
}

Expected<Type> pool2dRel(TypeContext& ctx) {
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  auto axes = poolLayout(ctx, "layout", **data);
  if (!axes) return std::unexpected(axes.error());
  auto size = pairAttr(ctx, "pool_size");
  if (!size) return std::unexpected(size.error());
  auto strides = pairAttr(ctx, "strides");
  if (!strides) return std::unexpected(strides.error());
  auto dilation = pairAttr(ctx, "dilation");
  if (!dilation) return std::unexpected(dilation.error());
  auto pad = paddingAttr(ctx);
  if (!pad) return std::unexpected(pad.error());
  bool ceil = ctx.attrs.b("ceil_mode");
  Ints out = (*data)->shape;
  std::size_t ax[2] = {axes->h, axes->w};
  for (int k = 0; k < 2; ++k) {
    std::int64_t in = out[ax[k]] + (*pad)[k] + (*pad)[k + 2];
    std::int64_t win = ((*size)[k] - 1) * (*dilation)[k] + 1;
    if (in < win)
      return ctx.error(fmt::format("{}: the window {} is larger than the padded input {}", ctx.call.name, win,
                                   shapeStr((*data)->shape)));
    std::int64_t num = in - win;
    out[ax[k]] = (ceil ? (num + (*strides)[k] - 1) / (*strides)[k] : num / (*strides)[k]) + 1;
  }
  if (ctx.call.name == "nn.avg_pool2d" && !ctx.attrs.b("count_include_pad") &&
      ((*dilation)[0] != 1 || (*dilation)[1] != 1))
    return ctx.attrError("dilation", "nn.avg_pool2d with count_include_pad=False supports dilation [1, 1] only");
  return Type::tensor(out, (*data)->dtype);
}

Expected<std::vector<TensorPtr>> pool2dCompute(ComputeContext& ctx) {
  const Operand& data = ctx.inputs[0];
  bool isMax = ctx.call.name == "nn.max_pool2d";
  const PoolAxes axes = poolAxes(ctx.attrs.s("layout"));
  const std::size_t ha = axes.h, wa = axes.w;
  Ints size = ctx.attrs.ints("pool_size"), st = ctx.attrs.ints("strides"), dil = ctx.attrs.ints("dilation");
  Ints pad = *padding4(ctx.attrs.ints("padding"));
  const Ints& out = ctx.outType.shape;
  ir::DataType t = data.dtype;
  // ceil_mode reads past the bottom/right edge: pad there as well (TOPI does the same).
  Ints before(axes.rank, 0), after(axes.rank, 0);
  before[ha] = pad[0];
  before[wa] = pad[1];
  after[ha] =
      std::max<std::int64_t>(pad[2], (out[ha] - 1) * st[0] + (size[0] - 1) * dil[0] + 1 - data.shape[ha] - pad[0]);
  after[wa] =
      std::max<std::int64_t>(pad[3], (out[wa] - 1) * st[1] + (size[1] - 1) * dil[1] + 1 - data.shape[wa] - pad[1]);
  bool padded = before[ha] || before[wa] || after[ha] || after[wa];
  Operand src = data;
  if (padded)
    src = Operand{padStage(ctx, data, before, after, isMax ? lowest(t) : ir::makeConst(t, 0), "pad_temp"), {}, {}, t};
  auto window = [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
    std::vector<Expr> idx = i;
    idx[ha] = windowIndex(i[ha], st[0], r[0], dil[0]);
    idx[wa] = windowIndex(i[wa], st[1], r[1], dil[1]);
    return src.load(idx);
  };
  std::vector<std::pair<std::string, std::int64_t>> reduceAxes = {{"rv0", size[0]}, {"rv1", size[1]}};
  if (isMax)
    return std::vector<TensorPtr>{
        ctx.reduce("pool_max", out, t, loopNames(axes.rank), reduceAxes, Combiner::Max, window, "pool_max")};
  TensorPtr sum = ctx.reduce("pool_sum", out, t, loopNames(axes.rank), reduceAxes, Combiner::Sum, window, "pool_sum");
  Operand s{sum, {}, out, t};
  bool includePad = ctx.attrs.b("count_include_pad");
  std::int64_t h = data.shape[ha], w = data.shape[wa];
  return std::vector<TensorPtr>{ctx.compute(
      "pool_avg", out, t, loopNames(axes.rank),
      [&](const std::vector<Expr>& i) {
        if (includePad || !padded) return s.load(i) / ir::makeConst(t, static_cast<double>(size[0] * size[1]));
        // The number of window elements inside the unpadded input (dilation 1).
        Expr hs = i[ha] * st[0] - pad[0], ws = i[wa] * st[1] - pad[1];
        Expr ch = ir::min(hs + size[0], ir::intImm(h)) - ir::max(hs, ir::intImm(0));
        Expr cw = ir::min(ws + size[1], ir::intImm(w)) - ir::max(ws, ir::intImm(0));
        return s.load(i) / ir::Cast::make(t, ir::max(ch * cw, ir::intImm(1)));
      },
      "elemwise")};
}

std::int64_t poolFlops(const std::vector<Type>&, const Type& out, const CallAttrs& attrs) {
  Ints size = attrs.ints("pool_size");
  return saturatingFlops(static_cast<double>(out.numel()) * static_cast<double>(size[0]) *
                         static_cast<double>(size[1]));
}

Expected<Type> globalPoolRel(TypeContext& ctx) {
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  auto axes = poolLayout(ctx, "layout", **data);
  if (!axes) return std::unexpected(axes.error());
  if (ctx.call.name == "nn.adaptive_avg_pool2d" && !ctx.attrs.isNone("output_size")) {
    Ints os = ctx.attrs.ints("output_size");
    for (auto x : os)
      if (x != 1)
        return ctx.attrError("output_size",
                             fmt::format("nn.adaptive_avg_pool2d supports output_size [1, 1] only, got {}",
                                         attrValueStr(ctx.attrs.get("output_size"))));
  }
  Ints out = (*data)->shape;
  out[axes->h] = 1;
  out[axes->w] = 1;
  return Type::tensor(out, (*data)->dtype);
}

Expected<std::vector<TensorPtr>> globalPoolCompute(ComputeContext& ctx) {
  const Operand& data = ctx.inputs[0];
  const PoolAxes axes = poolAxes(ctx.attrs.s("layout"));
  const std::size_t ha = axes.h, wa = axes.w;
  ir::DataType t = data.dtype;
  const Ints& out = ctx.outType.shape;
  TensorPtr sum = ctx.reduce(
      "adaptive_pool_sum", out, t, loopNames(axes.rank), {{"rv0", data.shape[ha]}, {"rv1", data.shape[wa]}},
      Combiner::Sum,
      [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
        std::vector<Expr> idx = i;
        idx[ha] = r[0];
        idx[wa] = r[1];
        return data.load(idx);
      },
      "adaptive_pool_sum");
  Operand s{sum, {}, out, t};
  double count = static_cast<double>(data.shape[ha] * data.shape[wa]);
  return std::vector<TensorPtr>{ctx.compute(
      "adaptive_pool_avg", out, t, loopNames(axes.rank),
      [&](const std::vector<Expr>& i) { return s.load(i) / ir::makeConst(t, count); }, "elemwise")};
}

// ---- softmax, batch_flatten, pad ----

Expected<Type> softmaxRel(TypeContext& ctx) {
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  if (!normalizeAxis(ctx.attrs.i("axis"), (*data)->shape.size()))
    return ctx.attrError("axis", fmt::format("axis={} of {} is out of range for the data {}", ctx.attrs.i("axis"),
                                             ctx.call.name, shapeStr((*data)->shape)));
  if (!(*data)->dtype.isFloat())
    return ctx.error(fmt::format("{} needs float data, got {}", ctx.call.name, (*data)->dtype.str()));
  return **data;
}

Expected<std::vector<TensorPtr>> softmaxCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  std::size_t axis = static_cast<std::size_t>(*normalizeAxis(ctx.attrs.i("axis"), x.shape.size()));
  bool isLog = ctx.call.name == "nn.log_softmax";
  ir::DataType t = x.dtype;
  Ints reduced = x.shape;
  reduced.erase(reduced.begin() + static_cast<std::ptrdiff_t>(axis));
  std::size_t n = x.shape.size();
  auto expand = [&](const std::vector<Expr>& i, const Expr& k) {
    std::vector<Expr> idx(i.begin(), i.end());
    idx.insert(idx.begin() + static_cast<std::ptrdiff_t>(axis), k);
    return idx;
  };
  auto drop = [&](const std::vector<Expr>& i) {
    std::vector<Expr> idx(i.begin(), i.end());
    idx.erase(idx.begin() + static_cast<std::ptrdiff_t>(axis));
    return idx;
  };
  TensorPtr mx =
      ctx.reduce("T_softmax_maxelem", reduced, t, loopNames(n - 1, "i"), {{"k", x.shape[axis]}}, Combiner::Max,
                 [&](const std::vector<Expr>& i, const std::vector<Expr>& r) { return x.load(expand(i, r[0])); });
  Operand m{mx, {}, reduced, t};
  auto expOf = [&](const Expr& v) { return ir::Call::make(t, ir::CallOp::Exp, {v}); };
  if (isLog) {
    TensorPtr es = ctx.reduce("T_softmax_expsum", reduced, t, loopNames(n - 1, "i"), {{"k", x.shape[axis]}},
                              Combiner::Sum, [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
                                return expOf(x.load(expand(i, r[0])) - m.load(i));
                              });
    Operand s{es, {}, reduced, t};
    return std::vector<TensorPtr>{
        ctx.compute("T_log_softmax", x.shape, t, loopNames(n, "i"), [&](const std::vector<Expr>& i) {
          return x.load(i) - m.load(drop(i)) - ir::Call::make(t, ir::CallOp::Log, {s.load(drop(i))});
        })};
  }
  TensorPtr ex = ctx.compute("T_softmax_exp", x.shape, t, loopNames(n, "i"),
                             [&](const std::vector<Expr>& i) { return expOf(x.load(i) - m.load(drop(i))); });
  Operand e{ex, {}, x.shape, t};
  TensorPtr es =
      ctx.reduce("T_softmax_expsum", reduced, t, loopNames(n - 1, "i"), {{"k", x.shape[axis]}}, Combiner::Sum,
                 [&](const std::vector<Expr>& i, const std::vector<Expr>& r) { return e.load(expand(i, r[0])); });
  Operand s{es, {}, reduced, t};
  return std::vector<TensorPtr>{ctx.compute(
      "T_softmax_norm", x.shape, t, loopNames(n, "i"),
      [&](const std::vector<Expr>& i) { return e.load(i) / s.load(drop(i)); }, "softmax_output")};
}

Expected<Type> batchFlattenRel(TypeContext& ctx) {
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  const Ints& s = (*data)->shape;
  if (s.empty()) return ctx.error("the data of nn.batch_flatten must have at least 1 dimension, got a scalar");
  std::int64_t rest = 1;
  for (std::size_t k = 1; k < s.size(); ++k)
    rest *= s[k];
  return Type::tensor({s[0], rest}, (*data)->dtype);
}

Expected<std::vector<TensorPtr>> batchFlattenCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  return std::vector<TensorPtr>{ctx.compute(
      "tensor", ctx.outType.shape, x.dtype, loopNames(2),
      [&](const std::vector<Expr>& i) {
        std::vector<Expr> idx{i[0]};
        Expr flat = i[1];
        std::vector<Expr> rest;
        for (std::size_t k = x.shape.size(); k-- > 1;) {
          rest.insert(rest.begin(), k == 1 ? flat : Expr(ir::floormod(flat, x.shape[k])));
          flat = ir::floordiv(flat, x.shape[k]);
        }
        idx.insert(idx.end(), rest.begin(), rest.end());
        return x.load(idx);
      },
      "injective")};
}

Expected<Type> padRel(TypeContext& ctx) {
  auto data = knownTensor(ctx, 0, "data");
  if (!data) return std::unexpected(data.error());
  if (ctx.call.args.size() > 1) {
    auto v = ctx.tensorArg(1, "pad value");
    if (!v) return std::unexpected(v.error());
    if ((*v)->known() && !(*v)->shape.empty())
      return ctx.error(fmt::format("the pad value of nn.pad must be a scalar, got {}", typeStr(**v)));
    if (!(*v)->known()) ctx.args[1] = Type::tensor({}, (*data)->dtype);
  }
  if (ctx.attrs.s("pad_mode") != "constant")
    return ctx.attrError(
        "pad_mode", fmt::format("nn.pad supports pad_mode \"constant\" only, got \"{}\"", ctx.attrs.s("pad_mode")));
  auto widths = ctx.attrs.intLists("pad_width");
  Ints out = (*data)->shape;
  if (widths.size() != out.size())
    return ctx.attrError("pad_width", fmt::format("pad_width of nn.pad has {} entries for the {}-D data {}",
                                                  widths.size(), out.size(), shapeStr(out)));
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (widths[d].size() != 2 || widths[d][0] < 0 || widths[d][1] < 0)
      return ctx.attrError("pad_width", "each pad_width entry of nn.pad must be [before, after] with values >= 0");
    out[d] += widths[d][0] + widths[d][1];
  }
  return Type::tensor(out, (*data)->dtype);
}

Expected<std::vector<TensorPtr>> padCompute(ComputeContext& ctx) {
  const Operand& x = ctx.inputs[0];
  Expr value = ctx.inputs.size() > 1 ? ctx.inputs[1].load({}) : ir::makeConst(x.dtype, 0);
  auto widths = ctx.attrs.intLists("pad_width");
  Ints before, after;
  for (const auto& w : widths) {
    before.push_back(w[0]);
    after.push_back(w[1]);
  }
  return std::vector<TensorPtr>{padStage(ctx, x, before, after, value, "T_pad")};
}

} // namespace

void addNnOps(std::vector<OpDef>& t) {
  const AttrValue one2 = AttrValue::ints({1, 1}), zero2 = AttrValue::ints({0, 0});
  // Conv2DAttrs, with each op's default layouts.
  auto convAttrs = [&](const char* data, const char* kernel, const char* out) {
    return std::vector<AttrDef>{{"strides", AttrKind::Ints, one2},
                                {"padding", AttrKind::Ints, zero2},
                                {"dilation", AttrKind::Ints, one2},
                                {"groups", AttrKind::Int, AttrValue::integer(1)},
                                {"channels", AttrKind::OptInt, AttrValue::none()},
                                {"kernel_size", AttrKind::OptInts, AttrValue::none()},
                                {"data_layout", AttrKind::String, str(data)},
                                {"kernel_layout", AttrKind::String, str(kernel)},
                                {"out_layout", AttrKind::String, str(out)},
                                {"out_dtype", AttrKind::String, str("")}};
  };
  t.push_back({"nn.conv2d", 2, 2, convAttrs("NCHW", "OIHW", ""), OpPattern::OutEWiseFusable, conv2dRel, conv2dCompute,
               conv2dFlops});
  t.push_back({"nn.contrib_conv2d_NCHWc", 2, 2, convAttrs("NCHW8c", "OIHW8i8o", "NCHW8c"), OpPattern::OutEWiseFusable,
               conv2dNchwcRel, conv2dNchwcCompute, conv2dNchwcFlops});
  t.push_back({"nn.dense",
               2,
               2,
               {{"units", AttrKind::OptInt, AttrValue::none()}, {"out_dtype", AttrKind::String, str("")}},
               OpPattern::OutEWiseFusable,
               denseRel,
               denseCompute,
               denseFlops});
  t.push_back({"nn.contrib_dense_pack",
               2,
               2,
               {{"units", AttrKind::OptInt, AttrValue::none()},
                {"out_dtype", AttrKind::String, str("")},
                {"weight_layout", AttrKind::String, str("NC")}},
               OpPattern::OutEWiseFusable,
               densePackRel,
               densePackCompute,
               denseFlops});
  t.push_back({"nn.batch_matmul",
               2,
               2,
               {{"out_dtype", AttrKind::String, str("")},
                {"transpose_a", AttrKind::Bool, AttrValue::boolean(false)},
                {"transpose_b", AttrKind::Bool, AttrValue::boolean(true)}},
               OpPattern::OutEWiseFusable,
               batchMatmulRel,
               batchMatmulCompute,
               batchMatmulFlops});
  t.push_back({"nn.bias_add",
               2,
               2,
               {{"axis", AttrKind::Int, AttrValue::integer(1)}},
               OpPattern::Broadcast,
               biasAddRel,
               biasAddCompute,
               {}});
  t.push_back({"nn.batch_norm",
               5,
               5,
               {{"axis", AttrKind::Int, AttrValue::integer(1)},
                {"epsilon", AttrKind::Float, AttrValue::real(1e-5)},
                {"center", AttrKind::Bool, AttrValue::boolean(true)},
                {"scale", AttrKind::Bool, AttrValue::boolean(true)}},
               OpPattern::OutEWiseFusable,
               batchNormRel,
               {},
               {}});
  t.push_back({"nn.layer_norm",
               3,
               3,
               {{"axis", AttrKind::Int, AttrValue::integer(-1)},
                {"epsilon", AttrKind::Float, AttrValue::real(1e-5)},
                {"center", AttrKind::Bool, AttrValue::boolean(true)},
                {"scale", AttrKind::Bool, AttrValue::boolean(true)}},
               OpPattern::OutEWiseFusable,
               layerNormRel,
               {},
               {}});
  t.push_back(
      {"nn.dropout", 1, 1, {{"rate", AttrKind::Float, AttrValue::real(0.5)}}, OpPattern::Opaque, dropoutRel, {}, {}});
  std::vector<AttrDef> poolAttrs = {{"pool_size", AttrKind::Ints, one2},
                                    {"strides", AttrKind::Ints, one2},
                                    {"dilation", AttrKind::Ints, one2},
                                    {"padding", AttrKind::Ints, zero2},
                                    {"layout", AttrKind::String, str("NCHW")},
                                    {"out_layout", AttrKind::String, str("")},
                                    {"ceil_mode", AttrKind::Bool, AttrValue::boolean(false)}};
  t.push_back({"nn.max_pool2d", 1, 1, poolAttrs, OpPattern::OutEWiseFusable, pool2dRel, pool2dCompute, poolFlops});
  poolAttrs.push_back({"count_include_pad", AttrKind::Bool, AttrValue::boolean(false)});
  t.push_back({"nn.avg_pool2d", 1, 1, poolAttrs, OpPattern::OutEWiseFusable, pool2dRel, pool2dCompute, poolFlops});
  t.push_back({"nn.global_avg_pool2d",
               1,
               1,
               {{"layout", AttrKind::String, str("NCHW")}, {"out_layout", AttrKind::String, str("")}},
               OpPattern::OutEWiseFusable,
               globalPoolRel,
               globalPoolCompute,
               {}});
  t.push_back({"nn.adaptive_avg_pool2d",
               1,
               1,
               {{"output_size", AttrKind::OptInts, AttrValue::none()},
                {"layout", AttrKind::String, str("NCHW")},
                {"out_layout", AttrKind::String, str("")}},
               OpPattern::OutEWiseFusable,
               globalPoolRel,
               globalPoolCompute,
               {}});
  t.push_back({"nn.softmax",
               1,
               1,
               {{"axis", AttrKind::Int, AttrValue::integer(-1)}},
               OpPattern::OutEWiseFusable,
               softmaxRel,
               softmaxCompute,
               {}});
  t.push_back({"nn.log_softmax",
               1,
               1,
               {{"axis", AttrKind::Int, AttrValue::integer(-1)}},
               OpPattern::OutEWiseFusable,
               softmaxRel,
               softmaxCompute,
               {}});
  t.push_back({"nn.batch_flatten", 1, 1, {}, OpPattern::Injective, batchFlattenRel, batchFlattenCompute, {}});
  t.push_back({"nn.pad",
               1,
               2,
               {{"pad_width", AttrKind::IntLists, AttrValue{}}, {"pad_mode", AttrKind::String, str("constant")}},
               OpPattern::Injective,
               padRel,
               padCompute,
               {}});
}

} // namespace loopscape::frontend::relay
