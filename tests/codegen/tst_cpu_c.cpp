// The cpu-c plugin and the plugin registry: golden C source of a small matmul; every
// sample (small-shape copies) unscheduled and scheduled (split + parallel + vectorize)
// built with cpu-c, run in-process and compared with the interpreter (integer programs
// bit-identical, float within rtol 1e-5 / atol 1e-6); compile errors rendered with the
// generated line; the registry's refusal of wrong-ABI and symbol-less plugins.
//
// Regenerate the golden C file with LS_UPDATE_GOLDEN=1 tst_codegen_cpu_c goldenMatmulC,
// then review the diff by eye.
#include "core/codegen/lower.h"
#include "core/codegen/target_registry.h"
#include "core/frontend/te_frontend.h"
#include "core/ir/interpreter.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace loopscape;

namespace {

constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-6;

codegen::TargetRegistry& registry() {
  static codegen::TargetRegistry r({LS_PLUGIN_DIR});
  return r;
}

codegen::Target& cpuC() {
  auto t = registry().findTarget("cpu-c");
  if (!t) qFatal("%s", renderDiagnostic(t.error()).c_str());
  return **t;
}

/// Build outputs of this test run go to a fresh directory (no stale cache hits).
codegen::BuildOptions buildOptions() {
  static QTemporaryDir dir;
  codegen::BuildOptions o;
  o.workDir = dir.path().toStdString();
  return o;
}

ir::PrimFunc parse(const std::string& text) {
  auto f = frontend::parseTe(text, "test.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), text).c_str());
  return *f;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Sample {
  const char* name;
  const char* program;
  const char* schedule; ///< TVM-syntax script: split + parallel + vectorize where legal
  ir::SizeBindings sizes;
};

// Small-shape copies of samples/*.te (same computations, same names).
const Sample kSamples[] = {
    {"matmul", R"(from tvm import te
M, N, K = 16, 24, 8
A = te.placeholder((M, K), dtype="float32", name="A")
B = te.placeholder((K, N), dtype="float32", name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)",
     R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1 = sch.split(i, factors=[None, 4])
j_0, j_1 = sch.split(j, factors=[None, 8])
sch.reorder(i_0, j_0, k, i_1, j_1)
sch.parallel(i_0)
sch.vectorize(j_1)
)",
     {}},
    {"batch_matmul", R"(from tvm import te
batch, M, K, N = 2, 8, 4, 8
A = te.placeholder((batch, M, K), name="A")
B = te.placeholder((batch, K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((batch, M, N), lambda b, i, j: te.sum(A[b, i, k] * B[b, k, j], axis=k), name="batch_matmul")
)",
     R"(blk = sch.get_block("batch_matmul")
b, i, j, k = sch.get_loops(blk)
bi = sch.fuse(b, i)
sch.reorder(bi, k, j)
sch.parallel(bi)
sch.vectorize(j)
)",
     {}},
    {"conv2d_nchw", R"(import tvm
from tvm import te
batch, in_channel, height, width = 1, 3, 6, 6
out_channel, kernel, pad, stride = 4, 3, 1, 1
out_height = (height + 2 * pad - kernel) // stride + 1
out_width = (width + 2 * pad - kernel) // stride + 1
data = te.placeholder((batch, in_channel, height, width), name="data")
weight = te.placeholder((out_channel, in_channel, kernel, kernel), name="weight")
pad_temp = te.compute(
    (batch, in_channel, height + 2 * pad, width + 2 * pad),
    lambda i0, i1, i2, i3: te.if_then_else(
        tvm.tir.all(i2 >= pad, i2 < height + pad, i3 >= pad, i3 < width + pad),
        data[i0, i1, i2 - pad, i3 - pad],
        tvm.tir.const(0.0, "float32"),
    ),
    name="pad_temp",
)
rc = te.reduce_axis((0, in_channel), name="rc")
ry = te.reduce_axis((0, kernel), name="ry")
rx = te.reduce_axis((0, kernel), name="rx")
conv = te.compute(
    (batch, out_channel, out_height, out_width),
    lambda nn, ff, yy, xx: te.sum(
        pad_temp[nn, rc, yy * stride + ry, xx * stride + rx] * weight[ff, rc, ry, rx],
        axis=[rc, ry, rx],
    ),
    name="conv2d_nchw",
)
)",
     R"(p = sch.get_block("pad_temp")
i0, i1, i2, i3 = sch.get_loops(p)
sch.parallel(i1)
c = sch.get_block("conv2d_nchw")
nn, ff, yy, xx, rc, ry, rx = sch.get_loops(c)
xx_0, xx_1 = sch.split(xx, factors=[None, 3])
sch.reorder(xx_0, rc, ry, rx, xx_1)
sch.parallel(ff)
sch.vectorize(xx_1)
)",
     {}},
    {"conv_bias_relu", R"(from tvm import te
N, C, H, W = 1, 2, 4, 8
F, KS, P = 3, 3, 1
data = te.placeholder((N, C, H, W), name="data")
weight = te.placeholder((F, C, KS, KS), name="weight")
bias = te.placeholder((F,), name="bias")
pad_temp = te.compute(
    (N, C, H + 2 * P, W + 2 * P),
    lambda i0, i1, i2, i3: te.if_then_else(
        te.all(i2 >= P, i2 < H + P, i3 >= P, i3 < W + P), data[i0, i1, i2 - P, i3 - P], 0.0
    ),
    name="pad_temp",
)
rc = te.reduce_axis((0, C), name="rc")
ry = te.reduce_axis((0, KS), name="ry")
rx = te.reduce_axis((0, KS), name="rx")
conv = te.compute(
    (N, F, H, W),
    lambda nn, ff, yy, xx: te.sum(pad_temp[nn, rc, yy + ry, xx + rx] * weight[ff, rc, ry, rx], axis=[rc, ry, rx]),
    name="conv2d_nchw",
)
biased = te.compute((N, F, H, W), lambda n, f, y, x: conv[n, f, y, x] + bias[f], name="T_add")
relu = te.compute((N, F, H, W), lambda n, f, y, x: te.max(biased[n, f, y, x], 0.0), name="T_relu")
)",
     R"(c = sch.get_block("conv2d_nchw")
nn, ff, yy, xx, rc, ry, rx = sch.get_loops(c)
sch.parallel(ff)
r = sch.get_block("T_relu")
n, f, y, x = sch.get_loops(r)
x_0, x_1 = sch.split(x, factors=[None, 4])
sch.parallel(f)
sch.vectorize(x_1)
)",
     {}},
    {"dense_dynamic", R"(from tvm import te
n = te.var("n")
in_dim, units = 8, 32
data = te.placeholder((n, in_dim), name="data")
weight = te.placeholder((units, in_dim), name="weight")
k = te.reduce_axis((0, in_dim), name="k")
T_matmul_NT = te.compute(
    (n, units), lambda i, j: te.sum(data[i, k] * weight[j, k], axis=k), name="T_matmul_NT", tag="dense"
)
)",
     R"(b0 = sch.get_block("T_matmul_NT")
