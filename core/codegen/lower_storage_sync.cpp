#include "core/codegen/lower_storage_sync.h"

#include "core/codegen/lowered_func.h"
#include "core/ir/visitor.h"

#include <algorithm>
#include <set>

namespace loopscape::codegen {

using namespace ir;

namespace {

using BufferSet = std::set<const BufferNode*>;

/// Shared accesses of a statement: by every thread, or by one thread only (inside the
/// guard `threadIdx_x == 0 && ...` over every threadIdx tag, lower_gpu.h's guard).
struct Accesses {
  BufferSet reads, writes;             ///< by (possibly) every thread
  BufferSet singleReads, singleWrites; ///< by the block's thread 0 only

  void add(const Accesses& o) {
    reads.insert(o.reads.begin(), o.reads.end());
    writes.insert(o.writes.begin(), o.writes.end());
    singleReads.insert(o.singleReads.begin(), o.singleReads.end());
    singleWrites.insert(o.singleWrites.begin(), o.singleWrites.end());
  }
};

bool intersects(const BufferSet& a, const BufferSet& b) {
  return std::any_of(a.begin(), a.end(), [&](const BufferNode* x) { return b.contains(x); });
}

/// Whether `later` may read or write what another thread accessed in `earlier` (one
/// thread's own accesses are ordered without a barrier).
bool conflicts(const Accesses& earlier, const Accesses& later) {
  return intersects(later.reads, earlier.writes) || intersects(later.reads, earlier.singleWrites) ||
         intersects(later.singleReads, earlier.writes) || intersects(later.writes, earlier.reads) ||
         intersects(later.writes, earlier.singleReads) || intersects(later.singleWrites, earlier.reads) ||
         intersects(later.writes, earlier.singleWrites) || intersects(later.singleWrites, earlier.writes);
}

/// Whether `cond` is `v == 0 && ...` over every var of `threads` (and maybe more).
bool isSingleThreadGuard(const Expr& cond, const std::vector<const ExprNode*>& threads) {
  std::set<const ExprNode*> zero;
  std::vector<Expr> todo{cond};
  while (!todo.empty()) {
    Expr e = todo.back();
    todo.pop_back();
    if (auto* a = e.as<And>()) {
      todo.push_back(a->a);
      todo.push_back(a->b);
      continue;
    }
    if (auto* eq = e.as<EQ>()) {
      auto* zeroImm = eq->b.as<IntImm>();
      if (eq->a.is<Var>() && zeroImm && zeroImm->value == 0) zero.insert(eq->a.get());
    }
  }
  return !threads.empty() &&
         std::all_of(threads.begin(), threads.end(), [&](const ExprNode* v) { return zero.contains(v); });
}

/// The shared buffers `s` reads and writes anywhere inside it.
Accesses sharedAccesses(const Stmt& s, const std::vector<const ExprNode*>& threads) {
  class Collect final : public StmtVisitor {
  public:
    explicit Collect(const std::vector<const ExprNode*>& t) : m_threads(t) {}
    Accesses out;

  protected:
    void visitBufferLoad(const BufferLoad& op, const Expr& self) override {
      if (op.buffer->scope == MemoryScope::Shared) (m_single ? out.singleReads : out.reads).insert(op.buffer.get());
      ExprVisitor::visitBufferLoad(op, self);
    }
    void visitBufferStore(const BufferStore& op, const Stmt& self) override {
      if (op.buffer->scope == MemoryScope::Shared) (m_single ? out.singleWrites : out.writes).insert(op.buffer.get());
      StmtVisitor::visitBufferStore(op, self);
    }
    void visitIfThenElse(const IfThenElse& op, const Stmt&) override {
      visitExpr(op.condition);
      const int guard = isSingleThreadGuard(op.condition, m_threads) ? 1 : 0;
      m_single += guard;
      visitStmt(op.thenCase);
      m_single -= guard;
      if (op.elseCase.defined()) visitStmt(op.elseCase);
    }

  private:
    const std::vector<const ExprNode*>& m_threads;
    int m_single = 0;
  } collect(threads);
  collect(s);
  return collect.out;
}

class Sync {
public:
  explicit Sync(std::vector<const ExprNode*> threads) : m_threads(std::move(threads)) {}

  Stmt sync(const Stmt& s) {
    switch (s.kind()) {
    case StmtKind::SeqStmt: return syncSeq(s.as<SeqStmt>()->seq);
    case StmtKind::For: {
      const For& f = *s.as<For>();
      Stmt body = sync(f.body);
      // The next iteration may write what another thread still reads (or the reverse).
      const Accesses a = sharedAccesses(body, m_threads);
      if (conflicts(a, a) && !endsWithBarrier(body)) body = SeqStmt::make({body, makeBarrier()});
      if (body.sameAs(f.body)) return s;
      return For::make(f.loopVar, f.min, f.extent, f.forKind, body, f.threadTag, f.annotations);
    }
    case StmtKind::LetStmt: {
      const LetStmt& l = *s.as<LetStmt>();
      Stmt body = sync(l.body);
      return body.sameAs(l.body) ? s : LetStmt::make(l.var, l.value, body);
    }
    case StmtKind::Allocate: {
      const Allocate& a = *s.as<Allocate>();
      Stmt body = sync(a.body);
      return body.sameAs(a.body) ? s : Allocate::make(a.buffer, body);
    }
    // Not inside a condition: some threads would not reach the barrier.
    case StmtKind::IfThenElse:
    case StmtKind::BufferStore:
    case StmtKind::Evaluate:
    case StmtKind::Assume:
    case StmtKind::Block:
    case StmtKind::BlockRealize: return s;
    }
    return s;
  }

private:
  static bool endsWithBarrier(const Stmt& s) {
    auto* seq = s.as<SeqStmt>();
    return seq ? isBarrier(seq->seq.back()) : isBarrier(s);
  }

  Stmt syncSeq(const std::vector<Stmt>& children) {
    std::vector<Stmt> out;
    Accesses since; // since the last barrier
    for (const Stmt& child : children) {
      Stmt c = sync(child);
      if (isBarrier(c)) {
        since = {};
        out.push_back(c);
        continue;
      }
      const Accesses a = sharedAccesses(c, m_threads);
      if (conflicts(since, a)) {
        out.push_back(makeBarrier());
        since = {};
      }
      since.add(a);
      out.push_back(std::move(c));
    }
    return SeqStmt::make(std::move(out));
  }

  std::vector<const ExprNode*> m_threads;
};

} // namespace

Stmt makeBarrier() { return Evaluate::make(StringImm::make(std::string(kBarrierMarker))); }

bool isBarrier(const Stmt& s) {
  auto* e = s.as<Evaluate>();
  if (!e) return false;
  auto* str = e->value.as<StringImm>();
  return str && str->value == kBarrierMarker;
}

Stmt insertSharedBarriers(const Stmt& kernelBody, const GpuKernel& kernel) {
  std::vector<const ExprNode*> threads;
  for (const ThreadAxis& a : kernel.axes)
    if (a.tag.starts_with("threadIdx")) threads.push_back(a.var.get());
  return Sync(std::move(threads)).sync(kernelBody);
}

} // namespace loopscape::codegen
