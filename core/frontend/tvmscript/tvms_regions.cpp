// Read and write regions of a TVMScript block that leaves out T.reads / T.writes.
#include "core/frontend/tvmscript/tvms_builder.h"

#include "core/ir/structural_equal.h"
#include "core/ir/visitor.h"

#include <algorithm>

namespace loopscape::frontend::tvms {

namespace {

struct Accesses {
  struct Entry {
    ir::Buffer buffer;
    std::vector<std::vector<ir::Expr>> tuples; ///< distinct index tuples
  };
  std::vector<Entry> reads, writes;

  static void add(std::vector<Entry>& list, const ir::Buffer& b, const std::vector<ir::Expr>& idx) {
    auto it = std::find_if(list.begin(), list.end(), [&](const Entry& e) { return e.buffer.sameAs(b); });
    if (it == list.end()) {
      list.push_back({b, {}});
      it = list.end() - 1;
    }
    for (const auto& t : it->tuples)
      if (std::equal(t.begin(), t.end(), idx.begin(), idx.end(),
                     [](const ir::Expr& x, const ir::Expr& y) { return ir::structuralEqual(x, y); }))
        return;
    it->tuples.push_back(idx);
  }
};

class Collector final : public ir::StmtVisitor {
public:
  Accesses acc;

protected:
  void visitBufferLoad(const ir::BufferLoad& op, const ir::Expr& e) override {
    Accesses::add(acc.reads, op.buffer, op.indices);
    StmtVisitor::visitBufferLoad(op, e);
  }
  void visitBufferStore(const ir::BufferStore& op, const ir::Stmt& s) override {
    Accesses::add(acc.writes, op.buffer, op.indices);
    StmtVisitor::visitBufferStore(op, s);
  }
};

/// `x + c` as (x, c); `c` as (null, c); anything else as (e, 0).
std::pair<ir::Expr, std::int64_t> splitOffset(const ir::Expr& e) {
  if (auto c = ir::asConstInt(e)) return {ir::Expr{}, *c};
  if (const auto* add = e.as<ir::Add>())
    if (auto c = ir::asConstInt(add->b)) return {add->a, *c};
  return {e, 0};
}

std::vector<ir::BufferRegion> regionsOf(const std::vector<Accesses::Entry>& list) {
  std::vector<ir::BufferRegion> out;
  for (const auto& entry : list) {
    ir::BufferRegion r{entry.buffer, {}};
    for (std::size_t d = 0; d < entry.buffer->ndim(); ++d) {
      const ir::Expr& first = entry.tuples.front()[d];
      const bool same = std::all_of(entry.tuples.begin(), entry.tuples.end(),
                                    [&](const auto& t) { return ir::structuralEqual(t[d], first); });
      if (same) {
        r.region.push_back(ir::Range::fromMinExtent(first, ir::makeConst(first.dtype(), 1)));
        continue;
      }
      // The same base plus constant offsets: the hull [base + lo, base + hi].
      auto [base, lo] = splitOffset(first);
      std::int64_t hi = lo;
      bool hull = true;
      for (const auto& t : entry.tuples) {
        auto [b, c] = splitOffset(t[d]);
        if (b.defined() != base.defined() || (b.defined() && !ir::structuralEqual(b, base))) {
          hull = false;
          break;
        }
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      }
      const ir::DataType t = first.dtype();
      if (hull) {
        ir::Expr min = base.defined() ? (lo == 0 ? base : ir::Add::make(base, ir::makeConst(t, double(lo))))
                                      : ir::makeConst(t, double(lo));
        r.region.push_back(ir::Range::fromMinExtent(min, ir::makeConst(t, double(hi - lo + 1))));
      } else {
        const ir::Expr& extent = entry.buffer->shape[d];
        r.region.push_back(ir::Range::fromMinExtent(ir::makeConst(extent.dtype(), 0), extent));
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace

std::pair<std::vector<ir::BufferRegion>, std::vector<ir::BufferRegion>> inferRegions(const ir::Stmt& body,
                                                                                     const ir::Stmt& init) {
  Collector c;
  if (init) c.visitStmt(init);
  c.visitStmt(body);
  std::vector<Accesses::Entry> reads;
  for (auto& e : c.acc.reads)
    if (std::none_of(c.acc.writes.begin(), c.acc.writes.end(),
                     [&](const Accesses::Entry& w) { return w.buffer.sameAs(e.buffer); }))
      reads.push_back(e);
  return {regionsOf(reads), regionsOf(c.acc.writes)};
}

} // namespace loopscape::frontend::tvms
