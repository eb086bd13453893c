#include "core/frontend/relay/relay_type_infer.h"

#include "core/frontend/relay/relay_op.h"
#include "core/ir/checked_arith.h"
#include "core/ir/resource_limits.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

namespace loopscape::frontend::relay {

namespace {

Unexpected typeError(std::string message, const SourceLocation& loc) {
  return Unexpected(Diagnostic::error("relay.type", std::move(message), loc));
}

/// Refuses tensor types whose storage would exceed the resource limits.
Expected<void> checkSize(const Type& t, const std::string& what, const SourceLocation& loc) {
  if (t.kind == Type::Kind::Tuple) {
    for (const auto& f : t.fields)
      if (auto r = checkSize(f, what, loc); !r) return r;
    return {};
  }
  if (!t.isTensor()) return {};
  for (auto d : t.shape)
    if (d <= 0 || d > std::numeric_limits<std::int32_t>::max())
      return typeError(
          fmt::format("{} would have shape {}: every extent must be in [1, 2^31)", what, shapeStr(t.shape)), loc);
  auto n = ir::checkedProduct(t.shape);
  auto bytes = n ? ir::checkedMul(*n, t.dtype.bytes()) : std::nullopt;
  if (!bytes || *bytes > ir::resourceLimits().maxBufferBytes)
    return typeError(fmt::format("{} would have shape {}, more than the buffer limit of {} bytes", what,
                                 shapeStr(t.shape), ir::resourceLimits().maxBufferBytes),
                     loc);
  return {};
}

class Inferrer {
public:
  explicit Inferrer(const Module& m) : m_in(m), m_out(m) {
    m_out.functions.clear();
    m_out.constantTypes.assign(m.constants.size(), Type{});
    for (std::size_t i = 0; i < m.constants.size(); ++i)
      if (m.constants[i].defined())
        m_out.constantTypes[i] = Type::tensor(m.constants[i].shape(), m.constants[i].dtype());
  }

  Expected<Module> run() {
    for (const auto& f : m_in.functions)
      if (auto r = inferFunction(f, f.loc); !r) return std::unexpected(r.error());
    // Keep the definition order of the input.
    std::vector<Function> ordered;
    for (const auto& f : m_in.functions)
      ordered.push_back(m_done.at(f.name));
    m_out.functions = std::move(ordered);
    return std::move(m_out);
  }

private:
  const Module& m_in;
  Module m_out;
  std::map<std::string, Function> m_done;
  std::vector<std::string> m_active; ///< functions being inferred (recursion check)

  Expected<void> inferFunction(const Function& f, const SourceLocation& useLoc) {
    if (m_done.contains(f.name)) return {};
    if (std::find(m_active.begin(), m_active.end(), f.name) != m_active.end())
      return typeError(fmt::format("recursive call of @{} is not supported", f.name), useLoc);
    m_active.push_back(f.name);
    Function out = f;
    std::unordered_map<const Node*, NodePtr> map;
    out.params.clear();
    for (const auto& p : f.params) {
      if (!p->type.known())
        return typeError(
            fmt::format("parameter %{} of @{} has no type: write %{}: Tensor[(...), dtype]", p->name, f.name, p->name),
            p->loc);
      if (auto r = checkSize(p->type, "parameter %" + p->name, p->loc); !r) return std::unexpected(r.error());
      out.params.push_back(p);
      map[p.get()] = p;
    }
    for (const auto& node : postOrder(f.body)) {
      auto n = inferNode(*node, map);
      if (!n) return std::unexpected(n.error());
      map[node.get()] = *n;
    }
    out.body = map.at(f.body.get());
    if (!out.body->type.known())
      return typeError(unknownConstantMessage(*out.body, "the function's result"), out.body->loc);
    if (f.retType.known() && f.retType != out.body->type)
      return typeError(fmt::format("@{} is declared to return {} but its body has type {}", f.name, typeStr(f.retType),
                                   typeStr(out.body->type)),
                       f.retLoc.valid() ? f.retLoc : f.loc);
    out.retType = out.body->type;
    for (auto& a : out.annotations) {
      auto it = map.find(a.node.get());
      if (it == map.end()) continue;
      if (it->second->type != a.type)
        return typeError(fmt::format("the let binding is annotated {} but its value has type {}", typeStr(a.type),
                                     typeStr(it->second->type)),
                         a.loc);
      a.node = it->second;
    }
    m_active.pop_back();
    m_done.emplace(f.name, std::move(out));
    return {};
  }

  std::string unknownConstantMessage(const Node& c, std::string_view use) const {
    return fmt::format(
        "cannot infer the shape of meta[relay.Constant][{}] used as {}: give it a metadata section or use it "
        "where an op determines its shape",
        c.index, use);
  }

  /// The current type of a (possibly meta) constant argument.
  NodePtr refreshConstant(const NodePtr& n) {
    if (n->kind != NodeKind::Constant || n->index < 0 || n->type.known()) return n;
    const Type& t = m_out.constantTypes[static_cast<std::size_t>(n->index)];
    if (!t.known()) return n;
    auto copy = std::make_shared<Node>(*n);
    copy->type = t;
    return copy;
  }

