// Relay models compiled and run (core/graph): the graph plan, every group built through
// cpu-llvm and cpu-c with default and poly schedules and checked against the reference
// interpreter (whole model and group by group), the kernel cache, a refused group trace,
// in-process against isolated runs, and cancellation.
#include "core/codegen/cancel.h"
#include "core/frontend/relay/relay_exec.h"
#include "core/graph/compiled_model.h"
#include "core/graph/model_run.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <set>

using namespace loopscape;
using namespace loopscape::graph;

namespace {

Model load(const char* file) {
  auto m = loadModel(std::string(LS_SOURCE_DIR "/") + file);
  if (!m) qFatal("%s", m.error().message.c_str());
  return std::move(*m);
}

/// The reference interpreter's outputs of the whole model.
std::vector<ir::NDArray> interpreted(const Model& m, const std::vector<ir::NDArray>& inputs) {
  auto out = frontend::relay::runFused(m.module, m.main(), m.fusion, inputs);
  if (!out) qFatal("%s", out.error().message.c_str());
  return *out;
}

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

  CompileOptions options(const char* target) const {
    CompileOptions o;
    o.target = target;
    o.threads = 2;
    o.cacheDir = m_cache.path().toStdString();
    return o;
  }

  /// Compiles `file` with `schedule`, runs it and checks the outputs against the whole
  /// model interpreted and every group against its reference.
  void runAndCheck(const char* file, const char* target, const char* schedule, double interpretLimit = 5e7) {
    Model m = load(file);
    auto inputs = modelInputs(m, {}, {}, 3);
    QVERIFY(inputs.has_value());
    auto s = scheduleFromOption(schedule);
    QVERIFY(s.has_value());
    auto compiled = compileModel(m, *s, options(target));
    QVERIFY2(compiled.has_value(), compiled ? "" : compiled.error().message.c_str());
    QCOMPARE(compiled->groups.size(), m.groups.size());
    ModelRunOptions ro;
    ro.repeat = 2;
    auto run = runModel(m, *compiled, *inputs, ro);
    QVERIFY2(run.has_value(), run ? "" : run.error().message.c_str());
    QCOMPARE(run->perRepeat.size(), std::size_t(2));
    QCOMPARE(run->groups.size(), m.groups.size());
    for (const auto& t : run->groups)
      QVERIFY(t.seconds > 0);
    const auto expected = interpreted(m, *inputs);
    QCOMPARE(run->outputs.size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
      auto check = codegen::compareOutput("out", run->outputs[k], expected[k], codegen::Tolerance{1e-4, 1e-5});
      QVERIFY2(check.passed(), check.str().c_str());
    }
    ModelVerifyOptions vo;
    vo.interpretLimit = interpretLimit;
    vo.cacheDir = m_cache.path().toStdString();
    auto report = verifyModel(m, *compiled, *inputs, vo);
    QVERIFY2(report.has_value(), report ? "" : report.error().message.c_str());
    QCOMPARE(report->groups.size(), m.groups.size());
    QVERIFY2(report->passed(), report->firstFailure() ? report->firstFailure()->check.str().c_str() : "");
  }

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_cache.isValid());
    qputenv("LOOPSCAPE_WORKER", LS_WORKER_PATH);
    qputenv("LOOPSCAPE_PLUGIN_PATH", LS_RUN_PLUGIN_DIR);
  }

  void plan() {
    Model m = load("samples/relay/mnist.relay");
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
    Model m = load("samples/relay/mnist.relay");
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
  }

  void cacheAndInProcess() {
    QTemporaryDir cache;
    Model m = load("samples/relay/mnist.relay");
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
    Model m = load("samples/relay/mnist.relay");
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
    Model m = load("samples/relay/mnist.relay");
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
