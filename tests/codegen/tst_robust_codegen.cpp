// Code generation hygiene and bounded work (issue 13): identifiers that C, its headers or
// the kernel runtime already define (a placeholder named INFINITY compiled to a crashing
// kernel, NULL or __asm__ did not compile) are renamed, and unrolling is capped by
// ResourceLimits::maxUnrolledStatements (a 2^31-iteration unroll exhausted memory): the
// loop stays a serial loop with a remark, as TVM's auto_unroll_max_step leaves long loops.
// Each kernel is run by cpu-c and cpu-llvm and compared with the interpreter.
#include "core/codegen/lower.h"
#include "core/codegen/target_registry.h"
#include "core/ir/resource_limits.h"
#include "core/ir/visitor.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"
#include "small_samples.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace loopscape;

namespace {

codegen::BuildOptions buildOptions() {
  static QTemporaryDir dir;
  codegen::BuildOptions o;
  o.workDir = dir.path().toStdString();
  return o;
}

codegen::Target* target(const char* name) {
  auto t = codegen::TargetRegistry::global().findTarget(name);
  return t ? *t : nullptr;
}

/// `B = name[i] * 2` with the placeholder called `name`.
ir::PrimFunc placeholderNamed(const std::string& name) {
  return test::parseSample("from tvm import te\n" + name + " = te.placeholder((4,), name=\"" + name +
                           "\")\nB = te.compute((4,), lambda i: " + name + "[i] * 2.0, name=\"B\")\n");
}

/// The program with `script` applied.
ir::PrimFunc scheduled(const std::string& source, const std::string& script) {
  schedule::Schedule sch(test::parseSample(source));
  auto ok = schedule::applyScript(sch, script, "t.py");
  if (!ok) qFatal("%s", ok.error().message.c_str());
  return sch.func();
}

int countLoops(const ir::Stmt& s) {
  struct Counter final : ir::StmtVisitor {
    int n = 0;
    void visitFor(const ir::For& op, const ir::Stmt& self) override {
      ++n;
      StmtVisitor::visitFor(op, self);
    }
  } c;
  c(s);
  return c.n;
}

const char* const kLongReduction = "from tvm import te\n"
                                   "A = te.placeholder((4,), name=\"A\")\n"
                                   "k = te.reduce_axis((0, 2147483647), name=\"k\")\n"
                                   "B = te.compute((4,), lambda i: te.sum(A[i], axis=k), name=\"B\")\n";

} // namespace

class TestRobustCodegen : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void reservedNamesAreMangled_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("identifier");
    QTest::newRow("INFINITY") << "INFINITY"
                              << "v_INFINITY";
    QTest::newRow("NULL") << "NULL"
                          << "v_NULL";
    QTest::newRow("__asm__") << "__asm__"
                             << "v___asm__";
    QTest::newRow("linux") << "linux"
                           << "v_linux";
    QTest::newRow("INT32_MAX") << "INT32_MAX"
                               << "v_INT32_MAX";
    QTest::newRow("M_PI") << "M_PI"
                          << "v_M_PI";
    QTest::newRow("isnan") << "isnan"
                           << "v_isnan";
    QTest::newRow("int") << "int"
                         << "v_int";
    QTest::newRow("_Bool") << "_Bool"
                           << "v__Bool";
    QTest::newRow("omp_lock") << "omp_lock"
                              << "v_omp_lock";
    QTest::newRow("plain A") << "A"
                             << "A";
    QTest::newRow("plain X0") << "X0"
                              << "X0";
    QTest::newRow("INPUT") << "INPUT"
                           << "INPUT";
    QTest::newRow("leading digit") << "1x"
                                   << "_1x";
  }
  void reservedNamesAreMangled() {
    QFETCH(QString, name);
    QFETCH(QString, identifier);
    QCOMPARE(QString::fromStdString(codegen::sanitizeIdentifier(name.toStdString())), identifier);
  }

  void placeholdersNamedLikeCRunCorrectly_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"INFINITY", "NULL", "__asm__", "linux", "EOF", "INT32_MAX"})
      QTest::newRow(n) << QString(n);
  }
  void placeholdersNamedLikeCRunCorrectly() {
    QFETCH(QString, name);
    const ir::PrimFunc func = placeholderNamed(name.toStdString());
    auto lowered = codegen::lower(func);
    QVERIFY(lowered.has_value());
    for (const char* t : {"cpu-c", "cpu-llvm"}) {
      codegen::Target* tgt = target(t);
      if (!tgt) QSKIP("target plugin not built");
      if (std::string(t) == "cpu-c") {
        auto source = tgt->source(*lowered, "c", buildOptions());
        QVERIFY2(source.has_value(), source ? "" : source.error().message.c_str());
        const std::string param = "float* restrict v_" + name.toStdString();
        if (name != "EOF") QVERIFY2(source->find(param) != std::string::npos, source->c_str());
      }
      test::checkAgainstInterpreter(*tgt, func, {}, buildOptions());
    }
  }

  void unrollingIsCapped() {
    const ir::PrimFunc func = scheduled(kLongReduction, "b = sch.get_block(\"B\")\ni, k = sch.get_loops(b)\n"
                                                        "sch.unroll(k)\n");
    auto lowered = codegen::lower(func);
    QVERIFY(lowered.has_value());
    QCOMPARE(lowered->remarks.size(), std::size_t(1));
    QCOMPARE(lowered->remarks[0].loop, std::string("k"));
    QCOMPARE(lowered->remarks[0].message,
             std::string("unroll kept a serial loop: its 2147483647 iterations of 1 statement(s) would unroll into "
                         "2147483647 statements, more than the limit of 65536 (TVM's auto_unroll_max_step); split the "
                         "loop and unroll an inner part"));
    QCOMPARE(countLoops(lowered->body), 2);
  }

  void unrollingCountsNestedCopies() {
    // 8 x 8 copies of one store: under a cap of 64 the nest unrolls, under 63 the outer
    // loop stays (its inner loop, 8 statements, still unrolls).
    const char* source = "from tvm import te\n"
                         "A = te.placeholder((8, 8), name=\"A\")\n"
                         "B = te.compute((8, 8), lambda i, j: A[i, j] * 2.0, name=\"B\")\n";
    const ir::PrimFunc func =
        scheduled(source, "b = sch.get_block(\"B\")\ni, j = sch.get_loops(b)\nsch.unroll(i)\nsch.unroll(j)\n");
    const ir::ResourceLimits saved = ir::resourceLimits();
    ir::ResourceLimits limits = saved;
    limits.maxUnrolledStatements = 64;
    ir::setResourceLimits(limits);
    auto full = codegen::lower(func);
    limits.maxUnrolledStatements = 63;
    ir::setResourceLimits(limits);
    auto capped = codegen::lower(func);
    ir::setResourceLimits(saved);
    QVERIFY(full.has_value() && capped.has_value());
    QCOMPARE(countLoops(full->body), 0);
    QVERIFY(full->remarks.empty());
    QCOMPARE(countLoops(capped->body), 1);
    QCOMPARE(capped->remarks.size(), std::size_t(1));
    QCOMPARE(capped->remarks[0].loop, std::string("i"));
    if (codegen::Target* tgt = target("cpu-c")) test::checkAgainstInterpreter(*tgt, func, {}, buildOptions());
  }
};

QTEST_GUILESS_MAIN(TestRobustCodegen)
#include "tst_robust_codegen.moc"
