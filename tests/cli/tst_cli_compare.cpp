// `loopscape-cli compare`: the exact text for samples/matmul.te tiled by
// samples/traces/matmul_tile.py against poly_auto (structural diff, paired bands,
// parallelism per loop); identical sides give an empty diff; --html writes one
// self-contained file with both programs, the diff's line classes and the tables; a
// missing trace file is bad input (2) and an illegal step a refused schedule (3), each
// with its error; --run builds, verifies and times both sides of a small matmul with cpu-c
// (when the plugin is built) and prints the table with the ratio B/A and an SVG chart;
// --code prints the unified diff of both sides' generated C (golden file
// tests/cli/data/compare_code.golden; LS_UPDATE_GOLDEN=1 rewrites it) and puts both codes,
// their differing lines marked, in the HTML report.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_helpers.h"

using loopscape::testing::runCli;
using loopscape::testing::writeFile;

namespace {

const char* kExpected =
    "compare samples/matmul.te\n"
    "  A: samples/traces/matmul_tile.py\n"
    "  B: poly_auto\n"
    "\n"
    "structural diff (- only in A, + only in B, ~ changed):\n"
    "- loop i_0 (block C) [A line 7]: for i_0 in T.parallel(32):\n"
    "-   loop j_0 (block C) [A line 8]: for j_0, k, i_1 in T.grid(32, 1024, 32):\n"
    "+ loop i (block C) [B line 7]: for i, j, k in T.grid(1024, 1024, 1024):\n"
    "+   loop j (block C) [B line 7]: for i, j, k in T.grid(1024, 1024, 1024):\n"
    "-       loop i_1 (block C) [A line 8]: for j_0, k, i_1 in T.grid(32, 1024, 32):\n"
    "-         loop j_1 (block C) [A line 9]: for j_1 in T.vectorized(32):\n"
    "~       block C [A line 10, B line 8]\n"
    "            loops i_0, j_0, k, i_1, j_1 -> i, j, k\n"
    "            binding v_i: i_0 * 32 + i_1 -> i\n"
    "            binding v_j: j_0 * 32 + j_1 -> j\n"
    "\n"
    "schedule trees, bands paired by member loops and statements:\n"
    "  pair (shared loops k, same statements)\n"
    "    A band 0.0.0 [i_0, j_0, k, i_1] permutable; coincident i_0, j_0, i_1; statements C_init, C\n"
    "    B band 0.0 [i, j, k] permutable; coincident i, j; statements C_init, C\n"
    "  only in A: band 0.0.0.0.0 [j_1] permutable; coincident j_1; statements C_init, C\n"
    "\n"
    "dependences and parallelism per loop:\n"
    "  A: 5 dependences (RAW 2, WAR 1, WAW 2)\n"
    "    loop              kind        dependences\n"
    "    i_0               parallel    none carried: parallel\n"
    "      j_0             serial      none carried: parallel\n"
    "        k             serial      carries RAW C -> C, WAR C -> C, WAW C -> C\n"
    "          i_1         serial      none carried: parallel\n"
    "            j_1       vectorized  none carried: parallel\n"
    "  B: 5 dependences (RAW 2, WAR 1, WAW 2)\n"
    "    loop              kind        dependences\n"
    "    i                 serial      none carried: parallel\n"
    "      j               serial      none carried: parallel\n"
    "        k             serial      carries RAW C -> C, WAR C -> C, WAW C -> C\n";

const char* kSmallMatmul = R"(from tvm import te
A = te.placeholder((64, 48), dtype="float32", name="A")
B = te.placeholder((48, 32), dtype="float32", name="B")
k = te.reduce_axis((0, 48), name="k")
C = te.compute((64, 32), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

const char* kTile = R"(def apply_trace(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i_0, i_1 = sch.split(i, factors=[None, 16])
    j_0, j_1 = sch.split(j, factors=[None, 16])
    sch.reorder(i_0, j_0, k, i_1, j_1)
    sch.parallel(i_0)
    sch.vectorize(j_1)
)";

QString readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

} // namespace

