// Full/partial tile separation before the isl scheduler (see tail_split.h).
#include "core/poly/tail_split.h"

#include "core/ir/op.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace loopscape::poly {

namespace {

/// The names of every block in `s`, and how many blocks write each buffer.
void blockNames(const ir::Stmt& s, std::set<std::string>& out, std::map<const ir::BufferNode*, int>& writers) {
  if (const auto* r = s.as<ir::BlockRealize>()) {
    const auto& b = r->blockNode();
    out.insert(b.name);
    for (const auto& w : b.writes)
      ++writers[w.buffer.get()];
    blockNames(b.body, out, writers);
    return;
  }
  if (const auto* f = s.as<ir::For>()) return blockNames(f->body, out, writers);
  if (const auto* seq = s.as<ir::SeqStmt>())
    for (const auto& x : seq->seq)
      blockNames(x, out, writers);
}

bool uses(const ir::Expr& e, const ir::ExprNode* var) {
  bool found = false;
  ir::forEachExpr(e, [&](const ir::Expr& x) { found = found || x.get() == var; });
  return found;
}

/// Whether every access of the block moves by one element (or not at all) when `var`
/// advances: `var` only in the last index, alone or plus a term without it (a vector
/// member, as tile_model.h would find it).
bool contiguousAlong(const ir::Block& b, const ir::ExprNode* var) {
  bool ok = true;
  auto indices = [&](const std::vector<ir::Expr>& idx) {
    for (std::size_t k = 0; k + 1 < idx.size(); ++k)
      if (uses(idx[k], var)) ok = false;
    if (idx.empty() || !uses(idx.back(), var) || idx.back().get() == var) return;
    const auto* add = idx.back().as<ir::Add>();
    if (!add || !((add->a.get() == var && !uses(add->b, var)) || (add->b.get() == var && !uses(add->a, var))))
      ok = false;
  };
  auto visit = [&](const ir::Stmt& stmt) {
    if (const auto* store = stmt.as<ir::BufferStore>()) indices(store->indices);
    ir::forEachExpr(stmt, [&](const ir::Expr& e) {
      if (const auto* load = e.as<ir::BufferLoad>()) indices(load->indices);
    });
  };
  visit(b.body);
  if (b.init.defined()) visit(b.init);
  return ok;
}

/// One nest split into its full and tail parts, or nothing. Reductions are split, and
/// blocks that read the output of a split reduction (`splitOutputs`; a consumer the isl
/// scheduler may fuse with it), so that both parts of a fused band stay boxes.
std::vector<ir::Stmt> splitNest(const ir::Stmt& nest, std::int64_t lanes, std::set<std::string>& names,
                                const std::map<const ir::BufferNode*, int>& writers,
                                std::set<const ir::BufferNode*>& splitOutputs, std::vector<std::string>& notes) {
  std::vector<const ir::For*> loops;
  ir::Stmt s = nest;
  while (const auto* f = s.as<ir::For>()) {
    if (f->forKind != ir::ForKind::Serial || !f->annotations.empty()) return {};
    loops.push_back(f);
    s = f->body;
  }
  const auto* realize = s.as<ir::BlockRealize>();
  if (loops.empty() || !realize || !ir::isConstInt(realize->predicate, 1)) return {};
  const ir::Block& b = realize->blockNode();
  const auto* store = b.body.as<ir::BufferStore>();
  // The block must be its buffer's only writer (a scan's state has an init block and an
  // update block, which the Scop pairs by name) and no init of another block.
  if (!store || store->indices.empty() || b.name.ends_with("_init") || b.writes.size() != 1 ||
      writers.at(b.writes[0].buffer.get()) != 1)
    return {};
  // The block reads its output only at the element it writes (an accumulation): no
  // instance depends on another, so the two copies may run one after the other.
  bool selfContained = true;
  auto check = [&](const ir::Stmt& stmt) {
    ir::forEachExpr(stmt, [&](const ir::Expr& e) {
      const auto* load = e.as<ir::BufferLoad>();
      if (!load || !load->buffer.sameAs(store->buffer)) return;
      if (load->indices.size() != store->indices.size()) selfContained = false;
      for (std::size_t k = 0; k < load->indices.size() && selfContained; ++k)
        if (!load->indices[k].sameAs(store->indices[k])) selfContained = false;
    });
  };
  check(b.body);
  if (b.init.defined()) check(b.init);
  if (!selfContained) return {};
  // v: the output's last index, a spatial iterator bound to a loop variable of the nest.
  int v = -1;
  for (std::size_t i = 0; i < b.iterVars.size(); ++i)
    if (b.iterVars[i].var.get() == store->indices.back().get()) v = static_cast<int>(i);
  if (v < 0 || b.iterVars[v].kind != ir::IterKind::Spatial) return {};
  if (!contiguousAlong(b, b.iterVars[v].var.get())) return {};
  if (!b.init.defined() && std::none_of(b.reads.begin(), b.reads.end(), [&](const ir::BufferRegion& r) {
        return splitOutputs.contains(r.buffer.get());
      }))
    return {};
  const ir::Expr& binding = realize->iterValues[v];
  const auto loopAt =
      std::find_if(loops.begin(), loops.end(), [&](const ir::For* f) { return f->loopVar.get() == binding.get(); });
  if (loopAt == loops.end()) return {};
  const ir::For& l = **loopAt;
  auto min = ir::asConstInt(l.min);
  auto extent = ir::asConstInt(l.extent);
  if (!min || *min != 0 || !extent || *extent % lanes == 0 || *extent < 2 * lanes) return {};
  const std::int64_t full = *extent - *extent % lanes;
  std::string tailName = b.name + "_tail";
  for (int k = 1; names.contains(tailName); ++k)
    tailName = fmt::format("{}_tail{}", b.name, k);
  names.insert(tailName);

  // The tail: fresh loop variables, l rebased to 0 and shifted by `full` in the bindings.
  const ir::DataType type = l.loopVar.dtype();
  ir::VarMap fresh;
  std::vector<ir::Expr> freshVars;
  for (const ir::For* f : loops) {
    ir::Expr var = ir::Var::make(f->loopVar.as<ir::Var>()->name, f->loopVar.dtype());
    freshVars.push_back(var);
    fresh[f->loopVar.get()] = f == &l ? ir::Expr(var + ir::intImm(full, type)) : var;
  }
  std::vector<ir::Expr> values;
  for (const auto& e : realize->iterValues)
    values.push_back(ir::substitute(e, fresh));
  ir::Stmt tailBlock =
      ir::Block::make(tailName, b.iterVars, b.reads, b.writes, b.body, b.init, b.allocBuffers, b.annotations);
  ir::Stmt tail = ir::BlockRealize::make(std::move(values), realize->predicate, tailBlock);
  ir::Stmt head = s;
  for (std::size_t k = loops.size(); k-- > 0;) {
    const ir::For& f = *loops[k];
    const bool isL = loops[k] == &l;
    tail = ir::For::make(freshVars[k], ir::substitute(f.min, fresh),
                         isL ? ir::intImm(*extent - full, type) : ir::substitute(f.extent, fresh), f.forKind, tail,
                         f.threadTag, f.annotations);
    head = ir::For::make(f.loopVar, f.min, isL ? ir::intImm(full, type) : f.extent, f.forKind, head, f.threadTag,
                         f.annotations);
  }
  splitOutputs.insert(store->buffer.get());
  notes.push_back(fmt::format("tail: {}'s {} ({} iterations) is not a multiple of {} lanes: {} runs {} in [0, {}) "
                              "(full vectors) and a copy {} the last {}",
                              b.name, l.loopVar.as<ir::Var>()->name, *extent, lanes, b.name,
                              l.loopVar.as<ir::Var>()->name, full, tailName, *extent - full));
  return {head, tail};
}

} // namespace

