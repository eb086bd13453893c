// Internal to core/poly (isl types): the Scop and the dependences of a program state.
//
// They are analyses of the state (schedule::ProgramState): computed once per state, by
// the first thread that needs them, and shared with every other thread in a serialised,
// isl-free form (SharedAnalysis: the Scop and dependences with their isl objects as isl
// text) that each thread re-reads into its own isl context. A thread keeps the isl form of
// the last few states it analysed or re-read (keyed by the state, which the entry keeps
// alive), so whether a request is cheap no longer depends on which thread computed it:
// the dependence analysis (50-60 ms on the convolution samples) runs once per state; a
// re-read costs a parse.
//
// The structure alone (ScopContent::Structure: what a legality check needs of the current
// program and what the tree view shows) is cheap and computed per thread.
#pragma once

#include "core/poly/dependences.h"
#include "core/poly/scop.h"
#include "core/schedule/program_state.h"

#include <memory>

namespace loopscape::poly::detail {

struct ProgramAnalysis {
  Scop scop;
  Dependences deps;
};

/// The calling thread's isl form of the state's full Scop and dependences (computed on
/// first use by any thread, re-read from the shared text by the others). Errors: those
/// of extractScop and computeDependences (kept on the state).
Expected<std::shared_ptr<const ProgramAnalysis>> analyzeProgram(const schedule::ProgramState& state);

/// The analysis if this thread has it or the state holds it already (nothing is
/// computed; a re-read may happen).
std::shared_ptr<const ProgramAnalysis> cachedProgramAnalysis(const schedule::ProgramState& state);

/// The state's Scop without accesses (ScopContent::Structure) on the calling thread (the
/// full Scop when this thread has it).
Expected<std::shared_ptr<const Scop>> programStructure(const schedule::ProgramState& state);

/// Whether the state holds its shared analysis and it reads back exactly on the calling
/// thread (when not, other threads compute the analysis themselves). For tests.
bool sharedAnalysisRereads(const schedule::ProgramState& state);

/// Empties the calling thread's cache (benchmarks time the uncached path with it; the
/// states keep what they share).
void clearProgramAnalyses();

} // namespace loopscape::poly::detail
