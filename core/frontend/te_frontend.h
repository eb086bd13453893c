// The tensor-expression (.te) front end: a Python-like subset of TVM's te API
// (placeholder, compute, reduce_axis, sum/max/min, if_then_else, math intrinsics,
// casts, var/size_var for symbolic sizes, and the recurrence scan(init, update, state,
// inputs=[...]) of te.scan), so that TVM users can paste definitions, with
// or without `te.` / `tvm.te.` / `tvm.tir.` / `T.` prefixes. parseTe runs the whole
// pipeline (lex, parse, evaluate, lower as te.create_prim_func) and returns the PrimFunc
// "main", or a Diagnostic (code "te.<kind>", file:line:col and the length of the
// offending token or expression) that renderDiagnostic prints with the source line and
// a caret. It never crashes or asserts on any input.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"

#include <string>
#include <string_view>

namespace loopscape::frontend {

Expected<ir::PrimFunc> parseTe(std::string_view source, std::string fileName);

} // namespace loopscape::frontend
