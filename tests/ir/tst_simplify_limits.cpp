// The simplifier on shared (DAG-shaped) expressions: `s = s + s * n` repeated k times is
// a DAG of 3k nodes whose tree has 2^k nodes. The work (Analyzer::lastSimplifyWork, a
// count of visits and comparisons, not a time) must grow with the DAG, the result must
// keep the value, and past its budget the simplifier must stop with an unchanged, equal
// expression. Values are checked by a memoised evaluator in wrapping 64-bit arithmetic.
#include "core/ir/resource_limits.h"
#include "core/ir/simplify.h"

#include <QtTest/QtTest>

#include <cstdint>
#include <unordered_map>

using namespace loopscape::ir;

namespace {

/// The value of an expression over + - * of int64 constants and `n` (wrapping).
std::uint64_t evaluate(const Expr& e, const Expr& n, std::uint64_t nValue,
                       std::unordered_map<const ExprNode*, std::uint64_t>& memo) {
  if (auto it = memo.find(e.get()); it != memo.end()) return it->second;
  std::uint64_t v = 0;
  if (e.sameAs(n)) {
    v = nValue;
  } else if (auto c = asConstInt(e)) {
    v = static_cast<std::uint64_t>(*c);
  } else if (const auto* add = e.as<Add>()) {
    v = evaluate(add->a, n, nValue, memo) + evaluate(add->b, n, nValue, memo);
  } else if (const auto* sub = e.as<Sub>()) {
    v = evaluate(sub->a, n, nValue, memo) - evaluate(sub->b, n, nValue, memo);
  } else if (const auto* mul = e.as<Mul>()) {
    v = evaluate(mul->a, n, nValue, memo) * evaluate(mul->b, n, nValue, memo);
  } else {
    qFatal("unexpected node in the simplified expression");
  }
  memo.emplace(e.get(), v);
  return v;
}

std::uint64_t valueAt(const Expr& e, const Expr& n, std::uint64_t nValue) {
  std::unordered_map<const ExprNode*, std::uint64_t> memo;
  return evaluate(e, n, nValue, memo);
}

/// s = n; then k times s = s + s * n.
Expr growing(const Expr& n, int k) {
  Expr s = n;
  for (int i = 0; i < k; ++i)
    s = Add::make(s, Mul::make(s, n));
  return s;
}

} // namespace

class TstSimplifyLimits : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void sharedSubexpressionsAreSimplifiedOnce() {
    const Expr n = Var::make("n", DataType::int64());
    const Expr s = growing(n, 40); // 2^41 nodes as a tree
    Analyzer an;
    const Expr r = an.simplify(s);
    // About 300,000 steps (the linear forms have up to 41 terms each), not 2^41.
    QVERIFY2(an.lastSimplifyWork() < 1'000'000, qPrintable(QString::number(an.lastSimplifyWork())));
    for (std::uint64_t v : {0u, 1u, 2u, 7u})
      QCOMPARE(valueAt(r, n, v), valueAt(s, n, v));
  }

  void doublingIsLinear() {
    // x = x + x thirty times: 2^30 leaves, one term.
    const Expr x = Var::make("x", DataType::int64());
    Expr e = x;
    for (int i = 0; i < 30; ++i)
      e = Add::make(e, e);
    Analyzer an;
    const Expr r = an.simplify(e);
    QVERIFY2(an.lastSimplifyWork() < 10'000, qPrintable(QString::number(an.lastSimplifyWork())));
    QCOMPARE(valueAt(r, x, 3), valueAt(e, x, 3));
    QVERIFY(r.as<Mul>() != nullptr); // x * 1073741824
  }

  void workIsBoundedByTheLimit() {
    const ResourceLimits saved = resourceLimits();
    ResourceLimits small = saved;
    small.maxExpressionNodes = 50; // a budget of 800 steps
    setResourceLimits(small);
    const Expr n = Var::make("n", DataType::int64());
    // Distinct terms n*1, n*2, ... so that combining them needs many comparisons.
    Expr sum = IntImm::make(DataType::int64(), 0);
    for (int i = 1; i <= 200; ++i)
      sum = Add::make(sum, Mul::make(n, Mul::make(n, IntImm::make(DataType::int64(), i))));
    Analyzer an;
    const Expr r = an.simplify(sum);
    setResourceLimits(saved);
    QVERIFY(an.lastSimplifyWork() <= 16 * 50 + 1);
    QCOMPARE(valueAt(r, n, 5), valueAt(sum, n, 5));
    // With the default budget the same sum is simplified completely.
    Analyzer full;
    const Expr done = full.simplify(sum);
    QVERIFY(!done.sameAs(sum));
    QCOMPARE(valueAt(done, n, 5), valueAt(sum, n, 5));
  }
};

QTEST_GUILESS_MAIN(TstSimplifyLimits)
#include "tst_simplify_limits.moc"
