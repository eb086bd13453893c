// `loopscape-cli tune` end to end: a short search with records and a curve, the best record
// applied by `print` and `run` through `--trace best:LOG`, refusals, a Relay model's fused
// groups sharing the trials, and Ctrl-C (SIGINT) stopping a long search with its records
// kept.
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <csignal>
#include <fstream>

namespace {

const char* kMatmul = R"(from tvm import te
A = te.placeholder((48, 32), dtype="float32", name="A")
B = te.placeholder((32, 64), dtype="float32", name="B")
k = te.reduce_axis((0, 32), name="k")
C = te.compute((48, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

const char* kOther = R"(from tvm import te
A = te.placeholder((16,), dtype="float32", name="A")
B = te.compute((16,), lambda i: A[i] * 2.0, name="B")
)";

// Two identical dense + relu groups (one task of weight 2) and a softmax.
const char* kRelay = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4, 16), float32], %w1: Tensor[(16, 16), float32], %w2: Tensor[(16, 16), float32]) {
  %0 = nn.dense(%x, %w1);
  %1 = nn.relu(%0);
  %2 = nn.dense(%1, %w2);
  %3 = nn.relu(%2);
  nn.softmax(%3)
}
)";

struct Result {
  int exitCode = -1;
  QString out, err;
};

int lineCount(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return -1;
  return static_cast<int>(f.readAll().count('\n'));
}

} // namespace

