// Small-shape copies of every samples/*.te program (same computations, same tensor and
// block names; tst_cpu_c checks the names against the real files) with a sample schedule
// each, plus an integer program, and the check both CPU plugin tests run on them: the
// kernel built by a Target runs in-process on seeded inputs and every parameter is
// compared with the reference interpreter (integers bit-identical, floats within
// rtol 1e-5 / atol 1e-6).
#pragma once

#include "core/codegen/lower.h"
#include "core/codegen/target.h"
#include "core/frontend/te_frontend.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/op.h"

#include <QtTest>

#include <string>
#include <vector>

namespace loopscape::test {

struct Sample {
  const char* name;
  const char* program;
  const char* schedule; ///< TVM-syntax script: split + parallel + vectorize where legal
  ir::SizeBindings sizes;
};

// A table of raw-string programs, laid out by hand:
// clang-format off
inline const Sample kSmallSamples[] = {
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
batch, channel, height, width = 1, 3, 5, 12
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
     R"(sch.compute_inline(sch.get_block("PaddedInput"))
d = sch.get_block("DepthwiseConv2d")
b, c, i, j, di, dj = sch.get_loops(d)
j_0, j_1 = sch.split(j, factors=[None, 4])
sch.parallel(c)
sch.unroll(di)
sch.unroll(dj)
sch.vectorize(j_1)
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
    {"matvec_chain", R"(from tvm import te
N = 16
A = te.placeholder((N, N), name="A")
B = te.placeholder((N, N), name="B")
x = te.placeholder((N,), name="x")
k = te.reduce_axis((0, N), name="k")
Bx = te.compute((N,), lambda i: te.sum(B[i, k] * x[k], axis=k), name="Bx")
j = te.reduce_axis((0, N), name="j")
y = te.compute((N,), lambda i: te.sum(A[i, j] * Bx[j], axis=j), name="y")
)",
     R"(b = sch.get_block("Bx")
i, k = sch.get_loops(b)
k_0, k_1 = sch.split(k, factors=[None, 4])
sch.parallel(i)
sch.unroll(k_1)
y = sch.get_block("y")
i, j = sch.get_loops(y)
sch.parallel(i)
)",
     {}},
    // The scans: TIR refuses parallel and vectorize on them (a block that reads the
    // buffer it writes), so their schedules split and unroll.
    {"prefix_sum", R"(from tvm import te
N = 32
x = te.placeholder((N,), dtype="int32", name="x")
state = te.placeholder((N,), dtype="int32", name="state")
init = te.compute((1,), lambda t: x[0], name="psum_init")
update = te.compute((N,), lambda t: state[t - 1] + x[t], name="psum_update")
psum = te.scan(init, update, state, inputs=[x], name="psum")
)",
     R"(b = sch.get_block("psum_update")
(t,) = sch.get_loops(b)
sch.unroll(t)
)",
     {}},
    {"stencil1d", R"(from tvm import te
T, N = 6, 16
X0 = te.placeholder((N,), name="X0")
state = te.placeholder((T, N), name="state")
init = te.compute((1, N), lambda _, i: X0[i], name="heat_init")
update = te.compute(
    (T, N),
    lambda t, i: te.if_then_else(
        te.all(i > 0, i < N - 1),
        0.25 * state[t - 1, i - 1] + 0.5 * state[t - 1, i] + 0.25 * state[t - 1, i + 1],
        state[t - 1, i],
    ),
    name="heat_update",
)
heat = te.scan(init, update, state, inputs=[X0], name="heat")
)",
     R"(b = sch.get_block("heat_update")
t, i = sch.get_loops(b)
i_0, i_1 = sch.split(i, factors=[None, 4])
sch.unroll(i_1)
)",
     {}},
    {"stencil2d", R"(from tvm import te
T, H, W = 4, 8, 16
A = te.placeholder((H, W), name="A")
S = te.placeholder((T, H, W), name="S")
init = te.compute((1, H, W), lambda _, i, j: A[i, j], name="jacobi_init")
update = te.compute(
    (T, H, W),
    lambda t, i, j: te.if_then_else(
        te.all(i > 0, i < H - 1, j > 0, j < W - 1),
        0.2 * (S[t - 1, i, j] + S[t - 1, i - 1, j] + S[t - 1, i + 1, j] + S[t - 1, i, j - 1] + S[t - 1, i, j + 1]),
        S[t - 1, i, j],
    ),
    name="jacobi_update",
)
jacobi = te.scan(init, update, S, inputs=[A], name="jacobi")
)",
     R"(b = sch.get_block("jacobi_update")
