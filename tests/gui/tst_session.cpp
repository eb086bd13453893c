// The Session without a window: stale background results are dropped (generation ids),
// autosave to the recovery file after each step and restoring it, the .lsproj format.
#include "gui_helpers.h"

#include "app/gui/session.h"
#include "app/gui/session_file.h"
#include "core/frontend/te_frontend.h"
#include "core/ir/printer.h"
#include "core/schedule/trace_python.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

views::PrimitiveRequest splitRequest(const gui::Session& s, const std::string& loop, schedule::TraceList factors) {
  views::PrimitiveRequest r;
  r.kind = "split";
  r.snapshot = s.state()->program();
  const int i = r.snapshot->find(views::NodeInfo::Kind::Loop, loop);
  r.inputs.push_back({r.snapshot->nodes[i].node});
  r.inputs.push_back({schedule::TraceValue(std::move(factors))});
  r.attrs = {true, false};
  return r;
}

} // namespace

class TestSession : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void staleResultsAreDropped() {
    gui::Session s;
    const QString source = readSample(QStringLiteral("matmul.te"));
    s.openSource(source, QStringLiteral("matmul.te"));
    QVERIFY(s.jobs()->waitForIdle(30000));
    QSignalSpy changed(&s, &gui::Session::stateChanged);
    QString a = source, b = source;
    a.replace(QStringLiteral("1024, 1024, 1024"), QStringLiteral("64, 64, 64"));
    b.replace(QStringLiteral("1024, 1024, 1024"), QStringLiteral("128, 64, 32"));
    s.editSource(a);
    s.editSource(b); // the first parse's result arrives stale and is dropped
    QVERIFY(s.jobs()->waitForIdle(30000));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(s.state()->program()->text, ir::printPrimFunc(*frontend::parseTe(b.toStdString(), "matmul.te")));
  }

  void primitiveAgainstAnOldSnapshotIsRefused() {
    gui::Session s;
    s.openSource(readSample(QStringLiteral("matmul.te")), QStringLiteral("matmul.te"));
    QVERIFY(s.jobs()->waitForIdle(30000));
    const views::PrimitiveRequest old = splitRequest(s, "i", {nullptr, 32});
    s.applyPrimitive(splitRequest(s, "j", {nullptr, 32}));
    QVERIFY(s.jobs()->waitForIdle(30000));
    QCOMPARE(s.undoStack()->count(), 1);
    s.applyPrimitive(old);
    QVERIFY(s.jobs()->waitForIdle(30000));
    QCOMPARE(s.undoStack()->count(), 1);
    QCOMPARE(s.diagnostics().size(), std::size_t(1));
    QCOMPARE(s.diagnostics()[0].code, std::string("gui.stale-selection"));
  }

  void autosavesAndRestores() {
    std::string expectedText;
    {
      gui::Session s;
      s.removeRecovery();
      s.openSource(readSample(QStringLiteral("matmul.te")), QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te"));
      QVERIFY(s.jobs()->waitForIdle(30000));
      QVERIFY2(!QFile::exists(gui::Session::recoveryPath()), "nothing to recover before a change");
      s.applyPrimitive(splitRequest(s, "k", {std::int64_t(4), nullptr}));
      QVERIFY(s.jobs()->waitForIdle(30000));
      QCOMPARE(s.undoStack()->count(), 1);
      expectedText = s.state()->program()->text;
    }
    QVERIFY(QFile::exists(gui::Session::recoveryPath())); // written after the step, kept (no clean exit)
    gui::Session restored;
    QString error;
    QVERIFY2(restored.restoreRecovery(&error), qPrintable(error));
    QVERIFY(restored.jobs()->waitForIdle(30000));
    QCOMPARE(restored.state()->program()->text, expectedText);
    QVERIFY(restored.isModified()); // restored work is unsaved work
    QCOMPARE(restored.sourcePath(), QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te"));
    restored.removeRecovery();
  }

  void traceWaitsForASourceThatParses() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("broken.lsproj"));
    const QString source = readSample(QStringLiteral("matmul.te"));
    QString broken = source;
    broken.replace(QStringLiteral("B[k, j]"), QStringLiteral("Q[k, j]"));
    {
      gui::Session s;
      s.openSource(source, QStringLiteral("matmul.te"));
      QVERIFY(s.jobs()->waitForIdle(30000));
      s.applyPrimitive(splitRequest(s, "j", {nullptr, std::int64_t(8)}));
      QVERIFY(s.jobs()->waitForIdle(30000));
      s.editSource(broken); // saved while the source does not parse
      QVERIFY(s.jobs()->waitForIdle(30000));
      QString error;
      QVERIFY2(s.saveProject(path, &error), qPrintable(error));
    }
    gui::Session s;
    QString error;
    QVERIFY2(s.openProject(path, &error), qPrintable(error));
    QVERIFY(s.jobs()->waitForIdle(30000));
    QVERIFY(!s.state());
    QCOMPARE(s.diagnostics().size(), std::size_t(1));
    QCOMPARE(s.trace().instructions.size(), std::size_t(3));
    s.editSource(source); // fixed: the trace applies again
    QVERIFY(s.jobs()->waitForIdle(30000));
    QVERIFY(s.state());
    QCOMPARE(s.state()->schedule.trace().instructions.size(), std::size_t(3));
    QCOMPARE(s.undoStack()->count(), 1);
    QVERIFY(s.diagnostics().empty());
  }

  void tvmScriptModuleOpensAndReparses() {
    // A TVMScript file is read as TVMScript (by its extension), a module's function picked
    // at open and kept in the session file, and an edit that breaks it is located.
    const QString module = QStringLiteral(R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def double(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            with T.block("B"):
                v = T.axis.spatial(64, i)
                B[v] = A[v] * T.float32(2)

    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            with T.block("B"):
                v = T.axis.spatial(64, i)
                B[v] = A[v] + T.float32(1)
)");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("m.py"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(module.toUtf8());
    f.close();
    const QString project = dir.filePath(QStringLiteral("m.lsproj"));
    {
      gui::Session s;
      QString error;
      QVERIFY2(s.openFile(path, &error, QStringLiteral("double")), qPrintable(error));
      QVERIFY(s.jobs()->waitForIdle(30000));
      QVERIFY(s.language() == frontend::SourceLanguage::TvmScript);
      QVERIFY(s.state());
      QVERIFY2(s.state()->program()->text.find("B[v] = A[v] * T.float32(2)") != std::string::npos,
               s.state()->program()->text.c_str());
      s.applyPrimitive(splitRequest(s, "i", {nullptr, std::int64_t(16)}));
      QVERIFY(s.jobs()->waitForIdle(30000));
      QVERIFY2(s.state()->program()->text.find("for i_0, i_1 in T.grid(4, 16):") != std::string::npos,
               s.state()->program()->text.c_str());
      QVERIFY2(s.saveProject(project, &error), qPrintable(error));
      QString broken = module;
      broken.replace(QStringLiteral("A[v] * T.float32(2)"), QStringLiteral("A[w] * T.float32(2)"));
      s.editSource(broken);
      QVERIFY(s.jobs()->waitForIdle(30000));
      QCOMPARE(s.diagnostics().size(), std::size_t(1));
      const views::DiagnosticItem& d = s.diagnostics()[0];
      QCOMPARE(d.message, std::string("name 'w' is not defined"));
      QCOMPARE(d.line, 11);
      QCOMPARE(d.column, 26);
    }
    gui::Session s;
    QString error;
    QVERIFY2(s.openProject(project, &error), qPrintable(error));
    QVERIFY(s.jobs()->waitForIdle(30000));
    QCOMPARE(s.function(), QStringLiteral("double"));
    QVERIFY(s.state());
    QCOMPARE(s.trace().instructions.size(), std::size_t(3));
    QVERIFY2(s.state()->program()->text.find("B[v] = A[v] * T.float32(2)") != std::string::npos,
             s.state()->program()->text.c_str());
    // Without a function name the module's main is taken.
    gui::Session m;
    QVERIFY2(m.openFile(path, &error), qPrintable(error));
    QVERIFY(m.jobs()->waitForIdle(30000));
    QVERIFY2(m.state()->program()->text.find("B[v] = A[v] + T.float32(1)") != std::string::npos,
             m.state()->program()->text.c_str());
  }

  void sessionFileFormat() {
    gui::SessionFile f;
    f.source = QStringLiteral("x = 1\n");
    f.sourcePath = QStringLiteral("/tmp/a.te");
    f.traceJson = QStringLiteral("[\n  [\n    [\"Annotate\", [\"b0\", 1.0], [\"\\\"k\\\"\"], []]\n  ],\n  []\n]\n");
    f.target = QStringLiteral("cpu-c");
    f.view[QStringLiteral("dark")] = true;
    const QByteArray bytes = gui::writeSessionFile(f);
    auto back = gui::readSessionFile(bytes);
    QVERIFY(std::holds_alternative<gui::SessionFile>(back));
    const gui::SessionFile& g = std::get<gui::SessionFile>(back);
    QCOMPARE(g.source, f.source);
    QCOMPARE(g.sourcePath, f.sourcePath);
    QCOMPARE(g.traceJson, f.traceJson); // kept verbatim: 1.0 stays a float
    QCOMPARE(g.target, f.target);
    QCOMPARE(g.view, f.view);

    auto notOurs = gui::readSessionFile(R"({"format": "other", "version": 1})");
    QCOMPARE(std::get<QString>(notOurs),
             QStringLiteral("not a Loopscape session file (missing \"format\": \"loopscape-session\")"));
    auto broken = gui::readSessionFile("{");
    QVERIFY(std::get<QString>(broken).startsWith(QStringLiteral("not a session file: ")));
  }

  void openingSaysWhyItCannot() {
    // A directory, a device and a file beyond the size limit: the reason, not just
    // "cannot open" (issue 13).
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("d.lsproj")));
    gui::Session s;
    QString error;
    QVERIFY(!s.openFile(dir.filePath(QStringLiteral("d.lsproj")), &error));
    QCOMPARE(error,
             QStringLiteral("cannot read '%1': it is a directory").arg(dir.filePath(QStringLiteral("d.lsproj"))));
    QVERIFY(!s.openFile(QStringLiteral("/dev/urandom"), &error));
    QCOMPARE(error, QStringLiteral("cannot read '/dev/urandom': it is a character device, not a regular file"));
    QFile big(dir.filePath(QStringLiteral("big.lsproj")));
    QVERIFY(big.open(QIODevice::WriteOnly) && big.resize(17 << 20));
    big.close();
    QVERIFY(!s.openFile(big.fileName(), &error));
    QCOMPARE(error,
             QStringLiteral("cannot read '%1': it is larger than 16 MiB (16777216 bytes), the limit for program, "
                            "trace and session files")
                 .arg(big.fileName()));
    QVERIFY(!s.loadTraceFile(dir.path(), &error));
    QCOMPARE(error, QStringLiteral("cannot read '%1': it is a directory").arg(dir.path()));
  }
};

QTEST_MAIN(TestSession)
#include "tst_session.moc"
