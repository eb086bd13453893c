// Full/partial tile separation of the vector member for poly_optimize ("tail by
// partition"), applied to the program before the isl scheduler runs, after packing.
//
// tile_model.h vectorizes a member by a power of two that divides its extent; an extent
// such as PolyBench's NJ = 220 leaves 4 lanes of a 16-lane machine. Here a block in a
// perfect loop nest of its own is split in two nests when
//   * it is a reduction (a block with an init), or it reads the output of a reduction
//     split before it (a consumer the isl scheduler may fuse with it: split the same way,
//     the fused band stays a box with whole tiles);
//   * it is the only writer of its buffer (not a scan's state) and reads its output only
//     at the element it writes (an accumulation: no instance depends on another);
//   * its output's last index is a spatial iterator v bound to a nest loop l (from 0,
//     constant extent E), and every access moves by one element or not at all along v
//     (v only in the last index, alone or plus a term without v: a vector member);
//   * E is not a multiple of the machine's lanes L but at least 2L.
// The two nests: the block over l in [0, F) with F = E - E % L (full vectors), and a copy
// `<block>_tail` over the remaining E - F values (its loop rebased to 0, v bound to l + F;
// fresh loop variables), placed right after it. Each output element is computed by
// exactly one copy, with the whole reduction and its own init. The isl scheduler then
// sees two statements; the full one gets L-lane vectors, the tail its own width. The tail
// copy has no counterpart in the original program, so the exact legality check leaves it
// to the interpreter tests (legality.h: unmatched statements).
#pragma once

#include "core/ir/prim_func.h"
#include "core/poly/tile_model.h"

#include <string>
#include <vector>

namespace loopscape::poly {

struct TailSplitResult {
  ir::PrimFunc func;              ///< the program with its tail copies (the input when none)
  std::vector<std::string> notes; ///< per split, in words
  int split = 0;
};

/// Splits every candidate nest of `func` (see the file comment) for `machine`'s lanes.
TailSplitResult splitVectorTails(const ir::PrimFunc& func, const MachineModel& machine);

} // namespace loopscape::poly
