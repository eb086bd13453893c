// The integer-wrapping, index-type, unrolling and naming reproducers of issue 13 end to
// end through loopscape-cli: a step whose numbers would wrap is refused (exit status 3)
// with a located message naming the factor, by `legal`, `check` and `run` alike, so the
// legality check can no longer sign off a program that computes something else; the steps
// that used to abort (compute_inline with an int64 index, a tiled scan computed at a tile)
// apply and compute what the original computes; a 2^31-iteration unroll prints its C
// code at once with a remark; kernels whose buffers are named like C macros or keywords
// compile and verify on both CPU targets.
#include "cli_test_helpers.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using loopscape::testing::runCli;
using loopscape::testing::writeFile;

namespace {

const char* kFour = "from tvm import te\n"
                    "A = te.placeholder((4,), name=\"A\")\n"
                    "B = te.compute((4,), lambda i: A[i] * 2.0, name=\"B\")\n";
const char* kSymbolic = "from tvm import te\n"
                        "n = te.var(\"n\")\n"
                        "A = te.placeholder((n,), name=\"A\")\n"
                        "B = te.compute((n,), lambda i: A[i] * 2.0, name=\"B\")\n";

std::string splitTrace(const std::string& factors) {
  return "b = sch.get_block(\"B\")\n(i,) = sch.get_loops(b)\nsch.split(i, factors=[" + factors + "])\n";
}

} // namespace