i, j, k = sch.get_loops(b0)
i_0, i_1 = sch.split(i, [None, 8])
j_0, j_1 = sch.split(j, [None, 16])
sch.reorder(i_0, j_0, k, i_1, j_1)
sch.parallel(i_0)
sch.vectorize(j_1)
)",
     {{"n", 13}}},
    {"depthwise_conv2d", R"(from tvm import te
batch, channel, height, width = 1, 3, 5, 8
kernel, pad = 3, 1
Input = te.placeholder((batch, channel, height, width), name="Input")
Filter = te.placeholder((channel, 1, kernel, kernel), name="Filter")
PaddedInput = te.compute(
    (batch, channel, height + 2 * pad, width + 2 * pad),
    lambda b, c, i, j: te.if_then_else(
        te.all(i >= pad, i < height + pad, j >= pad, j < width + pad),
        Input[b, c, i - pad, j - pad],
        te.const(0.0, "float32"),
    ),
    name="PaddedInput",
)
di = te.reduce_axis((0, kernel), name="di")
dj = te.reduce_axis((0, kernel), name="dj")
DepthwiseConv2d = te.compute(
    (batch, channel, height, width),
    lambda b, c, i, j: te.sum(PaddedInput[b, c, i + di, j + dj] * Filter[c, 0, di, dj], axis=[di, dj]),
    name="DepthwiseConv2d",
)
)",
     R"(d = sch.get_block("DepthwiseConv2d")
