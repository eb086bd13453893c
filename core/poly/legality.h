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

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::schedule {
class Schedule;
}

namespace loopscape::poly {

/// A statement instance: `C(v_i=0, v_j=3, v_k=0)`.
struct StatementInstance {
  std::string statement;
  std::vector<std::pair<std::string, std::int64_t>> iterators;
  std::string text() const;
};

/// Loop values of one execution: `(i=0, j=3, k=0)`.
using LoopPoint = std::vector<std::pair<std::string, std::int64_t>>;
std::string loopPointText(const LoopPoint& p);

struct Counterexample {
  std::string kind;   ///< "RAW", "WAR", "WAW"
  StatementInstance source, sink;
  std::string buffer;
  std::vector<std::int64_t> element;
  LoopPoint sourceBefore, sinkBefore; ///< in the original program
  LoopPoint sourceAfter, sinkAfter;   ///< in the current program
  std::string parallelLoop;           ///< set when the violation is a parallel/vectorized loop carrying it
  std::string loopKind;               ///< "parallel" or "vectorized" then
};

struct LegalityReport {
  bool legal = true;
  std::optional<Counterexample> counterexample;
  /// Statements of the current program without an original counterpart (not checked).
  std::vector<std::string> unmatched;
};

/// Errors: "poly.non-affine", "poly.isl" ... from either program's Scop.
/// The original's model (Scop, dependences) is built once per thread and original program
/// (identified by its nodes: the same PrimFunc or a copy of it) and cached, with the last
/// few reports against it; the verdict is the same as checkLegalityUncached's.
Expected<LegalityReport> checkLegality(const ir::PrimFunc& original, const ir::PrimFunc& current);

/// checkLegality with the original's model built afresh and nothing cached (the reference
/// the cache is tested against).
Expected<LegalityReport> checkLegalityUncached(const ir::PrimFunc& original, const ir::PrimFunc& current);

/// Empties the calling thread's cache of original models and reports (benchmarks time the
/// first check of a Schedule with it).
void clearLegalityCache();

/// The counterexample as one message (the text of the "poly.illegal" diagnostic).
std::string counterexampleMessage(const Counterexample& c);

/// Success when legal (or when either program has no polyhedral model: then the
/// primitives' own checks stand alone); the Diagnostic "poly.illegal" otherwise, its
/// message prefixed by `what` ("reorder is illegal: ...").
Expected<void> verifyLegality(const ir::PrimFunc& original, const ir::PrimFunc& current, std::string_view what = {});

/// Installs the verifier on `sch`: every later step is checked against the dependences of
/// `sch.original()` (through checkLegality's cache: computed once per thread) and refused
/// with "poly.illegal".
void installLegalityVerifier(schedule::Schedule& sch);

} // namespace loopscape::poly