t, i, j = sch.get_loops(b)
j_0, j_1 = sch.split(j, factors=[None, 8])
sch.reorder(j_0, i)
sch.unroll(j_1)
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
// clang-format on

inline ir::PrimFunc parseSample(const std::string& text, const std::string& file = "test.te") {
  auto f = frontend::parseTe(text, file);
  if (!f) qFatal("%s", renderDiagnostic(f.error(), text).c_str());
  return *f;
}

/// Lowers `func`, builds it with `target`, runs it in-process and compares every
/// parameter with the interpreter's run of `func` on the same seeded inputs.
inline void checkAgainstInterpreter(codegen::Target& target, const ir::PrimFunc& func, const ir::SizeBindings& sizes,
                                    const codegen::BuildOptions& options) {
  constexpr double kRtol = 1e-5;
  constexpr double kAtol = 1e-6;
  codegen::LowerOptions lo;
  lo.deviceKind = target.deviceKind();
  auto lowered = codegen::lower(func, lo);
  QVERIFY2(lowered.has_value(), lowered ? "" : renderDiagnostic(lowered.error()).c_str());
  auto kernel = target.build(*lowered, options);
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
  QVERIFY2(ok.has_value(), ok ? "" : renderDiagnostic(ok.error()).c_str());

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

/// A program whose second intermediate is read before anything writes it:
///   T1 = Allocate(n); T1[i] = A[i] * 3 + 7; O1[i] = T1[i]        (T1 freed)
///   T2 = Allocate(n); O2[i] = T2[i] + 1
/// The interpreter zero-fills every intermediate, so O2 is all ones; a backend that does
/// not would most likely hand T2 the memory T1 just left (same stack slot or heap chunk)
/// and produce A * 3 + 8. `scope` Local with a small n puts both on the stack in the
/// generated code, Global on the heap.
inline ir::PrimFunc readsUnwrittenIntermediate(std::int64_t n, ir::MemoryScope scope) {
  using namespace ir;
  auto A = makeBuffer("A", DataType::float32(), {intImm(n)});
  auto O1 = makeBuffer("O1", DataType::float32(), {intImm(n)});
  auto O2 = makeBuffer("O2", DataType::float32(), {intImm(n)});
  auto T1 = makeBuffer("T1", DataType::float32(), {intImm(n)}, scope);
  auto T2 = makeBuffer("T2", DataType::float32(), {intImm(n)}, scope);
  Expr i = Var::make("i", DataType::int32()), j = Var::make("j", DataType::int32()),
       k = Var::make("k", DataType::int32());
  auto loop = [&](const Expr& v, Stmt body) {
    return For::make(v, intImm(0), intImm(n), ForKind::Serial, std::move(body));
  };
  auto load = [](const Buffer& b, const Expr& x) { return BufferLoad::make(b, {x}); };
  Stmt first = Allocate::make(
      T1, SeqStmt::make({loop(i, BufferStore::make(T1, load(A, i) * floatImm(3) + floatImm(7), {i})),
                         loop(j, BufferStore::make(O1, load(T1, j), {j}))}));
  Stmt second = Allocate::make(T2, loop(k, BufferStore::make(O2, load(T2, k) + floatImm(1), {k})));
  PrimFunc f;
  f.name = "main";
  f.params = {A, O1, O2};
  f.body = BlockRealize::make({}, boolImm(true), Block::make("root", {}, {}, {}, SeqStmt::make({first, second})));
  return f;
}

/// Builds and runs readsUnwrittenIntermediate with `target`: O1 equals the interpreter's,
/// and O2 is exactly 1 in both (zero-filled intermediates).
inline void checkIntermediatesStartAtZero(codegen::Target& target, std::int64_t n, ir::MemoryScope scope,
                                          const codegen::BuildOptions& options) {
  const ir::PrimFunc f = readsUnwrittenIntermediate(n, scope);
  auto lowered = codegen::lower(f);
  QVERIFY2(lowered.has_value(), lowered ? "" : renderDiagnostic(lowered.error()).c_str());
  auto kernel = target.build(*lowered, options);
  QVERIFY2(kernel.has_value(), kernel ? "" : renderDiagnostic(kernel.error()).c_str());
  ir::NDArray a({n}, ir::DataType::float32()), o1({n}, ir::DataType::float32()), o2({n}, ir::DataType::float32());
  a.fillRandom(5);
  o2.fillRandom(6); // outputs start as garbage too
  std::vector<ir::NDArray> expected = {a.clone(), o1.clone(), o2.clone()};
  auto ran = ir::interpret(f, expected);
  QVERIFY2(ran.has_value(), ran ? "" : renderDiagnostic(ran.error()).c_str());
  for (std::int64_t x = 0; x < n; ++x) QCOMPARE(expected[2].data<float>()[x], 1.0f);
  std::vector<void*> pointers = {a.rawData(), o1.rawData(), o2.rawData()};
  // Twice: the second call finds whatever the first left in freed memory.
  for (int call = 0; call < 2; ++call) {
    auto ok = (*kernel)->run(pointers, {});
    QVERIFY2(ok.has_value(), ok ? "" : renderDiagnostic(ok.error()).c_str());
    for (std::int64_t x = 0; x < n; ++x) {
      QCOMPARE(o1.data<float>()[x], expected[1].data<float>()[x]);
      QCOMPARE(o2.data<float>()[x], 1.0f);
    }
  }
}

/// Integer division at its edges: INT32_MIN / -1 (x86's idiv traps; the IR wraps it to
/// INT32_MIN), floordiv/floormod by -1 and negative operands, on fixed inputs; the kernel
/// built by `target` must match the interpreter bit for bit.
inline void checkIntegerDivisionEdges(codegen::Target& target, const codegen::BuildOptions& options) {
  using namespace ir;
  constexpr std::int64_t n = 6;
  auto X = makeBuffer("X", DataType::int32(), {intImm(n)});
  auto Y = makeBuffer("Y", DataType::int32(), {intImm(n)});
  auto O = makeBuffer("O", DataType::int32(), {intImm(n * 3)});
  Expr i = Var::make("i", DataType::int32());
  Expr x = BufferLoad::make(X, {i}), y = BufferLoad::make(Y, {i});
  Stmt body = SeqStmt::make({BufferStore::make(O, x / y, {i * 3}),
                             BufferStore::make(O, floordiv(x, y), {i * 3 + 1}),
                             BufferStore::make(O, floormod(x, y), {i * 3 + 2})});
  PrimFunc f;
  f.name = "main";
  f.params = {X, Y, O};
  f.body = BlockRealize::make({}, boolImm(true),
                              Block::make("root", {}, {}, {}, For::make(i, intImm(0), intImm(n), ForKind::Serial, body)));
  auto lowered = codegen::lower(f);
  QVERIFY2(lowered.has_value(), lowered ? "" : renderDiagnostic(lowered.error()).c_str());
  auto kernel = target.build(*lowered, options);
  QVERIFY2(kernel.has_value(), kernel ? "" : renderDiagnostic(kernel.error()).c_str());
  const std::int32_t xs[n] = {INT32_MIN, INT32_MIN, -7, 7, -7, INT32_MAX};
  const std::int32_t ys[n] = {-1, 3, -1, -2, 2, -1};
  std::vector<NDArray> expected = {NDArray({n}, DataType::int32()), NDArray({n}, DataType::int32()),
                                   NDArray({n * 3}, DataType::int32())};
  for (std::int64_t k = 0; k < n; ++k) {
    expected[0].setInt(k, xs[k]);
    expected[1].setInt(k, ys[k]);
  }
  NDArray actual = expected[2].clone();
  auto ran = interpret(f, expected);
  QVERIFY2(ran.has_value(), ran ? "" : renderDiagnostic(ran.error()).c_str());
  QCOMPARE(expected[2].getInt(0), std::int64_t(INT32_MIN)); // INT32_MIN / -1 wraps
  std::vector<void*> pointers = {expected[0].rawData(), expected[1].rawData(), actual.rawData()};
  auto ok = (*kernel)->run(pointers, {});
  QVERIFY2(ok.has_value(), ok ? "" : renderDiagnostic(ok.error()).c_str());
  for (std::int64_t k = 0; k < n * 3; ++k) QCOMPARE(actual.getInt(k), expected[2].getInt(k));
}

} // namespace loopscape::test
