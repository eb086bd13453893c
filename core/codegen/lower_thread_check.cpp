#include "core/codegen/lower_thread_check.h"

#include "core/ir/visitor.h"

namespace loopscape::codegen {

namespace {
class FirstThreadBinding final : public ir::StmtVisitor {
public:
  const ir::For* found = nullptr;

protected:
  void visitFor(const ir::For& op, const ir::Stmt& self) override {
    if (found) return;
    if (op.forKind == ir::ForKind::ThreadBinding) {
      found = &op;
      return;
    }
    ir::StmtVisitor::visitFor(op, self);
  }
};
} // namespace

Expected<void> checkThreadBindings(const ir::Stmt& body, std::string_view deviceKind) {
  if (deviceKind != "cpu") return {};
  FirstThreadBinding finder;
  finder(body);
  if (!finder.found) return {};
  const auto& loopName = finder.found->loopVar.as<ir::Var>()->name;
  auto d = Diagnostic::error("codegen.thread-binding-on-cpu",
                             "loop '" + loopName + "' is bound to " + finder.found->threadTag +
                                 ", but target device 'cpu' has no GPU threads");
  d.references.push_back({IrReference::Kind::Loop, loopName});
  d.notes.push_back("use sch.parallel on this loop for CPU threads, or pick a GPU target");
  return std::unexpected(std::move(d));
}

} // namespace loopscape::codegen