TailSplitResult splitVectorTails(const ir::PrimFunc& func, const MachineModel& machine) {
  TailSplitResult result{func, {}, 0};
  const auto* rootRealize = func.body.as<ir::BlockRealize>();
  if (!rootRealize) return result;
  const ir::Block& root = rootRealize->blockNode();
  std::set<std::string> names;
  std::map<const ir::BufferNode*, int> writers;
  blockNames(root.body, names, writers);
  std::set<const ir::BufferNode*> splitOutputs;
  std::vector<ir::Stmt> items;
  if (const auto* seq = root.body.as<ir::SeqStmt>())
    items = seq->seq;
  else
    items.push_back(root.body);
  std::vector<ir::Stmt> out;
  for (const auto& item : items) {
    // Lanes of the nest's output type.
    int elemBytes = 4;
    std::vector<ir::Stmt> parts;
    ir::Stmt s = item;
    while (const auto* f = s.as<ir::For>())
      s = f->body;
    if (const auto* r = s.as<ir::BlockRealize>())
      if (const auto* store = r->blockNode().body.as<ir::BufferStore>()) elemBytes = store->buffer->dtype.bytes();
    const std::int64_t lanes = std::max(1, machine.vectorBytes / std::max(1, elemBytes));
    if (lanes >= 4) parts = splitNest(item, lanes, names, writers, splitOutputs, result.notes);
    if (parts.empty()) {
      out.push_back(item);
      continue;
    }
    out.insert(out.end(), parts.begin(), parts.end());
    ++result.split;
  }
  if (result.split == 0) return result;
  ir::Stmt newRoot = ir::Block::make(root.name, root.iterVars, root.reads, root.writes, ir::SeqStmt::make(out),
                                     root.init, root.allocBuffers, root.annotations);
  result.func.body = ir::BlockRealize::make(rootRealize->iterValues, rootRealize->predicate, newRoot);
  return result;
}

} // namespace loopscape::poly
