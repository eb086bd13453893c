// Internal to core/poly (isl types): the Scop and the dependences of a program, computed
// once per thread and program and shared by every core/poly entry point that needs them.
// One state of a session is analysed by several of them in turn (the dependence report of
// the TensorIR view, the schedule-tree description, the legality model of an original, the
// next poly step on it), and the dependence analysis is the expensive part (50-60 ms on
// the convolution samples). Programs are immutable trees of shared nodes, so a program is
// identified by its nodes (detail::sameProgram); an entry holds the PrimFunc, so the
// addresses cannot be reused by another program while it is cached.
#pragma once

#include "core/poly/dependences.h"
#include "core/poly/scop.h"

#include <memory>

namespace loopscape::poly::detail {

struct ProgramAnalysis {
  Scop scop;
  Dependences deps;
};

/// The same program: the same nodes (name, body and parameter handles).
bool sameProgram(const ir::PrimFunc& a, const ir::PrimFunc& b);

/// The calling thread's analysis of `func`, computed on first use (the last few programs
/// are kept). Errors: those of extractScop and computeDependences (not cached).
Expected<std::shared_ptr<const ProgramAnalysis>> analyzeProgram(const ir::PrimFunc& func);

/// The cached analysis of `func` if the calling thread has one (nothing is computed).
std::shared_ptr<const ProgramAnalysis> cachedProgramAnalysis(const ir::PrimFunc& func);

/// Empties the calling thread's cache (benchmarks time the uncached path with it).
void clearProgramAnalyses();

} // namespace loopscape::poly::detail
