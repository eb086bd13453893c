// The cpu-llvm target plugin, loaded as the registry loads it (dlopen of the built module,
// ABI check, factory). Kernels built from hand-made LoweredFuncs and from lower() of
// scheduled TE programs run in-process and are compared with the reference interpreter:
// bit-identical for integer programs, within rtol 1e-5 for float ones; so are all the
// samples of small_samples.h, unscheduled and scheduled. Also checks the code it shows
// (a 16-lane float loop on the host's widest registers, zmm with AVX-512 and ymm with
// AVX2; fast-math flags only on request), its
// errors, and the shared library made for the out-of-process runner.
#include "core/codegen/lower.h"
#include "core/codegen/target.h"
#include "core/frontend/te_frontend.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/op.h"
#include "core/ir/stmt.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"
#include "gpu_test_helpers.h"
#include "small_samples.h"

#include <QtTest>

#include <dlfcn.h>

#ifdef LS_TEST_READS_LLVM_OPTIONS
#include <llvm/Support/CommandLine.h>
#endif

#include <cstring>
#include <filesystem>
#include <functional>
#include <map>

using namespace loopscape;
using namespace loopscape::ir;
using loopscape::codegen::BuildOptions;
using loopscape::codegen::LoweredFunc;
using loopscape::codegen::Target;

