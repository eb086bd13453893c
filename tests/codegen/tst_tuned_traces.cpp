// The tuned sample schedules (samples/traces/matmul_tuned.py, conv2d_nchw_tuned.py, used
// by bench/codegen_bench.cpp) apply to small-shape copies of their samples (same loops
// and names, sizes chosen so every tile factor still divides) and the code they give is
// right: the scheduled program equals the original in the interpreter (the schedules keep
// each output's summation order, so bit-exact), it lowers without a vectorize fallback,
// and cpu-c and cpu-llvm (with and without fast-math) match the interpreter within
// rtol 1e-4. The cpu-llvm assembly of the fast-math build has the FMA instructions the
// benchmark's note claims (for matmul on the widest vector registers: zmm with AVX-512,
// ymm with AVX2) and no gather or scatter.
//
// The plugins are found like the CLI finds them (the process-wide TargetRegistry::global():
// build/tests/../plugins); a target whose plugin is not built is skipped with a message.
#include "core/codegen/lower.h"
#include "core/codegen/target_registry.h"
#include "core/frontend/te_frontend.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/structural_equal.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace loopscape;

namespace {

constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-5;

codegen::TargetRegistry& registry() { return codegen::TargetRegistry::global(); }

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ir::PrimFunc parse(const std::string& text) {
  auto f = frontend::parseTe(text, "small.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), text).c_str());
  return *f;
}

// samples/matmul.te at 128 x 64 x 16 (i is tiled 8 x 8 under a parallel loop, j by 32).
const char* const kSmallMatmul = R"(from tvm import te
M, N, K = 128, 64, 16
A = te.placeholder((M, K), dtype="float32", name="A")
B = te.placeholder((K, N), dtype="float32", name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";

// samples/conv2d_nchw.te at 1x3x4x16 input and 16 filters (ff tiled by 4, yy by 4,
// xx by 8).
const char* const kSmallConv = R"(import tvm
from tvm import te
batch, in_channel, height, width = 1, 3, 4, 16
out_channel, kernel, pad, stride = 16, 3, 1, 1
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
    tag="conv2d_nchw",
)
)";

std::string tracePath(const char* name) { return std::string(LS_SOURCE_DIR) + "/samples/traces/" + name; }

ir::PrimFunc scheduled(const ir::PrimFunc& original, const std::string& traceFile) {
  schedule::Schedule sch(original);
  auto ok = schedule::applyScript(sch, readAll(traceFile), traceFile);
  if (!ok) qFatal("%s", renderDiagnostic(ok.error()).c_str());
  return sch.func();
}

/// Seeded inputs for every parameter of `func` (outputs are overwritten by the program).
std::vector<ir::NDArray> makeArgs(const ir::PrimFunc& func) {
  std::vector<ir::NDArray> args;
  for (std::size_t p = 0; p < func.params.size(); ++p) {
    auto shape = ir::evalShape(func.params[p], {});
    if (!shape) qFatal("%s", renderDiagnostic(shape.error()).c_str());
    ir::NDArray a(*shape, func.params[p]->dtype);
    a.fillRandom(77 + p);
    args.push_back(std::move(a));
  }
  return args;
}

std::vector<ir::NDArray> cloneAll(const std::vector<ir::NDArray>& v) {
  std::vector<ir::NDArray> out;
  for (const auto& a : v) out.push_back(a.clone());
  return out;
}

QString mismatchText(const ir::Mismatch& m, const std::string& what) {
  return QString("%1: element %2 is %3, expected %4")
      .arg(QString::fromStdString(what))
      .arg(m.index)
      .arg(m.actual, 0, 'g', 9)
      .arg(m.expected, 0, 'g', 9);
}

} // namespace