b, c, i, j, di, dj = sch.get_loops(d)
sch.reorder(di, dj, j)
sch.parallel(c)
sch.vectorize(j)
)",
     {}},
    {"layernorm", R"(from tvm import te
rows, cols = 4, 16
eps = 1e-5
data = te.placeholder((rows, cols), name="data")
gamma = te.placeholder((cols,), name="gamma")
beta = te.placeholder((cols,), name="beta")
k = te.reduce_axis((0, cols), name="k")
mean = te.compute((rows,), lambda i: te.sum(data[i, k] / cols, axis=k), name="T_mean")
kv = te.reduce_axis((0, cols), name="kv")
var = te.compute((rows,), lambda i: te.sum((data[i, kv] - mean[i]) * (data[i, kv] - mean[i]) / cols, axis=kv), name="T_var")
out = te.compute(
    (rows, cols),
    lambda i, j: (data[i, j] - mean[i]) * te.rsqrt(var[i] + eps) * gamma[j] + beta[j],
    name="T_layer_norm",
)
)",
     R"(b = sch.get_block("T_layer_norm")
i, j = sch.get_loops(b)
j_0, j_1 = sch.split(j, factors=[None, 8])
sch.parallel(i)
sch.vectorize(j_1)
)",
     {}},
    {"softmax", R"(from tvm import te
m, n = 4, 16
X = te.placeholder((m, n), name="X")
k1 = te.reduce_axis((0, n), name="k1")
k2 = te.reduce_axis((0, n), name="k2")
maxelem = te.compute((m,), lambda i: te.max(X[i, k1], axis=k1), name="T_softmax_maxelem")
expv = te.compute((m, n), lambda i, j: te.exp(X[i, j] - maxelem[i]), name="T_softmax_exp")
expsum = te.compute((m,), lambda i: te.sum(expv[i, k2], axis=k2), name="T_softmax_expsum")
norm = te.compute((m, n), lambda i, j: expv[i, j] / expsum[i], name="T_softmax_norm")
)",
     R"(b = sch.get_block("T_softmax_norm")
i, j = sch.get_loops(b)
j_0, j_1 = sch.split(j, factors=[None, 8])
sch.parallel(i)
sch.vectorize(j_1)
)",
     {}},
    // Integer semantics: floordiv/floormod of negative numbers, int8 wrapping, min/max.
    {"int_ops", R"(from tvm import te
A = te.placeholder((8, 16), dtype="int32", name="A")
B = te.placeholder((8, 16), dtype="int8", name="B")
k = te.reduce_axis((0, 16), name="k")
D = te.compute((8, 16), lambda i, j: A[i, j] // 3 + A[i, j] % 5 * 7 - te.max(A[i, j], 2) * te.min(A[i, j], -1), name="D")
E = te.compute((8, 16), lambda i, j: B[i, j] * B[i, j] * te.const(9, "int8") + te.const(120, "int8"), name="E")
S = te.compute((8,), lambda i: te.sum(A[i, k] * A[i, k] * 1000003, axis=k), name="S")
)",
     R"(d = sch.get_block("D")
i, j = sch.get_loops(d)
j_0, j_1 = sch.split(j, factors=[None, 8])
sch.parallel(i)
sch.vectorize(j_1)
e = sch.get_block("E")
i, j = sch.get_loops(e)
sch.vectorize(j)
)",
     {}},
};

