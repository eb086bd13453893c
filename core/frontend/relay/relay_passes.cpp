#include "core/frontend/relay/relay_passes.h"

#include "core/frontend/relay/relay_alter_layout.h"
#include "core/frontend/relay/relay_fuse.h"
#include "core/frontend/relay/relay_layout.h"
#include "core/frontend/relay/relay_op.h"
#include "core/frontend/relay/relay_type_infer.h"
#include "core/ir/interpreter.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

namespace loopscape::frontend::relay {

NodePtr rewriteGraph(const NodePtr& root, const std::function<NodePtr(const NodePtr&)>& fn) {
  std::unordered_map<const Node*, NodePtr> map;
  for (const auto& n : postOrder(root)) {
    NodePtr rebuilt = n;
    bool changed = false;
    std::vector<NodePtr> args;
    for (const auto& a : n->args) {
      args.push_back(map.at(a.get()));
      changed = changed || args.back() != a;
    }
    if (changed) {
      auto copy = std::make_shared<Node>(*n);
      copy->args = std::move(args); // types are recomputed by the next inferTypes
      rebuilt = copy;
    }
    map[n.get()] = fn(rebuilt);
  }
  return map.at(root.get());
}

namespace {

NodePtr literal(ir::DataType t, double v, const SourceLocation& loc) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::Constant;
  n->loc = loc;
  n->type = Type::tensor({}, t);
  n->value = ir::NDArray({}, t);
  n->value.setDouble(0, v);
  return n;
}

NodePtr call(std::string op, std::vector<NodePtr> args, const SourceLocation& loc, std::vector<Attr> attrs = {}) {
  return makeCall(std::move(op), std::move(args), std::move(attrs), loc);
}

NodePtr tuple(std::vector<NodePtr> fields, const SourceLocation& loc) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::Tuple;
  n->args = std::move(fields);
  n->loc = loc;
  return n;
}

/// A per-channel vector expanded so that it broadcasts along `axis` of an ndim tensor.
NodePtr expandToAxis(NodePtr v, std::int64_t axis, std::size_t ndim, const SourceLocation& loc) {
  std::int64_t pad = static_cast<std::int64_t>(ndim) - axis - 1;
  if (pad <= 0) return v;
  return call("expand_dims", {std::move(v)}, loc,
              {{"axis", AttrValue::integer(1), loc}, {"num_newaxis", AttrValue::integer(pad), loc}});
}

Function& mainOf(Module& m) {
  for (auto& f : m.functions)
    if (f.name == "main") return f;
  return m.functions.front();
}

std::size_t countNodes(const Module& m) {
  std::size_t n = 0;
  for (const auto& f : m.functions)
    n += postOrder(f.body).size();
  return n;
}

} // namespace

Expected<Module> inlineGlobals(const Module& module) {
  Module out = module;
  std::map<std::string, NodePtr> inlined; // function name -> body with its calls inlined
  std::function<NodePtr(const Function&)> inlineBody = [&](const Function& f) -> NodePtr {
    if (auto it = inlined.find(f.name); it != inlined.end()) return it->second;
    NodePtr body = rewriteGraph(f.body, [&](const NodePtr& n) -> NodePtr {
      if (n->kind != NodeKind::GlobalCall) return n;
      const Function* callee = module.find(n->name);
      NodePtr calleeBody = inlineBody(*callee);
      std::unordered_map<const Node*, NodePtr> params;
      for (std::size_t k = 0; k < callee->params.size(); ++k)
        params[callee->params[k].get()] = n->args[k];
      return rewriteGraph(calleeBody, [&](const NodePtr& m) {
        auto it = params.find(m.get());
        return it == params.end() ? m : it->second;
      });
    });
    inlined[f.name] = body;
    return body;
  };
  for (auto& f : out.functions)
    f.body = inlineBody(f);
  return out;
}

