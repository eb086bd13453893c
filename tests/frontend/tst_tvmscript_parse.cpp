// TVMScript as TVM prints it (0.18's tir dialect and 0.25-0.27's tirx dialect), modules
// with several functions, the spellings the printer does not use, block regions inferred
// when T.reads/T.writes are left out, and located errors with their exact messages.
#include "core/frontend/te_frontend.h"
#include "core/frontend/tvmscript/tvmscript.h"
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"

#include <QtTest>

using namespace loopscape;

namespace {

const char* kMatmulTe = "A = placeholder((128, 128), name=\"A\")\n"
                        "B = placeholder((128, 128), name=\"B\")\n"
                        "k = reduce_axis((0, 128), name=\"k\")\n"
                        "C = compute((128, 128), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";

// matmul as apache-tvm 0.27 prints te.create_prim_func of the definition above.
const char* kMatmulTirx = R"(# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j, k in T.grid(128, 128, 128):
        with T.sblock("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0.0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
)";

ir::PrimFunc te(const char* source) {
  auto f = frontend::parseTe(source, "t.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), source).c_str());
  return *f;
}

frontend::TvmScriptProgram parse(const std::string& text) {
  auto p = frontend::parseTvmScript(text, "t.py");
  if (!p) qFatal("%s", renderDiagnostic(p.error(), text).c_str());
  return *p;
}

} // namespace

class TestTvmScriptParse : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void tirxDialectEqualsTheTeProgram() {
    auto p = parse(kMatmulTirx);
    QVERIFY(p.dialect == frontend::TvmScriptDialect::Tirx);
    QVERIFY(ir::structuralEqual(p.module.functions.front(), te(kMatmulTe)));
  }

  void tirDialectWithoutImportsOrRegions() {
    // TVM 0.18's spelling, pasted without its import line, regions left to inference,
    // `range` loops and the older T.Buffer[...] annotation.
    const std::string text = R"(@T.prim_func
def main(A: T.Buffer[(128, 128), "float32"], B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in range(128):
        for j in range(128):
            for k in range(128):
                with T.block("C"):
                    v_i = T.axis.spatial(128, i)
                    v_j = T.axis.spatial(128, j)
                    v_k = T.axis.reduce(128, k)
                    with T.init():
                        C[v_i, v_j] = T.float32(0)
                    C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
)";
    auto p = parse(text);
    QVERIFY(p.dialect == frontend::TvmScriptDialect::Tir);
    QVERIFY(ir::structuralEqual(p.module.functions.front(), te(kMatmulTe)));
  }

  void symbolicShapesAsStrings() {
    // TVM prints a symbolic extent in a parameter annotation as a string.
    const std::string text = R"(@T.prim_func
def main(A: T.Buffer(("n", 4), "float32"), B: T.Buffer(("n", 4), "float32")):
    n = T.int32()
    for i, j in T.grid(n, 4):
        with T.block("B"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            B[v_i, v_j] = A[v_i, v_j] * 2.0
)";
    auto f = parse(text).module.functions.front();
    QCOMPARE(f.sizeVars().size(), std::size_t(1));
    QCOMPARE(ir::printPrimFunc(f), std::string(R"(# from tvm.script import tir as T

@T.prim_func
def main(var_A: T.handle, var_B: T.handle):
    n = T.int32()
    A = T.match_buffer(var_A, (n, 4))
    B = T.match_buffer(var_B, (n, 4))
    # with T.block("root"):
    for i, j in T.grid(n, 4):
        with T.block("B"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j])
            T.writes(B[v_i, v_j])
            B[v_i, v_j] = A[v_i, v_j] * T.float32(2)
)"));
  }

