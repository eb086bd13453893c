// `print`: the program as TVMScript-style TensorIR; with --trace, the program after the
// trace's schedule; with --format trace-py / trace-json, the trace itself (as TVM
// Python or as JSON) instead of the program.
#include "cli_support.h"
#include "commands.h"

#include "core/ir/printer.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_python.h"

#include <cstdio>
#include <memory>

namespace loopscape::cli {

namespace {
struct PrintOptions {
  std::string file;
  std::string trace;
  std::string format = "tir";
};

int runPrint(const PrintOptions& opt) {
  auto program = loadProgram(opt.file);
  if (!program) return kExitBadInput;
  schedule::Schedule sch(program->func);
  if (!opt.trace.empty()) {
    int exitCode = kExitOk;
    auto applied = applyTraceFile(*program, opt.trace, exitCode);
    if (!applied) return exitCode;
    sch = *applied;
  }
  if (opt.format == "tree" || opt.format == "deps") return printPolyFormat(sch.func(), opt.format);
  if (opt.format == "trace-py")
    std::fputs(schedule::traceToPython(sch.trace()).c_str(), stdout);
  else if (opt.format == "trace-json")
    std::fputs(schedule::traceToJson(sch.trace()).c_str(), stdout);
  else
    std::fputs(ir::printPrimFunc(sch.func()).c_str(), stdout);
  return kExitOk;
}
} // namespace

void registerPrint(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("print", "Print the program (or, with --format, its schedule trace)");
  auto opt = std::make_shared<PrintOptions>();
  cmd->add_option("FILE", opt->file, "Program file (.te)")->required();
  cmd->add_option("--trace", opt->trace, "Apply this schedule trace first: a TVM Python script (.py) or a JSON trace (.json)");
  cmd->add_option("--format", opt->format,
                  "What to print: tir (the scheduled program), trace-py (the trace as TVM Python), trace-json, "
                  "or the polyhedral view: tree (schedule tree), deps (dependences)")
      ->check(CLI::IsMember({"tir", "trace-py", "trace-json", "tree", "deps"}))
      ->capture_default_str();
  cmd->callback([opt, &result] { result.exitCode = runPrint(*opt); });
}

} // namespace loopscape::cli
