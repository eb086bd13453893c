#include "app/gui/step_builder.h"

#include "core/schedule/instruction.h"
#include "core/schedule/ir_tree.h"
#include "core/schedule/primitives.h"
#include "core/schedule/schedule_error.h"

namespace loopscape::gui {

using schedule::RV;
using schedule::RVKind;
using schedule::TraceValue;

namespace {

const schedule::TreeNode* firstBlockBelow(const schedule::TreeNode& n) {
  for (const schedule::TreeNode* c : n.children) {
    if (c->isBlock()) return c;
    if (const schedule::TreeNode* b = firstBlockBelow(*c)) return b;
  }
  return nullptr;
}

std::optional<RV> existingRv(const schedule::Schedule& sch, const ir::StmtNode* node, RVKind kind) {
  for (const schedule::Instruction& inst : sch.trace().instructions)
    for (const RV& rv : inst.outputs) {
      if (rv.kind != kind) continue;
      auto found = kind == RVKind::Block ? sch.block(TraceValue(rv), "lookup") : sch.loop(TraceValue(rv), "lookup");
      if (found && (*found)->node == node) return rv;
    }
  return std::nullopt;
}

} // namespace

Expected<RV> rvForNode(schedule::Schedule& sch, const ir::StmtNode* node) {
  const schedule::TreeNode* tn = sch.tree().find(node);
  if (tn == nullptr)
    return Unexpected(Diagnostic::error("gui.stale-selection", "the selected loop or block is not in the current program; "
                                                              "select it again"));
  if (tn->isBlock()) {
    if (auto rv = existingRv(sch, node, RVKind::Block)) return *rv;
    auto out = schedule::getBlock(sch, tn->block()->name, sch.func().name);
    if (!out) return Unexpected(out.error());
    return RV(*out);
  }
  if (auto rv = existingRv(sch, node, RVKind::Loop)) return *rv;
  const schedule::TreeNode* block = firstBlockBelow(*tn);
  if (block == nullptr)
    return Unexpected(Diagnostic::error("gui.no-block", "the loop contains no block, so get_loops cannot name it"));
  const std::vector<const schedule::TreeNode*> loops = sch.tree().loopsAbove(*block);
  auto blockRv = rvForNode(sch, block->node);
  if (!blockRv) return Unexpected(blockRv.error());
  auto out = schedule::getLoops(sch, schedule::BlockRV(*blockRv));
  if (!out) return Unexpected(out.error());
  for (std::size_t i = 0; i < loops.size() && i < out->size(); ++i)
    if (loops[i]->node == node) return RV((*out)[i]);
  return Unexpected(Diagnostic::error("gui.no-loop", "the loop is not among the loops of its block"));
}

Expected<void> applyRequest(schedule::Schedule& sch, const views::PrimitiveRequest& request) {
  const schedule::InstructionKind* kind = schedule::findInstructionKind(request.kind);
  if (kind == nullptr) return Unexpected(Diagnostic::error("gui.unknown-primitive", "unknown primitive " + request.kind));
  std::vector<TraceValue> inputs;
  for (const views::RequestArg& arg : request.inputs) {
    if (const auto* v = std::get_if<TraceValue>(&arg.value)) {
      // A literal list for a variadic kind (poly_fuse's loop names) is its inputs.
      if (const auto* list = v->get<schedule::TraceList>(); list && kind->variadic)
        inputs.insert(inputs.end(), list->begin(), list->end());
      else
        inputs.push_back(*v);
    } else if (const auto* n = std::get_if<const ir::StmtNode*>(&arg.value)) {
      auto rv = rvForNode(sch, *n);
      if (!rv) return Unexpected(rv.error());
      inputs.emplace_back(*rv);
    } else {
      schedule::TraceList list;
      for (const ir::StmtNode* node : std::get<std::vector<const ir::StmtNode*>>(arg.value)) {
        auto rv = rvForNode(sch, node);
        if (!rv) return Unexpected(rv.error());
        list.emplace_back(*rv);
      }
      // Variadic kinds (fuse, reorder) take the list itself as their inputs.
      if (kind->variadic) {
        for (TraceValue& v : list) inputs.push_back(std::move(v));
      } else {
        inputs.emplace_back(std::move(list));
      }
    }
  }
  auto out = sch.apply(*kind, std::move(inputs), request.attrs);
  if (!out) return Unexpected(out.error());
  return {};
}

} // namespace loopscape::gui
