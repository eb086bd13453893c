// `print`: the program as TVMScript-style TensorIR; with --trace, the program after the
// trace's schedule; with --format trace-py / trace-json, the trace itself (as TVM
// Python or as JSON) instead of the program; with --format tvm-script, a Python script
// that rebuilds the program and replays the trace in Apache TVM (tvm_script_export.h); with --format c / llvm / asm,
// the program lowered (core/codegen/lower.h) and printed as source by the target plugin --target (default: cpu-c for c
// and asm, cpu-llvm for llvm).
#include "cli_support.h"
#include "commands.h"

#include "core/poly/checked_schedule.h"

#include "core/codegen/pipeline.h"
#include "core/ir/printer.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_python.h"
#include "core/schedule/tvm_script_export.h"

#include <cstdio>
#include <memory>

namespace loopscape::cli {

namespace {
struct PrintOptions {
  std::string file;
  std::string trace;
  std::string format = "tir";
  std::string target;
  bool fastMath = false;
  bool isl = false;
};

/// The program lowered and printed by the target in `opt.format`.
int printTargetSource(const PrintOptions& opt, const ir::PrimFunc& func) {
  std::string targetName = opt.target.empty() ? (opt.format == "llvm" ? "cpu-llvm" : "cpu-c") : opt.target;
  const codegen::Pipeline pipeline;
  auto target = pipeline.findTarget(targetName);
  if (!target) {
    printDiagnostic(target.error());
    return kExitBadInput;
  }
  auto lowered = pipeline.lower(**target, func);
  if (!lowered) {
    printDiagnostic(lowered.error());
    return kExitIllegalSchedule;
  }
  for (const auto& r : lowered->remarks) std::fprintf(stderr, "remark: loop '%s': %s\n", r.loop.c_str(), r.message.c_str());
  codegen::BuildOptions buildOptions;
  buildOptions.fastMath = opt.fastMath;
  auto text = pipeline.source(**target, *lowered, opt.format, buildOptions);
  if (!text) {
    printDiagnostic(text.error());
    return text.error().code == "codegen.unknown-format" ? kExitBadInput : kExitInternal;
  }
  std::fputs(text->c_str(), stdout);
  return kExitOk;
}

int runPrint(const PrintOptions& opt) {
  if (opt.format == "relay") return printRelayModel(opt.file);
  auto program = loadProgram(opt.file);
  if (!program) return kExitBadInput;
  schedule::Schedule sch = poly::makeSchedule(program->func);
  if (hasTrace(*program, opt.trace)) {
    int exitCode = kExitOk;
    auto applied = applyTraceFile(*program, opt.trace, exitCode);
    if (!applied) return exitCode;
    sch = *applied;
  }
  if (opt.format == "c" || opt.format == "llvm" || opt.format == "asm") return printTargetSource(opt, sch.func());
  if (opt.isl && opt.format != "tree") {
    printDiagnostic(Diagnostic::error("cli.bad-argument", "--isl only applies to --format tree"));
    return kExitBadInput;
  }
  if (opt.format == "tree" || opt.format == "deps")
    return printPolyFormat(sch.func(), opt.isl ? "tree-isl" : opt.format);
  if (!opt.target.empty()) {
    printDiagnostic(Diagnostic::error("cli.bad-argument", "--target only applies to --format c, llvm or asm"));
    return kExitBadInput;
  }
  if (opt.format == "trace-py")
    std::fputs(schedule::traceToPython(sch.trace()).c_str(), stdout);
  else if (opt.format == "trace-json")
    std::fputs(schedule::traceToJson(sch.trace()).c_str(), stdout);
  else if (opt.format == "tvm-script")
    std::fputs(schedule::tvmScript(program->func, sch.trace(),
                                   {.origin = opt.trace.empty() ? opt.file : opt.file + " with trace " + opt.trace})
                   .c_str(),
               stdout);
  else
    std::fputs(ir::printPrimFunc(sch.func(), printOptionsFor(*program)).c_str(), stdout);
  return kExitOk;
}
} // namespace

void registerPrint(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("print", "Print the program (or, with --format, its schedule trace)");
  auto opt = std::make_shared<PrintOptions>();
  cmd->add_option("FILE", opt->file,
                  "Program file (.te, TVMScript .py) or a workbench session (.lsproj: its program and trace)")
      ->required();
  cmd->add_option("--trace", opt->trace, "Apply this schedule trace first: a TVM Python script (.py) or a JSON trace (.json)");
  cmd->add_option(
         "--format", opt->format,
         "What to print: tir (the scheduled program), trace-py (the trace as TVM Python), trace-json, "
         "tvm-script (a Python script that rebuilds the program and replays the trace in Apache TVM), "
         "the code a target generates: c, llvm, asm, or the polyhedral view: tree (schedule tree), deps (dependences)")
      ->check(
          CLI::IsMember({"tir", "trace-py", "trace-json", "tvm-script", "c", "llvm", "asm", "tree", "deps", "relay"}))
      ->capture_default_str();
  cmd->add_option("--target", opt->target,
                  "Target plugin for --format c/llvm/asm (see `loopscape-cli targets`; default cpu-c, or cpu-llvm "
                  "for llvm)");
  cmd->add_flag("--isl", opt->isl,
                "With --format tree: print the tree in isl's own YAML form (isl_schedule_read_from_str reads it back)");
  cmd->add_flag("--fast-math", opt->fastMath, "With --format c/llvm/asm: " "Let the compiler reassociate and contract floating-point operations (cpu-c: -ffast-math; cpu-llvm: fast-math flags and FMA contraction); off by default");
  cmd->callback([opt, &result] { result.exitCode = runPrint(*opt); });
}

} // namespace loopscape::cli
