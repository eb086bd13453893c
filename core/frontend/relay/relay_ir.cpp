#include "core/frontend/relay/relay_ir.h"

#include <fmt/format.h>

#include <unordered_set>

namespace loopscape::frontend::relay {

std::int64_t Type::numel() const {
  std::int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

std::string shapeStr(const std::vector<std::int64_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) out += ",";
  return out + ")";
}

std::string typeStr(const Type& t) {
  switch (t.kind) {
  case Type::Kind::Unknown: return "?";
  case Type::Kind::Tensor: {
    if (t.shape.empty()) return t.dtype.str();
    // TVM writes a 1-D shape without numpy's trailing comma: Tensor[(64), float32].
    std::string dims;
    for (std::size_t i = 0; i < t.shape.size(); ++i)
      dims += (i ? ", " : "") + std::to_string(t.shape[i]);
    return fmt::format("Tensor[({}), {}]", dims, t.dtype.str());
  }
  case Type::Kind::Tuple: {
    std::string out = "(";
    for (std::size_t i = 0; i < t.fields.size(); ++i)
      out += (i ? ", " : "") + typeStr(t.fields[i]);
    if (t.fields.size() == 1) out += ",";
    return out + ")";
  }
  }
  return "?";
}

AttrValue AttrValue::ints(const std::vector<std::int64_t>& v) {
  AttrValue a;
  a.kind = Kind::List;
  for (auto x : v)
    a.list.push_back(integer(x));
  return a;
}

std::string attrValueStr(const AttrValue& v) {
  switch (v.kind) {
  case AttrValue::Kind::None: return "None";
  case AttrValue::Kind::Int: return std::to_string(v.i);
  case AttrValue::Kind::Float: return fmt::format("{}f", static_cast<float>(v.f));
  case AttrValue::Kind::String: return fmt::format("\"{}\"", v.s);
  case AttrValue::Kind::Bool: return v.b ? "True" : "False";
  case AttrValue::Kind::List: {
    std::string out = "[";
    for (std::size_t i = 0; i < v.list.size(); ++i)
      out += (i ? ", " : "") + attrValueStr(v.list[i]);
    return out + "]";
  }
  }
  return "None";
}

const Attr* Node::attr(std::string_view attrName) const {
  for (const auto& a : attrs)
    if (a.name == attrName) return &a;
  return nullptr;
}

NodePtr makeVar(std::string name, Type type, SourceLocation loc) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::Var;
  n->name = std::move(name);
  n->type = std::move(type);
  n->loc = std::move(loc);
  return n;
}

NodePtr makeCall(std::string op, std::vector<NodePtr> args, std::vector<Attr> attrs, SourceLocation loc) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::Call;
  n->name = std::move(op);
  n->args = std::move(args);
  n->attrs = std::move(attrs);
  n->loc = std::move(loc);
  return n;
}

const Function* Module::find(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<NodePtr> postOrder(const NodePtr& root) {
  std::vector<NodePtr> order;
  std::unordered_set<const Node*> done;
  // Iterative DFS (models are deep chains): (node, next argument to visit).
  std::vector<std::pair<NodePtr, std::size_t>> stack;
  if (root) stack.emplace_back(root, 0);
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (done.contains(node.get())) {
      stack.pop_back();
      continue;
    }
    if (next < node->args.size()) {
      NodePtr arg = node->args[next++];
      if (!done.contains(arg.get())) stack.emplace_back(std::move(arg), 0);
      continue;
    }
    done.insert(node.get());
    order.push_back(node);
    stack.pop_back();
  }
  return order;
}

} // namespace loopscape::frontend::relay