Module simplifyInference(const Module& module) {
  Module out = module;
  for (auto& f : out.functions) {
    f.body = rewriteGraph(f.body, [](const NodePtr& n) -> NodePtr {
      if (n->kind == NodeKind::TupleGetItem && n->args[0]->kind == NodeKind::Tuple)
        return n->args[0]->args.at(static_cast<std::size_t>(n->index));
      if (n->kind != NodeKind::Call) return n;
      const SourceLocation& loc = n->loc;
      if (n->name == "nn.dropout") return tuple({n->args[0], n->args[0]}, loc);
      const OpDef* op = findOp(n->name);
      if (!op || (n->name != "nn.batch_norm" && n->name != "nn.layer_norm")) return n;
      CallAttrs attrs(*n, op->attrs);
      const Type& dt = n->args[0]->type;
      if (!dt.isTensor()) return n;
      std::size_t ndim = dt.shape.size();
      std::int64_t axis = normalizeAxis(attrs.i("axis"), ndim).value_or(1);
      if (n->name == "nn.batch_norm") {
        const auto& a = n->args;
        NodePtr scale =
            call("divide",
                 {literal(dt.dtype, 1.0, loc),
                  call("sqrt", {call("add", {a[4], literal(dt.dtype, attrs.f("epsilon"), loc)}, loc)}, loc)},
                 loc);
        if (attrs.b("scale")) scale = call("multiply", {scale, a[1]}, loc);
        NodePtr shift = call("multiply", {call("negative", {a[3]}, loc), scale}, loc);
        if (attrs.b("center")) shift = call("add", {shift, a[2]}, loc);
        NodePtr outv = call("multiply", {a[0], expandToAxis(scale, axis, ndim, loc)}, loc);
        outv = call("add", {outv, expandToAxis(shift, axis, ndim, loc)}, loc);
        return tuple({outv, a[3], a[4]}, loc);
      }
      if (n->name == "nn.layer_norm") {
        const auto& a = n->args;
        std::vector<Attr> red = {{"axis", AttrValue::ints({axis}), loc}, {"keepdims", AttrValue::boolean(true), loc}};
        NodePtr mean = call("mean", {a[0]}, loc, red);
        NodePtr centered = call("subtract", {a[0], mean}, loc);
        NodePtr var = call("mean", {call("multiply", {centered, centered}, loc)}, loc, red);
        NodePtr outv = call(
            "divide",
            {centered, call("sqrt", {call("add", {var, literal(dt.dtype, attrs.f("epsilon"), loc)}, loc)}, loc)}, loc);
        if (attrs.b("scale")) outv = call("multiply", {outv, expandToAxis(a[1], axis, ndim, loc)}, loc);
        if (attrs.b("center")) outv = call("add", {outv, expandToAxis(a[2], axis, ndim, loc)}, loc);
        return outv;
      }
      return n;
    });
  }
  return out;
}

