// The interpreter as an oracle: tensor-expression programs (the samples' definitions at
// small sizes) are parsed, lowered and interpreted, and the results compared with
// hand-written C++ loops that do the same float32 operations in the same order, so the
// comparison is exact where the operation order is fixed (matmul, conv2d) and within a
// stated tolerance where library math is involved (softmax, layer norm).
#include "core/frontend/te_frontend.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"

#include <QtTest>

#include <cmath>
#include <vector>

using namespace loopscape;

namespace {

ir::PrimFunc parseOrFail(const char* source) {
  auto f = frontend::parseTe(source, "oracle.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), source).c_str());
  return *f;
}

/// Random inputs for the leading `inputs` params, zero outputs; runs the interpreter.
std::vector<ir::NDArray> runProgram(const ir::PrimFunc& func, std::size_t inputs, std::uint64_t seed = 1) {
  std::vector<ir::NDArray> args;
  for (std::size_t i = 0; i < func.params.size(); ++i) {
    auto shape = ir::evalShape(func.params[i], {});
    if (!shape) qFatal("%s", renderDiagnostic(shape.error()).c_str());
    auto array = ir::NDArray(*shape, func.params[i]->dtype);
    if (i < inputs) array.fillRandom(seed + i);
    args.push_back(std::move(array));
  }
  auto ran = ir::interpret(func, args);
  if (!ran) qFatal("%s", renderDiagnostic(ran.error()).c_str());
  return args;
}

const char* kMatmul = R"(
M, N, K = 33, 20, 17
A = placeholder((M, K), "float32", name="A")
B = placeholder((K, N), "float32", name="B")
k = reduce_axis((0, K), name="k")
C = compute((M, N), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name="C")
)";

const char* kConv2d = R"(
N, CI, H, W, CO, KH, KW = 1, 6, 9, 9, 4, 3, 3
data = placeholder((N, CI, H, W), "float32", name="data")
weight = placeholder((CO, CI, KH, KW), "float32", name="weight")
pad_temp = compute((N, CI, H + 2, W + 2), lambda i0, i1, i2, i3: if_then_else(
    1 <= i2 and i2 < H + 1 and 1 <= i3 and i3 < W + 1, data[i0, i1, i2 - 1, i3 - 1], 0.0), name="pad_temp")
rc = reduce_axis((0, CI), name="rc")
ry = reduce_axis((0, KH), name="ry")
rx = reduce_axis((0, KW), name="rx")
conv = compute((N, CO, H, W), lambda nn, ff, yy, xx: sum(
    pad_temp[nn, rc, yy + ry, xx + rx] * weight[ff, rc, ry, rx], axis=[rc, ry, rx]), name="conv2d_nchw")
)";

const char* kSoftmax = R"(
M, N = 7, 33
X = placeholder((M, N), "float32", name="X")
k1 = reduce_axis((0, N), name="k1")
k2 = reduce_axis((0, N), name="k2")
mx = compute((M,), lambda i: max(X[i, k1], axis=k1), name="T_softmax_maxelem")
e = compute((M, N), lambda i, j: exp(X[i, j] - mx[i]), name="T_softmax_exp")
s = compute((M,), lambda i: sum(e[i, k2], axis=k2), name="T_softmax_expsum")
Y = compute((M, N), lambda i, j: e[i, j] / s[i], name="T_softmax_norm")
)";

const char* kLayerNorm = R"(
M, N = 5, 24
X = placeholder((M, N), "float32", name="X")
gamma = placeholder((N,), "float32", name="gamma")
beta = placeholder((N,), "float32", name="beta")
k = reduce_axis((0, N), name="k")
k2 = reduce_axis((0, N), name="k2")
mean = compute((M,), lambda i: sum(X[i, k] / float32(N), axis=k), name="mean")
var = compute((M,), lambda i: sum((X[i, k2] - mean[i]) * (X[i, k2] - mean[i]) / float32(N), axis=k2), name="var")
Y = compute((M, N), lambda i, j: (X[i, j] - mean[i]) * rsqrt(var[i] + 1e-5) * gamma[j] + beta[j], name="layer_norm")
)";

} // namespace

