// Verification: element comparison with tolerances (exact messages), seeded arguments as
// `check` makes them, and whole kernels from the cpu-c plugin verified against the
// reference interpreter and against the compiled unscheduled program plus the interpreter
// on sampled elements (each element interpreted alone equals the whole program's value;
// scans are refused); a wrong result is a failed report, a crash of a generated kernel (test-only unchecked sizes) a
// Diagnostic.
#include "core/codegen/lower.h"
#include "core/codegen/pipeline.h"
#include "core/codegen/verify.h"
#include "core/codegen/verify_sample.h"
#include "core/frontend/te_frontend.h"
#include "core/schedule/trace_script.h"

#include <QtTest>

#include <cmath>
#include <fmt/format.h>

using namespace loopscape;
using namespace loopscape::codegen;

namespace {

/// C[64, 64] = A[64, K] B[K, 64]: each element a sum of K products.
std::string matmulSource(int k) {
  return fmt::format(R"(from tvm import te
A = te.placeholder((64, {0}), dtype="float32", name="A")
B = te.placeholder(({0}, 64), dtype="float32", name="B")
k = te.reduce_axis((0, {0}), name="k")
C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)",
                     k);
}

const std::string kMatmul = matmulSource(48);

const char* kTile = R"(def apply_trace(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i_0, i_1 = sch.split(i, factors=[None, 16])
    j_0, j_1 = sch.split(j, factors=[None, 16])
    sch.reorder(i_0, j_0, k, i_1, j_1)
    sch.parallel(i_0)
    sch.vectorize(j_1)
)";

const char* kDense = R"(from tvm import te
n = te.var("n")
data = te.placeholder((n, 32), name="data")
weight = te.placeholder((24, 32), name="weight")
k = te.reduce_axis((0, 32), name="k")
out = te.compute((n, 24), lambda i, j: te.sum(data[i, k] * weight[j, k], axis=k), name="out")
)";

ir::NDArray array(std::vector<std::int64_t> shape, std::vector<double> values,
                  ir::DataType t = ir::DataType::float32()) {
  ir::NDArray a(std::move(shape), t);
  for (std::size_t i = 0; i < values.size(); ++i)
    a.setDouble(static_cast<std::int64_t>(i), values[i]);
  return a;
}

const std::string kLongSum = matmulSource(1024);

/// The sum over k in another order: 32 partial sums of 32 terms each, then their sum.
const char* kRfactor = R"(def apply_trace(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    k_0, k_1 = sch.split(k, factors=[None, 32])
    sch.rfactor(k_1, factor_axis=0)
)";

struct Built {
  LoweredFunc func;
  std::unique_ptr<Kernel> kernel;
};

} // namespace

class TestVerify : public QObject {
  Q_OBJECT

private:
  Pipeline m_pipeline; // the process-wide registry (build/plugins beside build/tests)
  Target* m_cpuC = nullptr;

  ir::PrimFunc parse(const std::string& text) {
    auto f = frontend::parseTe(text, "test.te");
    LS_ASSERT(f.has_value(), "{}", f ? "" : f.error().message);
    return *f;
  }
  ir::PrimFunc scheduled(const ir::PrimFunc& f, const char* trace) {
    schedule::Schedule sch(f);
    auto ok = schedule::applyScript(sch, trace, "trace.py");
    LS_ASSERT(ok.has_value(), "{}", ok ? "" : ok.error().message);
    return sch.func();
  }
  Built build(const ir::PrimFunc& f) {
    auto lowered = lower(f);
    LS_ASSERT(lowered.has_value(), "{}", lowered ? "" : lowered.error().message);
    auto kernel = m_cpuC->build(*lowered, {});
    LS_ASSERT(kernel.has_value(), "{}", kernel ? "" : kernel.error().message);
    return {std::move(*lowered), std::move(*kernel)};
  }
  static RunOptions isolated() {
    RunOptions o;
    o.workerPath = LS_WORKER_PATH;
    return o;
  }
  static RunOnArgs runner(Built& b, const ir::SizeBindings& sizes) {
    return [&b, sizes](std::span<ir::NDArray> args) -> Expected<void> {
      auto sizeArgs = sizeArguments(b.func, sizes);
      if (!sizeArgs) return Unexpected(sizeArgs.error());
      auto r = runKernel(b.func, *b.kernel, args, *sizeArgs, isolated());
      if (!r) return Unexpected(r.error());
      return {};
    };
  }

private Q_SLOTS:
  void initTestCase() {
    auto t = m_pipeline.findTarget("cpu-c");
    QVERIFY2(t.has_value(), t ? "" : t.error().message.c_str());
    m_cpuC = *t;
    if (!m_cpuC->toolchain().usable) QSKIP("no C compiler");
  }

