// Header-only helpers of the poly code generation tests: small copies of the samples,
// interpreter comparison of two programs on the same seeded inputs (exact, or within a
// relative tolerance for schedules that reorder a floating-point reduction), and golden
// files under tests/poly/golden (LS_UPDATE_GOLDEN=1 rewrites them).
#pragma once

#include "core/frontend/te_frontend.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/visitor.h"

#include <QFile>
#include <QtTest>

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace loopscape::polytest {

/// A sample with its size line replaced (small shapes for the interpreter).
inline std::string smallSample(const std::string& file, const std::string& from, const std::string& to) {
  std::ifstream in(std::string(LS_SOURCE_DIR "/samples/") + file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto pos = text.find(from);
  if (pos == std::string::npos) qFatal("sample %s has no line '%s'", file.c_str(), from.c_str());
  text.replace(pos, from.size(), to);
  return text;
}

/// A sample and the replacement of its size line.
struct Small {
  const char* file;
  const char* from;
  const char* to;
  bool integer;
  const char* from2 = nullptr; ///< a second replacement (dense_dynamic's symbolic n)
  const char* to2 = nullptr;
};
/// Every sample with small sizes (the interpreter runs them in milliseconds).
inline const Small kSmallSamples[] = {
    {"matmul.te", "M, N, K = 1024, 1024, 1024", "M, N, K = 8, 6, 5", false},
    {"batch_matmul.te", "batch, M, K, N = 16, 128, 64, 128", "batch, M, K, N = 2, 4, 3, 5", false},
    {"conv2d_nchw.te", "batch, in_channel, height, width = 1, 64, 56, 56",
     "batch, in_channel, height, width = 1, 2, 5, 5", false},
    {"conv_bias_relu.te", "N, C, H, W = 1, 16, 32, 32", "N, C, H, W = 1, 2, 5, 5", false},
    {"dense_dynamic.te", "in_dim, units = 512, 1000", "in_dim, units = 4, 3", false, "n = te.var(\"n\")", "n = 3"},
    {"depthwise_conv2d.te", "batch, channel, height, width = 1, 32, 112, 112",
     "batch, channel, height, width = 1, 2, 5, 5", false},
    {"layernorm.te", "rows, cols = 256, 768", "rows, cols = 3, 5", false},
    {"softmax.te", "m, n = 128, 1024", "m, n = 3, 5", false},
    {"stencil1d.te", "T, N = 64, 1024", "T, N = 4, 9", false},
    {"stencil2d.te", "T, H, W = 16, 256, 256", "T, H, W = 3, 5, 5", false},
    {"prefix_sum.te", "N = 1024", "N = 10", true},
    {"matvec_chain.te", "N = 512", "N = 6", false},
};

inline ir::PrimFunc parseTe(const std::string& source) {
  auto f = frontend::parseTe(source, "test.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), source).c_str());
  return *f;
}

inline std::vector<ir::NDArray> runProgram(const ir::PrimFunc& f, std::string& error) {
  std::set<const ir::BufferNode*> outputs;
  struct Collector final : ir::StmtVisitor {
    std::set<const ir::BufferNode*>* out;
    void visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
      out->insert(op.buffer.get());
      StmtVisitor::visitBufferStore(op, self);
    }
  } c;
  c.out = &outputs;
  c(f.body);
  std::vector<ir::NDArray> args;
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    auto shape = ir::evalShape(f.params[i], {});
    if (!shape) {
      error = renderDiagnostic(shape.error());
      return {};
    }
    ir::NDArray a(*shape, f.params[i]->dtype);
    if (!outputs.contains(f.params[i].get())) a.fillRandom(100 + i);
    args.push_back(a);
  }
  if (auto ok = ir::interpret(f, args); !ok) error = renderDiagnostic(ok.error());
  return args;
}

/// Empty when every parameter of `b` equals `a`'s after running both (rtol 0: bit-exact).
inline std::string compareRuns(const ir::PrimFunc& a, const ir::PrimFunc& b, double rtol = 0.0) {
  std::string ea, eb;
  auto ra = runProgram(a, ea);
  auto rb = runProgram(b, eb);
  if (!ea.empty()) return "original failed: " + ea;
  if (!eb.empty()) return "scheduled failed: " + eb;
  for (std::size_t i = 0; i < ra.size(); ++i)
    if (auto m = ir::firstMismatch(rb[i], ra[i], rtol > 0 ? 1e-6 : 0.0, rtol))
      return fmt::format("parameter {} differs at flat index {}: {} vs {}", a.params[i]->name, m->index, m->actual,
                         m->expected);
  return {};
}

inline QString checkPolyGolden(const QString& name, const std::string& text, const QString& extension = ".py") {
  const QString path = QStringLiteral(LS_SOURCE_DIR "/tests/poly/golden/") + name + extension;
  if (qEnvironmentVariableIsSet("LS_UPDATE_GOLDEN")) {
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly)) return "cannot write " + path;
    out.write(QByteArray::fromStdString(text));
    return {};
  }
  QFile in(path);
  if (!in.open(QIODevice::ReadOnly)) return "missing golden file " + path + " (run with LS_UPDATE_GOLDEN=1)";
  const QString expected = QString::fromUtf8(in.readAll());
  if (expected == QString::fromStdString(text)) return {};
  return "golden mismatch for " + path + "\n--- expected\n" + expected + "\n--- actual\n" + QString::fromStdString(text);
}

} // namespace loopscape::polytest
