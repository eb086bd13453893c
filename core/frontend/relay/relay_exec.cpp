#include "core/frontend/relay/relay_exec.h"

#include "core/ir/interpreter.h"
#include "core/ir/npy.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <unordered_map>

namespace loopscape::frontend::relay {

namespace {

/// How a constant is used: by the first call that reads it.
std::string roleOf(const Module& m, int index) {
  for (const auto& f : m.functions)
    for (const auto& n : postOrder(f.body)) {
      if (n->kind != NodeKind::Call) continue;
      for (std::size_t k = 0; k < n->args.size(); ++k)
        if (n->args[k]->kind == NodeKind::Constant && n->args[k]->index == index)
          return n->name == "nn.batch_norm" ? (k == 1 ? "gamma" : k == 4 ? "variance" : "vector") : "";
    }
  return "";
}

} // namespace

Expected<void> materializeConstants(Module& m, const std::string& paramsDir, std::uint64_t seed) {
  for (std::size_t i = 0; i < m.constants.size(); ++i) {
    if (m.constants[i].defined()) continue;
    const Type& t = m.constantTypes[i];
    if (!t.isTensor())
      return Unexpected(Diagnostic::error(
          "relay.constant", fmt::format("meta[relay.Constant][{}] is never used, so its shape is unknown", i)));
    std::string path = paramsDir.empty() ? "" : fmt::format("{}/const_{}.npy", paramsDir, i);
    if (!path.empty() && std::filesystem::exists(path)) {
      auto a = ir::loadNpy(path);
      if (!a) return std::unexpected(a.error());
      if (a->shape() != t.shape || a->dtype() != t.dtype)
        return Unexpected(
            Diagnostic::error("relay.constant", fmt::format("{} holds {} but meta[relay.Constant][{}] is {}", path,
                                                            a->describe(), i, typeStr(t))));
      m.constants[i] = *a;
      continue;
    }
    ir::NDArray a(t.shape, t.dtype);
    a.fillRandom(seed + 1000 + i);
    std::string role = roleOf(m, static_cast<int>(i));
    double fanIn = t.shape.size() >= 2 ? static_cast<double>(t.numel() / t.shape[0]) : 0;
    for (std::int64_t k = 0; k < a.numel(); ++k) {
      double u = a.getDouble(k);
      double v = role == "variance" ? 1.0 + 0.5 * u
                 : role == "gamma"  ? 1.0 + 0.1 * u
                 : fanIn > 0        ? u * std::sqrt(3.0 / fanIn)
                                    : 0.1 * u;
      a.setDouble(k, v);
    }
    m.constants[i] = a;
  }
  return {};
}

Expected<std::vector<ir::NDArray>> runFused(const Module& module, const Function& main, const FusionResult& fusion,
                                            const std::vector<ir::NDArray>& inputs) {
  std::unordered_map<const Node*, std::size_t> groupOf;
  for (std::size_t g = 0; g < fusion.groups.size(); ++g)
    for (const auto& n : fusion.groups[g].nodes)
      groupOf[n.get()] = g;
  std::unordered_map<const Node*, std::vector<ir::NDArray>> values;
  for (std::size_t k = 0; k < main.params.size(); ++k)
    values[main.params[k].get()] = {inputs.at(k)};
  for (const auto& n : postOrder(main.body)) {
    if (values.contains(n.get())) continue;
    auto git = groupOf.find(n.get());
    if (n->kind == NodeKind::Constant) {
      values[n.get()] = {n->index < 0 ? n->value : module.constants.at(static_cast<std::size_t>(n->index))};
      continue;
    }
    if (git != groupOf.end() && fusion.groups[git->second].hasCall()) {
      const FusedGroup& g = fusion.groups[git->second];
      if (g.root() != n) continue; // an inner node: computed inside its group
      auto func = lowerGroup(g);
      if (!func) return std::unexpected(func.error());
      std::vector<ir::NDArray> args;
      for (const auto& in : g.inputs)
        for (const auto& v : values.at(in.get()))
          args.push_back(v);
      std::vector<Type> outs = n->type.kind == Type::Kind::Tuple ? n->type.fields : std::vector<Type>{n->type};
      std::size_t first = args.size();
      for (const auto& t : outs)
        args.emplace_back(t.shape, t.dtype);
      if (auto r = ir::interpret(*func, args); !r) return std::unexpected(r.error());
      values[n.get()] = std::vector<ir::NDArray>(args.begin() + static_cast<std::ptrdiff_t>(first), args.end());
      continue;
    }
    if (n->kind == NodeKind::Tuple) {
      for (const auto& a : n->args) {
        const auto& v = values.at(a.get());
        values[n.get()].insert(values[n.get()].end(), v.begin(), v.end());
      }
      continue;
    }
    if (n->kind == NodeKind::TupleGetItem) {
      values[n.get()] = {values.at(n->args[0].get()).at(static_cast<std::size_t>(n->index))};
      continue;
    }
    return Unexpected(Diagnostic::error("relay.run", fmt::format("{} is in no fused group", n->name), n->loc));
  }
  return values.at(main.body.get());
}

} // namespace loopscape::frontend::relay
