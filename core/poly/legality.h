// Exact legality of a program state against the dependences of the ORIGINAL program.
//
// Common space: a statement instance is identified by its statement (block name, or
// `<block>_init`) and the values of the block's iterators (the spatial ones for an init),
// which every TIR primitive keeps stable. A statement of the current program matches the
// original statement of the same name (decompose_reduction's `<block>_update` matches
// `<block>`, its `<block>_init` block matches the init statement) when it has the same
// number, kinds and domains of iterators; other statements (cache blocks, rfactor blocks)
// have no original dependences and are left to the primitive's own checks.
//
// A state is legal when, for every RAW/WAR/WAW dependence source -> sink of the original
// program between matched statements, the first execution of the source precedes every
// execution of the sink in the lexicographic order of the current schedule (instances a
// compute_at recomputes are executed more than once), and when no loop marked parallel or
// vectorized carries such a dependence. Otherwise the Diagnostic "poly.illegal" gives a
// counterexample: the two instances (`C_init(v_i=0, v_j=3)`), the buffer element, and
// where each ran before and runs after (loop values).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/schedule/program_state.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::schedule {
class Schedule;
}

namespace loopscape::poly {

using loopscape::Counterexample;
using loopscape::LoopPoint;
using loopscape::loopPointText;
using loopscape::StatementInstance;

struct LegalityReport {
  bool legal = true;
  std::optional<Counterexample> counterexample;
  /// Statements of the current program without an original counterpart (not checked).
  std::vector<std::string> unmatched;
};

/// The most isl operations one check may take (isl_ctx_set_max_operations). Without a
/// bound, a few tiled conv2d schedules kept isl simplifying for minutes (before the check
/// compared recomputed statements on their common loops); past it the check fails with
/// "poly.quota" and the verdict is unknown, not "legal".
inline constexpr unsigned long kLegalityMaxOperations = 2'000'000;

/// Errors: "poly.non-affine" (the analysis cannot decide), "poly.quota" (the check took
/// more than kLegalityMaxOperations), "poly.isl" ... from either
/// program's Scop. The original's model (Scop, dependences in the common space) is built
/// from the thread's analysis of the original state (program_analysis.h) once per thread and
/// original state; the structure of `current` is the state's too. The verdict is the same
/// as checkLegalityUncached's.
Expected<LegalityReport> checkLegality(const schedule::ProgramState& original, const schedule::ProgramState& current);
/// checkLegality on fresh states of the two programs (nothing is shared with other calls).
Expected<LegalityReport> checkLegality(const ir::PrimFunc& original, const ir::PrimFunc& current);

/// checkLegality with the original's model built afresh and nothing cached (the reference
/// the cache is tested against), the check of `current` bounded by `maxOperations`.
Expected<LegalityReport> checkLegalityUncached(const ir::PrimFunc& original, const ir::PrimFunc& current,
                                               unsigned long maxOperations = kLegalityMaxOperations);

/// Empties the calling thread's cache of original models and analyses (benchmarks time
/// the first check of a Schedule with it).
void clearLegalityCache();

/// The counterexample as one message (the text of the illegal-step diagnostic).
std::string counterexampleMessage(const Counterexample& c);

/// The one diagnostic of a broken dependence, whoever finds it: `code`, the message
/// `<what> is illegal: <counterexample>` (the counterexample alone when `what` is empty),
/// the source and sink blocks as references (the loop and the buffer are in the structured
/// counterexample), rendered against the program (DiagnosticSubject::Program).
Diagnostic illegalDiagnostic(const Counterexample& c, std::string code, std::string_view what);

/// Success when legal (or when either program has no polyhedral model: then the
/// primitives' own checks stand alone); the Diagnostic "poly.illegal" otherwise, its
/// message prefixed by `what` ("reorder is illegal: ...").
Expected<void> verifyLegality(const ir::PrimFunc& original, const ir::PrimFunc& current, std::string_view what = {});

/// Installs the exact legality policy on `sch` (what poly::makeSchedule does): every later
/// step is checked against the dependences of `sch.originalState()`. A violation refuses
/// the step with "schedule.<primitive>.illegal" (illegalDiagnostic); a program the
/// analysis cannot decide ("poly.non-affine", "poly.unsupported") is accepted with a note
/// ("legality.undecided"); any other failure of the check (isl, internal) refuses the step
/// with "schedule.<primitive>.legality-unchecked" and that error's message.
void installLegalityVerifier(schedule::Schedule& sch);

} // namespace loopscape::poly
