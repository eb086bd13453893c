// loopscape-cli on the fuzzing campaign's depth and work reproducers (issue 13): deeply
// nested and very long trace scripts, JSON traces nested 10,000 deep or holding 1e400,
// .te programs whose shared expressions expand to billions of nodes. Each must end with
// exit status 2 and a located message, never a crash, an abort or a hang. The inputs are
// generated into a temporary directory.
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_helpers.h"

#include <string>

using loopscape::testing::runCli;
using loopscape::testing::writeFile;

namespace {

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

const char* kMatmul = "A = placeholder((8, 6), \"float32\", name=\"A\")\n"
                      "B = placeholder((6, 4), \"float32\", name=\"B\")\n"
                      "k = reduce_axis((0, 6), name=\"k\")\n"
                      "C = compute((8, 4), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";

const QString kNested = QStringLiteral("expression nested more than 200 levels deep");

} // namespace

class TestCliRobustParse : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void init() { QVERIFY(m_dir.isValid()); }

  void traces_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("firstLine"); // %1 = the trace's path
    QTest::newRow("2500 nested parentheses")
        << "parens.py"
        << QByteArray::fromStdString("b0 = sch.get_block(name=" + repeat("(", 2500) + "\"C\"" + repeat(")", 2500) +
                                     ")\n")
        << "%1:1:224: error: " + kNested;
    QTest::newRow("100k-term sum") << "chain.py" << QByteArray::fromStdString("x = 1" + repeat("+1", 99'999) + "\n")
                                   << QStringLiteral("%1:1:5: error: expression nested more than 200 levels deep");
    QTest::newRow("json nested 10000 deep")
        << "deep.json" << QByteArray::fromStdString(repeat("[", 10'000) + repeat("]", 10'000))
        << QStringLiteral("%1:1:201: error: arrays and objects nested more than 200 levels deep; a trace needs a "
                          "handful of levels");
    QTest::newRow("json input nested 10000 deep")
        << "deep_input.json"
        << QByteArray::fromStdString("[[[\"GetBlock\", [" + repeat("[", 10'000) + repeat("]", 10'000) +
                                     "], [\"C\", \"main\"], [\"b0\"]]], []]")
        << QStringLiteral("%1:1:213: error: arrays and objects nested more than 200 levels deep; a trace needs a "
                          "handful of levels");
    QTest::newRow("json 1e400")
        << "big.json" << QByteArray("[1e400]")
        << QStringLiteral("%1:1:2: error: number 1e400 is out of range: trace numbers are 64-bit integers or doubles "
                          "(at most about 1.8e308 in magnitude)");
    QTest::newRow("json 1e400 in an instruction")
        << "big_attr.json" << QByteArray("[[[\"GetBlock\", [], [1e400, \"main\"], [\"b0\"]]], []]")
        << QStringLiteral("%1:1:21: error: number 1e400 is out of range: trace numbers are 64-bit integers or "
                          "doubles (at most about 1.8e308 in magnitude)");
  }
  void traces() {
    QFETCH(QString, name);
    QFETCH(QByteArray, text);
    QFETCH(QString, firstLine);
    writeFile(m_dir.filePath("mm.te"), kMatmul);
    writeFile(m_dir.filePath(name), text.toStdString());
    for (const QString& sub : {QStringLiteral("print"), QStringLiteral("check"), QStringLiteral("legal")}) {
      auto r = runCli({sub, m_dir.filePath("mm.te"), "--trace", m_dir.filePath(name)});
      QCOMPARE(r.exitCode, 2);
      QCOMPARE(r.out, QString());
      QCOMPARE(r.err.section('\n', 0, 0), firstLine.arg(m_dir.filePath(name)));
    }
  }

  void programs_data() {
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("firstLine"); // %1 = the program's path
    const std::string a = "A = placeholder((4,), \"float32\", name=\"A\")\n";
    QTest::newRow("x = x + x thirty times")
        << QByteArray::fromStdString(a + "x = A[0]\n" + repeat("x = x + x\n", 30) +
                                     "B = compute((4,), lambda i: x, name=\"B\")\n")
        << QStringLiteral("%1:21:5: error: this expression has 1572863 nodes once expanded, more than the limit of "
                          "1000000: a value used several times is copied into every use; compute it once as a tensor "
                          "of its own and read that instead");
    QTest::newRow("s = s + s * n thirty times")
        << QByteArray::fromStdString("n = var(\"n\")\nA = placeholder((n,), \"float32\", name=\"A\")\ns = n\n" +
                                     repeat("s = s + s * n\n", 30) + "B = compute((s,), lambda i: A[0], name=\"B\")\n")
        << QStringLiteral("%1:21:5: error: this expression has 1048573 nodes once expanded, more than the limit of "
                          "1000000: a value used several times is copied into every use; compute it once as a tensor "
                          "of its own and read that instead");
    QTest::newRow("2500 nested parentheses")
        << QByteArray::fromStdString("x = " + repeat("(", 2500) + "1" + repeat(")", 2500) + "\n")
        << "%1:1:205: error: " + kNested;
    QTest::newRow("100k-term sum") << QByteArray::fromStdString("x = 1" + repeat(" + 1", 99'999) + "\n")
                                   << QStringLiteral("%1:1:5: error: expression nested more than 1000 levels deep");
    QTest::newRow("3000 dimensions")
        << QByteArray::fromStdString("A = placeholder((" + repeat("1, ", 3000) + "), \"float32\", name=\"A\")\n")
        << QStringLiteral("%1:1:17: error: the shape given to placeholder() has 3000 dimensions, more than the limit "
                          "of 200 (each dimension becomes a nested loop)");
  }
  void programs() {
    QFETCH(QByteArray, source);
    QFETCH(QString, firstLine);
    writeFile(m_dir.filePath("p.te"), source.toStdString());
    for (const QString& sub : {QStringLiteral("print"), QStringLiteral("check")}) {
      auto r = runCli({sub, m_dir.filePath("p.te")});
      QCOMPARE(r.exitCode, 2);
      QCOMPARE(r.out, QString());
      QCOMPARE(r.err.section('\n', 0, 0), firstLine.arg(m_dir.filePath("p.te")));
    }
  }

private:
  QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCliRobustParse)
#include "tst_cli_robust_parse.moc"
