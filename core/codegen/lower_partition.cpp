#include "core/codegen/lower_partition.h"

#include "core/codegen/lower_unroll.h"
#include "core/ir/checked_arith.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/simplify.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <set>

namespace loopscape::codegen {

using namespace ir;

namespace {

constexpr std::size_t kMaxParts = 5;
constexpr std::int64_t kMaxCopies = 9;
/// Statements the copies may add to a function in all (lower_partition.h): LLVM's GVN grows
/// faster than the code (a tuned conv layer took a minute to compile at a budget of 512).
constexpr std::int64_t kMaxAddedStatements = 128;
/// Statements of one body that may be copied: a large unrolled body (a tuned tile) costs
/// more compile time in three copies than its borders cost at run time.
constexpr std::int64_t kMaxCopiedStatements = 32;
constexpr std::size_t kMaxComparisons = 64;

/// Binds the integer value of a LetStmt to its bound, for the conditions below it.
void bindLet(Analyzer& an, const LetStmt& op) {
  if (op.var.dtype().isInteger() && op.var.dtype().isScalar()) an.bindBound(op.var, an.bound(op.value));
}

/// The comparisons on `var` in the conditions of a loop body, with the loops (and integer
/// lets) inside the body bound in the analyzer while they are collected; for each, the
/// points where the analyzer's verdict changes.
class CutFinder final : public StmtVisitor {
public:
  CutFinder(Analyzer& an, const Expr& var, std::int64_t lo, std::int64_t hi)
      : m_an(an), m_var(var), m_lo(lo), m_hi(hi) {}

  std::set<std::int64_t> cuts;
  /// Store instances in one iteration of the loop (a loop of unknown extent counts once),
  /// and those of stores with a comparison on the variable in their value or around them.
  double stores = 0, conditionalStores = 0;

protected:
  void visitFor(const For& op, const Stmt&) override {
    visitExpr(op.min);
    visitExpr(op.extent);
    m_an.bind(op.loopVar, Range::fromMinExtent(op.min, op.extent));
    const double outer = m_weight;
    if (auto extent = asConstInt(op.extent); extent && *extent > 0) m_weight *= static_cast<double>(*extent);
    visitStmt(op.body);
    m_weight = outer;
    m_an.unbind(op.loopVar);
  }
  void visitBufferStore(const BufferStore& op, const Stmt& self) override {
    const bool outer = m_compared;
    m_compared = false;
    StmtVisitor::visitBufferStore(op, self);
    stores += m_weight;
    if (m_compared || m_guards > 0) conditionalStores += m_weight;
    m_compared = outer || m_compared;
  }
  void visitLetStmt(const LetStmt& op, const Stmt&) override {
    visitExpr(op.value);
    bindLet(m_an, op);
    visitStmt(op.body);
    m_an.unbind(op.var);
  }
  void visitIfThenElse(const IfThenElse& op, const Stmt& self) override {
    const bool outer = m_compared;
    m_compared = false;
    comparisons(op.condition);
    const bool guard = m_compared;
    m_compared = outer;
    m_guards += guard;
    StmtVisitor::visitIfThenElse(op, self);
    m_guards -= guard;
  }
  void visitSelect(const Select& op, const Expr& self) override {
    comparisons(op.condition);
    StmtVisitor::visitSelect(op, self);
  }

private:
  void comparisons(const Expr& cond) {
    if (const auto* n = cond.as<And>()) return comparisons(n->a), comparisons(n->b);
    if (const auto* n = cond.as<Or>()) return comparisons(n->a), comparisons(n->b);
    if (const auto* n = cond.as<Not>()) return comparisons(n->a);
    // Orderings only: an equality (the `k == 0` guard of a reduction init) would peel one
    // iteration off every reduction loop, for a branch the processor predicts anyway.
    const bool ordering = cond.as<LT>() || cond.as<LE>() || cond.as<GT>() || cond.as<GE>();
    if (!ordering || !cond.dtype().isScalar() || !usesVar(cond, m_var)) return;
    m_compared = true;
    if (m_seen.size() >= kMaxComparisons) return;
    if (!m_seen.insert(printExpr(cond)).second) return;
    for (bool value : {true, false})
      addCuts(value ? cond : !cond);
  }

  /// `fact` proven for every value of the variable in [a, b).
  bool proven(const Expr& fact, std::int64_t a, std::int64_t b) {
    m_an.bindBound(m_var, IntBound{a, b - 1});
    const bool ok = m_an.canProve(fact);
    m_an.bindBound(m_var, IntBound{m_lo, m_hi - 1});
    return ok;
  }

