// Reading schedules written in TVM's Python syntax: a restricted Python interpreter that
// APPLIES a script to a Schedule, so that a trace printed by traceToPython (or by TVM's
// Trace.as_python) replays, and so that users can write schedules by hand:
//
//   from tvm import tir
//   def apply_trace(sch: tir.Schedule) -> None:
//       b0 = sch.get_block("C")
//       i, j, k = sch.get_loops(b0)
//       loops = sch.split(i, factors=[None, 32])
//       sch.reorder(loops[0], j, loops[-1])
//
// The language is described in trace_script_syntax.h. Semantics:
// - `sch.<primitive>(...)` looks the primitive up in the instruction registry by its
//   Python name. Positional arguments fill the kind's inputs then its attributes in
//   order; keywords name them; sampling kinds also take `decision=`. Variadic kinds
//   (fuse, reorder) take their inputs positionally (`*loops` expands a list) and their
//   attributes by keyword. Missing attributes take their defaults; a missing input, an
//   unknown keyword, an argument given twice or too many arguments is an error naming
//   the primitive and the argument.
// - Where a primitive takes a block, a string names it, as in TVM (`sch.get_loops("C")`):
//   the script applies `get_block("C")` first (its own instruction in the trace).
// - A call's value is its single RV, None when it defines none, and a list of RVs for
//   kinds with variadic outputs (get_loops, split) or several outputs. A tuple target
//   needs exactly as many values ("get_loops returned 3 values, but 2 names are
//   assigned").
// - Values: None, True/False, ints, floats, strings, lists and tuples (both become
//   lists), names bound earlier, subscripts of lists (negative indices count from the
//   end), integer arithmetic with Python's // and % semantics, and `lambda i, j: (...)`
//   index maps whose bodies become IR expressions over new int32 variables (+ - * // %,
//   integer constants).
//
// Errors: syntax errors, unknown names and primitives, bad arguments have codes
// "trace.*" and a location in the script (file, line, column). A primitive the schedule
// refuses returns the schedule's Diagnostic (code "schedule.<primitive>.<reason>", IR
// references kept) with its location set to the call; the schedule is left as it was
// before that call, so the error can be rendered against sch.func().
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/schedule/schedule.h"

#include <string>
#include <string_view>

namespace loopscape::schedule {

/// Applies every statement of `text` to `sch`, in order, stopping at the first error.
Expected<void> applyScript(Schedule& sch, std::string_view text, const std::string& fileName);

/// Applies `text` to a fresh Schedule of `original` and returns its trace.
Expected<Trace> traceFromPython(const ir::PrimFunc& original, std::string_view text, const std::string& fileName);

/// Parses one index-map lambda (`lambda i, j: (i // 16, j, i % 16)`).
Expected<IndexMap> parseIndexMap(std::string_view text, const std::string& fileName);

} // namespace loopscape::schedule
