// loopscape-cli end to end: runs the real executable (LS_CLI_PATH) with QProcess and checks
// its exit status, stdout and stderr exactly.
#include "core/ir/ndarray.h"
#include "core/ir/npy.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_helpers.h"

#include <fstream>

using namespace loopscape;

using loopscape::testing::runCli;
using loopscape::testing::writeFile;
using Run = loopscape::testing::CliRun;

namespace {
const char* kSmallMatmul = "A = placeholder((2, 3), \"float32\", name=\"A\")\n"
                           "B = placeholder((3, 2), \"float32\", name=\"B\")\n"
                           "k = reduce_axis((0, 3), name=\"k\")\n"
                           "C = compute((2, 2), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";
} // namespace

class TestCli : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void printsSample() {
    auto r = runCli({"print", "samples/matmul.te"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("# from tvm.script import tir as T\n"), qPrintable(r.out));
    QVERIFY(r.out.contains("for i, j, k in T.grid(1024, 1024, 1024):"));
    QVERIFY(r.err.isEmpty());
  }

  void helpForEverySubcommand_data() {
    QTest::addColumn<QString>("sub");
    QTest::newRow("print") << "print";
    QTest::newRow("check") << "check";
  }
  void helpForEverySubcommand() {
    QFETCH(QString, sub);
    auto r = runCli({sub, "--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("FILE"));
  }

  void badInput_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("stderrText");
    QTest::newRow("missing file") << QStringList{"print", "nope.te"}
                                  << "error: cannot read 'nope.te': No such file or directory\n";
    QTest::newRow("unknown format")
        << QStringList{"print", "README.md"}
        << "error: 'README.md': unknown program format '.md'; loopscape reads "
           "tensor-expression files (.te), TVMScript (.py, .tvmscript) and workbench sessions (.lsproj)\n";
    QTest::newRow("unbound size") << QStringList{"check", "samples/dense_dynamic.te"}
                                  << "error: symbolic size 'n' is not bound; pass --shape n=VALUE\n";
    QTest::newRow("unknown size") << QStringList{"check", "samples/dense_dynamic.te", "--shape", "m=4"}
                                  << "error: --shape 'm=4': 'm' is not a symbolic size of the program (symbolic "
                                     "sizes: n)\n";
    QTest::newRow("bad size value") << QStringList{"check", "samples/dense_dynamic.te", "--shape", "n=0"}
                                    << "error: --shape 'n=0': the value must be a positive integer\n";
    QTest::newRow("bad binding") << QStringList{"check", "samples/dense_dynamic.te", "--shape", "n"}
                                 << "error: --shape 'n': expected NAME=VALUE\n";
  }
  void badInput() {
    QFETCH(QStringList, args);
    QFETCH(QString, stderrText);
    auto r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, stderrText);
  }

  void syntaxErrorHasLocation() {
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.te");
    writeFile(path, "A = placeholder((4, 4), name=\"A\")\nB = compute((4, 4), lambda i, j: A[i, j] + q, name=\"B\")\n");
    auto r = runCli({"print", path});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith(path + ":2:"), qPrintable(r.err));
    QVERIFY2(r.err.contains("error: "), qPrintable(r.err));
    QVERIFY2(r.err.contains("^"), qPrintable(r.err));
  }

  void checkWithInputsAndSave() {
    QTemporaryDir dir;
    const QString program = dir.filePath("mm.te");
    writeFile(program, kSmallMatmul);
    QVERIFY(QDir(dir.path()).mkpath("in"));
    auto a = ir::NDArray({2, 3}, ir::DataType::float32());
    auto b = ir::NDArray({3, 2}, ir::DataType::float32());
    for (int i = 0; i < 6; ++i) {
      a.setDouble(i, i + 1);      // A = [[1,2,3],[4,5,6]]
      b.setDouble(i, 0.5 * i);    // B = [[0,.5],[1,1.5],[2,2.5]]
    }
    QVERIFY(ir::saveNpy(dir.filePath("in/A.npy").toStdString(), a).has_value());
    QVERIFY(ir::saveNpy(dir.filePath("in/B.npy").toStdString(), b).has_value());
    auto r = runCli({"check", program, "--inputs", dir.filePath("in"), "--save", dir.filePath("out")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("output C "), qPrintable(r.out));
    auto c = ir::loadNpy(dir.filePath("out/C.npy").toStdString());
    QVERIFY(c.has_value());
    QCOMPARE(c->shape(), (std::vector<std::int64_t>{2, 2}));
    // C = A @ B = [[8, 11], [17, 24.5]]
    const double expected[] = {8, 11, 17, 24.5};
    for (int i = 0; i < 4; ++i) QCOMPARE(c->getDouble(i), expected[i]);
  }

  void inputFileProblemsNameThePlaceholder() {
    QTemporaryDir dir;
    const QString program = dir.filePath("mm.te");
    writeFile(program, kSmallMatmul);
    QVERIFY(QDir(dir.path()).mkpath("in"));
    auto wrong = ir::NDArray({3, 3}, ir::DataType::float32());
    QVERIFY(ir::saveNpy(dir.filePath("in/A.npy").toStdString(), wrong).has_value());
    auto r = runCli({"check", program, "--inputs", dir.filePath("in")});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: input 'A': file '%1' holds float32 (3, 3), but the program expects float32 (2, 3)\n")
                        .arg(dir.filePath("in/A.npy")));
    auto ok = ir::NDArray({2, 3}, ir::DataType::float32());
    QVERIFY(ir::saveNpy(dir.filePath("in/A.npy").toStdString(), ok).has_value());
    r = runCli({"check", program, "--inputs", dir.filePath("in")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith("error: input 'B': "), qPrintable(r.err));
    QVERIFY2(r.err.contains(dir.filePath("in/B.npy")), qPrintable(r.err));
  }

  void checkIsDeterministic() {
    auto r1 = runCli({"check", "samples/dense_dynamic.te", "--shape", "n=4", "--seed", "7"});
    auto r2 = runCli({"check", "samples/dense_dynamic.te", "--shape", "n=4", "--seed", "7"});
    auto r3 = runCli({"check", "samples/dense_dynamic.te", "--shape", "n=4", "--seed", "8"});
    QCOMPARE(r1.exitCode, 0);
    QCOMPARE(r1.out, r2.out);
    QVERIFY(r1.out != r3.out);
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
