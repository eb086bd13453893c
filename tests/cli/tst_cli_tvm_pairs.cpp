// Loopscape's schedule primitives held against Apache TVM's results, without TVM: each
// folder of tests/cli/data/tvm_pairs/ holds a program (before.py, TVMScript as TVM 0.27
// prints it), a schedule (trace.py) and what TVM 0.27 made of them, written by
// bench/tvm_golden_pairs.py: expected.py, which `loopscape-cli equal` must find
// structurally equal to our result, or expected-error.txt, where Loopscape must refuse
// the schedule as well (exit 3).
#include "cli_test_helpers.h"

#include <QDir>
#include <QFile>
#include <QtTest>

using loopscape::testing::runCli;

class TestCliTvmPairs : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void pairs_data() {
    QTest::addColumn<QString>("folder");
    const QDir root(QStringLiteral(LS_SOURCE_DIR "/tests/cli/data/tvm_pairs"));
    const QStringList names = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    QVERIFY(names.size() >= 10);
    for (const QString& name : names)
      QTest::newRow(qPrintable(name)) << QStringLiteral("tests/cli/data/tvm_pairs/") + name;
  }

  void pairs() {
    QFETCH(QString, folder);
    const QString before = folder + "/before.py", trace = folder + "/trace.py";
    if (QFile::exists(QStringLiteral(LS_SOURCE_DIR "/") + folder + "/expected.py")) {
      auto r = runCli({"equal", before, folder + "/expected.py", "--trace-a", trace});
      QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
      QCOMPARE(r.out, QStringLiteral("equal\n"));
    } else {
      QVERIFY(QFile::exists(QStringLiteral(LS_SOURCE_DIR "/") + folder + "/expected-error.txt"));
      auto r = runCli({"print", before, "--trace", trace});
      QVERIFY2(r.exitCode == 3, qPrintable(r.out + r.err));
    }
  }
};

QTEST_GUILESS_MAIN(TestCliTvmPairs)
#include "tst_cli_tvm_pairs.moc"
