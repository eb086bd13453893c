#include "core/frontend/relay/relay_alter_layout.h"

#include "core/frontend/relay/relay_op.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

namespace loopscape::frontend::relay {

namespace {

using Ints = std::vector<std::int64_t>;

/// The largest divisor of `n` that is at most `limit`.
std::int64_t largestDivisor(std::int64_t n, std::int64_t limit) {
  for (std::int64_t b = std::min(n, limit); b > 1; --b)
    if (n % b == 0) return b;
  return 1;
}

std::string blocked(std::int64_t cb) { return fmt::format("NCHW{}c", cb); }

Attr attr(std::string name, AttrValue v, const SourceLocation& loc) { return {std::move(name), std::move(v), loc}; }

/// `attrs` with `name` set to `v` (replaced when written, else appended).
std::vector<Attr> withAttr(std::vector<Attr> attrs, const std::string& name, AttrValue v, const SourceLocation& loc) {
  for (auto& a : attrs)
    if (a.name == name) {
      a.value = std::move(v);
      return attrs;
    }
  attrs.push_back(attr(name, std::move(v), loc));
  return attrs;
}

NodePtr layoutTransform(NodePtr x, const std::string& src, const std::string& dst, const SourceLocation& loc) {
  return makeCall("layout_transform", {std::move(x)},
                  {attr("src_layout", AttrValue::string(src), loc), attr("dst_layout", AttrValue::string(dst), loc)},
                  loc);
}

bool isNchw4d(const Type& t) { return t.isTensor() && t.shape.size() == 4; }

class LayoutRewriter {
public:
  explicit LayoutRewriter(const AlterLayoutOptions& options) : m_lanes(std::max(1, options.lanes)) {}

  NodePtr run(const NodePtr& body) {
    for (const NodePtr& n : postOrder(body))
      m_done[n.get()] = rewrite(n);
    return plain(body);
  }
  const AlterLayoutCounts& counts() const { return m_counts; }

private:
  /// A node of the new graph and its layout: NCHW[cb]c when cb > 0, else the original's.
  struct Converted {
    NodePtr node;
    std::int64_t cb = 0;
  };

  /// `n` of the old graph in its original layout.
  NodePtr plain(const NodePtr& n) { return as(n, 0); }

  /// `n` of the old graph (a 4-D NCHW tensor) in NCHW[cb]c, or in its own layout (cb 0).
  NodePtr as(const NodePtr& n, std::int64_t cb) {
    const Converted& c = m_done.at(n.get());
    if (c.cb == cb) return c.node;
    auto key = std::make_pair(n.get(), cb);
    if (auto it = m_transforms.find(key); it != m_transforms.end()) return it->second;
    NodePtr t = layoutTransform(c.node, c.cb ? blocked(c.cb) : "NCHW", cb ? blocked(cb) : "NCHW", n->loc);
    m_transforms[key] = t;
    return t;
  }

  /// The node with each argument in its original layout.
  NodePtr withPlainArgs(const NodePtr& n) {
    bool changed = false;
    std::vector<NodePtr> args;
    for (const auto& a : n->args) {
      args.push_back(plain(a));
      changed = changed || args.back() != a;
    }
    if (!changed) return n;
    auto copy = std::make_shared<Node>(*n);
    copy->args = std::move(args);
    return copy;
  }

  NodePtr callLike(const NodePtr& n, std::vector<NodePtr> args, std::vector<Attr> attrs, std::string op = {}) {
    return makeCall(op.empty() ? n->name : std::move(op), std::move(args), std::move(attrs), n->loc);
  }

  Converted rewrite(const NodePtr& n) {
    if (n->kind != NodeKind::Call) return {withPlainArgs(n), 0};
    const OpDef* op = findOp(n->name);
    if (!op) return {withPlainArgs(n), 0};
    CallAttrs attrs(*n, op->attrs);
    if (n->name == "nn.conv2d") return conv2d(n, attrs);
    if (n->name == "nn.dense") return dense(n);
    if (n->name == "nn.batch_matmul") return batchMatmul(n, attrs);
    bool anyBlocked = false;
    for (const auto& a : n->args)
      anyBlocked = anyBlocked || m_done.at(a.get()).cb > 0;
    if (!anyBlocked) return {withPlainArgs(n), 0};
    if (n->name == "nn.bias_add") return biasAdd(n, attrs);
    if (n->name == "nn.max_pool2d" || n->name == "nn.avg_pool2d" || n->name == "nn.global_avg_pool2d" ||
        n->name == "nn.adaptive_avg_pool2d")
      return pool(n, attrs);
    if (n->name == "nn.pad") return pad(n, attrs);
    if (op->pattern == OpPattern::ElemWise || op->pattern == OpPattern::Broadcast) return broadcast(n, *op);
    return {withPlainArgs(n), 0};
  }

