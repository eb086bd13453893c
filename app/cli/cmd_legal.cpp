// `legal FILE --trace T`: checks the program after the trace against the dependences of
// the original program (core/poly/legality.h): prints "legal", or the counterexample
// (the two statement instances, the buffer element, the order before and after) and
// exits with status 3; with --space X,Y, then the iteration space that shows it (the
// source's block on the two axes in the original program, ordered by the scheduled one,
// the pair marked). Also the polyhedral formats of `print` (--format tree|deps).
#include "cli_support.h"
#include "commands.h"

#include "core/poly/iteration_space.h"
#include "core/poly/legality.h"
#include "core/poly/report.h"
#include "core/poly/tree_description.h"

#include <cstdio>
#include <memory>

namespace loopscape::cli {

int printPolyFormat(const ir::PrimFunc& func, const std::string& format) {
  if (format == "tree" || format == "tree-isl") {
    auto tree = poly::describeScheduleTree(func);
    if (!tree) {
      printDiagnostic(tree.error());
      return kExitBadInput;
    }
    std::fputs(format == "tree" ? poly::renderTree(*tree).c_str() : (tree->yaml + "\n").c_str(), stdout);
    return kExitOk;
  }
  auto report = poly::analyzeDependences(func);
  if (!report) {
    printDiagnostic(report.error());
    return kExitBadInput;
  }
  std::fputs(poly::renderDependenceReport(*report).c_str(), stdout);
  return kExitOk;
}

namespace {
struct LegalOptions {
  std::string file;
  std::string trace;
  std::string space;               ///< "X,Y": print the counterexample's iteration space
  std::vector<std::string> shapes; ///< --shape for the space
};

/// The counterexample in the original program's iteration space, ordered by the schedule.
int printCounterexampleSpace(const LegalOptions& opt, const schedule::Schedule& sch, const Counterexample& c) {
  const auto comma = opt.space.find(',');
  if (comma == std::string::npos) {
    printDiagnostic(Diagnostic::error("cli.bad-argument", "--space needs two axes, e.g. --space t,i"));
    return kExitBadInput;
  }
  auto sizes = parseShapes(sch.originalState()->func(), opt.shapes);
  if (!sizes) {
    printDiagnostic(sizes.error());
    return kExitBadInput;
  }
  poly::IterationSpaceRequest req{.block = c.source.statement,
                                  .dimX = opt.space.substr(0, comma),
                                  .dimY = opt.space.substr(comma + 1),
                                  .sizes = *sizes,
                                  .showInstance = c.source};
  auto space = poly::iterationSpace(*sch.originalState(), req, sch.state().get());
  if (!space) {
    printDiagnostic(space.error());
    return kExitBadInput;
  }
  auto placed = poly::placeCounterexample(*sch.originalState(), *space, c);
  if (!placed) {
    printDiagnostic(placed.error());
    return kExitInternal;
  }
  std::fputs(poly::renderIterationSpace(*space, &*placed).c_str(), stdout);
  return kExitIllegalSchedule;
}

int runLegal(const LegalOptions& opt) {
  auto program = loadProgram(opt.file);
  if (!program) return kExitBadInput;
  int exitCode = kExitOk;
  // The steps are applied unverified: this command reports the check of the result.
  auto applied = applyTraceFile(*program, opt.trace, exitCode, schedule::LegalityPolicy::Unverified);
  if (!applied) return exitCode;
  auto report = poly::checkLegality(*applied->originalState(), *applied->state());
  if (!report) {
    printDiagnostic(report.error());
    return kExitBadInput;
  }
  if (report->legal) {
    std::fputs("legal\n", stdout);
    for (const auto& s : report->unmatched)
      std::fprintf(stdout, "note: block '%s' has no counterpart in the original program (checked by the primitives only)\n",
                   s.c_str());
    return kExitOk;
  }
  std::fprintf(stdout, "illegal: %s\n", poly::counterexampleMessage(*report->counterexample).c_str());
  if (!opt.space.empty()) return printCounterexampleSpace(opt, *applied, *report->counterexample);
  return kExitIllegalSchedule;
}
} // namespace

void registerLegal(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("legal", "Check a schedule trace against the exact dependences of the original program");
  auto opt = std::make_shared<LegalOptions>();
  cmd->add_option("FILE", opt->file, "Program file (.te)")->required();
  cmd->add_option("--trace", opt->trace, "Schedule trace: a TVM Python script (.py) or a JSON trace (.json)")->required();
  cmd->add_option("--space", opt->space,
                  "When illegal, also print the iteration space that shows the counterexample on two axes of its "
                  "block (loops or block iterators of the original program), e.g. --space t,i");
  cmd->add_option("--shape", opt->shapes, "With --space: bind a symbolic size, e.g. --shape n=8 (repeatable)");
  cmd->callback([opt, &result] { result.exitCode = runLegal(*opt); });
}

} // namespace loopscape::cli
