#include "model_test_helpers.h"

#include "core/frontend/relay/relay_exec.h"
#include "core/graph/model_run.h"

#include <QtTest>

using namespace loopscape;
using namespace loopscape::graph;

namespace graphtest {

void useBuildTree() {
  qputenv("LOOPSCAPE_WORKER", LS_WORKER_PATH);
  qputenv("LOOPSCAPE_PLUGIN_PATH", LS_RUN_PLUGIN_DIR);
}

Model load(const char* file, const ModelLoadOptions& options) {
  auto m = loadModel(std::string(LS_SOURCE_DIR "/") + file, options);
  if (!m) qFatal("%s", m.error().message.c_str());
  return std::move(*m);
}

CompileOptions compileOptions(const char* target, const QString& cacheDir) {
  CompileOptions o;
  o.target = target;
  o.threads = 2;
  o.cacheDir = cacheDir.toStdString();
  return o;
}

void runAndCheck(const char* file, const char* target, const char* schedule, const QString& cacheDir,
                 double interpretLimit, bool interpretWholeModel, const ModelLoadOptions& options) {
  Model m = load(file, options);
  auto inputs = modelInputs(m, {}, {}, 3);
  QVERIFY(inputs.has_value());
  auto s = scheduleFromOption(schedule);
  QVERIFY(s.has_value());
  auto compiled = compileModel(m, *s, compileOptions(target, cacheDir));
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
  if (interpretWholeModel) {
    auto expected = frontend::relay::runFused(m.module, m.main(), m.fusion, *inputs);
    QVERIFY2(expected.has_value(), expected ? "" : expected.error().message.c_str());
    QCOMPARE(run->outputs.size(), expected->size());
    for (std::size_t k = 0; k < expected->size(); ++k) {
      auto check = codegen::compareOutput("out", run->outputs[k], (*expected)[k], codegen::Tolerance{1e-4, 1e-5});
      QVERIFY2(check.passed(), check.str().c_str());
    }
  }
  ModelVerifyOptions vo;
  vo.interpretLimit = interpretLimit;
  vo.cacheDir = cacheDir.toStdString();
  auto report = verifyModel(m, *compiled, *inputs, vo);
  QVERIFY2(report.has_value(), report ? "" : report.error().message.c_str());
  QCOMPARE(report->groups.size(), m.groups.size());
  QVERIFY2(report->passed(), report->firstFailure() ? report->firstFailure()->check.str().c_str() : "");
}

} // namespace graphtest
