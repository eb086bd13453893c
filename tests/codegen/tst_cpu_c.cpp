// The cpu-c plugin and the plugin registry: golden C source of a small matmul; every
// sample (small-shape copies from small_samples.h, whose names are checked against
// samples/*.te) unscheduled and with its sample schedule built with cpu-c, run in-process
// and compared with the interpreter (integer programs bit-identical, float within rtol
// 1e-5 / atol 1e-6); intermediate buffers read before written see zeros, as in the
// interpreter; vector statements as GCC vector types only where chunking is exact, with
// wrapping int32 arithmetic; compile errors rendered with the generated line; the
// registry's refusal of wrong-ABI and symbol-less plugins.
//
// Regenerate the golden C file with LS_UPDATE_GOLDEN=1 tst_codegen_cpu_c goldenMatmulC,
// then review the diff by eye.
#include "core/codegen/lower.h"
#include "core/codegen/target_registry.h"
#include "core/frontend/te_frontend.h"
#include "core/ir/interpreter.h"
#include "core/ir/op.h"
#include "core/ir/visitor.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"
#include "small_samples.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace loopscape;

namespace {

/// The process-wide registry (build/plugins beside build/tests).
codegen::TargetRegistry& registry() { return codegen::TargetRegistry::global(); }

codegen::Target& cpuC() {
  auto t = registry().findTarget("cpu-c");
  if (!t) qFatal("%s", renderDiagnostic(t.error()).c_str());
  return **t;
}

/// Build outputs of this test run go to a fresh directory (no stale cache hits).
codegen::BuildOptions buildOptions() {
  static QTemporaryDir dir;
  codegen::BuildOptions o;
  o.workDir = dir.path().toStdString();
  return o;
}

ir::PrimFunc parse(const std::string& text) { return test::parseSample(text); }

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs `func` through cpu-c and through the interpreter (small_samples.h).
void checkAgainstInterpreter(const ir::PrimFunc& func, const ir::SizeBindings& sizes) {
  test::checkAgainstInterpreter(cpuC(), func, sizes, buildOptions());
}

/// "name:dtype" of every parameter and the names of every block, in program order: what
/// a small copy of a sample must share with the real file.
std::vector<std::string> signatureOf(const ir::PrimFunc& f) {
  struct Blocks final : ir::StmtVisitor {
    std::vector<std::string> names;
    void visitBlock(const ir::Block& op, const ir::Stmt& self) override {
      names.push_back("block " + op.name);
      StmtVisitor::visitBlock(op, self);
    }
  } blocks;
  blocks(f.body);
  std::vector<std::string> out;
  for (const auto& p : f.params) out.push_back(p->name + ":" + p->dtype.str());
  out.insert(out.end(), blocks.names.begin(), blocks.names.end());
  return out;
}

class EnvGuard {
public:
  EnvGuard(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    setenv(name, value, 1);
  }
  ~EnvGuard() {
    if (m_old) setenv(m_name, m_old->c_str(), 1);
    else unsetenv(m_name);
  }

private:
  const char* m_name;
  std::optional<std::string> m_old;
};

} // namespace

