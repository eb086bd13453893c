// loopscape-cli on workbench session files (.lsproj): print, check and equal replay the
// session's program and trace headless, as the workbench shows them; a session with its
// own trace refuses --trace; malformed sessions and errors in the session's program are
// reported with the file (and line:col inside the session's program).
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_helpers.h"

using loopscape::testing::runCli;
using loopscape::testing::writeFile;

namespace {

const char* kMatmul = "A = placeholder((8, 6), \"float32\", name=\"A\")\n"
                      "B = placeholder((6, 4), \"float32\", name=\"B\")\n"
                      "k = reduce_axis((0, 6), name=\"k\")\n"
                      "C = compute((8, 4), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";
const char* kSplitJson = "[\n"
                         "  [\n"
                         "    [\"GetBlock\", [], [\"C\", \"main\"], [\"b0\"]],\n"
                         "    [\"GetLoops\", [\"b0\"], [], [\"l1\", \"l2\", \"l3\"]],\n"
                         "    [\"Split\", [\"l1\", [null, 4]], [true, false], [\"l4\", \"l5\"]],\n"
                         "    [\"Parallel\", [\"l4\"], [], []]\n"
                         "  ],\n"
                         "  []\n"
                         "]\n";

/// A session file as the workbench writes it (app/gui/session_file.cpp).
QByteArray session(const QString& source, const QString& sourcePath, const QString& trace) {
  QJsonObject o;
  o["format"] = "loopscape-session";
  o["version"] = 1;
  o["source"] = source;
  o["sourcePath"] = sourcePath;
  o["trace"] = trace;
  o["target"] = "cpu-c";
  o["view"] = QJsonObject();
  return QJsonDocument(o).toJson();
}

} // namespace

class TestCliSession : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void printReplaysTheSessionsProgramAndTrace() {
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kMatmul);
    writeFile(dir.filePath("t.json"), kSplitJson);
    writeFile(dir.filePath("s.lsproj"), session(kMatmul, dir.filePath("mm.te"), kSplitJson).toStdString());
    const auto expected = runCli({"print", dir.filePath("mm.te"), "--trace", dir.filePath("t.json")});
    QCOMPARE(expected.exitCode, 0);
    QVERIFY(expected.out.contains("T.parallel(2)"));
    const auto fromSession = runCli({"print", dir.filePath("s.lsproj")});
    QCOMPARE(fromSession.exitCode, 0);
    QCOMPARE(fromSession.out, expected.out);
    // The trace itself, and the same program's C.
    const auto py = runCli({"print", dir.filePath("s.lsproj"), "--format", "trace-py"});
    QVERIFY2(py.out.contains("l4, l5 = sch.split(loop=l1, factors=[None, 4]"), qPrintable(py.out));
  }

  void checkAndEqualUseTheSessionsTrace() {
    QTemporaryDir dir;
    writeFile(dir.filePath("mm.te"), kMatmul);
    writeFile(dir.filePath("s.lsproj"), session(kMatmul, "mm.te", kSplitJson).toStdString());
    const auto check = runCli({"check", dir.filePath("s.lsproj"), "--seed", "3"});
    QVERIFY2(check.exitCode == 0, qPrintable(check.err));
    QVERIFY2(check.out.contains("trace  " + dir.filePath("s.lsproj") + "[trace] (4 instructions)\n") &&
                 check.out.contains("equal"),
             qPrintable(check.out));
    // The session's scheduled program is the program file with the same trace, and not
    // the unscheduled program.
    writeFile(dir.filePath("t.json"), kSplitJson);
    const auto same =
        runCli({"equal", dir.filePath("s.lsproj"), dir.filePath("mm.te"), "--trace-b", dir.filePath("t.json")});
    QVERIFY2(same.exitCode == 0, qPrintable(same.out + same.err));
    const auto differs = runCli({"equal", dir.filePath("s.lsproj"), dir.filePath("mm.te")});
    QCOMPARE(differs.exitCode, 1);
  }

  void aSessionWithATraceRefusesTrace() {
    QTemporaryDir dir;
    writeFile(dir.filePath("t.json"), kSplitJson);
    writeFile(dir.filePath("s.lsproj"), session(kMatmul, "mm.te", kSplitJson).toStdString());
    const auto r = runCli({"print", dir.filePath("s.lsproj"), "--trace", dir.filePath("t.json")});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QStringLiteral("error: '%1' carries its own trace; --trace '%2' applies to program files only\n")
                        .arg(dir.filePath("s.lsproj"), dir.filePath("t.json")));
    // Without a trace in the session, --trace applies to its program.
    writeFile(dir.filePath("plain.lsproj"), session(kMatmul, "mm.te", "").toStdString());
    const auto plain = runCli({"print", dir.filePath("plain.lsproj"), "--trace", dir.filePath("t.json")});
    QCOMPARE(plain.exitCode, 0);
    QVERIFY(plain.out.contains("T.parallel(2)"));
    QVERIFY(!runCli({"print", dir.filePath("plain.lsproj")}).out.contains("T.parallel"));
  }

  void malformedSessionsNameTheFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.lsproj");
    writeFile(path, "{\"format\": \"something-else\", \"version\": 1, \"source\": \"\"}");
    auto r = runCli({"print", path});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err,
             QStringLiteral("error: '%1': not a Loopscape session file (missing \"format\": \"loopscape-session\")\n")
                 .arg(path));
    writeFile(path, "{\"format\": \"loopscape-session\", \"version\": 7, \"source\": \"\"}");
    r = runCli({"print", path});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err,
             QStringLiteral("error: '%1': session file version 7 is not supported (this build reads version 1)\n")
                 .arg(path));
    writeFile(path, "not json");
    QCOMPARE(runCli({"print", path}).err,
             QStringLiteral("error: '%1': not a session file: the text is not JSON\n").arg(path));
    writeFile(path, "{\"format\": \"loopscape-session\", \"version\": 1, \"source\": \"\", \"trace\": 3}");
    QCOMPARE(runCli({"print", path}).err,
             QStringLiteral("error: '%1': the session's \"trace\" must be the trace JSON text\n").arg(path));
  }

  void errorsInTheSessionsProgramAndTraceAreLocatedInsideIt() {
    QTemporaryDir dir;
    const QString path = dir.filePath("s.lsproj");
    writeFile(path, session("A = placeholder((4,), name=\"A\")\nB = compute((4,), lambda i: A[i] + Q, name=\"B\")\n",
                            "x.te", "")
                        .toStdString());
    auto r = runCli({"print", path});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith(path + "[program]:2:"), qPrintable(r.err));
    writeFile(path, session(kMatmul, "mm.te", "[[[\"GetBlock\", [], [\"D\", \"main\"], [\"b0\"]]], []]").toStdString());
    r = runCli({"print", path});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.startsWith(path + "[trace]:1:"), qPrintable(r.err));
  }

  void aTvmScriptSessionIsReadAsTvmScript() {
    QTemporaryDir dir;
    const auto printed = runCli({"print", "samples/matmul.te"});
    QCOMPARE(printed.exitCode, 0);
    writeFile(dir.filePath("s.lsproj"), session(printed.out, "/somewhere/matmul.py", "").toStdString());
    const auto r = runCli({"print", dir.filePath("s.lsproj")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(r.out, printed.out);
  }
};

QTEST_GUILESS_MAIN(TestCliSession)
#include "tst_cli_session.moc"
