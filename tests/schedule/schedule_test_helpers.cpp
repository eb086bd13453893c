#include "schedule_test_helpers.h"

#include "core/frontend/te_frontend.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/visitor.h"

#include <QFile>
#include <QtTest>

#include <fmt/format.h>
#include <set>

namespace loopscape::testing {

const char* const kSmallMatmul = "A = placeholder((64, 48), \"float32\", name=\"A\")\n"
                                 "B = placeholder((48, 32), \"float32\", name=\"B\")\n"
                                 "k = reduce_axis((0, 48), name=\"k\")\n"
                                 "C = compute((64, 32), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n";

const char* const kTwoStage = "A = placeholder((64, 64), \"float32\", name=\"A\")\n"
                              "B = compute((64, 64), lambda i, j: A[i, j] * 2.0, name=\"B\")\n"
                              "C = compute((64, 64), lambda i, j: B[i, j] + 1.0, name=\"C\")\n";

ir::PrimFunc parseProgram(const std::string& source) {
  auto f = frontend::parseTe(source, "test.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), source).c_str());
  return *f;
}

namespace {
std::set<const ir::BufferNode*> written(const ir::PrimFunc& func) {
  struct Collector final : ir::StmtVisitor {
    std::set<const ir::BufferNode*> out;
    void visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
      out.insert(op.buffer.get());
      StmtVisitor::visitBufferStore(op, self);
    }
  } c;
  c(func.body);
  return c.out;
}

std::vector<ir::NDArray> run(const ir::PrimFunc& f, const ir::SizeBindings& sizes, std::string& error) {
  const auto outputs = written(f);
  std::vector<ir::NDArray> args;
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    auto shape = ir::evalShape(f.params[i], sizes);
    if (!shape) {
      error = renderDiagnostic(shape.error());
      return {};
    }
    ir::NDArray a(*shape, f.params[i]->dtype);
    if (!outputs.contains(f.params[i].get())) a.fillRandom(100 + i);
    args.push_back(a);
  }
  if (auto ok = ir::interpret(f, args, sizes); !ok) error = renderDiagnostic(ok.error());
  return args;
}
} // namespace

std::string compareResults(const ir::PrimFunc& a, const ir::PrimFunc& b, const std::map<std::string, std::int64_t>& sizes) {
  std::string errA, errB;
  auto ra = run(a, sizes, errA);
  auto rb = run(b, sizes, errB);
  if (!errA.empty()) return "original program failed: " + errA;
  if (!errB.empty()) return "scheduled program failed: " + errB;
  if (ra.size() != rb.size()) return "different parameter counts";
  for (std::size_t i = 0; i < ra.size(); ++i) {
    if (ra[i].shape() != rb[i].shape()) return fmt::format("parameter {} has a different shape", i);
    if (auto m = ir::firstMismatch(rb[i], ra[i], 0.0, 0.0))
      return fmt::format("parameter {} ({}) differs at flat index {}: {} vs {}", i, a.params[i]->name, m->index,
                         m->actual, m->expected);
  }
  return {};
}

QStringList refNames(const Diagnostic& d) {
  QStringList out;
  for (const auto& r : d.references) out << QString::fromStdString(r.name);
  return out;
}

void expectRefused(schedule::Schedule& sch, const char* kind, std::vector<schedule::TraceValue> inputs,
                   std::vector<schedule::TraceValue> attrs, const QString& code, const QStringList& refs) {
  const ir::Stmt before = sch.func().body;
  const std::size_t steps = sch.trace().instructions.size();
  auto r = sch.apply(kind, std::move(inputs), std::move(attrs));
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().code), code);
  QCOMPARE(refNames(r.error()), refs);
  QVERIFY(sch.func().body.sameAs(before));
  QCOMPARE(sch.trace().instructions.size(), steps);
}

QString checkGolden(const QString& name, const std::string& text) {
  const QString path = QStringLiteral(LS_SOURCE_DIR "/tests/schedule/golden/") + name + ".py";
  if (qEnvironmentVariableIsSet("LS_UPDATE_GOLDEN")) {
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly)) return "cannot write " + path;
    out.write(QByteArray::fromStdString(text));
    return {};
  }
  QFile in(path);
  if (!in.open(QIODevice::ReadOnly)) return "missing golden file " + path + " (run with LS_UPDATE_GOLDEN=1)";
  const QString expected = QString::fromUtf8(in.readAll());
  const QString actual = QString::fromStdString(text);
  if (expected == actual) return {};
  return "golden mismatch for " + path + "\n--- expected\n" + expected + "\n--- actual\n" + actual;
}

} // namespace loopscape::testing
