// Shared pieces of the loopscape-cli subcommands: exit codes, loading a program file
// through the right front end, applying a trace file to it, and rendering diagnostics
// to stderr.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/prim_func.h"
#include "core/ir/printer.h"
#include "core/schedule/schedule.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace loopscape::cli {

/// Exit statuses: 0 success; 1 internal failure, or (check --trace) results that differ;
/// 2 bad input (file, syntax, arguments, a malformed trace file); 3 a schedule step the
/// schedule refused (an illegal primitive in the trace).
enum ExitCode : int { kExitOk = 0, kExitInternal = 1, kExitBadInput = 2, kExitIllegalSchedule = 3 };

/// A parsed program with the text it came from (for rendering diagnostics).
struct LoadedProgram {
  std::string path;
  std::string source;
  ir::PrimFunc func;
  ir::ScriptDialect dialect = ir::ScriptDialect::Tir; ///< the TVMScript spelling of the file
  std::string sessionPath;                            ///< the `.lsproj` the program came from ("" : a program file)
  std::string sessionTrace;                           ///< that session's trace (trace_json.h text; "" : none)
  std::string sessionTarget;                          ///< that session's target plugin ("" : none)
};

/// Whether a trace applies to `program`: `tracePath` (--trace) is given, or the program
/// came from a session file that has a trace.
bool hasTrace(const LoadedProgram& program, const std::string& tracePath);

/// How reports name the trace that applies: `tracePath`, else `FILE.lsproj[trace]`.
std::string traceName(const LoadedProgram& program, const std::string& tracePath);

/// How programs are printed: in the dialect of --dialect when given, else in the one
/// `program` was written in (tir for .te files).
ir::PrintOptions printOptionsFor(const LoadedProgram& program);
/// --dialect tir|tirx ("" : the file's).
void setPrintDialect(std::string dialect);

/// Reads `path` and runs the front end chosen by its extension: a tensor-expression file
/// (.te), TVMScript (.py, .tvmscript: the function --func names), or a workbench session
/// (.lsproj, session_load.h: its program, with its trace). On failure
/// the diagnostic is printed to stderr (with the offending source line) and nullopt is
/// returned; every such failure is bad input (exit status 2).
std::optional<LoadedProgram> loadProgram(const std::string& path);

/// The function loadProgram takes from a TVMScript module (main sets it from --func;
/// empty: "main", or the module's only function).
void setFunctionName(std::string name);

/// Reads a whole program or trace file within the size limit (ir::readSourceFile); a
/// Diagnostic "file.*" names the file and the reason (a directory, a device, too large).
Expected<std::string> readFile(const std::string& path);

/// Applies the trace file `tracePath` to a fresh Schedule of `program` made by
/// poly::makeSchedule under the command line's legality policy (exact unless
/// --no-verify-legality; `policyOverride` for a command that checks legality itself): a
/// TVM-syntax Python script (.py, trace_script.h) or a JSON trace (.json, trace_json.h).
/// With an empty `tracePath`, the trace of the session `program` came from (named
/// `FILE.lsproj[trace]`); a session with a trace and a --trace together are refused
/// ("cli.bad-argument": the session carries its own trace).
/// On failure prints the diagnostic to stderr and returns nullopt with `exitCode` set: a
/// refused step (a diagnostic about the program, kExitIllegalSchedule) prints
/// `T:line:col: error: ...` with the trace line, then the error rendered against the
/// program before that step; anything else (unreadable or malformed file, syntax) is
/// kExitBadInput. Notes of accepted steps (legality undecided) and the policy when it is
/// off are printed as `note:` lines. A tuning record (`best:LOG`) is checked as the tuner
/// checked it: its steps apply, then the exact check judges the program they give, once
/// (broken dependence or no verdict on an unverified record: kExitIllegalSchedule).
std::optional<schedule::Schedule> applyTraceFile(const LoadedProgram& program, const std::string& tracePath,
                                                 int& exitCode,
                                                 std::optional<schedule::LegalityPolicy> policyOverride = std::nullopt);

/// The policy of every schedule the command line makes (main sets it from
/// --no-verify-legality).
void setLegalityPolicy(schedule::LegalityPolicy policy);

/// Parses `--shape NAME=VALUE` items against the program's symbolic sizes; every size
/// must end up bound ("cli.bad-shape", "cli.unbound-size") and every value must fit in its
/// variable's type ("cli.bad-shape": "the value is too large ...").
Expected<ir::SizeBindings> parseShapes(const ir::PrimFunc& func, const std::vector<std::string>& items);

/// numpy's spelling of a shape: "(2, 3)", "(5,)".
std::string shapeText(const std::vector<std::int64_t>& shape);

/// `[0, 17]`: the row-major multi-dimensional index of flat index `flat`.
std::string multiIndex(std::int64_t flat, const std::vector<std::int64_t>& shape);

/// Parameters that some statement stores to: the outputs.
std::set<const ir::BufferNode*> writtenParams(const ir::PrimFunc& func);

/// One array per parameter of `func` under `sizes`, as `check` makes them: outputs
/// zero-filled; input number i random with seed `seed + i`, or read from
/// `inputsDir`/NAME.npy when `inputsDir` is given (dtype and shape must match). Each array
/// and all of them together must fit in the memory limit (NDArray::create, "cli.too-large").
/// Prints one
/// `input ...` line per input. On failure prints the diagnostic and returns nullopt (bad
/// input, exit status 2).
std::optional<std::vector<ir::NDArray>> loadArguments(const ir::PrimFunc& func, const ir::SizeBindings& sizes,
                                                      const std::string& inputsDir, std::uint64_t seed);

/// Creates `dir` if needed; prints the diagnostic and returns false when it cannot.
bool makeOutputDir(const std::string& dir);
/// Writes `array` to `dir`/NAME.npy and prints `saved  NAME PATH`; false (printed) on failure.
bool saveOutput(const std::string& dir, const std::string& name, const ir::NDArray& array);

/// Prints a failure of the interpreter on `program` and returns the exit status: a fault
/// of the program (source_locate.h: out-of-bounds access, division by zero, sizes beyond
/// the limits) is bad input, printed at its location in the program's source with a note
/// on what to fix; anything else is an internal failure.
int reportInterpreterFailure(const LoadedProgram& program, Diagnostic d);

/// Prints `d` to stderr, with the source line and caret when `source` is given.
void printDiagnostic(const Diagnostic& d, std::string_view source = {});

} // namespace loopscape::cli
