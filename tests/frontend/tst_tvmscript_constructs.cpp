// TVMScript constructs beyond blocks of spatial and reduce iterators, as apache-tvm 0.27
// prints them: T.axis.scan and T.axis.opaque iterators, T.launch_thread (named by a tag
// string, flat or as a with scope, and the older T.env_thread spelling) and T.assume
// (also as T.evaluate(T.assume(...))). Each is read, printed back exactly as TVM prints
// it, and run by the interpreter, which checks assumptions.
#include "core/frontend/tvmscript/tvmscript.h"
#include "core/ir/interpreter.h"
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"

#include <QtTest>

using namespace loopscape;

namespace {

// apache-tvm 0.27's print of a scan and an opaque iterator (T.prim_func(s_tir=True)).
const char* kScanTirx = R"(# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def scan(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    # with T.sblock("root"):
    for i in range(8):
        with T.sblock("B"):
            v = T.axis.scan(8, i)
            T.reads(A[v], B[v - 1])
            T.writes(B[v])
            B[v] = T.if_then_else(v == 0, A[v], B[v - 1] + A[v])
    for i in range(8):
        with T.sblock("C"):
            w = T.axis.opaque(8, i)
            T.reads(A[w])
            T.writes(A[w])
            A[w] = A[w] * T.float32(2.0)
)";

// apache-tvm 0.27's prints of lowered kernels: an assumption, then a launch that is not a
// sole body statement (a with scope) around one that is (flat).
const char* kLaunchTirx = R"(# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def k(A: T.Buffer(("n",), "float32"), B: T.Buffer((n,), "float32")):
    n = T.int32()
    T.assume(n % 128 == 0)
    with T.launch_thread("blockIdx.x", 4) as bx:
        tx = T.launch_thread("threadIdx.x", 32)
        B[bx * 32 + tx] = A[bx * 32 + tx] * T.float32(2.0)
)";

const char* kTwoKernelsTirx = R"(# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def k2(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    with T.launch_thread("blockIdx.x", 4) as bx:
        tx = T.launch_thread("threadIdx.x", 32)
        B[bx * 32 + tx] = A[bx * 32 + tx] * T.float32(2.0)
    with T.launch_thread("blockIdx.x", 4) as bx:
        tx = T.launch_thread("threadIdx.x", 32)
        B[bx * 32 + tx] = B[bx * 32 + tx] + T.float32(1.0)
)";

const char* kSoleLaunchTirx = R"(# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def k1(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 32)
    B[bx * 32 + tx] = A[bx * 32 + tx] * T.float32(2.0)
)";

ir::PrimFunc parse(const std::string& text) {
  auto p = frontend::parseTvmScript(text, "t.py");
  if (!p) qFatal("%s", renderDiagnostic(p.error(), text).c_str());
  return p->module.functions.front();
}

std::string printTirx(const ir::PrimFunc& f) {
  ir::PrintOptions options;
  options.dialect = ir::ScriptDialect::Tirx;
  return ir::printPrimFunc(f, options);
}

std::vector<ir::NDArray> ramps(const ir::PrimFunc& f) {
  std::vector<ir::NDArray> args;
  for (const auto& p : f.params) {
    args.emplace_back(std::vector<std::int64_t>{128}, ir::DataType::float32());
    for (int i = 0; i < 128; ++i)
      args.back().data<float>()[i] = static_cast<float>(i % 8 + 1);
    (void)p;
  }
  return args;
}

} // namespace

