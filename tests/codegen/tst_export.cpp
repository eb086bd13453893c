// Export: kernel.h documents the C signature exactly; the exported libkernel.so is linked
// by a small C program (compiled here with cc) that fills inputs, calls the kernel with a
// symbolic size, recomputes the result itself and checks it.
#include "core/codegen/export.h"
#include "core/codegen/lower.h"
#include "core/codegen/pipeline.h"
#include "core/frontend/te_frontend.h"
#include "core/schedule/trace_script.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace loopscape;
using namespace loopscape::codegen;

namespace {

const char* kDense = R"(from tvm import te
n = te.var("n")
data = te.placeholder((n, 32), name="data")
weight = te.placeholder((24, 32), name="weight")
k = te.reduce_axis((0, 32), name="k")
out = te.compute((n, 24), lambda i, j: te.sum(data[i, k] * weight[j, k], axis=k), name="out")
)";

const char* kTrace = R"(def apply_trace(sch):
    block = sch.get_block("out")
    i, j, k = sch.get_loops(block)
    j_0, j_1 = sch.split(j, factors=[None, 8])
    sch.reorder(i, j_0, k, j_1)
    sch.parallel(i)
    sch.vectorize(j_1)
)";

const char* kMain = R"C(#include "kernel.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  const int64_t n = 7;
  float* data = malloc(sizeof(float) * n * 32);
  float* weight = malloc(sizeof(float) * 24 * 32);
  float* out = malloc(sizeof(float) * n * 24);
  for (int64_t i = 0; i < n * 32; ++i) data[i] = (float)((i * 7) % 13) - 6.0f;
  for (int64_t i = 0; i < 24 * 32; ++i) weight[i] = (float)((i * 5) % 11) * 0.25f;
  main_kernel(data, weight, out, n);
  int bad = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < 24; ++j) {
      float expected = 0;
      for (int64_t k = 0; k < 32; ++k) expected += data[i * 32 + k] * weight[j * 32 + k];
      if (fabsf(out[i * 24 + j] - expected) > 1e-4f * fabsf(expected) + 1e-5f) {
        if (!bad) printf("mismatch at [%ld, %ld]: %g vs %g\n", (long)i, (long)j, out[i * 24 + j], expected);
        ++bad;
      }
    }
  printf(bad ? "FAILED\n" : "ok %g\n", out[3 * 24 + 5]);
  return bad ? 1 : 0;
}
)C";

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

class TestExport : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void exportedLibraryLinksAndComputes() {
    const Pipeline pipeline; // the process-wide registry (build/plugins beside build/tests)
    auto target = pipeline.findTarget("cpu-c");
    QVERIFY2(target.has_value(), target ? "" : target.error().message.c_str());
    if (!(*target)->toolchain().usable) QSKIP("no C compiler");
    auto f = frontend::parseTe(kDense, "dense.te");
    QVERIFY(f.has_value());
    schedule::Schedule sch(*f);
    QVERIFY(schedule::applyScript(sch, kTrace, "t.py").has_value());
    auto lowered = pipeline.lower(**target, sch.func());
    QVERIFY2(lowered.has_value(), lowered ? "" : lowered.error().message.c_str());

    QTemporaryDir dir;
    const std::string out = dir.filePath("export").toStdString();
    ExportOptions options;
    options.outDir = out;
    options.origin = "Generated from dense.te.";
    auto exported = pipeline.exportKernel(**target, sch.func(), *lowered, options);
    QVERIFY2(exported.has_value(), exported ? "" : exported.error().message.c_str());
    QCOMPARE(exported->symbol, std::string("main_kernel"));
    QCOMPARE(exported->files.size(), std::size_t(4));
    for (const auto& file : exported->files) QVERIFY2(std::filesystem::exists(file), file.c_str());

    const std::string header = readAll(out + "/kernel.h");
    QVERIFY(header.find("// Generated from dense.te.\n") != std::string::npos);
    QVERIFY(header.find("///   data       float32[n, 32], input (read)\n") != std::string::npos);
    QVERIFY(header.find("///   weight     float32[24, 32], input (read)\n") != std::string::npos);
    QVERIFY(header.find("///   out        float32[n, 24], output (written)\n") != std::string::npos);
    QVERIFY(header.find("///   n          int64_t symbolic size: data dim 0, out dim 0\n") != std::string::npos);
    QVERIFY(header.find("void main_kernel(float* data, float* weight, float* out, int64_t n);\n") !=
            std::string::npos);
    QVERIFY(readAll(out + "/kernel.c").find("main_kernel") != std::string::npos);
    QVERIFY(readAll(out + "/README.txt").find("main_kernel(data, weight, out, n);") != std::string::npos);

    const QString mainC = dir.filePath("main.c");
    std::ofstream(mainC.toStdString()) << kMain;
    const QString exe = dir.filePath("main");
    const QString outQ = QString::fromStdString(out);
    QProcess cc;
    cc.start("cc", {"-O1", "-I" + outQ, mainC, "-L" + outQ, "-lkernel", "-Wl,-rpath," + outQ, "-lm", "-o", exe});
    QVERIFY(cc.waitForFinished(60000));
    QVERIFY2(cc.exitCode() == 0, cc.readAllStandardError().constData());
    QProcess run;
    run.start(exe, {});
    QVERIFY(run.waitForFinished(30000));
    const QString stdoutText = QString::fromUtf8(run.readAllStandardOutput());
    QVERIFY2(run.exitStatus() == QProcess::NormalExit && run.exitCode() == 0, qPrintable(stdoutText));
    QVERIFY2(stdoutText.startsWith("ok "), qPrintable(stdoutText));
  }

  void nonCTargetIsRefused() {
    class NoC final : public Target {
    public:
      std::string name() const override { return "fake"; }
      std::string deviceKind() const override { return "cpu"; }
      std::string description() const override { return ""; }
      TargetCapabilities capabilities() const override { return {}; }
      ToolchainStatus toolchain() const override { return {true, ""}; }
      std::vector<std::string> sourceFormats() const override { return {"llvm"}; }
      Expected<std::string> source(const LoweredFunc&, const std::string&, const BuildOptions&) override {
        return std::string();
      }
      Expected<std::unique_ptr<Kernel>> build(const LoweredFunc&, const BuildOptions&) override {
        return Unexpected(Diagnostic::error("x", "y"));
      }
    } fake;
    auto f = frontend::parseTe(kDense, "dense.te");
    auto lowered = lower(*f);
    QVERIFY(lowered.has_value());
    auto r = exportKernel(fake, *f, *lowered, {"/nonexistent/dir"});
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code, std::string("export.unsupported-target"));
    QCOMPARE(r.error().message,
             std::string("target 'fake' does not produce C source; export a kernel with --target cpu-c"));
  }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
