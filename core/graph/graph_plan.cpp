#include "core/graph/graph_plan.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <unordered_map>

namespace loopscape::graph {

namespace relay = frontend::relay;

namespace {

constexpr std::uint64_t kAlign = 64;

std::uint64_t aligned(std::uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

Slot makeSlot(Slot::Kind kind, std::string name, const relay::Type& type) {
  Slot s;
  s.kind = kind;
  s.name = std::move(name);
  s.shape = type.shape;
  s.dtype = type.dtype;
  std::int64_t n = 1;
  for (auto d : s.shape)
    n *= d;
  s.bytes = n * s.dtype.bytes();
  return s;
}

} // namespace

Expected<GraphPlan> planGraph(const Model& model, bool reuse) {
  using Source = std::pair<const relay::Node*, std::size_t>;
  GraphPlan plan;
  plan.reuse = reuse;
  const auto& main = model.main();
  std::unordered_map<const relay::Node*, std::size_t> groupOfRoot; // root node -> Model::groups index
  for (const auto& g : model.groups)
    groupOfRoot[g.fused->root().get()] = g.index;
  std::unordered_map<const relay::Node*, std::size_t> member; // any member -> group
  for (const auto& g : model.groups)
    for (const auto& n : g.fused->nodes)
      member[n.get()] = g.index;
  std::map<Source, std::size_t> slotOf;
  std::unordered_map<const relay::Node*, std::vector<Source>> sources;

  for (std::size_t k = 0; k < main.params.size(); ++k) {
    const auto* p = main.params[k].get();
    Slot s = makeSlot(Slot::Kind::Input, "%" + p->name, p->type);
    s.index = k;
    slotOf[{p, 0}] = plan.slots.size();
    plan.slots.push_back(std::move(s));
    sources[p] = {{p, 0}};
  }
  // Outputs of the function: their slots are made when their group runs.
  std::map<Source, std::size_t> outputIndex;
  for (const auto& n : relay::postOrder(main.body)) {
    if (sources.contains(n.get())) continue;
    if (n->kind == relay::NodeKind::Constant) {
      Slot s = makeSlot(Slot::Kind::Constant, n->index < 0 ? "literal" : fmt::format("const_{}", n->index), n->type);
      s.value = n->index < 0 ? n->value : model.module.constants.at(static_cast<std::size_t>(n->index));
      slotOf[{n.get(), 0}] = plan.slots.size();
      plan.slots.push_back(std::move(s));
      sources[n.get()] = {{n.get(), 0}};
      continue;
    }
    if (auto it = groupOfRoot.find(n.get()); it != groupOfRoot.end()) {
      const ModelGroup& g = model.groups[it->second];
      PlannedCall call;
      call.group = g.index;
      for (const auto& in : g.fused->inputs)
        for (const auto& s : sources.at(in.get()))
          call.args.push_back(slotOf.at(s));
      call.firstOutput = call.args.size();
      const auto outs = n->type.kind == relay::Type::Kind::Tuple ? n->type.fields : std::vector<relay::Type>{n->type};
      for (std::size_t k = 0; k < outs.size(); ++k) {
        Source src{n.get(), k};
        Slot s =
            makeSlot(Slot::Kind::Intermediate, outs.size() == 1 ? g.name : fmt::format("{}.{}", g.name, k), outs[k]);
        const relay::PlannedTensor* pt = model.plan.find(n.get(), k);
        s.index = pt && pt->storage >= 0 ? static_cast<std::size_t>(pt->storage) : 0;
        if (!pt || pt->storage < 0) s.kind = Slot::Kind::Output;
        slotOf[src] = plan.slots.size();
        call.args.push_back(plan.slots.size());
        plan.slots.push_back(std::move(s));
        sources[n.get()].push_back(src);
      }
      plan.calls.push_back(std::move(call));
      continue;
    }
    if (member.contains(n.get())) continue; // computed inside its group
    if (n->kind == relay::NodeKind::Tuple) {
      for (const auto& a : n->args) {
        const auto& v = sources.at(a.get());
        sources[n.get()].insert(sources[n.get()].end(), v.begin(), v.end());
      }
      continue;
    }
    if (n->kind == relay::NodeKind::TupleGetItem) {
      sources[n.get()] = {sources.at(n->args[0].get()).at(static_cast<std::size_t>(n->index))};
      continue;
    }
    return std::unexpected(
        Diagnostic::error("graph.unsupported", fmt::format("{} is in no fused group", n->name), n->loc));
  }
  std::size_t outputNumber = 0;
  for (const auto& s : sources.at(main.body.get())) {
    const std::size_t slot = slotOf.at(s);
    if (plan.slots[slot].kind != Slot::Kind::Output)
      return std::unexpected(Diagnostic::error(
          "graph.unsupported",
          fmt::format("output {} of @main is {} itself, not computed by a group; a compiled model must compute "
                      "every output",
                      outputNumber, plan.slots[slot].name)));
    plan.slots[slot].index = outputNumber++;
    plan.outputs.push_back(slot);
  }

  // The arena: inputs, constants and outputs each on their own; intermediates in their
  // plan storage (shared) or, without reuse, each on its own.
  std::uint64_t offset = 0;
  std::map<std::size_t, std::uint64_t> storageOffset;
  for (auto& s : plan.slots) {
    if (s.kind == Slot::Kind::Intermediate && reuse) continue;
    s.offset = offset;
    offset += aligned(static_cast<std::uint64_t>(s.bytes));
  }
  if (reuse) {
    for (std::size_t k = 0; k < model.plan.storageBytes.size(); ++k) {
      storageOffset[k] = offset;
      offset += aligned(static_cast<std::uint64_t>(model.plan.storageBytes[k]));
    }
    for (auto& s : plan.slots)
      if (s.kind == Slot::Kind::Intermediate) s.offset = storageOffset.at(s.index);
  }
  plan.arenaBytes = offset;
  return plan;
}

void fillArena(const GraphPlan& plan, const std::vector<ir::NDArray>& inputs, std::span<std::byte> arena) {
  for (const auto& s : plan.slots) {
    const ir::NDArray* value = s.kind == Slot::Kind::Input      ? &inputs.at(s.index)
                               : s.kind == Slot::Kind::Constant ? &s.value
                                                                : nullptr;
    if (value && value->nbytes() > 0) std::memcpy(arena.data() + s.offset, value->rawData(), value->nbytes());
  }
}

ir::NDArray readSlot(const Slot& slot, std::span<const std::byte> arena) {
  ir::NDArray a(slot.shape, slot.dtype);
  if (a.nbytes() > 0) std::memcpy(a.rawData(), arena.data() + slot.offset, a.nbytes());
  return a;
}

} // namespace loopscape::graph
