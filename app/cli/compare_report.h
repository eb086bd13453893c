// What `loopscape-cli compare` and the workbench's Compare window both compute about two
// schedules of one program, besides the structural diff of their TensorIR
// (core/ir/program_diff.h): the bands of both schedule trees paired, each loop's
// parallelism and the dependences it carries, the generated code of a target and a line
// diff of two texts (the generated code is text, so a line diff is what fits it). Plain
// C++, no Qt: the CLI links it, and the workbench runs it in background jobs.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::poly {
struct TreeNodeView;
}

namespace loopscape::compare {

// ---- schedule trees --------------------------------------------------------------------

/// One band of a schedule tree, as the pairing sees it.
struct Band {
  std::string id; ///< the node's position in the tree ("0.0.1")
  bool permutable = false;
  std::vector<std::string> members;
  std::vector<std::string> coincident;
  std::vector<std::string> statements; ///< statements the band schedules, in order
};

/// Two bands paired (both set), or a band of one tree left alone.
struct BandPair {
  std::optional<Band> a, b;
  std::vector<std::string> sharedMembers;
  bool sameStatements = false;
  /// "shared loops k, same statements", "no shared loop", "only in A".
  std::string why() const;
};

/// Every band under `root`, pre-order.
std::vector<Band> collectBands(const poly::TreeNodeView& root);
/// The bands of `func`'s schedule tree; an error when it has none (no Scop).
Expected<std::vector<Band>> scheduleBands(const ir::PrimFunc& func);

/// Bands paired greedily by score: two per shared member loop, one for the same
/// statements; pairs with no shared member and other statements are not made. In the
/// first tree's order, then the second's bands left over.
std::vector<BandPair> pairBands(const std::vector<Band>& a, const std::vector<Band>& b);

/// "band 0.0 [i, j, k] permutable; coincident i, j; statements C_init, C".
std::string bandText(const Band& band);

// ---- loops and dependences -------------------------------------------------------------

struct LoopRow {
  std::string name;
  int depth = 0;
  std::string kind;     ///< as the program marks it: serial, parallel, vectorized, ...
  bool parallel = true; ///< carries no dependence
  std::string carries;  ///< "RAW C -> C, WAR C -> C" or "-"
  bool marked = false;  ///< marked parallel or vectorized although it carries a dependence
};

struct LoopFacts {
  /// "5 dependences (RAW 2, WAR 1, WAW 2)", or "not available: <why>".
  std::string summary;
  std::vector<LoopRow> loops; ///< program order (empty when not available)
};

/// The dependences of `func` and what each loop carries.
LoopFacts loopFacts(const ir::PrimFunc& func);

// ---- generated code --------------------------------------------------------------------

/// `func` lowered by the target plugin `target` and printed in `format` ("c", "llvm",
/// ...), or the diagnostic of the step that failed.
Expected<std::string> generatedSource(const ir::PrimFunc& func, const std::string& target, const std::string& format,
                                      std::stop_token stop = {});

// ---- line diff -------------------------------------------------------------------------

enum class LineOp : std::uint8_t { Same, Removed, Added };

/// One line of the merged texts: a line of both (Same), of the first only (Removed) or of
/// the second only (Added), with its 1-based line numbers (0 on the side without it).
struct LineDiffEntry {
  LineOp op = LineOp::Same;
  int a = 0, b = 0;
};

/// The lines of `text` (a final newline ends the last line, it does not start one more).
std::vector<std::string> splitLines(const std::string& text);

/// A shortest edit script from `a` to `b` (longest common subsequence, after the common
/// head and tail are set aside); in merged order, removals before additions at each
/// change. Inputs whose differing middle exceeds 2e7 line pairs become one change.
std::vector<LineDiffEntry> diffLines(const std::vector<std::string>& a, const std::vector<std::string>& b);

/// A unified diff (`--- A: nameA`, `+++ B: nameB`, `@@ -1,4 +1,5 @@` hunks with `context`
/// lines around each change); "no difference\n" when the texts are equal.
std::string renderUnifiedDiff(const std::string& a, const std::string& b, const std::string& nameA,
                              const std::string& nameB, int context = 3);

std::string join(const std::vector<std::string>& parts, const char* sep = ", ");

} // namespace loopscape::compare
