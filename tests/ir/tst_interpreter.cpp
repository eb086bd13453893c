// The reference interpreter against hand-written C++ and exact diagnostics: matmul with
// init (bit-exact float32), producer/consumer with a root alloc_buffer, an imperfect
// split guarded by T.where, integer wrap-around and floor division, float16 rounding,
// max-reduction init, symbolic size inference and every runtime error message.
#include "core/ir/interpreter.h"
#include "core/ir/op.h"

#include <QElapsedTimer>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace loopscape;
using namespace loopscape::ir;

namespace {
const DataType i32 = DataType::int32();
const DataType f32 = DataType::float32();

struct Axis {
  Expr var;      // block iterator
  Expr extent;   // domain [0, extent)
  IterKind kind;
};

/// BlockRealize of a block named `name` with iterators `axes` bound to `values`.
Stmt realize(const std::string& name, const std::vector<Axis>& axes, const std::vector<Expr>& values, Stmt body,
             Stmt init = {}, Expr predicate = {}, std::vector<Buffer> allocs = {}) {
  std::vector<IterVar> ivs;
  for (const auto& a : axes) ivs.push_back({a.var, Range::fromMinExtent(intImm(0), a.extent), a.kind});
  return BlockRealize::make(values, predicate, Block::make(name, ivs, {}, {}, body, init, allocs));
}

PrimFunc makeFunc(std::string name, std::vector<Buffer> params, Stmt body, std::vector<Buffer> rootAllocs = {}) {
  PrimFunc f;
  f.name = std::move(name);
  f.params = std::move(params);
  f.body = realize("root", {}, {}, std::move(body), {}, {}, std::move(rootAllocs));
  return f;
}

Stmt loop(const Expr& v, std::int64_t extent, Stmt body) {
  return For::make(v, intImm(0), intImm(extent), ForKind::Serial, std::move(body));
}

/// C[i, j] = sum_k A[i, k] * B[k, j] with init C = 0, as TVM's create_prim_func makes it.
PrimFunc matmul(std::int64_t n) {
  auto A = makeBuffer("A", f32, {intImm(n), intImm(n)});
  auto B = makeBuffer("B", f32, {intImm(n), intImm(n)});
  auto C = makeBuffer("C", f32, {intImm(n), intImm(n)});
  auto i = Var::make("i"), j = Var::make("j"), k = Var::make("k");
  auto vi = Var::make("v_i"), vj = Var::make("v_j"), vk = Var::make("v_k");
  auto body = BufferStore::make(
      C, BufferLoad::make(C, {vi, vj}) + BufferLoad::make(A, {vi, vk}) * BufferLoad::make(B, {vk, vj}), {vi, vj});
  auto init = BufferStore::make(C, floatImm(0), {vi, vj});
  auto block = realize("C", {{vi, intImm(n), IterKind::Spatial}, {vj, intImm(n), IterKind::Spatial},
                             {vk, intImm(n), IterKind::Reduce}},
                       {i, j, k}, body, init);
  return makeFunc("matmul", {A, B, C}, loop(i, n, loop(j, n, loop(k, n, block))));
}

/// out[vi] = op(A[vi]) over a 1-d int32 or float buffer of `n` elements.
PrimFunc elementwise(DataType in, DataType out, std::int64_t n, const std::function<Expr(Expr, Buffer)>& op) {
  auto A = makeBuffer("A", in, {intImm(n)});
  auto B = makeBuffer("B", out, {intImm(n)});
  auto i = Var::make("i"), vi = Var::make("vi");
  auto block = realize("B", {{vi, intImm(n), IterKind::Spatial}}, {i},
                       BufferStore::make(B, op(vi, A), {vi}));
  return makeFunc("elementwise", {A, B}, loop(i, n, block));
}

QString message(const Expected<void>& r) { return r ? QString() : QString::fromStdString(r.error().message); }
QString code(const Expected<void>& r) { return r ? QString() : QString::fromStdString(r.error().code); }
} // namespace