class TestOracle : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void matmulEqualsLoops() {
    auto func = parseOrFail(kMatmul);
    auto args = runProgram(func, 2);
    const int M = 33, N = 20, K = 17;
    const float* a = args[0].data<float>();
    const float* b = args[1].data<float>();
    const float* c = args[2].data<float>();
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc = acc + a[i * K + k] * b[k * N + j];
        QCOMPARE(c[i * N + j], acc); // exact: same operations in the same order
      }
  }

  void conv2dEqualsLoops() {
    auto func = parseOrFail(kConv2d);
    auto args = runProgram(func, 2);
    const int CI = 6, H = 9, W = 9, CO = 4;
    const float* d = args[0].data<float>();
    const float* w = args[1].data<float>();
    const float* out = args[2].data<float>();
    for (int f = 0; f < CO; ++f)
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          float acc = 0.0f;
          for (int c = 0; c < CI; ++c)
            for (int ry = 0; ry < 3; ++ry)
              for (int rx = 0; rx < 3; ++rx) {
                int iy = y + ry - 1, ix = x + rx - 1;
                float v = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? d[(c * H + iy) * W + ix] : 0.0f;
                acc = acc + v * w[((f * CI + c) * 3 + ry) * 3 + rx];
              }
          QCOMPARE(out[(f * H + y) * W + x], acc);
        }
  }

  void softmaxRowsSumToOne() {
    auto func = parseOrFail(kSoftmax);
    auto args = runProgram(func, 1);
    const int M = 7, N = 33;
    const float* x = args[0].data<float>();
    const float* y = args[1].data<float>();
    for (int i = 0; i < M; ++i) {
      float mx = -3.4028234663852886e+38f;
      for (int j = 0; j < N; ++j) mx = std::max(mx, x[i * N + j]);
      float s = 0.0f;
      for (int j = 0; j < N; ++j) s = s + std::exp(x[i * N + j] - mx);
      double rowSum = 0;
      for (int j = 0; j < N; ++j) {
        const float expected = std::exp(x[i * N + j] - mx) / s;
        QVERIFY2(std::fabs(y[i * N + j] - expected) <= 1e-6f, qPrintable(QString("row %1 col %2").arg(i).arg(j)));
        rowSum += y[i * N + j];
      }
      QVERIFY2(std::fabs(rowSum - 1.0) < 1e-5, qPrintable(QString("row %1 sums to %2").arg(i).arg(rowSum, 0, 'g', 9)));
    }
  }

  void layerNormEqualsLoops() {
    auto func = parseOrFail(kLayerNorm);
    auto args = runProgram(func, 3);
    const int M = 5, N = 24;
    const float* x = args[0].data<float>();
    const float* g = args[1].data<float>();
    const float* b = args[2].data<float>();
    const float* y = args[3].data<float>();
    for (int i = 0; i < M; ++i) {
      float mean = 0.0f, var = 0.0f;
      for (int j = 0; j < N; ++j) mean = mean + x[i * N + j] / float(N);
      for (int j = 0; j < N; ++j) var = var + (x[i * N + j] - mean) * (x[i * N + j] - mean) / float(N);
      for (int j = 0; j < N; ++j) {
        const float expected = (x[i * N + j] - mean) * (1.0f / std::sqrt(var + 1e-5f)) * g[j] + b[j];
        QVERIFY2(std::fabs(y[i * N + j] - expected) <= 1e-5f * (1.0f + std::fabs(expected)),
                 qPrintable(QString("(%1, %2): %3 vs %4").arg(i).arg(j).arg(y[i * N + j]).arg(expected)));
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestOracle)
#include "tst_oracle.moc"
