// A tuning record applied to the program it was tuned on, checked as the tuner checked it:
// its steps apply without the per-step legality check, then the exact check judges the
// program they give, once (a record's 30-50 steps each checked took a conv layer's record
// a minute). Every place that applies a record goes through here: `loopscape-cli ...
// --trace best:LOG`, the Tune dock's double-click and the Compare window's "best of a
// tuning log" side.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/poly/legality.h"
#include "core/schedule/schedule.h"
#include "core/tune/records.h"

#include <string>
#include <string_view>
#include <vector>

namespace loopscape::tune {

/// The fastest successful record of `func`'s workload (under any bound sizes, on any
/// target) in the log at `path`. Errors: "file.not-found" ("'<path>': no such tuning
/// log"), a malformed line's error, "tune.no-record" ("'<path>' has no successful record
/// of this program (workload <key>; <n> records)").
Expected<Record> bestRecordOf(const ir::PrimFunc& func, const std::string& path);

/// "trial 30 (<sketch>), 53.6 GFLOP/s on cpu-llvm with 2 thread(s)" (GB/s for a program
/// without floating-point work), then ", verified"
/// when the record's output was compared with the reference.
std::string recordSummary(const Record& record);

/// Applies `record`'s trace to `sch`, a fresh schedule of the program the record was tuned
/// on, and checks the program it gives once. Under the exact policy the steps apply without
/// the per-step check (the schedule's verifier is set aside, and put back for later steps),
/// then the exact check judges the result; under the user's Unverified policy nothing is
/// checked. `what` names the record in messages ("best:LOG"). The schedule's stop token
/// cancels the steps. `maxOperations` bounds the check (tests give a small one).
/// Returns the notes (severity Note, "<what>: the record's program ...") of a program that
/// applies without a verdict: a non-affine access, or isl's bound on a verified record.
/// Errors: a step's own error (located in the trace's JSON, schedule::traceToJson; `sch` is
/// left as before that step), "tune.record-illegal" ("<what>: the record's program is
/// illegal: <counterexample>"), "tune.legality-unchecked" ("<what>: the record's program
/// could not be checked for legality: <why>") for a record not verified when it was tuned;
/// after a check's error `sch` holds the refused program.
Expected<std::vector<Diagnostic>> applyRecord(schedule::Schedule& sch, const Record& record, std::string_view what,
                                              unsigned long maxOperations = poly::kLegalityMaxOperations);

} // namespace loopscape::tune