  void tolerances() {
    QCOMPARE(defaultTolerance(ir::DataType::float32()).str(), std::string("rtol 0.0001, atol 1e-05"));
    QCOMPARE(defaultTolerance(ir::DataType::int32()).str(), std::string("exact"));
    QCOMPARE(defaultTolerance(ir::DataType::float64()).str(), std::string("rtol 1e-09, atol 1e-12"));
  }

  void sumTolerances() {
    // 8 sqrt(terms) 2^-24 rms: for 576 terms of rms 8, 1536 * 2^-24 = 9.1552734375e-05.
    const auto f32 = ir::DataType::float32();
    const Tolerance conv = sumTolerance(defaultTolerance(f32), f32, 576, 8);
    QCOMPARE(conv.atol, 9.1552734375e-05);
    QCOMPARE(conv.rtol, 1e-4);
    QCOMPARE(conv.str(), std::string("rtol 0.0001, atol 9.16e-05 (widened for sums of 576 terms)"));
    // A short sum's rounding stays below the dtype's atol, which stands.
    QCOMPARE(sumTolerance(defaultTolerance(f32), f32, 48, 2.3).str(), std::string("rtol 0.0001, atol 1e-05"));
    QCOMPARE(sumTolerance(defaultTolerance(ir::DataType::int32()), ir::DataType::int32(), 1e6, 100).str(),
             std::string("exact"));
    QCOMPARE(sumTolerance(defaultTolerance(f32), f32, 0, 8).str(), std::string("rtol 0.0001, atol 1e-05"));
    auto count = countFlops(parse(kLongSum), {});
    QVERIFY(count);
    QCOMPARE(longestSum(*count), 1024.0);
    QCOMPARE(rootMeanSquare(array({2}, {3, 4})), std::sqrt(12.5));
  }

  void aLongSumInAnotherOrderIsWithinTheWidenedTolerance() {
    // rfactor sums each C[i, j]'s 1024 terms in another order. On some inputs an element
    // near zero differs from the interpreter's sequential sum by more than atol 1e-5 allows:
    // the widened tolerance accepts every seed.
    const auto original = parse(kLongSum);
    Built b = build(scheduled(original, kRfactor));
    int strictFailures = 0;
    std::optional<std::vector<ir::NDArray>> args;
    for (std::uint64_t seed = 0; seed < 6; ++seed) {
      args = *makeArguments(original, {}, seed * 3);
      auto report = verify(original, {}, *args, runner(b, {}), {});
      QVERIFY2(report.has_value(), report ? "" : report.error().message.c_str());
      const OutputCheck& c = report->outputs[0];
      QVERIFY2(c.passed(), c.str().c_str());
      QCOMPARE(c.tolerance.sumTerms, std::int64_t{1024});
      QVERIFY2(QString::fromStdString(c.str()).endsWith("(widened for sums of 1024 terms))"), c.str().c_str());
      std::vector<ir::NDArray> reference = freshCopies(*args, outputParams(original));
      QVERIFY(ir::interpret(original, reference, {}));
      strictFailures +=
          !compareOutput("C", report->actual[2], reference[2], defaultTolerance(ir::DataType::float32())).passed();
    }
    QVERIFY(strictFailures > 0);

    // One term left out of one element is still caught.
    auto run = runner(b, {});
    const double term = (*args)[0].getDouble(3 * 1024) * (*args)[1].getDouble(5);
    QVERIFY(std::fabs(term) > 0.01);
    auto missing = [&](std::span<ir::NDArray> a) -> Expected<void> {
      if (auto ok = run(a); !ok) return ok;
      a[2].setDouble(3 * 64 + 5, a[2].getDouble(3 * 64 + 5) - term);
      return {};
    };
    auto wrong = verify(original, {}, *args, missing, {});
    QVERIFY(wrong.has_value());
    QCOMPARE(wrong->outputs[0].mismatches, std::int64_t{1});
    QCOMPARE(wrong->outputs[0].first->index, (std::vector<std::int64_t>{3, 5}));
  }