class TestTunedTraces : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void tunedTrace_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QStringList>("asmMust"); // in the fast-math cpu-llvm assembly
    QTest::newRow("matmul") << QString(kSmallMatmul) << QString("matmul_tuned.py")
                            << QStringList{"vfmadd231ps\t%{v}mm", "vbroadcastss"};
    QTest::newRow("conv2d_nchw") << QString(kSmallConv) << QString("conv2d_nchw_tuned.py")
                                 << QStringList{"vfmadd231ps", "vbroadcastss"};
  }

  void tunedTrace() {
    QFETCH(QString, program);
    QFETCH(QString, trace);
    QFETCH(QStringList, asmMust);
    ir::PrimFunc original = parse(program.toStdString());
    ir::PrimFunc tuned = scheduled(original, tracePath(qPrintable(trace)));
    QVERIFY(!ir::structuralEqual(original.body, tuned.body));

    // The interpreter: the schedule keeps every output's summation order.
    auto expected = makeArgs(original);
    auto reference = cloneAll(expected);
    QVERIFY(ir::interpret(original, expected, {}).has_value());
    auto ranTuned = ir::interpret(tuned, reference, {});
    QVERIFY2(ranTuned.has_value(), ranTuned ? "" : renderDiagnostic(ranTuned.error()).c_str());
    const std::size_t out = expected.size() - 1;
    auto exact = ir::firstMismatch(reference[out], expected[out], 0, 0);
    QVERIFY2(!exact, exact ? qPrintable(mismatchText(*exact, "interpreter, tuned vs original")) : "");

    // Lowering vectorizes every vectorized loop (no fallback remark; a loop partitioned at
    // the padding says so).
    auto lowered = codegen::lower(tuned);
    QVERIFY2(lowered.has_value(), lowered ? "" : renderDiagnostic(lowered.error()).c_str());
    for (const auto& r : lowered->remarks)
      if (!r.message.starts_with("partitioned into "))
        QFAIL(qPrintable(QString::fromStdString(r.loop + ": " + r.message)));

    QTemporaryDir dir;
    int targetsRun = 0;
    for (const char* name : {"cpu-c", "cpu-llvm"}) {
      auto target = registry().findTarget(name);
      if (!target) {
        bool built = std::any_of(registry().plugins().begin(), registry().plugins().end(),
                                 [&](const codegen::PluginInfo& p) { return p.name == name; });
        QVERIFY2(!built, renderDiagnostic(target.error()).c_str());
        qWarning("target %s is not built; skipped", name);
        continue;
      }
      for (bool fastMath : {false, true}) {
        codegen::BuildOptions options;
        options.fastMath = fastMath;
        options.threads = 2;
        options.workDir = dir.path().toStdString();
        auto kernel = (*target)->build(*lowered, options);
        QVERIFY2(kernel.has_value(), kernel ? "" : renderDiagnostic(kernel.error()).c_str());
        auto actual = makeArgs(original);
        std::vector<void*> pointers;
        for (auto& a : actual) pointers.push_back(a.rawData());
        auto ran = (*kernel)->run(pointers, {});
        QVERIFY2(ran.has_value(), ran ? "" : renderDiagnostic(ran.error()).c_str());
        auto m = ir::firstMismatch(actual[out], expected[out], kAtol, kRtol);
        QVERIFY2(!m, m ? qPrintable(mismatchText(*m, std::string(name) + (fastMath ? " fast-math" : ""))) : "");
      }
      if (std::string(name) == "cpu-llvm") {
        codegen::BuildOptions options;
        options.fastMath = true;
        auto text = (*target)->source(*lowered, "asm", options);
        QVERIFY2(text.has_value(), text ? "" : renderDiagnostic(text.error()).c_str());
        // "%{v}mm" names the host's widest vector register (zmm with AVX-512, ymm with AVX2).
        const int bits = (*target)->capabilities().vectorBits;
        const QString reg = bits >= 512 ? "z" : bits >= 256 ? "y" : "x";
        for (QString s : asmMust) {
          s.replace("%{v}mm", "%" + reg + "mm");
          QVERIFY2(QString::fromStdString(*text).contains(s), qPrintable("the assembly lacks " + s));
        }
        // Every vector access of the tuned kernels is contiguous: no gather or scatter.
        for (const char* s : {"vgather", "vscatter", "vpscatter"})
          QVERIFY2(!QString::fromStdString(*text).contains(s), qPrintable(QString("the assembly has ") + s));
      }
      ++targetsRun;
    }
    if (targetsRun == 0) QSKIP("neither cpu-c nor cpu-llvm is built");
  }
};

QTEST_GUILESS_MAIN(TestTunedTraces)
#include "tst_tuned_traces.moc"
