// Every sample parses and prints to its golden file tests/frontend/golden/samples/<name>.py.
// To regenerate after an intended change: LS_UPDATE_GOLDEN=1 build/tests/tst_frontend_samples_print,
// then review the diff by eye (it must be what TVM prints for te.create_prim_func).
#include "core/frontend/te_frontend.h"
#include "core/ir/printer.h"

#include <QDir>
#include <QFile>
#include <QtTest>

using namespace loopscape;

class TestSamplesPrint : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void printsToGolden_data() {
    QTest::addColumn<QString>("name");
    const QStringList all = QDir(QStringLiteral(LS_SOURCE_DIR "/samples")).entryList({"*.te"}, QDir::Files, QDir::Name);
    QVERIFY(all.size() >= 8);
    for (const auto& file : all) QTest::newRow(qPrintable(file)) << QFileInfo(file).completeBaseName();
  }

  void printsToGolden() {
    QFETCH(QString, name);
    QFile source(QStringLiteral(LS_SOURCE_DIR "/samples/") + name + ".te");
    QVERIFY(source.open(QIODevice::ReadOnly));
    const std::string text = source.readAll().toStdString();
    auto func = frontend::parseTe(text, (name + ".te").toStdString());
    if (!func) QFAIL(renderDiagnostic(func.error(), text).c_str());
    const QString printed = QString::fromStdString(ir::printPrimFunc(*func));
    const QString goldenPath = QStringLiteral(LS_SOURCE_DIR "/tests/frontend/golden/samples/") + name + ".py";
    if (qEnvironmentVariableIsSet("LS_UPDATE_GOLDEN")) {
      QFile out(goldenPath);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(printed.toUtf8());
      return;
    }
    QFile golden(goldenPath);
    QVERIFY2(golden.open(QIODevice::ReadOnly), qPrintable("missing " + goldenPath));
    QCOMPARE(printed, QString::fromUtf8(golden.readAll()));
  }
};

QTEST_GUILESS_MAIN(TestSamplesPrint)
#include "tst_samples_print.moc"
