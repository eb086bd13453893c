// Relay models compiled and run (core/graph): the graph plan, every group built through
// cpu-llvm and cpu-c with default and poly schedules and checked against the reference
// interpreter (whole model and group by group), the kernel cache, a refused group trace,
// in-process against isolated runs, and cancellation.
#include "core/codegen/cancel.h"
#include "core/graph/compiled_model.h"
#include "core/graph/model_run.h"
#include "model_test_helpers.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <set>

using namespace loopscape;
using namespace loopscape::graph;

namespace {

std::size_t distinctWorkloads(const Model& m) {
  std::set<std::string> hashes;
  for (const auto& g : m.groups)
    hashes.insert(g.workload.substr(g.workload.find(':')));
  return hashes.size();
}

} // namespace

class TstCompiledModel : public QObject {
  Q_OBJECT

  QTemporaryDir m_cache;

  CompileOptions options(const char* target) const { return graphtest::compileOptions(target, m_cache.path()); }
  void runAndCheck(const char* file, const char* target, const char* schedule, double interpretLimit = 5e7) {
    graphtest::runAndCheck(file, target, schedule, m_cache.path(), interpretLimit, true);
  }

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_cache.isValid());
    graphtest::useBuildTree();
  }

  void plan() {
    Model m = graphtest::load("samples/relay/mnist.relay");
    auto reuse = planGraph(m, true);
    auto own = planGraph(m, false);
    QVERIFY(reuse && own);
    QCOMPARE(reuse->calls.size(), m.groups.size());
    QCOMPARE(reuse->outputs.size(), std::size_t(1));
    for (const auto& c : reuse->calls)
      QCOMPARE(c.args.size(), m.groups[c.group].func.params.size());
    // The memory plan's reuse makes the arena smaller by exactly the storage it saves.
    QCOMPARE(static_cast<std::int64_t>(own->arenaBytes - reuse->arenaBytes) > 0, true);
    const auto& out = reuse->slots[reuse->outputs[0]];
    QCOMPARE(out.kind, Slot::Kind::Output);
    QCOMPARE(out.shape, (std::vector<std::int64_t>{1, 10}));
  }

  void mnist_data() {
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("schedule");
    QTest::newRow("cpu-llvm default") << "cpu-llvm"
                                      << "default";
    QTest::newRow("cpu-llvm poly") << "cpu-llvm"
                                   << "poly";
    QTest::newRow("cpu-c default") << "cpu-c"
                                   << "default";
    QTest::newRow("cpu-c poly") << "cpu-c"
                                << "poly";
  }
  void mnist() {
    QFETCH(QString, target);
    QFETCH(QString, schedule);
    runAndCheck("samples/relay/mnist.relay", target.toUtf8().constData(), schedule.toUtf8().constData());
  }

  void resnetReduced() {
    // Groups over 2e5 statement instances are checked against the compiled unscheduled group.
    runAndCheck("tests/relay/data/resnet18_w8_64.relay", "cpu-llvm", "default", 2e5);
  }

  void bertReduced() { runAndCheck("tests/relay/data/bert_s8_h32.relay", "cpu-llvm", "poly"); }

  void referenceKinds() {
    Model m = graphtest::load("samples/relay/mnist.relay");
    auto inputs = modelInputs(m, {}, {}, 1);
    auto compiled = compileModel(m, ModelSchedule{}, options("cpu-llvm"));
    QVERIFY(compiled.has_value());
    ModelVerifyOptions vo;
    vo.interpretLimit = 2000; // the convolutions are larger: compiled reference + sampled elements
    vo.cacheDir = m_cache.path().toStdString();
    auto report = verifyModel(m, *compiled, *inputs, vo);
    QVERIFY(report.has_value());
    QVERIFY(report->passed());
    int compiledRefs = 0, sampled = 0;
    for (const auto& g : report->groups) {
      compiledRefs += g.reference == codegen::ReferenceKind::CompiledUnscheduled;
      sampled += g.sampledCheck.has_value();
    }
    QVERIFY(compiledRefs >= 2);
    QVERIFY(sampled >= 1);
    QVERIFY(report->model.empty()); // over the limit as a whole too
    vo.interpretLimit = 5e7;
    auto small = verifyModel(m, *compiled, *inputs, vo);
    QVERIFY(small.has_value());
    QCOMPARE(small->model.size(), std::size_t(1));
    QVERIFY(small->modelPassed());
  }

  void cacheAndInProcess() {
    QTemporaryDir cache;
    Model m = graphtest::load("samples/relay/mnist.relay");
    auto inputs = modelInputs(m, {}, {}, 5);
    auto o = options("cpu-llvm");
    o.cacheDir = cache.path().toStdString();
    auto first = compileModel(m, ModelSchedule{}, o);
    QVERIFY(first.has_value());
    QCOMPARE(first->cacheHits, std::size_t(0));
    auto second = compileModel(m, ModelSchedule{}, o);
    QVERIFY(second.has_value());
    QCOMPARE(second->cacheHits, distinctWorkloads(m));
    for (std::size_t i = 0; i < m.groups.size(); ++i)
      QCOMPARE(second->groups[i].scheduled.trace.instructions.size(),
               first->groups[i].scheduled.trace.instructions.size());
    ModelRunOptions isolated, inProcess;
    isolated.repeat = inProcess.repeat = 1;
    inProcess.isolation = codegen::Isolation::InProcess;
    auto a = runModel(m, *first, *inputs, isolated);
    auto b = runModel(m, *second, *inputs, inProcess);
    QVERIFY(a && b);
    QCOMPARE(a->outputs[0].checksum().str(), b->outputs[0].checksum().str());
  }

  void refusedGroupTrace() {
    QTemporaryDir dir;
    const QString trace = dir.filePath("bad.py");
    std::ofstream(trace.toStdString()) << "b = sch.get_block(\"T_add\")\n"
                                          "i0, i1, k = sch.get_loops(sch.get_block(\"T_matmul_NT\"))\n"
                                          "sch.reverse_compute_at(b, k)\n";
    Model m = graphtest::load("samples/relay/mnist.relay");
    ModelSchedule s;
    s.baseDir = dir.path().toStdString();
    s.groups["tvmgen_default_fused_nn_dense_add"] = GroupChoice{.source = ScheduleSource::Trace, .traceFile = "bad.py"};
    auto compiled = compileModel(m, s, options("cpu-llvm"));
    QVERIFY(!compiled.has_value());
    QCOMPARE(compiled.error().code, std::string("graph.group-schedule"));
    QCOMPARE(compiled.error().message,
             std::string("group tvmgen_default_fused_nn_dense_add (trace bad.py): reverse_compute_at: the producer "
                         "'T_matmul_NT' of block 'T_add' is not complete under loop 'k': its reduce iterator 'v_k' "
                         "does not cover its whole domain inside the loop, so block 'T_add' would read partial "
                         "results"));
    QCOMPARE(compiled.error().location.line, 3);
  }

  void cancelled() {
    Model m = graphtest::load("samples/relay/mnist.relay");
    std::stop_source stop;
    stop.request_stop();
    auto o = options("cpu-llvm");
    o.stop = stop.get_token();
    auto compiled = compileModel(m, ModelSchedule{}, o);
    QVERIFY(!compiled.has_value());
    QVERIFY(codegen::isCancelled(compiled.error()));
  }
};

QTEST_GUILESS_MAIN(TstCompiledModel)
#include "tst_compiled_model.moc"