  void compare_data() {
    QTest::addColumn<QVector<double>>("actual");
    QTest::addColumn<QVector<double>>("expected");
    QTest::addColumn<bool>("integer");
    QTest::addColumn<QString>("text");
    QTest::newRow("equal") << QVector<double>{1, 2, 3, 4, 5, 6} << QVector<double>{1, 2, 3, 4, 5, 6} << false
                           << "ok (max abs error 0, max rel error 0; rtol 0.0001, atol 1e-05)";
    QTest::newRow("within tolerance") << QVector<double>{1, 2, 3, 4, 5, 6.0004} << QVector<double>{1, 2, 3, 4, 5, 6}
                                      << false
                                      << "ok (max abs error 0.0004, max rel error 6.67e-05; rtol 0.0001, atol "
                                         "1e-05)";
    QTest::newRow("two differ") << QVector<double>{1, 2, 3, 4, 0, 7} << QVector<double>{1, 2, 3, 4, 5, 6} << false
                                << "MISMATCH: 2 of 6 elements differ; first at [1, 1]: expected 5, got 0 (max abs "
                                   "error 5, max rel error 1; rtol 0.0001, atol 1e-05)";
    QTest::newRow("nan on one side") << QVector<double>{1, NAN, 3, 4, 5, 6} << QVector<double>{1, 2, 3, 4, 5, 6}
                                     << false
                                     << "MISMATCH: 1 of 6 elements differ; first at [0, 1]: expected 2, got nan (max "
                                        "abs error nan, max rel error 0; rtol 0.0001, atol 1e-05)";
    QTest::newRow("nan on both sides") << QVector<double>{1, NAN, 3, 4, 5, 6} << QVector<double>{1, NAN, 3, 4, 5, 6}
                                       << false << "ok (max abs error 0, max rel error 0; rtol 0.0001, atol 1e-05)";
    QTest::newRow("integers exact") << QVector<double>{1, 2, 3, 4, 5, 7} << QVector<double>{1, 2, 3, 4, 5, 6} << true
                                    << "MISMATCH: 1 of 6 elements differ; first at [1, 2]: expected 6, got 7 (max abs "
                                       "error 1, max rel error 0.167; exact)";
  }
  void compare() {
    QFETCH(QVector<double>, actual);
    QFETCH(QVector<double>, expected);
    QFETCH(bool, integer);
    QFETCH(QString, text);
    const auto t = integer ? ir::DataType::int32() : ir::DataType::float32();
    auto a = array({2, 3}, std::vector<double>(actual.begin(), actual.end()), t);
    auto e = array({2, 3}, std::vector<double>(expected.begin(), expected.end()), t);
    const auto check = compareOutput("C", a, e, defaultTolerance(t));
    QCOMPARE(QString::fromStdString(check.str()), text);
  }

  void argumentsAreSeededLikeCheck() {
    const auto f = parse(kMatmul);
    auto args = makeArguments(f, {}, 7);
    QVERIFY(args.has_value());
    QCOMPARE(args->size(), std::size_t(3));
    ir::NDArray a({64, 48}, ir::DataType::float32()), b({48, 64}, ir::DataType::float32());
    a.fillRandom(7);
    b.fillRandom(8);
    QCOMPARE((*args)[0].checksum(), a.checksum());
    QCOMPARE((*args)[1].checksum(), b.checksum());
    QCOMPARE((*args)[2].checksum().absSum, 0.0);
    QCOMPARE(outputParams(f), std::vector<std::size_t>{2});
  }

  void scheduledKernelAgainstInterpreter() {
    const auto original = parse(kMatmul);
    Built b = build(scheduled(original, kTile));
    auto args = makeArguments(original, {}, 0);
    auto report = verify(original, {}, *args, runner(b, {}), {});
    QVERIFY2(report.has_value(), report ? "" : report.error().message.c_str());
    QCOMPARE(report->reference, ReferenceKind::Interpreter);
    QCOMPARE(report->referenceText, std::string("the reference interpreter"));
    QCOMPARE(report->instances, 64.0 * 64 + 64.0 * 64 * 48);
    QCOMPARE(report->outputs.size(), std::size_t(1));
    QVERIFY2(report->passed(), report->outputs[0].str().c_str());
    QVERIFY(report->outputs[0].maxAbsError < 1e-4);
    QVERIFY(report->actual[2].checksum().absSum > 0);
  }

