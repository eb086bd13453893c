// Packing of reused inputs before the isl scheduler (see packing.h).
#include "core/poly/packing.h"

#include "core/ir/visitor.h"
#include "core/schedule/ir_tree.h"
#include "core/schedule/primitives.h"
#include "core/schedule/schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace loopscape::poly {

namespace {

/// The index of the block iterator `e` is (a plain Var), or -1.
int iteratorIndex(const ir::Block& b, const ir::Expr& e) {
  if (!e.is<ir::Var>()) return -1;
  for (std::size_t i = 0; i < b.iterVars.size(); ++i)
    if (b.iterVars[i].var.get() == e.get()) return static_cast<int>(i);
  return -1;
}

std::optional<std::vector<std::int64_t>> constShape(const ir::Buffer& buf) {
  std::vector<std::int64_t> out;
  for (const auto& e : buf->shape) {
    auto v = ir::asConstInt(e);
    if (!v || *v < 1) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

} // namespace

std::vector<PackCandidate> packCandidates(const ir::PrimFunc& func) {
  std::vector<PackCandidate> out;
  schedule::IrTree tree(func);
  std::set<const ir::BufferNode*> written;
  for (const schedule::TreeNode* node : tree.blocks())
    for (const auto& w : node->block()->writes)
      written.insert(w.buffer.get());
  std::set<const ir::BufferNode*> params;
  for (const auto& p : func.params)
    params.insert(p.get());
  std::set<std::string> seen;
  for (const schedule::TreeNode* node : tree.blocks()) {
    const ir::Block& b = *node->block();
    if (!b.init.defined()) continue;
    const auto* store = b.body.as<ir::BufferStore>();
    if (!store || store->indices.empty()) continue;
    const int v = iteratorIndex(b, store->indices.back());
    if (v < 0 || b.iterVars[v].kind != ir::IterKind::Spatial) continue;
    auto vExtent = ir::asConstInt(b.iterVars[v].dom.extent);
    if (!vExtent) continue;
    ir::forEachExpr(store->value, [&](const ir::Expr& e) {
      const auto* load = e.as<ir::BufferLoad>();
      if (!load || !params.contains(load->buffer.get()) || written.contains(load->buffer.get())) return;
      if (seen.contains(load->buffer->name)) return;
      auto shape = constShape(load->buffer);
      if (!shape || load->indices.size() < 2) return;
      std::vector<int> iters;
      for (const auto& index : load->indices) {
        const int i = iteratorIndex(b, index);
        if (i < 0 || std::find(iters.begin(), iters.end(), i) != iters.end()) return;
        iters.push_back(i);
      }
      const auto at = std::find(iters.begin(), iters.end(), v);
      if (at == iters.end() || at == iters.end() - 1) return;
      PackCandidate c;
      c.buffer = load->buffer->name;
      c.block = b.name;
      c.shape = *shape;
      c.elemBytes = load->buffer->dtype.bytes();
      c.dim = static_cast<int>(at - iters.begin());
      c.vectorIter = b.iterVars[v].var.as<ir::Var>()->name;
      c.vectorExtent = *vExtent;
      for (std::size_t i = 0; i < b.iterVars.size(); ++i) {
        if (std::find(iters.begin(), iters.end(), static_cast<int>(i)) != iters.end()) continue;
        auto extent = ir::asConstInt(b.iterVars[i].dom.extent);
        if (!extent) continue;
        c.reuseIters.push_back(b.iterVars[i].var.as<ir::Var>()->name);
        c.reuse *= *extent;
      }
      seen.insert(c.buffer);
      out.push_back(std::move(c));
    });
  }
  return out;
}

Expected<PackResult> packInputs(const ir::PrimFunc& func, const MachineModel& machine) {
  PackResult result{func, {}, 0};
  const std::vector<PackCandidate> candidates = packCandidates(func);
  for (const auto& c : candidates) {
    PackPlan plan = planPack(c, machine);
    if (!plan.pack) {
      result.notes.push_back(std::move(plan.note));
      continue;
    }
    // Each copy on a fresh schedule of the program so far: a copy a primitive refuses
    // leaves the program as it was, and says why.
    schedule::Schedule scratch(result.func);
    auto refused = [&](const Diagnostic& d) {
      result.notes.push_back(fmt::format("not packed: {} read by {}: {}", c.buffer, c.block, d.message));
    };
    const schedule::TreeNode* node = scratch.tree().findBlock(c.block);
    if (!node) continue;
    const auto& reads = node->block()->reads;
    const auto it =
        std::find_if(reads.begin(), reads.end(), [&](const ir::BufferRegion& r) { return r.buffer->name == c.buffer; });
    if (it == reads.end()) continue;
    schedule::BlockRV block{scratch.defineBlock(c.block)};
    auto copy = schedule::cacheRead(scratch, block, it - reads.begin(), "global");
    if (!copy) {
      refused(copy.error());
      continue;
    }
    schedule::IndexMap map;
    for (std::size_t d = 0; d < c.shape.size(); ++d)
      map.params.push_back(ir::Var::make(fmt::format("d{}", d)));
    for (int d : plan.order)
      map.results.push_back(map.params[d]);
    auto laid = schedule::transformLayout(scratch, *copy, {schedule::BufferIndex::Kind::Write, 0}, std::move(map));
    if (!laid) {
      refused(laid.error());
      continue;
    }
    auto copyNode = scratch.block(schedule::RV(*copy), "poly_optimize");
    const std::string name = copyNode ? (*copyNode)->block()->name : c.buffer + "_global";
    if (name != c.buffer + "_global")
      if (auto pos = plan.note.find(c.buffer + "_global"); pos != std::string::npos)
        plan.note.replace(pos, c.buffer.size() + 7, name);
    result.notes.push_back(std::move(plan.note));
    result.func = scratch.func();
    ++result.packed;
  }
  return result;
}

} // namespace loopscape::poly
