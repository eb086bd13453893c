// Block bindings after a primitive re-simplifies them (schedule::detail::simplifyBindings):
// the form TVM's iterator-map simplification gives (a floordiv/floormod of a sum of loop
// terms kept whole, `x // c1 % c2` as `x % (c1 * c2) // c1`), with the same values as
// the binding it came from, nested divisions included.
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/simplify.h"
#include "core/ir/substitute.h"
#include "core/schedule/primitive/util.h"

#include <QtTest>

using namespace loopscape;

namespace {

ir::Expr var(const char* name) { return ir::Var::make(name, ir::DataType::int32()); }
ir::Expr c(std::int64_t v) { return ir::intImm(v); }

/// The binding `value` of a one-iterator block under loops i (8), j (4), k (2), simplified.
ir::Expr simplifiedBinding(const ir::Expr& i, const ir::Expr& j, const ir::Expr& k, const ir::Expr& value) {
  ir::Expr v = var("v");
  ir::Stmt block =
      ir::Block::make("B", {ir::IterVar{v, ir::Range::fromMinExtent(c(0), c(1000)), ir::IterKind::Spatial}}, {}, {},
                      ir::Evaluate::make(c(0)));
  ir::Stmt s = ir::BlockRealize::make({value}, ir::boolImm(true), block);
  s = ir::For::make(k, c(0), c(2), ir::ForKind::Serial, s);
  s = ir::For::make(j, c(0), c(4), ir::ForKind::Serial, s);
  s = ir::For::make(i, c(0), c(8), ir::ForKind::Serial, s);
  ir::Stmt out = schedule::detail::simplifyBindings(s, ir::Analyzer{});
  const ir::Stmt* inner = &out;
  while (const auto* f = inner->as<ir::For>())
    inner = &f->body;
  return inner->as<ir::BlockRealize>()->iterValues.front();
}

std::int64_t eval(const ir::Expr& e, const ir::Expr& i, const ir::Expr& j, const ir::Expr& k, int a, int b, int d) {
  ir::Expr folded = ir::simplify(ir::substitute(e, ir::VarMap{{i.get(), c(a)}, {j.get(), c(b)}, {k.get(), c(d)}}));
  auto v = ir::asConstInt(folded);
  if (!v) qFatal("not constant: %s", ir::printExpr(folded).c_str());
  return *v;
}

} // namespace

class TestBindingForm : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void keepsSplitsOfFusedSumsAndSameValues() {
    ir::Expr i = var("i"), j = var("j"), k = var("k");
    const ir::Expr sum = i * c(8) + j * c(2) + k; // a fused loop split three ways
    const std::vector<std::pair<ir::Expr, std::string>> cases = {
        {ir::floordiv(sum, c(2)), "(i * 8 + j * 2 + k) // 2"},
        {ir::floormod(ir::floordiv(sum, c(3)), c(5)), "(i * 8 + j * 2 + k) % 15 // 3"},
        // Nested: the kept division holds another kept division.
        {ir::floormod(ir::floordiv(ir::floordiv(sum, c(2)) + k * c(7), c(3)), c(4)),
         "((i * 8 + j * 2 + k) // 2 + k * 7) % 12 // 3"},
    };
    for (const auto& [value, printed] : cases) {
      const ir::Expr out = simplifiedBinding(i, j, k, value);
      QCOMPARE(QString::fromStdString(ir::printExpr(out)), QString::fromStdString(printed));
      for (int a = 0; a < 8; ++a)
        for (int b = 0; b < 4; ++b)
          for (int d = 0; d < 2; ++d)
            QCOMPARE(eval(out, i, j, k, a, b, d), eval(value, i, j, k, a, b, d));
    }
  }
};

QTEST_GUILESS_MAIN(TestBindingForm)
#include "tst_binding_form.moc"