class TestTvmScriptConstructs : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void scanAndOpaqueIteratorsPrintAsTvm() {
    const ir::PrimFunc f = parse(kScanTirx);
    QCOMPARE(QString::fromStdString(printTirx(f)), QString::fromUtf8(kScanTirx));
    // The same kinds in the tir dialect, where T.axis.remap cannot say scan or opaque.
    const std::string tir = ir::printPrimFunc(f);
    QVERIFY2(tir.find("v = T.axis.scan(8, i)") != std::string::npos, tir.c_str());
    QVERIFY2(tir.find("w = T.axis.opaque(8, i)") != std::string::npos, tir.c_str());
    QVERIFY(ir::structuralEqual(parse(tir), f));
  }

  void scanIteratorsRunInOrder() {
    const ir::PrimFunc f = parse(kScanTirx);
    std::vector<ir::NDArray> args;
    for (int b = 0; b < 2; ++b) {
      args.emplace_back(std::vector<std::int64_t>{8}, ir::DataType::float32());
      for (int i = 0; i < 8; ++i)
        args.back().data<float>()[i] = b == 0 ? static_cast<float>(i + 1) : -1.0f;
    }
    auto r = ir::interpret(f, args);
    QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
    float sum = 0;
    for (int i = 0; i < 8; ++i) {
      sum += static_cast<float>(i + 1);
      QCOMPARE(args[1].data<float>()[i], sum);                              // prefix sums of the original A
      QCOMPARE(args[0].data<float>()[i], 2.0f * static_cast<float>(i + 1)); // then A doubled
    }
  }

  void launchThreadAndAssumePrintAsTvm() {
    for (const char* text : {kLaunchTirx, kTwoKernelsTirx, kSoleLaunchTirx}) {
      const ir::PrimFunc f = parse(text);
      QCOMPARE(QString::fromStdString(printTirx(f)), QString::fromUtf8(text));
    }
    // A launch is a thread-bound loop from 0 that remembers its spelling.
    const ir::PrimFunc f = parse(kSoleLaunchTirx);
    const auto* bx = f.body.as<ir::BlockRealize>()->blockNode().body.as<ir::For>(); // in the implicit root
    QVERIFY(bx != nullptr);
    QCOMPARE(bx->forKind, ir::ForKind::ThreadBinding);
    QCOMPARE(QString::fromStdString(bx->threadTag), QStringLiteral("blockIdx.x"));
    QVERIFY(bx->annotations.contains(ir::kLaunchThreadAnnotation));
  }

  void olderSpellingsReadTheSame() {
    // TVM before 0.13: T.env_thread declares the thread variable, T.launch_thread(var, n)
    // scopes the rest of the body (or a with body), an assumption is T.evaluate(T.assume(c)).
    const std::string older = R"(@T.prim_func
def k(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,))
    B = T.match_buffer(b, (n,))
    blockIdx_x = T.env_thread("blockIdx.x")
    threadIdx_x = T.env_thread("threadIdx.x")
    T.evaluate(T.assume(n % 128 == 0))
    with T.launch_thread(blockIdx_x, 4):
        T.launch_thread(threadIdx_x, 32)
        B[blockIdx_x * 32 + threadIdx_x] = A[blockIdx_x * 32 + threadIdx_x] * T.float32(2.0)
)";
    const ir::PrimFunc f = parse(older);
    // The tir dialect lets the last statement of a sequence be flat.
    QCOMPARE(QString::fromStdString(ir::printPrimFunc(f)), QStringLiteral(R"(# from tvm.script import tir as T

@T.prim_func
def k(var_A: T.handle, var_B: T.handle):
    n = T.int32()
    A = T.match_buffer(var_A, (n,))
    B = T.match_buffer(var_B, (n,))
    T.assume(n % 128 == 0)
    blockIdx_x = T.launch_thread("blockIdx.x", 4)
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    B[blockIdx_x * 32 + threadIdx_x] = A[blockIdx_x * 32 + threadIdx_x] * T.float32(2)
)"));
  }

  void launchedKernelsRun() {
    const ir::PrimFunc f = parse(kTwoKernelsTirx);
    auto args = ramps(f);
    auto r = ir::interpret(f, args);
    QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
    for (int i = 0; i < 128; ++i)
      QCOMPARE(args[1].data<float>()[i], 2.0f * static_cast<float>(i % 8 + 1) + 1.0f);
  }

  void int64SizesDeclaredAsTypeVars() {
    // apache-tvm 0.27 writes an int64 size of a function as a module-level TypeVar.
    const std::string text = R"(# from typing import TypeVar
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

n = TypeVar("n")
@T.prim_func(private=True)
def main(A: T.Buffer((n, 4), "float32"), B: T.Buffer((n, 4), "float32")):
    for i in range(n):
        B[i, T.int64(0)] = A[i, T.int64(0)]
)";
    const ir::PrimFunc f = parse(text);
    QCOMPARE(f.sizeVars().size(), std::size_t{1});
    QCOMPARE(f.sizeVars().front().dtype(), ir::DataType::int64());
    QCOMPARE(f.params[0]->shape[0].dtype(), ir::DataType::int64());
    // Printed back (as a handle bound by T.match_buffer), it reads as the same function.
    QVERIFY(ir::structuralEqual(parse(printTirx(f)), f));
    std::vector<ir::NDArray> args;
    for (int b = 0; b < 2; ++b) {
      args.emplace_back(std::vector<std::int64_t>{3, 4}, ir::DataType::float32());
      for (int i = 0; i < 12; ++i)
        args.back().data<float>()[i] = b == 0 ? static_cast<float>(i) : -1.0f;
    }
    auto r = ir::interpret(f, args);
    QVERIFY2(r.has_value(), r ? "" : renderDiagnostic(r.error()).c_str());
    QCOMPARE(args[1].data<float>()[4], 4.0f);
    QCOMPARE(args[1].data<float>()[5], -1.0f);
  }

  void assumptionsAreChecked() {
    const ir::PrimFunc f = parse(kLaunchTirx);
    auto args = ramps(f);
    QVERIFY(ir::interpret(f, args).has_value());
    QCOMPARE(args[1].data<float>()[9], 4.0f);
    std::vector<ir::NDArray> shorter;
    for (int b = 0; b < 2; ++b)
      shorter.emplace_back(std::vector<std::int64_t>{64}, ir::DataType::float32());
    auto r = ir::interpret(f, shorter);
    QVERIFY(!r.has_value());
    QCOMPARE(QString::fromStdString(r.error().code), QStringLiteral("interp.assume-violated"));
    QCOMPARE(QString::fromStdString(r.error().message),
             QStringLiteral("T.assume(n % 128 == 0) does not hold in block \"root\""));
  }
};

QTEST_GUILESS_MAIN(TestTvmScriptConstructs)
#include "tst_tvmscript_constructs.moc"
