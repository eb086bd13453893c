#include "core/frontend/te_lower.h"

#include "core/ir/mutator.h"
#include "core/ir/visitor.h"

#include <cfloat>
#include <limits>
#include <unordered_map>

namespace loopscape::frontend {

namespace {

using ir::Expr;

/// Replaces Vars by expressions and, for a scan's update, loads of the state
/// placeholder by loads of the scan's buffer. Comparisons are spelled as TVM's
/// te.create_prim_func leaves them after its simplifier: `a >= b` as `b <= a`, `a > b` as
/// `b < a`.
class Substitute final : public ir::ExprMutator {
public:
  std::unordered_map<const ir::ExprNode*, Expr> map;
  ir::Buffer from, to;

protected:
  Expr visitGE(const ir::GE& op, const Expr&) override { return ir::LE::make(mutate(op.b), mutate(op.a)); }
  Expr visitGT(const ir::GT& op, const Expr&) override { return ir::LT::make(mutate(op.b), mutate(op.a)); }
  Expr visitVar(const ir::Var&, const Expr& self) override {
    auto it = map.find(self.get());
    return it == map.end() ? self : it->second;
  }
  Expr visitBufferLoad(const ir::BufferLoad& op, const Expr& self) override {
    Expr e = ir::ExprMutator::visitBufferLoad(op, self);
    const auto* load = e.as<ir::BufferLoad>();
    if (!from.defined() || !load->buffer.sameAs(from)) return e;
    return ir::BufferLoad::make(to, load->indices);
  }
};

/// Structural equality for index expressions of one block (variables by identity).
bool sameExpr(const Expr& a, const Expr& b) {
  if (a.sameAs(b)) return true;
  if (!a.defined() || !b.defined() || a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  if (auto* x = a.as<ir::IntImm>()) return x->value == b.as<ir::IntImm>()->value;
  if (auto* x = a.as<ir::FloatImm>()) return x->value == b.as<ir::FloatImm>()->value;
  switch (a.kind()) {
#define LS_X(name)                                                                        \
  case ir::ExprKind::name: {                                                              \
    auto* x = a.as<ir::name>();                                                           \
    auto* y = b.as<ir::name>();                                                           \
    return sameExpr(x->a, y->a) && sameExpr(x->b, y->b);                                  \
  }
    LS_BINARY_KINDS(LS_X)
#undef LS_X
  case ir::ExprKind::Cast: return sameExpr(a.as<ir::Cast>()->value, b.as<ir::Cast>()->value);
  default: return false;
  }
}

/// `e` as base + constant offset (base undefined for a constant).
std::pair<Expr, std::int64_t> splitOffset(const Expr& e) {
  if (auto c = ir::asConstInt(e)) return {Expr(), *c};
  if (auto* add = e.as<ir::Add>())
    if (auto c = ir::asConstInt(add->b)) return {add->a, *c};
  if (auto* sub = e.as<ir::Sub>())
    if (auto c = ir::asConstInt(sub->b); c && *c != std::numeric_limits<std::int64_t>::min()) return {sub->a, -*c};
  return {e, 0};
}

Expr plusConst(const Expr& base, std::int64_t c, ir::DataType t) {
  if (!base.defined()) return ir::IntImm::make(t, c);
  if (c == 0) return base;
  if (c > 0) return ir::Add::make(base, ir::IntImm::make(t, c));
  return ir::Sub::make(base, ir::IntImm::make(t, -c));
}

/// The region of `buffer` covering every index tuple in `accesses`.
ir::BufferRegion hullRegion(const ir::Buffer& buffer, const std::vector<std::vector<Expr>>& accesses) {
  ir::BufferRegion region{buffer, {}};
  for (std::size_t d = 0; d < buffer->ndim(); ++d) {
    const Expr& first = accesses.front()[d];
    ir::DataType t = first.dtype();
    bool allSame = true;
    for (const auto& acc : accesses) allSame = allSame && sameExpr(acc[d], first);
    if (allSame) {
      region.region.push_back(ir::Range::fromMinExtent(first, ir::IntImm::make(t, 1)));
      continue;
    }
    auto [base, lo] = splitOffset(first);
    std::int64_t hi = lo;
    bool offsetsOnly = true;
    for (const auto& acc : accesses) {
      auto [b, c] = splitOffset(acc[d]);
      if (acc[d].dtype() != t || (base.defined() != b.defined()) || (base.defined() && !sameExpr(base, b))) {
        offsetsOnly = false;
        break;
      }
      lo = std::min(lo, c);
      hi = std::max(hi, c);
    }
    if (offsetsOnly && hi - lo < std::numeric_limits<std::int32_t>::max()) {
      region.region.push_back(ir::Range::fromMinExtent(plusConst(base, lo, t), ir::IntImm::make(t, hi - lo + 1)));
      continue;
    }
    const Expr& extent = buffer->shape[d];
    region.region.push_back(ir::Range::fromMinExtent(ir::IntImm::make(extent.dtype(), 0), extent));
  }
  return region;
}

std::vector<ir::BufferRegion> readRegions(const Expr& body) {
  std::vector<ir::Buffer> order;
  std::vector<std::vector<std::vector<Expr>>> accesses;
  ir::forEachExpr(body, [&](const Expr& e) {
    const auto* load = e.as<ir::BufferLoad>();
    if (!load) return;
    std::size_t k = 0;
    while (k < order.size() && !order[k].sameAs(load->buffer)) ++k;
    if (k == order.size()) {
      order.push_back(load->buffer);
      accesses.emplace_back();
    }
    for (const auto& prev : accesses[k]) {
      bool same = true;
      for (std::size_t d = 0; d < prev.size(); ++d) same = same && sameExpr(prev[d], load->indices[d]);
      if (same) return;
    }
    accesses[k].push_back(load->indices);
  });
  std::vector<ir::BufferRegion> regions;
  for (std::size_t k = 0; k < order.size(); ++k) regions.push_back(hullRegion(order[k], accesses[k]));
  return regions;
}

/// The identity of a reduction: 0 for sum, lowest finite for max, highest for min.
Expr identity(Combiner c, ir::DataType t) {
  if (c == Combiner::Sum) return ir::makeConst(t, 0);
  bool lowest = c == Combiner::Max;
  if (t.isFloat()) {
    double m = t.bits() == 16 ? 65504.0 : t.bits() == 32 ? static_cast<double>(FLT_MAX) : DBL_MAX;
    return ir::FloatImm::make(t, lowest ? -m : m);
  }
  if (t.isUInt()) {
    std::int64_t max = t.bits() >= 64 ? -1 : static_cast<std::int64_t>((std::uint64_t{1} << t.bits()) - 1);
    return ir::IntImm::make(t, lowest ? 0 : max);
  }
  std::int64_t max = t.bits() >= 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (t.bits() - 1)) - 1;
  return ir::IntImm::make(t, lowest ? -max - 1 : max);
}

/// Where a compute's block writes: its own buffer over its whole shape, or, as a part of
/// a scan, the scan's buffer from time step `timeMin` on, with the state's loads redirected.
struct Destination {
  ir::Buffer buffer;
  Expr timeMin;       ///< the first time step (undefined: 0)
  ir::Buffer state;   ///< the scan's state placeholder (undefined outside a scan's update)
  ir::Annotations attrs; ///< the scan's attrs, added to the block's own
};

ir::Stmt lowerCompute(const TensorInfo& t, const Destination& dest) {
  Substitute subst;
  subst.from = dest.state;
  subst.to = dest.buffer;
  std::vector<Expr> loopVars, bindings;
  std::vector<ir::IterVar> iterVars;
  std::vector<std::pair<Expr, Expr>> loopBounds; // min, extent
  const auto& shape = t.buffer->shape;
  for (std::size_t d = 0; d < t.params.size(); ++d) {
    const auto& name = t.params[d].as<ir::Var>()->name;
    Expr loopVar = ir::Var::make(name, ir::DataType::int32());
    Expr iterVar = ir::Var::make("v_" + name, ir::DataType::int32());
    subst.map[t.params[d].get()] = iterVar;
    loopVars.push_back(loopVar);
    Expr min = ir::intImm(0), extent = shape[d];
    if (d == 0 && dest.timeMin.defined()) {
      min = dest.timeMin;
      auto e = ir::asConstInt(extent);
      auto m = ir::asConstInt(min);
      extent = e && m ? ir::intImm(*e - *m) : Expr(ir::Sub::make(extent, min));
    }
    loopBounds.emplace_back(min, extent);
    iterVars.push_back(ir::IterVar{iterVar, ir::Range::fromMinExtent(min, extent), ir::IterKind::Spatial});
  }
  if (t.reduction) {
    for (const auto& ax : t.reduction->axes) {
      Expr loopVar = ir::Var::make(ax->name, ir::DataType::int32());
      Expr iterVar = ir::Var::make("v_" + ax->name, ir::DataType::int32());
      subst.map[ax->var.get()] = iterVar;
      loopVars.push_back(loopVar);
      loopBounds.emplace_back(ax->min, ax->extent);
      iterVars.push_back(ir::IterVar{iterVar, ir::Range::fromMinExtent(ax->min, ax->extent), ir::IterKind::Reduce});
    }
  }
  std::vector<Expr> outIndices;
  for (std::size_t d = 0; d < t.params.size(); ++d) outIndices.push_back(iterVars[d].var);
  std::vector<ir::Range> writeRange;
  for (const auto& i : outIndices) writeRange.push_back(ir::Range::fromMinExtent(i, ir::intImm(1)));
  const ir::Buffer& out = dest.buffer;
  std::vector<ir::BufferRegion> writes{ir::BufferRegion{out, writeRange}};

  ir::Stmt body, init;
  std::vector<ir::BufferRegion> reads;
  if (t.reduction) {
    Expr source = subst.mutate(t.reduction->source);
    reads = readRegions(source);
    Expr acc = ir::BufferLoad::make(out, outIndices);
    Expr combined = t.reduction->combiner == Combiner::Sum   ? ir::Add::make(acc, source)
                    : t.reduction->combiner == Combiner::Max ? ir::Max::make(acc, source)
                                                             : ir::Min::make(acc, source);
    body = ir::BufferStore::make(out, combined, outIndices);
    init = ir::BufferStore::make(out, identity(t.reduction->combiner, out->dtype), outIndices);
  } else {
    Expr value = subst.mutate(t.body);
    reads = readRegions(value);
    body = ir::BufferStore::make(out, value, outIndices);
  }
  ir::Annotations attrs = t.attrs;
  for (const auto& [key, value] : dest.attrs) attrs.emplace(key, value);
  ir::Stmt block = ir::Block::make(t.name, iterVars, std::move(reads), std::move(writes), body, init, {}, std::move(attrs));
  ir::Stmt stmt = ir::BlockRealize::make(loopVars, ir::boolImm(true), block);
  for (std::size_t k = loopVars.size(); k-- > 0;)
    stmt = ir::For::make(loopVars[k], loopBounds[k].first, loopBounds[k].second, ir::ForKind::Serial, stmt);
  return stmt;
}

} // namespace

Expected<ir::PrimFunc> lowerTe(const TeProgram& program) {
  ir::PrimFunc func;
  func.name = "main";
  std::vector<ir::Buffer> allocs;
  for (const auto& t : program.tensors)
    if (!t->isCompute && t->scanOwner.empty()) func.params.push_back(t->buffer);
  for (const auto& t : program.outputs) func.params.push_back(t->buffer);
  std::vector<ir::Stmt> nests;
  for (const auto& t : program.tensors) {
    if (!t->isCompute || !t->scanOwner.empty()) continue; // a scan's parts are lowered with the scan
    bool isOutput = false;
    for (const auto& o : program.outputs) isOutput = isOutput || o == t;
    if (!isOutput) allocs.push_back(t->buffer);
    if (!t->scan) {
      nests.push_back(lowerCompute(*t, Destination{t->buffer, {}, {}, {}}));
      continue;
    }
    // A scan: the init block writes steps [0, k), the update block steps [k, m).
    const ScanInfo& scan = *t->scan;
    nests.push_back(lowerCompute(*scan.init, Destination{t->buffer, {}, {}, t->attrs}));
    nests.push_back(lowerCompute(*scan.update, Destination{t->buffer, ir::intImm(scan.initSteps), scan.state->buffer, t->attrs}));
  }
  if (nests.empty())
    return std::unexpected(Diagnostic::error("te.empty-program", "the program defines no compute: nothing to lower"));
  ir::Stmt root = ir::Block::make("root", {}, {}, {}, ir::SeqStmt::make(std::move(nests)), {}, std::move(allocs));
  func.body = ir::BlockRealize::make({}, ir::boolImm(true), root);
  func.attrs["tir.noalias"] = ir::boolImm(true);
  return func;
}

} // namespace loopscape::frontend