class TestCliTune : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_dir;
  QString m_program, m_other, m_log;

  QProcessEnvironment environment() {
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("LOOPSCAPE_MACHINE_CACHE", m_dir.filePath("machine.json"));
    env.insert("LOOPSCAPE_WORKER", LS_WORKER_PATH);
    return env;
  }
  Result cli(const QStringList& args) {
    QProcess p;
    p.setProcessEnvironment(environment());
    p.start(LS_CLI_PATH, args);
    if (!p.waitForFinished(180000)) return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
  }

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_program = m_dir.filePath("mm.te");
    m_other = m_dir.filePath("other.te");
    m_log = m_dir.filePath("mm.log");
    std::ofstream(m_program.toStdString()) << kMatmul;
    std::ofstream(m_other.toStdString()) << kOther;
  }

  void tuneWritesRecordsAndCurve() {
    const QString curve = m_dir.filePath("curve.csv");
    auto r = cli({"tune", m_program, "--trials", "6", "--batch", "3", "--population", "8", "--records", m_log,
                  "--curve", curve, "--seed", "3", "--threads", "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.startsWith("tune: main on cpu-llvm (2 threads), strategy mixed, model xgb, 6 trials\n"),
             qPrintable(r.err));
    QVERIFY(r.err.contains(QRegularExpression(R"(tune: 3/6 trials, best [0-9.]+ GFLOP/s)")));
    QVERIFY(r.err.contains("tune: 6/6 trials"));
    QVERIFY(r.out.startsWith("# tuned main on cpu-llvm: 6 candidates measured, "));
    QVERIFY2(
        r.out.contains(QRegularExpression(
            R"(# best: [0-9.]+ GFLOP/s, [0-9.]+ ms \(trial [1-6], family (tir|poly), sketch [^\n]+\), verified against the reference\n# from tvm import tir\n)")),
        qPrintable(r.out));
    QVERIFY(r.out.contains("# curve written to " + curve));
    QCOMPARE(lineCount(m_log), 6);
    // The cost model is kept beside the log (booster and training data).
    QVERIFY2(r.err.contains("tune: cost model saved to " + m_log + ".xgb\n"), qPrintable(r.err));
    QVERIFY(!r.err.contains("cost model loaded"));
    QVERIFY(QFileInfo(m_log + ".xgb").size() > 0);
    QVERIFY(QFileInfo(m_log + ".xgb.data").size() > 0);
    QFile csv(curve);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList rows = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 7);
    QCOMPARE(rows.front(), QString("trial,seconds,best_gflops,best_gbps"));
    QVERIFY(rows[6].startsWith("6,"));
  }

  /// A program with a handful of schedules: the search stops when they are all measured,
  /// and says so. A copy does no floating-point work: its speed is in GB/s (its 32 bytes,
  /// A read and B written once, over the time).
  void exhaustedSpaceSaysSo() {
    const QString copy = m_dir.filePath("copy.te");
    std::ofstream(copy.toStdString()) << "from tvm import te\nA = te.placeholder((4,), dtype=\"float32\", name=\"A\")\n"
                                         "B = te.compute((4,), lambda i: A[i], name=\"B\")\n";
    const QString curve = m_dir.filePath("copy-curve.csv");
    auto r =
        cli({"tune", copy, "--trials", "100", "--batch", "4", "--population", "4", "--threads", "1", "--curve", curve});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QRegularExpressionMatch m =
        QRegularExpression(
            R"(tune: the search space ran out after (\d+) of 100 trials: three rounds in a row drew no candidate that was not measured before\n)")
            .match(r.err);
    QVERIFY2(m.hasMatch(), qPrintable(r.err));
    QVERIFY2(r.out.startsWith("# tuned main on cpu-llvm: " + m.captured(1) + " candidates measured, "),
             qPrintable(r.out));
    QVERIFY(m.captured(1).toInt() < 100);
    QVERIFY2(r.err.contains(QRegularExpression(R"(tune: \d+/100 trials, best [0-9.]+ GB/s \()")), qPrintable(r.err));
    const QRegularExpressionMatch best =
        QRegularExpression(R"(\n# best: ([0-9.]+) GB/s, ([0-9.e+-]+) ms \(trial )").match(r.out);
    QVERIFY2(best.hasMatch(), qPrintable(r.out));
    const double gbps = 32 / (best.captured(2).toDouble() * 1e-3) / 1e9;
    QVERIFY2(std::abs(best.captured(1).toDouble() - gbps) <= 0.06 + 0.01 * gbps,
             qPrintable(best.captured(0) + QString(" against %1").arg(gbps)));
    QFile csv(curve);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList rows = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.front(), QString("trial,seconds,best_gflops,best_gbps"));
    const QStringList last = rows.back().split(',');
    QCOMPARE(last.size(), 4);
    QCOMPARE(last[2], QString("0.000"));
    QVERIFY2(last[3].toDouble() > 0, qPrintable(rows.back()));
  }

  void bestRecordAppliesToPrintAndRun() {
    auto plain = cli({"print", m_program});
    auto best = cli({"print", m_program, "--trace", "best:" + m_log});
    QVERIFY2(best.exitCode == 0, qPrintable(best.err));
    QVERIFY2(best.err.contains(QRegularExpression(
                 "note: best:" + QRegularExpression::escape(m_log) +
                 R"(: trial [1-6] \(.+\), [0-9.]+ GFLOP/s on cpu-llvm with 2 thread\(s\), verified\n)")),
             qPrintable(best.err));
    QVERIFY(best.out != plain.out);
    auto run = cli({"run", m_program, "--trace", "best:" + m_log, "--target", "cpu-llvm", "--verify", "--repeat", "1"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QVERIFY(run.out.contains("ok"));
  }

  void evaluateModelOnTheRecords() {
    const auto modelTime = QFileInfo(m_log + ".xgb").lastModified();
    auto r = cli({"tune", m_program, "--records", m_log, "--threads", "2", "--evaluate-model", "3"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains(QRegularExpression(
                 "^# " + QRegularExpression::escape(m_log) +
                 R"(: 3-fold cross-validation of the cost model on 6 records of main \([0-6] successful\)\n)")),
             qPrintable(r.out));
    for (const char* model : {"xgb", "prior", "random"})
      QVERIFY2(
          r.out.contains(QRegularExpression(
              QString(
                  R"(\n# %1: held-out rank correlation -?[0-9.]+, top pick [0-9.]+ of the best \(mean of [0-3] folds\)\n)")
                  .arg(model))),
          qPrintable(r.out));
    QVERIFY2(r.err.contains("tune: replaying the records of main: 6/6\n"), qPrintable(r.err));
    // Nothing is searched or written: the log and the model beside it are as they were.
    QCOMPARE(lineCount(m_log), 6);
    QCOMPARE(QFileInfo(m_log + ".xgb").lastModified(), modelTime);
    QVERIFY(!r.out.contains("# tuned"));

    auto folds = cli({"tune", m_program, "--records", m_log, "--threads", "2", "--evaluate-model", "7"});
    QCOMPARE(folds.exitCode, 2);
    QVERIFY2(folds.err.contains("error: cannot cross-validate 6 measured programs in 7 folds (at least 2 folds, and a "
                                "program per fold)"),
             qPrintable(folds.err));
    auto noLog = cli({"tune", m_program, "--evaluate-model", "3"});
    QCOMPARE(noLog.exitCode, 2);
    QVERIFY2(noLog.err.contains("error: --evaluate-model needs the records (--records LOG)"), qPrintable(noLog.err));
  }

  void recordWithPaddingAtTheTileChecked() {
    // A record of the conv layer whose compute_at the exact check could not finish (poly.quota,
    // after 2,000,000 isl operations, when it compared whole times of the recomputed padding):
    // the tuner kept it on verification alone. Now the check finishes, and best: applies the
    // record checked once, as the tuner did, verified or not, with no note. The same record
    // with the two halves of rc swapped (the float sums reassociated) is refused with the
    // broken dependence.
    const std::string record =
        R"J({"workload":"main:a9a545803a42c998","func":"main","target":"cpu-llvm","options":{"threads":2,"fast_math":true},)J"
        R"J("family":"tir","sketch":"tir(conv2d_nchw: tile, pad_temp: compute_at)","trace":[[["GetBlock",[],["conv2d_nchw","main"],["b0"]],)J"
        R"J(["GetLoops",["b0"],[],["l1","l2","l3","l4","l5","l6","l7"]],["SamplePerfectTile",["l2"],[4,64],["v8","v9","v10","v11"]],)J"
        R"J(["Split",["l2",["v8","v9","v10","v11"]],[true,false],["l12","l13","l14","l15"]],["SamplePerfectTile",["l3"],[4,64],)J"
        R"J(["v16","v17","v18","v19"]],["Split",["l3",["v16","v17","v18","v19"]],[true,false],["l20","l21","l22","l23"]],)J"
        R"J(["SamplePerfectTile",["l4"],[4,64],["v24","v25","v26","v27"]],["Split",["l4",["v24","v25","v26","v27"]],[true,false],)J"
        R"J(["l28","l29","l30","l31"]],["SamplePerfectTile",["l5"],[2,64],["v32","v33"]],["Split",["l5",["v32","v33"]],[true,false],)J"
        R"J(["l34","l35"]],["Reorder",["l1","l12","l20","l28","l13","l21","l29","l34","l14","l22","l30","l35","l6","l7","l15","l23",)J"
        R"J("l31"],[],[]],["GetBlock",[],["pad_temp","main"],["b36"]],["SampleComputeLocation",["b36"],[],["l37"]],)J"
        R"J(["ComputeAt",["b36","l37"],[true,-1],[]]],[[2,[2,8,2,2]],[4,[7,2,2,2]],[6,[1,7,1,8]],[8,[4,16]],[12,2]]],)J"
        R"J("seconds":[0.0045,0.0043,0.0044],"gflops":53.6,"error":"","verified":VERIFIED,"trial":30,)J"
        R"J("time":"2026-12-02T05:44:45Z","version":"0.1.0"})J";
    const QString conv = QStringLiteral(LS_SOURCE_DIR "/samples/conv2d_nchw.te");
    const QString verified = m_dir.filePath("quota.log"), unverified = m_dir.filePath("quota-unverified.log"),
                  swapped = m_dir.filePath("swapped.log");
    std::ofstream(verified.toStdString())
        << QString::fromStdString(record).replace("VERIFIED", "true").toStdString() << "\n";
    std::ofstream(unverified.toStdString())
        << QString::fromStdString(record).replace("VERIFIED", "false").toStdString() << "\n";
    std::ofstream(swapped.toStdString()) << QString::fromStdString(record)
                                                .replace("VERIFIED", "true")
                                                .replace(R"("l29","l34","l14","l22","l30","l35")",
                                                         R"("l29","l35","l14","l22","l30","l34")")
                                                .toStdString()
                                         << "\n";

    for (const QString& log : {verified, unverified}) {
      auto applied = cli({"print", conv, "--trace", "best:" + log});
      QVERIFY2(applied.exitCode == 0, qPrintable(applied.err));
      QCOMPARE(applied.err, "note: best:" + log +
                                ": trial 30 (tir(conv2d_nchw: tile, pad_temp: compute_at)), 53.6 GFLOP/s on cpu-llvm "
                                "with 2 thread(s)" +
                                (log == verified ? ", verified" : "") + "\n");
      QVERIFY(applied.out.contains("for ax0, ax1, ax2, ax3 in T.grid("));
    }
    auto refused = cli({"print", conv, "--trace", "best:" + swapped});
    QCOMPARE(refused.exitCode, 3);
    QVERIFY(refused.out.isEmpty());
    QVERIFY2(refused.err.contains("error: best:" + swapped +
                                  ": the record's program is illegal: the RAW dependence from conv2d_nchw(v_nn=0, "
                                  "v_ff=0, v_yy=0, v_xx=0, v_rc=15, v_ry=2, v_rx=2) to conv2d_nchw(v_nn=0, v_ff=0, "
                                  "v_yy=0, v_xx=0, v_rc=16, v_ry=0, v_rx=0) on conv2d_nchw[0, 0, 0, 0] is violated"),
             qPrintable(refused.err));
    QCOMPARE(cli({"print", conv, "--trace", "best:" + swapped, "--no-verify-legality"}).exitCode, 0);
  }

  void refusals() {
    auto strategy = cli({"tune", m_program, "--strategy", "greedy", "--trials", "1"});
    QCOMPARE(strategy.exitCode, 2);
    QVERIFY(strategy.err.contains(
        "error: unknown search strategy 'greedy': use evolutionary, annealing, poly, mixed or random"));
    auto model = cli({"tune", m_program, "--model", "mlp", "--trials", "1"});
    QCOMPARE(model.exitCode, 2);
    QVERIFY2(model.err.contains("error: unknown cost model 'mlp' (known: xgb, random, prior)"), qPrintable(model.err));
    auto other = cli({"print", m_other, "--trace", "best:" + m_log});
    QCOMPARE(other.exitCode, 2);
    QVERIFY2(other.err.contains("' has no successful record of this program (workload main:"), qPrintable(other.err));
    auto missing = cli({"print", m_program, "--trace", "best:" + m_dir.filePath("none.log")});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY(missing.err.contains("no such tuning log"));
  }

  void relayModelTasksShareTheTrials() {
    const QString model = m_dir.filePath("two.relay");
    std::ofstream(model.toStdString()) << kRelay;
    auto r = cli({"tune", model, "--trials", "6", "--batch", "1", "--population", "4", "--threads", "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.startsWith("tune: 2 tasks (3 kernel launches) on cpu-llvm (2 threads), strategy mixed, model xgb, "
                              "6 trials\n"),
             qPrintable(r.err));
    // Round robin first: one round each, then the gradient decides.
    QVERIFY(r.err.contains("tune: 1/6 trials, round of task 1 (tvmgen_default_fused_nn_dense_nn_relu), weighted "
                           "latency not yet known\n"));
    QVERIFY(r.err.contains(QRegularExpression(
        R"(tune: 2/6 trials, round of task 2 \(tvmgen_default_fused_nn_softmax\), weighted latency [0-9.e-]+ ms\n)")));
    QVERIFY2(r.out.contains(QRegularExpression(
                 R"(# tuned 2 tasks on cpu-llvm: 6 candidates measured, 0 failed; weighted latency [0-9.e-]+ ms\n)")),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QRegularExpression(
        R"(# task 1/2: tvmgen_default_fused_nn_dense_nn_relu \(weight 2, from [^)]+\): [1-5] rounds, [1-5] measured\n# best: )")));
    QVERIFY(r.out.contains("# task 2/2: tvmgen_default_fused_nn_softmax (weight 1, from "));
    QVERIFY(r.out.contains("# curve\ntrial,seconds,weighted_ms\n"));
  }

  void interruptKeepsTheRecords() {
    const QString log = m_dir.filePath("long.log");
    QProcess p;
    p.setProcessEnvironment(environment());
    p.start(LS_CLI_PATH, {"tune", m_program, "--trials", "500", "--batch", "2", "--population", "4", "--records", log,
                          "--strategy", "evolutionary"});
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(lineCount(log) >= 2, 60000);
    ::kill(static_cast<pid_t>(p.processId()), SIGINT);
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 130);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains("tune: interrupted; the records so far are kept"), qPrintable(err));
    const int lines = lineCount(log);
    QVERIFY(lines >= 2 && lines < 500);
    // The log is whole: a new search resumes from it.
    auto resumed = cli({"tune", m_program, "--trials", "1", "--batch", "1", "--population", "4", "--records", log,
                        "--strategy", "evolutionary"});
    QCOMPARE(resumed.exitCode, 0);
    QVERIFY2(resumed.err.contains(QString(", resuming from %1 records in ").arg(lines)), qPrintable(resumed.err));
    QVERIFY2(resumed.err.contains("tune: cost model loaded from " + log + ".xgb\n"), qPrintable(resumed.err));
    QVERIFY(resumed.err.contains("tune: cost model saved to " + log + ".xgb\n"));
  }

  void unreadableModelStartsAfresh() {
    const QString log = m_dir.filePath("bad-model.log");
    std::ofstream(QString(log + ".xgb.data").toStdString()) << "not a model";
    auto r = cli({"tune", m_program, "--trials", "2", "--batch", "2", "--population", "4", "--records", log,
                  "--strategy", "evolutionary"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("warning: '" + log +
                            ".xgb.data' is not a cost model's training data: no LSXGBD01 header; the cost model "
                            "starts afresh\n"),
             qPrintable(r.err));
    QVERIFY(r.err.contains("tune: cost model saved to " + log + ".xgb\n"));
    // Saved over the bad file: the next search reads it.
    auto again = cli({"tune", m_program, "--trials", "1", "--batch", "1", "--population", "4", "--records", log,
                      "--strategy", "evolutionary"});
    QVERIFY2(again.err.contains("tune: cost model loaded from " + log + ".xgb\n"), qPrintable(again.err));
  }

  void priorModelAndColdStart() {
    // The prior alone (it learns nothing; its file names it), and a cold start.
    const QString log = m_dir.filePath("prior.log");
    auto r = cli({"tune", m_program, "--trials", "2", "--batch", "2", "--population", "4", "--records", log,
                  "--strategy", "evolutionary", "--model", "prior", "--threads", "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.startsWith("tune: main on cpu-llvm (2 threads), strategy evolutionary, model prior, 2 trials\n"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("tune: cost model saved to " + log + ".prior\n"), qPrintable(r.err));
    QCOMPARE(lineCount(log), 2);
    const QString cold = m_dir.filePath("cold.log");
    auto c = cli({"tune", m_program, "--trials", "2", "--batch", "2", "--population", "4", "--records", cold,
                  "--strategy", "evolutionary", "--no-prior"});
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    QCOMPARE(lineCount(cold), 2);
  }
};

QTEST_GUILESS_MAIN(TestCliTune)
#include "tst_cli_tune.moc"
