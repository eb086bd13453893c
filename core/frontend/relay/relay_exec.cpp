#include "core/frontend/relay/relay_exec.h"

#include "core/ir/interpreter.h"
#include "core/ir/npy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
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
                                            const std::vector<ir::NDArray>& inputs, const MemoryPlan* plan,
                                            bool poisonFreed) {
  using Source = std::pair<const Node*, std::size_t>;
  std::unordered_map<const Node*, std::size_t> groupOf;
  for (std::size_t g = 0; g < fusion.groups.size(); ++g)
    for (const auto& n : fusion.groups[g].nodes)
      groupOf[n.get()] = g;
  std::map<Source, ir::NDArray> held; // tensors outside the plan
  std::map<Source, Type> planned;     // tensors in the plan's storage
  std::unordered_map<const Node*, std::vector<Source>> sources;
  std::vector<std::vector<std::byte>> pool;
  if (plan)
    for (auto b : plan->storageBytes)
      pool.emplace_back(static_cast<std::size_t>(b));
  auto fetch = [&](const Source& s) -> ir::NDArray {
    if (auto it = held.find(s); it != held.end()) return it->second;
    const Type& t = planned.at(s);
    const PlannedTensor* pt = plan->find(s.first, s.second);
    ir::NDArray a(t.shape, t.dtype);
    std::memcpy(a.rawData(), pool[static_cast<std::size_t>(pt->storage)].data(), a.nbytes());
    return a;
  };
  for (std::size_t k = 0; k < main.params.size(); ++k) {
    held[{main.params[k].get(), 0}] = inputs.at(k);
    sources[main.params[k].get()] = {{main.params[k].get(), 0}};
  }
  std::size_t step = 0;
  for (const auto& n : postOrder(main.body)) {
    if (sources.contains(n.get())) continue;
    auto git = groupOf.find(n.get());
    if (n->kind == NodeKind::Constant) {
      held[{n.get(), 0}] = n->index < 0 ? n->value : module.constants.at(static_cast<std::size_t>(n->index));
      sources[n.get()] = {{n.get(), 0}};
      continue;
    }
    if (git != groupOf.end() && fusion.groups[git->second].hasCall()) {
      const FusedGroup& g = fusion.groups[git->second];
      if (g.root() != n) continue; // an inner node: computed inside its group
      auto func = lowerGroup(g);
      if (!func) return std::unexpected(func.error());
      std::vector<ir::NDArray> args;
      for (const auto& in : g.inputs)
        for (const auto& s : sources.at(in.get()))
          args.push_back(fetch(s));
      std::vector<Type> outs = n->type.kind == Type::Kind::Tuple ? n->type.fields : std::vector<Type>{n->type};
      std::size_t first = args.size();
      for (const auto& t : outs)
        args.emplace_back(t.shape, t.dtype);
      if (auto r = ir::interpret(*func, args); !r) return std::unexpected(r.error());
      for (std::size_t k = 0; k < outs.size(); ++k) {
        Source s{n.get(), k};
        sources[n.get()].push_back(s);
        const PlannedTensor* pt = plan ? plan->find(n.get(), k) : nullptr;
        if (!pt || pt->storage < 0) {
          held[s] = args[first + k];
          continue;
        }
        planned[s] = outs[k];
        std::memcpy(pool[static_cast<std::size_t>(pt->storage)].data(), args[first + k].rawData(),
                    args[first + k].nbytes());
      }
      if (plan && poisonFreed)
        for (const auto& t : plan->tensors)
          if (t.storage >= 0 && t.lastUse == step) {
            auto& bytes = pool[static_cast<std::size_t>(t.storage)];
            std::fill(bytes.begin(), bytes.end(), std::byte{0xFF});
          }
      ++step;
      continue;
    }
    if (n->kind == NodeKind::Tuple) {
      for (const auto& a : n->args) {
        const auto& v = sources.at(a.get());
        sources[n.get()].insert(sources[n.get()].end(), v.begin(), v.end());
      }
      continue;
    }
    if (n->kind == NodeKind::TupleGetItem) {
      sources[n.get()] = {sources.at(n->args[0].get()).at(static_cast<std::size_t>(n->index))};
      continue;
    }
    return Unexpected(Diagnostic::error("relay.run", fmt::format("{} is in no fused group", n->name), n->loc));
  }
  std::vector<ir::NDArray> outputs;
  for (const auto& s : sources.at(main.body.get()))
    outputs.push_back(fetch(s));
  return outputs;
}

} // namespace loopscape::frontend::relay
