// `loopscape-cli relay ...` and `print --format relay` end to end (LS_CLI_PATH): exit
// statuses, the typed print and its round trip, located bad input, the group listing,
// an interpreted run whose saved constants reproduce it, and extraction to .te.
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
  int exitCode = -1;
  QString out, err;
};

/// The compiled-group cache of every run of this test (never the user's).
QTemporaryDir& cacheDir() {
  static QTemporaryDir dir;
  return dir;
}

Run runCli(const QStringList& args) {
  QProcess p;
  p.setWorkingDirectory(QStringLiteral(LS_SOURCE_DIR));
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("LOOPSCAPE_CACHE_DIR"), cacheDir().path());
  env.insert(QStringLiteral("LOOPSCAPE_WORKER"), QStringLiteral(LS_WORKER_PATH));
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(LS_CLI_PATH), args);
  p.waitForFinished(120000);
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

QString outputLine(const QString& out) {
  for (const auto& line : out.split(QLatin1Char('\n')))
    if (line.startsWith(QStringLiteral("output 0"))) return line;
  return {};
}

} // namespace

class TstRelayCli : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void printRoundTrip() {
    Run a = runCli({"relay", "print", "samples/relay/mnist.relay"});
    QCOMPARE(a.exitCode, 0);
    QVERIFY(a.out.contains("nn.conv2d(%0, meta[relay.Constant][0] /* ty=Tensor[(8, 1, 5, 5), float32] */"));
    Run b = runCli({"print", "samples/relay/mnist.relay", "--format", "relay"});
    QCOMPARE(b.exitCode, 0);
    QCOMPARE(b.out, a.out);
    QTemporaryDir dir;
    QFile f(dir.filePath("printed.relay"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(a.out.toUtf8());
    f.close();
    Run c = runCli({"relay", "print", f.fileName()});
    QCOMPARE(c.exitCode, 0);
    QCOMPARE(c.out, a.out);
  }

  void printAfterPasses() {
    Run r = runCli({"relay", "print", "samples/relay/two_functions.relay", "--passes", "--verbose"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("%1 = multiply(%0, meta[relay.Constant][10] /* ty=Tensor[(4, 1, 1), float32] */)"),
             qPrintable(r.out));
    QVERIFY(!r.out.contains("nn.batch_norm"));
    QVERIFY(!r.out.contains("#[metadata]"));
    QVERIFY(r.err.contains("pass FoldConstant: 27 -> 14 nodes\n"));
  }

  void badInputIsLocated() {
    QTemporaryDir dir;
    QFile f(dir.filePath("bad.relay"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 3), float32], %y: Tensor[(4, 3), float32]) {\n  add(%x, "
            "%y)\n}\n");
    f.close();
    Run r = runCli({"relay", "groups", f.fileName()});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, f.fileName() +
                        ":3:3: error: add: the shapes (2, 3) of the first operand and (4, 3) of the second operand do "
                        "not broadcast\n    add(%x, %y)\n    ^~~\n");
  }

  void groupsListing() {
    Run r = runCli({"relay", "groups", "samples/relay/mnist.relay"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith("group 0 tvmgen_default_fused_nn_pad\n  pattern injective\n  ops nn.pad\n"
                             "  inputs Tensor[(1, 1, 28, 28), float32]\n  output Tensor[(1, 1, 32, 32), float32]\n"));
    QVERIFY(
        r.out.contains("group 1 tvmgen_default_fused_nn_conv2d_nn_bias_add_nn_relu\n  pattern out-elemwise-fusable\n"));
    QCOMPARE(r.out.count(QStringLiteral("group ")), 8);
    QVERIFY(
        r.out.endsWith("memory 37632 bytes planned in 2 storages for 7 intermediate tensors (naive 60416 bytes)\n"));
    // --alter-layout: the convolutions in NCHW[x]c (the second's input stays blocked
    // through max_pool2d and nn.pad), back to NCHW before the reshape.
    Run a = runCli({"relay", "groups", "samples/relay/mnist.relay", "--alter-layout", "--verbose"});
    QCOMPARE(a.exitCode, 0);
    QVERIFY2(a.err.contains(QRegularExpression(QStringLiteral(
                 "pass AlterOpLayout: 2 conv2d in NCHW\\[x\\]c, 1 dense packed \\(blocks of up to \\d+ and "
                 "\\d+ channels\\), 0 batch_matmul made NN\n"))),
             qPrintable(a.err));
    QVERIFY(a.out.contains("group 1 tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu\n"));
    QVERIFY(a.out.contains("group 3 tvmgen_default_fused_nn_pad\n"));
    QVERIFY(a.out.contains("group 6 tvmgen_default_fused_layout_transform_reshape\n"));
    QVERIFY(a.out.contains("group 7 tvmgen_default_fused_nn_contrib_dense_pack_add\n"));
  }

  void runReproducesWithSavedParams() {
    QTemporaryDir dir;
    QString params = dir.filePath("params"), out = dir.filePath("out");
    Run a = runCli({"relay", "run", "samples/relay/two_functions.relay", "--interpret", "--seed", "3", "--save-params",
                    params, "--save", out});
    QCOMPARE(a.exitCode, 0);
    QVERIFY2(a.out.contains("output 0 float32(1, 3)"), qPrintable(a.out));
    QVERIFY(QFile::exists(out + "/output_0.npy"));
    QVERIFY(QFile::exists(params + "/const_5.npy"));
    QVERIFY(!QFile::exists(params + "/const_6.npy")); // folded constants are not the file's
    // Other random constants, then the saved ones: the saved ones give the first result.
    Run b =
        runCli({"relay", "run", "samples/relay/two_functions.relay", "--interpret", "--seed", "3", "--params", params});
    QCOMPARE(b.exitCode, 0);
    QCOMPARE(outputLine(b.out), outputLine(a.out));
    Run c = runCli({"relay", "run", "samples/relay/two_functions.relay", "--seed", "3"});
    QCOMPARE(c.exitCode, 2);
    QVERIFY(c.err.contains("relay run needs either --target T (compile every group) or --interpret"));
  }

  void compiledRunMatchesInterpreter() {
    QTemporaryDir dir;
    const QString schedule = dir.filePath("mnist.schedule.json");
    Run interpreted = runCli({"relay", "run", "samples/relay/mnist.relay", "--interpret"});
    QCOMPARE(interpreted.exitCode, 0);
    Run poly = runCli({"relay", "run", "samples/relay/mnist.relay", "--target", "cpu-llvm", "--schedule", "poly",
                       "--verify", "--repeat", "2", "--write-schedule", schedule});
    QCOMPARE(poly.exitCode, 0);
    QCOMPARE(outputLine(poly.out), outputLine(interpreted.out));
    QVERIFY(poly.out.contains("model samples/relay/mnist.relay: 8 groups (8 distinct), target cpu-llvm, all cores, "
                              "schedule poly\n"));
    QVERIFY(poly.out.contains("tvmgen_default_fused_nn_dense_add"));
    QVERIFY(poly.out.contains("poly(fusion=smart)"));
    QVERIFY(poly.out.contains("verify: every group matches on its compiled inputs: 8 outputs against the reference "
                              "interpreter, 0 (too large to interpret) against the unscheduled group compiled by "
                              "cpu-llvm\n"));
    QVERIFY(poly.out.contains("end-to-end "));
    QVERIFY(poly.out.contains("verify: the whole model interpreted, output 0: ok (max abs error "));
    // The written schedule reproduces the run, now from the cache.
    Run again = runCli({"relay", "run", "samples/relay/mnist.relay", "--target", "cpu-c", "--schedule", schedule});
    QCOMPARE(again.exitCode, 0);
    QCOMPARE(outputLine(again.out), outputLine(interpreted.out));
    QVERIFY(again.out.contains("poly(fusion=smart)"));
  }

  void compiledRunRefusesAGroup() {
    QTemporaryDir dir;
    QFile trace(dir.filePath("bad.py"));
    QVERIFY(trace.open(QIODevice::WriteOnly));
    trace.write("b = sch.get_block(\"T_add\")\n"
                "i0, i1, k = sch.get_loops(sch.get_block(\"T_matmul_NT\"))\n"
                "sch.reverse_compute_at(b, k)\n");
    trace.close();
    QFile json(dir.filePath("s.json"));
    QVERIFY(json.open(QIODevice::WriteOnly));
    json.write(
        R"({"version": 1, "groups": {"tvmgen_default_fused_nn_dense_add": {"source": "trace", "file": "bad.py"}}})");
    json.close();
    Run r =
        runCli({"relay", "run", "samples/relay/mnist.relay", "--target", "cpu-llvm", "--schedule", json.fileName()});
    QCOMPARE(r.exitCode, 3);
    QVERIFY(!r.out.contains("end-to-end"));
    QVERIFY2(r.err.contains(dir.filePath("bad.py") + ":3:1: error: group tvmgen_default_fused_nn_dense_add (trace "
                                                     "bad.py): reverse_compute_at: the producer 'T_matmul_NT'"),
             qPrintable(r.err));
    QVERIFY(r.err.contains("  sch.reverse_compute_at(b, k)\n  ^~~~"));
    Run noTarget = runCli({"relay", "run", "samples/relay/mnist.relay", "--schedule", "poly"});
    QCOMPARE(noTarget.exitCode, 2);
  }

  void extractToTe() {
    QTemporaryDir dir;
    QString te = dir.filePath("g.te");
    Run r = runCli({"relay", "extract", "samples/relay/mnist.relay", "--group", "1", "--out", te});
    QCOMPARE(r.exitCode, 0);
    Run p = runCli({"print", te});
    QCOMPARE(p.exitCode, 0);
    for (const char* block : {"with T.block(\"pad_temp\")", "with T.block(\"conv2d_nchw\")", "with T.block(\"T_add\")",
                              "with T.block(\"T_relu\")"})
      QVERIFY2(p.out.contains(QString::fromUtf8(block)), block);
    Run bad = runCli({"relay", "extract", "samples/relay/mnist.relay", "--group", "8"});
    QCOMPARE(bad.exitCode, 2);
    QCOMPARE(bad.err,
             QStringLiteral("error: --group 8 is out of range: the model has 8 groups (see `relay groups`)\n"));
  }
};

QTEST_GUILESS_MAIN(TstRelayCli)
#include "tst_cli.moc"
