// Internal to core/poly (isl types): the Scop and the dependences of a program state
// (schedule::ProgramState), in the calling thread's isl context.
//
// isl objects never cross threads, so what the states share across threads are the
// isl-free analyses built from these (the dependence report, the schedule-tree
// description, the views' snapshots: report.h, tree_description.h). Each thread keeps the
// isl form of the last few states it analysed, keyed by the state (which the entry keeps
// alive), so the poly step, the legality check and the views' analysis of one state on
// one thread extract and analyse it once. A state made again from the same PrimFunc object
// (the same nodes: the tuner's candidates, each made from the original program) shares
// the first one's entry. A serialised form re-read by other threads was
// tried and dropped: isl's parser takes as long as the analysis itself (conv_bias_relu:
// 56-70 ms to re-read with a consistency check, 37 ms to compute).
//
// The structure alone (ScopContent::Structure: what a legality check needs of the current
// program and what the tree view shows) is cheap and kept per thread the same way.
#pragma once

#include "core/poly/dependences.h"
#include "core/poly/scop.h"
#include "core/schedule/program_state.h"

#include <map>
#include <memory>
#include <string>

namespace loopscape::poly::detail {

struct ProgramAnalysis {
  Scop scop;
  Dependences deps;
  /// The isl scheduler's trees on this program, by fusion (poly_optimize's first step,
  /// the same for every candidate of the tuner's polyhedral family: they differ by tile
  /// sizes only). Filled by poly_optimize; this thread's, as the rest.
  mutable std::map<std::string, isl::schedule> islSchedules;
};

/// The same program object: the same name and the same (immutable, shared) nodes. Whoever
/// keys a cache on it keeps one of the two alive, so the nodes' addresses are not reused.
bool sameProgram(const ir::PrimFunc& a, const ir::PrimFunc& b);

/// The calling thread's isl form of the state's full Scop and dependences (computed on
/// first use on this thread). Errors: those of extractScop and computeDependences.
Expected<std::shared_ptr<const ProgramAnalysis>> analyzeProgram(const schedule::ProgramState& state);

/// The analysis if this thread has it (nothing is computed).
std::shared_ptr<const ProgramAnalysis> cachedProgramAnalysis(const schedule::ProgramState& state);

/// The state's Scop without accesses (ScopContent::Structure) on the calling thread (the
/// full Scop when this thread has it).
Expected<std::shared_ptr<const Scop>> programStructure(const schedule::ProgramState& state);

/// Empties the calling thread's cache (benchmarks time the uncached path with it).
void clearProgramAnalyses();

} // namespace loopscape::poly::detail
