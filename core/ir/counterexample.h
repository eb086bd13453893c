// Counterexample: a schedule step that breaks a dependence, as data. core/poly's exact
// legality check fills it; a refused step's Diagnostic carries it (Diagnostic::
// counterexample), so a view can draw the two instances and the element instead of
// re-reading the message.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loopscape {

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
  std::string kind; ///< "RAW", "WAR", "WAW"
  StatementInstance source, sink;
  std::string buffer;
  std::vector<std::int64_t> element;
  LoopPoint sourceBefore, sinkBefore; ///< in the original program
  LoopPoint sourceAfter, sinkAfter;   ///< in the current program
  std::string parallelLoop;           ///< set when the violation is a parallel/vectorized loop carrying it
  std::string loopKind;               ///< "parallel" or "vectorized" then
};

} // namespace loopscape