/// Runs `func` through cpu-c and through the interpreter on the same seeded inputs and
/// compares every parameter afterwards.
void checkAgainstInterpreter(const ir::PrimFunc& func, const ir::SizeBindings& sizes) {
  auto lowered = codegen::lower(func);
  QVERIFY2(lowered.has_value(), lowered ? "" : renderDiagnostic(lowered.error()).c_str());
  auto kernel = cpuC().build(*lowered, buildOptions());
  QVERIFY2(kernel.has_value(), kernel ? "" : renderDiagnostic(kernel.error()).c_str());

  std::vector<ir::NDArray> expected, actual;
  for (std::size_t p = 0; p < func.params.size(); ++p) {
    auto shape = ir::evalShape(func.params[p], sizes);
    QVERIFY(shape.has_value());
    ir::NDArray a(*shape, func.params[p]->dtype);
    a.fillRandom(1000 + p);
    expected.push_back(a.clone());
    actual.push_back(a.clone());
  }
  auto ran = ir::interpret(func, expected, sizes);
  QVERIFY2(ran.has_value(), ran ? "" : renderDiagnostic(ran.error()).c_str());

  std::vector<void*> pointers;
  for (auto& a : actual) pointers.push_back(a.rawData());
  std::vector<std::int64_t> sizeValues;
  for (const auto& v : lowered->sizeVars) sizeValues.push_back(sizes.at(v.as<ir::Var>()->name));
  auto ok = (*kernel)->run(pointers, sizeValues);
  QVERIFY(ok.has_value());

  for (std::size_t p = 0; p < func.params.size(); ++p) {
    const auto& b = func.params[p];
    if (b->dtype.isInteger()) {
      QVERIFY2(actual[p].checksum() == expected[p].checksum(),
               qPrintable(QString("%1 differs: %2 vs %3")
                              .arg(QString::fromStdString(b->name), QString::fromStdString(actual[p].checksum().str()),
                                   QString::fromStdString(expected[p].checksum().str()))));
      continue;
    }
    auto mismatch = ir::firstMismatch(actual[p], expected[p], kAtol, kRtol);
    QVERIFY2(!mismatch, mismatch ? qPrintable(QString("%1[%2]: %3 vs expected %4")
                                                  .arg(QString::fromStdString(b->name))
                                                  .arg(mismatch->index)
                                                  .arg(mismatch->actual, 0, 'g', 9)
                                                  .arg(mismatch->expected, 0, 'g', 9))
                                 : "");
  }
}

class EnvGuard {
public:
  EnvGuard(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    setenv(name, value, 1);
  }
  ~EnvGuard() {
    if (m_old) setenv(m_name, m_old->c_str(), 1);
    else unsetenv(m_name);
  }

private:
  const char* m_name;
  std::optional<std::string> m_old;
};

} // namespace