Expected<Module> foldConstant(const Module& module) {
  Module out = module;
  std::optional<Diagnostic> failure;
  auto newConstant = [&](const NodePtr& n, const ir::NDArray& value) -> NodePtr {
    auto c = std::make_shared<Node>();
    c->kind = NodeKind::Constant;
    c->loc = n->loc;
    c->type = n->type;
    c->index = static_cast<int>(out.constants.size());
    out.constants.push_back(value);
    out.constantTypes.push_back(n->type);
    return c;
  };
  auto valueOf = [&](const NodePtr& n) -> ir::NDArray {
    if (n->kind != NodeKind::Constant) return {};
    if (n->index < 0) return n->value;
    return out.constants[static_cast<std::size_t>(n->index)];
  };
  for (auto& f : out.functions) {
    f.body = rewriteGraph(f.body, [&](const NodePtr& n) -> NodePtr {
      if (failure || n->kind != NodeKind::Call || !n->op || !n->op->compute || !n->type.isTensor()) return n;
      std::vector<ir::NDArray> args;
      for (const auto& a : n->args) {
        ir::NDArray v = valueOf(a);
        if (!v.defined()) return n;
        if (a->index >= 0) args.push_back(v);
      }
      if (n->name == "layout_transform" && args.size() == 1) {
        // Weights re-laid out by AlterOpLayout: copied directly, not interpreted.
        auto src = parseLayout(n->attr("src_layout") ? n->attr("src_layout")->value.s : "");
        auto dst = parseLayout(n->attr("dst_layout") ? n->attr("dst_layout")->value.s : "");
        if (src && dst) {
          ir::NDArray result(n->type.shape, n->type.dtype);
          relayout(args[0], *src, *dst, result);
          return newConstant(n, result);
        }
      }
      FusedGroup g;
      g.name = "fold";
      g.nodes = {n};
      for (const auto& a : n->args)
        if (a->index >= 0) g.inputs.push_back(a);
      auto func = lowerGroup(g);
      if (!func) {
        failure = func.error();
        return n;
      }
      ir::NDArray result(n->type.shape, n->type.dtype);
      args.push_back(result);
      if (auto r = ir::interpret(*func, args); !r) {
        failure = r.error();
        return n;
      }
      return newConstant(n, result);
    });
  }
  if (failure) return std::unexpected(*failure);
  return out;
}

Module eliminateCommonSubexpr(const Module& module) {
  Module out = module;
  for (auto& f : out.functions) {
    std::map<std::string, NodePtr> seen;
    f.body = rewriteGraph(f.body, [&](const NodePtr& n) -> NodePtr {
      if (n->kind != NodeKind::Call && n->kind != NodeKind::TupleGetItem && n->kind != NodeKind::Tuple) return n;
      std::string key = fmt::format("{}|{}|{}", static_cast<int>(n->kind), n->name, n->index);
      for (const auto& a : n->args)
        key += fmt::format("|{}", static_cast<const void*>(a.get()));
      for (const auto& a : n->attrs)
        key += fmt::format("|{}={}", a.name, attrValueStr(a.value));
      auto [it, inserted] = seen.emplace(key, n);
      return inserted ? n : it->second;
    });
  }
  return out;
}

Expected<Module> runPasses(const Module& typed, const std::function<void(const std::string&)>& log,
                           const PassOptions& options) {
  auto note = [&](const char* pass, const Module& before, const Module& after) {
    if (log) log(fmt::format("{}: {} -> {} nodes", pass, countNodes(before), countNodes(after)));
  };
  auto step = [&](const char* pass, const Module& before, Expected<Module> after) -> Expected<Module> {
    if (!after) return after;
    auto retyped = inferTypes(*after);
    if (retyped) note(pass, before, *retyped);
    return retyped;
  };
  auto m = step("InlineGlobals", typed, inlineGlobals(typed));
  if (!m) return m;
  // Only @main runs after inlining.
  Function main = mainOf(*m);
  m->functions = {main};
  m = step("SimplifyInference", *m, simplifyInference(*m));
  if (!m) return m;
  if (options.alterLayout) {
    Module before = *m;
    AlterLayoutCounts counts;
    m = step("AlterOpLayout", before, alterOpLayout(before, {options.lanes}, &counts));
    if (!m) return m;
    if (log)
      log(fmt::format("AlterOpLayout: {} conv2d in NCHW[x]c, {} dense packed (blocks of up to {} and {} channels), {} "
                      "batch_matmul made NN",
                      counts.conv2d, counts.dense, options.lanes, 2 * options.lanes, counts.batchMatmul));
  }
  bool allValues = true;
  for (const auto& c : m->constants)
    allValues = allValues && c.defined();
  if (allValues) {
    Module before = *m;
    m = step("FoldConstant", before, foldConstant(before));
    if (!m) return m;
  }
  Module before = *m;
  return step("EliminateCommonSubexpr", before, eliminateCommonSubexpr(before));
}

} // namespace loopscape::frontend::relay
