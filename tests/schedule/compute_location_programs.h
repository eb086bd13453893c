// Programs for the compute-location tests (tst_compute_at, tst_compute_inline): .te
// sources for the shapes a TVM user writes (small conv2d with padding, matmul + bias/relu
// epilogue, fan-out/fan-in chains) and hand-built PrimFuncs for the shapes .te cannot
// express (write-after-read, nested scopes, in-place updates, shifted writes, a block
// writing two buffers, a lone intermediate block), used by the refusal cases.
#pragma once

#include "core/ir/op.h"
#include "core/ir/prim_func.h"
#include "core/schedule/primitive/region.h"

#include <functional>
#include <string>

namespace loopscape::testing::programs {

/// samples/conv2d_nchw.te at 1x4x8x8, 4 filters 3x3, padding 1.
inline const char* const kConv = R"(from tvm import te
data = te.placeholder((1, 4, 8, 8), name="data")
weight = te.placeholder((4, 4, 3, 3), name="weight")
pad_temp = te.compute(
    (1, 4, 10, 10),
    lambda i0, i1, i2, i3: te.if_then_else(
        te.all(i2 >= 1, i2 < 9, i3 >= 1, i3 < 9), data[i0, i1, i2 - 1, i3 - 1], 0.0
    ),
    name="pad_temp",
)
rc = te.reduce_axis((0, 4), name="rc")
ry = te.reduce_axis((0, 3), name="ry")
rx = te.reduce_axis((0, 3), name="rx")
conv = te.compute(
    (1, 4, 8, 8),
    lambda nn, ff, yy, xx: te.sum(pad_temp[nn, rc, yy + ry, xx + rx] * weight[ff, rc, ry, rx], axis=[rc, ry, rx]),
    name="conv2d_nchw",
)
)";

/// C = A @ B (reduction), D = relu(C + bias).
inline const char* const kMatmulRelu = R"(from tvm import te
A = te.placeholder((64, 32), name="A")
B = te.placeholder((32, 48), name="B")
bias = te.placeholder((48,), name="bias")
k = te.reduce_axis((0, 32), name="k")
C = te.compute((64, 48), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
D = te.compute((64, 48), lambda i, j: te.max(C[i, j] + bias[j], 0.0), name="D")
)";

/// E = A * 2 (elementwise), F = relu(E + bias).
inline const char* const kScaleRelu = R"(from tvm import te
A = te.placeholder((64, 48), name="A")
bias = te.placeholder((48,), name="bias")
E = te.compute((64, 48), lambda i, j: A[i, j] * 2.0, name="E")
F = te.compute((64, 48), lambda i, j: te.max(E[i, j] + bias[j], 0.0), name="F")
)";

/// B feeds two consumers in separate loop nests: C = B + 1, D = B * 3.
inline const char* const kFanOut = R"(from tvm import te
A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
C = te.compute((64, 64), lambda i, j: B[i, j] + 1.0, name="C")
D = te.compute((64, 64), lambda i, j: B[i, j] * 3.0, name="D")
)";

/// D reads two produced buffers: B = A * 2, E = A + 1, D = B + E.
inline const char* const kFanIn = R"(from tvm import te
A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
E = te.compute((64, 64), lambda i, j: A[i, j] + 1.0, name="E")
D = te.compute((64, 64), lambda i, j: B[i, j] + E[i, j], name="D")
)";

/// B's value uses the size variable n besides its indices.
inline const char* const kSizeInValue = R"(from tvm import te
n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] * n, name="B")
C = te.compute((n,), lambda i: B[i] + 1, name="C")
)";

/// C loads B at two different indices.
inline const char* const kTwoLoads = R"(from tvm import te
A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
C = te.compute((64, 64), lambda i, j: B[i, j] + B[i, 0], name="C")
)";

// ---------------------------------------------------------------------------- hand-built

inline ir::Buffer buffer1d(const std::string& name, int n = 16) {
  return ir::makeBuffer(name, ir::DataType::float32(), {ir::intImm(n)});
}
inline ir::Expr load(const ir::Buffer& b, const ir::Expr& i) { return ir::BufferLoad::make(b, {i}); }

/// `for <loop> in range(extent): with T.block(name): v_i = spatial(extent, <loop>)` around
/// `body(v_i)`; regions derived from the body.
inline ir::Stmt stage(const std::string& name, const std::function<ir::Stmt(const ir::Expr&)>& body, int extent = 16,
                      const std::string& loop = "i") {
  ir::Expr i = ir::Var::make(loop);
  ir::Expr v = ir::Var::make("v_" + loop);
  ir::Stmt b = ir::Block::make(name, {{v, {ir::intImm(0), ir::intImm(extent)}, ir::IterKind::Spatial}}, {}, {},
                               body(v));
  auto [reads, writes] = schedule::detail::accessRegionsOfBody(*b.as<ir::Block>());
  b = ir::Block::make(name, {{v, {ir::intImm(0), ir::intImm(extent)}, ir::IterKind::Spatial}}, reads, writes, body(v));
  return ir::For::make(i, ir::intImm(0), ir::intImm(extent), ir::ForKind::Serial,
                       ir::BlockRealize::make({i}, ir::boolImm(true), b));
}