  Converted conv2d(const NodePtr& n, const CallAttrs& attrs) {
    const Type& data = n->args[0]->type;
    const Type& weight = n->args[1]->type;
    if (attrs.s("data_layout") != "NCHW" || attrs.s("kernel_layout") != "OIHW" ||
        !(attrs.s("out_layout").empty() || attrs.s("out_layout") == "NCHW") || attrs.i("groups") != 1 ||
        !isNchw4d(data) || !isNchw4d(weight) || !n->type.isTensor())
      return {withPlainArgs(n), 0};
    std::int64_t oc = weight.shape[0], ic = data.shape[1];
    std::int64_t ocb = largestDivisor(oc, m_lanes), icb = largestDivisor(ic, ocb);
    if (ocb < 2) return {withPlainArgs(n), 0};
    const SourceLocation& loc = n->loc;
    std::string kernelLayout = fmt::format("OIHW{}i{}o", icb, ocb);
    std::vector<Attr> a = withAttr(n->attrs, "data_layout", AttrValue::string(blocked(icb)), loc);
    a = withAttr(std::move(a), "kernel_layout", AttrValue::string(kernelLayout), loc);
    a = withAttr(std::move(a), "out_layout", AttrValue::string(blocked(ocb)), loc);
    NodePtr w = layoutTransform(plain(n->args[1]), "OIHW", kernelLayout, n->args[1]->loc);
    ++m_counts.conv2d;
    return {callLike(n, {as(n->args[0], icb), w}, std::move(a), "nn.contrib_conv2d_NCHWc"), ocb};
  }

  /// nn.dense with its weight packed NC[b]n, b the largest divisor of the output
  /// features up to two vectors (TOPI's dense_pack fallback): the result stays plain.
  Converted dense(const NodePtr& n) {
    const Type& weight = n->args[1]->type;
    if (!weight.isTensor() || weight.shape.size() != 2 || !n->type.isTensor()) return {withPlainArgs(n), 0};
    std::int64_t b = largestDivisor(weight.shape[0], 2 * m_lanes);
    if (b < 2) return {withPlainArgs(n), 0};
    const SourceLocation& loc = n->loc;
    std::string layout = fmt::format("NC{}n", b);
    NodePtr w = layoutTransform(plain(n->args[1]), "NC", layout, n->args[1]->loc);
    ++m_counts.dense;
    return {callLike(n, {plain(n->args[0]), w}, withAttr(n->attrs, "weight_layout", AttrValue::string(layout), loc),
                     "nn.contrib_dense_pack"),
            0};
  }

  /// nn.batch_matmul(x, y) with y transposed (TVM's default NT form): y is transposed
  /// first, so the product is NN and its output columns are contiguous in y. The
  /// transpose is injective and fuses into y's producer (or folds for a constant).
  Converted batchMatmul(const NodePtr& n, const CallAttrs& attrs) {
    const Type& y = n->args[1]->type;
    if (attrs.b("transpose_a") || !attrs.b("transpose_b") || !y.isTensor() || y.shape.size() != 3)
      return {withPlainArgs(n), 0};
    const SourceLocation& loc = n->loc;
    NodePtr yt = makeCall("transpose", {plain(n->args[1])}, {attr("axes", AttrValue::ints({0, 2, 1}), loc)}, loc);
    ++m_counts.batchMatmul;
    return {callLike(n, {plain(n->args[0]), yt}, withAttr(n->attrs, "transpose_b", AttrValue::boolean(false), loc)), 0};
  }

  Converted biasAdd(const NodePtr& n, const CallAttrs& attrs) {
    const Type& data = n->args[0]->type;
    std::int64_t cb = m_done.at(n->args[0].get()).cb;
    if (!cb || !isNchw4d(data) || !(attrs.i("axis") == 1 || attrs.i("axis") == -3)) return {withPlainArgs(n), 0};
    const SourceLocation& loc = n->loc;
    // bias (C) -> (C, 1, 1) -> (C/cb, 1, 1, cb): broadcasts along N, H, W of NCHW[cb]c.
    NodePtr bias =
        makeCall("expand_dims", {plain(n->args[1])},
                 {attr("axis", AttrValue::integer(1), loc), attr("num_newaxis", AttrValue::integer(2), loc)}, loc);
    bias = layoutTransform(bias, "CHW", fmt::format("CHW{}c", cb), loc);
    return {callLike(n, {m_done.at(n->args[0].get()).node, bias}, {}, "add"), cb};
  }

