// `loopscape-cli run` and `export` end to end: verification lines, the timing table parsed
// for sanity (positive, min <= median <= max; never for speed), .npy inputs and outputs as
// `check` reads and writes them, the in-process mode, refusals, $CC used by both plugins
// (compiling, linking) with the build cache in $LOOPSCAPE_CACHE_DIR, and an export directory.
#include "core/ir/ndarray.h"
#include "core/ir/npy.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

namespace {

const char* kMatmul = R"(from tvm import te
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

struct Result {
  int exitCode = -1;
  QString out, err;
};

} // namespace

class TestCliRun : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_dir;
  QString m_program, m_trace;

  /// `loopscape-cli args...`, with the variables of `extra` set in its environment.
  Result cli(const QStringList& args, const QProcessEnvironment& extra = {}) {
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("LOOPSCAPE_MACHINE_CACHE", m_dir.filePath("machine.json"));
    env.remove("LOOPSCAPE_WORKER");
    env.insert(extra);
    p.setProcessEnvironment(env);
    p.start(LS_CLI_PATH, args);
    if (!p.waitForFinished(120000)) return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
  }

  /// Checks the timing table: three positive times with min <= median <= max.
  static void checkTable(const QString& out) {
    const QStringList lines = out.split('\n');
    const int header = lines.indexOf(QRegularExpression("^\\s+min ms\\s+median ms\\s+max ms.*"));
    QVERIFY2(header > 0, qPrintable(out));
    QVERIFY(lines[header - 1].startsWith("timing: "));
    const QStringList v = lines[header + 1].split(' ', Qt::SkipEmptyParts);
    QCOMPARE(v.size(), 7);
    bool ok[3];
    const double mn = v[0].toDouble(&ok[0]), med = v[1].toDouble(&ok[1]), mx = v[2].toDouble(&ok[2]);
    QVERIFY(ok[0] && ok[1] && ok[2]);
    QVERIFY(mn > 0);
    QVERIFY(mn <= med && med <= mx);
    QVERIFY(v[4].toDouble() > 0); // GFLOP/s
    QCOMPARE(v[6], QString("7.385")); // AI = 2*64*32*48 FLOP / 4*(64*48+48*32+64*32) bytes
    QVERIFY(out.contains("\nwork: 196608 FLOP (exact), 26624 bytes compulsory\n") ||
            out.contains("\nwork: 196608 FLOP (exact), 26624 bytes compulsory"));
    // The modeled traffic (core/codegen/traffic_model.h): the three matrices (26 KiB) fit
    // any L2, so every schedule moves the compulsory bytes.
    QVERIFY2(out.contains(QRegularExpression("\nmodeled traffic: 26624 bytes beyond a \\d+ [KM]iB cache, 64-byte "
                                             "lines \\(AI 7\\.385 FLOP/B\\)\n")),
             qPrintable(out));
    QVERIFY(out.contains(QRegularExpression("\ncounters: (cycles \\d+|hardware counters unavailable: perf_event_open "
                                            "failed with [A-Z]+ \\(.*\\))\n")));
  }

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_program = m_dir.filePath("matmul.te");
    m_trace = m_dir.filePath("tile.py");
    std::ofstream(m_program.toStdString()) << kMatmul;
    std::ofstream(m_trace.toStdString()) << kTile;
  }

  void runVerifiesAndTimes() {
    const auto r = cli({"run", m_program, "--trace", m_trace, "--target", "cpu-c", "--verify", "--repeat", "3",
                        "--number", "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY(r.out.contains("input  A            float32  (64, 48)           random, seed 0\n"));
    QVERIFY(r.out.contains("input  B            float32  (48, 32)           random, seed 1\n"));
    QVERIFY2(r.out.contains(QRegularExpression("\noutput C\\s+float32\\s+\\(64, 32\\)\\s+ok \\(max abs error "
                                               "[0-9.e+-]+, max rel error [0-9.e+-]+; rtol 0.0001, atol 1e-05\\)\n")),
             qPrintable(r.out));
    QVERIFY(r.out.contains("\nreference: the reference interpreter\n"));
    QVERIFY(r.out.contains("timing: isolated worker, 3 repeats x 2 calls, 1 warm-up\n"));
    checkTable(r.out);
    QVERIFY(r.out.contains(QRegularExpression("\npeak: [0-9.]+ GFLOP/s fp32 on \\d+ cores? \\(")));
  }

  void runCpuLlvmInTheWorker() {
    // cpu-llvm's kernel runs in the isolated worker as a shared library (the JIT serves
    // --in-process), verified against the interpreter, with and without fast-math.
    for (const char* fast : {"", "--fast-math"}) {
      QStringList args = {"run", m_program, "--trace", m_trace, "--target", "cpu-llvm", "--verify", "--repeat", "2",
                          "--number", "1", "--no-peak"};
      if (*fast) args << fast;
      const auto r = cli(args);
      QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
      QVERIFY2(r.out.contains(QRegularExpression("\noutput C\\s+float32\\s+\\(64, 32\\)\\s+ok \\(max abs error "
                                                 "[0-9.e+-]+, max rel error [0-9.e+-]+; rtol 0.0001, atol 1e-05\\)\n")),
               qPrintable(r.out));
      QVERIFY(r.out.contains("timing: isolated worker, 2 repeats x 1 call, 1 warm-up\n"));
      checkTable(r.out);
    }
  }

  void runWithoutVerifyInProcess() {
    const auto r = cli({"run", m_program, "--target", "cpu-c", "--in-process", "--repeat", "2", "--min-repeat-ms",
                        "5", "--no-peak"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QRegularExpression("\noutput C\\s+float32\\s+\\(64, 32\\)\\s+not verified \\(sum=")),
             qPrintable(r.out));
    QVERIFY(r.out.contains("timing: in process, 2 repeats x "));
    checkTable(r.out);
    QVERIFY(!r.out.contains("\npeak: "));
  }

  void inputsAndSaveAsCheck() {
    const QString in = m_dir.filePath("in"), out = m_dir.filePath("out");
    QVERIFY(QDir().mkpath(in));
    loopscape::ir::NDArray a({64, 48}, loopscape::ir::DataType::float32()), b({48, 32}, loopscape::ir::DataType::float32());
    a.fillRandom(100);
    b.fillRandom(200);
    QVERIFY(loopscape::ir::saveNpy((in + "/A.npy").toStdString(), a).has_value());
    QVERIFY(loopscape::ir::saveNpy((in + "/B.npy").toStdString(), b).has_value());
    const auto r = cli({"run", m_program, "--target", "cpu-c", "--verify", "--inputs", in, "--save", out, "--repeat",
                        "1", "--number", "1", "--no-peak"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY(r.out.contains(QString("input  A            float32  (64, 48)           from %1/A.npy\n").arg(in)));
    QVERIFY(r.out.contains(QString("saved  C            %1/C.npy\n").arg(out)));
    auto saved = loopscape::ir::loadNpy((out + "/C.npy").toStdString());
    QVERIFY(saved.has_value());
    QCOMPARE(saved->shape(), (std::vector<std::int64_t>{64, 32}));
    // The interpreter (`check`) on the same inputs agrees with the compiled result.
    const QString checked = m_dir.filePath("checked");
    const auto c = cli({"check", m_program, "--inputs", in, "--save", checked});
    QVERIFY2(c.exitCode == 0, qPrintable(c.out + c.err));
    auto reference = loopscape::ir::loadNpy((checked + "/C.npy").toStdString());
    QVERIFY(reference.has_value());
    QVERIFY(!loopscape::ir::firstMismatch(*saved, *reference, 1e-5, 1e-4).has_value());
  }

  void refusals_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown target") << QStringList{"run", "@P", "--target", "no-such"} << 2 << "no-such";
    QTest::newRow("target required") << QStringList{"run", "@P"} << 2 << "--target is required";
    QTest::newRow("export to a non-C target") << QStringList{"export", "@P", "--target", "no-such", "--out", "@D"}
                                              << 2 << "no-such";
  }
  void refusals() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    for (auto& a : args) a = a == "@P" ? m_program : a == "@D" ? m_dir.filePath("x") : a;
    const auto r = cli(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
  }

  void bothPluginsUseTheCompilerInCC() {
    // A $CC that logs its arguments, with an empty build cache: cpu-c compiles the kernel
    // with it and cpu-llvm links the kernel's shared library with it (plugins/common).
    const QString log = m_dir.filePath("cc.log");
    const QString wrapper = m_dir.filePath("logging-cc");
    std::ofstream(wrapper.toStdString()) << "#!/bin/sh\necho \"$@\" >> '" << log.toStdString() << "'\nexec cc \"$@\"\n";
    QVERIFY(QFile::setPermissions(wrapper, QFile::permissions(wrapper) | QFileDevice::ExeOwner));
    QProcessEnvironment env;
    env.insert("CC", wrapper);
    env.insert("LOOPSCAPE_CACHE_DIR", m_dir.filePath("cache"));
    const auto targets = cli({"targets"}, env);
    QVERIFY2(targets.out.contains(QRegularExpression("  toolchain: (gcc|clang) [0-9.]+ at " +
                                                     QRegularExpression::escape(wrapper) + "\n")),
             qPrintable(targets.out));
    for (const char* target : {"cpu-c", "cpu-llvm"}) {
      const auto r = cli({"run", m_program, "--target", target, "--repeat", "1", "--no-peak"}, env);
      QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    }
    QFile file(log);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString calls = QString::fromUtf8(file.readAll());
    QVERIFY2(calls.contains(QRegularExpression("-shared .*/cache/cpu-c/[0-9a-f]{16}\\.c -lm\n")), qPrintable(calls));
    QVERIFY2(calls.contains(QRegularExpression("-shared .*/cache/cpu-llvm/.*_runtime\\.c -lm\n")), qPrintable(calls));
  }

  void exportWritesTheDirectory() {
    const QString out = m_dir.filePath("exported");
    const auto r = cli({"export", m_program, "--trace", m_trace, "--target", "cpu-c", "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QCOMPARE(r.out, QString("kernel main_kernel\nwrote  %1/kernel.c\nwrote  %1/kernel.h\nwrote  %1/libkernel.so\n"
                            "wrote  %1/README.txt\n")
                        .arg(out));
    QFile header(out + "/kernel.h");
    QVERIFY(header.open(QIODevice::ReadOnly));
    const QString h = QString::fromUtf8(header.readAll());
    QVERIFY(h.contains(QString("// Generated by loopscape-cli export from %1 with trace %2 for target cpu-c.\n")
                           .arg(m_program, m_trace)));
    QVERIFY(h.contains("void main_kernel(float* A, float* B, float* C);\n"));
  }
};

QTEST_GUILESS_MAIN(TestCliRun)
#include "tst_cli_run.moc"
