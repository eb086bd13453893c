// The full sample models (ResNet-18, the BERT proxy) compiled and run, every group
// verified on its compiled inputs (interpreting the whole model would take minutes).
#include "model_test_helpers.h"

#include <QTemporaryDir>
#include <QtTest>

class TstFullModels : public QObject {
  Q_OBJECT

  QTemporaryDir m_cache;

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_cache.isValid());
    graphtest::useBuildTree();
  }

  void models_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("schedule");
    QTest::newRow("resnet18 cpu-llvm default") << "samples/relay/resnet18.relay"
                                               << "cpu-llvm"
                                               << "default";
    QTest::newRow("bert_proxy cpu-c poly") << "samples/relay/bert_proxy.relay"
                                           << "cpu-c"
                                           << "poly";
  }
  void models() {
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("the full models take minutes under the sanitizers; graph.compiled_model's reduced ones run the same paths");
#endif
    QFETCH(QString, file);
    QFETCH(QString, target);
    QFETCH(QString, schedule);
    graphtest::runAndCheck(file.toUtf8().constData(), target.toUtf8().constData(), schedule.toUtf8().constData(),
                           m_cache.path(), 5e7, false);
  }
};

QTEST_GUILESS_MAIN(TstFullModels)
#include "tst_full_models.moc"
