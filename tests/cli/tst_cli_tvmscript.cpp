// loopscape-cli on TVMScript input: print/check/legal/run/poly/export accept a printed
// program (.py) and pick a module's function with --func; run reads and writes .npy arrays
// named by the parameters; `equal` says equal or shows the first difference with exit 1.
#include "cli_test_helpers.h"

#include "core/ir/ndarray.h"
#include "core/ir/npy.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using loopscape::testing::runCli;
using loopscape::testing::writeFile;

namespace {

const char* kModule = R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def double(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("B"):
                v = T.axis.spatial(8, i)
                B[v] = A[v] * T.float32(2)

    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("B"):
                v = T.axis.spatial(8, i)
                B[v] = A[v] + T.float32(1)
)";

// The signature of samples/dense_dynamic.te as TVM 0.27 prints it.
const char* kDenseDynamicTirx =
    R"(def main(data: T.Buffer(("n", 512), "float32"), weight: T.Buffer((1000, 512), "float32"), T_matmul_NT: T.Buffer((n, 1000), "float32")):
    n = T.int32()
    T.func_attr({"tirx.noalias": True})
)";

} // namespace

class TestCliTvmScript : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void printedGoldenChecksLikeTheSample() {
    auto te = runCli({"check", "samples/softmax.te"});
    auto py = runCli({"check", "tests/frontend/golden/samples/softmax.py"});
    QCOMPARE(te.exitCode, 0);
    QCOMPARE(py.exitCode, 0);
    QCOMPARE(py.out, te.out);
  }

  void moduleFunctionsByFlag() {
    QTemporaryDir dir;
    const QString path = dir.filePath("m.py");
    writeFile(path, kModule);
    auto main = runCli({"print", path});
    QCOMPARE(main.exitCode, 0);
    QVERIFY2(main.out.contains("B[v] = A[v] + T.float32(1)"), qPrintable(main.out));
    auto dbl = runCli({"print", path, "--func", "double"});
    QCOMPARE(dbl.exitCode, 0);
    QVERIFY2(dbl.out.contains("B[v] = A[v] * T.float32(2)"), qPrintable(dbl.out));
    auto none = runCli({"print", path, "--func", "triple"});
    QCOMPARE(none.exitCode, 2);
    QCOMPARE(none.err, "error: " + path +
                           ": no function 'triple' in the module (it has double, main); choose one with --func NAME\n");
  }

  void traceOnTvmScript() {
    auto r = runCli({"legal", "tests/frontend/golden/samples/matmul.py", "--trace", "samples/traces/matmul_tile.py"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QString("legal\n"));
  }

  void runPolyAndExportAModuleFunction() {
    QTemporaryDir dir;
    const QString path = dir.filePath("m.py");
    writeFile(path, kModule);
    // run: the parameter A is read (never written first) from DIR/A.npy, B saved to DIR/B.npy.
    loopscape::ir::NDArray a({8}, loopscape::ir::DataType::float32());
    for (int i = 0; i < 8; ++i)
      a.setDouble(i, 0.5 * i - 1);
    QVERIFY(loopscape::ir::saveNpy(dir.filePath("A.npy").toStdString(), a).has_value());
    auto run = runCli({"run", path, "--func", "double", "--target", "cpu-c", "--verify", "--repeat", "1", "--number",
                       "1", "--no-peak", "--inputs", dir.path(), "--save", dir.path()});
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    QVERIFY2(run.out.contains("input  A            float32  (8,)               from " + dir.filePath("A.npy")),
             qPrintable(run.out));
    QVERIFY2(run.out.contains(QRegularExpression("\noutput B\\s+float32\\s+\\(8,\\)\\s+ok ")), qPrintable(run.out));
    auto b = loopscape::ir::loadNpy(dir.filePath("B.npy").toStdString());
    QVERIFY(b.has_value());
    for (int i = 0; i < 8; ++i)
      QCOMPARE(b->getDouble(i), 2 * (0.5 * i - 1));
    // poly: the isl scheduler on the module's main.
    auto poly = runCli({"poly", path, "--auto", "--tile", "4"});
    QVERIFY2(poly.exitCode == 0, qPrintable(poly.out + poly.err));
    QVERIFY2(poly.out.contains("B[v] = A[v] + T.float32(1)"), qPrintable(poly.out));
    QVERIFY2(poly.out.contains("sch.poly_auto("), qPrintable(poly.out));
    // export: the kernel of the chosen function as C with its header.
    auto exp = runCli({"export", path, "--func", "double", "--target", "cpu-c", "--out", dir.filePath("out")});
    QVERIFY2(exp.exitCode == 0, qPrintable(exp.out + exp.err));
    QVERIFY(QFile::exists(dir.filePath("out/kernel.c")));
    QVERIFY(QFile::exists(dir.filePath("out/kernel.h")));
  }

  void loweredKernelsScansAndTuning() {
    // A kernel TVM has lowered (launched threads, an assumption) and a scan: printed back
    // as written, checked by the interpreter; a CPU target refuses the bound threads by
    // name; tune takes a TVMScript file like a .te one.
    QTemporaryDir dir;
    const QString kernel = dir.filePath("k.py");
    const char* kernelText = R"(# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def k(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    T.assume(A[0] < T.float32(1000.0))
    with T.launch_thread("blockIdx.x", 4) as bx:
        tx = T.launch_thread("threadIdx.x", 32)
        B[bx * 32 + tx] = A[bx * 32 + tx] * T.float32(2.0)
)";
    writeFile(kernel, kernelText);
    auto print = runCli({"print", kernel});
    QVERIFY2(print.exitCode == 0, qPrintable(print.err));
    QCOMPARE(print.out, QString::fromUtf8(kernelText));
    auto check = runCli({"check", kernel});
    QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
    QVERIFY2(check.out.contains(QRegularExpression("\noutput B\\s+float32\\s+\\(128,\\)")), qPrintable(check.out));
    auto cpu = runCli({"run", kernel, "--target", "cpu-c"});
    QCOMPARE(cpu.exitCode, 2);
    QVERIFY2(cpu.err.contains("error: loop 'bx' is bound to blockIdx.x, but target device 'cpu' has no GPU threads"),
             qPrintable(cpu.err));

    const QString scan = dir.filePath("scan.py");
    writeFile(scan, R"(@T.prim_func
def scan(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            v = T.axis.scan(8, i)
            B[v] = T.if_then_else(v == 0, A[v], B[v - 1] + A[v])
)");
    auto legal = runCli({"legal", scan, "--trace", "samples/traces/matmul_tile.py"});
    QCOMPARE(legal.exitCode, 3);
    auto run = runCli({"run", scan, "--target", "cpu-c", "--verify", "--repeat", "1", "--number", "1", "--no-peak"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    QVERIFY2(run.out.contains(QRegularExpression("\noutput B\\s+float32\\s+\\(8,\\)\\s+ok ")), qPrintable(run.out));

    const QString module = dir.filePath("m.py");
    writeFile(module, kModule);
    auto tune = runCli({"tune", module, "--target", "cpu-c", "--trials", "2", "--batch", "2", "--model", "random",
                        "--curve", dir.filePath("curve.csv")});
    QVERIFY2(tune.exitCode == 0, qPrintable(tune.out + tune.err));
    QVERIFY2(tune.out.startsWith("# tuned main on cpu-c: 2 candidates measured, 0 failed\n"), qPrintable(tune.out));
    QVERIFY2(tune.out.contains("verified against the reference"), qPrintable(tune.out));
  }

  void printsInTheDialectOfTheFile() {
    // A tirx file prints in tirx, a .te file in tir; --dialect chooses either.
    auto tirx = runCli({"print", "tests/cli/data/tvm_pairs/rfactor/before.py"});
    QCOMPARE(tirx.exitCode, 0);
    QVERIFY2(tirx.out.startsWith("# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n"
                                 "@T.prim_func(s_tir=True)\n"),
             qPrintable(tirx.out));
    QVERIFY2(tirx.out.contains("        with T.sblock(\"B\"):\n"), qPrintable(tirx.out));
    QVERIFY2(tirx.out.contains("B[vi] = T.float32(0.0)\n"), qPrintable(tirx.out));
    auto tir = runCli({"print", "tests/cli/data/tvm_pairs/rfactor/before.py", "--dialect", "tir"});
    QVERIFY2(tir.out.startsWith("# from tvm.script import tir as T\n\n@T.prim_func\n"), qPrintable(tir.out));
    auto te = runCli({"print", "samples/dense_dynamic.te", "--dialect", "tirx"});
    QCOMPARE(te.exitCode, 0);
    QVERIFY2(te.out.contains(kDenseDynamicTirx), qPrintable(te.out));
    // TVM 0.27's own result of a schedule in tests/cli/data/tvm_pairs, printed by us,
    // reads back equal to it.
    QTemporaryDir dir;
    const QString ours = dir.filePath("ours.py");
    auto scheduled = runCli({"print", "tests/cli/data/tvm_pairs/matmul_tile/before.py", "--trace",
                             "tests/cli/data/tvm_pairs/matmul_tile/trace.py"});
    QCOMPARE(scheduled.exitCode, 0);
    writeFile(ours, scheduled.out.toStdString());
    auto same = runCli({"equal", ours, "tests/cli/data/tvm_pairs/matmul_tile/expected.py"});
    QCOMPARE(same.out, QString("equal\n"));
    auto bad = runCli({"print", "samples/matmul.te", "--dialect", "tvm"});
    QCOMPARE(bad.exitCode, 2);
  }

  void parseErrorIsLocated() {
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.py");
    writeFile(path, "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    A[0] = B[0]\n");
    auto r = runCli({"print", path});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, path + ":3:12: error: name 'B' is not defined\n      A[0] = B[0]\n             ^\n");
  }

  void equalAndDifferent() {
    auto same = runCli({"equal", "samples/matmul.te", "tests/frontend/golden/samples/matmul.py"});
    QCOMPARE(same.exitCode, 0);
    QCOMPARE(same.out, QString("equal\n"));
    auto traced =
        runCli({"equal", "samples/matmul.te", "samples/matmul.te", "--trace-b", "samples/traces/matmul_tile.py"});
    QCOMPARE(traced.exitCode, 1);
    QVERIFY2(traced.out.startsWith("not equal: the constants differ\n  at: block \"root\" > for i > extent\n"
                                   "  first:  1024\n  second: 32\n"),
             qPrintable(traced.out));
    QVERIFY2(traced.out.contains("  second (samples/matmul.te as printed, line 7):\n"
                                 "        for i_0 in T.parallel(32):\n"
                                 "        ^^^^^^^^^^^^^^^^^^^^^^^^^^\n"),
             qPrintable(traced.out));
  }
};

QTEST_GUILESS_MAIN(TestCliTvmScript)
#include "tst_cli_tvmscript.moc"
