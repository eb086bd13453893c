// Loop kinds and annotations: parallel, vectorize, unroll, bind, annotate, unannotate
// (TVM's tir.Schedule semantics, src/tir/schedule/primitive/for_kind.cc and annotate.cc).
//
// parallel(loop) / vectorize(loop)
//   Preconditions, checked in this order:
//   1. the loop has no thread binding                               (thread-bound)
//      (TVM would silently replace the binding; Loopscape refuses, so a binding is never
//      lost by accident.)
//   2. compact dataflow: every block directly under the loop (not inside a nested block)
//      is, within the loop's subtree, a complete block (spatial iterators only, the only
//      writer of its outputs among those blocks, reads and writes disjoint) or a
//      reduction block (an init, spatial/reduce iterators, the only writer of its
//      outputs, no reduce iterator in the indices of its write regions)
//                                                                   (not-compact-dataflow)
//   3. every block below the loop has quasi-affine bindings: sums of loop variables
//      times constants, floordiv/floormod by positive constants   (non-affine-binding)
//   4. the loop variable appears only in the bindings of spatial iterators of the blocks
//      below (parallel(k) of a matmul is the classic refusal)       (reduce-iter)
//   Effect: the loop's kind becomes parallel / vectorized.
//
// bind(loop, thread_axis)
//   0. thread_axis is one of blockIdx.x/y/z, threadIdx.x/y/z, vthread.x/y/z
//                                                                   (invalid-thread-axis)
//   1.-4. as parallel, except that for threadIdx.* the loop may also feed reduce
//      iterators (cross-thread reduction).
//   Effect: the loop becomes `T.thread_binding(extent, thread="<axis>")`.
//
// unroll(loop)
//   Requires nothing (as in TVM): the loop becomes `T.unroll`, a thread binding is dropped.
//
// annotate(block_or_loop, ann_key, ann_val)
//   1. ann_val is an int (stored as an int32 IntImm), a float (float32 FloatImm), a string
//      (StringImm) or a sampled ExprRV (its int32 value)             (bad-annotation-value)
//   Effect: sets (or overwrites) the key in the For's or the Block's annotations.
//
// unannotate(block_or_loop, ann_key)
//   1. the key is present                                            (no-such-annotation)
//
// Trace form as TVM's: Parallel/Vectorize/Unroll [loop] [] ; Bind [loop] [thread_axis] ;
// Annotate [block_or_loop, ann_val] [ann_key] ; Unannotate [block_or_loop] [ann_key].
#include "core/schedule/primitive/families.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/checked_arith.h"
#include "core/ir/printer.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

