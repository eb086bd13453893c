// One legality policy everywhere: the same illegal trace is refused by `loopscape-cli run`
// (exit 3) and by the workbench, with the same report (the program with the blocks
// underlined and the counterexample), and only --no-verify-legality lets the CLI run it.
#include "gui_helpers.h"

#include "app/gui/session.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

struct Run {
  int exitCode = -1;
  QString out, err;
};

Run runCli(const QStringList& args) {
  QProcess p;
  p.setWorkingDirectory(QStringLiteral(LS_SOURCE_DIR));
  p.start(QStringLiteral(LS_CLI_PATH), args);
  if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit) return {};
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

constexpr char kIllegal[] = "t, i = sch.get_loops(sch.get_block(\"heat_update\"))\nsch.reorder(i, t)\n";

/// The report part of a rendered refusal: from TVM's "ScheduleError" header to the end.
QString report(const QString& text) {
  const qsizetype at = text.indexOf(QStringLiteral("ScheduleError: "));
  return at < 0 ? QString() : text.mid(at).trimmed();
}

} // namespace

class TestLegalityPolicy : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void runRefusesWhatTheWorkbenchRefuses() {
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("interchange.py"));
    QFile f(trace);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kIllegal);
    f.close();

    const Run cli = runCli({QStringLiteral("run"), QStringLiteral("samples/stencil1d.te"), QStringLiteral("--trace"),
                            trace, QStringLiteral("--target"), QStringLiteral("cpu-c")});
    QCOMPARE(cli.exitCode, 3);
    QVERIFY2(cli.err.contains(trace + QStringLiteral(":2:1: error: reorder is illegal: the RAW dependence from "
                                                     "heat_update(v_t=1, v_i=2) to heat_update(v_t=2, v_i=1)")),
             qPrintable(cli.err));

    gui::Session s;
    s.openSource(readSample(QStringLiteral("stencil1d.te")), QStringLiteral("stencil1d.te"));
    QVERIFY(s.jobs()->waitForIdle(60000));
    QVERIFY(s.state());
    QVERIFY(s.loadTraceFile(trace, nullptr));
    QVERIFY(s.jobs()->waitForIdle(60000));
    QCOMPARE(s.diagnostics().size(), std::size_t(1));
    const views::DiagnosticItem& item = s.diagnostics().front();
    QCOMPARE(item.code, std::string("schedule.reorder.illegal"));
    QVERIFY(!report(cli.err).isEmpty());
    QCOMPARE(report(QString::fromStdString(item.detail)), report(cli.err));
    QCOMPARE(s.trace().instructions.size(), std::size_t(0)); // nothing applied

    // The only way around the policy is explicit, and the command says so.
    const Run unchecked = runCli({QStringLiteral("print"), QStringLiteral("samples/stencil1d.te"),
                                  QStringLiteral("--trace"), trace, QStringLiteral("--no-verify-legality")});
    QCOMPARE(unchecked.exitCode, 0);
    QVERIFY2(unchecked.err.startsWith(QStringLiteral("note: legality not verified (--no-verify-legality): the steps "
                                                     "of '") +
                                      trace),
             qPrintable(unchecked.err));
    QVERIFY(unchecked.out.contains(QStringLiteral("for i in range(1024):\n        for t in range(1, 64):")));
  }
};

QTEST_MAIN(TestLegalityPolicy)
#include "tst_legality_policy.moc"
