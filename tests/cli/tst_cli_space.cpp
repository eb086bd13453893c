// loopscape-cli print --format space: `print FILE --format space --block B --dims X,Y
// [--fix LOOP=V] [--shape n=V] [--max-instances N]` prints one block's iteration space
// (core/poly/iteration_space.h) as text: execution-order and wavefront grids, dependence
// arrows, the cap's note. `legal FILE --trace T --space X,Y` adds the slice that shows the
// counterexample. Missing or bad options exit with status 2 and a diagnostic.
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_helpers.h"

using loopscape::testing::runCli;
using loopscape::testing::writeFile;

namespace {
// samples/stencil1d.te at T, N = 3, 4.
const char* kStencil = "from tvm import te\n"
                       "T, N = 3, 4\n"
                       "X0 = te.placeholder((N,), name=\"X0\")\n"
                       "state = te.placeholder((T, N), name=\"state\")\n"
                       "init = te.compute((1, N), lambda _, i: X0[i], name=\"heat_init\")\n"
                       "update = te.compute((T, N), lambda t, i: te.if_then_else(te.all(i > 0, i < N - 1), "
                       "0.25 * state[t - 1, i - 1] + 0.5 * state[t - 1, i] + 0.25 * state[t - 1, i + 1], "
                       "state[t - 1, i]), name=\"heat_update\")\n"
                       "heat = te.scan(init, update, state, inputs=[X0], name=\"heat\")\n";
} // namespace