namespace {

std::string pluginPath() {
#ifdef LS_CPU_LLVM_PLUGIN
  return LS_CPU_LLVM_PLUGIN;
#else
  // Tests live in <build>/tests, plugins in <build>/plugins (ls_add_plugin).
  return (std::filesystem::path(QCoreApplication::applicationDirPath().toStdString()) / ".." / "plugins" /
          "loopscape-target-cpu-llvm.so")
      .lexically_normal()
      .string();
#endif
}

/// A hand-made program: the LoweredFunc the plugin compiles and the scalar PrimFunc the
/// interpreter runs as the reference (the same computation on the same 1-D buffers).
struct Case {
  LoweredFunc lowered;
  PrimFunc reference;
  SizeBindings sizes; ///< values of size variables no argument shape determines
  std::vector<std::vector<std::int64_t>> shapes; ///< per parameter (overrides symbolic shapes)
};

PrimFunc wrapRoot(std::string name, std::vector<Buffer> params, Stmt body) {
  PrimFunc f;
  f.name = std::move(name);
  f.params = std::move(params);
  f.body = BlockRealize::make({}, boolImm(true), Block::make("root", {}, {}, {}, std::move(body)));
  return f;
}

LoweredFunc makeLowered(std::string name, std::vector<Buffer> params, Stmt body, std::vector<Expr> sizeVars = {}) {
  LoweredFunc f;
  f.name = std::move(name);
  f.params = params;
  f.flatParams = std::move(params);
  f.sizeVars = std::move(sizeVars);
  f.body = std::move(body);
  return f;
}

Expr var(const char* name, DataType t = DataType::int32()) { return Var::make(name, t); }
Expr load(const Buffer& b, Expr i) { return BufferLoad::make(b, {std::move(i)}); }
Stmt store(const Buffer& b, Expr v, Expr i) { return BufferStore::make(b, std::move(v), {std::move(i)}); }
Stmt loop(Expr v, std::int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return For::make(v, intImm(0, v.dtype()), intImm(extent, v.dtype()), kind, std::move(body));
}

/// C[i*N + j] = sum_k A[i*K + k] * B[k*N + j], reduction init before the k loop.
Case flatMatmul(ForKind outer) {
  const int M = 13, N = 17, K = 11;
  auto A = makeBuffer("A", DataType::float32(), {intImm(M * K)});
  auto B = makeBuffer("B", DataType::float32(), {intImm(K * N)});
  auto C = makeBuffer("C", DataType::float32(), {intImm(M * N)});
  Expr i = var("i"), j = var("j"), k = var("k");
  auto body = [&](ForKind kind) {
    Stmt update = store(C, load(C, i * N + j) + load(A, i * K + k) * load(B, k * N + j), i * N + j);
    Stmt inner = SeqStmt::make({store(C, floatImm(0), i * N + j), loop(k, K, update)});
    return loop(i, M, loop(j, N, inner), kind);
  };
  return {makeLowered("matmul_kernel", {A, B, C}, body(outer)), wrapRoot("matmul", {A, B, C}, body(ForKind::Serial)), {}, {}};
}

/// Integer arithmetic with negative operands: floordiv/floormod/div/min/max/select/casts,
/// int8 and int32 wrapping, uint8 division.
Case integerOps() {
  const int n = 64;
  auto X = makeBuffer("X", DataType::int32(), {intImm(n)});
  auto Y = makeBuffer("Y", DataType::int32(), {intImm(n)});
  auto O = makeBuffer("O", DataType::int32(), {intImm(n * 8)});
  auto P = makeBuffer("P", DataType::int8(), {intImm(n)});
  auto Q = makeBuffer("Q", DataType::uint8(), {intImm(n)});
  Expr i = var("i");
  Expr x = load(X, i), y = load(Y, i);
  Expr ySafe = Select::make(y == 0, intImm(3), y); // the interpreter refuses division by zero
  Expr x2 = x - 4;
  std::vector<Stmt> s;
  s.push_back(store(O, floordiv(x * 7 - 20, ySafe), i * 8));
  s.push_back(store(O, floormod(x * 7 - 20, ySafe), i * 8 + 1));
  s.push_back(store(O, (x * 13 - 50) / ySafe, i * 8 + 2));
  s.push_back(store(O, max(min(x, y), x2) * 2147483647 + floormod(x, 5) - floordiv(x2, -3), i * 8 + 3));
  s.push_back(store(O, Select::make(x < y && !(x == 0), x * y, x - y), i * 8 + 4));
  s.push_back(store(O, Cast::make(DataType::int32(), Cast::make(DataType::int8(), x * 37)), i * 8 + 5));
  s.push_back(store(O, Cast::make(DataType::int32(), Cast::make(DataType::float32(), x) * floatImm(2.75)), i * 8 + 6));
  s.push_back(store(O, Cast::make(DataType::int32(), Cast::make(DataType::uint8(), x * 31)), i * 8 + 7));
  s.push_back(store(P, Cast::make(DataType::int8(), x) * Cast::make(DataType::int8(), y) * intImm(19, DataType::int8()), i));
  Expr qa = Cast::make(DataType::uint8(), x + 200), qb = Cast::make(DataType::uint8(), max(y, intImm(1)) + 5);
  s.push_back(store(Q, qa / qb + floormod(qa, qb) + Select::make(qa < qb, qa, qb), i));
  Stmt body = loop(i, n, SeqStmt::make(s));
  return {makeLowered("ints_kernel", {X, Y, O, P, Q}, body), wrapRoot("ints", {X, Y, O, P, Q}, body), {}, {}};
}

/// Out[i] = A[i] + B[i] * 2 over 16-lane vectors (Ramp/Broadcast), the scalar as reference.
Case vectorAdd(int lanes, int n) {
  auto A = makeBuffer("A", DataType::float32(), {intImm(n)});
  auto B = makeBuffer("B", DataType::float32(), {intImm(n)});
  auto Out = makeBuffer("Out", DataType::float32(), {intImm(n)});
  Expr io = var("io"), i = var("i");
  Expr idx = Ramp::make(io * lanes, intImm(1), lanes);
  Stmt vec = loop(io, n / lanes,
                  store(Out, load(A, idx) + load(B, idx) * Broadcast::make(floatImm(2), lanes), idx));
  Stmt scalar = loop(i, n, store(Out, load(A, i) + load(B, i) * floatImm(2), i));
  return {makeLowered("vadd_kernel", {A, B, Out}, vec), wrapRoot("vadd", {A, B, Out}, scalar), {}, {}};
}

/// A dynamic-size parallel loop with a strided (gather) vector access, a Local (stack)
/// and a Global (heap) Allocate, a LetStmt and an IfThenElse.
Case parallelDynamic() {
  Expr n = var("n", DataType::int64());
  auto A = makeBuffer("A", DataType::float32(), {n * 8});
  auto Out = makeBuffer("Out", DataType::float32(), {n * 8});
  auto tmp = makeBuffer("tmp", DataType::float32(), {intImm(8)}, MemoryScope::Local);
  auto big = makeBuffer("big", DataType::float32(), {n}, MemoryScope::Global);
  Expr r = var("r", DataType::int64()), c = var("c", DataType::int64()), t = var("t", DataType::int64());
  auto I = [](std::int64_t v) { return intImm(v, DataType::int64()); };
  auto body = [&](bool vector) {
    Expr base = var("base", DataType::int64());
    Stmt fill = vector ? store(tmp, load(A, Ramp::make(base + 7, I(-1), 8)), Ramp::make(I(0), I(1), 8))
                       : loop(c, 8, store(tmp, load(A, base + 7 - c), c));
    Stmt use = loop(c, 8,
                    IfThenElse::make(floormod(c, I(2)) == I(0), store(Out, load(tmp, c) + load(big, r), base + c),
                                     store(Out, Call::make(DataType::float32(), CallOp::Exp, {load(tmp, c)}), base + c)));
    Stmt perRow = LetStmt::make(base, r * I(8), Allocate::make(tmp, SeqStmt::make({fill, use})));
    Stmt init = For::make(t, I(0), n, ForKind::Serial, store(big, Cast::make(DataType::float32(), t), t));
    return Allocate::make(big, SeqStmt::make({init, For::make(r, I(0), n, vector ? ForKind::Parallel : ForKind::Serial, perRow)}));
  };
  Case k{makeLowered("pdyn_kernel", {A, Out}, body(true), {n}), wrapRoot("pdyn", {A, Out}, body(false)), {}, {}};
  k.shapes = {{37 * 8}, {37 * 8}};
  k.sizes = {{"n", 37}};
  return k;
}

/// Math intrinsics, Select on floats, float Min/Max, casts.
Case mathCalls() {
  const int n = 48;
  auto X = makeBuffer("X", DataType::float32(), {intImm(n)});
  auto O = makeBuffer("O", DataType::float32(), {intImm(n * 12)});
  auto D = makeBuffer("D", DataType::float64(), {intImm(n)});
  Expr i = var("i");
  Expr x = load(X, i);
  auto f = [&](CallOp op, std::vector<Expr> args) { return Call::make(DataType::float32(), op, std::move(args)); };
  Expr pos = f(CallOp::Fabs, {x}) + floatImm(0.5);
  std::vector<Expr> values = {f(CallOp::Exp, {x}),      f(CallOp::Log, {pos}),
                              f(CallOp::Sqrt, {pos}),   f(CallOp::Rsqrt, {pos}),
                              f(CallOp::Tanh, {x * floatImm(3)}), f(CallOp::Sigmoid, {x * floatImm(4)}),
                              f(CallOp::Erf, {x}),      f(CallOp::Pow, {pos, x}),
                              f(CallOp::Round, {x * floatImm(4)}), f(CallOp::Floor, {x * floatImm(3)}) + f(CallOp::Ceil, {x * floatImm(3)}),
                              f(CallOp::Fma, {x, x, floatImm(0.25)}), Select::make(x > floatImm(0), min(x, x * x), max(x, floatImm(-0.5)))};
  std::vector<Stmt> s;
  for (std::size_t v = 0; v < values.size(); ++v) s.push_back(store(O, values[v], i * 12 + static_cast<int>(v)));
  Expr xd = Cast::make(DataType::float64(), x);
  s.push_back(store(D, Call::make(DataType::float64(), CallOp::Tanh, {xd}) + Call::make(DataType::float64(), CallOp::Exp, {xd}), i));
  Stmt body = loop(i, n, SeqStmt::make(s));
  return {makeLowered("math_kernel", {X, O, D}, body), wrapRoot("math", {X, O, D}, body), {}, {}};
}

/// Random inputs for every parameter of `ref` (shapes from `shapes` or evaluated).
std::vector<NDArray> makeArgs(const PrimFunc& ref, const Case* c, std::uint64_t seed) {
  std::vector<NDArray> args;
  for (std::size_t p = 0; p < ref.params.size(); ++p) {
    std::vector<std::int64_t> shape;
    if (c && !c->shapes.empty()) shape = c->shapes[p];
    else shape = *evalShape(ref.params[p], c ? c->sizes : SizeBindings{});
    NDArray a(shape, ref.params[p]->dtype);
    a.fillRandom(seed + p);
    args.push_back(a);
  }
  return args;
}

bool sameBytes(const NDArray& a, const NDArray& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.rawData(), b.rawData(), a.nbytes()) == 0;
}

} // namespace