class TestCpuC : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void registryFindsCpuC() {
    auto t = registry().findTarget("cpu-c");
    QVERIFY(t.has_value());
    QCOMPARE(QString::fromStdString((*t)->name()), QString("cpu-c"));
    QCOMPARE(QString::fromStdString((*t)->deviceKind()), QString("cpu"));
    auto tc = (*t)->toolchain();
    QVERIFY2(tc.usable, tc.message.c_str());
    QVERIFY2(QString::fromStdString(tc.message).contains(" at /"), tc.message.c_str());
    QCOMPARE((*t)->sourceFormats(), (std::vector<std::string>{"c", "asm"}));
    QVERIFY((*t)->capabilities().parallel);
    auto unknown = registry().findTarget("cuda-nope");
    QVERIFY(!unknown);
    QCOMPARE(QString::fromStdString(unknown.error().code), QString("codegen.unknown-target"));
  }

  void goldenMatmulC() {
    const std::string program = R"(from tvm import te
A = te.placeholder((8, 8), dtype="float32", name="A")
B = te.placeholder((8, 8), dtype="float32", name="B")
k = te.reduce_axis((0, 8), name="k")
C = te.compute((8, 8), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";
    schedule::Schedule sch(parse(program));
    auto ok = schedule::applyScript(sch, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
sch.reorder(i, k, j)
sch.parallel(i)
sch.vectorize(j)
)", "golden.py");
    QVERIFY(ok.has_value());
    auto lowered = codegen::lower(sch.func());
    QVERIFY(lowered.has_value());
    auto source = cpuC().source(*lowered, "c", buildOptions());
    QVERIFY(source.has_value());
    std::string path = std::string(LS_SOURCE_DIR) + "/tests/codegen/golden/matmul_small.c";
    if (std::getenv("LS_UPDATE_GOLDEN")) {
      std::ofstream(path) << *source;
      QSKIP("golden file rewritten");
    }
    QCOMPARE(QString::fromStdString(*source), QString::fromStdString(readAll(path)));
    // The golden kernel also runs correctly.
    checkAgainstInterpreter(sch.func(), {});
  }

  void asmShowsTheKernel() {
    auto lowered = codegen::lower(parse(kSamples[0].program));
    QVERIFY(lowered.has_value());
    auto text = cpuC().source(*lowered, "asm", buildOptions());
    QVERIFY2(text.has_value(), text ? "" : renderDiagnostic(text.error()).c_str());
    QVERIFY2(QString::fromStdString(*text).startsWith("main_kernel:\n"), text->substr(0, 200).c_str());
    QVERIFY(text->find("main_kernel_packed:") != std::string::npos);
    QVERIFY(text->find("\tret") != std::string::npos);
    auto bad = cpuC().source(*lowered, "ptx", buildOptions());
    QVERIFY(!bad);
    QCOMPARE(QString::fromStdString(bad.error().code), QString("codegen.unknown-format"));
  }

  void kernelReportsItsLibrary() {
    auto lowered = codegen::lower(parse(kSamples[0].program));
    QVERIFY(lowered.has_value());
    auto kernel = cpuC().build(*lowered, buildOptions());
    QVERIFY(kernel.has_value());
    QCOMPARE(QString::fromStdString((*kernel)->symbol()), QString("main_kernel"));
    QVERIFY(QString::fromStdString((*kernel)->libraryPath()).endsWith(".so"));
    QVERIFY(QFile::exists(QString::fromStdString((*kernel)->libraryPath())));
    std::vector<void*> none;
    auto wrong = (*kernel)->run(none, {});
    QVERIFY(!wrong);
    QCOMPARE(QString::fromStdString(wrong.error().message), QString("main_kernel takes 3 buffers and 0 sizes, got 0 and 0"));
  }

  void samples_data() {
    QTest::addColumn<int>("index");
    QTest::addColumn<bool>("scheduled");
    for (int i = 0; i < static_cast<int>(std::size(kSamples)); ++i) {
      QTest::newRow((std::string(kSamples[i].name) + " unscheduled").c_str()) << i << false;
      QTest::newRow((std::string(kSamples[i].name) + " scheduled").c_str()) << i << true;
    }
  }
  void samples() {
    QFETCH(int, index);
    QFETCH(bool, scheduled);
    const Sample& s = kSamples[index];
    schedule::Schedule sch(parse(s.program));
    if (scheduled) {
      auto ok = schedule::applyScript(sch, s.schedule, std::string(s.name) + ".py");
      QVERIFY2(ok.has_value(), ok ? "" : renderDiagnostic(ok.error(), s.schedule).c_str());
    }
    checkAgainstInterpreter(sch.func(), s.sizes);
  }

  void scheduledSamplesVectorize() {
    // The schedules above really produce vector code (not only fallbacks).
    for (const char* name : {"matmul", "batch_matmul", "conv2d_nchw", "softmax", "int_ops"}) {
      const Sample* s = nullptr;
      for (const auto& x : kSamples)
        if (std::string_view(x.name) == name) s = &x;
      schedule::Schedule sch(parse(s->program));
      QVERIFY(schedule::applyScript(sch, s->schedule, "s.py").has_value());
      auto lowered = codegen::lower(sch.func());
      QVERIFY(lowered.has_value());
      QVERIFY2(lowered->remarks.empty(), (std::string(name) + ": " + (lowered->remarks.empty() ? "" : lowered->remarks[0].message)).c_str());
      auto c = cpuC().source(*lowered, "c", buildOptions());
      QVERIFY(c.has_value());
      QVERIFY2(c->find("#pragma omp simd") != std::string::npos, name);
    }
  }

  void compileErrorShowsGeneratedLine() {
    EnvGuard hook("LOOPSCAPE_CPU_C_TEST_BREAK_SOURCE", "1");
    auto lowered = codegen::lower(parse(kSamples[0].program));
    QVERIFY(lowered.has_value());
    auto kernel = cpuC().build(*lowered, buildOptions());
    QVERIFY(!kernel);
    const Diagnostic& d = kernel.error();
    QCOMPARE(QString::fromStdString(d.code), QString("cpu-c.compile-error"));
    QVERIFY2(QString::fromStdString(d.message)
                 .startsWith("the C compiler rejected the generated code: 'ls_test_broken_statement' undeclared"),
             d.message.c_str());
    auto source = cpuC().source(*lowered, "c", buildOptions());
    QVERIFY(source.has_value());
    // The location is the generated line holding the broken statement.
    std::stringstream ss(*source);
    std::string line;
    int lineNo = 0, brokenLine = 0;
    while (std::getline(ss, line)) {
      ++lineNo;
      if (line.find("ls_test_broken_statement;") != std::string::npos) brokenLine = lineNo;
    }
    QVERIFY(brokenLine > 0);
    QCOMPARE(d.location.line, brokenLine);
    QVERIFY(QString::fromStdString(d.location.file).endsWith(".c"));
    QCOMPARE(QString::fromStdString(d.notes.at(0)),
             QString("generated line %1:       ls_test_broken_statement;").arg(brokenLine));
    // Rendered against the generated source, the line and a caret appear.
    QString rendered = QString::fromStdString(renderDiagnostic(d, *source));
    QVERIFY2(rendered.contains("ls_test_broken_statement;\n") && rendered.contains("^"), qPrintable(rendered));
  }

  void registryRefusesWrongAbi() {
    EnvGuard path("LOOPSCAPE_PLUGIN_PATH", LS_TEST_PLUGIN_DIR);
    auto dirs = codegen::TargetRegistry::defaultSearchDirs();
    QCOMPARE(QString::fromStdString(dirs.back()), QString(LS_TEST_PLUGIN_DIR));
    codegen::TargetRegistry reg(dirs);
    const codegen::PluginInfo* bad = nullptr;
    const codegen::PluginInfo* noFactory = nullptr;
    for (const auto& p : reg.plugins()) {
      if (p.name == "bad-abi") bad = &p;
      if (p.name == "no-factory") noFactory = &p;
    }
    QVERIFY(bad && noFactory);
    QVERIFY(!bad->enabled);
    QVERIFY(bad->target == nullptr);
    QCOMPARE(QString::fromStdString(bad->error.code), QString("codegen.plugin-abi-mismatch"));
    QCOMPARE(QString::fromStdString(bad->error.message),
             QString("plugin 'loopscape-target-bad-abi.so' has ABI version %1, but loopscape expects %2")
                 .arg(codegen::kTargetAbiVersion + 41)
                 .arg(codegen::kTargetAbiVersion));
    QVERIFY(!noFactory->enabled);
    QCOMPARE(QString::fromStdString(noFactory->error.code), QString("codegen.plugin-missing-symbol"));
    QCOMPARE(QString::fromStdString(noFactory->error.message),
             QString("plugin 'loopscape-target-no-factory.so' does not export loopscape_create_target"));
    auto found = reg.findTarget("bad-abi");
    QVERIFY(!found);
    QCOMPARE(QString::fromStdString(found.error().code), QString("codegen.plugin-abi-mismatch"));
  }
};

QTEST_GUILESS_MAIN(TestCpuC)
#include "tst_cpu_c.moc"
