// Evaluation of a parsed .te program. Top-level statements run in order, Python style:
// integers are exact (errors on int64 overflow), size variables are ir Vars, and each
// placeholder/compute/reduce_axis call creates the tensor or axis at once. A compute's
// lambda is evaluated once with its parameters bound to int32 Vars, which gives the body
// as an ir::Expr (type promotion as TVM's binary operators). Checks done here: names,
// arities, keywords, shapes, dtypes, index arity and type, reduction placement and axis
// use, duplicate tensor names (default names are made unique as create_prim_func does:
// compute, compute_1, ...), the `outputs = [...]` list, and the rules of scan
// (te_scan.cpp). Diagnostic codes "te.*".
//
// Limits: expressions are shared (a name used twice is one node), but later stages walk
// them as trees, so an expression whose expanded tree passes
// ir::resourceLimits().maxExpressionNodes is refused where it is built ("te.too-large"),
// and so is one higher than syntax::maxExpressionHeight() ("te.too-deep"); shapes and
// computes have at most maxNestingDepth dimensions or loops ("te.too-many-dims");
// lambda calls may stack evaluation at most maxNestingDepth + 50 levels deep
// ("te.too-deep"). Operator and call chains are evaluated in loops.
#pragma once

#include "core/frontend/te_parser.h"
#include "core/frontend/te_program.h"

namespace loopscape::frontend {

Expected<TeProgram> evaluateTe(const ast::Module& module, const std::string& fileName);

} // namespace loopscape::frontend
