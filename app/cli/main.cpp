// loopscape-cli: the headless front end of Loopscape. Each subcommand lives in its own
// file (cmd_*.cpp) and registers itself on the CLI11 app here. An exception that escapes a
// subcommand is a bug: the error boundary reports it (exit status 1), never an abort.
#include "cli_options.h"
#include "cli_support.h"
#include "commands.h"

#include "core/codegen/gpu_bound_loop_check.h"
#include "core/ir/error_boundary.h"
#include "core/poly/gpu_bound_loops.h"
#include "core/poly/poly_schedule.h"

#include <CLI/CLI.hpp>

namespace {

int runCli(int argc, char** argv) {
  CLI::App app{"Loopscape command line: print, interpret and check tensor programs.\n"
               "Exit status: 0 success, 1 internal failure, 2 bad input."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "loopscape-cli 0.1.0");
  // Accepted before or after the subcommand's own options (fallthrough).
  app.add_flag_callback(
         "--no-verify-legality",
         [] { loopscape::cli::setLegalityPolicy(loopscape::schedule::LegalityPolicy::Unverified); },
         "Apply trace steps without checking them against the original program's dependences (reports say so)")
      ->trigger_on_parse();
  loopscape::cli::addMaxMemoryOption(app);
  app.add_option_function<std::string>(
         "--func", [](const std::string& name) { loopscape::cli::setFunctionName(name); },
         "The function of a TVMScript module (.py) to use (default: main, or the module's only function)")
      ->trigger_on_parse();
  app.add_option_function<std::string>(
         "--dialect", [](const std::string& d) { loopscape::cli::setPrintDialect(d); },
         "TVMScript spelling of printed programs: tir (TVM 0.12-0.20: T.block) or tirx (TVM 0.25-0.27: T.sblock, "
         "@T.prim_func(s_tir=True)); default: the input file's (tir for .te)")
      ->check(CLI::IsMember({"tir", "tirx"}))
      ->trigger_on_parse();
  app.fallthrough();
  loopscape::cli::CommandResult result;
  loopscape::poly::registerPolyInstructionKinds(); // poly_* steps in traces
  loopscape::codegen::setBoundLoopCheck(loopscape::poly::checkBoundLoopDependences); // GPU bound loops vs dependences
  loopscape::cli::registerPrint(app, result);
  loopscape::cli::registerCheck(app, result);
  loopscape::cli::registerLegal(app, result);
  loopscape::cli::registerPoly(app, result);
  loopscape::cli::registerTargets(app, result);
  loopscape::cli::registerRun(app, result);
  loopscape::cli::registerExport(app, result);
  loopscape::cli::registerTune(app, result);
  loopscape::cli::registerRelay(app, result);
  loopscape::cli::registerEqual(app, result);
  loopscape::cli::registerCompare(app, result);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? loopscape::cli::kExitOk : loopscape::cli::kExitBadInput;
  }
  return result.exitCode;
}

} // namespace

int main(int argc, char** argv) {
  return loopscape::ir::runWithErrorBoundary("loopscape-cli", [&] { return runCli(argc, argv); });
}
