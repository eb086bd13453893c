#include "core/frontend/relay/relay_printer.h"

#include "core/frontend/relay/relay_metadata.h"
#include "core/frontend/relay/relay_op.h"

#include <fmt/format.h>

#include <unordered_map>

namespace loopscape::frontend::relay {

std::string literalStr(const ir::NDArray& value) {
  ir::DataType t = value.dtype();
  if (t.isBool()) return value.getInt(0) ? "True" : "False";
  if (t.isFloat()) {
    double v = value.getDouble(0);
    std::string digits = t.bits() == 64 ? fmt::format("{}", v) : fmt::format("{}", static_cast<float>(v));
    return digits + (t.bits() == 32 ? "f" : t.bits() == 16 ? "f16" : "f64");
  }
  std::string digits = std::to_string(value.getInt(0));
  if (t == ir::DataType::int32()) return digits;
  return digits + (t.isInt() ? "i" : "u") + std::to_string(t.bits());
}

namespace {

class Printer {
public:
  Printer(const Module& m, bool withMetadata) : m_module(m), m_withMetadata(withMetadata) {}

  std::string run() {
    std::string out = "#[version = \"0.0.5\"]\n";
    for (const auto& f : m_module.functions)
      out += function(f);
    bool allKnown = m_withMetadata && !m_module.constants.empty();
    for (const auto& c : m_module.constants)
      allKnown = allKnown && c.defined();
    if (allKnown) out += metadata();
    return out;
  }

private:
  const Module& m_module;
  bool m_withMetadata = true;
  std::unordered_map<const Node*, std::string> m_names;
  std::string m_body;
  int m_next = 0;

  std::string function(const Function& f) {
    m_names.clear();
    m_body.clear();
    m_next = 0;
    std::string head = fmt::format("def @{}(", f.name);
    for (std::size_t k = 0; k < f.params.size(); ++k) {
      const auto& p = f.params[k];
      m_names[p.get()] = "%" + p->name;
      head += (k ? ", " : "") + fmt::format("%{}", p->name);
      if (p->type.known()) head += ": " + typeStr(p->type);
    }
    head += ")";
    if (f.retType.known()) head += " -> " + typeStr(f.retType);
    head += " {\n";
    std::string result;
    for (const auto& n : postOrder(f.body)) {
      std::string text = expr(*n);
      if (n == f.body) {
        result = text;
        break;
      }
      if (n->kind == NodeKind::Var || n->kind == NodeKind::Constant) {
        m_names[n.get()] = text;
        continue;
      }
      std::string name = fmt::format("%{}", m_next++);
      m_body += fmt::format("  {} = {};\n", name, text);
      m_names[n.get()] = name;
    }
    return head + m_body + "  " + result + "\n}\n\n";
  }

  std::string typeNote(const Node& n) const {
    return n.type.known() ? fmt::format(" /* ty={} */", typeStr(n.type)) : "";
  }

  std::string ref(const NodePtr& n) { return m_names.at(n.get()); }

  std::string expr(const Node& n) {
    switch (n.kind) {
    case NodeKind::Var: return "%" + n.name;
    case NodeKind::Constant:
      if (n.index < 0) return literalStr(n.value);
      return fmt::format("meta[relay.Constant][{}]{}", n.index, typeNote(n));
    case NodeKind::Tuple: {
      std::string out = "(";
      for (std::size_t k = 0; k < n.args.size(); ++k)
        out += (k ? ", " : "") + ref(n.args[k]);
      if (n.args.size() == 1) out += ",";
      return out + ")" + typeNote(n);
    }
    case NodeKind::TupleGetItem: return fmt::format("{}.{}{}", ref(n.args[0]), n.index, typeNote(n));
    case NodeKind::GlobalCall:
    case NodeKind::Call: {
      std::string out = (n.kind == NodeKind::GlobalCall ? "@" : "") + n.name + "(";
      bool first = true;
      for (const auto& a : n.args) {
        out += (first ? "" : ", ") + ref(a);
        first = false;
      }
      for (const auto& a : orderedAttrs(n)) {
        out += (first ? "" : ", ") + fmt::format("{}={}", a->name, attrValueStr(a->value));
        first = false;
      }
      return out + ")" + typeNote(n);
    }
    }
    return "";
  }

  /// The written attributes in the op's declared order, without those equal to the default.
  std::vector<const Attr*> orderedAttrs(const Node& n) const {
    std::vector<const Attr*> out;
    const OpDef* op = n.op ? n.op : findOp(n.name);
    if (!op) {
      for (const auto& a : n.attrs)
        out.push_back(&a);
      return out;
    }
    for (const auto& d : op->attrs)
      if (const Attr* a = n.attr(d.name); a && !(a->value == d.defaultValue)) out.push_back(a);
    for (const auto& a : n.attrs) {
      bool declared = false;
      for (const auto& d : op->attrs)
        declared = declared || d.name == a.name;
      if (!declared) out.push_back(&a);
    }
    return out;
  }

  std::string metadata() const {
    std::string nodes = "{\"type_key\": \"\"}, {\"type_key\": \"Map\", \"keys\": [\"relay.Constant\"], \"data\": [2]}, "
                        "{\"type_key\": \"Array\", \"data\": [";
    for (std::size_t i = 0; i < m_module.constants.size(); ++i)
      nodes += fmt::format("{}{}", i ? ", " : "", i + 3);
    nodes += "]}";
    std::string arrays;
    for (std::size_t i = 0; i < m_module.constants.size(); ++i) {
      nodes +=
          fmt::format(", {{\"type_key\": \"relay.Constant\", \"attrs\": {{\"data\": \"{}\", \"span\": \"0\"}}}}", i);
      arrays += fmt::format("{}\n    \"{}\"", i ? "," : "", encodeB64NDArray(m_module.constants[i]));
    }
    return fmt::format(
        "#[metadata]\n{{\n  \"root\": 1,\n  \"nodes\": [{}],\n  \"b64ndarrays\": [{}\n  ],\n  \"attrs\": "
        "{{\"tvm_version\": \"0.18.0\"}}\n}}\n",
        nodes, arrays);
  }
};

} // namespace

std::string printRelay(const Module& module, bool withMetadata) { return Printer(module, withMetadata).run(); }

} // namespace loopscape::frontend::relay
