#include "core/schedule/primitives.h"

namespace loopscape::schedule {

namespace {

template <typename T> std::vector<T> typed(const std::vector<RV>& rvs) {
  std::vector<T> out;
  out.reserve(rvs.size());
  for (const RV& rv : rvs)
    out.emplace_back(rv);
  return out;
}

template <typename T> Expected<std::vector<T>> many(Expected<std::vector<RV>> out) {
  if (!out) return Unexpected(out.error());
  return typed<T>(*out);
}

template <typename T> Expected<T> one(Expected<std::vector<RV>> out) {
  if (!out) return Unexpected(out.error());
  LS_ASSERT(out->size() == 1, "a primitive defined {} RVs where one was expected", out->size());
  return T(out->front());
}

Expected<void> none(Expected<std::vector<RV>> out) {
  if (!out) return Unexpected(out.error());
  return {};
}

template <typename T> TraceList listOf(const std::vector<T>& values) {
  TraceList out;
  out.reserve(values.size());
  for (const T& v : values)
    out.emplace_back(v);
  return out;
}

TraceList factorList(const std::vector<std::optional<std::int64_t>>& factors) {
  TraceList out;
  for (const auto& f : factors) {
    if (f)
      out.emplace_back(*f);
    else
      out.emplace_back();
  }
  return out;
}

std::vector<TraceValue> inputsOf(const std::vector<LoopRV>& loops) {
  std::vector<TraceValue> out;
  for (const LoopRV& l : loops)
    out.emplace_back(RV(l));
  return out;
}

TraceValue consumers(const std::optional<std::vector<BlockRV>>& blocks) {
  if (!blocks) return {};
  TraceList out;
  for (const BlockRV& b : *blocks)
    out.emplace_back(RV(b));
  return out;
}

TraceValue text(std::string_view s) { return std::string(s); }

} // namespace

// ---- lookups ----
Expected<BlockRV> getBlock(Schedule& sch, std::string_view name, std::string_view funcName) {
  return one<BlockRV>(sch.apply("get_block", {}, {text(name), text(funcName)}));
}
Expected<std::vector<LoopRV>> getLoops(Schedule& sch, BlockRV block) {
  return many<LoopRV>(sch.apply("get_loops", {RV(block)}));
}
Expected<std::vector<BlockRV>> getChildBlocks(Schedule& sch, BlockOrLoopRV blockOrLoop) {
  return many<BlockRV>(sch.apply("get_child_blocks", {RV(blockOrLoop)}));
}
Expected<std::vector<BlockRV>> getProducers(Schedule& sch, BlockRV block) {
  return many<BlockRV>(sch.apply("get_producers", {RV(block)}));
}
Expected<std::vector<BlockRV>> getConsumers(Schedule& sch, BlockRV block) {
  return many<BlockRV>(sch.apply("get_consumers", {RV(block)}));
}

// ---- loops ----
Expected<std::vector<LoopRV>> split(Schedule& sch, LoopRV loop, const std::vector<std::optional<std::int64_t>>& factors,
                                    bool preserveUnitIters, bool disablePredication) {
  return many<LoopRV>(sch.apply("split", {RV(loop), factorList(factors)}, {preserveUnitIters, disablePredication}));
}
Expected<std::vector<LoopRV>> split(Schedule& sch, LoopRV loop, const std::vector<ExprRV>& factors,
                                    bool preserveUnitIters, bool disablePredication) {
  TraceList list;
  for (const ExprRV& f : factors)
    list.emplace_back(RV(f));
  return many<LoopRV>(sch.apply("split", {RV(loop), std::move(list)}, {preserveUnitIters, disablePredication}));
}
Expected<LoopRV> fuse(Schedule& sch, const std::vector<LoopRV>& loops, bool preserveUnitIters) {
  return one<LoopRV>(sch.apply("fuse", inputsOf(loops), {preserveUnitIters}));
}
Expected<void> reorder(Schedule& sch, const std::vector<LoopRV>& orderedLoops) {
  return none(sch.apply("reorder", inputsOf(orderedLoops)));
}
Expected<LoopRV> addUnitLoop(Schedule& sch, BlockOrLoopRV blockOrLoop) {
  return one<LoopRV>(sch.apply("add_unit_loop", {RV(blockOrLoop)}));
}
Expected<std::vector<LoopRV>> loopPartition(Schedule& sch, LoopRV loop,
                                            const std::vector<std::optional<std::int64_t>>& factors,
                                            bool preserveUnitIters) {
  return many<LoopRV>(sch.apply("loop_partition", {RV(loop), factorList(factors)}, {preserveUnitIters}));
}

// ---- loop kinds and annotations ----
Expected<void> parallel(Schedule& sch, LoopRV loop) { return none(sch.apply("parallel", {RV(loop)})); }
Expected<void> vectorize(Schedule& sch, LoopRV loop) { return none(sch.apply("vectorize", {RV(loop)})); }
Expected<void> unroll(Schedule& sch, LoopRV loop) { return none(sch.apply("unroll", {RV(loop)})); }
Expected<void> bind(Schedule& sch, LoopRV loop, std::string_view threadAxis) {
  return none(sch.apply("bind", {RV(loop)}, {text(threadAxis)}));
}
Expected<void> annotate(Schedule& sch, BlockOrLoopRV blockOrLoop, std::string_view annKey, TraceValue annVal) {
  return none(sch.apply("annotate", {RV(blockOrLoop), std::move(annVal)}, {text(annKey)}));
}
Expected<void> unannotate(Schedule& sch, BlockOrLoopRV blockOrLoop, std::string_view annKey) {
  return none(sch.apply("unannotate", {RV(blockOrLoop)}, {text(annKey)}));
}

// ---- sampling ----
Expected<std::vector<ExprRV>> samplePerfectTile(Schedule& sch, LoopRV loop, std::int64_t n,
                                                std::int64_t maxInnermostFactor,
                                                std::optional<std::vector<std::int64_t>> decision) {
  std::optional<TraceValue> d;
  if (decision) d = listOf(*decision);
  return many<ExprRV>(sch.apply("sample_perfect_tile", {RV(loop)}, {n, maxInnermostFactor}, std::move(d)));
}
Expected<ExprRV> sampleCategorical(Schedule& sch, const std::vector<std::int64_t>& candidates,
                                   const std::vector<double>& probs, std::optional<std::int64_t> decision) {
  std::optional<TraceValue> d;
  if (decision) d = *decision;
  return one<ExprRV>(sch.apply("sample_categorical", {}, {listOf(candidates), listOf(probs)}, std::move(d)));
}
Expected<LoopRV> sampleComputeLocation(Schedule& sch, BlockRV block, std::optional<std::int64_t> decision) {
  std::optional<TraceValue> d;
  if (decision) d = *decision;
  return one<LoopRV>(sch.apply("sample_compute_location", {RV(block)}, {}, std::move(d)));
}

// ---- compute location ----
Expected<void> computeAt(Schedule& sch, BlockRV block, LoopRV loop, bool preserveUnitLoops, std::int64_t index) {
  return none(sch.apply("compute_at", {RV(block), RV(loop)}, {preserveUnitLoops, index}));
}
Expected<void> reverseComputeAt(Schedule& sch, BlockRV block, LoopRV loop, bool preserveUnitLoops, std::int64_t index) {
  return none(sch.apply("reverse_compute_at", {RV(block), RV(loop)}, {preserveUnitLoops, index}));
}
Expected<void> computeInline(Schedule& sch, BlockRV block) { return none(sch.apply("compute_inline", {RV(block)})); }
Expected<void> reverseComputeInline(Schedule& sch, BlockRV block) {
  return none(sch.apply("reverse_compute_inline", {RV(block)}));
}

// ---- caches and storage ----
Expected<BlockRV> cacheRead(Schedule& sch, BlockRV block, std::int64_t readBufferIndex, std::string_view storageScope,
                            std::optional<std::vector<BlockRV>> consumerBlocks) {
  return one<BlockRV>(
      sch.apply("cache_read", {RV(block), consumers(consumerBlocks)}, {readBufferIndex, text(storageScope)}));
}
Expected<BlockRV> cacheWrite(Schedule& sch, BlockRV block, std::int64_t writeBufferIndex, std::string_view storageScope,
                             std::optional<std::vector<BlockRV>> consumerBlocks) {
  return one<BlockRV>(
      sch.apply("cache_write", {RV(block), consumers(consumerBlocks)}, {writeBufferIndex, text(storageScope)}));
}
Expected<void> setScope(Schedule& sch, BlockRV block, std::int64_t bufferIndex, std::string_view storageScope) {
  return none(sch.apply("set_scope", {RV(block)}, {bufferIndex, text(storageScope)}));
}
Expected<void> storageAlign(Schedule& sch, BlockRV block, std::int64_t bufferIndex, std::int64_t axis,
                            std::int64_t factor, std::int64_t offset) {
  return none(sch.apply("storage_align", {RV(block)}, {bufferIndex, axis, factor, offset}));
}

// ---- reductions ----
Expected<BlockRV> decomposeReduction(Schedule& sch, BlockRV block, LoopRV loop) {
  return one<BlockRV>(sch.apply("decompose_reduction", {RV(block), RV(loop)}));
}
Expected<BlockRV> rfactor(Schedule& sch, LoopRV loop, std::int64_t factorAxis) {
  return one<BlockRV>(sch.apply("rfactor", {RV(loop)}, {factorAxis}));
}

// ---- blockize and layouts ----
Expected<BlockRV> blockize(Schedule& sch, LoopRV loop, bool preserveUnitIters) {
  return one<BlockRV>(sch.apply("blockize", {RV(loop)}, {preserveUnitIters}));
}
Expected<void> transformLayout(Schedule& sch, BlockRV block, BufferIndex buffer, IndexMap indexMap, TraceValue padValue,
                               bool assumeInjectiveTransform) {
  TraceList access{std::string(buffer.kind == BufferIndex::Kind::Read ? "read" : "write"), buffer.index};
  return none(sch.apply("transform_layout", {RV(block), std::move(access), std::move(indexMap)},
                        {std::move(padValue), assumeInjectiveTransform}));
}

} // namespace loopscape::schedule
