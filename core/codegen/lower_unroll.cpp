#include "core/codegen/lower_unroll.h"

#include "core/ir/checked_arith.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/resource_limits.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

namespace loopscape::codegen {

using namespace ir;

std::int64_t countLoweredStatements(const Stmt& s) {
  struct Counter final : StmtVisitor {
    std::int64_t count = 0;
    void visitExpr(const Expr&) override {}
    void visitStmt(const Stmt& st) override {
      const auto* eval = st.as<Evaluate>();
      if (!st.as<SeqStmt>() && !(eval && eval->value.as<StringImm>())) ++count;
      StmtVisitor::visitStmt(st);
    }
  } counter;
  counter(s);
  return counter.count;
}

namespace {
class Unroller final : public StmtMutator {
public:
  explicit Unroller(std::vector<Remark>& remarks) : m_remarks(remarks) {}

protected:
  Stmt visitFor(const For& op, const Stmt& self) override {
    if (op.forKind != ForKind::Unrolled) return StmtMutator::visitFor(op, self);
    Stmt body = mutate(op.body);
    const std::string& name = op.loopVar.as<Var>()->name;
    auto keepLoop = [&](std::string why) {
      m_remarks.push_back({name, std::move(why)});
      return For::make(op.loopVar, op.min, op.extent, ForKind::Serial, body, {}, op.annotations);
    };
    auto extent = asConstInt(op.extent);
    if (!extent)
      return keepLoop("unroll kept a serial loop: the extent " + printExpr(op.extent) + " is not a constant");
    // The cap of TVM's auto_unroll_max_step, applied to explicit unrolling too: a loop
    // whose copies would exceed it stays a loop (TVM's explicit_unroll=false leaves such a
    // loop to the compiler the same way) instead of exhausting memory.
    const std::int64_t limit = resourceLimits().maxUnrolledStatements;
    const std::int64_t perCopy = countLoweredStatements(body);
    const auto total = checkedMul(*extent, perCopy);
    if (!total || *total > limit)
      return keepLoop(fmt::format("unroll kept a serial loop: its {} iterations of {} statement(s) would unroll into "
                                  "{} statements, more than the limit of {} (TVM's auto_unroll_max_step); split the "
                                  "loop and unroll an inner part",
                                  *extent, perCopy, total ? std::to_string(*total) : std::string("too many"), limit));
    std::vector<Stmt> copies;
    for (std::int64_t i = 0; i < *extent; ++i)
      copies.push_back(substitute(body, VarMap{{op.loopVar.get(), op.min + intImm(i, op.loopVar.dtype())}}));
    if (copies.empty()) return Evaluate::make(intImm(0));
    return SeqStmt::make(std::move(copies));
  }

private:
  std::vector<Remark>& m_remarks;
};
} // namespace

Stmt unrollLoops(const Stmt& body, std::vector<Remark>& remarks) {
  Unroller unroller(remarks);
  return unroller.mutate(body);
}

} // namespace loopscape::codegen
