// Limits of the shared Python-syntax parser (core/syntax/parser.h): nesting of brackets,
// operands, `not`, lambdas and conditionals is bounded by
// ir::resourceLimits().maxNestingDepth, indented blocks and elif chains too, and operator
// and call chains by maxExpressionHeight(); pathological inputs far past the limits get a
// located "too-deep" error instead of overflowing the stack (these inputs crashed the
// trace parser before the shared parser had limits).
#include "core/ir/resource_limits.h"
#include "core/syntax/parser.h"

#include <QtTest>

#include <string>

using namespace loopscape;
using namespace loopscape::syntax;

namespace {

std::string repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

/// "code line:column message" of the error parsing `source`, or "parsed".
QString outcome(const std::string& source) {
  auto m = parseModule(source, "t.py", Dialect{});
  if (m) return QStringLiteral("parsed");
  const Diagnostic& d = m.error();
  return QString::fromStdString(d.code + " " + std::to_string(d.location.line) + ":" +
                                std::to_string(d.location.column) + " " + d.message);
}

const QString kTooDeep = QStringLiteral("expression nested more than 200 levels deep");

/// Restores the process-wide limits when a test changes them.
struct LimitsGuard {
  ir::ResourceLimits saved = ir::resourceLimits();
  ~LimitsGuard() { ir::setResourceLimits(saved); }
};

} // namespace

class TstSyntaxLimits : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void deepParentheses() {
    // 2,500 nested parentheses: the 201st is one level too deep.
    QCOMPARE(outcome("x = " + repeat("(", 2500) + "1" + repeat(")", 2500) + "\n"), "syntax.too-deep 1:205 " + kTooDeep);
    // 199 parentheses around an operand: 200 levels, the limit, are accepted.
    QCOMPARE(outcome("x = " + repeat("(", 199) + "1" + repeat(")", 199) + "\n"), QStringLiteral("parsed"));
    QCOMPARE(outcome("x = " + repeat("(", 200) + "1" + repeat(")", 200) + "\n"), "syntax.too-deep 1:205 " + kTooDeep);
  }

  void deepBracketsOfEveryKind() {
    const int n = 5000;
    QCOMPARE(outcome("x = " + repeat("[", n) + repeat("]", n) + "\n"), "syntax.too-deep 1:205 " + kTooDeep);
    // The key of the 200th dictionary is the first operand 201 levels deep.
    QCOMPARE(outcome("x = " + repeat("{1: ", n) + "1" + repeat("}", n) + "\n"),
             "syntax.too-deep 1:" + QString::number(5 + 4 * 199 + 1) + " " + kTooDeep);
    QCOMPARE(outcome("x = " + repeat("f(", n) + repeat(")", n) + "\n"),
             "syntax.too-deep 1:" + QString::number(5 + 2 * 200) + " " + kTooDeep);
    QCOMPARE(outcome("x = " + repeat("a[", n) + "0" + repeat("]", n) + "\n"),
             "syntax.too-deep 1:" + QString::number(5 + 2 * 200) + " " + kTooDeep);
    QCOMPARE(outcome("x = " + repeat("[y for y in ", n) + "z" + repeat("]", n) + "\n"),
             "syntax.too-deep 1:" + QString::number(5 + 12 * 199 + 1) + " " + kTooDeep);
  }

  void deepOperators() {
    const int n = 5000;
    QCOMPARE(outcome("x = " + repeat("-", n) + "1\n"), "syntax.too-deep 1:205 " + kTooDeep);
    QCOMPARE(outcome("x = " + repeat("not ", n) + "1\n"),
             "syntax.too-deep 1:" + QString::number(5 + 4 * 200) + " " + kTooDeep);
    QCOMPARE(outcome("x = " + repeat("lambda: ", n) + "1\n"),
             "syntax.too-deep 1:" + QString::number(5 + 8 * 200) + " " + kTooDeep);
    QCOMPARE(outcome("x = " + repeat("a if b else ", n) + "1\n").section(' ', 0, 0), QStringLiteral("syntax.too-deep"));
    QCOMPARE(outcome("x = 2" + repeat(" ** 2", n) + "\n").section(' ', 2), kTooDeep);
  }

  void longOperatorChains() {
    // 100,000 terms: built without recursion, refused past maxExpressionHeight().
    QCOMPARE(maxExpressionHeight(), 1000);
    const QString tooHigh = QStringLiteral("syntax.too-deep 1:5 expression nested more than 1000 levels deep");
    QCOMPARE(outcome("x = 1" + repeat("+1", 99'999) + "\n"), tooHigh);
    QCOMPARE(outcome("x = a" + repeat(" or a", 99'999) + "\n"), tooHigh);
    QCOMPARE(outcome("x = a" + repeat(".b", 99'999) + "\n"), tooHigh);
    QCOMPARE(outcome("x = f" + repeat("(1)", 99'999) + "\n"), tooHigh);
    QCOMPARE(outcome("x = 1" + repeat("+1", 999) + "\n"), QStringLiteral("parsed"));
    // A flat comparison chain or tuple is no deeper for its length.
    QCOMPARE(outcome("x = 1" + repeat(" < 1", 99'999) + "\n"), QStringLiteral("parsed"));
    QCOMPARE(outcome("x = 1" + repeat(", 1", 99'999) + "\n"), QStringLiteral("parsed"));
  }

  void deepBlocks() {
    std::string nested;
    for (int i = 0; i < 300; ++i)
      nested += std::string(static_cast<std::size_t>(i), ' ') + "if x:\n";
    nested += std::string(300, ' ') + "pass\n";
    QCOMPARE(outcome(nested),
             QStringLiteral("syntax.too-deep 201:205 blocks nested more than 200 levels deep (an 'elif' counts as one "
                            "level)"));
    const std::string elifs = "if x:\n  pass\n" + repeat("elif x:\n  pass\n", 5000);
    QCOMPARE(outcome(elifs).section(' ', 0, 0), QStringLiteral("syntax.too-deep"));
    QCOMPARE(outcome("if x:\n  pass\n" + repeat("elif x:\n  pass\n", 150) + "else:\n  pass\n"),
             QStringLiteral("parsed"));
  }

  void limitsComeFromResourceLimits() {
    LimitsGuard guard;
    ir::ResourceLimits small = ir::resourceLimits();
    small.maxNestingDepth = 10;
    ir::setResourceLimits(small);
    QCOMPARE(maxExpressionHeight(), 50);
    QCOMPARE(outcome("x = " + repeat("(", 9) + "1" + repeat(")", 9) + "\n"), QStringLiteral("parsed"));
    QCOMPARE(outcome("x = " + repeat("(", 10) + "1" + repeat(")", 10) + "\n"),
             QStringLiteral("syntax.too-deep 1:15 expression nested more than 10 levels deep"));
    QCOMPARE(outcome("x = 1" + repeat("+1", 49) + "\n"), QStringLiteral("parsed"));
    QCOMPARE(outcome("x = 1" + repeat("+1", 50) + "\n"),
             QStringLiteral("syntax.too-deep 1:5 expression nested more than 50 levels deep"));
  }

  void expressionInputHasTheSameLimits() {
    auto e = parseExpression(repeat("(", 2500) + "1" + repeat(")", 2500), "e.py", Dialect{});
    QVERIFY(!e);
    QCOMPARE(QString::fromStdString(e.error().code), QStringLiteral("syntax.too-deep"));
    QCOMPARE(e.error().location.column, 201);
  }
};

QTEST_GUILESS_MAIN(TstSyntaxLimits)
#include "tst_syntax_limits.moc"