class TestCliSpace : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    writeFile(m_dir.filePath("stencil.te"), kStencil);
    writeFile(m_dir.filePath("swap.py"), "t, i = sch.get_loops(sch.get_block(\"heat_update\"))\nsch.reorder(i, t)\n");
  }

  void stencilGridAndArrows() {
    auto r =
        runCli({"print", m_dir.filePath("stencil.te"), "--format", "space", "--block", "heat_update", "--dims", "i,t"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    QCOMPARE(r.out, QString("block 'heat_update' (statement heat_update): loops t, i; x = i, y = t; fixed: none\n"
                            "8 instances, 8 dependences, 2 wavefronts, 8 parallel steps\n"
                            "execution order:\n"
                            "  t\\i 0 1 2 3\n"
                            "    1 0 1 2 3\n"
                            "    2 4 5 6 7\n"
                            "wavefront:\n"
                            "  t\\i 0 1 2 3\n"
                            "    1 0 0 0 0\n"
                            "    2 1 1 1 1\n"
                            "dependences:\n"
                            "  RAW heat: (0, 1) -> (0, 2)\n"
                            "  RAW heat: (0, 1) -> (1, 2)\n"
                            "  RAW heat: (1, 1) -> (1, 2)\n"
                            "  RAW heat: (1, 1) -> (2, 2)\n"
                            "  RAW heat: (2, 1) -> (1, 2)\n"
                            "  RAW heat: (2, 1) -> (2, 2)\n"
                            "  RAW heat: (3, 1) -> (2, 2)\n"
                            "  RAW heat: (3, 1) -> (3, 2)\n"));
  }

  void symbolicSizeFixedLoopAndCap() {
    auto r = runCli({"print", "samples/dense_dynamic.te", "--format", "space", "--block", "T_matmul_NT", "--dims",
                     "k,i", "--shape", "n=2", "--fix", "j=7", "--max-instances", "3"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QString("block 'T_matmul_NT' (statement T_matmul_NT): loops i, j, k; x = k, y = i; fixed: j=7\n"
                            "3 instances, 6 dependences, 3 wavefronts, 3 parallel steps\n"
                            "note: the slice of block 'T_matmul_NT' at j=7 has more than 3 instances: showing the "
                            "first 3 in execution order (bind smaller sizes or fix more loops)\n"
                            "execution order:\n"
                            "  i\\k 0 1 2\n"
                            "    0 0 1 2\n"
                            "wavefront:\n"
                            "  i\\k 0 1 2\n"
                            "    0 0 1 2\n"
                            "dependences:\n"
                            "  RAW T_matmul_NT: (0, 0) -> (1, 0)\n"
                            "  RAW T_matmul_NT: (1, 0) -> (2, 0)\n"
                            "  WAR T_matmul_NT: (0, 0) -> (1, 0)\n"
                            "  WAR T_matmul_NT: (1, 0) -> (2, 0)\n"
                            "  WAW T_matmul_NT: (0, 0) -> (1, 0)\n"
                            "  WAW T_matmul_NT: (1, 0) -> (2, 0)\n"));
  }

  void legalSpaceShowsTheViolatedPair() {
    // legal --space: after the counterexample, the original program's slice ordered by the
    // trace's result (i-major), the pair marked S/T and its arrow (violated); status 3.
    auto r = runCli({"legal", m_dir.filePath("stencil.te"), "--trace", m_dir.filePath("swap.py"), "--space", "t,i"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    const QString head = "illegal: the RAW dependence from heat_update(v_t=1, v_i=2) to heat_update(v_t=2, v_i=1) on "
                         "heat[1, 2] is violated";
    QVERIFY2(r.out.startsWith(head), qPrintable(r.out));
    QVERIFY2(r.out.endsWith("block 'heat_update' (statement heat_update): loops t, i; x = t, y = i; fixed: none\n"
                            "8 instances, 8 dependences, 2 wavefronts, 8 parallel steps\n"
                            "counterexample: the RAW dependence from heat_update(v_t=1, v_i=2) at (1, 2) to "
                            "heat_update(v_t=2, v_i=1) at (2, 1) is violated\n"
                            "execution order:\n"
                            "  i\\t 1 2\n"
                            "    0 0 1\n"
                            "    1 2 3\n"
                            "    2 4 5\n"
                            "    3 6 7\n"
                            "wavefront:\n"
                            "  i\\t 1 2\n"
                            "    0 0 1\n"
                            "    1 0 1\n"
                            "    2 0 1\n"
                            "    3 0 1\n"
                            "counterexample (S: source, T: sink):\n"
                            "  i\\t 1 2\n"
                            "    0 o o\n"
                            "    1 o T\n"
                            "    2 S o\n"
                            "    3 o o\n"
                            "dependences:\n"
                            "  RAW heat: (1, 0) -> (2, 0)\n"
                            "  RAW heat: (1, 0) -> (2, 1)\n"
                            "  RAW heat: (1, 1) -> (2, 1)\n"
                            "  RAW heat: (1, 1) -> (2, 2)\n"
                            "  RAW heat: (1, 2) -> (2, 1) (violated)\n"
                            "  RAW heat: (1, 2) -> (2, 2)\n"
                            "  RAW heat: (1, 3) -> (2, 2)\n"
                            "  RAW heat: (1, 3) -> (2, 3)\n"),
             qPrintable(r.out));
  }

  void svgPicture() {
    auto r = runCli(
        {"print", m_dir.filePath("stencil.te"), "--format", "space-svg", "--block", "heat_update", "--dims", "t,i"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""), qPrintable(r.out));
    QVERIFY(r.out.endsWith("</svg>\n"));
    QCOMPARE(r.out.count("<circle"), 8);
    QCOMPARE(r.out.count("<g class=\"RAW\""), 8);
  }

  void badOptions_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("error");
    const QStringList base = {"print", "samples/dense_dynamic.te", "--format", "space"};
    QTest::newRow("no block") << (base + QStringList{"--dims", "k,i", "--shape", "n=2"})
                              << "error: --format space needs --block BLOCK and --dims X,Y (two loops or block "
                                 "iterators)\n";
    QTest::newRow("unbound size") << (base + QStringList{"--block", "T_matmul_NT", "--dims", "k,i"})
                                  << "error: symbolic size 'n' is not bound; pass --shape n=VALUE\n";
    QTest::newRow("unknown dim") << (base + QStringList{"--block", "T_matmul_NT", "--dims", "k,q", "--shape", "n=2"})
                                 << "error: block 'T_matmul_NT' has no loop or iterator 'q' (loops: i, j, k; "
                                    "iterators: v_i, v_j, v_k)\n";
    QTest::newRow("bad fix") << (base +
                                 QStringList{"--block", "T_matmul_NT", "--dims", "k,i", "--shape", "n=2", "--fix", "j"})
                             << "error: --fix 'j': expected LOOP=VALUE\n";
  }
  void badOptions() {
    QFETCH(QStringList, args);
    QFETCH(QString, error);
    auto r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err, error);
  }

private:
  QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCliSpace)
#include "tst_cli_space.moc"
