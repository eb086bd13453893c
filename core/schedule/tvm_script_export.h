// A runnable TVM script of a scheduled program: the Python file a TVM user runs to get,
// from Apache TVM itself, the program Loopscape shows after a trace. It holds
//   * the original (unscheduled) program as TVMScript, once in each spelling, chosen by
//     what the installed TVM has: TVM 0.25 and later (`tvm.script.tirx`, T.sblock,
//     `tvm.s_tir.Schedule`, get_block renamed get_sblock) or earlier TVM (`tvm.script.tir`,
//     T.block, `tvm.tir.Schedule`; the spelling of TVM 0.12-0.20);
//   * `sch = Schedule(mod)` and the part of the trace TVM can replay, as TVM Python
//     (trace_python.h: the instructions before the first poly_* step);
//   * a comment naming the steps left out (Loopscape's polyhedral primitives, which
//     tir.Schedule does not have) and how many, when there are any;
//   * `print(sch.mod.script())`.
// The text is deterministic (golden tests compare it exactly) and needs nothing but TVM.
#pragma once

#include "core/ir/prim_func.h"
#include "core/schedule/trace.h"

#include <string>

namespace loopscape::schedule {

struct TvmScriptOptions {
  /// Where the program and the trace came from, one line for the script's first comment
  /// ("samples/matmul.te with trace samples/traces/matmul_tile.py"); "" for none.
  std::string origin;
};

/// The script for `original` (the program before any step) scheduled by `trace`; every
/// line ends with '\n'.
std::string tvmScript(const ir::PrimFunc& original, const Trace& trace, const TvmScriptOptions& options = {});

} // namespace loopscape::schedule
