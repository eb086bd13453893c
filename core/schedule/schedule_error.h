// Schedule errors: a refused primitive is a Diagnostic whose code names the primitive and
// the precondition that failed ("schedule.split.annotated-loop"), whose message says why
// in terms of the program, and whose references name the blocks and loops involved.
// Rendering is late and against the program the primitive saw: the printed program with
// the offending block or loop headers underlined, then the message (TVM's ScheduleError
// report, with names instead of tir.For#0).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"

#include <string>
#include <vector>

namespace loopscape::schedule {

class IrTree;

/// A refused primitive: `code` is "schedule.<primitive>.<reason>"; rendered against the
/// program (DiagnosticSubject::Program).
Diagnostic scheduleError(std::string_view primitive, std::string_view reason, std::string message,
                         std::vector<IrReference> references = {});
IrReference blockRef(std::string name);
IrReference loopRef(std::string name);

/// Gives each loop reference of `d` that names no node yet the loop it means in `tree`
/// (the program the refused step saw): one of `inputLoops` (the step's loop inputs) of
/// that name, else the loop of that name above a referenced block, else the only loop of
/// that name; references that stay ambiguous keep matching by name.
void identifyLoops(Diagnostic& d, const IrTree& tree, const std::vector<const ir::StmtNode*>& inputLoops);

/// The primitive name of a schedule error code ("split" for "schedule.split.x").
std::string primitiveOf(const Diagnostic& d);

/// TVM-style report: header naming the primitive, the program with every referenced
/// block/loop header underlined with `^`, then `Error message: ...`.
std::string renderScheduleError(const Diagnostic& d, const ir::PrimFunc& func);

/// A diagnostic of applying steps, rendered by its subject: one about the program (a
/// refused step, whichever check refused it) as `file:line:col: in this step` (when it
/// has a location) and the report against `program`; one about the source as
/// renderDiagnostic against `sourceText`. The CLI and the workbench both render so.
std::string renderStepDiagnostic(const Diagnostic& d, const ir::PrimFunc& program, std::string_view sourceText);

} // namespace loopscape::schedule
