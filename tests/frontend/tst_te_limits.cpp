// Limits of the .te front end on inputs that crashed or hung the tool: expressions are
// DAGs (`x = x + x` shares its operand) but everything downstream walks them as trees,
// so an expression whose expanded tree passes ir::resourceLimits().maxExpressionNodes,
// or whose height passes syntax::maxExpressionHeight(), is refused where it is built,
// with its location; so are shapes with more dimensions than maxNestingDepth and lambda
// calls that stack expressions too deep. Inputs are generated here, not stored.
#include "core/frontend/te_frontend.h"
#include "core/ir/printer.h"
#include "core/ir/resource_limits.h"

#include <QtTest>

#include <string>

using namespace loopscape;

namespace {

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

/// "code line:column message", or "parsed".
QString outcome(const std::string& source) {
  auto f = frontend::parseTe(source, "t.te");
  if (f) return QStringLiteral("parsed");
  const Diagnostic& d = f.error();
  return QString::fromStdString(d.code + " " + std::to_string(d.location.line) + ":" +
                                std::to_string(d.location.column) + " " + d.message);
}

const std::string kA = "A = placeholder((4,), \"float32\", name=\"A\")\n";
const std::string kUse = "B = compute((4,), lambda i: x, name=\"B\")\n";

QString tooLarge(int line, int column, long long nodes, long long limit = 1'000'000) {
  return QStringLiteral("te.too-large %1:%2 this expression has %3 nodes once expanded, more than the limit of %4: a "
                        "value used several times is copied into every use; compute it once as a tensor of its own "
                        "and read that instead")
      .arg(line)
      .arg(column)
      .arg(nodes)
      .arg(limit);
}

struct LimitsGuard {
  ir::ResourceLimits saved = ir::resourceLimits();
  ~LimitsGuard() { ir::setResourceLimits(saved); }
};

} // namespace

