// loopscape-cli on inputs whose sizes, files and numbers used to crash it (issue 13, the
// fuzzing campaign): shapes whose byte size overflows 64 bits, --shape bindings beyond
// their type, sizes beyond the memory limit (--max-memory), devices, directories and
// oversized files as inputs, .npy files that disagree with their header, out-of-bounds
// reads and divisions by zero in the program (located in the .te source), and numeric
// options that are not finite or out of range. Every case exits 2 with an exact message.
#include "core/ir/ndarray.h"
#include "core/ir/npy.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_helpers.h"

#include <fstream>

using namespace loopscape;

using loopscape::testing::runCli;
using loopscape::testing::writeFile;
using Run = loopscape::testing::CliRun;

namespace {

const char* kHuge = "from tvm import te\n"
                    "A = te.placeholder((1073741824, 1073741824, 4), name=\"A\")\n"
                    "B = te.compute((1073741824, 1073741824, 4), lambda i, j, k: A[i, j, k] + 1.0, name=\"B\")\n";

const char* kVar = "from tvm import te\n"
                   "n = te.var(\"n\")\n"
                   "A = te.placeholder((n,), name=\"A\")\n"
                   "B = te.compute((n,), lambda i: A[i] * 2.0, name=\"B\")\n";

const char* kCube = "from tvm import te\n"
                    "n = te.var(\"n\")\n"
                    "A = te.placeholder((n, n, n), name=\"A\")\n"
                    "B = te.compute((n, n, n), lambda i, j, k: A[i, j, k] * 2.0, name=\"B\")\n";

const char* kChain = "from tvm import te\n"
                     "A = te.placeholder((1024,), name=\"A\")\n"
                     "B = te.compute((1024,), lambda i: A[i] * 2.0, name=\"B\")\n"
                     "C = te.compute((1024,), lambda i: B[i] + 1.0, name=\"C\")\n";

const char* kOutOfBounds = "from tvm import te\n"
                           "data = te.placeholder((4,), name=\"X\")\n"
                           "B = te.compute((4,), lambda i: data[i] + data[i + 1] * 2.0, name=\"B\")\n";

const char* kDivision = "from tvm import te\n"
                        "D = te.placeholder((4,), dtype=\"int32\", name=\"D\")\n"
                        "B = te.compute((4,), lambda i: 8 // D[i], name=\"B\")\n";

const QString kDense = QStringLiteral("samples/dense_dynamic.te");

} // namespace

class TestCliRobustSizes : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString path(const QString& name) const { return m_dir.filePath(name); }
  QString program(const QString& name, const char* text) const {
    writeFile(path(name), text);
    return path(name);
  }

