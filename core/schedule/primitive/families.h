// The primitive families of core/schedule, one file each under primitive/. Each family
// returns its rows of the instruction table; instruction.cpp registers them all once.
#pragma once

#include "core/schedule/instruction.h"

#include <span>
#include <vector>

namespace loopscape::schedule {

using FamilyFn = std::span<const InstructionKind> (*)();

std::span<const InstructionKind> queryKinds();         // get_block, get_loops, get_child_blocks, ...
std::span<const InstructionKind> loopTransformKinds(); // split, fuse, reorder
std::span<const InstructionKind> loopExtraKinds();     // add_unit_loop, loop_partition, tile
std::span<const InstructionKind> annotateKinds();      // parallel, vectorize, unroll, bind, annotate, unannotate
std::span<const InstructionKind> samplingKinds();      // sample_perfect_tile, sample_categorical, sample_compute_location
std::span<const InstructionKind> computeLocationKinds(); // compute_at, reverse_compute_at, compute_inline, reverse_compute_inline
std::span<const InstructionKind> cacheKinds();         // cache_read, cache_write, set_scope, storage_align
std::span<const InstructionKind> reductionKinds();     // decompose_reduction, rfactor
std::span<const InstructionKind> blockizeLayoutKinds(); // blockize, transform_layout

/// Every builtin family, in registration order.
std::vector<FamilyFn> builtinFamilies();

} // namespace loopscape::schedule
