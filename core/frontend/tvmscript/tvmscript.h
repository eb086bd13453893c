// The TVMScript front end: reads the TIR dialect of TVMScript as TVM 0.12-0.27 print and
// accept it (`@T.prim_func` functions and `@I.ir_module class Module:` modules; buffers as
// `T.Buffer(...)` annotations or handles with `T.match_buffer`; T.grid/serial/parallel/
// vectorized/unroll/thread_binding loops; `T.block`/`T.sblock` with T.axis.*, T.reads,
// T.writes, T.where, T.init, T.block_attr, T.alloc_buffer; stores, loads, casts, math
// intrinsics, T.Select, if/else, T.evaluate, symbolic sizes), both the `tir` dialect and
// the `tirx` one TVM 0.25-0.27 print (`T.sblock`, `@T.prim_func(s_tir=True)`).
// A block that omits T.reads/T.writes gets the regions its body accesses. Every failure
// is a Diagnostic (code "tvmscript.<kind>") at file:line:col; no input crashes it.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"
#include "core/ir/printer.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace loopscape::frontend {

/// Which spelling of TVMScript a file used (Tir: `from tvm.script import tir as T`,
/// T.block, "tir.noalias"; Tirx: `from tvm.script import tirx as T`, T.sblock,
/// "tirx.noalias"); the printer writes either.
using TvmScriptDialect = ir::ScriptDialect;

struct TvmScriptProgram {
  ir::IRModule module; ///< the functions in file order
  TvmScriptDialect dialect = TvmScriptDialect::Tir;
};

Expected<TvmScriptProgram> parseTvmScript(std::string_view source, std::string fileName);

/// The function called `name` ("" : "main", or the only function of the module); an
/// error naming the functions there are otherwise.
Expected<ir::PrimFunc> selectFunction(const TvmScriptProgram& program, std::string_view name,
                                      const std::string& fileName);

} // namespace loopscape::frontend