class TestCpuLlvm : public QObject {
  Q_OBJECT

  void* m_handle = nullptr;
  std::unique_ptr<Target> m_target;

  /// Runs `lowered` through the plugin and `ref` through the interpreter on the same
  /// random inputs; integer outputs must be bit-identical, float ones within rtol 1e-5.
  void compareWithInterpreter(const LoweredFunc& lowered, const PrimFunc& ref, const Case* c, const BuildOptions& options) {
    auto kernel = m_target->build(lowered, options);
    QVERIFY2(kernel.has_value(), kernel ? "" : kernel.error().message.c_str());
    std::vector<NDArray> expected = makeArgs(ref, c, 7);
    std::vector<NDArray> actual;
    for (auto& a : expected) actual.push_back(a.clone());
    auto sizes = inferSizes(ref, expected);
    QVERIFY2(sizes.has_value(), sizes ? "" : sizes.error().message.c_str());
    if (c) sizes->insert(c->sizes.begin(), c->sizes.end());
    auto ran = interpret(ref, expected, *sizes);
    QVERIFY2(ran.has_value(), ran ? "" : ran.error().message.c_str());
    std::vector<void*> pointers;
    for (auto& a : actual) pointers.push_back(a.rawData());
    std::vector<std::int64_t> sizeValues;
    for (const Expr& v : lowered.sizeVars) sizeValues.push_back(sizes->at(v.as<Var>()->name));
    auto run = (*kernel)->run(pointers, sizeValues);
    QVERIFY2(run.has_value(), run ? "" : run.error().message.c_str());
    for (std::size_t p = 0; p < expected.size(); ++p) {
      const std::string what = ref.params[p]->name;
      if (!expected[p].dtype().isFloat()) {
        QVERIFY2(sameBytes(actual[p], expected[p]), ("integer output " + what + " differs").c_str());
        continue;
      }
      auto mismatch = firstMismatch(actual[p], expected[p], 1e-6, 1e-5);
      QVERIFY2(!mismatch, mismatch ? qPrintable(QString("%1[%2]: %3 vs %4").arg(QString::fromStdString(what)).arg(mismatch->index)
                                                    .arg(mismatch->actual, 0, 'g', 9).arg(mismatch->expected, 0, 'g', 9))
                                   : "");
    }
  }