class TestCliCompare : public QObject {
  Q_OBJECT
private:
  QTemporaryDir m_dir;

private Q_SLOTS:
  void tiledAgainstPolyAuto() {
    const auto r = runCli({"compare", "samples/matmul.te", "--a", "samples/traces/matmul_tile.py", "--b", "poly_auto"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QString(kExpected));
    QCOMPARE(r.err, QString());
  }

  void identicalSidesHaveNoDiff() {
    const auto r = runCli({"compare", "samples/matmul.te", "--a", "none", "--b", "poly_auto"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("\nstructural diff (- only in A, + only in B, ~ changed):\nno structural difference\n"),
             qPrintable(r.out));
    QVERIFY(r.out.contains("  A: original program\n  B: poly_auto\n"));
    QVERIFY(r.out.contains("  pair (shared loops i, j, k, same statements)\n"));
  }

  void htmlReport() {
    const QString html = m_dir.filePath("report.html");
    const auto r = runCli(
        {"compare", "samples/matmul.te", "--a", "samples/traces/matmul_tile.py", "--b", "poly_auto", "--html", html});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.endsWith("\nHTML report: " + html + "\n"));
    const QString text = readAll(html);
    QVERIFY(text.startsWith("<!DOCTYPE html>"));
    QVERIFY(text.contains("<style>"));
    // Self-contained: no linked style sheet, script, image or font.
    QVERIFY(!text.contains("<link"));
    QVERIFY(!text.contains("<script"));
    QVERIFY(!text.contains("src="));
    QVERIFY(!text.contains("url("));
    // Both programs, their changed lines marked with the diff's classes.
    QVERIFY(
        text.contains("<span class=\"ln del\" title=\"- loop i_0\"><i>  7</i>     for i_0 in T.parallel(32):</span>"));
    QVERIFY(text.contains("for i, j, k in T.grid(1024, 1024, 1024):"));
    QVERIFY(text.contains("<span class=\"ln add\""));
    QVERIFY(text.contains("<span class=\"ln chg\" title=\"~ block C: loops i_0, j_0, k, i_1, j_1 -&gt; i, j, k; "
                          "binding v_i: i_0 * 32 + i_1 -&gt; i; binding v_j: j_0 * 32 + j_1 -&gt; j\">"));
    QVERIFY(text.contains("<td class=\"sign-del\">-</td>"));
    QVERIFY(text.contains("shared loops k, same statements"));
    QVERIFY(text.contains("<td>RAW C -&gt; C, WAR C -&gt; C, WAW C -&gt; C</td>"));
    QVERIFY(!text.contains("<svg")); // no measurements without --run
  }

  void codeDiffGolden() {
    const auto r = runCli({"compare", "samples/matmul.te", "--a", "samples/traces/matmul_tile.py", "--b", "poly_auto",
                           "--code", "--target", "cpu-c"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.err, QString());
    // The structural part is unchanged by --code; the code diff follows it.
    QVERIFY(r.out.startsWith(kExpected));
    const QString golden = QStringLiteral(LS_SOURCE_DIR "/tests/cli/data/compare_code.golden");
    if (qEnvironmentVariable("LS_UPDATE_GOLDEN") == QStringLiteral("1")) {
      QFile f(golden);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(r.out.toUtf8());
    }
    QCOMPARE(r.out, readAll(golden));
    QVERIFY(r.out.contains("\ngenerated code (cpu-c, c; - only in A, + only in B):\n"
                           "--- A: samples/traces/matmul_tile.py\n+++ B: poly_auto\n@@ -"));
    // The tiled side's parallel loop is only in A, poly_auto's serial i loop only in B.
    QVERIFY(r.out.contains("\n-  #pragma omp parallel for\n"));
    QVERIFY(r.out.contains("\n+  for (int64_t i = 0; i < 1024; ++i) {\n"));
  }

  void codeDiffOfEqualSidesAndErrors() {
    auto r = runCli({"compare", "samples/matmul.te", "--a", "none", "--b", "poly_auto", "--code"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.endsWith("\ngenerated code (cpu-c, c; - only in A, + only in B):\nno difference\n"),
             qPrintable(r.out));
    r = runCli({"compare", "samples/matmul.te", "--a", "none", "--code", "--target", "no-such-target"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no-such-target"), qPrintable(r.err));
    QCOMPARE(r.out, QString());
    r = runCli({"compare", "samples/matmul.te", "--a", "none", "--code", "--format", "no-such-format"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no-such-format"), qPrintable(r.err));
    r = runCli({"compare", "samples/matmul.te", "--a", "none", "--format", "llvm"});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: --format only applies with --code\n"));
  }

  void codeDiffInHtml() {
    const QString html = m_dir.filePath("code.html");
    const auto r = runCli({"compare", "samples/matmul.te", "--a", "samples/traces/matmul_tile.py", "--b", "poly_auto",
                           "--code", "--html", html});
    QCOMPARE(r.exitCode, 0);
    const QString text = readAll(html);
    QVERIFY(text.contains("<h2>Generated code (cpu-c, c)</h2>"));
    QVERIFY(text.contains("<pre class=\"code\">"));
    QVERIFY2(text.contains(QRegularExpression("<span class=\"ln del\"><i> *\\d+</i>   #pragma omp parallel "
                                              "for</span>")),
             qPrintable(text.mid(text.indexOf("Generated code"), 3000)));
    QVERIFY(text.contains(QRegularExpression(
        "<span class=\"ln add\"><i> *\\d+</i>   for \\(int64_t i = 0; i &lt; 1024; \\+\\+i\\) \\{</span>")));
    // Lines of both: unmarked.
    QVERIFY(text.contains(QRegularExpression("<span class=\"ln\"><i> *\\d+</i> #include &lt;stdint.h&gt;</span>")));
  }

  void badTraces() {
    auto r = runCli({"compare", "samples/matmul.te", "--a", "no/such/trace.py", "--b", "poly_auto"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("error: cannot read 'no/such/trace.py'"), qPrintable(r.err));
    QCOMPARE(r.out, QString());
    const QString bad = m_dir.filePath("bad.py");
    writeFile(bad, "def apply_trace(sch):\n    sch.split(sch.get_loops(sch.get_block(\"C\"))[0], factors=[7, 1])\n");
    r = runCli({"compare", "samples/matmul.te", "--a", "none", "--b", bad});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(
        r.err.contains(bad + ":2:5: error: split of loop 'i': the factors multiply to 7, less than the extent 1024"),
        qPrintable(r.err));
    r = runCli({"compare", "samples/matmul.te", "--a", "none", "--target", "cpu-llvm"});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: --target only applies with --run or --code\n"));
    r = runCli({"compare", "samples/matmul.te", "--a", "none", "--run", "--target", "no-such-target"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no-such-target"), qPrintable(r.err));
    const QString syntax = m_dir.filePath("syntax.py");
    writeFile(syntax, "def apply_trace(sch):\n    sch.split(\n");
    r = runCli({"compare", "samples/matmul.te", "--a", syntax});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(syntax + ":"), qPrintable(r.err));
  }

  /// A session's own trace is side A when --a is left out; a trace file given for a
  /// session applies to the session's program.
  void sessions() {
    const QString session = m_dir.filePath("s.lsproj");
    QJsonObject o;
    o["format"] = "loopscape-session";
    o["version"] = 1;
    o["source"] = kSmallMatmul;
    o["sourcePath"] = "mm.te";
    o["trace"] = "[[[\"GetBlock\", [], [\"C\", \"main\"], [\"b0\"]],"
                 " [\"GetLoops\", [\"b0\"], [], [\"l1\", \"l2\", \"l3\"]],"
                 " [\"Split\", [\"l1\", [null, 4]], [true, false], [\"l4\", \"l5\"]],"
                 " [\"Parallel\", [\"l4\"], [], []]], []]\n";
    o["target"] = "cpu-c";
    o["view"] = QJsonObject();
    writeFile(session, QJsonDocument(o).toJson().toStdString());
    auto r = runCli({"compare", session, "--b", "none"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith("compare " + session + "\n  A: " + session +
                              "[trace]\n  B: original program\n\n"
                              "structural diff (- only in A, + only in B, ~ changed):\n"
                              "- loop i_0 (block C) [A line 7]: for i_0 in T.parallel(16):\n"),
             qPrintable(r.out));
    const QString trace = m_dir.filePath("tile.py");
    writeFile(trace, kTile);
    r = runCli({"compare", session, "--a", trace, "--b", "none"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("- loop i_0 (block C) [A line 7]: for i_0 in T.parallel(4):\n"), qPrintable(r.out));
  }

  void runBothSides() {
    if (!QFile::exists(LS_RUN_PLUGIN_DIR "/loopscape-target-cpu-c.so")) QSKIP("the cpu-c plugin is not built");
    const QString program = m_dir.filePath("mm.te"), trace = m_dir.filePath("tile.py"),
                  html = m_dir.filePath("run.html");
    writeFile(program, kSmallMatmul);
    writeFile(trace, kTile);
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("LOOPSCAPE_MACHINE_CACHE", m_dir.filePath("machine.json"));
    env.remove("LOOPSCAPE_WORKER");
    p.setProcessEnvironment(env);
    p.start(LS_CLI_PATH, {"compare", program, "--a", "none", "--b", trace, "--run", "--repeat", "3", "--no-peak",
                          "--target", "cpu-c", "--html", html});
    QVERIFY(p.waitForFinished(180000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(p.exitCode() == 0, qPrintable(out + QString::fromUtf8(p.readAllStandardError())));
    QVERIFY2(out.contains("\nmeasurements (cpu-c, isolated worker, 3 repeats):\n"
                          "       median ms     GFLOP/s   % of peak   verified\n"),
             qPrintable(out));
    for (const char* side : {"A", "B"}) {
      const QRegularExpression row(QString("\n  %1 +([0-9.]+) +([0-9.]+) +- +yes\n").arg(side));
      const auto m = row.match(out);
      QVERIFY2(m.hasMatch(), qPrintable(out));
      QVERIFY(m.captured(1).toDouble() > 0);
    }
    QVERIFY(out.contains(QRegularExpression("\n  B/A median time: [0-9]+\\.[0-9]{3} \\([AB] is faster\\)\n")));
    const QString text = readAll(html);
    QVERIFY(text.contains("<h2>Measurements (cpu-c, isolated worker, 3 repeats)</h2>"));
    QCOMPARE(text.count("<rect "), 2);
    QVERIFY(text.contains("<svg class=\"chart\""));
  }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
