#include "core/codegen/lower_unswitch.h"

#include "core/codegen/lower_unroll.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/simplify.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <utility>

namespace loopscape::codegen {

using namespace ir;

namespace {

/// An Unrolled loop whose extent is not a constant, waiting for its version test.
struct Pending {
  Expr var; ///< the loop's variable (each loop has its own)
  Expr extent;
  std::int64_t full = 0; ///< the extent's constant upper bound
  std::string loop;
};

/// `s` with the Unrolled loops of `pending` at their full extent (`full`) or
/// serial (!full).
class Rewrite final : public StmtMutator {
public:
  Rewrite(const std::vector<Pending>& pending, bool full) : m_pending(pending), m_full(full) {}

protected:
  Stmt visitFor(const For& op, const Stmt& self) override {
    Stmt body = mutate(op.body);
    if (op.forKind == ForKind::Unrolled)
      for (const auto& p : m_pending)
        if (op.loopVar.sameAs(p.var))
          return m_full ? For::make(op.loopVar, op.min, intImm(p.full, op.extent.dtype()), op.forKind, body,
                                    op.threadTag, op.annotations)
                        : For::make(op.loopVar, op.min, op.extent, ForKind::Serial, body, op.threadTag, op.annotations);
    return body.sameAs(op.body)
               ? self
               : For::make(op.loopVar, op.min, op.extent, op.forKind, body, op.threadTag, op.annotations);
  }

private:
  const std::vector<Pending>& m_pending;
  bool m_full;
};

class Versioner final : public StmtMutator {
public:
  explicit Versioner(std::vector<Remark>& remarks) : m_remarks(remarks) {}

  /// `s` with its pending loops versioned at the top.
  Stmt finish(const Stmt& s) { return resolve(s, std::exchange(m_pending, {})); }

protected:
  Stmt visitFor(const For& op, const Stmt& self) override {
    auto outer = std::exchange(m_pending, {});
    m_an.bind(op.loopVar, Range{op.min, op.extent});
    Stmt body = mutate(op.body);
    m_an.unbind(op.loopVar);
    const bool barrier = op.forKind != ForKind::Serial && op.forKind != ForKind::Unrolled;
    body = resolveIf(body, [&](const Pending& p) { return barrier || usesVar(p.extent, op.loopVar); });
    if (!m_pending.empty() && countLoweredStatements(body) >= kMaxVersionedStatements)
      body = resolve(body, std::exchange(m_pending, {}));
    Stmt out = body.sameAs(op.body)
                   ? self
                   : For::make(op.loopVar, op.min, op.extent, op.forKind, body, op.threadTag, op.annotations);
    if (op.forKind == ForKind::Unrolled && !asConstInt(op.extent)) {
      const IntBound b = m_an.bound(op.extent);
      if (b.max && *b.max >= 2 && (!b.min || *b.min < *b.max))
        m_pending.push_back({op.loopVar, op.extent, *b.max, op.loopVar.as<Var>()->name});
    }
    outer.insert(outer.end(), m_pending.begin(), m_pending.end());
    m_pending = std::move(outer);
    return out;
  }

  Stmt visitLetStmt(const LetStmt& op, const Stmt& self) override {
    auto outer = std::exchange(m_pending, {});
    Expr value = mutate(op.value);
    if (op.var.dtype().isInteger() && op.var.dtype().isScalar()) m_an.bindBound(op.var, m_an.bound(value));
    Stmt body = mutate(op.body);
    m_an.unbind(op.var);
    body = resolveIf(body, [&](const Pending& p) { return usesVar(p.extent, op.var); });
    outer.insert(outer.end(), m_pending.begin(), m_pending.end());
    m_pending = std::move(outer);
    return value.sameAs(op.value) && body.sameAs(op.body) ? self : LetStmt::make(op.var, value, body);
  }

  /// Statements of a sequence each keep their own test when more than one has one.
  Stmt visitSeqStmt(const SeqStmt& op, const Stmt& self) override {
    auto outer = std::exchange(m_pending, {});
    std::vector<Stmt> items;
    std::vector<std::vector<Pending>> pending;
    bool changed = false;
    for (const auto& s : op.seq) {
      items.push_back(mutate(s));
      changed = changed || !items.back().sameAs(s);
      pending.push_back(std::exchange(m_pending, {}));
    }
    const auto withTests = std::count_if(pending.begin(), pending.end(), [](const auto& p) { return !p.empty(); });
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (pending[i].empty()) continue;
      if (withTests > 1) {
        items[i] = resolve(items[i], std::move(pending[i]));
        changed = true;
      } else {
        m_pending = std::move(pending[i]);
      }
    }
    outer.insert(outer.end(), m_pending.begin(), m_pending.end());
    m_pending = std::move(outer);
    return changed ? SeqStmt::make(std::move(items)) : self;
  }

  Stmt visitIfThenElse(const IfThenElse& op, const Stmt& self) override {
    auto outer = std::exchange(m_pending, {});
    Expr cond = mutate(op.condition);
    Stmt then = mutate(op.thenCase);
    auto thenPending = std::exchange(m_pending, {});
    Stmt other = mutate(op.elseCase);
    if (!thenPending.empty() && !m_pending.empty()) {
      then = resolve(then, std::move(thenPending));
      other = resolve(other, std::exchange(m_pending, {}));
    } else if (!thenPending.empty()) {
      m_pending = std::move(thenPending);
    }
    outer.insert(outer.end(), m_pending.begin(), m_pending.end());
    m_pending = std::move(outer);
    return cond.sameAs(op.condition) && then.sameAs(op.thenCase) && other.sameAs(op.elseCase)
               ? self
               : IfThenElse::make(cond, then, other);
  }

private:
  template <typename Pred> Stmt resolveIf(const Stmt& s, Pred&& here) {
    std::vector<Pending> now, later;
    for (auto& p : m_pending)
      (here(p) ? now : later).push_back(std::move(p));
    m_pending = std::move(later);
    return resolve(s, std::move(now));
  }

  Stmt resolve(const Stmt& s, std::vector<Pending> pending) {
    if (pending.empty()) return s;
    Expr test;
    for (const auto& p : pending) {
      Expr eq = p.extent == intImm(p.full, p.extent.dtype());
      test = test.defined() ? (test && eq) : eq;
      m_remarks.push_back({p.loop, fmt::format("unrolled by {} where its extent {} is {} (whole tiles), a "
                                               "serial loop where it is less (a partial tile)",
                                               p.full, printExpr(p.extent), p.full)});
    }
    return IfThenElse::make(test, Rewrite(pending, true).mutate(s), Rewrite(pending, false).mutate(s));
  }

  Analyzer m_an;
  std::vector<Pending> m_pending;
  std::vector<Remark>& m_remarks;
};

} // namespace

Stmt versionPartialUnrolls(const Stmt& body, std::vector<Remark>& remarks) {
  Versioner v(remarks);
  return v.finish(v.mutate(body));
}

} // namespace loopscape::codegen
