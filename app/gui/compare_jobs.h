// The Compare window's background work: the two states of the open program it compares,
// each chosen by a CompareSpec (the current trace, a step of it, poly_auto, a trace
// file, a tuning log's best record, the original program), and everything the window
// shows of them: the analysed program snapshots, the structural diff of their TensorIR
// (core/ir/program_diff.h, on the snapshots' own functions, so its nodes are the
// snapshots' nodes), the paired bands of both schedule trees, each loop's dependences, and
// the generated code of one target with the line diff of the two texts
// (app/cli/compare_report.h, shared with `loopscape-cli compare`). Plain C++ run in a
// JobRunner job; the measurements go through profile_jobs.h.
#pragma once

#include "app/cli/compare_report.h"
#include "core/ir/program_diff.h"
#include "core/schedule/schedule.h"
#include "views/code_view.h"
#include "views/program_snapshot.h"

#include <memory>
#include <optional>
#include <stop_token>
#include <string>

namespace loopscape::gui {

/// Where one side's program comes from.
struct CompareSpec {
  enum class Kind { CurrentTrace, TraceStep, PolyAuto, TraceFile, TuningRecord, Original };
  Kind kind = Kind::CurrentTrace;
  std::string path; ///< TraceFile: the trace (.py or .json); TuningRecord: the log (JSON lines)
  int step = 0;     ///< TraceStep: the first `step` steps of the current trace
  bool operator==(const CompareSpec&) const = default;
};

/// The command-line spelling (`--compare-a`): current, step:N, poly_auto, best:LOG,
/// none (or original), else a trace file's path. nullopt with `error` for "step:" without
/// a positive number or an empty text.
std::optional<CompareSpec> parseCompareSpec(const std::string& text, std::string* error);

/// What one side is, for headers and tables: "current trace (5 steps)", "step 2 of 5",
/// "poly_auto", "matmul_tile.py", "best of tune.jsonl", "original program".
std::string describeSpec(const CompareSpec& spec, int currentSteps);

struct CompareInput {
  schedule::StatePtr original;               ///< the session's program before any step
  schedule::Trace currentTrace;              ///< the session's trace
  std::optional<schedule::Schedule> current; ///< its schedule (CurrentTrace uses it as it is)
  ir::ScriptDialect dialect = ir::ScriptDialect::Tir;
  CompareSpec a, b;
  std::string target = "cpu-c"; ///< of the generated code
  std::string format = "c";
};

struct CompareSideResult {
  std::string name;  ///< describeSpec
  std::string error; ///< why there is no program ("" when there is)
  /// Set when the side has a program: the analysed snapshot (text, nodes, facts).
  std::shared_ptr<const views::ProgramSnapshot> snapshot;
  std::vector<compare::Band> bands;
  std::string treeError; ///< why there are no bands
  compare::LoopFacts loops;
  bool codeOk = false;
  std::string code; ///< the generated code, or the rendered error
  views::CodeMap codeMap;
  std::string note; ///< e.g. the tuning record used ("trial 17, 12.3 GFLOP/s on cpu-c")
  bool ok() const { return snapshot != nullptr; }
};

struct CompareResult {
  ir::PrimFunc original; ///< the program both sides schedule (the measurements' reference)
  CompareSideResult a, b;
  /// Set when both sides have a program.
  ir::ProgramDiff diff;
  std::vector<compare::BandPair> pairs;
  std::vector<compare::LineDiffEntry> codeDiff; ///< when both sides have code
  std::string target, format;
  bool cancelled = false;
};

/// Both sides and their comparison; progress (done, total) counts the stages.
CompareResult computeComparison(const CompareInput& input, std::stop_token stop,
                                const std::function<void(int, int)>& progress);

/// One side's schedule (exposed for tests): the program `spec` names, or the error.
Expected<schedule::Schedule> scheduleForSpec(const CompareInput& input, const CompareSpec& spec, std::string* note);

/// Per node index of `snapshot`, the diff entry that marks it (index into diff.entries;
/// -1 for an unmarked node). `first`: the snapshot is the diff's first program.
std::vector<int> diffMarks(const ir::ProgramDiff& diff, const views::ProgramSnapshot& snapshot, bool first);

/// The node of `to` that matches node `index` of `from` (blocks by name; loops by the
/// diff's pairs, then by loop variable, then by name), or -1. `fromFirst`: `from` is the
/// diff's first program.
int matchingNode(const ir::ProgramDiff& diff, const views::ProgramSnapshot& from, int index,
                 const views::ProgramSnapshot& to, bool fromFirst);

} // namespace loopscape::gui