private Q_SLOTS:
  // ---- sizes ----------------------------------------------------------------------

  void shapeWhoseBytesOverflow_data() {
    QTest::addColumn<QString>("command");
    QTest::newRow("check") << "check";
    QTest::newRow("run") << "run";
  }
  void shapeWhoseBytesOverflow() {
    QFETCH(QString, command);
    QStringList args{command, program("huge.te", kHuge)};
    if (command == "run")
      args << "--target"
           << "cpu-c";
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: buffer 'A' float32(1073741824, 1073741824, 4) is too large: its size in bytes "
                            "does not fit in 64 bits; use smaller sizes\n"));
  }

  void shapeBindingBeyondItsType_data() {
    QTest::addColumn<QString>("command");
    QTest::newRow("check") << "check";
    QTest::newRow("run") << "run";
  }
  void shapeBindingBeyondItsType() {
    QFETCH(QString, command);
    QStringList args{command, program("var.te", kVar), "--shape", "n=4611686018427387904"};
    if (command == "run")
      args << "--target"
           << "cpu-c";
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: --shape 'n=4611686018427387904': the value is too large for 'n', an int32 size "
                            "(at most 2147483647)\n"));
  }

  void shapeBindingBeyondInt64() {
    const Run r = runCli({"check", program("var.te", kVar), "--shape", "n=99999999999999999999"});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(
        r.err,
        QString("error: --shape 'n=99999999999999999999': the value is too large (at most 9223372036854775807)\n"));
  }

  void symbolicShapeProductOverflows_data() {
    QTest::addColumn<QString>("command");
    QTest::newRow("check") << "check";
    QTest::newRow("run") << "run";
  }
  void symbolicShapeProductOverflows() {
    QFETCH(QString, command);
    QStringList args{command, program("cube.te", kCube), "--shape", "n=2147483647"};
    if (command == "run")
      args << "--target"
           << "cpu-c";
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: buffer 'A' float32(2147483647, 2147483647, 2147483647) is too large: its size in "
                            "bytes does not fit in 64 bits; use smaller sizes\n"));
  }

  // ---- the memory limit -------------------------------------------------------------

  void sizeBeyondTheMemoryLimit_data() {
    QTest::addColumn<QString>("command");
    QTest::newRow("check") << "check";
    QTest::newRow("run") << "run";
  }
  void sizeBeyondTheMemoryLimit() {
    QFETCH(QString, command);
    QStringList args{command, kDense, "--shape", "n=268435456"};
    if (command == "run")
      args << "--target"
           << "cpu-c";
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: buffer 'data' float32(268435456, 512) is too large: it needs 549755813888 bytes "
                            "(512 GiB), more than the memory limit of 8589934592 bytes (8 GiB); use smaller sizes or "
                            "raise the limit (--max-memory)\n"));
  }

  void twoToTheFortyElements() {
    const QString file =
        program("tera.te", "from tvm import te\n"
                           "A = te.placeholder((1048576, 1048576), name=\"A\")\n"
                           "B = te.compute((1048576, 1048576), lambda i, j: A[i, j] * 2.0, name=\"B\")\n");
    const Run r = runCli({"check", file});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: buffer 'A' float32(1048576, 1048576) is too large: it needs 4398046511104 bytes "
                            "(4 TiB), more than the memory limit of 8589934592 bytes (8 GiB); use smaller sizes or "
                            "raise the limit (--max-memory)\n"));
  }

  void maxMemoryOptionSetsTheLimit() {
    const Run one = runCli({"check", kDense, "--shape", "n=1024", "--max-memory", "1M"});
    QCOMPARE(one.exitCode, 2);
    QCOMPARE(one.err, QString("error: buffer 'data' float32(1024, 512) is too large: it needs 2097152 bytes (2 MiB), "
                              "more than the memory limit of 1048576 bytes (1 MiB); use smaller sizes or raise the "
                              "limit (--max-memory)\n"));
    // Each array fits, all of them together do not.
    const Run all = runCli({"--max-memory", "3MiB", "check", kDense, "--shape", "n=1024"});
    QCOMPARE(all.exitCode, 2);
    QCOMPARE(all.err,
             QString("error: the arguments are too large: buffer 'weight' needs 2048000 bytes (1.953 MiB) "
                     "after 2097152 bytes (2 MiB) for the parameters before it, more than the memory limit "
                     "of 3145728 bytes (3 MiB) in all; use smaller sizes or raise the limit (--max-memory)\n"));
    const Run enough = runCli({"check", kDense, "--shape", "n=4", "--max-memory", "4G"});
    QCOMPARE(enough.exitCode, 0);
  }

  void maxMemoryOptionRefusesNonsense_data() {
    QTest::addColumn<QString>("value");
    QTest::newRow("zero") << "0";
    QTest::newRow("word") << "lots";
    QTest::newRow("negative") << "-1G";
    QTest::newRow("nan") << "nan";
    QTest::newRow("unit") << "8X";
  }
  void maxMemoryOptionRefusesNonsense() {
    QFETCH(QString, value);
    const Run r = runCli({"check", kDense, "--shape", "n=4", "--max-memory", value});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("--max-memory: '%1' is not a memory size; expected a positive number of bytes with an "
                            "optional unit K, M, G or T (powers of 1024), e.g. 8G or 512M\n"
                            "Run with --help for more information.\n")
                        .arg(value));
    const Run huge = runCli({"check", kDense, "--shape", "n=4", "--max-memory", "9000000T"});
    QCOMPARE(huge.exitCode, 2);
    QVERIFY2(huge.err.startsWith("--max-memory: '9000000T' is too large for a memory size (at most 8E, 2^63 bytes)\n"),
             qPrintable(huge.err));
  }

  void interpreterMemoryInAllIsLimited() {
    const Run r = runCli({"check", program("chain.te", kChain), "--max-memory", "10K"});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: buffer 'B' needs 4096 bytes (4 KiB) while the interpreter already holds 8192 "
                            "bytes (8 KiB), more than the memory limit of 10240 bytes (10 KiB) in all, in block "
                            "\"root\"\n"
                            "note: use smaller sizes or raise the limit (--max-memory)\n"));
    QCOMPARE(runCli({"check", path("chain.te"), "--max-memory", "12K"}).exitCode, 0);
  }

  // ---- files ----------------------------------------------------------------------

  void devicesAreNotPrograms() {
    const Run program = runCli({"print", "/dev/urandom"});
    QCOMPARE(program.exitCode, 2);
    QCOMPARE(program.err, QString("error: cannot read '/dev/urandom': it is a character device, not a regular file\n"));
    const Run trace = runCli({"print", kDense, "--trace", "/dev/urandom"});
    QCOMPARE(trace.exitCode, 2);
    QCOMPARE(trace.err, QString("error: cannot read '/dev/urandom': it is a character device, not a regular file\n"));
  }

  void directoriesAreNotPrograms() {
    QDir(m_dir.path()).mkpath("dir.te");
    const Run r = runCli({"check", path("dir.te")});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: cannot read '%1': it is a directory\n").arg(path("dir.te")));
    QDir(m_dir.path()).mkpath("dir.py");
    const Run t = runCli({"print", kDense, "--trace", path("dir.py")});
    QCOMPARE(t.exitCode, 2);
    QCOMPARE(t.err, QString("error: cannot read '%1': it is a directory\n").arg(path("dir.py")));
  }

  void programFilesAreLimited() {
    writeFile(path("big.te"), std::string(17 << 20, '#'));
    const Run r = runCli({"print", path("big.te")});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: cannot read '%1': it is larger than 16 MiB (16777216 bytes), the limit for "
                            "program, trace and session files\n")
                        .arg(path("big.te")));
  }

  void npyInputsMustBeRegularFilesThatMatchTheirHeader() {
    const QString file = program("div.te", kDivision);
    QDir dir(m_dir.path());
    // A directory where D.npy should be (this aborted on an uncaught std::ios_failure).
    dir.mkpath("in-dir/D.npy");
    Run r = runCli({"check", file, "--inputs", path("in-dir")});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: input 'D': '%1': cannot open: it is a directory\n").arg(path("in-dir/D.npy")));
    // A link to /dev/zero (this read until bad_alloc).
    dir.mkpath("in-zero");
    QVERIFY(QFile::link("/dev/zero", path("in-zero/D.npy")));
    r = runCli({"check", file, "--inputs", path("in-zero")});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: input 'D': '%1': cannot open: it is a device or a socket, not a regular file\n")
                        .arg(path("in-zero/D.npy")));
    // More data than the header says.
    dir.mkpath("in-long");
    auto bytes = ir::encodeNpy(ir::NDArray({4}, ir::DataType::int32()));
    bytes.resize(bytes.size() + 3);
    {
      std::ofstream out(path("in-long/D.npy").toStdString(), std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    r = runCli({"check", file, "--inputs", path("in-long")});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("error: input 'D': '%1': the file holds 3 more bytes after the 16 bytes of data its "
                            "header declares for int32(4,); the header does not match the data\n")
                        .arg(path("in-long/D.npy")));
  }

  // ---- faults of the program --------------------------------------------------------

  void outOfBoundsReadIsTheProgramsFault() {
    const QString file = program("oob.te", kOutOfBounds);
    const Run r = runCli({"check", file});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("%1:3:42: error: out-of-bounds load X[4] (shape (4)) in block \"B\" at v_i=3\n"
                            "  B = te.compute((4,), lambda i: data[i] + data[i + 1] * 2.0, name=\"B\")\n"
                            "                                           ^~~~~~~~~~~\n"
                            "note: the program reads or writes outside the buffer's shape; fix the index expression "
                            "or the shapes\n")
                        .arg(file));
  }

  void divisionByZeroIsTheProgramsFault() {
    const QString file = program("div.te", kDivision);
    QDir(m_dir.path()).mkpath("zeros");
    QVERIFY(ir::saveNpy(path("zeros/D.npy").toStdString(), ir::NDArray({4}, ir::DataType::int32())));
    const Run r = runCli({"check", file, "--inputs", path("zeros")});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("%1:3:32: error: integer division by zero (FloorDiv) in block \"B\" at v_i=0\n"
                            "  B = te.compute((4,), lambda i: 8 // D[i], name=\"B\")\n"
                            "                                 ^~~~~~~~~\n"
                            "note: an integer division or modulo in the program divides by zero for these index "
                            "values\n")
                        .arg(file));
  }

  // ---- numeric options --------------------------------------------------------------

  void numericOptionsAreChecked_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("error");
    const QStringList run{"run", "VAR", "--shape", "n=4", "--target", "cpu-c"};
    QTest::newRow("min-repeat-ms 1e308") << (run + QStringList{"--min-repeat-ms", "1e308"})
                                         << "--min-repeat-ms: the value '1e308' is not between 0 and 3.6e+06";
    QTest::newRow("timeout nan") << (run + QStringList{"--timeout", "nan"})
                                 << "--timeout: the value 'nan' is not a finite number between 0.001 and 86400";
    QTest::newRow("timeout inf") << (run + QStringList{"--timeout", "inf"})
                                 << "--timeout: the value 'inf' is not a finite number between 0.001 and 86400";
    QTest::newRow("repeat 0") << (run + QStringList{"--repeat", "0"})
                              << "--repeat: the value '0' is not between 1 and 1e+06";
    QTest::newRow("repeat 1.5") << (run + QStringList{"--repeat", "1.5"})
                                << "--repeat: the value '1.5' is not a whole number between 1 and 1e+06";
    QTest::newRow("threads -1") << (run + QStringList{"--threads", "-1"})
                                << "--threads: the value '-1' is not between 0 and 4096";
    QTest::newRow("rtol nan") << (run + QStringList{"--verify", "--rtol", "nan"})
                              << "--rtol: the value 'nan' is not a finite number between 0 and 1e+06";
    QTest::newRow("interpret-limit -1") << (run + QStringList{"--interpret-limit", "-1"})
                                        << "--interpret-limit: the value '-1' is not between 0 and 1e+15";
    QTest::newRow("check atol inf") << QStringList{"check", "VAR", "--shape", "n=4", "--atol", "inf"}
                                    << "--atol: the value 'inf' is not a finite number between 0 and 1e+30";
  }
  void numericOptionsAreChecked() {
    QFETCH(QStringList, args);
    QFETCH(QString, error);
    args.replaceInStrings("VAR", program("var.te", kVar));
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, error + "\nRun with --help for more information.\n");
  }
};

QTEST_GUILESS_MAIN(TestCliRobustSizes)
#include "tst_cli_robust_sizes.moc"
