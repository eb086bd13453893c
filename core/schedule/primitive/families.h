// The primitive families of core/schedule, one file each under primitive/. Each family
// returns its rows of the instruction table; instruction.cpp registers them all once.
#pragma once

#include "core/schedule/instruction.h"

#include <span>
#include <vector>

namespace loopscape::schedule {

using FamilyFn = std::span<const InstructionKind> (*)();

std::span<const InstructionKind> queryKinds();         // get_block, get_loops, get_child_blocks, ...
std::span<const InstructionKind> loopTransformKinds(); // split, fuse, reorder, add_unit_loop, ...

/// Every builtin family, in registration order.
std::vector<FamilyFn> builtinFamilies();

} // namespace loopscape::schedule
