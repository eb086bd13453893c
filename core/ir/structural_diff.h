// The first structural difference between two programs: what `loopscape-cli equal` shows
// where TVM's assert_structural_equal only says "not equal". It walks both programs in the
// order structural_equal.h serialises them, with the same rule for variables and buffers
// (matched one to one by first appearance), so firstDifference(a, b, true) is empty
// exactly when structuralEqual(a, b).
#pragma once

#include "core/ir/prim_func.h"

#include <optional>
#include <string>
#include <vector>

namespace loopscape::ir {

struct StructuralDifference {
  /// Where it is, from the function down, the same in both programs:
  /// {"block \"root\"", "for i", "block \"C\"", "body", "value", "operand b"}.
  std::vector<std::string> path;
  std::string reason; ///< "the constants differ", "Add against Mul", ...
  std::string lhs;    ///< the differing part of the first program, printed
  std::string rhs;    ///< ... of the second
  /// The innermost loop or block around it in each program (null at function level), for
  /// marking its line with printPrimFuncWithSpans.
  const StmtNode* lhsStmt = nullptr;
  const StmtNode* rhsStmt = nullptr;
};

/// Without `mapFreeVars`, the functions' symbolic sizes must also have the same names
/// (TVM's map_free_vars=False: free variables are not renamed).
std::optional<StructuralDifference> firstDifference(const PrimFunc& a, const PrimFunc& b, bool mapFreeVars);

} // namespace loopscape::ir
