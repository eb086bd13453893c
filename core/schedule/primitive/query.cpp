// Queries: get_block, get_loops, get_child_blocks, get_producers, get_consumers. They
// change nothing in the program; they define RVs (and are recorded, as in TVM's traces,
// because later instructions refer to the RVs they define).
#include "core/schedule/primitive/families.h"
#include "core/schedule/schedule_error.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::schedule {

namespace {

Expected<std::vector<RV>> applyGetBlock(Schedule& sch, const std::vector<TraceValue>& inputs,
                                        const std::vector<TraceValue>& attrs) {
  const auto* name = attrs.size() > 0 ? attrs[0].get<std::string>() : nullptr;
  (void)inputs;
  if (!name) return Unexpected(scheduleError("get_block", "bad-arguments", "get_block expects a block name"));
  // A schedule holds one function: TVM calls it "main" (tir.Schedule(func) makes the
  // module {"main": func}) whatever its own name, so both names find it.
  if (const auto* func = attrs.size() > 1 ? attrs[1].get<std::string>() : nullptr;
      func && *func != sch.func().name && *func != "main")
    return Unexpected(scheduleError("get_block", "unknown-function",
                                    fmt::format("there is no function named '{}'; the program is '{}'", *func,
                                                sch.func().name)));
  if (!sch.tree().findBlock(*name)) {
    std::vector<std::string> names;
    for (const auto* b : sch.tree().blocks()) names.push_back(b->block()->name);
    return Unexpected(scheduleError("get_block", "no-such-block",
                                    fmt::format("there is no block named '{}'; the blocks are: {}", *name,
                                                fmt::join(names, ", "))));
  }
  return std::vector<RV>{sch.defineBlock(*name)};
}

Expected<std::vector<RV>> applyGetLoops(Schedule& sch, const std::vector<TraceValue>& inputs,
                                        const std::vector<TraceValue>&) {
  auto block = sch.block(inputs.at(0), "get_loops");
  if (!block) return Unexpected(block.error());
  std::vector<RV> out;
  for (const auto* loop : sch.tree().loopsAbove(**block)) out.push_back(sch.defineLoop(loop->loop()->loopVar));
  return out;
}

Expected<std::vector<RV>> applyGetChildBlocks(Schedule& sch, const std::vector<TraceValue>& inputs,
                                              const std::vector<TraceValue>&) {
  auto node = sch.blockOrLoop(inputs.at(0), "get_child_blocks");
  if (!node) return Unexpected(node.error());
  std::vector<RV> out;
  for (const auto* b : sch.tree().childBlocks(**node)) out.push_back(sch.defineBlock(b->block()->name));
  return out;
}

bool touches(const std::vector<ir::BufferRegion>& regions, const ir::BufferNode* buffer) {
  return std::any_of(regions.begin(), regions.end(), [&](const auto& r) { return r.buffer.get() == buffer; });
}

/// Blocks of the same scope that write what `block` reads (producers) or read what it
/// writes (consumers), in program order.
Expected<std::vector<RV>> neighbours(Schedule& sch, const TraceValue& input, bool producers) {
  const char* prim = producers ? "get_producers" : "get_consumers";
  auto block = sch.block(input, prim);
  if (!block) return Unexpected(block.error());
  const auto* self = (*block)->block();
  const auto* scope = sch.tree().scopeBlock(**block);
  std::vector<RV> out;
  for (const auto* other : sch.tree().childBlocks(*scope)) {
    if (other == *block) continue;
    const auto* b = other->block();
    bool related = false;
    for (const auto& r : producers ? self->reads : self->writes)
      related |= touches(producers ? b->writes : b->reads, r.buffer.get());
    if (related) out.push_back(sch.defineBlock(b->name));
  }
  return out;
}

Expected<std::vector<RV>> applyGetProducers(Schedule& sch, const std::vector<TraceValue>& inputs,
                                            const std::vector<TraceValue>&) {
  return neighbours(sch, inputs.at(0), true);
}

Expected<std::vector<RV>> applyGetConsumers(Schedule& sch, const std::vector<TraceValue>& inputs,
                                            const std::vector<TraceValue>&) {
  return neighbours(sch, inputs.at(0), false);
}

} // namespace

std::span<const InstructionKind> queryKinds() {
  static const InstructionKind kinds[] = {
      {.name = "get_block",
       .jsonName = "GetBlock",
       .inputNames = {},
       .attrs = {{"name", TraceValue(), ParamKind::Text}, {"func_name", "main"}},
       .outputs = {RVKind::Block},
       .apply = applyGetBlock,
       .description = "look a block up by name",
       .isStep = false},
      {.name = "get_loops",
       .jsonName = "GetLoops",
       .inputNames = {"block"},
       .outputs = {RVKind::Loop},
       .outputsVariadic = true,
       .apply = applyGetLoops,
       .inputSpecs = {{}},
       .description = "the loops around a block, outermost first",
       .isStep = false},
      {.name = "get_child_blocks",
       .jsonName = "GetChildBlocks",
       .inputNames = {"block_or_loop"},
       .outputs = {RVKind::Block},
       .outputsVariadic = true,
       .apply = applyGetChildBlocks,
       .inputSpecs = {{}},
       .description = "the blocks inside a block or loop",
       .isStep = false},
      {.name = "get_producers",
       .jsonName = "GetProducers",
       .inputNames = {"block"},
       .outputs = {RVKind::Block},
       .outputsVariadic = true,
       .apply = applyGetProducers,
       .inputSpecs = {{}},
       .description = "the blocks a block reads from",
       .isStep = false},
      {.name = "get_consumers",
       .jsonName = "GetConsumers",
       .inputNames = {"block"},
       .outputs = {RVKind::Block},
       .outputsVariadic = true,
       .apply = applyGetConsumers,
       .inputSpecs = {{}},
       .description = "the blocks that read what a block writes",
       .isStep = false},
  };
  return kinds;
}

} // namespace loopscape::schedule
