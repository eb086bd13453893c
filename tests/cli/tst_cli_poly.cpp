// loopscape-cli poly: `poly FILE --auto [--fusion max|smart|min] [--tile 32,32] [--exact-deps] [--check]
// [--trace T]` prints the program regenerated from the isl schedule and the trace (with
// one comment line before it: poly_* steps are not TVM methods); --check interprets both
// programs on the same seeded inputs. Bad options exit with status 2, an illegal poly step
// of --trace with status 3 and its counterexample.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_helpers.h"

#include <fstream>

using loopscape::testing::runCli;
using loopscape::testing::writeFile;
using Run = loopscape::testing::CliRun;

namespace {
// samples/stencil1d.te at T, N = 4, 9 (small enough for --check to be instant).
const char* kStencil = "from tvm import te\n"
                       "T, N = 4, 9\n"
                       "X0 = te.placeholder((N,), name=\"X0\")\n"
                       "state = te.placeholder((T, N), name=\"state\")\n"
                       "init = te.compute((1, N), lambda _, i: X0[i], name=\"heat_init\")\n"
                       "update = te.compute((T, N), lambda t, i: te.if_then_else(te.all(i > 0, i < N - 1), "
                       "0.25 * state[t - 1, i - 1] + 0.5 * state[t - 1, i] + 0.25 * state[t - 1, i + 1], "
                       "state[t - 1, i]), name=\"heat_update\")\n"
                       "heat = te.scan(init, update, state, inputs=[X0], name=\"heat\")\n";

const char* kTraceHeader = "# trace (poly_* steps are Loopscape-only, not TVM tir.Schedule methods)\n"
                           "# from tvm import tir\n";
} // namespace

