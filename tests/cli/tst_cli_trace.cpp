// loopscape-cli with schedule traces: print --trace / --format trace-py|trace-json, check
// --trace (equal / first differing element), exit status 3 with the rendered schedule
// error for a refused step, exit status 2 with file:line:col for a malformed trace.
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_helpers.h"

#include <fstream>

using loopscape::testing::runCli;
using loopscape::testing::writeFile;
using Run = loopscape::testing::CliRun;

namespace {
const char* kMatmul = "A = placeholder((8, 6), \"float32\", name=\"A\")\n"
                      "B = placeholder((6, 4), \"float32\", name=\"B\")\n"
                      "k = reduce_axis((0, 6), name=\"k\")\n"
                      "C = compute((8, 4), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";

const char* kTilePython = "# from tvm import tir\n"
                          "b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
                          "l1, l2, l3 = sch.get_loops(block=b0)\n"
                          "l4, l5 = sch.split(loop=l1, factors=[None, 32], preserve_unit_iters=True, "
                          "disable_predication=False)\n"
                          "l6, l7 = sch.split(loop=l2, factors=[None, 32], preserve_unit_iters=True, "
                          "disable_predication=False)\n"
                          "sch.reorder(l4, l6, l3, l5, l7)\n"
                          "sch.parallel(loop=l4)\n"
                          "sch.vectorize(loop=l7)\n";

const char* kTileJson = "[\n"
                        "  [\n"
                        "    [\"GetBlock\", [], [\"C\", \"main\"], [\"b0\"]],\n"
                        "    [\"GetLoops\", [\"b0\"], [], [\"l1\", \"l2\", \"l3\"]],\n"
                        "    [\"Split\", [\"l1\", [null, 32]], [true, false], [\"l4\", \"l5\"]],\n"
                        "    [\"Split\", [\"l2\", [null, 32]], [true, false], [\"l6\", \"l7\"]],\n"
                        "    [\"Reorder\", [\"l4\", \"l6\", \"l3\", \"l5\", \"l7\"], [], []],\n"
                        "    [\"Parallel\", [\"l4\"], [], []],\n"
                        "    [\"Vectorize\", [\"l7\"], [], []]\n"
                        "  ],\n"
                        "  []\n"
                        "]\n";
} // namespace

class TestCliTrace : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void printsScheduledProgram() {
    auto r = runCli({"print", "samples/matmul.te", "--trace", "samples/traces/matmul_tile.py"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.err.isEmpty());
    QVERIFY2(r.out.contains("    for i_0 in T.parallel(32):\n"
                            "        for j_0, k, i_1 in T.grid(32, 1024, 32):\n"
                            "            for j_1 in T.vectorized(32):\n"
                            "                with T.block(\"C\"):\n"
                            "                    v_i = T.axis.spatial(1024, i_0 * 32 + i_1)\n"
                            "                    v_j = T.axis.spatial(1024, j_0 * 32 + j_1)\n"),
             qPrintable(r.out));
    auto tir = runCli({"print", "samples/matmul.te", "--trace", "samples/traces/matmul_tile.py", "--format", "tir"});
    QCOMPARE(tir.out, r.out);
  }

  void printsTraceAsPythonAndJson() {
    auto py = runCli({"print", "samples/matmul.te", "--trace", "samples/traces/matmul_tile.py", "--format", "trace-py"});
    QCOMPARE(py.exitCode, 0);
    QCOMPARE(py.out, QString(kTilePython));
    auto json =
        runCli({"print", "samples/matmul.te", "--trace", "samples/traces/matmul_tile.py", "--format", "trace-json"});
    QCOMPARE(json.exitCode, 0);
    QCOMPARE(json.out, QString(kTileJson));
    // The JSON and the printed Python read back to the same trace and program.
    QTemporaryDir dir;
    writeFile(dir.filePath("t.json"), kTileJson);
    writeFile(dir.filePath("t.py"), kTilePython);
    auto fromJson = runCli({"print", "samples/matmul.te", "--trace", dir.filePath("t.json"), "--format", "trace-py"});
    QCOMPARE(fromJson.exitCode, 0);
    QCOMPARE(fromJson.out, QString(kTilePython));
    auto fromPy = runCli({"print", "samples/matmul.te", "--trace", dir.filePath("t.py")});
    auto original = runCli({"print", "samples/matmul.te", "--trace", "samples/traces/matmul_tile.py"});
    QCOMPARE(fromPy.out, original.out);
    // Without a trace, the trace is empty.
    auto empty = runCli({"print", "samples/matmul.te", "--format", "trace-json"});
    QCOMPARE(empty.out, QString("[\n  [],\n  []\n]\n"));
  }

