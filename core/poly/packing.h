// Memory promotion / packing for poly_optimize (Polly's operand packing, PPCG's local copies
// on a CPU), applied to the program before the isl scheduler runs. tile_model.h's
// planPack decides from the program alone (no machine sizes but the vector width), so a
// trace replays to the same program on any machine with the same vector width.
//
// Candidates: a reduction block (a block with an init) whose update is one store
// `O[..., v] = ...` with plain iterators as indices, reading a function parameter X that
// no block writes with plain, distinct iterators as indices, where v (the output's last
// index) indexes a dimension of X that is not the last one. A planned pack becomes
// cache_read(block, X, "global") (a copy block `X_global` first in the root block,
// every reader redirected) and transform_layout of the copy's buffer by the permutation
// that puts v's dimension last. The copy is an ordinary block with reads and writes; the
// isl scheduler orders it before its readers (the RAW dependences) and poly_optimize
// tiles it like every band.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/poly/tile_model.h"

#include <string>
#include <vector>

namespace loopscape::poly {

struct PackResult {
  ir::PrimFunc func;              ///< the program with its copies (the input when nothing is packed)
  std::vector<std::string> notes; ///< per candidate, the decision in words
  int packed = 0;                 ///< copies made
};

/// The packing candidates of `func` (see the file comment), in block order.
std::vector<PackCandidate> packCandidates(const ir::PrimFunc& func);

/// Plans every candidate with planPack and applies the planned copies. A copy the
/// cache_read or transform_layout primitive refuses is left out, its diagnostic's message
/// in `notes`; no error is returned today (Expected for the callers' sake).
Expected<PackResult> packInputs(const ir::PrimFunc& func, const MachineModel& machine);

} // namespace loopscape::poly
