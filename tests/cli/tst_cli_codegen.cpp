// loopscape-cli codegen commands end to end (the real executable, LS_CLI_PATH): `targets`
// lists cpu-c as usable; `print --format c|asm --target cpu-c` shows the generated code;
// thread bindings are refused on the CPU naming the loop.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_helpers.h"

#include <fstream>

using loopscape::testing::runCli;
using loopscape::testing::writeFile;
using Run = loopscape::testing::CliRun;

namespace {
const char* kSmallMatmul = "A = placeholder((4, 8), \"float32\", name=\"A\")\n"
                           "B = placeholder((8, 16), \"float32\", name=\"B\")\n"
                           "k = reduce_axis((0, 8), name=\"k\")\n"
                           "C = compute((4, 16), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";
} // namespace

class TestCliCodegen : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void targetsListsCpuC() {
    auto r = runCli({"targets"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(QRegularExpression(
                 "^cpu-c  \\(usable\\) C99 \\+ OpenMP source compiled by the system C compiler",
                 QRegularExpression::MultilineOption)),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("  device: cpu; parallel: yes; vector bits: "), qPrintable(r.out));
    QVERIFY2(r.out.contains("  formats: c, asm\n"), qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression("  toolchain: (gcc|clang) [0-9.]+ at /")), qPrintable(r.out));
  }

  void targetsListsCpuLlvm() {
    auto r = runCli({"targets"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(QRegularExpression("^cpu-llvm  \\(usable\\) LLVM 16[0-9.]* IR, O3 for the host CPU \\([a-z0-9-]+\\), "
                                               "ORC JIT in-process; parallel loops on OpenMP\n",
                                               QRegularExpression::MultilineOption)),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("  formats: llvm, asm\n"), qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression("  file: /.*/loopscape-target-cpu-llvm\\.so\n")), qPrintable(r.out));
  }

  void printLlvmFastMathOnlyWhenAsked() {
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kSmallMatmul);
    auto strict = runCli({"print", dir.filePath("mm.te"), "--format", "llvm"});
    QCOMPARE(strict.exitCode, 0);
    QVERIFY2(strict.out.contains(QRegularExpression("= fmul <(8|16) x float> ")), qPrintable(strict.out.left(2000)));
    QVERIFY(!strict.out.contains(" fast "));
    auto fast = runCli({"print", dir.filePath("mm.te"), "--format", "llvm", "--fast-math"});
    QCOMPARE(fast.exitCode, 0);
    QVERIFY2(fast.out.contains(QRegularExpression("= fmul fast <(8|16) x float> ")), qPrintable(fast.out.left(2000)));
    QVERIFY(fast.out.contains(QRegularExpression("= fadd fast <(8|16) x float> ")));
  }

  void printC() {
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kSmallMatmul);
    writeFile(dir.filePath("mm.py"), "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\n"
                                     "sch.reorder(i, k, j)\nsch.parallel(i)\nsch.vectorize(j)\n");
    auto r = runCli({"print", dir.filePath("mm.te"), "--trace", dir.filePath("mm.py"), "--format", "c", "--target",
                     "cpu-c"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("void main_kernel(float* restrict A, float* restrict B, float* restrict C) {\n"),
             qPrintable(r.out));
    QVERIFY(r.out.contains("  #pragma omp parallel for\n  for (int64_t i = 0; i < 4; ++i) {\n    main_kernel_par0(C, A, B, i);\n"));
    QVERIFY(r.out.contains("static void main_kernel_par0(float* restrict C, float* restrict A, float* restrict B, int64_t i) {\n"));
    QVERIFY(r.out.contains("typedef float ls_f32x16 __attribute__((vector_size(64), aligned(4), may_alias));\n"));
    QVERIFY(r.out.contains("// block C (init)\n"));
    QVERIFY(r.err.isEmpty());
  }

  void printAsm() {
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kSmallMatmul);
    auto r = runCli({"print", dir.filePath("mm.te"), "--format", "asm"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("main_kernel:\n"), qPrintable(r.out.left(300)));
  }

  void vectorizeRemarkOnStderr() {
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kSmallMatmul);
    writeFile(dir.filePath("mm.py"), "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nsch.reorder(j, k, i)\n"
                                     "sch.vectorize(i)\n");
    auto r = runCli({"print", dir.filePath("mm.te"), "--trace", dir.filePath("mm.py"), "--format", "c"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.err, QString("remark: loop 'i': vectorize fell back to a scalar loop: the store to C is not "
                            "contiguous in the loop variable\n"));
  }

  void threadBindingRefused() {
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kSmallMatmul);
    writeFile(dir.filePath("mm.py"), "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nsch.bind(j, \"threadIdx.x\")\n");
    auto r = runCli({"print", dir.filePath("mm.te"), "--trace", dir.filePath("mm.py"), "--format", "c"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.startsWith("error: loop 'j' is bound to threadIdx.x, but target device 'cpu' has no GPU threads\n"),
             qPrintable(r.err));
  }

  void unknownTarget() {
    auto r = runCli({"print", "samples/matmul.te", "--format", "c", "--target", "nope"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith("error: no target plugin named 'nope'\n"), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestCliCodegen)
#include "tst_cli_codegen.moc"