  /// Where a fact that is proven on a prefix or a suffix of the range stops being proven
  /// (an affine comparison is monotone in the variable: its proven part is such an end).
  void addCuts(const Expr& fact) {
    if (proven(fact, m_lo, m_hi)) return;
    if (proven(fact, m_lo, m_lo + 1)) {
      std::int64_t good = m_lo + 1, bad = m_hi; // proven on [lo, good), not on [lo, bad)
      while (bad - good > 1) {
        const std::int64_t mid = good + (bad - good) / 2;
        (proven(fact, m_lo, mid) ? good : bad) = mid;
      }
      cuts.insert(good);
    }
    if (proven(fact, m_hi - 1, m_hi)) {
      std::int64_t good = m_hi - 1, bad = m_lo; // proven on [good, hi), not on [bad, hi)
      while (good - bad > 1) {
        const std::int64_t mid = bad + (good - bad) / 2;
        (proven(fact, mid, m_hi) ? good : bad) = mid;
      }
      cuts.insert(good);
    }
  }

  Analyzer& m_an;
  Expr m_var;
  std::int64_t m_lo, m_hi;
  std::set<std::string> m_seen;
  double m_weight = 1;     ///< product of the extents of the loops around, inside the body
  bool m_compared = false; ///< a comparison on the variable seen in the current store
  int m_guards = 0;        ///< enclosing `if`s with a comparison on the variable
};

class Partitioner final : public StmtMutator {
public:
  explicit Partitioner(std::vector<Remark>& remarks) : m_remarks(remarks) {}
  bool changed = false;

protected:
  Stmt visitFor(const For& op, const Stmt& self) override {
    const auto lo = asConstInt(op.min), extent = asConstInt(op.extent);
    if (op.forKind == ForKind::Serial && lo && extent && *extent >= 2) {
      const auto hi = checkedAdd(*lo, *extent);
      if (hi) {
        m_an.bindBound(op.loopVar, IntBound{*lo, *hi - 1});
        CutFinder finder(m_an, op.loopVar, *lo, *hi);
        finder(op.body);
        m_an.unbind(op.loopVar);
        std::vector<std::int64_t> bounds{*lo};
        bounds.insert(bounds.end(), finder.cuts.begin(), finder.cuts.end());
        bounds.push_back(*hi);
        // Only where the conditions are in most of the work: a loop around a small padded
        // copy (a padding stage computed at a tile) and a large unconditional nest would
        // copy the nest for little gain.
        const bool mostlyConditional = finder.conditionalStores * 2 >= finder.stores;
        if (const std::size_t parts = bounds.size() - 1; parts >= 2 && mostlyConditional && worthCopying(op, parts))
          return partition(op, bounds);
      }
    }
    m_an.bind(op.loopVar, Range::fromMinExtent(op.min, op.extent));
    Stmt body = mutate(op.body);
    m_an.unbind(op.loopVar);
    if (body.sameAs(op.body)) return self;
    return For::make(op.loopVar, op.min, op.extent, op.forKind, body, op.threadTag, op.annotations);
  }

  Stmt visitLetStmt(const LetStmt& op, const Stmt& self) override {
    bindLet(m_an, op);
    Stmt body = mutate(op.body);
    m_an.unbind(op.var);
    if (body.sameAs(op.body)) return self;
    return LetStmt::make(op.var, op.value, body);
  }

private:
  bool worthCopying(const For& op, std::size_t parts) {
    const auto n = static_cast<std::int64_t>(parts);
    if (parts > kMaxParts || m_copies * n > kMaxCopies) return false;
    const std::int64_t statements = countLoweredStatements(op.body);
    if (statements > kMaxCopiedStatements) return false;
    const auto added = checkedMul(statements, n - 1);
    if (!added || *added > m_budget) return false;
    m_budget -= *added;
    return true;
  }

  /// Consecutive loops over [bounds[k], bounds[k + 1]), each body partitioned in turn
  /// with the variable bound to its part.
  Stmt partition(const For& op, const std::vector<std::int64_t>& bounds) {
    changed = true;
    const std::int64_t outerCopies = m_copies;
    m_copies *= static_cast<std::int64_t>(bounds.size() - 1);
    std::vector<Stmt> loops;
    std::string parts;
    for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
      const DataType t = op.loopVar.dtype();
      m_an.bindBound(op.loopVar, IntBound{bounds[k], bounds[k + 1] - 1});
      Stmt body = mutate(op.body);
      m_an.unbind(op.loopVar);
      loops.push_back(For::make(op.loopVar, intImm(bounds[k], t), intImm(bounds[k + 1] - bounds[k], t), op.forKind,
                                body, op.threadTag, op.annotations));
      parts += fmt::format("{}[{}, {})", k ? ", " : "", bounds[k], bounds[k + 1]);
    }
    m_copies = outerCopies;
    m_remarks.push_back(
        {op.loopVar.as<Var>()->name, "partitioned into " + parts +
                                         ": each part decides conditions on the loop (padding, borders) "
                                         "that the whole range leaves to every iteration"});
    return SeqStmt::make(std::move(loops));
  }

  Analyzer m_an;
  std::int64_t m_copies = 1;
  std::int64_t m_budget = kMaxAddedStatements;
  std::vector<Remark>& m_remarks;
};

} // namespace

Stmt partitionLoops(const Stmt& body, std::vector<Remark>& remarks) {
  Partitioner partitioner(remarks);
  Stmt out = partitioner.mutate(body);
  return partitioner.changed ? simplify(out) : out;
}

} // namespace loopscape::codegen
