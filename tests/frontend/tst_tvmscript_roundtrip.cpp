// TVMScript reads back what Loopscape prints: for every printed golden program of the
// suite (te samples, scheduled programs, polyhedral results), print(parse(text)) == text,
// the same in the tirx dialect (TVM 0.25-0.27's spelling), and for every sample
// parse(print(F)) is structurally equal to F.
#include "core/frontend/te_frontend.h"
#include "core/frontend/tvmscript/tvmscript.h"
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QtTest>

using namespace loopscape;

namespace {

std::string readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll().toStdString();
}

} // namespace

class TestTvmScriptRoundTrip : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void goldenPrintsBack_data() {
    QTest::addColumn<QString>("path");
    int count = 0;
    for (const char* dir : {"/tests/frontend/golden", "/tests/schedule/golden", "/tests/poly/golden"}) {
      QDirIterator it(QStringLiteral(LS_SOURCE_DIR) + dir, {"*.py"}, QDir::Files, QDirIterator::Subdirectories);
      while (it.hasNext()) {
        const QString path = it.next();
        QTest::newRow(qPrintable(QDir(QStringLiteral(LS_SOURCE_DIR)).relativeFilePath(path))) << path;
        ++count;
      }
    }
    QVERIFY(count >= 80);
  }

  void goldenPrintsBack() {
    QFETCH(QString, path);
    const std::string text = readAll(path);
    QVERIFY(!text.empty());
    auto program = frontend::parseTvmScript(text, path.toStdString());
    if (!program) QFAIL(renderDiagnostic(program.error(), text).c_str());
    QCOMPARE(program->module.functions.size(), std::size_t(1));
    const ir::PrimFunc& func = program->module.functions.front();
    QCOMPARE(QString::fromStdString(ir::printPrimFunc(func)), QString::fromStdString(text));
    // The same program in TVM 0.25-0.27's spelling reads back to the same program and
    // prints again to the same text.
    const std::string tirx = ir::printPrimFunc(func, {ir::ScriptDialect::Tirx});
    auto again = frontend::parseTvmScript(tirx, "tirx.py");
    if (!again) QFAIL(renderDiagnostic(again.error(), tirx).c_str());
    QVERIFY(again->dialect == frontend::TvmScriptDialect::Tirx);
    QVERIFY(ir::structuralEqual(again->module.functions.front(), func));
    QCOMPARE(QString::fromStdString(ir::printPrimFunc(again->module.functions.front(), {ir::ScriptDialect::Tirx})),
             QString::fromStdString(tirx));
  }

  void samplesAreStructurallyEqual_data() {
    QTest::addColumn<QString>("name");
    for (const auto& f : QDir(QStringLiteral(LS_SOURCE_DIR "/samples")).entryList({"*.te"}, QDir::Files))
      QTest::newRow(qPrintable(f)) << f;
  }

  void samplesAreStructurallyEqual() {
    QFETCH(QString, name);
    const std::string source = readAll(QStringLiteral(LS_SOURCE_DIR "/samples/") + name);
    auto func = frontend::parseTe(source, name.toStdString());
    QVERIFY(func.has_value());
    const std::string printed = ir::printPrimFunc(*func);
    auto back = frontend::parseTvmScript(printed, "printed.py");
    if (!back) QFAIL(renderDiagnostic(back.error(), printed).c_str());
    QVERIFY(ir::structuralEqual(back->module.functions.front(), *func));
  }
};

QTEST_GUILESS_MAIN(TestTvmScriptRoundTrip)
#include "tst_tvmscript_roundtrip.moc"
