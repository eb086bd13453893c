#include "core/codegen/lower_unroll.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/substitute.h"

namespace loopscape::codegen {

using namespace ir;

namespace {
class Unroller final : public StmtMutator {
public:
  explicit Unroller(std::vector<Remark>& remarks) : m_remarks(remarks) {}

protected:
  Stmt visitFor(const For& op, const Stmt& self) override {
    if (op.forKind != ForKind::Unrolled) return StmtMutator::visitFor(op, self);
    Stmt body = mutate(op.body);
    const std::string& name = op.loopVar.as<Var>()->name;
    auto extent = asConstInt(op.extent);
    if (!extent) {
      m_remarks.push_back({name, "unroll kept a serial loop: the extent " + printExpr(op.extent) + " is not a constant"});
      return For::make(op.loopVar, op.min, op.extent, ForKind::Serial, body, {}, op.annotations);
    }
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