  static std::map<QString, std::function<Case()>> handMade() {
    return {{"matmul serial", [] { return flatMatmul(ForKind::Serial); }},
            {"matmul parallel", [] { return flatMatmul(ForKind::Parallel); }},
            {"integer ops", integerOps},
            {"vector add 16 lanes", [] { return vectorAdd(16, 256); }},
            {"vector add 8 lanes", [] { return vectorAdd(8, 72); }},
            {"parallel dynamic allocate", parallelDynamic},
            {"math calls", mathCalls}};
  }

private Q_SLOTS:
  void initTestCase() {
    const std::string path = pluginPath();
    if (!std::filesystem::exists(path)) QSKIP(qPrintable(QString::fromStdString("cpu-llvm plugin not built: " + path)));
    m_handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(m_handle, dlerror());
    auto version = reinterpret_cast<LoopscapeTargetAbiVersionFn>(dlsym(m_handle, "loopscape_target_abi_version"));
    auto create = reinterpret_cast<LoopscapeCreateTargetFn>(dlsym(m_handle, "loopscape_create_target"));
    QVERIFY(version && create);
    QCOMPARE(version(), codegen::kTargetAbiVersion);
    m_target.reset(create());
    QVERIFY(m_target);
  }

  void cleanupTestCase() { m_target.reset(); } // the module stays loaded (JIT code may be cached)

  void describesItself() {
    QCOMPARE(m_target->name(), std::string("cpu-llvm"));
    QCOMPARE(m_target->deviceKind(), std::string("cpu"));
    QCOMPARE(m_target->sourceFormats(), (std::vector<std::string>{"llvm", "asm"}));
    auto tool = m_target->toolchain();
    QVERIFY2(tool.usable, tool.message.c_str());
    QVERIFY2(tool.message.starts_with("LLVM 16."), tool.message.c_str());
    QVERIFY2(tool.message.find("host CPU ") != std::string::npos, tool.message.c_str());
    auto caps = m_target->capabilities();
    QVERIFY(caps.parallel);
    QVERIFY(!caps.gpuThreads);
    // The widest registers the CPU has, as GCC's own CPUID check sees them.
    __builtin_cpu_init();
    const int widest = __builtin_cpu_supports("avx512f") ? 512 : __builtin_cpu_supports("avx") ? 256 : 128;
    QCOMPARE(caps.vectorBits, widest);
  }

  // Unrolled tiles make basic blocks of thousands of loads and stores; the plugin bounds
  // what LLVM's schedulers compare in one region (host_machine.cpp), which took one tuned
  // conv2d candidate from 23 s of compile to under 10.
  void schedulingRegionsAreBounded() {
#ifdef LS_TEST_READS_LLVM_OPTIONS
    Case c = flatMatmul(ForKind::Serial);
    auto text = m_target->source(c.lowered, "asm", {});
    QVERIFY2(text.has_value(), text ? "" : text.error().message.c_str());
    auto& options = llvm::cl::getRegisteredOptions();
    auto it = options.find("dag-maps-huge-region");
    QVERIFY(it != options.end());
    QCOMPARE(it->second->getNumOccurrences(), 1);
    QCOMPARE(static_cast<llvm::cl::opt<unsigned>*>(it->second)->getValue(), 400u);
#else
    QSKIP("LLVM's headers are not available to this test");
#endif
  }