class TestCliPoly : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    writeFile(m_dir.filePath("stencil.te"), kStencil);
  }

  void autoTilePrintsProgramAndTrace() {
    auto r = runCli({"poly", "samples/matmul.te", "--auto", "--tile", "32,32"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    QVERIFY2(r.out.contains("    for i_0, j_0, i_1, j_1, k in T.grid(32, 32, 32, 32, 1024):\n"
                            "        with T.block(\"C\"):\n"
                            "            v_i = T.axis.spatial(1024, i_0 * 32 + i_1)\n"
                            "            v_j = T.axis.spatial(1024, j_0 * 32 + j_1)\n"
                            "            v_k = T.axis.reduce(1024, k)\n"),
             qPrintable(r.out));
    QVERIFY2(r.out.endsWith(QString(kTraceHeader) +
                            "sch.poly_auto(fusion=\"max\", outer_coincidence=False, maximize_band_depth=True, "
                            "algorithm=\"isl\", tile=[32, 32], simplify_deps=True, target=\"cpu\")\n"),
             qPrintable(r.out));
  }

  void optimizePrintsDecisionsAndTrace() {
    // --optimize with a given machine model: the program, the decisions as comments, and
    // the trace with the model and the decision; --check compares it with the original.
    writeFile(m_dir.filePath("mm32.te"),
              "A = placeholder((32, 24), \"float32\", name=\"A\")\n"
              "B = placeholder((24, 48), \"float32\", name=\"B\")\n"
              "k = reduce_axis((0, 24), name=\"k\")\n"
              "C = compute((32, 48), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n");
    auto r = runCli({"poly", m_dir.filePath("mm32.te"), "--optimize", "--machine",
                     "l1=2K,l2=16K,vector=32,registers=16", "--check"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("    for i_0 in T.parallel(2):\n"), qPrintable(r.out));
    QVERIFY2(r.out.contains("                for j_1_1 in T.vectorized(16):\n"), qPrintable(r.out));
    QVERIFY2(r.out.contains("with T.block(\"C_init\"):"), qPrintable(r.out));
    QVERIFY2(r.out.contains("\n# poly_optimize decisions\n"
                            "#   machine: l1=2K,l2=16K,l3=8M,vector=32,registers=16\n"
                            "#   band (i, j, k): permutable, coincident: i, j\n"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QString(kTraceHeader) +
                            "sch.poly_optimize(fusion=\"smart\", tile=[], unroll_jam=[], parallel=True, "
                            "wavefront=False, vectorize=True, "
                            "machine=\"l1=2K,l2=16K,l3=8M,vector=32,registers=16\", pack=True, parallel_depth=1, "
                            "decision=[["),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("check: C equal (rtol 1e-5)\n"), qPrintable(r.out));
    // Without vectorization and unroll-and-jam, with the user's tile sizes.
    auto plain = runCli({"poly", m_dir.filePath("mm32.te"), "--optimize", "--no-vectorize", "--no-parallel", "--tile",
                         "16,16,8", "--machine", "vector=32,registers=16"});
    QCOMPARE(plain.exitCode, 0);
    QVERIFY2(!plain.out.contains("T.vectorized") && !plain.out.contains("T.parallel") &&
                 !plain.out.contains("T.unroll"),
             qPrintable(plain.out));
    QVERIFY2(plain.out.contains("#   cache tile 16 x 16 x 8:"), qPrintable(plain.out));
    // Refusals.
    auto both = runCli({"poly", m_dir.filePath("mm32.te"), "--optimize", "--auto"});
    QCOMPARE(both.exitCode, 2);
    QCOMPARE(both.err,
             QString("error: --optimize runs the isl scheduler itself; give --auto or --optimize, not both\n"));
    auto gpuOptimize = runCli({"poly", m_dir.filePath("mm32.te"), "--optimize", "--target", "gpu"});
    QCOMPARE(gpuOptimize.exitCode, 2);
    QCOMPARE(gpuOptimize.err, QString("error: --target gpu maps the isl schedule onto a GPU with --auto; --optimize "
                                      "schedules for this CPU\n"));
    auto machine = runCli({"poly", m_dir.filePath("mm32.te"), "--optimize", "--machine", "l1=fast"});
    QCOMPARE(machine.exitCode, 2);
    QCOMPARE(machine.err,
             QString("error: --machine l1=fast: 'fast' is not a positive size (K, M or G suffix allowed)\n"));
  }

  void optimizePacksAndFusesParallelLoops() {
    // The NT dense: W is copied transposed first (said in the decisions) and j is
    // vectorized; --no-pack keeps W; --parallel-depth 2 fuses i's and j's tile loops.
    writeFile(m_dir.filePath("nt.te"),
              "A = placeholder((32, 24), \"float32\", name=\"A\")\n"
              "W = placeholder((48, 24), \"float32\", name=\"W\")\n"
              "k = reduce_axis((0, 24), name=\"k\")\n"
              "C = compute((32, 48), lambda i, j: sum(A[i, k] * W[j, k], axis=k), name=\"C\")\n");
    auto r = runCli(
        {"poly", m_dir.filePath("nt.te"), "--optimize", "--machine", "l1=2K,l2=16K,vector=32,registers=16", "--check"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("    W_global = T.alloc_buffer((24, 48))\n"), qPrintable(r.out));
    QVERIFY2(r.out.contains("                W_global[v1, v0] = W[v0, v1]\n"), qPrintable(r.out));
    QVERIFY2(r.out.contains("T.vectorized("), qPrintable(r.out));
    QVERIFY2(r.out.contains("#   pack: W (48 x 24) read by C with stride 24 along v_j: copied first into W_global "
                            "(24 x 48, dimension 0 last), read with stride 1 along v_j; each element is read 32 times "
                            "(v_i), the copy moves it once (5 KiB)\n"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("check: C equal (rtol 1e-5)\n"), qPrintable(r.out));
    auto plain = runCli({"poly", m_dir.filePath("nt.te"), "--optimize", "--no-pack", "--machine",
                         "l1=2K,l2=16K,vector=32,registers=16"});
    QCOMPARE(plain.exitCode, 0);
    QVERIFY2(!plain.out.contains("W_global") && !plain.out.contains("#   pack:"), qPrintable(plain.out));
    QVERIFY2(plain.out.contains("pack=False, parallel_depth=1"), qPrintable(plain.out));
    auto fused = runCli({"poly", m_dir.filePath("nt.te"), "--optimize", "--parallel-depth", "2", "--tile", "16,16",
                         "--machine", "l1=2K,l2=16K,vector=32,registers=16", "--check"});
    QCOMPARE(fused.exitCode, 0);
    QVERIFY2(fused.out.contains("for i_0_j_0_fused in T.parallel(6):\n"), qPrintable(fused.out));
    QVERIFY2(fused.out.contains("#   parallel: the tile loops of i, j fused into one parallel loop of 6 tiles\n"),
             qPrintable(fused.out));
    QVERIFY2(fused.out.contains("check: C equal (rtol 1e-5)\n"), qPrintable(fused.out));
    auto bad = runCli({"poly", m_dir.filePath("nt.te"), "--optimize", "--parallel-depth", "0"});
    QCOMPARE(bad.exitCode, 2);
    QCOMPARE(bad.err,
             QString("error: --parallel-depth expects 1 to 8 (1: the outermost coincident tile loop alone)\n"));
  }

  void singleTileKeepsLoopNames() {
    // Tiling i (8) by 8 leaves one tile: isl drops that loop from the AST, and the loops
    // after it keep their own names (j's tile loop is j_0, not the name of the dropped one).
    writeFile(m_dir.filePath("mm8.te"),
              "A = placeholder((8, 5), \"float32\", name=\"A\")\n"
              "B = placeholder((5, 6), \"float32\", name=\"B\")\n"
              "k = reduce_axis((0, 5), name=\"k\")\n"
              "C = compute((8, 6), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n");
    auto r = runCli({"poly", m_dir.filePath("mm8.te"), "--auto", "--tile", "8,2"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("    for j_0, i_1, j_1, k in T.grid(3, 8, 2, 5):\n"
                            "        with T.block(\"C\"):\n"
                            "            v_i = T.axis.spatial(8, i_1)\n"
                            "            v_j = T.axis.spatial(6, j_0 * 2 + j_1)\n"),
             qPrintable(r.out));
  }

  void autoForGpu() {
    // --target gpu: PPCG's mapping, printed with its trace step; the program binds the tile
    // loops to blocks and the point loops to threads, with B's tile in shared memory.
    auto r = runCli({"poly", "samples/matmul.te", "--auto", "--target", "gpu", "--tile", "32,32"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("    for i_0 in T.thread_binding(32, thread=\"blockIdx.y\"):\n"
                            "        for j_0 in T.thread_binding(32, thread=\"blockIdx.x\"):\n"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("                for i_1 in T.thread_binding(32, thread=\"threadIdx.y\"):\n"
                            "                    for j_1 in T.thread_binding(32, thread=\"threadIdx.x\"):\n"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("    B_shared = T.alloc_buffer((1024, 1024), scope=\"shared\")\n"), qPrintable(r.out));
    QVERIFY2(r.out.contains("sch.poly_auto(fusion=\"max\", outer_coincidence=False, maximize_band_depth=True, "
                            "algorithm=\"isl\", tile=[32, 32], simplify_deps=True, target=\"gpu\")\n"),
             qPrintable(r.out));
    auto bad = runCli({"poly", "samples/matmul.te", "--auto", "--target", "tpu"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--target: tpu not in {cpu,gpu}"), qPrintable(bad.err));
  }

  void fusionMinDistributes() {
    // conv_bias_relu: min fusion keeps the four nests apart; max on the exact dependences
    // fuses pad_temp into the conv's nest (computed at ff == 0 and ry == 1, the conv
    // shifted by 2) and T_add with T_relu into a second nest, each block once.
    auto min = runCli({"poly", "samples/conv_bias_relu.te", "--auto", "--fusion", "min"});
    QCOMPARE(min.exitCode, 0);
    QCOMPARE(min.out.count("\n    for "), 4);
    QVERIFY(min.out.contains("sch.poly_auto(fusion=\"min\","));
    auto max = runCli({"poly", "samples/conv_bias_relu.te", "--auto", "--fusion", "max", "--exact-deps"});
    QCOMPARE(max.exitCode, 0);
    QCOMPARE(max.out.count("\n    for "), 2);
    QVERIFY2(max.out.contains("    for ff, yy_i2, xx_i3, rc_i1, ry in T.grid(32, 34, 34, 16, 3):\n"
                              "        with T.block(\"pad_temp\"):\n"),
             qPrintable(max.out));
    QVERIFY2(max.out.contains("            T.where(ff == 0 and ry == 1)\n"), qPrintable(max.out));
    QVERIFY2(max.out.contains("    for f, y, x in T.grid(32, 32, 32):\n"
                              "        with T.block(\"T_add\"):\n"),
             qPrintable(max.out));
    for (const char* block : {"pad_temp", "conv2d_nchw", "T_add", "T_relu"})
      QCOMPARE(max.out.count(QString("with T.block(\"%1\")").arg(block)), 1);
    QVERIFY2(max.out.endsWith("tile=[], simplify_deps=False, target=\"cpu\")\n"), qPrintable(max.out.right(200)));
  }

  void fusionMaxOnSimplifiedDependences() {
    // The default (Polly's simplified dependences): one nest over rc and the output window
    // (yy + ry, xx + rx), the padding computed in it, then the conv over ff (parallel) and
    // the output rows and columns it touches, T_add and T_relu once the window is complete.
    auto max = runCli({"poly", "samples/conv_bias_relu.te", "--auto", "--fusion", "max"});
    QCOMPARE(max.exitCode, 0);
    QCOMPARE(max.out.count("\n    for "), 1);
    QVERIFY2(max.out.contains("    for rc_i1, yy_ry_i2_y, xx_rx_i3_x in T.grid(16, 34, 34):\n"
                              "        with T.block(\"pad_temp\"):\n"),
             qPrintable(max.out));
    QVERIFY2(max.out.contains("        for ff in range(32):\n"
                              "            for yy in range(T.max(0, yy_ry_i2_y - 2), T.min(31, yy_ry_i2_y) + 1):\n"
                              "                for xx in range(T.max(0, xx_rx_i3_x - 2), T.min(31, xx_rx_i3_x) + 1):\n"
                              "                    with T.block(\"conv2d_nchw\"):\n"),
             qPrintable(max.out));
    QVERIFY2(max.out.contains("        if rc_i1 == 15 and yy_ry_i2_y >= 2 and xx_rx_i3_x >= 2:\n"
                              "            for f in range(32):\n"
                              "                with T.block(\"T_add\"):\n"),
             qPrintable(max.out));
    QVERIFY2(max.out.endsWith("tile=[], simplify_deps=True, target=\"cpu\")\n"), qPrintable(max.out.right(200)));
  }

  void fusionSmartFusesTheEpilogue() {
    // conv_bias_relu, PPCG's "smart" fusion: the bias add and the ReLU join the conv's
    // output loops (nothing parallel is lost); the padding, which would need a shift, stays
    // a nest of its own.
    auto smart = runCli({"poly", "samples/conv_bias_relu.te", "--auto", "--fusion", "smart"});
    QCOMPARE(smart.exitCode, 0);
    QCOMPARE(smart.out.count("\n    for "), 2);
    QVERIFY2(smart.out.contains("    for i1, i2, i3 in T.grid(16, 34, 34):\n"
                                "        with T.block(\"pad_temp\"):\n"),
             qPrintable(smart.out));
    QVERIFY2(smart.out.contains("    for ff_f, yy_y, xx_x in T.grid(32, 32, 32):\n"
                                "        for rc, ry, rx in T.grid(16, 3, 3):\n"
                                "            with T.block(\"conv2d_nchw\"):\n"),
             qPrintable(smart.out));
    QVERIFY2(smart.out.contains("\n        with T.block(\"T_add\"):\n"), qPrintable(smart.out));
    QVERIFY2(smart.out.contains("\n        with T.block(\"T_relu\"):\n"), qPrintable(smart.out));
    QVERIFY(smart.out.contains("sch.poly_auto(fusion=\"smart\","));
  }

  void checkComparesResults_data() {
    QTest::addColumn<QString>("fusion");
    QTest::addColumn<QString>("tile");
    QTest::newRow("max") << "max" << "";
    QTest::newRow("min") << "min" << "";
    QTest::newRow("smart") << "smart" << "";
    QTest::newRow("max tile") << "max" << "2,2";
    QTest::newRow("smart tile") << "smart" << "2,2";
    QTest::newRow("max exact") << "max --exact-deps" << "";
    QTest::newRow("max exact tile") << "max --exact-deps" << "2,2";
  }
  void checkComparesResults() {
    QFETCH(QString, fusion);
    QFETCH(QString, tile);
    QStringList args{"poly", m_dir.filePath("stencil.te"), "--auto", "--check", "--fusion"};
    args << fusion.split(u' ');
    if (!tile.isEmpty()) args << "--tile" << tile;
    auto r = runCli(args);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.endsWith("input  X0           float32  (9,)               random, seed 0\n"
                            "check: heat equal (rtol 1e-5)\n"),
             qPrintable(r.out));
  }

  void traceThenAuto() {
    const QString trace = m_dir.filePath("wavefront.py");
    writeFile(trace, "sch.poly_skew(band=\"t\", member=1, by_member=0, factor=1)\n"
                     "sch.poly_mark(band=\"t\", member=1, kind=\"parallel\")\n");
    auto r = runCli({"poly", m_dir.filePath("stencil.te"), "--trace", trace});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("    for t in range(1, 4):\n"
                            "        for i in T.parallel(t, t + 9):\n"
                            "            with T.block(\"heat_update\"):\n"
                            "                v_t = T.axis.spatial((1, 4), t)\n"
                            "                v_i = T.axis.spatial(9, i - t)\n"),
             qPrintable(r.out));
    QVERIFY2(r.out.endsWith(QString(kTraceHeader) +
                            "sch.poly_skew(band=\"t\", member=1, by_member=0, factor=1)\n"
                            "sch.poly_mark(band=\"t\", member=1, kind=\"parallel\")\n"),
             qPrintable(r.out));
  }

  void treeInIslsYaml() {
    // isl's own block YAML of isl's bands: matmul's loops form one permutable band.
    auto r = runCli({"print", "samples/matmul.te", "--format", "tree", "--isl"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("domain: \"{ C_init[i, j, k = 0] : "), qPrintable(r.out));
    QVERIFY2(r.out.contains("child:\n  schedule: \"[{ C_init[i, j, k] -> [(i)]; C[i, j, k] -> [(i)] }, "
                            "{ C_init[i, j, k] -> [(j)]; C[i, j, k] -> [(j)] }, "
                            "{ C_init[i, j, k] -> [(k)]; C[i, j, k] -> [(k)] }]\"\n"
                            "  permutable: 1\n  coincident: [ 1, 1, 0 ]\n  child:\n    sequence:\n"),
             qPrintable(r.out));
    auto tree = runCli({"print", "samples/matmul.te", "--format", "tree"});
    QVERIFY2(tree.out.contains("  band [i, j, k] permutable: "), qPrintable(tree.out));
    auto wrong = runCli({"print", "samples/matmul.te", "--isl"});
    QCOMPARE(wrong.exitCode, 2);
    QCOMPARE(wrong.err, QStringLiteral("error: --isl only applies to --format tree\n"));
  }

  void illegalTraceStepExitsThree() {
    const QString trace = m_dir.filePath("interchange.py");
    writeFile(trace, "sch.poly_interchange(band=\"t\", permutation=[1, 0])\n");
    auto r = runCli({"poly", m_dir.filePath("stencil.te"), "--trace", trace});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(trace + ":1:1: error: poly_interchange is illegal: the RAW dependence from "
                                    "heat_update(v_t=1, v_i=2) to heat_update(v_t=2, v_i=1) on heat[1, 2] is violated: "
                                    "before, heat_update(v_t=1, v_i=2) ran at (t=1, i=2) and heat_update(v_t=2, v_i=1) "
                                    "after it at (t=2, i=1); now heat_update(v_t=2, v_i=1) runs at (i=1, t=2), before "
                                    "heat_update(v_t=1, v_i=2) at (i=2, t=1)\n"),
             qPrintable(r.err));
  }

  void badOptions_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("fusion") << QStringList{"--auto", "--fusion", "medium"} << "--fusion: medium not in {max,smart,min}";
    QTest::newRow("tile zero") << QStringList{"--auto", "--tile", "0,4"}
                               << "error: --tile expects positive sizes separated by commas, e.g. 32,32";
    QTest::newRow("tile text") << QStringList{"--auto", "--tile", "32,x"}
                               << "error: --tile expects positive sizes separated by commas, e.g. 32,32";
  }
  void badOptions() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    auto r = runCli(QStringList{"poly", "samples/matmul.te"} + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
  }

private:
  QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCliPoly)
#include "tst_cli_poly.moc"