  void checkEqual() {
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kMatmul);
    writeFile(dir.filePath("t.py"), "b = sch.get_block(\"C\")\n"
                                    "i, j, k = sch.get_loops(b)\n"
                                    "io, ii = sch.split(i, [None, 3])\n"
                                    "sch.reorder(j, io)\n"
                                    "sch.parallel(j)\n");
    auto r = runCli({"check", dir.filePath("mm.te"), "--trace", dir.filePath("t.py"), "--seed", "5"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.err, QString());
    QCOMPARE(r.out, QString("input  A            float32  (8, 6)             random, seed 5\n"
                            "input  B            float32  (6, 4)             random, seed 6\n"
                            "trace  %1 (5 instructions)\n"
                            "output C            float32  (8, 4)             equal\n")
                        .arg(dir.filePath("t.py")));
  }

  void checkReportsTheFirstDifference() {
    // Reversing the two halves of k changes the order of the float sums.
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kMatmul);
    writeFile(dir.filePath("t.py"), "b = sch.get_block(\"C\")\n"
                                    "i, j, k = sch.get_loops(b)\n"
                                    "k0, k1 = sch.split(k, [2, 3])\n"
                                    "sch.reorder(k1, k0)\n");
    // Reassociating the sum breaks the reduction's exact dependences: only an explicit
    // --no-verify-legality lets it run.
    auto refused = runCli({"check", dir.filePath("mm.te"), "--trace", dir.filePath("t.py")});
    QCOMPARE(refused.exitCode, 3);
    QVERIFY2(refused.err.contains(dir.filePath("t.py") + ":4:1: error: reorder is illegal: "), qPrintable(refused.err));
    auto r = runCli({"check", dir.filePath("mm.te"), "--trace", dir.filePath("t.py"), "--no-verify-legality"});
    QCOMPARE(r.exitCode, 1);
    static const QRegularExpression line(
        "output C            float32  \\(8, 4\\)             differs at flat index (\\d+) \\[(\\d+), (\\d+)\\]: "
        "original (\\S+), scheduled (\\S+)\n");
    auto m = line.match(r.out);
    QVERIFY2(m.hasMatch(), qPrintable(r.out));
    const int flat = m.captured(1).toInt();
    QCOMPARE(m.captured(2).toInt(), flat / 4);
    QCOMPARE(m.captured(3).toInt(), flat % 4);
    QVERIFY(m.captured(4) != m.captured(5));
    // Within a tolerance the outputs agree.
    auto tolerant = runCli({"check", dir.filePath("mm.te"), "--trace", dir.filePath("t.py"), "--rtol", "1e-5", "--atol",
                            "1e-6", "--no-verify-legality"});
    QCOMPARE(tolerant.exitCode, 0);
    QVERIFY(tolerant.out.contains("output C            float32  (8, 4)             equal\n"));
  }

  void illegalStepExitsWithStatus3() {
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kMatmul);
    const QString trace = dir.filePath("bad.py");
    writeFile(trace.toStdString().c_str(), "b = sch.get_block(\"C\")\n"
                                            "i, j, k = sch.get_loops(b)\n"
                                            "io, ii = sch.split(i, [None, 4])\n"
                                            "sch.fuse(ii, k)\n");
    for (const QString& sub : {QString("print"), QString("check")}) {
      auto r = runCli({sub, dir.filePath("mm.te"), "--trace", trace});
      QCOMPARE(r.exitCode, 3);
      QCOMPARE(r.out, sub == "print" ? QString() : r.out);
      QCOMPARE(r.err, QString("%1:4:1: error: fuse: the loop 'k' is not the only statement in the body of loop "
                              "'i_1'\n"
                              "  sch.fuse(ii, k)\n"
                              "  ^~~~~~~~~~~~~~~\n"
                              "ScheduleError: An error occurred in the schedule primitive 'fuse'.\n"
                              "The IR with diagnostic is:\n"
                              "# from tvm.script import tir as T\n"
                              "\n"
                              "@T.prim_func\n"
                              "def main(A: T.Buffer((8, 6), \"float32\"), B: T.Buffer((6, 4), \"float32\"), C: "
                              "T.Buffer((8, 4), \"float32\")):\n"
                              "    T.func_attr({\"tir.noalias\": T.bool(True)})\n"
                              "    # with T.block(\"root\"):\n"
                              "    for i_0, i_1, j, k in T.grid(2, 4, 4, 6):\n"
                              "             ^^^     ^\n"
                              "        with T.block(\"C\"):\n"
                              "            v_i = T.axis.spatial(8, i_0 * 4 + i_1)\n"
                              "            v_j, v_k = T.axis.remap(\"SR\", [j, k])\n"
                              "            T.reads(A[v_i, v_k], B[v_k, v_j])\n"
                              "            T.writes(C[v_i, v_j])\n"
                              "            with T.init():\n"
                              "                C[v_i, v_j] = T.float32(0)\n"
                              "            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]\n"
                              "Error message: fuse: the loop 'k' is not the only statement in the body of loop "
                              "'i_1'\n")
                          .arg(trace));
    }
    // The same step from a JSON trace names the instruction's line.
    writeFile(dir.filePath("bad.json"), "[\n  [\n    [\"GetBlock\", [], [\"C\"], [\"b0\"]],\n"
                                        "    [\"GetLoops\", [\"b0\"], [], [\"l1\", \"l2\", \"l3\"]],\n"
                                        "    [\"Split\", [\"l1\", [3, 2]], [], [\"l4\", \"l5\"]]\n  ],\n  []\n]\n");
    auto r = runCli({"print", dir.filePath("mm.te"), "--trace", dir.filePath("bad.json")});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.startsWith(QString("%1:5:5: error: split of loop 'i': the factors multiply to 6, less than the "
                                      "extent 8\n"
                                      "      [\"Split\", [\"l1\", [3, 2]], [], [\"l4\", \"l5\"]]\n"
                                      "      ^\n"
                                      "ScheduleError: An error occurred in the schedule primitive 'split'.\n")
                                  .arg(dir.filePath("bad.json"))),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("    for i, j, k in T.grid(8, 4, 6):\n"
                            "        ^\n"),
             qPrintable(r.err));
  }

  void refusedStepUnderlinesTheLoopItWasGiven() {
    // stencil1d has a loop i in heat_init and one in heat_update: a refused parallel on
    // heat_update's i underlines that loop only, never the other block's i.
    QTemporaryDir dir;
    const QString trace = dir.filePath("par.py");
    writeFile(trace, "b = sch.get_block(\"heat_update\")\n"
                     "t, i = sch.get_loops(b)\n"
                     "sch.parallel(i)\n");
    auto r = runCli({"print", "samples/stencil1d.te", "--trace", trace});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("    for _, i in T.grid(1, 1024):\n"
                            "        with T.block(\"heat_init\"):\n"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("    for t in range(1, 64):\n"
                            "        for i in range(1024):\n"
                            "        ^^^^^^^^^^^^^^^^^^^^^\n"
                            "            with T.block(\"heat_update\"):\n"
                            "            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"),
             qPrintable(r.err));
    QCOMPARE(r.err.count(QStringLiteral("^\n")), 2); // the two underlines above, no third
  }

  void malformedTraceExitsWithStatus2_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("firstLine");
    QTest::newRow("python syntax") << "t.py" << "b = sch.get_block(\"C\")\nl = sch.get_loops(b]\n"
                                   << "%1:2:20: error: expected ',' or ')', found ']'";
    QTest::newRow("unknown primitive") << "t.py" << "b = sch.get_block(\"C\")\nsch.tile(b)\n"
                                       << "%1:2:5: error: unknown schedule primitive 'tile'";
    QTest::newRow("json syntax") << "t.json" << "[\n  [\n    [\"GetBlock\", [], [\"C\"], [\"b0\"]]\n  ],\n  [\n]\n"
                                 << "%1:7:1: error: invalid JSON: syntax error while parsing array - unexpected "
                                    "end of input; expected ']'";
    QTest::newRow("json unknown kind") << "t.json" << "[[[\"GetBlok\", [], [\"C\"], [\"b0\"]]], []]\n"
                                       << "%1:1:3: error: instruction 0: unknown instruction kind 'GetBlok'";
    QTest::newRow("unknown extension") << "t.txt" << "b = sch.get_block(\"C\")\n"
                                       << "error: '%1': unknown trace format '.txt'; traces are TVM Python scripts "
                                          "(.py) or JSON traces (.json)";
  }
  void malformedTraceExitsWithStatus2() {
    QFETCH(QString, name);
    QFETCH(QString, text);
    QFETCH(QString, firstLine);
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kMatmul);
    writeFile(dir.filePath(name), text.toStdString());
    for (const QString& sub : {QString("print"), QString("check")}) {
      auto r = runCli({sub, dir.filePath("mm.te"), "--trace", dir.filePath(name)});
      QCOMPARE(r.exitCode, 2);
      QCOMPARE(r.out, QString());
      QCOMPARE(r.err.section('\n', 0, 0), firstLine.arg(dir.filePath(name)));
    }
  }

  void missingTraceFile() {
    auto r = runCli({"print", "samples/matmul.te", "--trace", "nope.py"});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: cannot read 'nope.py': No such file or directory\n"));
  }

  void helpMentionsTraceOptions() {
    auto p = runCli({"print", "--help"});
    QVERIFY(p.out.contains("--trace"));
    QVERIFY(p.out.contains("--format"));
    auto c = runCli({"check", "--help"});
    QVERIFY(c.out.contains("--trace"));
    auto bad = runCli({"print", "samples/matmul.te", "--format", "dot"});
    QCOMPARE(bad.exitCode, 2);
  }
};

QTEST_GUILESS_MAIN(TestCliTrace)
#include "tst_cli_trace.moc"
