#include "app/gui/compare_jobs.h"

#include "app/gui/code_jobs.h"
#include "core/ir/assert.h"
#include "core/ir/file_read.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/poly_schedule.h"
#include "core/poly/tree_description.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_script.h"
#include "core/tune/apply_record.h"
#include "views/trace_model.h"

#include <fmt/format.h>

#include <filesystem>
#include <unordered_map>

namespace loopscape::gui {

std::optional<CompareSpec> parseCompareSpec(const std::string& text, std::string* error) {
  auto fail = [&](std::string message) -> std::optional<CompareSpec> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  CompareSpec spec;
  if (text.empty()) return fail("an empty side: current, step:N, poly_auto, best:LOG, none or a trace file");
  if (text == "current") return spec;
  if (text == "none" || text == "original") {
    spec.kind = CompareSpec::Kind::Original;
    return spec;
  }
  if (text == poly::kPolyAutoName) {
    spec.kind = CompareSpec::Kind::PolyAuto;
    return spec;
  }
  if (text.starts_with("step:")) {
    const std::string n = text.substr(5);
    int step = 0;
    try {
      std::size_t used = 0;
      step = std::stoi(n, &used);
      if (used != n.size()) step = 0;
    } catch (...) {
      step = 0;
    }
    if (step < 1) return fail(fmt::format("'{}': step:N needs a step number of at least 1", text));
    spec.kind = CompareSpec::Kind::TraceStep;
    spec.step = step;
    return spec;
  }
  if (text.starts_with("best:")) {
    spec.kind = CompareSpec::Kind::TuningRecord;
    spec.path = text.substr(5);
    if (spec.path.empty()) return fail("best:LOG needs a tuning log's path");
    return spec;
  }
  spec.kind = CompareSpec::Kind::TraceFile;
  spec.path = text;
  return spec;
}

std::string describeSpec(const CompareSpec& spec, int currentSteps) {
  const std::string file = std::filesystem::path(spec.path).filename().string();
  switch (spec.kind) {
  case CompareSpec::Kind::CurrentTrace:
    return fmt::format("current trace ({} step{})", currentSteps, currentSteps == 1 ? "" : "s");
  case CompareSpec::Kind::TraceStep: return fmt::format("step {} of {}", spec.step, currentSteps);
  case CompareSpec::Kind::PolyAuto: return poly::kPolyAutoName;
  case CompareSpec::Kind::TraceFile: return file;
  case CompareSpec::Kind::TuningRecord: return "best of " + file;
  case CompareSpec::Kind::Original: return "original program";
  }
  return {};
}

namespace {

Diagnostic sideError(std::string code, std::string message) {
  return Diagnostic::error(std::move(code), std::move(message));
}

} // namespace

Expected<schedule::Schedule> scheduleForSpec(const CompareInput& input, const CompareSpec& spec, std::string* note) {
  schedule::Schedule sch = poly::makeSchedule(input.original);
  switch (spec.kind) {
  case CompareSpec::Kind::Original: return sch;
  case CompareSpec::Kind::CurrentTrace:
    if (input.current) return *input.current;
    return sch;
  case CompareSpec::Kind::TraceStep: {
    const std::vector<int> ends = views::stepEnds(input.currentTrace);
    const int steps = static_cast<int>(ends.size());
    if (spec.step < 1 || spec.step > steps)
      return std::unexpected(
          sideError("compare.no-step", fmt::format("the current trace has {} step{}; there is no step {}", steps,
                                                   steps == 1 ? "" : "s", spec.step)));
    const int end = ends[static_cast<std::size_t>(spec.step - 1)];
    for (int i = 0; i < end; ++i) {
      const schedule::Instruction& inst = input.currentTrace.instructions[static_cast<std::size_t>(i)];
      if (auto out = sch.apply(*inst.kind, inst.inputs, inst.attrs, inst.decision); !out)
        return std::unexpected(out.error());
    }
    return sch;
  }
  case CompareSpec::Kind::PolyAuto:
    if (auto r = poly::polyAuto(sch, poly::PolyAutoOptions{}); !r) return std::unexpected(r.error());
    return sch;
  case CompareSpec::Kind::TraceFile: {
    auto text = ir::readSourceFile(spec.path);
    if (!text) return std::unexpected(text.error());
    const std::string ext = std::filesystem::path(spec.path).extension().string();
    if (ext != ".py" && ext != ".json")
      return std::unexpected(
          sideError("compare.unknown-trace-format",
                    fmt::format("'{}': traces are TVM Python scripts (.py) or JSON traces (.json)", spec.path)));
    auto applied =
        ext == ".py" ? schedule::applyScript(sch, *text, spec.path) : schedule::applyJsonTrace(sch, *text, spec.path);
    if (!applied) return std::unexpected(applied.error());
    return sch;
  }
  case CompareSpec::Kind::TuningRecord: {
    auto best = tune::bestRecordOf(input.original->func(), spec.path);
    if (!best) return std::unexpected(best.error());
    auto notes = tune::applyRecord(sch, *best, "best:" + spec.path);
    if (!notes) return std::unexpected(notes.error());
    if (note) {
      *note = tune::recordSummary(*best);
      for (const Diagnostic& n : *notes)
        *note += "; " + n.message;
    }
    return sch;
  }
  }
  LS_UNREACHABLE("compare spec kind");
}

namespace {

CompareSideResult computeSide(const CompareInput& input, const CompareSpec& spec, std::stop_token stop) {
  CompareSideResult side;
  side.name = describeSpec(spec, static_cast<int>(views::stepEnds(input.currentTrace).size()));
  auto sch = scheduleForSpec(input, spec, &side.note);
  if (!sch) {
    side.error = renderDiagnostic(sch.error());
    return side;
  }
  if (stop.stop_requested()) return side;
  side.snapshot = views::analysedSnapshot(sch->state(), input.dialect);
  const ir::PrimFunc& func = side.snapshot->func;
  if (side.snapshot->tree) {
    side.bands = compare::collectBands(side.snapshot->tree->root);
  } else {
    side.treeError = side.snapshot->treeError;
  }
  side.loops = compare::loopFacts(func);
  if (stop.stop_requested()) return side;
  CodeResult code = generateCode(func, input.target, input.format, stop);
  side.codeOk = code.ok;
  side.code = std::move(code.text);
  side.codeMap = std::move(code.map);
  return side;
}

} // namespace

CompareResult computeComparison(const CompareInput& input, std::stop_token stop,
                                const std::function<void(int, int)>& progress) {
  CompareResult r;
  r.original = input.original->func();
  r.target = input.target;
  r.format = input.format;
  progress(0, 3);
  r.a = computeSide(input, input.a, stop);
  progress(1, 3);
  r.b = computeSide(input, input.b, stop);
  progress(2, 3);
  if (stop.stop_requested()) {
    r.cancelled = true;
    return r;
  }
  if (r.a.ok() && r.b.ok()) {
    r.diff = ir::diffPrograms(r.a.snapshot->func, r.b.snapshot->func, ir::PrintOptions{input.dialect});
    r.pairs = compare::pairBands(r.a.bands, r.b.bands);
  }
  if (r.a.codeOk && r.b.codeOk)
    r.codeDiff = compare::diffLines(compare::splitLines(r.a.code), compare::splitLines(r.b.code));
  progress(3, 3);
  return r;
}

std::vector<int> diffMarks(const ir::ProgramDiff& diff, const views::ProgramSnapshot& snapshot, bool first) {
  std::vector<int> marks(snapshot.nodes.size(), -1);
  for (std::size_t e = 0; e < diff.entries.size(); ++e) {
    const ir::DiffLocation& loc = first ? diff.entries[e].a : diff.entries[e].b;
    if (loc.line == 0 || !loc.node) continue;
    const int index = snapshot.indexOf(loc.node);
    if (index >= 0 && marks[static_cast<std::size_t>(index)] < 0)
      marks[static_cast<std::size_t>(index)] = static_cast<int>(e);
  }
  return marks;
}

int matchingNode(const ir::ProgramDiff& diff, const views::ProgramSnapshot& from, int index,
                 const views::ProgramSnapshot& to, bool fromFirst) {
  if (index < 0 || index >= static_cast<int>(from.nodes.size())) return -1;
  const views::NodeInfo& n = from.nodes[static_cast<std::size_t>(index)];
  // A pair the diff made (a changed or renamed item).
  for (const ir::ProgramDiffEntry& e : diff.entries) {
    const ir::DiffLocation& here = fromFirst ? e.a : e.b;
    const ir::DiffLocation& there = fromFirst ? e.b : e.a;
    if (here.node == n.node && here.line != 0) return there.line != 0 && there.node ? to.indexOf(there.node) : -1;
  }
  if (n.kind == views::NodeInfo::Kind::Block) return to.find(views::NodeInfo::Kind::Block, n.name);
  // An unchanged loop: the same loop variable, else the same name.
  const ir::Expr var = views::loopVarOf(&from, index);
  if (const int same = views::loopNodeOf(to, var); same >= 0) return same;
  return to.find(views::NodeInfo::Kind::Loop, n.name);
}

} // namespace loopscape::gui