  Converted pool(const NodePtr& n, const CallAttrs& attrs) {
    std::int64_t cb = m_done.at(n->args[0].get()).cb;
    if (!cb || attrs.s("layout") != "NCHW" || !(attrs.s("out_layout").empty() || attrs.s("out_layout") == "NCHW"))
      return {withPlainArgs(n), 0};
    std::vector<Attr> a = withAttr(n->attrs, "layout", AttrValue::string(blocked(cb)), n->loc);
    for (auto& x : a)
      if (x.name == "out_layout") x.value = AttrValue::string("");
    return {callLike(n, {m_done.at(n->args[0].get()).node}, std::move(a)), cb};
  }

  /// nn.pad of H and W only: the block axis is not padded.
  Converted pad(const NodePtr& n, const CallAttrs& attrs) {
    std::int64_t cb = m_done.at(n->args[0].get()).cb;
    auto widths = attrs.intLists("pad_width");
    if (!cb || attrs.s("pad_mode") != "constant" || widths.size() != 4 || widths[1] != Ints{0, 0} ||
        (n->args.size() > 1 && m_done.at(n->args[1].get()).cb))
      return {withPlainArgs(n), 0};
    widths.push_back({0, 0});
    AttrValue list;
    list.kind = AttrValue::Kind::List;
    for (const auto& w : widths)
      list.list.push_back(AttrValue::ints(w));
    std::vector<NodePtr> args = {m_done.at(n->args[0].get()).node};
    if (n->args.size() > 1) args.push_back(plain(n->args[1]));
    return {callLike(n, std::move(args), withAttr(n->attrs, "pad_width", std::move(list), n->loc)), cb};
  }

  /// An elementwise or broadcast op whose result has the shape of a blocked operand: every
  /// operand re-laid out so that it broadcasts against NCHW[cb]c the way it broadcast
  /// against NCHW.
  Converted broadcast(const NodePtr& n, const OpDef& op) {
    for (const auto& d : op.attrs)
      if (d.name == "axis") return {withPlainArgs(n), 0};
    const Type& out = n->type;
    std::int64_t cb = 0;
    for (const auto& a : n->args)
      if (m_done.at(a.get()).cb > 0 && a->type == Type::tensor(out.shape, a->type.dtype)) {
        cb = m_done.at(a.get()).cb;
        break;
      }
    if (!cb || !isNchw4d(out)) return {withPlainArgs(n), 0};
    std::vector<NodePtr> args;
    for (const auto& a : n->args) {
      const Type& t = a->type;
      if (!t.isTensor()) return {withPlainArgs(n), 0};
      std::size_t r = t.shape.size();
      std::int64_t c = r >= 3 ? t.shape[r - 3] : 1;
      const SourceLocation& loc = a->loc;
      if (r == 0) {
        args.push_back(plain(a));
      } else if (r == 4 && c == out.shape[1]) {
        args.push_back(as(a, cb));
      } else if (c == 1) {
        // Broadcast along the channels: one more trailing axis of 1 for the block.
        args.push_back(makeCall("expand_dims", {plain(a)},
                                {attr("axis", AttrValue::integer(static_cast<std::int64_t>(r)), loc),
                                 attr("num_newaxis", AttrValue::integer(1), loc)},
                                loc));
      } else if (r == 3 && c == out.shape[1]) {
        args.push_back(layoutTransform(plain(a), "CHW", fmt::format("CHW{}c", cb), loc));
      } else {
        return {withPlainArgs(n), 0};
      }
    }
    return {callLike(n, std::move(args), n->attrs), cb};
  }

  std::int64_t m_lanes;
  AlterLayoutCounts m_counts;
  std::unordered_map<const Node*, Converted> m_done;
  std::map<std::pair<const Node*, std::int64_t>, NodePtr> m_transforms;
};

} // namespace

Module alterOpLayout(const Module& typed, const AlterLayoutOptions& options, AlterLayoutCounts* counts) {
  Module out = typed;
  for (auto& f : out.functions) {
    if (f.name != "main") continue;
    LayoutRewriter rewriter(options);
    f.body = rewriter.run(f.body);
    if (counts) *counts = rewriter.counts();
  }
  return out;
}

} // namespace loopscape::frontend::relay
