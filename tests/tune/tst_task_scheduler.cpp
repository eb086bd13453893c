// The task scheduler (core/tune/task_scheduler.h): round robin first, then the task with
// the largest weighted gradient; the trial budget is shared exactly; an exhausted task is
// left out. Measured by a fake measurer that gives each program a fixed time, so the
// allocation is exact.
#include "core/codegen/pipeline.h"
#include "core/frontend/te_frontend.h"
#include "core/tune/task_scheduler.h"

#include <QtTest>

#include <fmt/format.h>

using namespace loopscape;

namespace {

ir::PrimFunc program(const std::string& text) {
  auto f = frontend::parseTe(text, "t.te");
  if (!f) qFatal("%s", f.error().message.c_str());
  return *f;
}

ir::PrimFunc matmul(int n) {
  return program(fmt::format(R"(from tvm import te
A = te.placeholder(({0}, {0}), dtype="float32", name="A")
B = te.placeholder(({0}, {0}), dtype="float32", name="B")
k = te.reduce_axis((0, {0}), name="k")
C = te.compute(({0}, {0}), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)",
                             n));
}

/// Every program takes `seconds`.
class FixedMeasurer final : public tune::Measurer {
public:
  explicit FixedMeasurer(double s) : seconds(s) {}
  double seconds;
  std::vector<tune::MeasureResult> measure(std::span<const codegen::LoweredFunc> programs,
                                           const std::vector<bool>& verify, std::stop_token,
                                           const tune::OnMeasured& onMeasured) override {
    std::vector<tune::MeasureResult> out(programs.size());
    bool ended = false;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (ended) {
        out[i].error = "cancelled: the search was stopped";
        continue;
      }
      out[i].seconds = {seconds};
      out[i].verified = i < verify.size() && verify[i];
      if (onMeasured && !onMeasured(i, out[i])) ended = true;
    }
    return out;
  }
};

struct Fixture {
  codegen::Pipeline pipeline;
  codegen::Target* target = nullptr;
  std::unique_ptr<tune::CostModel> model = *tune::makeCostModel("random", 1);
  std::vector<std::unique_ptr<FixedMeasurer>> measurers;
  std::vector<std::unique_ptr<tune::TaskTuner>> tuners;
  std::vector<tune::ScheduledTask> tasks;

  bool add(ir::PrimFunc func, double seconds, double weight, tune::TuneOptions options) {
    if (!target) {
      auto t = pipeline.usableTarget("cpu-llvm");
      if (!t) return false;
      target = *t;
    }
    tune::TuneTask task;
    task.func = std::move(func);
    task.target = "cpu-llvm";
    task.lower = [this](const ir::PrimFunc& f) { return pipeline.lower(*target, f); };
    measurers.push_back(std::make_unique<FixedMeasurer>(seconds));
    tuners.push_back(std::make_unique<tune::TaskTuner>(task, *measurers.back(), *model, nullptr, options));
    if (!tuners.back()->begin({})) return false;
    tasks.push_back({tuners.back().get(), weight});
    return true;
  }
};

tune::TuneOptions options() {
  tune::TuneOptions o;
  o.population = 8;
  o.generations = 1;
  o.strategy = tune::Strategy::Evolutionary;
  return o;
}

} // namespace

class TestTaskScheduler : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void gradientPicksTheCostliestTask_data() {
    QTest::addColumn<double>("weightB");
    QTest::addColumn<int>("favoured");
    QTest::newRow("A slow, equal weights") << 1.0 << 0;
    QTest::newRow("B fast but run 400 times") << 400.0 << 1;
  }
  void gradientPicksTheCostliestTask() {
    QFETCH(double, weightB);
    QFETCH(int, favoured);
    Fixture f;
    if (!f.add(matmul(32), 0.010, 1, options())) QSKIP("the cpu-llvm plugin is needed");
    QVERIFY(f.add(matmul(16), 0.001, weightB, options()));
    tune::SchedulerOptions so;
    so.trials = 12;
    so.batchSize = 2;
    so.epsGreedy = 0;
    std::vector<std::size_t> order;
    std::vector<double> latencies;
    auto rounds = tune::scheduleTasks(f.tasks, so, [&](std::size_t task, double weighted) {
      order.push_back(task);
      latencies.push_back(weighted);
    });
    // Round robin first, then every round to the task whose weighted latency dominates
    // (the gradient of a task without improvement is w * b / n: B's stays above A's).
    QCOMPARE(order.size(), std::size_t{6});
    QCOMPARE(order[0], std::size_t{0});
    QCOMPARE(order[1], std::size_t{1});
    for (std::size_t i = 2; i < order.size(); ++i)
      QCOMPARE(static_cast<int>(order[i]), favoured);
    QCOMPARE(rounds[favoured], 5);
    QCOMPARE(f.tuners[0]->measured() + f.tuners[1]->measured(), 12);
    QCOMPARE(latencies.back(), 0.010 + weightB * 0.001);
    QCOMPARE(tune::weightedLatency(f.tasks), 0.010 + weightB * 0.001);
  }

  void exhaustedTasksAreLeftOut() {
    // A copy of 4 elements has a handful of distinct schedules: once they are measured the
    // task is exhausted and the rest of the budget goes to the other.
    Fixture f;
    auto copy = program(R"(from tvm import te
A = te.placeholder((4,), dtype="float32", name="A")
B = te.compute((4,), lambda i: A[i], name="B")
)");
    if (!f.add(copy, 0.001, 100, options())) QSKIP("the cpu-llvm plugin is needed");
    QVERIFY(f.add(matmul(16), 0.001, 1, options()));
    tune::SchedulerOptions so;
    so.trials = 40;
    so.batchSize = 4;
    auto rounds = tune::scheduleTasks(f.tasks, so);
    QVERIFY(f.tuners[0]->exhausted());
    QVERIFY(f.tuners[0]->measured() < 10);
    QCOMPARE(f.tuners[0]->measured() + f.tuners[1]->measured(), 40);
    QVERIFY(rounds[1] > rounds[0]);
  }
};

QTEST_GUILESS_MAIN(TestTaskScheduler)
#include "tst_task_scheduler.moc"
