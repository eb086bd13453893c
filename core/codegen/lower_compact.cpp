#include "core/codegen/lower_compact.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/simplify.h"
#include "core/ir/simplify_detail.h"
#include "core/ir/visitor.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace loopscape::codegen {

using namespace ir;

namespace {

struct Access {
  std::vector<Expr> indices;
  std::vector<const For*> loops; ///< around the access, outermost first
};

/// Every load and store of one buffer, with its loops.
class CollectAccesses final : public StmtVisitor {
public:
  explicit CollectAccesses(const BufferNode* buffer) : m_buffer(buffer) {}
  std::vector<Access> accesses;

protected:
  void visitFor(const For& op, const Stmt& self) override {
    m_loops.push_back(&op);
    StmtVisitor::visitFor(op, self);
    m_loops.pop_back();
  }
  void visitBufferLoad(const BufferLoad& op, const Expr& self) override {
    if (op.buffer.get() == m_buffer) accesses.push_back({op.indices, m_loops});
    ExprVisitor::visitBufferLoad(op, self);
  }
  void visitBufferStore(const BufferStore& op, const Stmt& self) override {
    if (op.buffer.get() == m_buffer) accesses.push_back({op.indices, m_loops});
    StmtVisitor::visitBufferStore(op, self);
  }

private:
  const BufferNode* m_buffer;
  std::vector<const For*> m_loops;
};

using Base = std::vector<std::pair<const ExprNode*, std::int64_t>>; ///< sorted (var, coefficient)

/// The compacted layout of one buffer: per dimension the offset subtracted and the extent.
struct Compaction {
  std::vector<Expr> offset;
  std::vector<std::int64_t> extent;
};

std::optional<Compaction> compaction(const Buffer& buffer, const Stmt& scope, const GpuKernel& kernel) {
  CollectAccesses collect(buffer.get());
  collect(scope);
  if (collect.accesses.empty()) return std::nullopt;
  // The loops around every access.
  std::size_t common = collect.accesses.front().loops.size();
  for (const Access& a : collect.accesses) {
    std::size_t n = 0;
    const auto& first = collect.accesses.front().loops;
    while (n < common && n < a.loops.size() && a.loops[n] == first[n])
      ++n;
    common = n;
  }
  const bool shared = buffer->scope == MemoryScope::Shared;
  Compaction out;
  for (std::size_t d = 0; d < buffer->ndim(); ++d) {
    std::optional<Base> base;
    Expr baseExpr;
    std::int64_t lo = 0, hi = 0;
    for (std::size_t ai = 0; ai < collect.accesses.size(); ++ai) {
      const Access& a = collect.accesses[ai];
      Analyzer analyzer;
      std::set<const ExprNode*> inner;
      for (std::size_t l = common; l < a.loops.size(); ++l) {
        const For& f = *a.loops[l];
        if (!f.min.is<IntImm>() || !f.extent.is<IntImm>()) return std::nullopt;
        analyzer.bind(f.loopVar, Range::fromMinExtent(f.min, f.extent));
        inner.insert(f.loopVar.get());
      }
      if (shared)
        for (const ThreadAxis& t : kernel.axes)
          if (t.tag.starts_with("threadIdx")) {
            const std::int64_t ext = kernel.block[t.tag.back() - 'x'];
            analyzer.bind(t.var, Range::fromMinExtent(intImm(0), intImm(ext)));
            inner.insert(t.var.get());
          }
      const Expr index = simplify(a.indices[d]);
      if (!index.dtype().isInt() || !index.dtype().isScalar()) return std::nullopt;
      ir::detail::LinearSum sum = ir::detail::linearOf(index);
      ir::detail::LinearSum rest(sum.dtype);
      rest.addConst(sum.constant);
      Base b;
      for (const auto& t : sum.terms) {
        if (t.term.is<Var>() && !inner.contains(t.term.get())) {
          b.emplace_back(t.term.get(), t.coef);
          continue;
        }
        rest.addTerm(t.term, t.coef);
      }
      const Expr restExpr = ir::detail::buildLinear(rest);
      bool outerInRest = false;
      forEachExpr(restExpr,
                  [&](const Expr& e) { outerInRest = outerInRest || (e.is<Var>() && !inner.contains(e.get())); });
      if (outerInRest) return std::nullopt;
      const IntBound bound = analyzer.bound(restExpr);
      if (!bound.min || !bound.max) return std::nullopt;
      std::sort(b.begin(), b.end());
      if (!base) {
        base = b;
        ir::detail::LinearSum baseSum(sum.dtype);
        for (const auto& t : sum.terms)
          if (t.term.is<Var>() && !inner.contains(t.term.get())) baseSum.addTerm(t.term, t.coef);
        baseExpr = baseSum.isConst() ? Expr() : ir::detail::buildLinear(baseSum);
        lo = *bound.min;
        hi = *bound.max;
      } else {
        if (*base != b) return std::nullopt;
        lo = std::min(lo, *bound.min);
        hi = std::max(hi, *bound.max);
      }
    }
    auto* shape = buffer->shape[d].as<IntImm>();
    if (!shape) return std::nullopt;
    const __int128 span = static_cast<__int128>(hi) - lo + 1;
    if (lo > hi || span >= shape->value) {
      out.offset.push_back(Expr()); // this dimension stays
      out.extent.push_back(shape->value);
      continue;
    }
    Expr off = baseExpr.defined() ? baseExpr + lo : Expr(intImm(lo, buffer->shape[d].dtype()));
    out.offset.push_back(off);
    out.extent.push_back(hi - lo + 1);
  }
  if (std::all_of(out.offset.begin(), out.offset.end(), [](const Expr& e) { return !e.defined(); }))
    return std::nullopt;
  return out;
}

/// Re-indexes the accesses of one buffer into its compacted copy.
class Reindex final : public StmtMutator {
public:
  Reindex(const BufferNode* from, Buffer to, const Compaction& c) : m_from(from), m_to(std::move(to)), m_c(c) {}

protected:
  std::vector<Expr> shift(const std::vector<Expr>& indices) {
    std::vector<Expr> out;
    for (std::size_t d = 0; d < indices.size(); ++d) {
      Expr i = mutate(indices[d]);
      if (m_c.offset[d].defined()) {
        Expr off = m_c.offset[d];
        if (off.dtype() != i.dtype()) off = Cast::make(i.dtype(), off);
        i = simplify(i - off);
      }
      out.push_back(i);
    }
    return out;
  }
  Expr visitBufferLoad(const BufferLoad& op, const Expr& self) override {
    if (op.buffer.get() != m_from) return ExprMutator::visitBufferLoad(op, self);
    return BufferLoad::make(m_to, shift(op.indices));
  }
  Stmt visitBufferStore(const BufferStore& op, const Stmt& self) override {
    if (op.buffer.get() != m_from) return StmtMutator::visitBufferStore(op, self);
    return BufferStore::make(m_to, mutate(op.value), shift(op.indices));
  }

private:
  const BufferNode* m_from;
  Buffer m_to;
  const Compaction& m_c;
};

class CompactAll final : public StmtMutator {
public:
  explicit CompactAll(const GpuKernel& kernel) : m_kernel(kernel) {}

protected:
  Stmt visitAllocate(const Allocate& op, const Stmt& self) override {
    Stmt body = mutate(op.body);
    if (op.buffer->scope == MemoryScope::Global || !op.buffer->strides.empty())
      return body.sameAs(op.body) ? self : Allocate::make(op.buffer, body);
    auto c = compaction(op.buffer, body, m_kernel);
    if (!c) return body.sameAs(op.body) ? self : Allocate::make(op.buffer, body);
    std::vector<Expr> shape;
    for (std::size_t d = 0; d < c->extent.size(); ++d)
      shape.push_back(intImm(c->extent[d], op.buffer->shape[d].dtype()));
    Buffer compact = makeBuffer(op.buffer->name, op.buffer->dtype, shape, op.buffer->scope);
    return Allocate::make(compact, Reindex(op.buffer.get(), compact, *c).mutate(body));
  }

private:
  const GpuKernel& m_kernel;
};

} // namespace

Stmt compactOnChipBuffers(const Stmt& kernelBody, const GpuKernel& kernel) {
  return CompactAll(kernel).mutate(kernelBody);
}

} // namespace loopscape::codegen