class TstTeLimits : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void doublingIsRefusedWhereItPassesTheLimit() {
    // x = A[0] (2 nodes), then x = x + x thirty times: 3 * 2^k - 1 nodes after k steps;
    // the 19th step (line 21) passes a million.
    QCOMPARE(outcome(kA + "x = A[0]\n" + repeat("x = x + x\n", 30) + kUse), tooLarge(21, 5, 3 * (1 << 19) - 1));
    QCOMPARE(outcome(kA + "x = A[0]\n" + repeat("x += x\n", 30) + kUse), tooLarge(21, 1, 3 * (1 << 19) - 1));
    // Ten steps (3071 nodes) are fine and lower.
    QCOMPARE(outcome(kA + "x = A[0]\n" + repeat("x = x + x\n", 10) + kUse), QStringLiteral("parsed"));
  }

  void symbolicSizesAreRefusedToo() {
    const std::string source = "n = var(\"n\")\nA = placeholder((n,), \"float32\", name=\"A\")\ns = n\n" +
                               repeat("s = s + s * n\n", 30) + "B = compute((s,), lambda i: A[0], name=\"B\")\n";
    // s_k has 2^(k+2) - 3 nodes; s_18 (line 21) is the first past a million.
    QCOMPARE(outcome(source), tooLarge(21, 5, (1 << 20) - 3));
  }

  void theLimitIsConfigurable() {
    LimitsGuard guard;
    ir::ResourceLimits small = ir::resourceLimits();
    small.maxExpressionNodes = 100;
    ir::setResourceLimits(small);
    QCOMPARE(outcome(kA + "x = A[0]\n" + repeat("x = x + x\n", 30) + kUse), tooLarge(8, 5, 3 * (1 << 6) - 1, 100));
  }

  void longStatementChainsAreBounded() {
    // Each statement adds a level: A[0] is 2 high, so the 999th addition passes 1000.
    QCOMPARE(outcome(kA + "x = A[0]\n" + repeat("x = x + 1.0\n", 1500) + kUse),
             QStringLiteral("te.too-deep 1001:5 expression nested more than 1000 levels deep; compute part of it as a "
                            "tensor of its own"));
  }

  void lambdaCallsAreBounded() {
    // Each lambda negates the next one's result ten times: eleven levels per call, so the
    // 23rd call passes 250 levels (maxNestingDepth + 50) although no expression is deep.
    std::string source = kA + "f0 = lambda v: v\n";
    for (int j = 1; j < 40; ++j)
      source += "f" + std::to_string(j) + " = lambda v: " + repeat("-", 10) + "f" + std::to_string(j - 1) + "(v)\n";
    source += "B = compute((4,), lambda i: f39(A[i]), name=\"B\")\n";
    QCOMPARE(outcome(source).section(' ', 2),
             QStringLiteral("lambda calls nest this expression more than 250 levels deep"));
    // The same 20 calls deep are fine.
    source = kA + "f0 = lambda v: v\n";
    for (int j = 1; j < 20; ++j)
      source += "f" + std::to_string(j) + " = lambda v: " + repeat("-", 10) + "f" + std::to_string(j - 1) + "(v)\n";
    source += "B = compute((4,), lambda i: f19(A[i]), name=\"B\")\n";
    QCOMPARE(outcome(source), QStringLiteral("parsed"));
  }

  void longChainsEvaluateWithoutRecursion() {
    // 400-term sums and 'or' chains, and 400 chained calls, are evaluated in loops (eval
    // recursion, bounded at 250 levels, follows the nesting only).
    QCOMPARE(outcome(kA + "B = compute((4,), lambda i: A[i]" + repeat(" + A[i]", 399) + ", name=\"B\")\n"),
             QStringLiteral("parsed"));
    QCOMPARE(outcome(kA + "c = 0" + repeat(" or 0", 399) + "\nB = compute((4,), lambda i: A[i] + c, name=\"B\")\n"),
             QStringLiteral("parsed"));
    QCOMPARE(outcome(kA + "f = lambda: f\ng = f" + repeat("()", 399) +
                     "\nB = compute((4,), lambda i: A[i], "
                     "name=\"B\")\n"),
             QStringLiteral("parsed"));
  }

  void dimensionsAreBounded() {
    const std::string ones = repeat("1, ", 3000);
    QCOMPARE(outcome("A = placeholder((" + ones + "), \"float32\", name=\"A\")\n"),
             QStringLiteral("te.too-many-dims 1:17 the shape given to placeholder() has 3000 dimensions, more than "
                            "the limit of 200 (each dimension becomes a nested loop)"));
    std::string params;
    for (int i = 0; i < 201; ++i)
      params += (i ? ", i" : "i") + std::to_string(i);
    QCOMPARE(outcome("B = compute((" + repeat("1, ", 201) + "), lambda " + params + ": 1.0, name=\"B\")\n")
                 .section(' ', 0, 1),
             QStringLiteral("te.too-many-dims 1:13"));
    // A compute with 150 dimensions and 60 reduce axes has 210 loops.
    std::string axes, names;
    for (int i = 0; i < 60; ++i) {
      axes += "k" + std::to_string(i) + " = reduce_axis((0, 2), name=\"k" + std::to_string(i) + "\")\n";
      names += (i ? ", k" : "k") + std::to_string(i);
    }
    params.clear();
    for (int i = 0; i < 150; ++i)
      params += (i ? ", i" : "i") + std::to_string(i);
    const std::string many = kA + axes + "B = compute((" + repeat("1, ", 150) + "), lambda " + params +
                             ": sum(A[k0] * 2.0, axis=[" + names + "]), name=\"B\")\n";
    QVERIFY2(outcome(many).contains(QStringLiteral("compute 'B' has 210 nested loops (dimensions and reduce axes), "
                                                   "more than the limit of 200")),
             qPrintable(outcome(many)));
  }

  void parserLimitsReachTe() {
    QCOMPARE(outcome("x = " + repeat("(", 2500) + "1" + repeat(")", 2500) + "\n"),
             QStringLiteral("te.too-deep 1:205 expression nested more than 200 levels deep"));
    QCOMPARE(outcome("x = 1" + repeat(" + 1", 100'000) + "\n"),
             QStringLiteral("te.too-deep 1:5 expression nested more than 1000 levels deep"));
  }
};

QTEST_GUILESS_MAIN(TstTeLimits)
#include "tst_te_limits.moc"