  Expected<NodePtr> inferNode(const Node& node, std::unordered_map<const Node*, NodePtr>& map) {
    auto out = std::make_shared<Node>(node);
    for (auto& a : out->args)
      a = refreshConstant(map.at(a.get()));
    switch (node.kind) {
    case NodeKind::Var: return map.at(&node);
    case NodeKind::Constant: {
      NodePtr r = refreshConstant(std::make_shared<Node>(node));
      return r;
    }
    case NodeKind::Tuple: {
      std::vector<Type> fields;
      for (const auto& a : out->args) {
        if (!a->type.known()) return typeError(unknownConstantMessage(*a, "a tuple field"), a->loc);
        fields.push_back(a->type);
      }
      out->type = Type::tuple(std::move(fields));
      return NodePtr(out);
    }
    case NodeKind::TupleGetItem: {
      const Type& t = out->args[0]->type;
      if (t.kind != Type::Kind::Tuple)
        return typeError(
            fmt::format("projection .{} of a value of type {}, which is not a tuple", node.index, typeStr(t)),
            node.loc);
      if (node.index < 0 || static_cast<std::size_t>(node.index) >= t.fields.size())
        return typeError(fmt::format("projection .{} of a tuple with {} fields", node.index, t.fields.size()),
                         node.loc);
      out->type = t.fields[static_cast<std::size_t>(node.index)];
      return NodePtr(out);
    }
    case NodeKind::GlobalCall: return inferGlobalCall(node, out);
    case NodeKind::Call: return inferCall(node, out);
    }
    return NodePtr(out);
  }

  Expected<NodePtr> inferGlobalCall(const Node& node, std::shared_ptr<Node> out) {
    const Function* callee = m_in.find(node.name);
    if (!callee) return typeError(fmt::format("call of undefined function @{}", node.name), node.loc);
    if (auto r = inferFunction(*callee, node.loc); !r) return std::unexpected(r.error());
    const Function& typed = m_done.at(node.name);
    if (out->args.size() != typed.params.size())
      return typeError(fmt::format("@{} takes {} arguments, got {}", node.name, typed.params.size(), out->args.size()),
                       node.loc);
    for (std::size_t k = 0; k < out->args.size(); ++k) {
      const Type& want = typed.params[k]->type;
      NodePtr& a = out->args[k];
      if (!a->type.known() && a->kind == NodeKind::Constant) {
        m_out.constantTypes[static_cast<std::size_t>(a->index)] = want;
        a = refreshConstant(a);
      }
      if (a->type != want)
        return typeError(fmt::format("argument {} of @{} has type {} but the parameter %{} expects {}", k, node.name,
                                     typeStr(a->type), typed.params[k]->name, typeStr(want)),
                         a->loc);
    }
    out->type = typed.retType;
    return NodePtr(out);
  }

  Expected<NodePtr> inferCall(const Node& node, std::shared_ptr<Node> out) {
    const OpDef* op = findOp(node.name);
    if (!op)
      return Unexpected(Diagnostic::error("relay.op", fmt::format("unknown operator '{}'", node.name), node.loc));
    out->op = op;
    int argc = static_cast<int>(node.args.size());
    if (argc < op->minArgs || argc > op->maxArgs) {
      std::string want =
          op->minArgs == op->maxArgs ? std::to_string(op->minArgs) : fmt::format("{} to {}", op->minArgs, op->maxArgs);
      return Unexpected(Diagnostic::error(
          "relay.op", fmt::format("{} takes {} argument{}, got {}", node.name, want, op->maxArgs == 1 ? "" : "s", argc),
          node.loc));
    }
    if (auto r = checkAttrs(node, *op); !r) return std::unexpected(r.error());
    CallAttrs attrs(node, op->attrs);
    TypeContext ctx{node, attrs, {}};
    for (const auto& a : out->args)
      ctx.args.push_back(a->type);
    auto result = op->relation(ctx);
    if (!result) return std::unexpected(result.error());
    for (std::size_t k = 0; k < out->args.size(); ++k) {
      NodePtr& a = out->args[k];
      if (a->type.known()) continue;
      if (!ctx.args[k].known())
        return typeError(unknownConstantMessage(*a, fmt::format("an operand of {}", node.name)), a->loc);
      if (auto r = checkSize(ctx.args[k], fmt::format("meta[relay.Constant][{}]", a->index), a->loc); !r)
        return std::unexpected(r.error());
      m_out.constantTypes[static_cast<std::size_t>(a->index)] = ctx.args[k];
      a = refreshConstant(a);
    }
    if (auto r = checkSize(*result, "the result of " + node.name, node.loc); !r) return std::unexpected(r.error());
    out->type = std::move(*result);
    return NodePtr(out);
  }
};

} // namespace

Expected<Module> inferTypes(const Module& module) { return Inferrer(module).run(); }

} // namespace loopscape::frontend::relay
