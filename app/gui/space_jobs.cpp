#include "app/gui/space_jobs.h"

#include "app/gui/step_builder.h"
#include "core/poly/legality.h"
#include "core/schedule/ir_tree.h"
#include "core/schedule/trace_python.h"

#include <algorithm>

namespace loopscape::gui {

namespace {

SpaceJobResult failed(const Diagnostic& d) {
  SpaceJobResult r;
  r.cancelled = d.code == "cancelled";
  r.error = d.message;
  return r;
}

/// "reorder(i, t)", "split(i, [None, 4])": the step as the user chose it in the form.
std::string describeStep(const views::PrimitiveRequest& step) {
  auto nodeName = [&](const ir::StmtNode* node) -> std::string {
    const int i = step.snapshot ? step.snapshot->indexOf(node) : -1;
    return i >= 0 ? step.snapshot->nodes[static_cast<std::size_t>(i)].name : std::string("?");
  };
  std::vector<std::string> args;
  for (const views::RequestArg& arg : step.inputs) {
    if (const auto* v = std::get_if<schedule::TraceValue>(&arg.value)) {
      args.push_back(schedule::pythonValue(*v));
    } else if (const auto* n = std::get_if<const ir::StmtNode*>(&arg.value)) {
      args.push_back(nodeName(*n));
    } else {
      for (const ir::StmtNode* node : std::get<std::vector<const ir::StmtNode*>>(arg.value))
        args.push_back(nodeName(node));
    }
  }
  for (const schedule::TraceValue& v : step.attrs)
    args.push_back(schedule::pythonValue(v));
  std::string text = step.kind + "(";
  for (std::size_t i = 0; i < args.size(); ++i)
    text += (i ? ", " : "") + args[i];
  return text + ")";
}

/// Whether `state` has the block of `statement` (a block name, or `<block>_init`).
bool hasStatement(const schedule::ProgramState& state, const std::string& statement) {
  if (state.tree().findBlock(statement)) return true;
  return statement.ends_with("_init") && state.tree().findBlock(statement.substr(0, statement.size() - 5));
}

} // namespace

SpaceJobResult computeSpace(const schedule::StatePtr& state, const poly::IterationSpaceRequest& request,
                            std::stop_token stop) {
  auto space = poly::iterationSpace(*state, request, nullptr, stop);
  if (!space) return failed(space.error());
  auto drawing = std::make_shared<views::SpaceDrawing>();
  drawing->space = std::move(*space);
  return {std::move(drawing), {}, false};
}

SpaceJobResult computeStepPreview(const schedule::Schedule& before, const views::PrimitiveRequest& step,
                                  const poly::IterationSpaceRequest& request, std::stop_token stop) {
  auto drawing = std::make_shared<views::SpaceDrawing>();
  drawing->preview = true;
  drawing->stepText = describeStep(step);
  // 1. The step as Apply would take it: with the legality verifier.
  schedule::Schedule checked = before;
  checked.setStopToken(stop);
  auto applied = applyRequest(checked, step);
  if (stop.stop_requested()) return failed(Diagnostic::error("cancelled", "cancelled"));
  schedule::StatePtr after;
  std::shared_ptr<const Counterexample> counterexample;
  if (applied) {
    after = checked.state();
    drawing->verdict = "legal";
    for (std::size_t i = before.notes().size(); i < checked.notes().size(); ++i)
      drawing->verdict = "accepted without a legality verdict: " + checked.notes()[i].note.message;
  } else {
    drawing->illegal = true;
    drawing->verdict = applied.error().message;
    counterexample = applied.error().counterexample;
    // 2. A refused step is taken unverified to show the order it would give (the
    //    primitive's own preconditions may still refuse it: then the order stays).
    if (counterexample) {
      schedule::Schedule unverified = before;
      unverified.setVerifier({}, schedule::LegalityPolicy::Unverified);
      unverified.setStopToken(stop);
      if (applyRequest(unverified, step)) after = unverified.state();
    }
  }
  // 3. The slice: the view's, or the one that shows the counterexample's source.
  poly::IterationSpaceRequest req = request;
  if (counterexample && hasStatement(*before.state(), counterexample->source.statement)) {
    const bool sameBlock = counterexample->source.statement == request.block;
    req.block = counterexample->source.statement;
    req.fixed.clear();
    req.showInstance = counterexample->source;
    if (!sameBlock && counterexample->source.iterators.size() >= 2) {
      req.dimY = counterexample->source.iterators[0].first;
      req.dimX = counterexample->source.iterators[1].first;
    }
  }
  auto space = poly::iterationSpace(*before.state(), req, after.get(), stop);
  if (!space && req.showInstance && counterexample->source.iterators.size() >= 2 &&
      space.error().code.starts_with("space.") && space.error().code != "space.unbound-size") {
    // The view's axes do not suit the source's block: its first two iterators do.
    req.dimY = counterexample->source.iterators[0].first;
    req.dimX = counterexample->source.iterators[1].first;
    space = poly::iterationSpace(*before.state(), req, after.get(), stop);
  }
  if (!space && space.error().code == "space.not-in-order" && after) {
    // The step drops instances of the block (a stale order): show the current order.
    space = poly::iterationSpace(*before.state(), req, nullptr, stop);
  }
  if (!space) return failed(space.error());
  drawing->space = std::move(*space);
  if (counterexample) {
    auto placed = poly::placeCounterexample(*before.state(), drawing->space, *counterexample);
    if (!placed) return failed(placed.error());
    drawing->counterexample = std::move(*placed);
  }
  return {std::move(drawing), {}, false};
}

} // namespace loopscape::gui
