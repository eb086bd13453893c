#include "views/model_dot.h"

#include "core/graph/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace loopscape::views {

namespace fr = frontend::relay;

std::string groupElementId(std::size_t index) { return fmt::format("group{}", index); }

int groupIndexOfElementId(const std::string& id) {
  constexpr std::string_view prefix = "group";
  if (!id.starts_with(prefix) || id.size() == prefix.size()) return -1;
  int value = 0;
  for (char c : std::string_view(id).substr(prefix.size())) {
    if (c < '0' || c > '9' || value > 1'000'000) return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

namespace {

struct Rgb {
  double r, g, b;
};

Rgb parseHex(const std::string& hex) {
  auto part = [&](int at) { return double(std::stoi(hex.substr(std::size_t(at), 2), nullptr, 16)); };
  return {part(1), part(3), part(5)};
}

Rgb mix(Rgb a, Rgb b, double t) { return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t}; }

/// A DOT string literal's contents: quotes and backslashes escaped.
std::string quoted(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

/// "1x64x56x56" for a tensor, "(a, b)" of those for a tuple, "scalar" for rank 0.
std::string shapeText(const fr::Type& t) {
  if (t.kind == fr::Type::Kind::Tuple) {
    std::string out = "(";
    for (std::size_t i = 0; i < t.fields.size(); ++i)
      out += (i ? ", " : "") + shapeText(t.fields[i]);
    return out + ")";
  }
  if (!t.isTensor()) return "?";
  if (t.shape.empty()) return "scalar";
  std::string out;
  for (std::size_t i = 0; i < t.shape.size(); ++i)
    out += fmt::format("{}{}", i ? "\u00d7" : "", t.shape[i]);
  return out;
}

/// The group's name as the picture labels it: without TVM's "tvmgen_default_" prefix.
std::string shortGroupName(const std::string& name) {
  constexpr std::string_view prefix = "tvmgen_default_";
  return name.starts_with(prefix) ? name.substr(prefix.size()) : name;
}

std::string patternText(std::string pattern) {
  std::replace(pattern.begin(), pattern.end(), '_', '-');
  return pattern;
}

} // namespace

std::string shareColor(double share, bool dark) {
  share = std::clamp(share, 0.0, 1.0);
  const Rgb low = parseHex(dark ? darkDotPalette().bandFill : lightDotPalette().bandFill);
  const Rgb mid = dark ? Rgb{0x8a, 0x5a, 0x12} : Rgb{0xff, 0xd3, 0x80};
  const Rgb high = dark ? Rgb{0xb3, 0x2d, 0x1e} : Rgb{0xf0, 0x6a, 0x4e};
  // A square root spreads the small shares of a many-group model over the scale.
  const double t = std::sqrt(share);
  const Rgb c = t < 0.5 ? mix(low, mid, t * 2) : mix(mid, high, (t - 0.5) * 2);
  return fmt::format("#{:02x}{:02x}{:02x}", int(std::lround(c.r)), int(std::lround(c.g)), int(std::lround(c.b)));
}

std::string modelGraphDot(const graph::Model& model, const std::vector<double>& shares, const DotPalette& palette,
                          bool dark) {
  const fr::Function& main = model.main();
  // Which lowered group each node belongs to.
  std::unordered_map<const fr::FusedGroup*, std::size_t> groupOfFused;
  for (const graph::ModelGroup& g : model.groups)
    if (g.fused != nullptr) groupOfFused[g.fused] = g.index;
  std::unordered_map<const fr::Node*, int> groupOf;
  for (const fr::FusedGroup& fused : model.fusion.groups) {
    auto it = groupOfFused.find(&fused);
    for (const fr::NodePtr& n : fused.nodes)
      groupOf[n.get()] = it == groupOfFused.end() ? -1 : int(it->second);
  }

  const std::vector<fr::NodePtr> nodes = fr::postOrder(main.body);
  std::unordered_map<const fr::Node*, std::string> nodeId;
  auto drawn = [](const fr::Node& n) { return n.kind != fr::NodeKind::Constant; };

  std::string out = "digraph model {\n";
  out += fmt::format("  graph [id=\"model\", bgcolor=\"{}\", nodesep=0.3, ranksep=0.3, pad=0.1, "
                     "fontname=\"DejaVu Sans\", fontsize=10, fontcolor=\"{}\"];\n",
                     palette.background, palette.text);
  out += fmt::format(
      "  node [fontname=\"DejaVu Sans\", fontsize=10, fontcolor=\"{}\", shape=box, style=\"rounded,filled\", "
      "fillcolor=\"{}\", color=\"{}\", margin=\"0.12,0.04\", height=0.3];\n",
      palette.text, dark ? "#22272e" : "#ffffff", palette.border);
  out += fmt::format("  edge [color=\"{}\", arrowsize=0.6, fontname=\"DejaVu Sans\", fontsize=8, fontcolor=\"{}\"];\n",
                     palette.edge, palette.muted);

  // Nodes, outside any cluster first (inputs, tuple-only groups).
  std::vector<std::vector<std::string>> clusterNodes(model.groups.size());
  int counter = 0;
  for (const fr::NodePtr& n : nodes) {
    if (!drawn(*n)) continue;
    std::string label;
    switch (n->kind) {
    case fr::NodeKind::Var: label = fmt::format("%{}\\n{}", quoted(n->name), shapeText(n->type)); break;
    case fr::NodeKind::Call:
    case fr::NodeKind::GlobalCall: label = fmt::format("{}\\n{}", quoted(n->name), shapeText(n->type)); break;
    case fr::NodeKind::Tuple: label = "tuple"; break;
    case fr::NodeKind::TupleGetItem: label = fmt::format(".{}", n->index); break;
    case fr::NodeKind::Constant: break;
    }
    auto g = groupOf.find(n.get());
    const int group = g == groupOf.end() ? -1 : g->second;
    const std::string id =
        group >= 0 ? fmt::format("{}/n{}", groupElementId(std::size_t(group)), counter) : fmt::format("n{}", counter);
    ++counter;
    nodeId[n.get()] = id;
    std::string attrs = fmt::format("id=\"{}\", label=\"{}\"", id, label);
    if (n->kind == fr::NodeKind::Var)
      attrs += fmt::format(", shape=ellipse, style=filled, fillcolor=\"{}\"", palette.domainFill);
    else if (n->kind == fr::NodeKind::Tuple || n->kind == fr::NodeKind::TupleGetItem)
      attrs += ", shape=box, style=\"rounded,dashed\", fontsize=8, height=0.2";
    std::string line = fmt::format("\"{}\" [{}];\n", id, attrs);
    if (group >= 0)
      clusterNodes[std::size_t(group)].push_back(std::move(line));
    else
      out += "  " + line;
  }
  for (const graph::ModelGroup& g : model.groups) {
    const double share = g.index < shares.size() ? shares[g.index] : 0.0;
    const std::string fill = shares.empty() ? palette.bandFill : shareColor(share, dark);
    std::string label = fmt::format("{}  ({})", quoted(shortGroupName(g.name)), patternText(g.pattern));
    if (!shares.empty()) label += fmt::format("  {:.1f}%", share * 100);
    out += fmt::format("  subgraph cluster_{} {{\n    id=\"{}\"; label=\"{}\"; labeljust=l; style=\"rounded,filled\"; "
                       "fillcolor=\"{}\"; color=\"{}\"; margin=8;\n",
                       g.index, groupElementId(g.index), label, fill, palette.border);
    for (const std::string& line : clusterNodes[g.index])
      out += "    " + line;
    out += "  }\n";
  }
  // Edges: every drawn argument to its consumer, labelled with the tensor's shape.
  for (const fr::NodePtr& n : nodes) {
    if (!drawn(*n)) continue;
    for (const fr::NodePtr& a : n->args) {
      if (!drawn(*a)) continue;
      out += fmt::format("  \"{}\" -> \"{}\" [label=\" {}\"];\n", nodeId[a.get()], nodeId[n.get()], shapeText(a->type));
    }
  }
  out += fmt::format("  \"output\" [label=\"output\\n{}\", shape=ellipse, style=filled, fillcolor=\"{}\"];\n",
                     shapeText(main.body->type), palette.domainFill);
  out += fmt::format("  \"{}\" -> \"output\";\n", nodeId[main.body.get()]);
  out += "}\n";
  return out;
}

} // namespace loopscape::views