  void largeProgramAgainstCompiledUnscheduled() {
    const auto original = parse(kMatmul);
    Built b = build(scheduled(original, kTile));
    auto args = makeArguments(original, {}, 0);
    VerifyOptions o;
    o.interpretLimit = 1000;
    auto report =
        verify(original, {}, *args, runner(b, {}), m_pipeline.compiledReference(*m_cpuC, original, {}, isolated()), o);
    QVERIFY2(report.has_value(), report ? "" : report.error().message.c_str());
    QCOMPARE(report->reference, ReferenceKind::CompiledUnscheduled);
    QCOMPARE(report->referenceText, std::string("the unscheduled program compiled by the same target (too large to "
                                                "interpret: 2.01e+05 statement instances > 1e+03)"));
    QVERIFY2(report->passed(), report->outputs[0].str().c_str());
    // Plus the interpreter on 16 sampled elements of C (the first, the last, 14 seeded),
    // each costing its init and its 48 updates.
    QCOMPARE(report->sampled.size(), std::size_t(1));
    const SampledCheck& sample = report->sampled[0];
    QCOMPARE(sample.name, std::string("C"));
    QVERIFY2(sample.skipped.empty(), sample.skipped.c_str());
    QCOMPARE(sample.indices.size(), std::size_t(16));
    QCOMPARE(sample.indices.front(), (std::vector<std::int64_t>{0, 0}));
    QCOMPARE(sample.indices.back(), (std::vector<std::int64_t>{63, 63}));
    QCOMPARE(sample.instancesPerElement, 49.0);
    QVERIFY2(sample.passed(), sample.str().c_str());
    QVERIFY2(QString::fromStdString(sample.str()).startsWith("interpreter on 16 sampled elements [0, 0], ["),
             sample.str().c_str());
    QVERIFY2(QString::fromStdString(sample.str()).contains("[63, 63]: ok (max abs error "), sample.str().c_str());
    QVERIFY(sample.check.maxAbsError < 1e-4);

    auto refused = verify(original, {}, *args, runner(b, {}), {}, o);
    QVERIFY(!refused.has_value());
    QCOMPARE(refused.error().code, std::string("verify.too-large"));
  }

  void sampledElementsCatchWhatTheCompiledReferenceShares() {
    // A code generator bug hits the kernel and the compiled unscheduled program alike
    // (here: the last element is off by one in both), so the comparison of the two
    // passes; the interpreter on sampled elements (the last is always one) does not.
    const auto original = parse(kMatmul);
    Built b = build(original);
    auto args = makeArguments(original, {}, 4);
    auto run = runner(b, {});
    auto wrongLast = [&](std::span<ir::NDArray> a) -> Expected<void> {
      if (auto ok = run(a); !ok) return ok;
      a[2].setDouble(64 * 64 - 1, a[2].getDouble(64 * 64 - 1) + 1.0);
      return {};
    };
    VerifyOptions o;
    o.interpretLimit = 1000;
    auto report = verify(original, {}, *args, wrongLast, wrongLast, o);
    QVERIFY2(report.has_value(), report ? "" : report.error().message.c_str());
    QCOMPARE(report->reference, ReferenceKind::CompiledUnscheduled);
    QVERIFY(report->outputs[0].passed());
    QVERIFY(!report->passed());
    const SampledCheck& sample = report->sampled[0];
    QCOMPARE(sample.check.mismatches, std::int64_t(1));
    QCOMPARE(sample.check.first->index, (std::vector<std::int64_t>{63, 63}));
    QCOMPARE(sample.check.first->flatIndex, std::int64_t(64 * 64 - 1));
    QVERIFY2(QString::fromStdString(sample.str()).contains(": MISMATCH at 1 of them; first at [63, 63]: expected "),
             sample.str().c_str());
    // Within the interpret limit of 1000 at 49 instances per element: 16 elements (the
    // default); a limit of 100 affords 2, a limit of 10 none.
    o.interpretLimit = 100;
    auto two = verify(original, {}, *args, run, run, o);
    QVERIFY(two.has_value());
    QCOMPARE(two->sampled[0].indices, (std::vector<std::vector<std::int64_t>>{{0, 0}, {63, 63}}));
    o.interpretLimit = 10;
    auto none = verify(original, {}, *args, run, run, o);
    QVERIFY(none.has_value());
    QVERIFY(none->passed());
    QCOMPARE(none->sampled[0].str(),
             std::string("interpreter on sampled elements: not run (one element costs 49 statement instances > 10)"));
  }

