// The three session files that crashed the workbench in the fuzzing campaign of issue 13:
// a trace nested thousands of levels deep, a number (1e400) out of double range, and an
// int64 index inlined into an int32 one. The first two are refused with the reason and
// leave the open program as it was; the third opens with its step applied.
#include "gui_helpers.h"

#include "views/tensorir_view.h"

#include <QTest>
#include <QUndoStack>

using namespace loopscape;
using namespace loopscape::testing;

class TestSessionFiles : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void refusedWithTheReasonAndNothingLost_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("reason");
    QTest::newRow("nested trace") << QStringLiteral(LS_SOURCE_DIR "/tests/gui/data/nested_trace.lsproj")
                                  << QStringLiteral("nested_trace.lsproj:5:215: error: arrays and objects nested more "
                                                    "than 200 levels deep; a trace needs a handful of levels");
    QTest::newRow("1e400") << QStringLiteral(LS_SOURCE_DIR "/tests/gui/data/number_1e400.lsproj")
                           << QStringLiteral("number_1e400.lsproj:5:29: error: number 1e400 is out of range: trace "
                                             "numbers are 64-bit integers or doubles (at most about 1.8e308 in "
                                             "magnitude)");
  }

  void refusedWithTheReasonAndNothingLost() {
    QFETCH(QString, file);
    QFETCH(QString, reason);
    auto w = makeWindow();
    QVERIFY(w->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/matmul.te")));
    QVERIFY(settle(*w));
    const QString before = w->tensorIrView()->toPlainText();
    QString error;
    QVERIFY(!w->openPath(file, &error));
    QVERIFY2(error.contains(reason), qPrintable(error));
    QVERIFY(settle(*w));
    // The program the user had open is still there.
    QCOMPARE(w->tensorIrView()->toPlainText(), before);
    QVERIFY(w->session()->sourcePath().endsWith(QStringLiteral("matmul.te")));
  }

  void int64IndexInlinedIntoInt32Opens() {
    auto w = makeWindow();
    QString error;
    QVERIFY2(w->openPath(QStringLiteral(LS_SOURCE_DIR "/fuzz/findings/lsproj/issue-int64-inline.lsproj"), &error),
             qPrintable(error));
    QVERIFY(settle(*w));
    QVERIFY(w->session()->state());
    QCOMPARE(w->session()->state()->trace->stepCount, 1);
    const QString text = w->tensorIrView()->toPlainText();
    QVERIFY2(!text.contains(QStringLiteral("T.block(\"P\")")), qPrintable(text)); // P was inlined
    QVERIFY2(text.contains(QStringLiteral("T.int64(4294967296)")), qPrintable(text));
  }
};

QTEST_MAIN(TestSessionFiles)
#include "tst_session_files.moc"