  void sizesNamedInTheSignatureDeclaredAfterIt() {
    // TVM 0.27 names a size by a string at its first use in the signature and by name
    // after it, and declares it afterwards: as a scalar parameter, or in the body, several
    // at once, with their integer type.
    const std::string scalarParam = R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, "n"), "float32"), B: T.Buffer((128, n), "float32"), n: T.int32):
    for i, j in T.grid(128, n):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";
    auto f = parse(scalarParam).module.functions.front();
    QCOMPARE(f.sizeVars().size(), std::size_t(1));
    QVERIFY(f.params[0]->shape[1].sameAs(f.params[1]->shape[1]));
    const std::string declaredInBody = R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer(("N", 128, "M"), "float32"), B: T.Buffer((N, 128, M), "float32")):
    N, M = T.int64(), T.int32()
    for i, j, k in T.grid(N, 128, M):
        with T.sblock("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk]
)";
    auto g = parse(declaredInBody).module.functions.front();
    QCOMPARE(g.sizeVars().size(), std::size_t(2));
    QCOMPARE(g.params[1]->shape[0].dtype().str(), std::string("int64"));
    QVERIFY(g.params[0]->shape[0].sameAs(g.params[1]->shape[0]));
    QVERIFY(g.params[0]->shape[2].sameAs(g.params[1]->shape[2]));
  }

  void inferredRegionsHullConstantOffsets() {
    const std::string text = R"(@T.prim_func
def main(A: T.Buffer((10,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            v = T.axis.spatial(8, i)
            B[v] = A[v] + A[v + 1] + A[v + 2]
)";
    const std::string printed = ir::printPrimFunc(parse(text).module.functions.front());
    QVERIFY2(printed.find("            T.reads(A[v:v + 3])\n            T.writes(B[v])\n") != std::string::npos,
             printed.c_str());
  }

  void irModuleWithSeveralFunctions() {
    const std::string text = R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def scale(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in T.serial(4, annotations={"pragma_unroll": 1}):
            with T.block("B"):
                v = T.axis.spatial(4, i)
                T.reads(A[v])
                T.writes(B[v])
                B[v] = A[v] * T.float32(3)

    @T.prim_func
    def main(A: T.Buffer((4,), "int64"), B: T.Buffer((4,), "int64")):
        for i in T.parallel(4):
            with T.block("B"):
                v = T.axis.spatial(4, i)
                B[v] = T.max(A[v], T.int64(0))
)";
    auto p = parse(text);
    QCOMPARE(p.module.functions.size(), std::size_t(2));
    auto main = frontend::selectFunction(p, "", "t.py");
    QVERIFY(main.has_value());
    QCOMPARE(main->name, std::string("main"));
    auto scale = frontend::selectFunction(p, "scale", "t.py");
    QVERIFY(scale.has_value());
    QVERIFY(ir::printPrimFunc(*scale).find("for i in T.serial(4, annotations={\"pragma_unroll\": 1}):") !=
            std::string::npos);
    auto missing = frontend::selectFunction(p, "nope", "t.py");
    QVERIFY(!missing.has_value());
    QCOMPARE(missing.error().message,
             std::string("t.py: no function 'nope' in the module (it has scale, main); choose one with --func NAME"));
  }

  void tvmFloatLiteralsAndCasts() {
    const std::string text = R"(@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float16"), C: T.Buffer((4,), "int32")):
    for i in range(4):
        with T.block("B"):
            v = T.axis.spatial(4, i)
            B[v] = T.Cast("float16", T.max(A[v], T.float32(-340282346638528859811704183484516925440.0)))
            C[v] = T.if_then_else(v < 2, T.Cast("int32", A[v]), T.floordiv(v, 2) - 1)
)";
    const std::string printed = ir::printPrimFunc(parse(text).module.functions.front());
    QVERIFY2(printed.find("T.max(A[v], T.float32(-3.4028235e+38))") != std::string::npos, printed.c_str());
    QVERIFY2(printed.find("v // 2 - 1") != std::string::npos, printed.c_str());
  }

  void letsLimitsAndDtypeKeywords() {
    // `x: T.int32 = ...` / `x: T.let[T.float32] = ...` bind a LetStmt over the rest of the
    // body; T.min_value/T.max_value are the type's limits; dtype= fixes the type of
    // T.if_then_else and of an intrinsic's literal arguments; T.sblock_attr is read.
    const std::string text = R"(@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("B"):
            v = T.axis.spatial(4, i)
            T.sblock_attr({"meta_schedule.tiling_structure": "SSRSRS"})
            w: T.int32 = v * 2
            m: T.let[T.float32] = T.max(A[v], T.min_value("float32"))
            B[v] = T.if_then_else(w < 4, m, T.float32(1), dtype="float32") + T.exp(1, dtype="float32")
)";
    const std::string printed = ir::printPrimFunc(parse(text).module.functions.front());
    QVERIFY2(printed.find("w: T.int32 = v * 2") != std::string::npos, printed.c_str());
    QVERIFY2(printed.find("T.max(A[v], T.float32(-3.4028235e+38))") != std::string::npos, printed.c_str());
    QVERIFY2(printed.find("T.exp(T.float32(1") != std::string::npos, printed.c_str());
  }

  void errors_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("rendered");
    const QString head = "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n";
    const QString loop = "    for i in range(4):\n        with T.block(\"B\"):\n            v = T.axis.spatial(4, i)\n";
    QTest::newRow("undefined name") << head + loop + "            B[v] = A[w]\n"
                                    << "t.py:6:22: error: name 'w' is not defined\n"
                                       "              B[v] = A[w]\n"
                                       "                       ^\n";
    QTest::newRow("rank mismatch") << head + loop + "            B[v] = A[v, 0]\n"
                                   << "t.py:6:20: error: buffer 'A' has 1 dimension, indexed with 2\n"
                                      "              B[v] = A[v, 0]\n"
                                      "                     ^~~~~~~\n";
    QTest::newRow("unknown T function")
        << head + loop + "            B[v] = T.frobnicate(A[v])\n"
        << "t.py:6:20: error: T.frobnicate is not a TIR expression function Loopscape reads\n"
           "              B[v] = T.frobnicate(A[v])\n"
           "                     ^~~~~~~~~~~~\n";
    QTest::newRow("wrong argument count") << head + loop + "            B[v] = T.exp(A[v], A[v])\n"
                                          << "t.py:6:20: error: T.exp takes 1 positional argument, got 2\n"
                                             "              B[v] = T.exp(A[v], A[v])\n"
                                             "                     ^~~~~~~~~~~~~~~~~\n";
    QTest::newRow("type mismatch")
        << head + loop + "            B[v] = A[v] + v\n"
        << "t.py:6:20: error: operands of '+' have different types: float32 and int32; convert one with T.Cast\n"
           "              B[v] = A[v] + v\n"
           "                     ^~~~~~~~\n";
    QTest::newRow("store of another type")
        << head + loop + "            B[v] = T.Cast(\"float64\", A[v])\n"
        << "t.py:6:20: error: storing a float64 value into float32 buffer 'B'; convert it with T.Cast\n"
           "              B[v] = T.Cast(\"float64\", A[v])\n"
           "                     ^~~~~~~~~~~~~~~~~~~~~~~\n";
    QTest::newRow("buffer as value") << head + loop + "            B[v] = A\n"
                                     << "t.py:6:20: error: buffer 'A' is used as a value; index it (A[...])\n"
                                        "              B[v] = A\n"
                                        "                     ^\n";
    QTest::newRow("remap of a non-loop")
        << head + "    for i in range(4):\n        with T.block(\"B\"):\n"
                  "            v, = T.axis.remap(\"S\", [i + 1])\n            B[v] = A[v]\n"
        << "t.py:5:37: error: T.axis.remap binds iterators to enclosing loop variables; this is not one\n"
           "              v, = T.axis.remap(\"S\", [i + 1])\n"
           "                                      ^~~~~\n";
    QTest::newRow("unknown dtype")
        << QString("@T.prim_func\ndef main(A: T.Buffer((4,), \"float31\")):\n    T.evaluate(0)\n")
        << "t.py:2:28: error: unknown dtype 'float31'\n"
           "  def main(A: T.Buffer((4,), \"float31\")):\n"
           "                             ^~~~~~~~~\n";
    QTest::newRow("handle without match_buffer")
        << QString("@T.prim_func\ndef main(a: T.handle):\n    T.evaluate(0)\n")
        << "t.py:2:5: error: parameter 'a' is a T.handle that no T.match_buffer binds\n"
           "  def main(a: T.handle):\n"
           "      ^~~~\n";
    QTest::newRow("not a prim_func") << QString("def main(A):\n    pass\n")
                                     << "t.py:1:5: error: function 'main' is not a @T.prim_func\n"
                                        "  def main(A):\n"
                                        "      ^~~~\n";
    QTest::newRow("no function") << QString("from tvm.script import tir as T\n")
                                 << "t.py:1:1: error: the file defines no @T.prim_func function\n"
                                    "  from tvm.script import tir as T\n"
                                    "  ^\n";
    QTest::newRow("python conditional")
        << head + loop + "            B[v] = A[v] if v < 2 else A[0]\n"
        << "t.py:6:20: error: Python's `a if c else b` is not TIR: write T.if_then_else(c, a, b) or T.Select(c, a, b)\n"
           "              B[v] = A[v] if v < 2 else A[0]\n"
           "                     ^~~~~~~~~~~~~~~~~~~~~~~\n";
    QTest::newRow("grid arity") << head + "    for i, j in T.grid(4):\n        T.evaluate(0)\n"
                                << "t.py:3:17: error: T.grid has 1 extents for 2 loop variables\n"
                                   "      for i, j in T.grid(4):\n"
                                   "                  ^~~~~~~~~\n";
    QTest::newRow("slice in an expression") << head + loop + "            B[v] = A[0:2]\n"
                                            << "t.py:6:22: error: a slice of 'A' is a region, allowed only in T.reads "
                                               "and T.writes; index one element here\n"
                                               "              B[v] = A[0:2]\n"
                                               "                       ^~~\n";
    QTest::newRow("reads after a statement")
        << head + loop + "            B[v] = A[v]\n            T.reads(A[v])\n"
        << "t.py:7:13: error: T.reads appears only at the start of a block, before its statements\n"
           "              T.reads(A[v])\n"
           "              ^~~~~~~~~~~~~\n";
    QTest::newRow("unknown keyword") << head + "    for i in T.serial(4, step=2):\n        T.evaluate(0)\n"
                                     << "t.py:3:26: error: T.serial has no argument 'step'\n"
                                        "      for i in T.serial(4, step=2):\n"
                                        "                           ^~~~\n";
    QTest::newRow("match_buffer in a block")
        << head + loop + "            X = T.match_buffer(A[0:2], (2,))\n            B[v] = A[v]\n"
        << "t.py:6:17: error: T.match_buffer appears only at the top of a function's body (a block's match "
           "buffers are not supported)\n"
           "              X = T.match_buffer(A[0:2], (2,))\n"
           "                  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~\n";
    QTest::newRow("let of a buffer type") << head + loop + "            x: T.Buffer = A[v]\n            B[v] = x\n"
                                          << "t.py:6:16: error: the annotation of a let must be a scalar type such as "
                                             "T.int32 or T.let[T.float32]\n"
                                             "              x: T.Buffer = A[v]\n"
                                             "                 ^~~~~~~~\n";
    QTest::newRow("let of another type") << head + loop + "            x: T.int32 = A[v]\n            B[v] = A[v]\n"
                                         << "t.py:6:26: error: 'x' is declared int32 but its value is float32\n"
                                            "              x: T.int32 = A[v]\n"
                                            "                           ^~~~\n";
    QTest::newRow("undeclared size in a shape")
        << QString("@T.prim_func\ndef main(A: T.Buffer((m, 4), \"float32\")):\n    T.evaluate(0)\n")
        << "t.py:2:23: error: name 'm' is not defined\n"
           "  def main(A: T.Buffer((m, 4), \"float32\")):\n"
           "                        ^\n";
    QTest::newRow("tuple assignment of values")
        << head + "    N, M = T.int32(), A[0]\n    T.evaluate(0)\n"
        << "t.py:3:23: error: a tuple assignment declares size variables only (N, M = T.int32(), T.int32())\n"
           "      N, M = T.int32(), A[0]\n"
           "                        ^~~~\n";
    QTest::newRow("unknown iterator kind")
        << head + "    for i in range(4):\n        with T.block(\"B\"):\n            v = T.axis.frob(4, i)\n           "
                  " B[v] = A[v]\n"
        << "t.py:5:17: error: unknown iterator kind T.axis.frob (expected spatial, reduce, scan, opaque or remap)\n"
           "              v = T.axis.frob(4, i)\n"
           "                  ^~~~~~~~~~~~~~~~~\n";
    QTest::newRow("remap of a scan kind")
        << head + "    for i in range(4):\n        with T.block(\"B\"):\n"
                  "            v, = T.axis.remap(\"C\", [i])\n            B[v] = A[v]\n"
        << "t.py:5:31: error: iterator kind 'C' of T.axis.remap: expected S or R\n"
           "              v, = T.axis.remap(\"C\", [i])\n"
           "                                ^~~\n";
    QTest::newRow("launch of a buffer")
        << head + "    bx = T.launch_thread(A, 4)\n    B[bx] = A[bx]\n"
        << "t.py:3:26: error: T.launch_thread takes a thread tag (\"threadIdx.x\") or a "
           "variable from T.env_thread\n"
           "      bx = T.launch_thread(A, 4)\n"
           "                           ^\n";
    QTest::newRow("thread variable before its launch")
        << head + "    bx = T.env_thread(\"blockIdx.x\")\n    B[bx] = A[0]\n"
        << "t.py:4:7: error: thread variable 'bx' is used outside T.launch_thread(bx, ...)\n"
           "      B[bx] = A[0]\n"
           "        ^~\n";
    QTest::newRow("assumption of a float") << head + "    T.assume(A[0])\n    B[0] = A[0]\n"
                                           << "t.py:3:14: error: T.assume must be a bool, got float32\n"
                                              "      T.assume(A[0])\n"
                                              "               ^~~~\n";
    QTest::newRow("launch without extent") << head + "    bx = T.launch_thread(\"blockIdx.x\")\n    B[bx] = A[bx]\n"
                                           << "t.py:3:10: error: T.launch_thread takes 2 positional arguments, got 1\n"
                                              "      bx = T.launch_thread(\"blockIdx.x\")\n"
                                              "           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n";
    QTest::newRow("launch renamed")
        << head +
               "    tx = T.env_thread(\"threadIdx.x\")\n    with T.launch_thread(tx, 4) as ty:\n        B[ty] = A[ty]\n"
        << "t.py:4:36: error: T.launch_thread(tx, ...) is named 'ty'\n"
           "      with T.launch_thread(tx, 4) as ty:\n"
           "                                     ^~\n";
    QTest::newRow("empty thread tag") << head + "    tx = T.launch_thread(\"\", 4)\n    B[tx] = A[tx]\n"
                                      << "t.py:3:26: error: the thread tag must not be empty\n"
                                         "      tx = T.launch_thread(\"\", 4)\n"
                                         "                           ^~\n";
    QTest::newRow("syntax error") << head + "    for i in range(4)\n        T.evaluate(0)\n"
                                  << "t.py:3:22: error: expected ':', found end of line\n"
                                     "      for i in range(4)\n"
                                     "                       ^\n";
  }

  void errors() {
    QFETCH(QString, source);
    QFETCH(QString, rendered);
    const std::string text = source.toStdString();
    auto p = frontend::parseTvmScript(text, "t.py");
    QVERIFY(!p.has_value());
    QCOMPARE(QString::fromStdString(renderDiagnostic(p.error(), text)), rendered);
  }
};

QTEST_GUILESS_MAIN(TestTvmScriptParse)
#include "tst_tvmscript_parse.moc"