class TestCliRobustWrap : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_dir;
  QString path(const char* name) const { return m_dir.filePath(name); }

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    writeFile(path("four.te"), kFour);
    writeFile(path("sym.te"), kSymbolic);
  }

  void wrappingSplitsAreRefused_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("factors");
    QTest::addColumn<QString>("message");
    QTest::newRow("factor over int32") << "four.te"
                                       << "3037000500, 3037000500, None"
                                       << "t.py:3:1: error: split factor 3037000500 of loop 'i' does not fit int32 "
                                          "(the loop's type); use a value of at most 2147483647\n";
    QTest::newRow("product over int32") << "four.te"
                                        << "65536, 65536, None"
                                        << "t.py:3:1: error: split of loop 'i': the factors 65536, 65536, None "
                                           "multiply to 4294967296, which does not fit int32 (the loop's type); "
                                           "choose factors whose product is at most 2147483647\n";
    QTest::newRow("product of int32 maxima") << "four.te"
                                             << "2147483647, 2147483647"
                                             << "t.py:3:1: error: split of loop 'i': the factors 2147483647, "
                                                "2147483647 multiply to 4611686014132420609, which does not fit int32 "
                                                "(the loop's type); choose factors whose product is at most "
                                                "2147483647\n";
    QTest::newRow("symbolic 2^31") << "sym.te"
                                   << "None, 2147483648"
                                   << "t.py:3:1: error: split factor 2147483648 of loop 'i' does not fit int32 (the "
                                      "loop's type); use a value of at most 2147483647\n";
    QTest::newRow("symbolic 2^32 + 1") << "sym.te"
                                       << "None, 4294967297"
                                       << "t.py:3:1: error: split factor 4294967297 of loop 'i' does not fit int32 "
                                          "(the loop's type); use a value of at most 2147483647\n";
  }
  void wrappingSplitsAreRefused() {
    QFETCH(QString, program);
    QFETCH(QString, factors);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString trace = dir.filePath("t.py");
    writeFile(trace, splitTrace(factors.toStdString()));
    const QString file = m_dir.filePath(program);
    QStringList shape;
    if (program == "sym.te") shape = {"--shape", "n=6"};
    for (const QStringList& args :
         {QStringList{"legal", file, "--trace", trace}, QStringList{"check", file, "--trace", trace} + shape,
          QStringList{"run", file, "--trace", trace, "--target", "cpu-c", "--verify", "--repeat", "1", "--number",
                      "1"} +
              shape}) {
      const auto r = runCli(args);
      QCOMPARE(r.exitCode, 3);
      QVERIFY2(r.err.startsWith(QString(message).replace("t.py", trace)), qPrintable(args.join(' ') + "\n" + r.err));
    }
  }

  void skewFactorOverInt32IsRefused() {
    writeFile(path("skew.py"), "sch.poly_skew(band=\"t\", member=1, by_member=0, factor=4611686018427387904)\n");
    const auto r = runCli({"legal", "samples/stencil1d.te", "--trace", path("skew.py")});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.startsWith(path("skew.py") + ":1:1: error: poly_skew factor 4611686018427387904 does not fit int32 "
                                                "(the type of the program's loops); use a value between -2147483648 "
                                                "and 2147483647\n"),
             qPrintable(r.err));
  }

  void computeInlineWithInt64Index() {
    writeFile(path("inline.te"), "from tvm import te\n"
                                 "A = te.placeholder((4,), name=\"A\")\n"
                                 "P = te.compute((4,), lambda i: te.if_then_else(i >= 1, A[i], 0.0), name=\"P\")\n"
                                 "B = te.compute((1,), lambda i: P[4294967296 * i], name=\"B\")\n");
    writeFile(path("inline.py"), "sch.compute_inline(sch.get_block(\"P\"))\n");
    const auto r = runCli({"check", path("inline.te"), "--trace", path("inline.py")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QRegularExpression("output B +float32 +\\(1,\\) +equal\n")), qPrintable(r.out));
  }

  void tiledScanComputedAtATile() {
    QFile sample(QStringLiteral(LS_SOURCE_DIR "/samples/stencil1d.te"));
    QVERIFY(sample.open(QIODevice::ReadOnly));
    QString text = QString::fromUtf8(sample.readAll());
    text.replace("T, N = 64, 1024", "T, N = 8, 32");
    writeFile(path("heat.te"), text.toStdString());
    writeFile(path("heat.py"), "sch.poly_tile(band=\"_\", sizes=[7, 3])\n"
                               "sch.poly_compute_at_tile(block=\"heat_init\", loop=\"i\")\n");
    const auto legal = runCli({"legal", path("heat.te"), "--trace", path("heat.py")});
    QVERIFY2(legal.exitCode == 0, qPrintable(legal.err));
    QCOMPARE(legal.out, QString("legal\n"));
    const auto check = runCli({"check", path("heat.te"), "--trace", path("heat.py")});
    QVERIFY2(check.exitCode == 0, qPrintable(check.err));
    QVERIFY2(check.out.contains(QRegularExpression("output heat +float32 +\\(8, 32\\) +equal\n")),
             qPrintable(check.out));
  }

  void unrollOfALongLoopStaysALoop() {
    writeFile(path("unroll.te"), "from tvm import te\n"
                                 "A = te.placeholder((4,), name=\"A\")\n"
                                 "k = te.reduce_axis((0, 2147483647), name=\"k\")\n"
                                 "B = te.compute((4,), lambda i: te.sum(A[i], axis=k), name=\"B\")\n");
    writeFile(path("unroll.py"), "b = sch.get_block(\"B\")\ni, k = sch.get_loops(b)\nsch.unroll(k)\n");
    const auto r = runCli({"print", path("unroll.te"), "--trace", path("unroll.py"), "--format", "c"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(r.err, QString("remark: loop 'k': unroll kept a serial loop: its 2147483647 iterations of 1 "
                            "statement(s) would unroll into 2147483647 statements, more than the limit of 65536 "
                            "(TVM's auto_unroll_max_step); split the loop and unroll an inner part\n"));
    QVERIFY2(r.out.contains("for (int64_t k = 0; k < 2147483647; ++k) {"), qPrintable(r.out));
  }

  void buffersNamedLikeC_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"INFINITY", "NULL", "__asm__"})
      QTest::newRow(n) << QString(n);
  }
  void buffersNamedLikeC() {
    QFETCH(QString, name);
    const QString file = m_dir.filePath(name + ".te");
    writeFile(file, QString("from tvm import te\n%1 = te.placeholder((4,), name=\"%1\")\n"
                            "B = te.compute((4,), lambda i: %1[i] * 2.0, name=\"B\")\n")
                        .arg(name)
                        .toStdString());
    for (const char* target : {"cpu-c", "cpu-llvm"}) {
      const auto r = runCli({"run", file, "--target", target, "--verify", "--repeat", "1", "--number", "1"});
      QVERIFY2(r.exitCode == 0, qPrintable(QString(target) + "\n" + r.err));
      QVERIFY2(r.out.contains(QRegularExpression("output B +float32 +\\(4,\\) +ok \\(max abs error 0,")),
               qPrintable(r.out));
    }
    QTemporaryDir out;
    const auto r = runCli({"export", file, "--out", out.path()});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile header(out.filePath("kernel.h"));
    QVERIFY(header.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(header.readAll()).contains("void main_kernel(float* v_" + name + ", float* B);"));
  }
};

QTEST_GUILESS_MAIN(TestCliRobustWrap)
#include "tst_cli_robust_wrap.moc"