namespace loopscape::schedule {

using namespace detail;

namespace {

constexpr std::array<std::string_view, 9> kThreadAxes = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                                         "threadIdx.x", "threadIdx.y", "threadIdx.z",
                                                         "vthread.x",   "vthread.y",   "vthread.z"};

/// True if `e` is quasi-affine: constants, variables, +, -, * by a constant,
/// floordiv/floormod by a positive constant.
bool isQuasiAffine(const ir::Expr& e) {
  if (e.is<ir::IntImm>() || e.is<ir::Var>()) return true;
  if (const auto* op = e.as<ir::Add>()) return isQuasiAffine(op->a) && isQuasiAffine(op->b);
  if (const auto* op = e.as<ir::Sub>()) return isQuasiAffine(op->a) && isQuasiAffine(op->b);
  if (const auto* op = e.as<ir::Mul>())
    return (op->a.is<ir::IntImm>() && isQuasiAffine(op->b)) || (op->b.is<ir::IntImm>() && isQuasiAffine(op->a));
  auto positiveConst = [](const ir::Expr& x) {
    auto v = ir::asConstInt(x);
    return v && *v > 0;
  };
  if (const auto* op = e.as<ir::FloorDiv>()) return positiveConst(op->b) && isQuasiAffine(op->a);
  if (const auto* op = e.as<ir::FloorMod>()) return positiveConst(op->b) && isQuasiAffine(op->a);
  return false;
}

bool writesBuffer(const ir::Block& b, const ir::BufferNode* buf) {
  return std::any_of(b.writes.begin(), b.writes.end(), [&](const auto& r) { return r.buffer.get() == buf; });
}

/// Why `block` is neither a complete nor a reduction block among `siblings` (the blocks
/// directly under the loop); empty if it is one of them.
std::string compactDataflowViolation(const ir::Block& block, const std::vector<const TreeNode*>& siblings) {
  bool hasReduce = false;
  for (const auto& iv : block.iterVars) {
    if (iv.kind != ir::IterKind::Spatial && iv.kind != ir::IterKind::Reduce)
      return fmt::format("it has the {} iterator '{}'", ir::iterKindName(iv.kind), iv.var.as<ir::Var>()->name);
    hasReduce |= iv.kind == ir::IterKind::Reduce;
  }
  for (const auto& w : block.writes) {
    for (const auto* other : siblings) {
      if (other->block() == &block) continue;
      if (writesBuffer(*other->block(), w.buffer.get()))
        return fmt::format("it is not the only writer of '{}' under the loop (block '{}' writes it too)",
                           w.buffer->name, other->block()->name);
    }
  }
  if (!hasReduce) {
    for (const auto& r : block.reads)
      if (writesBuffer(block, r.buffer.get()))
        return fmt::format("it has only spatial iterators but reads the buffer '{}' it writes", r.buffer->name);
    return {};
  }
  if (!block.init.defined()) return "it has reduce iterators but no init statement";
  std::vector<const ir::ExprNode*> reduceVars;
  for (const auto& iv : block.iterVars)
    if (iv.kind == ir::IterKind::Reduce) reduceVars.push_back(iv.var.get());
  for (const auto& w : block.writes)
    for (const auto& range : w.region)
      if (usesAnyVar(range.min, reduceVars) || usesAnyVar(range.extent, reduceVars))
        return fmt::format("a reduce iterator indexes its output '{}'", w.buffer->name);
  return {};
}

/// Preconditions 1-4 shared by parallel, vectorize and bind.
Expected<void> checkParallelizable(const Schedule& sch, const TreeNode& loop, std::string_view prim,
                                   bool allowReduce) {
  const ir::For& f = *loop.loop();
  const std::string& name = loopName(loop);
  // 1. no thread binding.
  if (f.forKind == ir::ForKind::ThreadBinding)
    return Unexpected(scheduleError(prim, "thread-bound",
                                    fmt::format("the loop '{}' is already bound to '{}'; {} needs a loop without "
                                                "thread binding",
                                                name, f.threadTag, prim),
                                    {loopRef(name)}));
  // 2. compact dataflow among the blocks directly under the loop.
  const auto children = sch.tree().childBlocks(loop);
  for (const auto* child : children) {
    const std::string why = compactDataflowViolation(*child->block(), children);
    if (!why.empty())
      return Unexpected(scheduleError(prim, "not-compact-dataflow",
                                      fmt::format("the block '{}' under loop '{}' is neither a complete block nor a "
                                                  "reduction block: {}",
                                                  child->block()->name, name, why),
                                      {loopRef(name), blockRef(child->block()->name)}));
  }
  // 3-4. bindings of every block below.
  const auto realizes = realizesBelow(f.body);
  for (const auto* realize : realizes) {
    const ir::Block& block = realize->blockNode();
    for (std::size_t i = 0; i < realize->iterValues.size(); ++i) {
      if (!isQuasiAffine(realize->iterValues[i]))
        return Unexpected(scheduleError(prim, "non-affine-binding",
                                        fmt::format("the block '{}' under loop '{}' binds its iterator '{}' to {}, "
                                                    "which is not an affine expression of the loops",
                                                    block.name, name, block.iterVars[i].var.as<ir::Var>()->name,
                                                    ir::printExpr(realize->iterValues[i])),
                                        {loopRef(name), blockRef(block.name)}));
    }
  }
  const std::vector<const ir::ExprNode*> self{f.loopVar.get()};
  for (const auto* realize : realizes) {
    const ir::Block& block = realize->blockNode();
    for (std::size_t i = 0; i < realize->iterValues.size(); ++i) {
      const ir::IterKind kind = block.iterVars[i].kind;
      if (kind == ir::IterKind::Spatial || (allowReduce && kind == ir::IterKind::Reduce)) continue;
      if (usesAnyVar(realize->iterValues[i], self))
        return Unexpected(scheduleError(
            prim, "reduce-iter",
            fmt::format("the loop '{}' is bound to the {} iterator '{}' of block '{}'; {} needs a loop that "
                        "only feeds spatial (data-parallel) iterators",
                        name, ir::iterKindName(kind), block.iterVars[i].var.as<ir::Var>()->name, block.name,
                        prim == "bind" ? "binding to this thread axis" : std::string(prim)),
            {loopRef(name), blockRef(block.name)}));
    }
  }
  return {};
}

Expected<std::vector<RV>> setKind(Schedule& sch, const TreeNode& loop, ir::ForKind kind, std::string tag = {}) {
  const ir::For& f = *loop.loop();
  ir::Stmt updated = ir::For::make(f.loopVar, f.min, f.extent, kind, f.body, std::move(tag), f.annotations);
  if (auto ok = sch.replace(replaced(sch, loop.node, updated)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{};
}

Expected<std::vector<RV>> parallelLike(Schedule& sch, const std::vector<TraceValue>& inputs, std::string_view prim,
                                       ir::ForKind kind) {
  auto loop = sch.loop(inputs.at(0), prim);
  if (!loop) return Unexpected(loop.error());
  if (auto ok = checkParallelizable(sch, **loop, prim, false); !ok) return Unexpected(ok.error());
  return setKind(sch, **loop, kind);
}

Expected<std::vector<RV>> applyParallel(Schedule& sch, const std::vector<TraceValue>& inputs,
                                        const std::vector<TraceValue>&) {
  return parallelLike(sch, inputs, "parallel", ir::ForKind::Parallel);
}

Expected<std::vector<RV>> applyVectorize(Schedule& sch, const std::vector<TraceValue>& inputs,
                                         const std::vector<TraceValue>&) {
  return parallelLike(sch, inputs, "vectorize", ir::ForKind::Vectorized);
}

Expected<std::vector<RV>> applyUnroll(Schedule& sch, const std::vector<TraceValue>& inputs,
                                      const std::vector<TraceValue>&) {
  auto loop = sch.loop(inputs.at(0), "unroll");
  if (!loop) return Unexpected(loop.error());
  return setKind(sch, **loop, ir::ForKind::Unrolled);
}

Expected<std::vector<RV>> applyBind(Schedule& sch, const std::vector<TraceValue>& inputs,
                                    const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "bind";
  auto loop = sch.loop(inputs.at(0), prim);
  if (!loop) return Unexpected(loop.error());
  const auto* axis = attrs.at(0).get<std::string>();
  if (!axis || std::find(kThreadAxes.begin(), kThreadAxes.end(), *axis) == kThreadAxes.end())
    return Unexpected(scheduleError(prim, "invalid-thread-axis",
                                    fmt::format("'{}' is not a thread axis; the valid ones are: {}",
                                                axis ? *axis : std::string("(not a string)"),
                                                fmt::join(kThreadAxes, ", ")),
                                    {loopRef(loopName(**loop))}));
  const bool crossThreadReduction = axis->starts_with("threadIdx.");
  if (auto ok = checkParallelizable(sch, **loop, prim, crossThreadReduction); !ok) return Unexpected(ok.error());
  return setKind(sch, **loop, ir::ForKind::ThreadBinding, *axis);
}

/// Replaces the annotations of a loop or a block.
Expected<std::vector<RV>> setAnnotations(Schedule& sch, const TreeNode& node, ir::Annotations annotations) {
  ir::Stmt updated;
  if (const auto* f = node.loop()) {
    updated = ir::For::make(f->loopVar, f->min, f->extent, f->forKind, f->body, f->threadTag, std::move(annotations));
  } else {
    const auto* b = node.block();
    updated = ir::Block::make(b->name, b->iterVars, b->reads, b->writes, b->body, b->init, b->allocBuffers,
                              std::move(annotations));
  }
  if (auto ok = sch.replace(replaced(sch, node.node, updated)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{};
}

const ir::Annotations& annotationsOf(const TreeNode& node) {
  return node.loop() ? node.loop()->annotations : node.block()->annotations;
}

IrReference refOf(const TreeNode& node) {
  return node.loop() ? loopRef(loopName(node)) : blockRef(node.block()->name);
}

std::string describe(const TreeNode& node) {
  return node.loop() ? fmt::format("loop '{}'", loopName(node)) : fmt::format("block '{}'", node.block()->name);
}

Expected<std::vector<RV>> applyAnnotate(Schedule& sch, const std::vector<TraceValue>& inputs,
                                        const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "annotate";
  auto node = sch.blockOrLoop(inputs.at(0), prim);
  if (!node) return Unexpected(node.error());
  const auto* key = attrs.at(0).get<std::string>();
  if (!key) return Unexpected(scheduleError(prim, "bad-arguments", "annotate expects a string ann_key"));
  const TraceValue& v = inputs.size() > 1 ? inputs[1] : TraceValue();
  ir::Expr value;
  // An integer is an int32 IntImm when it fits and an int64 one otherwise (TVM's convert),
  // never a wrapped int32.
  auto integerValue = [](std::int64_t x) {
    return ir::IntImm::make(ir::fitsSignedBits(x, 32) ? ir::DataType::int32() : ir::DataType::int64(), x);
  };
  if (const auto* i = v.get<std::int64_t>()) {
    value = integerValue(*i);
  } else if (const auto* d = v.get<double>()) {
    value = ir::FloatImm::make(ir::DataType::float32(), *d);
  } else if (const auto* s = v.get<std::string>()) {
    value = ir::StringImm::make(*s);
  } else if (const RV* rv = v.get<RV>(); rv && rv->kind == RVKind::Expr) {
    auto x = sch.integer(v, prim);
    if (!x) return Unexpected(x.error());
    value = integerValue(*x);
  } else {
    return Unexpected(scheduleError(prim, "bad-annotation-value",
                                    fmt::format("the value of annotation '{}' on {} must be an int, a float, a "
                                                "string or a sampled integer",
                                                *key, describe(**node)),
                                    {refOf(**node)}));
  }
  ir::Annotations annotations = annotationsOf(**node);
  annotations[*key] = value;
  return setAnnotations(sch, **node, std::move(annotations));
}

Expected<std::vector<RV>> applyUnannotate(Schedule& sch, const std::vector<TraceValue>& inputs,
                                          const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "unannotate";
  auto node = sch.blockOrLoop(inputs.at(0), prim);
  if (!node) return Unexpected(node.error());
  const auto* key = attrs.at(0).get<std::string>();
  if (!key) return Unexpected(scheduleError(prim, "bad-arguments", "unannotate expects a string ann_key"));
  ir::Annotations annotations = annotationsOf(**node);
  if (!annotations.contains(*key)) {
    std::vector<std::string> keys;
    for (const auto& [k, _] : annotations) keys.push_back(fmt::format("'{}'", k));
    return Unexpected(scheduleError(prim, "no-such-annotation",
                                    fmt::format("{} has no annotation '{}'; its annotations are: {}", describe(**node),
                                                *key, keys.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(keys, ", "))),
                                    {refOf(**node)}));
  }
  annotations.erase(*key);
  return setAnnotations(sch, **node, std::move(annotations));
}

} // namespace

std::span<const InstructionKind> annotateKinds() {
  static const InstructionKind kinds[] = {
      {.name = "parallel",
       .jsonName = "Parallel",
       .inputNames = {"loop"},
       .apply = applyParallel,
       .appliesTo = AppliesTo::Loop,
       .inputSpecs = {{}},
       .description = "run the loop's iterations in parallel",
       .shortcut = "Ctrl+Alt+P",
       .panelRank = 3},
      {.name = "vectorize",
       .jsonName = "Vectorize",
       .inputNames = {"loop"},
       .apply = applyVectorize,
       .appliesTo = AppliesTo::Loop,
       .inputSpecs = {{}},
       .description = "turn the loop into vector operations",
       .shortcut = "Ctrl+Alt+V",
       .panelRank = 4},
      {.name = "unroll",
       .jsonName = "Unroll",
       .inputNames = {"loop"},
       .apply = applyUnroll,
       .appliesTo = AppliesTo::Loop,
       .inputSpecs = {{}},
       .description = "unroll the loop",
       .shortcut = "Ctrl+Alt+U",
       .panelRank = 5},
      {.name = "bind",
       .jsonName = "Bind",
       .inputNames = {"loop"},
       .attrs = {{.name = "thread_axis",
                  .defaultValue = TraceValue(),
                  .kind = ParamKind::EditableChoice,
                  .choices = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z",
                              "vthread.x", "vthread.y", "vthread.z"}}},
       .apply = applyBind,
       .appliesTo = AppliesTo::Loop,
       .inputSpecs = {{}},
       .description = "bind the loop to a GPU thread axis",
       .shortcut = "Ctrl+Alt+B",
       .panelRank = 14},
      {.name = "annotate",
       .jsonName = "Annotate",
       .inputNames = {"block_or_loop", "ann_val"},
       .attrs = {{"ann_key", TraceValue(), ParamKind::Text}},
       .apply = applyAnnotate,
       .appliesTo = AppliesTo::BlockOrLoop,
       .inputSpecs = {{}, {ParamKind::Literal}},
       .description = "attach an annotation",
       .shortcut = "Ctrl+Alt+N",
       .pythonOrder = {"block_or_loop", "ann_key", "ann_val"}},
      {.name = "unannotate",
       .jsonName = "Unannotate",
       .inputNames = {"block_or_loop"},
       .attrs = {{"ann_key", TraceValue(), ParamKind::Text}},
       .apply = applyUnannotate,
       .appliesTo = AppliesTo::BlockOrLoop,
       .inputSpecs = {{}},
       .description = "remove an annotation",
       .shortcut = "Ctrl+Alt+Shift+N"},
  };
  return kinds;
}

} // namespace loopscape::schedule
