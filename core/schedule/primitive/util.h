// Helpers shared by the primitive families: replacing a subtree of the current program,
// re-simplifying block bindings after loops change, naming.
#pragma once

#include "core/ir/simplify.h"
#include "core/schedule/schedule.h"

#include <string>

namespace loopscape::schedule::detail {

/// Name of a loop's variable.
const std::string& loopName(const TreeNode& loop);

/// An analyzer that knows the ranges of every loop and block iterator enclosing `node`.
ir::Analyzer analyzerAt(const TreeNode& node);

/// Simplifies the iterator bindings and predicates of every BlockRealize in `s`, with
/// the loops inside `s` bound as the traversal descends.
ir::Stmt simplifyBindings(const ir::Stmt& s, ir::Analyzer analyzer);

/// The current function with the statement `target` replaced by `replacement`.
ir::PrimFunc replaced(const Schedule& sch, const ir::StmtNode* target, const ir::Stmt& replacement);

/// Refuses (code "too-large") an integer argument of `prim` that the loop's variable
/// cannot hold, e.g. "split factor 3037000500 of loop 'i' does not fit int32 (the loop's
/// type); ...". `what` names the argument ("split factor").
Expected<void> checkFitsLoopType(std::int64_t value, const TreeNode& loop, std::string_view prim,
                                 std::string_view what);

/// The largest value of the integer type `t` ("2147483647" for int32).
std::int64_t maxOfType(ir::DataType t);

/// True if `e` mentions any of `vars` (by identity).
bool usesAnyVar(const ir::Expr& e, const std::vector<const ir::ExprNode*>& vars);

/// Every BlockRealize below `s` (through loops and nested blocks), in program order.
std::vector<const ir::BlockRealize*> realizesBelow(const ir::Stmt& s);

} // namespace loopscape::schedule::detail