  void handMadeMatchesInterpreter_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("fastMath");
    QTest::addColumn<int>("threads");
    for (const auto& [name, make] : handMade()) QTest::newRow(qPrintable(name)) << name << false << 0;
    QTest::newRow("matmul parallel, fast-math") << QString("matmul parallel") << true << 0;
    QTest::newRow("parallel dynamic allocate, 1 thread") << QString("parallel dynamic allocate") << false << 1;
    QTest::newRow("parallel dynamic allocate, 3 threads") << QString("parallel dynamic allocate") << false << 3;
  }
  void handMadeMatchesInterpreter() {
    QFETCH(QString, name);
    QFETCH(bool, fastMath);
    QFETCH(int, threads);
    Case c = handMade().at(name)();
    BuildOptions options;
    options.fastMath = fastMath;
    options.threads = threads;
    compareWithInterpreter(c.lowered, c.reference, &c, options);
  }

  void roundsHalfAwayFromZero() {
    // std::round semantics (the interpreter's), not round-half-even.
    auto X = makeBuffer("X", DataType::float32(), {intImm(4)});
    Expr i = var("i");
    Stmt body = loop(i, 4, store(X, Call::make(DataType::float32(), CallOp::Round, {load(X, i)}), i));
    auto kernel = m_target->build(makeLowered("round_kernel", {X}, body), {});
    QVERIFY(kernel.has_value());
    float data[4] = {2.5f, -2.5f, 0.5f, 1.49f};
    void* ptrs[] = {data};
    QVERIFY((*kernel)->run(ptrs, {}).has_value());
    QCOMPARE(data[0], 3.0f);
    QCOMPARE(data[1], -3.0f);
    QCOMPARE(data[2], 1.0f);
    QCOMPARE(data[3], 1.0f);
  }

  void loweredSamplesMatchInterpreter_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("script");
    const QString matmul = "from tvm import te\nA = te.placeholder((48, 40), dtype=\"float32\", name=\"A\")\n"
                           "B = te.placeholder((40, 64), dtype=\"float32\", name=\"B\")\n"
                           "k = te.reduce_axis((0, 40), name=\"k\")\n"
                           "C = te.compute((48, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";
    const QString ints = "from tvm import te\nA = te.placeholder((30, 20), dtype=\"int32\", name=\"A\")\n"
                         "B = te.compute((30, 20), lambda i, j: (A[i, j] * 7 - 3) // 4 + (A[i, j] - j) % 5, name=\"B\")\n";
    const QString softmax =
        "from tvm import te\nX = te.placeholder((8, 32), dtype=\"float32\", name=\"X\")\n"
        "k = te.reduce_axis((0, 32), name=\"k\")\n"
        "M = te.compute((8,), lambda i: te.max(X[i, k], axis=k), name=\"M\")\n"
        "E = te.compute((8, 32), lambda i, j: te.exp(X[i, j] - M[i]), name=\"E\")\n"
        "k2 = te.reduce_axis((0, 32), name=\"k2\")\n"
        "S = te.compute((8,), lambda i: te.sum(E[i, k2], axis=k2), name=\"S\")\n"
        "Y = te.compute((8, 32), lambda i, j: E[i, j] / S[i], name=\"Y\")\n";
    const QString tile = "def apply_trace(sch):\n"
                         "    block = sch.get_block(\"C\")\n"
                         "    i, j, k = sch.get_loops(block)\n"
                         "    i_0, i_1 = sch.split(i, factors=[None, 8])\n"
                         "    j_0, j_1 = sch.split(j, factors=[None, 16])\n"
                         "    sch.reorder(i_0, j_0, k, i_1, j_1)\n"
                         "    sch.parallel(i_0)\n"
                         "    sch.vectorize(j_1)\n";
    const QString intVec = "def apply_trace(sch):\n"
                           "    block = sch.get_block(\"B\")\n"
                           "    i, j = sch.get_loops(block)\n"
                           "    sch.parallel(i)\n"
                           "    j_0, j_1 = sch.split(j, factors=[None, 4])\n"
                           "    sch.vectorize(j_1)\n";
    const QString rows = "def apply_trace(sch):\n"
                         "    block = sch.get_block(\"Y\")\n"
                         "    i, j = sch.get_loops(block)\n"
                         "    sch.parallel(i)\n";
    // Outer-loop vectorization: the vectorized loop holds the reduction loops.
    const QString conv1d =
        "from tvm import te\nA = te.placeholder((73,), dtype=\"float32\", name=\"A\")\n"
        "w = te.placeholder((2, 7), dtype=\"float32\", name=\"w\")\n"
        "q = te.reduce_axis((0, 2), name=\"q\")\nr = te.reduce_axis((0, 7), name=\"r\")\n"
        "C = te.compute((64,), lambda i: te.sum(A[i + q * 3 + r] * w[q, r], axis=[q, r]), name=\"C\")\n";
    const QString outerVec = "def apply_trace(sch):\n"
                             "    block = sch.get_block(\"C\")\n"
                             "    i, q, r = sch.get_loops(block)\n"
                             "    i_0, i_1 = sch.split(i, factors=[None, 16])\n"
                             "    sch.reorder(i_0, i_1, q, r)\n"
                             "    sch.parallel(i_0)\n"
                             "    sch.unroll(r)\n"
                             "    sch.vectorize(i_1)\n";
    const QString matmulOuterVec = "def apply_trace(sch):\n"
                                   "    block = sch.get_block(\"C\")\n"
                                   "    i, j, k = sch.get_loops(block)\n"
                                   "    j_0, j_1 = sch.split(j, factors=[None, 8])\n"
                                   "    sch.vectorize(j_1)\n";
    QTest::newRow("conv1d, vector loop around unrolled reduction loops") << conv1d << outerVec;
    QTest::newRow("matmul, vector loop around k") << matmul << matmulOuterVec;
    QTest::newRow("matmul unscheduled") << matmul << QString();
    QTest::newRow("matmul tiled, parallel, vectorized") << matmul << tile;
    QTest::newRow("int unscheduled") << ints << QString();
    QTest::newRow("int parallel, vectorized") << ints << intVec;
    QTest::newRow("softmax unscheduled") << softmax << QString();
    QTest::newRow("softmax parallel rows") << softmax << rows;
  }
  void loweredSamplesMatchInterpreter() {
    QFETCH(QString, source);
    QFETCH(QString, script);
    auto func = frontend::parseTe(source.toStdString(), "sample.te");
    QVERIFY2(func.has_value(), func ? "" : func.error().message.c_str());
    PrimFunc scheduled = *func;
    if (!script.isEmpty()) {
      schedule::Schedule sch(*func);
      auto applied = schedule::applyScript(sch, script.toStdString(), "trace.py");
      QVERIFY2(applied.has_value(), applied ? "" : applied.error().message.c_str());
      scheduled = sch.func();
    }
    auto lowered = codegen::lower(scheduled);
    QVERIFY2(lowered.has_value(), lowered ? "" : lowered.error().message.c_str());
    compareWithInterpreter(*lowered, *func, nullptr, {});
  }

  void integerDivisionEdges() { test::checkIntegerDivisionEdges(*m_target, {}); }

  void wideVectorsOfOtherLengthsAreHeldInAPowerOfTwo() {
    // 28 lanes, wider than a float32 register on every host (16 lanes at most): held in
    // 32 lanes, whose last 4 no load or store touches and no division uses: the loads and
    // stores move 16, 8 and 4 lanes, none masked. The vectors run from the end of the
    // buffers backwards, so a store of all 32 lanes would write past the end first and
    // then overwrite elements 28..31 with the held lanes' values.
    const int lanes = 28, n = 56;
    auto A = makeBuffer("A", DataType::float32(), {intImm(n)});
    auto X = makeBuffer("X", DataType::int32(), {intImm(n)});
    auto Y = makeBuffer("Y", DataType::int32(), {intImm(n)});
    auto O = makeBuffer("O", DataType::float32(), {intImm(n)});
    auto Q = makeBuffer("Q", DataType::int32(), {intImm(n)});
    Expr io = var("io"), i = var("i");
    Expr idx = Ramp::make((1 - io) * lanes, intImm(1), lanes);
    Stmt vec = loop(
        io, n / lanes,
        SeqStmt::make(
            {store(O, load(A, idx) * Broadcast::make(floatImm(2), lanes) + Broadcast::make(floatImm(1), lanes), idx),
             store(Q, floordiv(load(X, idx), load(Y, idx)), idx)}));
    Stmt scalar = loop(i, n,
                       SeqStmt::make({store(O, load(A, i) * floatImm(2) + floatImm(1), i),
                                      store(Q, floordiv(load(X, i), load(Y, i)), i)}));
    const LoweredFunc lowered = makeLowered("held_kernel", {A, X, Y, O, Q}, vec);
    auto ir = m_target->source(lowered, "llvm", {});
    QVERIFY2(ir.has_value(), ir ? "" : ir.error().message.c_str());
    QVERIFY2(ir->find("<28 x") == std::string::npos, ir->c_str());
    QVERIFY2(ir->find("@llvm.masked") == std::string::npos, ir->c_str());
    for (const char* piece : {"load <16 x float>", "load <8 x float>", "load <4 x float>", "store <16 x float>",
                              "store <8 x float>", "store <4 x float>", "store <4 x i32>"})
      QVERIFY2(ir->find(piece) != std::string::npos, piece);
    auto kernel = m_target->build(lowered, {});
    QVERIFY2(kernel.has_value(), kernel ? "" : kernel.error().message.c_str());
    std::vector<NDArray> expected;
    for (const Buffer& b : {A, X, Y, O, Q})
      expected.emplace_back(std::vector<std::int64_t>{n}, b->dtype);
    for (int k = 0; k < n; ++k) {
      expected[0].setDouble(k, 0.25 * k - 3);
      expected[1].setInt(k, 1000 - 37 * k);
      expected[2].setInt(k, k % 2 ? -(k % 5 + 1) : k % 7 + 1); // never 0
    }
    std::vector<NDArray> actual;
    for (auto& a : expected)
      actual.push_back(a.clone());
    auto ran = interpret(wrapRoot("held", {A, X, Y, O, Q}, scalar), expected);
    QVERIFY2(ran.has_value(), ran ? "" : ran.error().message.c_str());
    std::vector<void*> pointers;
    for (auto& a : actual)
      pointers.push_back(a.rawData());
    auto run = (*kernel)->run(pointers, {});
    QVERIFY2(run.has_value(), run ? "" : run.error().message.c_str());
    for (int k = 0; k < n; ++k) {
      QCOMPARE(actual[3].getDouble(k), expected[3].getDouble(k));
      QCOMPARE(actual[4].getInt(k), expected[4].getInt(k));
    }
  }

  void paddedLoadsVectorizeAsMaskedLoads_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("lanes");
    QTest::addColumn<QString>("maskedLoad");
    QTest::addColumn<QString>("piece");
    // The padding's columns fall inside the first and the last vector of each row, which
    // read A under a lane mask (at h = 1, w = 0 the unmasked address would be A[-1]).
    QTest::newRow("16 lanes") << 32 << 16 << "@llvm.masked.load.v16f32"
                              << "";
    // Held in 32 lanes: the branch's loads stay masked loads of the held width, their mask
    // false in the held lanes past the last (memoryMask), and the stores go in pieces.
    QTest::newRow("28 lanes held in 32") << 56 << 28 << "@llvm.masked.load.v32f32"
                                         << "store <16 x float>";
  }

  void paddedLoadsVectorizeAsMaskedLoads() {
    // A padded input read under T.if_then_else with w vectorized: masked loads instead of
    // a fall back to a scalar loop; every element of P is compared with the interpreter's.
    QFETCH(int, width);
    QFETCH(int, lanes);
    QFETCH(QString, maskedLoad);
    QFETCH(QString, piece);
    const std::string source =
        fmt::format("from tvm import te\nA = te.placeholder((5, {}), dtype=\"float32\", name=\"A\")\n"
                    "P = te.compute((7, {}), lambda h, w: te.if_then_else(te.all(h >= 1, h < 6, w >= 1, w < {}), "
                    "A[h - 1, w - 1], te.const(0.0, \"float32\")), name=\"P\")\n",
                    width - 2, width, width - 1);
    auto func = frontend::parseTe(source, "pad.te");
    QVERIFY2(func.has_value(), func ? "" : func.error().message.c_str());
    schedule::Schedule sch(*func);
    auto applied = schedule::applyScript(sch,
                                         fmt::format("h, w = sch.get_loops(sch.get_block(\"P\"))\n"
                                                     "w_0, w_1 = sch.split(w, factors=[None, {}])\n"
                                                     "sch.vectorize(w_1)\n",
                                                     lanes),
                                         "trace.py");
    QVERIFY2(applied.has_value(), applied ? "" : applied.error().message.c_str());
    codegen::LowerOptions options;
    options.maskedLoads = m_target->capabilities().maskedLoads;
    QVERIFY(options.maskedLoads);
    auto lowered = codegen::lower(sch.func(), options);
    QVERIFY2(lowered.has_value(), lowered ? "" : lowered.error().message.c_str());
    for (const auto& r : lowered->remarks)
      QVERIFY2(r.message.find("vectorize fell back") == std::string::npos, r.message.c_str());
    auto ir = m_target->source(*lowered, "llvm", {});
    QVERIFY2(ir.has_value(), ir ? "" : ir.error().message.c_str());
    QVERIFY2(ir->find(maskedLoad.toStdString()) != std::string::npos, ir->substr(0, 3000).c_str());
    if (!piece.isEmpty()) QVERIFY2(ir->find(piece.toStdString()) != std::string::npos, ir->substr(0, 3000).c_str());
    compareWithInterpreter(*lowered, *func, nullptr, {});
  }

  void partialRegisterTilesMatchTheInterpreter() {
    // A register tile of 4 rows over 10 (4, 4, 2) with its init: the whole tiles take the
    // unrolled copy, the last the serial one (lower_unswitch.h); every element is checked.
    const char* text = R"(from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((10, 8), "float32"), B: T.Buffer((8, 32), "float32"), C: T.Buffer((10, 32), "float32")):
    for i_0, j_0, k in T.grid(3, 2, 8):
        for i_1 in T.unroll(T.min(3, 9 - i_0 * 4) + 1):
            for j_1 in T.vectorized(16):
                with T.block("C"):
                    vi = T.axis.spatial(10, i_0 * 4 + i_1)
                    vj = T.axis.spatial(32, j_0 * 16 + j_1)
                    vk = T.axis.reduce(8, k)
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";
    const ir::PrimFunc func = testing::parseScript(text);
    auto lowered = codegen::lower(func);
    QVERIFY2(lowered.has_value(), lowered ? "" : lowered.error().message.c_str());
    QCOMPARE(lowered->remarks.size(), std::size_t{1});
    QVERIFY(lowered->remarks[0].message.starts_with("unrolled by 4 where its extent"));
    compareWithInterpreter(*lowered, func, nullptr, {});
  }

  void intermediatesStartAtZero_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("heap");
    QTest::newRow("stack") << 16 << false;
    QTest::newRow("heap") << 4096 << true;
  }
  void intermediatesStartAtZero() {
    // An intermediate read before it is written reads 0, as in the interpreter.
    QFETCH(int, n);
    QFETCH(bool, heap);
    test::checkIntermediatesStartAtZero(*m_target, n, heap ? ir::MemoryScope::Global : ir::MemoryScope::Local, {});
  }

  void smallSamplesMatchInterpreter_data() {
    QTest::addColumn<int>("index");
    QTest::addColumn<bool>("scheduled");
    for (int i = 0; i < static_cast<int>(std::size(test::kSmallSamples)); ++i) {
      QTest::newRow((std::string(test::kSmallSamples[i].name) + " unscheduled").c_str()) << i << false;
      QTest::newRow((std::string(test::kSmallSamples[i].name) + " scheduled").c_str()) << i << true;
    }
  }
  void smallSamplesMatchInterpreter() {
    // Every sample (small_samples.h: the copies tst_cpu_c checks against samples/*.te),
    // unscheduled and with its sample schedule, as tst_cpu_c runs them through cpu-c.
    QFETCH(int, index);
    QFETCH(bool, scheduled);
    const test::Sample& s = test::kSmallSamples[index];
    schedule::Schedule sch(test::parseSample(s.program));
    if (scheduled) {
      auto ok = schedule::applyScript(sch, s.schedule, std::string(s.name) + ".py");
      QVERIFY2(ok.has_value(), ok ? "" : renderDiagnostic(ok.error(), s.schedule).c_str());
    }
    test::checkAgainstInterpreter(*m_target, sch.func(), s.sizes, {});
  }

  void asmUsesTheWidestRegistersForSixteenFloatLanes() {
    Case c = vectorAdd(16, 256);
    auto text = m_target->source(c.lowered, "asm", {});
    QVERIFY2(text.has_value(), text ? "" : text.error().message.c_str());
    const int bits = m_target->capabilities().vectorBits;
    QVERIFY2(bits == 512 || bits == 256, qPrintable(QString("vector bits %1").arg(bits)));
    const std::string widest = bits == 512 ? "%zmm" : "%ymm";
    QVERIFY2(text->find(widest) != std::string::npos, text->substr(0, 2000).c_str());
    if (bits == 256) QVERIFY2(text->find("%zmm") == std::string::npos, text->substr(0, 2000).c_str());
    QVERIFY(text->find("vadd_kernel:") != std::string::npos);
  }

  void fastMathFlagsOnlyWhenAsked() {
    Case c = flatMatmul(ForKind::Serial);
    auto plain = m_target->source(c.lowered, "llvm", {});
    QVERIFY(plain.has_value());
    QVERIFY(plain->find("define void @matmul_kernel(ptr noalias") != std::string::npos);
    QVERIFY(plain->find("fadd float") != std::string::npos || plain->find("fadd <") != std::string::npos);
    QVERIFY2(plain->find(" fast ") == std::string::npos && plain->find("reassoc") == std::string::npos, "fast-math without asking");
    BuildOptions fast;
    fast.fastMath = true;
    auto withFlags = m_target->source(c.lowered, "llvm", fast);
    QVERIFY(withFlags.has_value());
    QVERIFY(withFlags->find("fadd fast") != std::string::npos || withFlags->find("fmul fast") != std::string::npos);
  }

  void parallelLoopCallsRuntime() {
    Case c = flatMatmul(ForKind::Parallel);
    auto ir = m_target->source(c.lowered, "llvm", {});
    QVERIFY(ir.has_value());
    QVERIFY(ir->find("call void @loopscape_parallel_for(i64 13, ptr nonnull @matmul_kernel_i_par0") != std::string::npos);
  }

  void parallelBodyIndexesWithoutSignExtension() {
    // The outlined body counts in the loop variable's type over a chunk clamped to
    // [0, extent): LLVM then proves the int32 index arithmetic exact and addresses in i64
    // directly (it sign-extended every index when the counter came from an i64 argument).
    Case c = flatMatmul(ForKind::Parallel);
    auto ir = m_target->source(c.lowered, "llvm", {});
    QVERIFY(ir.has_value());
    const std::size_t begin = ir->find("define internal void @matmul_kernel_i_par0(");
    QVERIFY(begin != std::string::npos);
    const std::string body = ir->substr(begin, ir->find("\n}\n", begin) - begin);
    QVERIFY2(body.find("sext i32") == std::string::npos, body.c_str());
    QVERIFY2(body.find("fadd float") != std::string::npos || body.find("fadd <") != std::string::npos, body.c_str());
  }

  void refusesThreadBindingAndUnknownFormat() {
    auto X = makeBuffer("X", DataType::float32(), {intImm(4)});
    Expr tx = var("tx");
    Stmt body = For::make(tx, intImm(0), intImm(4), ForKind::ThreadBinding, store(X, floatImm(1), tx), "threadIdx.x");
    auto kernel = m_target->build(makeLowered("gpu_kernel", {X}, body), {});
    QVERIFY(!kernel.has_value());
    QCOMPARE(kernel.error().code, std::string("codegen.thread-binding"));
    QCOMPARE(kernel.error().references.size(), std::size_t(1));
    QCOMPARE(kernel.error().references[0].name, std::string("tx"));
    auto source = m_target->source(makeLowered("k", {X}, store(X, floatImm(1), intImm(0))), "ptx", {});
    QVERIFY(!source.has_value());
    QCOMPARE(source.error().code, std::string("codegen.unknown-format"));
  }

  void sharedLibraryRunsWithTheCAbi() {
    Case c = parallelDynamic();
    BuildOptions options;
    QTemporaryDir dir;
    options.workDir = dir.path().toStdString();
    auto kernel = m_target->build(c.lowered, options);
    QVERIFY(kernel.has_value());
    const std::string path = (*kernel)->libraryPath();
    QVERIFY2(!path.empty() && std::filesystem::exists(path), "no shared library");
    QVERIFY(path.starts_with(options.workDir));
    QCOMPARE((*kernel)->symbol(), std::string("pdyn_kernel"));
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(lib, dlerror());
    using Fn = void (*)(float*, float*, std::int64_t);
    auto fn = reinterpret_cast<Fn>(dlsym(lib, "pdyn_kernel"));
    QVERIFY(fn);
    std::vector<NDArray> expected = makeArgs(c.reference, &c, 3);
    NDArray out = expected[1].clone();
    QVERIFY(interpret(c.reference, expected, c.sizes).has_value());
    fn(expected[0].data<float>(), out.data<float>(), 37);
    QVERIFY(!firstMismatch(out, expected[1], 1e-6, 1e-5));
    dlclose(lib);
    // A second build of the same function reuses the cached library.
    auto again = m_target->build(c.lowered, options);
    QVERIFY(again.has_value());
    QCOMPARE((*again)->libraryPath(), path);
  }
};

QTEST_GUILESS_MAIN(TestCpuLlvm)
#include "tst_cpu_llvm.moc"