  void referenceCacheRunsTheReferenceOnce() {
    // The tuner verifies many kernels of one program on the same inputs: with a cache the
    // compiled reference (counted here) and the sampled elements run once; a wrong kernel
    // is still caught, and other inputs compute the reference again.
    const auto original = parse(kMatmul);
    Built b = build(scheduled(original, kTile));
    auto args = makeArguments(original, {}, 5);
    auto run = runner(b, {});
    int referenceRuns = 0;
    auto reference = [&](std::span<ir::NDArray> a) {
      ++referenceRuns;
      return run(a);
    };
    auto corrupt = [&](std::span<ir::NDArray> a) -> Expected<void> {
      if (auto ok = run(a); !ok) return ok;
      a[2].setDouble(7, a[2].getDouble(7) + 1.0);
      return {};
    };
    VerifyOptions o;
    o.interpretLimit = 1000;
    o.reference = std::make_shared<ReferenceCache>();
    auto first = verify(original, {}, *args, run, reference, o);
    QVERIFY(first.has_value() && first->passed());
    auto second = verify(original, {}, *args, run, reference, o);
    QVERIFY(second.has_value() && second->passed());
    QCOMPARE(referenceRuns, 1);
    QCOMPARE(o.reference->hits, 1);
    QCOMPARE(second->referenceText, first->referenceText);
    QCOMPARE(second->sampled[0].indices, first->sampled[0].indices);
    QCOMPARE(second->sampled[0].str(), first->sampled[0].str());
    auto wrong = verify(original, {}, *args, corrupt, reference, o);
    QVERIFY(wrong.has_value());
    QVERIFY(!wrong->passed());
    QCOMPARE(wrong->outputs[0].first->index, (std::vector<std::int64_t>{0, 7}));
    QCOMPARE(referenceRuns, 1);
    auto other = makeArguments(original, {}, 6);
    auto fresh = verify(original, {}, *other, run, reference, o);
    QVERIFY(fresh.has_value() && fresh->passed());
    QCOMPARE(referenceRuns, 2);
    QCOMPARE(o.reference->hits, 2);
    // The interpreter path is cached the same way.
    VerifyOptions small;
    small.reference = std::make_shared<ReferenceCache>();
    QVERIFY(verify(original, {}, *args, run, {}, small)->passed());
    auto again = verify(original, {}, *args, corrupt, {}, small);
    QCOMPARE(small.reference->hits, 1);
    QCOMPARE(again->reference, ReferenceKind::Interpreter);
    QCOMPARE(again->outputs[0].mismatches, std::int64_t(1));
  }

