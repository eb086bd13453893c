#include "core/frontend/relay/relay_memory.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace loopscape::frontend::relay {

namespace {

using Source = std::pair<const Node*, std::size_t>; ///< (group root, field); node null: external

} // namespace

const PlannedTensor* MemoryPlan::find(const Node* node, std::size_t field) const {
  for (const auto& t : tensors)
    if (t.node == node && t.field == field) return &t;
  return nullptr;
}

MemoryPlan planMemory(const Function& main, const FusionResult& fusion) {
  MemoryPlan plan;
  std::unordered_map<const Node*, const FusedGroup*> rootOf;
  std::unordered_map<const Node*, bool> inCallGroup;
  for (const auto& g : fusion.groups) {
    if (!g.hasCall()) continue;
    rootOf[g.root().get()] = &g;
    for (const auto& n : g.nodes)
      inCallGroup[n.get()] = true;
  }
  // The tensors each node's value consists of, and liveness.
  std::unordered_map<const Node*, std::vector<Source>> sources;
  std::map<Source, std::size_t> index; // -> plan.tensors
  const std::size_t forever = std::numeric_limits<std::size_t>::max();
  std::vector<const FusedGroup*> order;
  for (const auto& n : postOrder(main.body)) {
    if (auto it = rootOf.find(n.get()); it != rootOf.end()) {
      std::size_t step = order.size();
      order.push_back(it->second);
      for (const auto& in : it->second->inputs)
        for (const auto& s : sources[in.get()])
          if (s.first) plan.tensors[index.at(s)].lastUse = std::max(plan.tensors[index.at(s)].lastUse, step);
      std::vector<Type> fields = n->type.kind == Type::Kind::Tuple ? n->type.fields : std::vector<Type>{n->type};
      for (std::size_t k = 0; k < fields.size(); ++k) {
        PlannedTensor t;
        t.node = n.get();
        t.field = k;
        t.bytes = fields[k].numel() * fields[k].dtype.bytes();
        t.defined = t.lastUse = step;
        index[{n.get(), k}] = plan.tensors.size();
        plan.tensors.push_back(t);
        sources[n.get()].push_back({n.get(), k});
      }
      continue;
    }
    if (inCallGroup.contains(n.get())) continue;
    if (n->kind == NodeKind::Tuple) {
      for (const auto& a : n->args)
        sources[n.get()].insert(sources[n.get()].end(), sources[a.get()].begin(), sources[a.get()].end());
    } else if (n->kind == NodeKind::TupleGetItem) {
      const auto& s = sources[n->args[0].get()];
      if (static_cast<std::size_t>(n->index) < s.size()) sources[n.get()] = {s[static_cast<std::size_t>(n->index)]};
    } else {
      sources[n.get()] = {Source{nullptr, 0}};
    }
  }
  plan.steps = order.size();
  for (const auto& s : sources[main.body.get()])
    if (s.first) plan.tensors[index.at(s)].lastUse = forever;
  // Assign storage step by step.
  std::vector<int> freeList;
  for (std::size_t step = 0; step < order.size(); ++step) {
    for (auto& t : plan.tensors) {
      if (t.defined != step) continue;
      if (t.lastUse == forever) continue; // a function output: its own storage
      plan.naiveBytes += t.bytes;
      int best = -1;
      for (int id : freeList) {
        std::int64_t b = plan.storageBytes[static_cast<std::size_t>(id)];
        std::int64_t cur = best < 0 ? 0 : plan.storageBytes[static_cast<std::size_t>(best)];
        bool fits = b >= t.bytes, curFits = best >= 0 && cur >= t.bytes;
        if (best < 0 || (fits && (!curFits || b < cur)) || (!fits && !curFits && b > cur)) best = id;
      }
      if (best < 0) {
        best = static_cast<int>(plan.storageBytes.size());
        plan.storageBytes.push_back(t.bytes);
      } else {
        freeList.erase(std::find(freeList.begin(), freeList.end(), best));
        auto& b = plan.storageBytes[static_cast<std::size_t>(best)];
        b = std::max(b, t.bytes);
      }
      t.storage = best;
    }
    for (const auto& t : plan.tensors)
      if (t.storage >= 0 && t.lastUse == step) freeList.push_back(t.storage);
  }
  for (auto b : plan.storageBytes)
    plan.plannedBytes += b;
  return plan;
}

} // namespace loopscape::frontend::relay
