// Internal to core/poly (isl types): the original program's model that the legality check
// caches per thread (legality.cpp), shared with the poly primitives so that a step on the
// original program itself (the first step of a Schedule, or one after undoing back to it)
// does not extract its Scop and compute its dependences a second time.
#pragma once

#include "core/poly/dependences.h"
#include "core/poly/scop.h"

#include <memory>
#include <vector>

namespace loopscape::poly::detail {

/// The original program's model in the common space of block iterator values.
struct OriginalModel {
  Scop scop;
  Dependences deps;
  std::vector<isl::map> depIter; ///< per dependence: { S[iterators] -> T[iterators] }
};

/// The same program: the same nodes (PrimFuncs are immutable trees of shared nodes).
bool sameProgram(const ir::PrimFunc& a, const ir::PrimFunc& b);

/// The calling thread's cached model of `original`, built on first use. Errors: those of
/// extractScop and computeDependences.
Expected<std::shared_ptr<const OriginalModel>> originalModel(const ir::PrimFunc& original);

} // namespace loopscape::poly::detail