  void elementRestrictionIsExact_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<int>("n");
    QTest::newRow("softmax: four stages") << QString(R"(from tvm import te
X = te.placeholder((4, 16), name="X")
k1 = te.reduce_axis((0, 16), name="k1")
k2 = te.reduce_axis((0, 16), name="k2")
maxelem = te.compute((4,), lambda i: te.max(X[i, k1], axis=k1), name="T_softmax_maxelem")
expv = te.compute((4, 16), lambda i, j: te.exp(X[i, j] - maxelem[i]), name="T_softmax_exp")
expsum = te.compute((4,), lambda i: te.sum(expv[i, k2], axis=k2), name="T_softmax_expsum")
norm = te.compute((4, 16), lambda i, j: expv[i, j] / expsum[i], name="T_softmax_norm")
)") << 0;
    QTest::newRow("dense, symbolic n") << QString(kDense) << 5;
    QTest::newRow("int reduction") << QString(R"(from tvm import te
A = te.placeholder((6, 9), dtype="int32", name="A")
k = te.reduce_axis((0, 9), name="k")
S = te.compute((6, 3), lambda i, j: te.sum(A[i, k] * A[i, k] * (j + 1) * 1000003, axis=k), name="S")
)") << 0;
  }
  void elementRestrictionIsExact() {
    // Every element interpreted alone equals, bit for bit, the whole program's value.
    QFETCH(QString, program);
    QFETCH(int, n);
    const auto f = parse(program.toStdString().c_str());
    const ir::SizeBindings sizes = n ? ir::SizeBindings{{"n", n}} : ir::SizeBindings{};
    auto args = makeArguments(f, sizes, 9);
    QVERIFY(args.has_value());
    std::vector<ir::NDArray> whole;
    for (auto& a : *args)
      whole.push_back(a.clone());
    QVERIFY(ir::interpret(f, whole, sizes).has_value());
    const std::size_t out = outputParams(f).back();
    const std::int64_t numel = whole[out].numel();
    auto sample = interpretSampledElements(f, sizes, *args, out, static_cast<int>(numel), 0, 1e9);
    QVERIFY2(sample.has_value(), sample ? "" : sample.error().message.c_str());
    QVERIFY2(sample->skipped.empty(), sample->skipped.c_str());
    QCOMPARE(static_cast<std::int64_t>(sample->flatIndices.size()), numel);
    for (std::int64_t i = 0; i < numel; ++i) {
      QCOMPARE(sample->flatIndices[i], i);
      QCOMPARE(sample->values.getDouble(i), whole[out].getDouble(i));
      QCOMPARE(sample->values.getInt(i), whole[out].getInt(i));
    }
  }

  void elementRestrictionRefusesScans() {
    const auto f = parse(R"(from tvm import te
x = te.placeholder((8,), dtype="int32", name="x")
state = te.placeholder((8,), dtype="int32", name="state")
init = te.compute((1,), lambda t: x[0], name="psum_init")
update = te.compute((8,), lambda t: state[t - 1] + x[t], name="psum_update")
psum = te.scan(init, update, state, inputs=[x], name="psum")
)");
    const std::size_t out = outputParams(f).back();
    auto restricted = restrictToElement(f, out, {3}, {});
    QVERIFY(!restricted.has_value());
    QCOMPARE(restricted.error().code, std::string("verify.no-element-restriction"));
    QCOMPARE(restricted.error().message, std::string("'psum' is written by more than one block"));
    auto args = makeArguments(f, {}, 0);
    auto sample = interpretSampledElements(f, {}, *args, out, 16, 0, 1e9);
    QVERIFY(sample.has_value());
    QVERIFY(sample->flatIndices.empty());
    QCOMPARE(sample->skipped, std::string("'psum' is written by more than one block"));
  }

  void wrongResultIsReported() {
    const auto original = parse(kMatmul);
    Built b = build(original);
    auto args = makeArguments(original, {}, 3);
    auto run = runner(b, {});
    auto corrupt = [&](std::span<ir::NDArray> a) -> Expected<void> {
      if (auto ok = run(a); !ok) return ok;
      a[2].setDouble(3 * 64 + 5, a[2].getDouble(3 * 64 + 5) + 1.0);
      return {};
    };
    auto report = verify(original, {}, *args, corrupt, {});
    QVERIFY(report.has_value());
    QVERIFY(!report->passed());
    const auto& c = report->outputs[0];
    QCOMPARE(c.mismatches, std::int64_t(1));
    QCOMPARE(c.first->index, (std::vector<std::int64_t>{3, 5}));
    QCOMPARE(c.first->flatIndex, std::int64_t(3 * 64 + 5));
    QVERIFY(std::fabs(c.first->actual - c.first->expected - 1.0) < 1e-5);
    QVERIFY(QString::fromStdString(c.str()).startsWith("MISMATCH: 1 of 4096 elements differ; first at [3, 5]: "));
  }

  void dynamicShapeAndOutOfBoundsCrash() {
    const auto original = parse(kDense);
    Built b = build(original);
    const ir::SizeBindings sizes = {{"n", 5}};
    auto args = makeArguments(original, sizes, 0);
    QVERIFY(args.has_value());
    auto report = verify(original, sizes, *args, runner(b, sizes), {});
    QVERIFY2(report.has_value(), report ? "" : report.error().message.c_str());
    QVERIFY2(report->passed(), report->outputs[0].str().c_str());

    // TEST ONLY: the generated kernel is told n = 2^30 while its buffers hold 5 rows; it
    // writes far out of bounds and the worker dies with the signal, this process does not.
    auto o = isolated();
    o.uncheckedArguments = true;
    const std::vector<std::int64_t> huge = {std::int64_t(1) << 30};
    auto crashed = runKernel(b.func, *b.kernel, *args, huge, o);
    QVERIFY(!crashed.has_value());
    QCOMPARE(crashed.error().code, std::string("runner.crashed"));
    QVERIFY2(crashed.error().message == "the kernel crashed with SIGSEGV (segmentation fault)" ||
                 crashed.error().message == "the kernel crashed with SIGBUS (bus error)",
             crashed.error().message.c_str());
  }
};

QTEST_GUILESS_MAIN(TestVerify)
#include "tst_verify.moc"
