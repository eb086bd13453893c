// The recurrence of the .te language: scan(init, update, state_placeholder, inputs=[...],
// name="scan", tag="", attrs=None), as TVM's te.scan (see ScanInfo in te_program.h for
// the semantics). This file checks a scan's arguments and creates the scan tensor; the
// lowering to two blocks writing one buffer is in te_lower.cpp. Diagnostic codes:
// "te.scan-argument" (not a compute / placeholder, reused parts, bad inputs=),
// "te.scan-shape" (state, init and update shapes disagree), "te.type-mismatch" (dtypes),
// "te.scan-time-index" (the update reads the state at the current, a later or an
// unavailable step), "te.scan-state-use" (a scan's state, init or update read elsewhere).
#include "core/frontend/te_eval_detail.h"
#include "core/ir/printer.h"
#include "core/ir/structural_equal.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::frontend::detail {

namespace {

std::string shapeText(const std::vector<ir::Expr>& shape) {
  std::string out = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) out += (d ? ", " : "") + ir::printExpr(shape[d]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

const char* plural(std::size_t n, const char* one, const char* many) { return n == 1 ? one : many; }

/// The value a compute's block stores (its reduction source for a reduction).
ir::Expr bodyOf(const TensorInfo& t) { return t.reduction ? t.reduction->source : t.body; }

/// Every BufferLoad in `e`, in visiting order.
std::vector<ir::Expr> loadsIn(const ir::Expr& e) {
  std::vector<ir::Expr> loads;
  if (!e.defined()) return loads;
  ir::forEachExpr(e, [&](const ir::Expr& x) {
    if (x.as<ir::BufferLoad>()) loads.push_back(x);
  });
  return loads;
}

/// A time index of the form t - c (c a constant): c; t + c gives -c, t gives 0.
std::optional<std::int64_t> stepsBack(const ir::Expr& index, const ir::Expr& t) {
  if (index.sameAs(t)) return 0;
  if (const auto* sub = index.as<ir::Sub>(); sub && sub->a.sameAs(t))
    if (auto c = ir::asConstInt(sub->b)) return *c;
  if (const auto* add = index.as<ir::Add>(); add && add->a.sameAs(t))
    if (auto c = ir::asConstInt(add->b)) return -*c;
  return std::nullopt;
}

} // namespace

SourceLocation Evaluator::loadLocation(const ir::Expr& load, const SourceLocation& fallback) const {
  auto it = m_loadLocs.find(load.get());
  return it == m_loadLocs.end() ? fallback : it->second;
}

Result Evaluator::builtinScan(const ast::Node& call, std::vector<std::optional<Value>>& a) {
  // 1. init, update and state: one tensor each (TVM's one-element lists are accepted).
  const char* roles[] = {"init", "update", "state_placeholder"};
  std::shared_ptr<TensorInfo> parts[3];
  for (int r = 0; r < 3; ++r) {
    Value v = *a[r];
    if (v.kind == ValueKind::List || v.kind == ValueKind::Tuple) {
      if (v.items->size() != 1)
        return Unexpected(error("te.unsupported",
                                fmt::format("scan() over {} states is not supported: give one {} (write one scan per state)",
                                            v.items->size(), roles[r]),
                                v.loc));
      v = (*v.items)[0];
    }
    bool wantCompute = r < 2;
    if (v.kind != ValueKind::Tensor || v.tensor->isCompute != wantCompute || v.tensor->scan) {
      std::string got = describeValue(v);
      if (v.kind == ValueKind::Tensor) got += v.tensor->scan ? " (a scan)" : v.tensor->isCompute ? " (a compute)" : " (a placeholder)";
      return Unexpected(error("te.scan-argument",
                              wantCompute ? fmt::format("the {} of scan() must be a compute, got {}", roles[r], got)
                                          : fmt::format("the state of scan() must be a placeholder standing for the scan's result, got {}", got),
                              a[r]->loc));
    }
    for (const auto& t : m_tensors)
      if (t == v.tensor) parts[r] = t;
    if (!parts[r]->scanOwner.empty())
      return Unexpected(error("te.scan-argument",
                              fmt::format("'{}' already belongs to scan '{}'; a compute or placeholder can be part of one scan only",
                                          parts[r]->name, parts[r]->scanOwner),
                              a[r]->loc));
  }
  if (parts[0] == parts[1])
    return Unexpected(error("te.scan-argument", fmt::format("the init and the update of scan() are the same compute '{}'", parts[0]->name), a[1]->loc));
  TensorInfo& init = *parts[0];
  TensorInfo& update = *parts[1];
  TensorInfo& state = *parts[2];
  const auto& stateShape = state.buffer->shape;

  // 2. Shapes and dtypes: update as the state; init as the state but for its first
  //    dimension, the constant number of initial steps k, 1 <= k < time extent.
  bool sameShape = update.buffer->shape.size() == stateShape.size();
  for (std::size_t d = 0; sameShape && d < stateShape.size(); ++d)
    sameShape = ir::structuralEqual(update.buffer->shape[d], stateShape[d]);
  if (!sameShape)
    return Unexpected(error("te.scan-shape",
                            fmt::format("the update '{}' has shape {} but the state '{}' has shape {}; they must be equal", update.name,
                                        shapeText(update.buffer->shape), state.name, shapeText(stateShape)),
                            a[1]->loc));
  const auto& initShape = init.buffer->shape;
  if (initShape.size() != stateShape.size()) {
    auto d = error("te.scan-shape",
                   fmt::format("the init '{}' has {} dimension{} but the state '{}' has {}", init.name, initShape.size(),
                               plural(initShape.size(), "", "s"), state.name, stateShape.size()),
                   a[0]->loc);
    std::vector<ir::Expr> hint = stateShape;
    hint[0] = ir::intImm(1);
    d.notes.push_back(fmt::format("the first dimension of the init counts the initial time steps, e.g. shape {}", shapeText(hint)));
    return Unexpected(std::move(d));
  }
  for (std::size_t d = 1; d < stateShape.size(); ++d)
    if (!ir::structuralEqual(initShape[d], stateShape[d]))
      return Unexpected(error("te.scan-shape",
                              fmt::format("dimension {} of the init '{}' is {} but the state '{}' has {}", d, init.name,
                                          ir::printExpr(initShape[d]), state.name, ir::printExpr(stateShape[d])),
                              a[0]->loc));
  auto steps = ir::asConstInt(initShape[0]);
  if (!steps)
    return Unexpected(error("te.scan-shape",
                            fmt::format("the number of initial time steps (dimension 0 of the init '{}') must be a constant, got {}",
                                        init.name, ir::printExpr(initShape[0])),
                            a[0]->loc));
  if (auto extent = ir::asConstInt(stateShape[0]); extent && *steps >= *extent)
    return Unexpected(error("te.scan-shape",
                            fmt::format("the init '{}' covers {} time step{} but the state '{}' has only {}: the update would never run",
                                        init.name, *steps, plural(static_cast<std::size_t>(*steps), "", "s"), state.name, *extent),
                            a[0]->loc));
  for (const TensorInfo* part : {&init, &update})
    if (part->buffer->dtype != state.buffer->dtype) {
      auto d = error("te.type-mismatch",
                     fmt::format("the {} '{}' computes {} but the state '{}' is {}", part == &init ? "init" : "update", part->name,
                                 part->buffer->dtype.str(), state.name, state.buffer->dtype.str()),
                     a[part == &init ? 0 : 1]->loc);
      d.notes.push_back(fmt::format("cast the value, e.g. {}(...)", state.buffer->dtype.str()));
      return Unexpected(std::move(d));
    }

  // 3. The update reads the state only at steps already computed: t - c with
  //    1 <= c <= k, or an initial step given as a constant below k.
  const ir::Expr& t = update.params[0];
  const std::string& tName = t.as<ir::Var>()->name;
  for (const auto& e : loadsIn(bodyOf(update))) {
    const auto* load = e.as<ir::BufferLoad>();
    if (!load->buffer.sameAs(state.buffer)) continue;
    SourceLocation loc = loadLocation(e, update.loc);
    const ir::Expr& index = load->indices[0];
    std::string rest = load->indices.size() > 1 ? ", ..." : "";
    std::string access = fmt::format("{}[{}{}]", state.name, ir::printExpr(index), rest);
    if (auto c = ir::asConstInt(index)) {
      if (*c < *steps) continue;
      return Unexpected(error("te.scan-time-index",
                              fmt::format("the update reads {}, which is not an initial step (the init gives {}); read computed steps as {} - c",
                                          access, *steps == 1 ? std::string("step 0") : fmt::format("steps 0 to {}", *steps - 1), tName),
                              loc));
    }
    auto back = stepsBack(index, t);
    if (!back)
      return Unexpected(error("te.scan-time-index",
                              fmt::format("the update reads {}: a time index must be {} - c for a constant c >= 1", access, tName),
                              loc));
    if (*back <= 0)
      return Unexpected(error("te.scan-time-index",
                              fmt::format("the update reads {} at the current or a later time step; a recurrence may only read earlier steps", access),
                              loc));
    if (*back > *steps)
      return Unexpected(error("te.scan-time-index",
                              fmt::format("the update reads {} but the init covers only {} time step{}: at {} = {} it would read step {}", access,
                                          *steps, plural(static_cast<std::size_t>(*steps), "", "s"), tName, *steps, *steps - *back),
                              loc));
  }

  // 4. inputs= (as in TVM, informational): a list of tensors, not the state.
  auto info = std::make_shared<ScanInfo>();
  if (a[3] && a[3]->kind != ValueKind::None) {
    const Value& inputs = *a[3];
    if (inputs.kind != ValueKind::List && inputs.kind != ValueKind::Tuple)
      return Unexpected(error("te.scan-argument", fmt::format("inputs= must be a list of tensors, got {}", describeValue(inputs)), inputs.loc));
    for (const auto& x : *inputs.items) {
      if (x.kind != ValueKind::Tensor)
        return Unexpected(error("te.scan-argument", fmt::format("inputs= must be a list of tensors, but this element is {}", describeValue(x)), x.loc));
      if (x.tensor.get() == &state)
        return Unexpected(error("te.scan-argument",
                                fmt::format("the state '{}' is not an input of the scan; list the tensors the init and update read", state.name),
                                x.loc));
      info->inputs.push_back(x.tensor);
    }
  }

  // 5. The scan tensor: the state's shape and dtype, a buffer named after the scan.
  auto name = nameArg(a[4], "scan", "scan");
  if (!name) return std::unexpected(name.error());
  if (!a[4] || a[4]->kind == ValueKind::None) *name = uniqueTensorName(*name);
  if (auto r = checkNewTensorName(*name, a[4] ? a[4]->loc : call.loc); !r) return std::unexpected(r.error());
  auto scan = std::make_shared<TensorInfo>();
  scan->isCompute = true;
  scan->name = *name;
  scan->loc = call.loc;
  if (a[5] && a[5]->kind != ValueKind::None) {
    if (a[5]->kind != ValueKind::Str)
      return Unexpected(error("te.bad-argument", fmt::format("tag must be a string, got {}", describeValue(*a[5])), a[5]->loc));
    scan->tag = a[5]->s;
  }
  if (a[6] && a[6]->kind != ValueKind::None) {
    auto attrs = attrsOf(*a[6]);
    if (!attrs) return std::unexpected(attrs.error());
    scan->attrs = std::move(*attrs);
  }
  scan->buffer = ir::makeBuffer(*name, state.buffer->dtype, stateShape);
  info->init = parts[0];
  info->update = parts[1];
  info->state = parts[2];
  info->initSteps = *steps;
  scan->scan = info;
  for (auto& p : parts) p->scanOwner = *name;
  m_tensors.push_back(scan);
  Value v;
  v.kind = ValueKind::Tensor;
  v.tensor = scan;
  v.loc = call.loc;
  return v;
}

Expected<void> Evaluator::checkScanUses() {
  // Which scan each part belongs to, and in which role.
  auto roleOf = [&](const TensorInfo& part) -> std::string {
    for (const auto& t : m_tensors)
      if (t->scan && t->name == part.scanOwner)
        return t->scan->init.get() == &part ? "init" : t->scan->update.get() == &part ? "update" : "state";
    return "part";
  };
  for (const auto& reader : m_tensors) {
    if (!reader->isCompute || reader->scan) continue;
    for (const auto& e : loadsIn(bodyOf(*reader))) {
      const auto* load = e.as<ir::BufferLoad>();
      for (const auto& part : m_tensors) {
        if (part->scanOwner.empty() || !load->buffer.sameAs(part->buffer)) continue;
        std::string role = roleOf(*part);
        if (role == "state" && reader->scanOwner == part->scanOwner && roleOf(*reader) == "update") continue;
        return Unexpected(error("te.scan-state-use",
                                fmt::format("compute '{}' reads '{}', the {} of scan '{}'; {}read the scan's result '{}' instead",
                                            reader->name, part->name, role, part->scanOwner,
                                            role == "state" ? "only the scan's update may read its state: " : "", part->scanOwner),
                                loadLocation(e, reader->loc)));
      }
    }
  }
  return {};
}

} // namespace loopscape::frontend::detail