class TestCpuC : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void registryFindsCpuC() {
    auto t = registry().findTarget("cpu-c");
    QVERIFY(t.has_value());
    QCOMPARE(QString::fromStdString((*t)->name()), QString("cpu-c"));
    QCOMPARE(QString::fromStdString((*t)->deviceKind()), QString("cpu"));
    auto tc = (*t)->toolchain();
    QVERIFY2(tc.usable, tc.message.c_str());
    QVERIFY2(QString::fromStdString(tc.message).contains(" at /"), tc.message.c_str());
    QCOMPARE((*t)->sourceFormats(), (std::vector<std::string>{"c", "asm"}));
    QVERIFY((*t)->capabilities().parallel);
    auto unknown = registry().findTarget("cuda-nope");
    QVERIFY(!unknown);
    QCOMPARE(QString::fromStdString(unknown.error().code), QString("codegen.unknown-target"));
  }

  void goldenMatmulC() {
    const std::string program = R"(from tvm import te
A = te.placeholder((8, 8), dtype="float32", name="A")
B = te.placeholder((8, 8), dtype="float32", name="B")
k = te.reduce_axis((0, 8), name="k")
C = te.compute((8, 8), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
)";
    schedule::Schedule sch(parse(program));
    auto ok = schedule::applyScript(sch, R"(b = sch.get_block("C")
i, j, k = sch.get_loops(b)
sch.reorder(i, k, j)
sch.parallel(i)
sch.vectorize(j)
)", "golden.py");
    QVERIFY(ok.has_value());
    auto lowered = codegen::lower(sch.func());
    QVERIFY(lowered.has_value());
    auto source = cpuC().source(*lowered, "c", buildOptions());
    QVERIFY(source.has_value());
    std::string path = std::string(LS_SOURCE_DIR) + "/tests/codegen/golden/matmul_small.c";
    if (std::getenv("LS_UPDATE_GOLDEN")) {
      std::ofstream(path) << *source;
      QSKIP("golden file rewritten");
    }
    QCOMPARE(QString::fromStdString(*source), QString::fromStdString(readAll(path)));
    // The golden kernel also runs correctly.
    checkAgainstInterpreter(sch.func(), {});
  }

  void asmShowsTheKernel() {
    auto lowered = codegen::lower(parse(test::kSmallSamples[0].program));
    QVERIFY(lowered.has_value());
    auto text = cpuC().source(*lowered, "asm", buildOptions());
    QVERIFY2(text.has_value(), text ? "" : renderDiagnostic(text.error()).c_str());
    QVERIFY2(QString::fromStdString(*text).startsWith("main_kernel:\n"), text->substr(0, 200).c_str());
    QVERIFY(text->find("main_kernel_packed:") != std::string::npos);
    QVERIFY(text->find("\tret") != std::string::npos);
    auto bad = cpuC().source(*lowered, "ptx", buildOptions());
    QVERIFY(!bad);
    QCOMPARE(QString::fromStdString(bad.error().code), QString("codegen.unknown-format"));
  }

  void kernelReportsItsLibrary() {
    auto lowered = codegen::lower(parse(test::kSmallSamples[0].program));
    QVERIFY(lowered.has_value());
    auto kernel = cpuC().build(*lowered, buildOptions());
    QVERIFY(kernel.has_value());
    QCOMPARE(QString::fromStdString((*kernel)->symbol()), QString("main_kernel"));
    QVERIFY(QString::fromStdString((*kernel)->libraryPath()).endsWith(".so"));
    QVERIFY(QFile::exists(QString::fromStdString((*kernel)->libraryPath())));
    std::vector<void*> none;
    auto wrong = (*kernel)->run(none, {});
    QVERIFY(!wrong);
    QCOMPARE(QString::fromStdString(wrong.error().message), QString("main_kernel takes 3 buffers and 0 sizes, got 0 and 0"));
  }

  void smallSamplesCoverEverySample() {
    // Every samples/*.te file has a small copy with the same parameters and blocks.
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(LS_SOURCE_DIR) + "/samples")) {
      if (entry.path().extension() != ".te") continue;
      ++files;
      const std::string name = entry.path().stem().string();
      const test::Sample* copy = nullptr;
      for (const auto& s : test::kSmallSamples)
        if (name == s.name) copy = &s;
      QVERIFY2(copy, ("no small copy of samples/" + name + ".te in small_samples.h").c_str());
      const std::string text = readAll(entry.path().string());
      auto real = frontend::parseTe(text, entry.path().string());
      QVERIFY2(real.has_value(), real ? "" : renderDiagnostic(real.error(), text).c_str());
      QCOMPARE(signatureOf(parse(copy->program)), signatureOf(*real));
    }
    QCOMPARE(files + 1, static_cast<int>(std::size(test::kSmallSamples))); // + the integer program
  }

  void integerDivisionEdges() { test::checkIntegerDivisionEdges(cpuC(), buildOptions()); }

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
    test::checkIntermediatesStartAtZero(cpuC(), n, heap ? ir::MemoryScope::Global : ir::MemoryScope::Local, buildOptions());
  }

  void samples_data() {
    QTest::addColumn<int>("index");
    QTest::addColumn<bool>("scheduled");
    for (int i = 0; i < static_cast<int>(std::size(test::kSmallSamples)); ++i) {
      QTest::newRow((std::string(test::kSmallSamples[i].name) + " unscheduled").c_str()) << i << false;
      QTest::newRow((std::string(test::kSmallSamples[i].name) + " scheduled").c_str()) << i << true;
    }
  }
  void samples() {
    QFETCH(int, index);
    QFETCH(bool, scheduled);
    const test::Sample& s = test::kSmallSamples[index];
    schedule::Schedule sch(parse(s.program));
    if (scheduled) {
      auto ok = schedule::applyScript(sch, s.schedule, std::string(s.name) + ".py");
      QVERIFY2(ok.has_value(), ok ? "" : renderDiagnostic(ok.error(), s.schedule).c_str());
    }
    checkAgainstInterpreter(sch.func(), s.sizes);
  }

  void scheduledSamplesVectorize() {
    // The schedules above really produce vector code (not only fallbacks).
    for (const char* name : {"matmul", "batch_matmul", "conv2d_nchw", "softmax", "int_ops"}) {
      const test::Sample* s = nullptr;
      for (const auto& x : test::kSmallSamples)
        if (std::string_view(x.name) == name) s = &x;
      schedule::Schedule sch(parse(s->program));
      QVERIFY(schedule::applyScript(sch, s->schedule, "s.py").has_value());
      auto lowered = codegen::lower(sch.func());
      QVERIFY(lowered.has_value());
      // No fallback remark (the padding of conv2d_nchw partitions loops, which says so).
      for (const auto& r : lowered->remarks)
        QVERIFY2(r.message.starts_with("partitioned into "), (std::string(name) + ": " + r.message).c_str());
      auto c = cpuC().source(*lowered, "c", buildOptions());
      QVERIFY(c.has_value());
      // Whole-register GCC vector types where the statement allows, omp simd lane loops
      // otherwise; matmul's C tile is float vectors of 8 lanes.
      QVERIFY2(c->find("#pragma omp simd") != std::string::npos || c->find("__attribute__((vector_size(") != std::string::npos,
               name);
      if (std::string_view(name) == "matmul")
        QVERIFY2(c->find("typedef float ls_f32x8 __attribute__((vector_size(32), aligned(4), may_alias));") !=
                     std::string::npos,
                 c->c_str());
    }
  }

  void paddedInteriorVectorizes() {
    // depthwise_conv2d's schedule inlines the padding: i and j_0 are partitioned at the
    // borders, the interior (i in [1, 4), j_0 = 1) stores 4-lane vectors without a select,
    // and only the border copies of j_1 fall back (smallSamplesMatchInterpreter runs it).
    const test::Sample* s = nullptr;
    for (const auto& x : test::kSmallSamples)
      if (std::string_view(x.name) == "depthwise_conv2d") s = &x;
    QVERIFY(s);
    schedule::Schedule sch(parse(s->program));
    QVERIFY(schedule::applyScript(sch, s->schedule, "s.py").has_value());
    auto lowered = codegen::lower(sch.func());
    QVERIFY(lowered.has_value());
    QStringList remarks;
    for (const auto& r : lowered->remarks)
      remarks << QString::fromStdString(r.loop + ": " + r.message);
    const QString partitioned =
        ": each part decides conditions on the loop (padding, borders) that the whole range leaves to every iteration";
    QCOMPARE(remarks, (QStringList{"j_0: partitioned into [0, 1), [1, 2), [2, 3)" + partitioned,
                                   "i: partitioned into [0, 1), [1, 4), [4, 5)" + partitioned,
                                   "j_1: vectorize fell back to a scalar loop: a load sits in a branch of "
                                   "T.if_then_else / T.Select and would be evaluated for every lane"}));
    auto c = cpuC().source(*lowered, "c", buildOptions());
    QVERIFY(c.has_value());
    const QString code = QString::fromStdString(*c);
    // The interior: j_0 = 1 of i in [1, 4), after the border copy j_0 = 0.
    QVERIFY2(
        code.contains("    for (int64_t j_0 = 1; j_0 < 2; ++j_0) {\n"
                      "      // block DepthwiseConv2d (init)\n"
                      "      *(ls_f32x4*)&DepthwiseConv2d[c * 60 + i * 12 + 4] = ((ls_f32x4){} + 0.0f);\n"
                      "      // block DepthwiseConv2d\n"
                      "      *(ls_f32x4*)&DepthwiseConv2d[c * 60 + i * 12 + 4] = *(ls_f32x4*)&DepthwiseConv2d[c * 60 "
                      "+ i * 12 + 4] + *(ls_f32x4*)&Input[c * 60 + i * 12 - 9] * ((ls_f32x4){} + Filter[c * 9]);\n"),
        qPrintable(code));
    QCOMPARE(code.count("for (int64_t j_0 = 1; j_0 < 2; ++j_0) {"), 3); // in each part of i
  }

  void vectorTypesWrapIntegers() {
    // An int32 statement of + and * on loads becomes GCC vector types; its products
    // overflow int32 and must wrap exactly as in the interpreter.
    schedule::Schedule sch(parse(R"(from tvm import te
A = te.placeholder((4, 32), dtype="int32", name="A")
W = te.compute((4, 32), lambda i, j: A[i, j] * 1000003 * A[i, j] + A[i, j] * 2147483647 - 5, name="W")
)"));
    QVERIFY(schedule::applyScript(sch, R"(w = sch.get_block("W")
i, j = sch.get_loops(w)
sch.parallel(i)
sch.vectorize(j)
)", "w.py").has_value());
    auto lowered = codegen::lower(sch.func());
    QVERIFY(lowered.has_value());
    auto c = cpuC().source(*lowered, "c", buildOptions());
    QVERIFY(c.has_value());
    QVERIFY2(c->find("typedef int32_t ls_i32x16 __attribute__((vector_size(64), aligned(4), may_alias));") !=
                 std::string::npos,
             c->c_str());
    QVERIFY2(c->find("#pragma omp simd") == std::string::npos, c->c_str());
    checkAgainstInterpreter(sch.func(), {});
  }

  void vectorTypesOnlyWhereChunksCannotInterfere() {
    // X[1:17] = X[0:16] + 1 reads elements the same statement writes: as two 8-lane
    // chunks the second would read what the first wrote, so it stays an omp simd loop.
    using namespace ir;
    auto X = makeBuffer("X", DataType::float32(), {intImm(32)});
    auto ramp = [](std::int64_t base) { return Ramp::make(intImm(base), intImm(1), 16); };
    codegen::LoweredFunc f;
    f.name = "shift_kernel";
    f.params = f.flatParams = {X};
    f.body = BufferStore::make(X, BufferLoad::make(X, {ramp(0)}) + Broadcast::make(floatImm(1), 16), {ramp(1)});
    auto shifted = cpuC().source(f, "c", buildOptions());
    QVERIFY(shifted.has_value());
    QVERIFY2(shifted->find("#pragma omp simd") != std::string::npos && shifted->find("vector_size") == std::string::npos,
             shifted->c_str());
    // The same statement in place (X[0:16] = X[0:16] + 1) uses vector types.
    f.body = BufferStore::make(X, BufferLoad::make(X, {ramp(0)}) + Broadcast::make(floatImm(1), 16), {ramp(0)});
    auto inPlace = cpuC().source(f, "c", buildOptions());
    QVERIFY(inPlace.has_value());
    QVERIFY2(inPlace->find("  *(ls_f32x16*)&X[0] = *(ls_f32x16*)&X[0] + ((ls_f32x16){} + 1.0f);\n") != std::string::npos,
             inPlace->c_str());
  }

  void parallelBodyGetsWhatItUses() {
    // The outlined body of a parallel loop receives every buffer and variable it uses,
    // including a size variable that only a heap allocation's extent names.
    using namespace ir;
    Expr n = Var::make("n", DataType::int64());
    auto A = makeBuffer("A", DataType::float32(), {intImm(16, DataType::int64())});
    auto Out = makeBuffer("Out", DataType::float32(), {intImm(16, DataType::int64())});
    auto T = makeBuffer("T", DataType::float32(), {n}, MemoryScope::Global);
    Expr r = Var::make("r", DataType::int64()), t = Var::make("t", DataType::int64());
    auto I = [](std::int64_t v) { return intImm(v, DataType::int64()); };
    Stmt fill = For::make(t, I(0), I(4), ForKind::Serial, BufferStore::make(T, BufferLoad::make(A, {r * I(4) + t}), {t}));
    Stmt use = For::make(t, I(0), I(4), ForKind::Serial,
                         BufferStore::make(Out, BufferLoad::make(T, {t}) * floatImm(2), {r * I(4) + t}));
    codegen::LoweredFunc f;
    f.name = "par_kernel";
    f.params = f.flatParams = {A, Out};
    f.sizeVars = {n};
    f.body = For::make(r, I(0), I(4), ForKind::Parallel, Allocate::make(T, SeqStmt::make({fill, use})));
    auto c = cpuC().source(f, "c", buildOptions());
    QVERIFY(c.has_value());
    QVERIFY2(c->find("static void par_kernel_par0(float* restrict A, float* restrict Out, int64_t r, int64_t n) {\n") !=
                 std::string::npos,
             c->c_str());
    auto kernel = cpuC().build(f, buildOptions());
    QVERIFY2(kernel.has_value(), kernel ? "" : renderDiagnostic(kernel.error()).c_str());
    NDArray a({16}, DataType::float32()), out({16}, DataType::float32());
    a.fillRandom(3);
    std::vector<void*> pointers = {a.rawData(), out.rawData()};
    const std::vector<std::int64_t> sizes = {4};
    QVERIFY((*kernel)->run(pointers, sizes).has_value());
    for (int k = 0; k < 16; ++k) QCOMPARE(out.data<float>()[k], a.data<float>()[k] * 2);
  }

  void intermediatesAllocatedByScope() {
    // A Local buffer of constant size up to 64 KiB lives on the stack (an aligned array);
    // a larger Local one and any Global one on the aligned heap. All start at zero, and
    // the kernel computes the same result either way, through cpu-c and cpu-llvm (whose
    // printed IR is optimised: its alloca and heap calls are gone in so small a kernel).
    using namespace ir;
    auto I = [](std::int64_t v) { return intImm(v, DataType::int64()); };
    struct Case {
      std::int64_t elements;
      MemoryScope scope;
      const char* cDecl;
    };
    const Case cases[] = {
        {16, MemoryScope::Local, "  float T[16] __attribute__((aligned(64)));\n"},
        {16384, MemoryScope::Local, "  float T[16384] __attribute__((aligned(64)));\n"},
        {16385, MemoryScope::Local, "  float* restrict T = (float*)ls_alloc((int64_t)16385 * 4);\n"},
        {16, MemoryScope::Global, "  float* restrict T = (float*)ls_alloc((int64_t)16 * 4);\n"},
    };
    auto llvm = registry().findTarget("cpu-llvm");
    QVERIFY2(llvm.has_value(), llvm ? "" : renderDiagnostic(llvm.error()).c_str());
    for (const Case& c : cases) {
      auto A = makeBuffer("A", DataType::float32(), {I(16)});
      auto Out = makeBuffer("Out", DataType::float32(), {I(16)});
      auto T = makeBuffer("T", DataType::float32(), {I(c.elements)}, c.scope);
      Expr t = Var::make("t", DataType::int64());
      // T[t] += A[t] (T starts at zero), then Out[t] = T[t] * 2.
      Stmt fill = For::make(t, I(0), I(16), ForKind::Serial,
                            BufferStore::make(T, BufferLoad::make(T, {t}) + BufferLoad::make(A, {t}), {t}));
      Stmt use = For::make(t, I(0), I(16), ForKind::Serial,
                           BufferStore::make(Out, BufferLoad::make(T, {t}) * floatImm(2), {t}));
      codegen::LoweredFunc f;
      f.name = "alloc_kernel";
      f.params = f.flatParams = {A, Out};
      f.body = Allocate::make(T, SeqStmt::make({fill, use}));
      auto csrc = cpuC().source(f, "c", buildOptions());
      QVERIFY(csrc.has_value());
      QVERIFY2(csrc->find(c.cDecl) != std::string::npos, csrc->c_str());
      for (codegen::Target* target : {&cpuC(), *llvm}) {
        auto kernel = target->build(f, buildOptions());
        QVERIFY2(kernel.has_value(), kernel ? "" : renderDiagnostic(kernel.error()).c_str());
        NDArray a({16}, DataType::float32()), out({16}, DataType::float32());
        a.fillRandom(5);
        std::vector<void*> pointers = {a.rawData(), out.rawData()};
        QVERIFY((*kernel)->run(pointers, {}).has_value());
        for (int k = 0; k < 16; ++k) QCOMPARE(out.data<float>()[k], a.data<float>()[k] * 2);
      }
    }
  }

  void compileErrorShowsGeneratedLine() {
    EnvGuard hook("LOOPSCAPE_CPU_C_TEST_BREAK_SOURCE", "1");
    auto lowered = codegen::lower(parse(test::kSmallSamples[0].program));
    QVERIFY(lowered.has_value());
    auto kernel = cpuC().build(*lowered, buildOptions());
    QVERIFY(!kernel);
    const Diagnostic& d = kernel.error();
    QCOMPARE(QString::fromStdString(d.code), QString("cpu-c.compile-error"));
    QVERIFY2(QString::fromStdString(d.message)
                 .startsWith("the C compiler rejected the generated code: 'ls_test_broken_statement' undeclared"),
             d.message.c_str());
    auto source = cpuC().source(*lowered, "c", buildOptions());
    QVERIFY(source.has_value());
    // The location is the generated line holding the broken statement.
    std::stringstream ss(*source);
    std::string line;
    int lineNo = 0, brokenLine = 0;
    while (std::getline(ss, line)) {
      ++lineNo;
      if (line.find("ls_test_broken_statement;") != std::string::npos) brokenLine = lineNo;
    }
    QVERIFY(brokenLine > 0);
    QCOMPARE(d.location.line, brokenLine);
    QVERIFY(QString::fromStdString(d.location.file).endsWith(".c"));
    QCOMPARE(QString::fromStdString(d.notes.at(0)),
             QString("generated line %1:       ls_test_broken_statement;").arg(brokenLine));
    // Rendered against the generated source, the line and a caret appear.
    QString rendered = QString::fromStdString(renderDiagnostic(d, *source));
    QVERIFY2(rendered.contains("ls_test_broken_statement;\n") && rendered.contains("^"), qPrintable(rendered));
  }

  void registryRefusesWrongAbi() {
    EnvGuard path("LOOPSCAPE_PLUGIN_PATH", LS_TEST_PLUGIN_DIR);
    auto dirs = codegen::TargetRegistry::defaultSearchDirs();
    QCOMPARE(QString::fromStdString(dirs.back()), QString(LS_TEST_PLUGIN_DIR));
    codegen::TargetRegistry reg(dirs);
    const codegen::PluginInfo* bad = nullptr;
    const codegen::PluginInfo* noFactory = nullptr;
    for (const auto& p : reg.plugins()) {
      if (p.name == "bad-abi") bad = &p;
      if (p.name == "no-factory") noFactory = &p;
    }
    QVERIFY(bad && noFactory);
    QVERIFY(!bad->enabled);
    QVERIFY(bad->target == nullptr);
    QCOMPARE(QString::fromStdString(bad->error.code), QString("codegen.plugin-abi-mismatch"));
    QCOMPARE(QString::fromStdString(bad->error.message),
             QString("plugin 'loopscape-target-bad-abi.so' has ABI version %1, but loopscape expects %2")
                 .arg(codegen::kTargetAbiVersion + 41)
                 .arg(codegen::kTargetAbiVersion));
    QVERIFY(!noFactory->enabled);
    QCOMPARE(QString::fromStdString(noFactory->error.code), QString("codegen.plugin-missing-symbol"));
    QCOMPARE(QString::fromStdString(noFactory->error.message),
             QString("plugin 'loopscape-target-no-factory.so' does not export loopscape_create_target"));
    auto found = reg.findTarget("bad-abi");
    QVERIFY(!found);
    QCOMPARE(QString::fromStdString(found.error().code), QString("codegen.plugin-abi-mismatch"));
  }
};

QTEST_GUILESS_MAIN(TestCpuC)
#include "tst_cpu_c.moc"