inline ir::PrimFunc function(std::vector<ir::Buffer> params, std::vector<ir::Buffer> allocs, std::vector<ir::Stmt> body) {
  ir::PrimFunc f;
  f.name = "main";
  f.params = std::move(params);
  ir::Stmt root = ir::Block::make("root", {}, {}, {}, ir::SeqStmt::make(std::move(body)), {}, std::move(allocs));
  f.body = ir::BlockRealize::make({}, ir::boolImm(true), root);
  return f;
}

inline ir::Stmt store(const ir::Buffer& b, const ir::Expr& i, const ir::Expr& value) {
  return ir::BufferStore::make(b, value, {i});
}

/// B = X; W: X = A (after B read X: write-after-read); C = B.
inline ir::PrimFunc warProgram() {
  auto A = buffer1d("A"), X = buffer1d("X"), B = buffer1d("B"), C = buffer1d("C");
  return function({A, X, C}, {B},
                  {stage("B", [&](const ir::Expr& v) { return store(B, v, load(X, v)); }),
                   stage("W", [&](const ir::Expr& v) { return store(X, v, load(A, v)); }),
                   stage("C", [&](const ir::Expr& v) { return store(C, v, load(B, v)); })});
}

/// B = A at the root; C = B inside the block "outer" (its own scope), loop j.
inline ir::PrimFunc nestedProgram() {
  auto A = buffer1d("A"), B = buffer1d("B"), C = buffer1d("C");
  ir::Stmt inner = stage("C", [&](const ir::Expr& v) { return store(C, v, load(B, v)); }, 16, "j");
  const std::vector<ir::Range> all{{ir::intImm(0), ir::intImm(16)}};
  ir::Stmt outer = ir::Block::make("outer", {}, {{B, all}}, {{C, all}}, inner);
  return function({A, C}, {B},
                  {stage("B", [&](const ir::Expr& v) { return store(B, v, load(A, v)); }),
                   ir::BlockRealize::make({}, ir::boolImm(true), outer)});
}

/// B = A; C = B; U: C = C * 2 (in place: C has two writers, U reads what it writes).
inline ir::PrimFunc inPlaceProgram() {
  auto A = buffer1d("A"), B = buffer1d("B"), C = buffer1d("C");
  return function({A, C}, {B},
                  {stage("B", [&](const ir::Expr& v) { return store(B, v, load(A, v)); }),
                   stage("C", [&](const ir::Expr& v) { return store(C, v, load(B, v)); }),
                   stage("U", [&](const ir::Expr& v) { return store(C, v, load(C, v) * ir::floatImm(2.0)); })});
}

/// B[v + 1] = A[v]; C[v] = B[v + 1] (15 iterations each).
inline ir::PrimFunc shiftedProgram() {
  auto A = buffer1d("A"), B = buffer1d("B"), C = buffer1d("C");
  return function({A, C}, {B},
                  {stage("B", [&](const ir::Expr& v) { return store(B, v + 1, load(A, v)); }, 15),
                   stage("C", [&](const ir::Expr& v) { return store(C, v, load(B, v + 1)); }, 15)});
}

/// B1: B = A; B2: B = B + 1; C = B.
inline ir::PrimFunc twoWritersProgram() {
  auto A = buffer1d("A"), B = buffer1d("B"), C = buffer1d("C");
  return function({A, C}, {B},
                  {stage("B1", [&](const ir::Expr& v) { return store(B, v, load(A, v)); }),
                   stage("B2", [&](const ir::Expr& v) { return store(B, v, load(B, v) + ir::floatImm(1.0)); }),
                   stage("C", [&](const ir::Expr& v) { return store(C, v, load(B, v)); })});
}

/// Block B writes B and B2; C = B + B2.
inline ir::PrimFunc twoOutputsProgram() {
  auto A = buffer1d("A"), B = buffer1d("B"), B2 = buffer1d("B2"), C = buffer1d("C");
  return function({A, C}, {B, B2},
                  {stage("B",
                         [&](const ir::Expr& v) {
                           return ir::SeqStmt::make({store(B, v, load(A, v)), store(B2, v, load(A, v))});
                         }),
                   stage("C", [&](const ir::Expr& v) { return store(C, v, load(B, v) + load(B2, v)); })});
}

/// A single block writing an intermediate buffer.
inline ir::PrimFunc loneProgram() {
  auto A = buffer1d("A"), B = buffer1d("B");
  return function({A}, {B}, {stage("B", [&](const ir::Expr& v) { return store(B, v, load(A, v)); })});
}

} // namespace loopscape::testing::programs
