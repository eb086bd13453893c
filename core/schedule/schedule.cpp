#include "core/schedule/schedule.h"

#include "core/schedule/instruction.h"
#include "core/schedule/schedule_error.h"

#include <fmt/format.h>

namespace loopscape::schedule {

Schedule::Schedule(ir::PrimFunc func, std::uint64_t seed) : Schedule(ProgramState::make(std::move(func)), seed) {}

Schedule::Schedule(StatePtr state, std::uint64_t seed)
    : m_originalState(state), m_state(std::move(state)), m_rng(seed) {}

std::vector<const ir::StmtNode*> Schedule::inputLoops(const std::vector<TraceValue>& inputs) const {
  std::vector<const ir::StmtNode*> out;
  for (const TraceValue& v : inputs) {
    if (const auto* list = v.get<TraceList>()) {
      auto nested = inputLoops(*list);
      out.insert(out.end(), nested.begin(), nested.end());
      continue;
    }
    if (const RV* rv = v.get<RV>(); rv && rv->kind == RVKind::Loop)
      if (auto l = loop(v, "lookup")) out.push_back((*l)->node);
  }
  return out;
}

Expected<std::vector<RV>> Schedule::apply(const InstructionKind& kind, std::vector<TraceValue> inputs,
                                          std::vector<TraceValue> attrs, std::optional<TraceValue> decision) {
  if (attrs.size() > kind.attrs.size())
    return Unexpected(scheduleError(kind.name, "bad-arguments",
                                    fmt::format("{} takes {} attributes, got {}", kind.name, kind.attrs.size(),
                                                attrs.size())));
  for (std::size_t i = attrs.size(); i < kind.attrs.size(); ++i) attrs.push_back(kind.attrs[i].defaultValue);

  Instruction inst{&kind, std::move(inputs), std::move(attrs), {}, std::move(decision)};
  const StatePtr savedState = m_state;
  const std::size_t savedBindings = m_bindings.size();
  const auto savedRng = m_rng;
  m_current = &inst;
  m_pendingDecision = inst.decision;
  m_madeDecision.reset();
  m_pendingNote.reset();
  auto outputs = kind.apply(*this, inst.inputs, inst.attrs);
  m_current = nullptr;
  m_pendingDecision.reset();
  if (!outputs) {
    // A refused primitive changes nothing.
    m_state = savedState;
    m_pendingNote.reset();
    m_bindings.resize(savedBindings);
    m_rng = savedRng;
    Diagnostic error = outputs.error();
    identifyLoops(error, m_state->tree(), inputLoops(inst.inputs));
    return Unexpected(std::move(error));
  }
  inst.outputs = *outputs;
  if (kind.isSampling) inst.decision = m_madeDecision;
  if (m_pendingNote) m_notes.push_back({m_trace.instructions.size(), std::move(*m_pendingNote)});
  m_pendingNote.reset();
  m_trace.instructions.push_back(std::move(inst));
  m_trace.rvCount = static_cast<int>(m_bindings.size());
  return outputs;
}

Expected<std::vector<RV>> Schedule::apply(std::string_view kindName, std::vector<TraceValue> inputs,
                                          std::vector<TraceValue> attrs, std::optional<TraceValue> decision) {
  const auto* kind = findInstructionKind(kindName);
  if (!kind) {
    Diagnostic d =
        Diagnostic::error("schedule.unknown-primitive", fmt::format("unknown schedule primitive '{}'", kindName));
    d.subject = DiagnosticSubject::Program;
    return Unexpected(std::move(d));
  }
  return apply(*kind, std::move(inputs), std::move(attrs), std::move(decision));
}

namespace {
Diagnostic badRV(std::string_view primitive, std::string message) {
  return scheduleError(primitive, "bad-rv", std::move(message));
}
} // namespace

Expected<const TreeNode*> Schedule::block(const TraceValue& v, std::string_view primitive) const {
  const RV* rv = v.get<RV>();
  if (!rv || rv->kind != RVKind::Block || rv->id < 0 || rv->id >= static_cast<int>(m_bindings.size()))
    return Unexpected(badRV(primitive, fmt::format("{} expects a block here", primitive)));
  const auto& name = m_bindings[rv->id].blockName;
  const TreeNode* node = m_state->tree().findBlock(name);
  if (!node)
    return Unexpected(scheduleError(primitive, "stale-rv",
                                    fmt::format("block b{} ('{}') no longer exists in the program", rv->id, name)));
  return node;
}

Expected<const TreeNode*> Schedule::loop(const TraceValue& v, std::string_view primitive) const {
  const RV* rv = v.get<RV>();
  if (!rv || rv->kind != RVKind::Loop || rv->id < 0 || rv->id >= static_cast<int>(m_bindings.size()))
    return Unexpected(badRV(primitive, fmt::format("{} expects a loop here", primitive)));
  if (const LoopMark mark = m_bindings[rv->id].mark; mark != LoopMark::None)
    return Unexpected(scheduleError(
        primitive, "loop-mark",
        fmt::format("l{} is the {} location chosen by sample_compute_location, not a loop; only compute_at and "
                    "reverse_compute_at accept it",
                    rv->id, mark == LoopMark::Root ? "root" : "inline")));
  const auto& var = m_bindings[rv->id].loopVar;
  const TreeNode* node = m_state->tree().findLoop(var.get());
  if (!node)
    return Unexpected(scheduleError(
        primitive, "stale-rv",
        fmt::format("loop l{} ('{}') no longer exists in the program: a previous primitive replaced it", rv->id,
                    var.as<ir::Var>()->name)));
  return node;
}

Expected<const TreeNode*> Schedule::blockOrLoop(const TraceValue& v, std::string_view primitive) const {
  const RV* rv = v.get<RV>();
  if (rv && rv->kind == RVKind::Block) return block(v, primitive);
  if (rv && rv->kind == RVKind::Loop) return loop(v, primitive);
  return Unexpected(badRV(primitive, fmt::format("{} expects a block or a loop here", primitive)));
}

Expected<std::int64_t> Schedule::integer(const TraceValue& v, std::string_view primitive) const {
  if (const auto* i = v.get<std::int64_t>()) return *i;
  const RV* rv = v.get<RV>();
  if (rv && rv->kind == RVKind::Expr && rv->id >= 0 && rv->id < static_cast<int>(m_bindings.size()))
    return m_bindings[rv->id].value;
  return Unexpected(badRV(primitive, fmt::format("{} expects an integer here", primitive)));
}

Expected<void> Schedule::replace(ir::PrimFunc func) { return replace(ProgramState::make(std::move(func))); }

Expected<void> Schedule::replace(StatePtr state) {
  if (m_verifier && m_current) {
    auto ok = m_verifier(*m_originalState, *state, *m_current);
    if (!ok) return Unexpected(ok.error());
    if (*ok) m_pendingNote = std::move(**ok);
  }
  m_state = std::move(state);
  return {};
}

RV Schedule::defineBlock(std::string name) {
  m_bindings.push_back({RVKind::Block, std::move(name), {}, 0});
  return {RVKind::Block, static_cast<int>(m_bindings.size()) - 1};
}

RV Schedule::defineLoop(ir::Expr loopVar) {
  m_bindings.push_back({RVKind::Loop, {}, std::move(loopVar), 0});
  return {RVKind::Loop, static_cast<int>(m_bindings.size()) - 1};
}

RV Schedule::defineLoopMark(LoopMark mark) {
  m_bindings.push_back({RVKind::Loop, {}, {}, 0, mark});
  return {RVKind::Loop, static_cast<int>(m_bindings.size()) - 1};
}

LoopMark Schedule::loopMark(const TraceValue& v) const {
  const RV* rv = v.get<RV>();
  if (!rv || rv->kind != RVKind::Loop || rv->id < 0 || rv->id >= static_cast<int>(m_bindings.size()))
    return LoopMark::None;
  return m_bindings[rv->id].mark;
}

void Schedule::renameBlock(const std::string& from, const std::string& to) {
  for (auto& b : m_bindings)
    if (b.kind == RVKind::Block && b.blockName == from) b.blockName = to;
}

RV Schedule::defineExpr(std::int64_t value) {
  m_bindings.push_back({RVKind::Expr, {}, {}, value});
  return {RVKind::Expr, static_cast<int>(m_bindings.size()) - 1};
}

Expected<Schedule> replayTrace(const ir::PrimFunc& original, const Trace& trace, std::uint64_t seed) {
  return replayTrace(Schedule(original, seed), trace);
}

Expected<Schedule> replayTrace(Schedule sch, const Trace& trace) {
  // RV ids of the replay follow creation order, as in the recorded trace; map anyway so a
  // trace with gaps (a hand-edited file) still replays.
  std::vector<RV> map(static_cast<std::size_t>(trace.rvCount) + 1, RV{});
  auto remap = [&](auto&& self, const TraceValue& v) -> TraceValue {
    if (const RV* rv = v.get<RV>()) {
      if (rv->id >= 0 && rv->id < static_cast<int>(map.size()) && map[rv->id].id >= 0) return map[rv->id];
      return v;
    }
    if (const auto* list = v.get<TraceList>()) {
      TraceList out;
      for (const auto& item : *list) out.push_back(self(self, item));
      return out;
    }
    return v;
  };
  for (const auto& inst : trace.instructions) {
    std::vector<TraceValue> inputs;
    for (const auto& in : inst.inputs) inputs.push_back(remap(remap, in));
    auto outs = sch.apply(*inst.kind, std::move(inputs), inst.attrs, inst.decision);
    if (!outs) return Unexpected(outs.error());
    for (std::size_t i = 0; i < inst.outputs.size() && i < outs->size(); ++i) {
      const int id = inst.outputs[i].id;
      if (id >= static_cast<int>(map.size())) map.resize(id + 1, RV{});
      map[id] = (*outs)[i];
    }
  }
  return sch;
}

} // namespace loopscape::schedule
