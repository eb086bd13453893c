// Operation counts of a tensor program from its IR, for GFLOP/s and arithmetic intensity.
//
// Rules (documented here because every profile number depends on them):
//  * Only the values stored by BufferStore statements are counted (index arithmetic,
//    loop bounds, predicates and addresses are not work):
//      - float Add, Sub, Mul, Div, Min, Max, FloorDiv, FloorMod: 1 FLOP each;
//      - float comparisons (EQ .. GE): 1 FLOP each; Select, Cast, loads, constants: 0;
//      - a math Call (exp, log, sqrt, rsqrt, tanh, sigmoid, erf, pow, fabs, floor, ceil,
//        round): 1 FLOP; fma: 2 FLOPs;
//      - the same operations on integer values count as integer ops (`intOps`), not FLOPs;
//      - a vector operation counts once per lane.
//  * A statement's instance count is the product of the extents of the loops around it.
//    Symbolic sizes are bound from `sizes`; an extent that still depends on an outer loop
//    variable is counted at its upper bound (and `exact` becomes false, with a note).
//  * A block whose predicate is not the constant true (a split that does not divide its
//    extent) runs min(loop iterations, size of its iterator domain) instances; a note says
//    so. The init of a reduction block runs instances / (product of its reduce iterator
//    extents) times.
//  * IfThenElse outside blocks: both branches are counted at the full count (an upper
//    bound; `exact` becomes false).
// Count the unscheduled program to get the useful work (what TVM's FLOP estimator and
// papers report); a scheduled program may recompute (compute_at) and count more.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/interpreter.h"
#include "core/ir/prim_func.h"

#include <string>
#include <vector>

namespace loopscape::codegen {

/// One BufferStore statement of the program and what it costs.
struct StatementCount {
  std::string block;       ///< enclosing block ("" outside blocks)
  std::string buffer;      ///< the buffer it stores to
  bool init = false;       ///< the statement is (in) a reduction init
  double instances = 0;    ///< how many times it runs
  double flopsPerInstance = 0;
  double intOpsPerInstance = 0;
};

struct FlopCount {
  double flops = 0;      ///< total floating-point operations
  double intOps = 0;     ///< total integer value operations
  double instances = 0;  ///< total statement instances (every BufferStore execution)
  bool exact = true;     ///< false when an upper bound or estimate was used (see notes)
  std::vector<StatementCount> statements;
  std::vector<std::string> notes;
};

/// Counts `func` under `sizes` (every symbolic size must be bound: "flops.unbound-size").
Expected<FlopCount> countFlops(const ir::PrimFunc& func, const ir::SizeBindings& sizes);

/// Operations of one value expression, per the rules above: {flops, intOps}.
std::pair<double, double> countValueOps(const ir::Expr& value);

/// Compulsory traffic: every parameter's bytes once (inputs read once, outputs written
/// once) under `sizes` ("interp.unbound-size" when a size is missing).
Expected<double> compulsoryBytes(const ir::PrimFunc& func, const ir::SizeBindings& sizes);

} // namespace loopscape::codegen
