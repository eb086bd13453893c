// Typed entry points of the TIR schedule primitives, in TVM's tir.Schedule order and
// spelling (camelCase here, snake_case in traces): what C++ callers (tile, a tuner, tests)
// use instead of applying an instruction by name. Each builds the instruction's inputs and
// attributes and goes through Schedule::apply and the one instruction table, so a typed
// call records exactly the instruction that `sch.apply("split", ...)` records, and refuses
// exactly what it refuses. The preconditions are those of the primitive's family file.
//
// RVs are typed: a BlockRV, a LoopRV or an ExprRV (a sampled integer) wraps the trace RV
// and converts back to it; primitives taking "a block or a loop" take a BlockOrLoopRV.
#pragma once

#include "core/schedule/schedule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::schedule {

/// A trace RV of kind `K`. Wrapping an untyped RV is explicit; an RV of another kind
/// is refused by the primitive, as it is by name.
template <RVKind K> struct TypedRV {
  RV rv{K, -1};
  TypedRV() = default;
  explicit TypedRV(RV r) : rv(r) {}
  operator RV() const { return rv; }
  friend bool operator==(const TypedRV&, const TypedRV&) = default;
};
using BlockRV = TypedRV<RVKind::Block>;
using LoopRV = TypedRV<RVKind::Loop>;
using ExprRV = TypedRV<RVKind::Expr>;

/// A block or a loop (annotate, add_unit_loop, get_child_blocks, blockize).
struct BlockOrLoopRV {
  RV rv;
  BlockOrLoopRV(BlockRV b) : rv(b) {}
  BlockOrLoopRV(LoopRV l) : rv(l) {}
  operator RV() const { return rv; }
};

/// Which buffer of a block transform_layout re-indexes: its `index`-th read or write.
struct BufferIndex {
  enum class Kind : std::uint8_t { Read, Write } kind = Kind::Read;
  std::int64_t index = 0;
};

// ---- lookups (query.cpp) ----
Expected<BlockRV> getBlock(Schedule& sch, std::string_view name, std::string_view funcName = "main");
Expected<std::vector<LoopRV>> getLoops(Schedule& sch, BlockRV block);
Expected<std::vector<BlockRV>> getChildBlocks(Schedule& sch, BlockOrLoopRV blockOrLoop);
Expected<std::vector<BlockRV>> getProducers(Schedule& sch, BlockRV block);
Expected<std::vector<BlockRV>> getConsumers(Schedule& sch, BlockRV block);

// ---- loops (loop_transform.cpp, loop_extra.cpp) ----
/// `factors`: at most one std::nullopt (inferred from the extent).
Expected<std::vector<LoopRV>> split(Schedule& sch, LoopRV loop, const std::vector<std::optional<std::int64_t>>& factors,
                                    bool preserveUnitIters = true, bool disablePredication = false);
/// Split by sampled factors (sample_perfect_tile's results).
Expected<std::vector<LoopRV>> split(Schedule& sch, LoopRV loop, const std::vector<ExprRV>& factors,
                                    bool preserveUnitIters = true, bool disablePredication = false);
Expected<LoopRV> fuse(Schedule& sch, const std::vector<LoopRV>& loops, bool preserveUnitIters = true);
Expected<void> reorder(Schedule& sch, const std::vector<LoopRV>& orderedLoops);
Expected<LoopRV> addUnitLoop(Schedule& sch, BlockOrLoopRV blockOrLoop);
Expected<std::vector<LoopRV>> loopPartition(Schedule& sch, LoopRV loop,
                                            const std::vector<std::optional<std::int64_t>>& factors,
                                            bool preserveUnitIters = true);

// ---- loop kinds and annotations (annotate.cpp) ----
Expected<void> parallel(Schedule& sch, LoopRV loop);
Expected<void> vectorize(Schedule& sch, LoopRV loop);
Expected<void> unroll(Schedule& sch, LoopRV loop);
Expected<void> bind(Schedule& sch, LoopRV loop, std::string_view threadAxis);
Expected<void> annotate(Schedule& sch, BlockOrLoopRV blockOrLoop, std::string_view annKey, TraceValue annVal);
Expected<void> unannotate(Schedule& sch, BlockOrLoopRV blockOrLoop, std::string_view annKey);

// ---- sampling (sampling.cpp): a given decision is replayed instead of sampled ----
Expected<std::vector<ExprRV>> samplePerfectTile(Schedule& sch, LoopRV loop, std::int64_t n,
                                                std::int64_t maxInnermostFactor = 16,
                                                std::optional<std::vector<std::int64_t>> decision = {});
Expected<ExprRV> sampleCategorical(Schedule& sch, const std::vector<std::int64_t>& candidates,
                                   const std::vector<double>& probs, std::optional<std::int64_t> decision = {});
Expected<LoopRV> sampleComputeLocation(Schedule& sch, BlockRV block, std::optional<std::int64_t> decision = {});

// ---- compute location (compute_at.cpp, compute_inline.cpp) ----
Expected<void> computeAt(Schedule& sch, BlockRV block, LoopRV loop, bool preserveUnitLoops = false,
                         std::int64_t index = -1);
Expected<void> reverseComputeAt(Schedule& sch, BlockRV block, LoopRV loop, bool preserveUnitLoops = false,
                                std::int64_t index = -1);
Expected<void> computeInline(Schedule& sch, BlockRV block);
Expected<void> reverseComputeInline(Schedule& sch, BlockRV block);

// ---- caches and storage (cache.cpp, cache_storage.cpp) ----
/// `consumerBlocks`: std::nullopt for every consumer (None in the trace).
Expected<BlockRV> cacheRead(Schedule& sch, BlockRV block, std::int64_t readBufferIndex, std::string_view storageScope,
                            std::optional<std::vector<BlockRV>> consumerBlocks = {});
Expected<BlockRV> cacheWrite(Schedule& sch, BlockRV block, std::int64_t writeBufferIndex, std::string_view storageScope,
                             std::optional<std::vector<BlockRV>> consumerBlocks = {});
Expected<void> setScope(Schedule& sch, BlockRV block, std::int64_t bufferIndex, std::string_view storageScope);
Expected<void> storageAlign(Schedule& sch, BlockRV block, std::int64_t bufferIndex, std::int64_t axis,
                            std::int64_t factor, std::int64_t offset);

// ---- reductions (reduction.cpp, rfactor.cpp) ----
Expected<BlockRV> decomposeReduction(Schedule& sch, BlockRV block, LoopRV loop);
Expected<BlockRV> rfactor(Schedule& sch, LoopRV loop, std::int64_t factorAxis = 0);

// ---- blockize and layouts (blockize.cpp, transform_layout.cpp) ----
Expected<BlockRV> blockize(Schedule& sch, LoopRV loop, bool preserveUnitIters = true);
Expected<void> transformLayout(Schedule& sch, BlockRV block, BufferIndex buffer, IndexMap indexMap,
                               TraceValue padValue = {}, bool assumeInjectiveTransform = false);

} // namespace loopscape::schedule