class TestInterpreter : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void matmulBitExact() {
    const std::int64_t n = 48;
    NDArray a({n, n}, f32), b({n, n}, f32), c({n, n}, f32);
    a.fillRandom(1);
    b.fillRandom(2);
    for (std::int64_t k = 0; k < c.numel(); ++k) c.setDouble(k, 1e6); // init must overwrite
    NDArray args[] = {a, b, c};
    auto r = interpret(matmul(n), args);
    QVERIFY2(r.has_value(), qPrintable(message(r)));
    const float* A = a.data<float>();
    const float* B = b.data<float>();
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (std::int64_t k = 0; k < n; ++k) acc = acc + A[i * n + k] * B[k * n + j];
        QCOMPARE(c.data<float>()[i * n + j], acc); // QCOMPARE on float is fuzzy; check bits too
        QVERIFY(std::memcmp(&c.data<float>()[i * n + j], &acc, 4) == 0);
      }
  }

  void matmulTiming() {
    const std::int64_t n = 256;
    NDArray a({n, n}, f32), b({n, n}, f32), c({n, n}, f32);
    a.fillRandom(1);
    b.fillRandom(2);
    NDArray args[] = {a, b, c};
    QElapsedTimer timer;
    timer.start();
    auto r = interpret(matmul(n), args);
    qDebug("interpreter: 256x256x256 float32 matmul with init took %lld ms", static_cast<long long>(timer.elapsed()));
    QVERIFY(r.has_value());
  }

  void producerConsumer() {
    // B = alloc_buffer at root; B[i] = A[i] * 2; C[i] = B[i] + 1.
    const std::int64_t n = 8;
    auto A = makeBuffer("A", f32, {intImm(n)}), B = makeBuffer("B", f32, {intImm(n)}),
         C = makeBuffer("C", f32, {intImm(n)});
    auto i0 = Var::make("i0"), i1 = Var::make("i1"), v0 = Var::make("vi"), v1 = Var::make("vi");
    auto produce = loop(i0, n, realize("B", {{v0, intImm(n), IterKind::Spatial}}, {i0},
                                       BufferStore::make(B, BufferLoad::make(A, {v0}) * floatImm(2), {v0})));
    auto consume = loop(i1, n, realize("C", {{v1, intImm(n), IterKind::Spatial}}, {i1},
                                       BufferStore::make(C, BufferLoad::make(B, {v1}) + floatImm(1), {v1})));
    auto f = makeFunc("two_stage", {A, C}, SeqStmt::make({produce, consume}), {B});
    NDArray a({n}, f32), c({n}, f32);
    a.fillRandom(5);
    NDArray args[] = {a, c};
    QVERIFY(interpret(f, args).has_value());
    for (std::int64_t k = 0; k < n; ++k) QCOMPARE(c.data<float>()[k], a.data<float>()[k] * 2.0f + 1.0f);
  }

  void splitWithPredicate() {
    // for io in 3, ii in 4: block vi = io*4+ii, T.where(io*4+ii < 10): B[vi] = A[vi] + 1
    auto A = makeBuffer("A", i32, {intImm(10)}), B = makeBuffer("B", i32, {intImm(10)});
    auto io = Var::make("i_0"), ii = Var::make("i_1"), vi = Var::make("vi");
    auto block = realize("B", {{vi, intImm(10), IterKind::Spatial}}, {io * 4 + ii},
                         BufferStore::make(B, BufferLoad::make(A, {vi}) + 1, {vi}), {}, io * 4 + ii < 10);
    auto f = makeFunc("split", {A, B}, loop(io, 3, loop(ii, 4, block)));
    NDArray a({10}, i32), b({10}, i32);
    for (int k = 0; k < 10; ++k) a.setInt(k, k * k);
    NDArray args[] = {a, b};
    auto r = interpret(f, args);
    QVERIFY2(r.has_value(), qPrintable(message(r)));
    for (int k = 0; k < 10; ++k) QCOMPARE(b.getInt(k), std::int64_t{k * k + 1});
    // Without the predicate the last iterations leave the domain.
    auto unguarded = makeFunc("split", {A, B}, loop(io, 3, loop(ii, 4, realize("B", {{vi, intImm(10), IterKind::Spatial}},
                                                                                  {io * 4 + ii}, BufferStore::make(B, BufferLoad::make(A, {vi}) + 1, {vi})))));
    r = interpret(unguarded, args);
    QCOMPARE(code(r), QString("interp.binding-out-of-domain"));
    QCOMPARE(message(r), QString("iterator vi = 10 is outside its domain [0, 10) in block \"B\" at vi=10"));
  }

  void int8WrapAround() {
    const DataType i8 = DataType::int8();
    auto f = elementwise(i8, i8, 4, [](Expr vi, Buffer A) {
      auto x = BufferLoad::make(A, {vi});
      return x + x;
    });
    NDArray a({4}, i8), b({4}, i8);
    std::int64_t in[] = {100, -100, 127, -128}, out[] = {-56, 56, -2, 0};
    for (int k = 0; k < 4; ++k) a.setInt(k, in[k]);
    NDArray args[] = {a, b};
    QVERIFY(interpret(f, args).has_value());
    for (int k = 0; k < 4; ++k) QCOMPARE(b.getInt(k), out[k]);
    // Wrapping happens after every operation: (x * 3) / 2 on int8 with x = 100 -> 44 / 2 = 22.
    auto g = elementwise(i8, i8, 4, [](Expr vi, Buffer A) { return BufferLoad::make(A, {vi}) * 3 / 2; });
    a.setInt(0, 100);
    QVERIFY(interpret(g, args).has_value());
    QCOMPARE(b.getInt(0), std::int64_t{22});
  }

  void integerDivision_data() {
    QTest::addColumn<qlonglong>("a");
    QTest::addColumn<qlonglong>("b");
    QTest::addColumn<qlonglong>("div");
    QTest::addColumn<qlonglong>("floordiv");
    QTest::addColumn<qlonglong>("floormod");
    QTest::newRow("7/2") << 7LL << 2LL << 3LL << 3LL << 1LL;
    QTest::newRow("-7/2") << -7LL << 2LL << -3LL << -4LL << 1LL;
    QTest::newRow("7/-2") << 7LL << -2LL << -3LL << -4LL << -1LL;
    QTest::newRow("-7/-2") << -7LL << -2LL << 3LL << 3LL << -1LL;
    QTest::newRow("-8/2") << -8LL << 2LL << -4LL << -4LL << 0LL;
    QTest::newRow("min/-1") << -2147483648LL << -1LL << -2147483648LL << -2147483648LL << 0LL;
  }
  void integerDivision() {
    QFETCH(qlonglong, a);
    QFETCH(qlonglong, b);
    auto A = makeBuffer("A", i32, {intImm(2)}), B = makeBuffer("B", i32, {intImm(3)});
    auto x = BufferLoad::make(A, {intImm(0)}), y = BufferLoad::make(A, {intImm(1)});
    auto body = SeqStmt::make({BufferStore::make(B, x / y, {intImm(0)}), BufferStore::make(B, floordiv(x, y), {intImm(1)}),
                               BufferStore::make(B, floormod(x, y), {intImm(2)})});
    auto f = makeFunc("div", {A, B}, body);
    NDArray in({2}, i32), out({3}, i32);
    in.setInt(0, a);
    in.setInt(1, b);
    NDArray args[] = {in, out};
    QVERIFY(interpret(f, args).has_value());
    QTEST(static_cast<qlonglong>(out.getInt(0)), "div");
    QTEST(static_cast<qlonglong>(out.getInt(1)), "floordiv");
    QTEST(static_cast<qlonglong>(out.getInt(2)), "floormod");
  }

  void divisionByZero() {
    auto f = elementwise(i32, i32, 3, [](Expr vi, Buffer A) { return floordiv(intImm(12), BufferLoad::make(A, {vi})); });
    NDArray a({3}, i32), b({3}, i32);
    a.setInt(0, 4);
    a.setInt(1, 0);
    NDArray args[] = {a, b};
    auto r = interpret(f, args);
    QCOMPARE(code(r), QString("interp.division-by-zero"));
    QCOMPARE(message(r), QString("integer division by zero (FloorDiv) in block \"B\" at vi=1"));
    QCOMPARE(r.error().references.front().name, std::string("B"));
    QCOMPARE(b.getInt(0), std::int64_t{3}); // instances before the failure ran
  }

  void outOfBounds() {
    auto f = elementwise(f32, f32, 4, [](Expr vi, Buffer A) { return BufferLoad::make(A, {vi + 1}); });
    NDArray a({4}, f32), b({4}, f32);
    NDArray args[] = {a, b};
    auto r = interpret(f, args);
    QCOMPARE(code(r), QString("interp.out-of-bounds"));
    QCOMPARE(message(r), QString("out-of-bounds load A[4] (shape (4)) in block \"B\" at vi=3"));
    // 2-d store with a negative index.
    auto C = makeBuffer("C", i32, {intImm(2), intImm(3)});
    auto i = Var::make("i"), vi = Var::make("vi");
    auto g = makeFunc("neg", {C}, loop(i, 2, realize("S", {{vi, intImm(2), IterKind::Spatial}}, {i},
                                                     BufferStore::make(C, vi, {vi, vi - 1}))));
    NDArray c({2, 3}, i32);
    NDArray gargs[] = {c};
    r = interpret(g, gargs);
    QCOMPARE(message(r), QString("out-of-bounds store C[0, -1] (shape (2, 3)) in block \"S\" at vi=0"));
  }

  void castOutOfRange() {
    auto f = elementwise(f32, i32, 2, [](Expr vi, Buffer A) { return Cast::make(i32, BufferLoad::make(A, {vi})); });
    NDArray a({2}, f32), b({2}, i32);
    a.setDouble(0, -7.9);
    a.setDouble(1, 3e9);
    NDArray args[] = {a, b};
    auto r = interpret(f, args);
    QCOMPARE(code(r), QString("interp.cast-out-of-range"));
    QCOMPARE(message(r), QString("cast of float32 3000000000 to int32 is out of range in block \"B\" at vi=1"));
    QCOMPARE(b.getInt(0), std::int64_t{-7});
  }

  void sizeInference() {
    auto n = Var::make("n"), m = Var::make("m");
    auto A = makeBuffer("A", f32, {n, m}), B = makeBuffer("B", f32, {n, m});
    auto i = Var::make("i"), j = Var::make("j"), vi = Var::make("vi"), vj = Var::make("vj");
    auto f = makeFunc("copy", {A, B},
                      For::make(i, intImm(0), n, ForKind::Serial,
                                For::make(j, intImm(0), m, ForKind::Serial,
                                          realize("B", {{vi, n, IterKind::Spatial}, {vj, m, IterKind::Spatial}}, {i, j},
                                                  BufferStore::make(B, BufferLoad::make(A, {vi, vj}) * floatImm(3), {vi, vj})))));
    NDArray a({3, 5}, f32), b({3, 5}, f32);
    a.fillRandom(9);
    NDArray args[] = {a, b};
    auto sizes = inferSizes(f, args);
    QVERIFY(sizes.has_value());
    QCOMPARE(*sizes, (SizeBindings{{"n", 3}, {"m", 5}}));
    QVERIFY(interpret(f, args).has_value());
    QCOMPARE(b.data<float>()[14], a.data<float>()[14] * 3.0f);

    NDArray wrong({3, 6}, f32);
    NDArray bad[] = {a, wrong};
    auto r = inferSizes(f, bad);
    QVERIFY(!r.has_value());
    QCOMPARE(QString::fromStdString(r.error().code), QString("interp.size-conflict"));
    QCOMPARE(QString::fromStdString(r.error().message),
             QString("size variable 'm' is 5 but dimension 1 of parameter B is 6"));

    auto shape = evalShape(makeBuffer("T", f32, {n * 2, Var::make("k")}), {{"n", 4}});
    QVERIFY(!shape.has_value());
    QCOMPARE(QString::fromStdString(shape.error().code), QString("interp.unbound-size"));
    QCOMPARE(QString::fromStdString(shape.error().message),
             QString("shape of buffer T: size variable 'k' is not bound"));
    shape = evalShape(makeBuffer("T", f32, {n * 2, intImm(3)}), {{"n", 4}});
    QCOMPARE(*shape, (std::vector<std::int64_t>{8, 3}));
  }

  void argumentChecks() {
    auto f = matmul(4);
    NDArray a({4, 4}, f32), b({4, 4}, f32), c({4, 4}, f32), d({4, 4}, DataType::float64()), e({4, 5}, f32);
    NDArray two[] = {a, b};
    QCOMPARE(message(interpret(f, two)), QString("matmul takes 3 buffer arguments, got 2"));
    NDArray badType[] = {a, d, c};
    QCOMPARE(code(interpret(f, badType)), QString("interp.dtype-mismatch"));
    QCOMPARE(message(interpret(f, badType)),
             QString("parameter B of matmul has dtype float32 but the argument is float64(4, 4)"));
    NDArray badShape[] = {a, b, e};
    QCOMPARE(message(interpret(f, badShape)),
             QString("parameter C of matmul: dimension 1 must be 4 but the argument is float32(4, 5)"));
  }

  void maxReductionInit() {
    // B[i] = max_k A[i, k], init B[i] = -inf.
    auto A = makeBuffer("A", f32, {intImm(3), intImm(4)}), B = makeBuffer("B", f32, {intImm(3)});
    auto i = Var::make("i"), k = Var::make("k"), vi = Var::make("vi"), vk = Var::make("vk");
    auto block = realize("max", {{vi, intImm(3), IterKind::Spatial}, {vk, intImm(4), IterKind::Reduce}}, {i, k},
                         BufferStore::make(B, max(BufferLoad::make(B, {vi}), BufferLoad::make(A, {vi, vk})), {vi}),
                         BufferStore::make(B, floatImm(-std::numeric_limits<double>::infinity()), {vi}));
    auto f = makeFunc("rmax", {A, B}, loop(i, 3, loop(k, 4, block)));
    NDArray a({3, 4}, f32), b({3}, f32);
    for (int x = 0; x < 12; ++x) a.setDouble(x, -100.0 + (x * 7) % 12);
    for (int x = 0; x < 3; ++x) b.setDouble(x, 1000);
    NDArray args[] = {a, b};
    QVERIFY(interpret(f, args).has_value());
    for (int x = 0; x < 3; ++x) {
      float expect = -std::numeric_limits<float>::infinity();
      for (int y = 0; y < 4; ++y) expect = std::max(expect, a.data<float>()[x * 4 + y]);
      QCOMPARE(b.data<float>()[x], expect);
    }
  }

  void float16Rounding() {
    const DataType f16 = DataType::float16();
    // (x + 2^-11) + 2^-11 in float16 with x = 1: each addition rounds back to 1 (ties to
    // even), whereas float32 arithmetic would give 1 + 2^-10.
    auto f = elementwise(f16, f16, 1, [&](Expr vi, Buffer A) {
      return (BufferLoad::make(A, {vi}) + floatImm(std::ldexp(1.0, -11), f16)) + floatImm(std::ldexp(1.0, -11), f16);
    });
    NDArray a({1}, f16), b({1}, f16);
    a.setDouble(0, 1.0);
    NDArray args[] = {a, b};
    QVERIFY(interpret(f, args).has_value());
    QCOMPARE(b.getDouble(0), 1.0);
    QCOMPARE(b.data<std::uint16_t>()[0], std::uint16_t{0x3c00});
    // A float32 -> float16 cast stores the nearest half: 0.1f -> 0x2e66.
    auto g = elementwise(f32, f16, 1, [&](Expr vi, Buffer A) { return Cast::make(f16, BufferLoad::make(A, {vi})); });
    NDArray c({1}, f32);
    c.setDouble(0, 0.1);
    NDArray gargs[] = {c, b};
    QVERIFY(interpret(g, gargs).has_value());
    QCOMPARE(b.data<std::uint16_t>()[0], std::uint16_t{0x2e66});
  }

  void intrinsicsLetSelectAllocate() {
    // y = sigmoid(x); B[i] = select(y > 0.5, rsqrt(y), fma(y, y, y)) through a LetStmt and
    // an Allocate'd scratch cell.
    auto A = makeBuffer("A", f32, {intImm(5)}), B = makeBuffer("B", f32, {intImm(5)});
    auto T = makeBuffer("T", f32, {intImm(1)}, MemoryScope::Local);
    auto i = Var::make("i"), vi = Var::make("vi"), y = Var::make("y", f32);
    auto value = Select::make(y > floatImm(0.5), Call::make(f32, CallOp::Rsqrt, {y}), Call::make(f32, CallOp::Fma, {y, y, y}));
    auto body = LetStmt::make(y, Call::make(f32, CallOp::Sigmoid, {BufferLoad::make(A, {vi})}),
                              Allocate::make(T, SeqStmt::make({BufferStore::make(T, value, {intImm(0)}),
                                                               BufferStore::make(B, BufferLoad::make(T, {intImm(0)}), {vi})})));
    auto f = makeFunc("misc", {A, B}, loop(i, 5, realize("B", {{vi, intImm(5), IterKind::Spatial}}, {i}, body)));
    NDArray a({5}, f32), b({5}, f32);
    a.fillRandom(3);
    NDArray args[] = {a, b};
    auto r = interpret(f, args);
    QVERIFY2(r.has_value(), qPrintable(message(r)));
    for (int k = 0; k < 5; ++k) {
      float x = a.data<float>()[k];
      float s = 1.0f / (1.0f + std::exp(-x));
      float expect = s > 0.5f ? 1.0f / std::sqrt(s) : std::fma(s, s, s);
      float got = b.data<float>()[k];
      QVERIFY(std::memcmp(&got, &expect, 4) == 0);
    }
  }

  void vectorsAreRefused() {
    auto A = makeBuffer("A", i32, {intImm(4)});
    auto f = makeFunc("vec", {A}, BufferStore::make(A, Broadcast::make(intImm(1), 4), {Ramp::make(intImm(0), intImm(1), 4)}));
    NDArray a({4}, i32);
    NDArray args[] = {a};
    auto r = interpret(f, args);
    QCOMPARE(code(r), QString("interp.unsupported"));
  }
};

QTEST_GUILESS_MAIN(TestInterpreter)
#include "tst_interpreter.moc"
