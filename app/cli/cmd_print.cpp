// `print`: the program as TVMScript-style TensorIR; with --trace, the program after the
// trace's schedule; with --format trace-py / trace-json, the trace itself (as TVM
// Python or as JSON) instead of the program; with --format tvm-script, a Python script
// that rebuilds the program and replays the trace in Apache TVM (tvm_script_export.h); with --format c / llvm / asm,
// the program lowered (core/codegen/lower.h) and printed as source by the target plugin --target (default: cpu-c for c
// and asm, cpu-llvm for llvm); with --format space, the iteration space of one block
// (core/poly/iteration_space.h) as text (space-svg: as SVG): --block B --dims t,i [--fix k=0]
// [--shape n=8].
#include "cli_support.h"
#include "commands.h"

#include "core/poly/checked_schedule.h"
#include "core/poly/iteration_space.h"

#include "core/codegen/pipeline.h"
#include "core/ir/printer.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_python.h"
#include "core/schedule/tvm_script_export.h"

#include <charconv>
#include <cstdio>
#include <memory>
#include <set>

namespace loopscape::cli {

namespace {
struct PrintOptions {
  std::string file;
  std::string trace;
  std::string format = "tir";
  std::string target;
  bool fastMath = false;
  bool isl = false;
  std::string block, dims;              ///< --format space
  std::vector<std::string> fix, shapes; ///< --format space: NAME=VALUE items
  std::size_t maxInstances = 4096;
};

/// `--format space` / `space-svg`: the block's iteration space on the two --dims.
int printSpace(const PrintOptions& opt, const schedule::ProgramState& state) {
  auto bad = [](std::string message) {
    printDiagnostic(Diagnostic::error("cli.bad-argument", std::move(message)));
    return kExitBadInput;
  };
  const auto comma = opt.dims.find(',');
  if (opt.block.empty() || comma == std::string::npos)
    return bad("--format space needs --block BLOCK and --dims X,Y (two loops or block iterators)");
  poly::IterationSpaceRequest req{.block = opt.block,
                                  .dimX = opt.dims.substr(0, comma),
                                  .dimY = opt.dims.substr(comma + 1),
                                  .maxInstances = opt.maxInstances};
  for (const auto& item : opt.fix) {
    const auto eq = item.find('=');
    std::int64_t value = 0;
    const char* end = item.data() + item.size();
    if (eq == std::string::npos || std::from_chars(item.data() + eq + 1, end, value).ptr != end ||
        eq + 1 == item.size())
      return bad("--fix '" + quoteForMessage(item) + "': expected LOOP=VALUE");
    req.fixed[item.substr(0, eq)] = value;
  }
  auto sizes = parseShapes(state.func(), opt.shapes);
  if (!sizes) {
    printDiagnostic(sizes.error());
    return kExitBadInput;
  }
  req.sizes = *sizes;
  auto space = poly::iterationSpace(state, req);
  if (!space) {
    printDiagnostic(space.error());
    return space.error().code.starts_with("space.") ? kExitBadInput : kExitInternal;
  }
  std::fputs(
      (opt.format == "space-svg" ? poly::renderIterationSpaceSvg(*space) : poly::renderIterationSpace(*space)).c_str(),
      stdout);
  return kExitOk;
}

/// The program lowered and printed by the target in `opt.format`.
int printTargetSource(const PrintOptions& opt, const ir::PrimFunc& func) {
  std::string targetName = opt.target;
  if (targetName.empty())
    targetName = opt.format == "llvm"                               ? "cpu-llvm"
                 : (opt.format == "opencl" || opt.format == "host") ? "opencl"
                 : (opt.format == "cuda" || opt.format == "ptx" || opt.format == "ptxas" || opt.format == "sass")
                     ? "cuda"
                     : "cpu-c";
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
  static const std::set<std::string> targetFormats = {"c",    "llvm", "asm",   "opencl", "host",
                                                      "cuda", "ptx",  "ptxas", "sass"};
  if (targetFormats.contains(opt.format)) return printTargetSource(opt, sch.func());
  if (opt.isl && opt.format != "tree") {
    printDiagnostic(Diagnostic::error("cli.bad-argument", "--isl only applies to --format tree"));
    return kExitBadInput;
  }
  if (opt.format == "space" || opt.format == "space-svg") return printSpace(opt, *sch.state());
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
  cmd->add_option("--format", opt->format,
                  "What to print: tir (the scheduled program), trace-py (the trace as TVM Python), trace-json, "
                  "tvm-script (a Python script that rebuilds the program and replays the trace in Apache TVM), "
                  "the code a target generates: c, llvm, asm, opencl (the OpenCL C kernel), host (the opencl target's "
                  "host library), cuda, ptx (NVRTC), ptxas (ptxas -v usage), sass (machine code: ptxas and cuobjdump), "
                  "or the polyhedral view: tree (schedule tree), deps "
                  "(dependences), space (one block's iteration space: --block, --dims; space-svg: as an SVG picture)")
      ->check(CLI::IsMember({"tir", "trace-py", "trace-json", "tvm-script", "c", "llvm", "asm", "opencl", "host",
                             "cuda", "ptx", "ptxas", "sass", "tree", "deps", "relay", "space", "space-svg"}))
      ->capture_default_str();
  cmd->add_option("--target", opt->target,
                  "Target plugin for --format c/llvm/asm/opencl/host/cuda/ptx/ptxas/sass (see `loopscape-cli targets`; "
                  "default cpu-c, cpu-llvm for llvm, opencl for opencl and host, cuda for cuda, ptx, ptxas and sass)");
  cmd->add_flag("--isl", opt->isl,
                "With --format tree: print the tree in isl's own YAML form (isl_schedule_read_from_str reads it back)");
  cmd->add_flag("--fast-math", opt->fastMath, "With --format c/llvm/asm: " "Let the compiler reassociate and contract floating-point operations (cpu-c: -ffast-math; cpu-llvm: fast-math flags and FMA contraction); off by default");
  cmd->add_option("--block", opt->block, "With --format space: the block (or `<block>_init`)");
  cmd->add_option("--dims", opt->dims,
                  "With --format space: the two axes, loops (by name or position) or block iterators, e.g. t,i");
  cmd->add_option("--fix", opt->fix,
                  "With --format space: the value of a loop that is not an axis, e.g. --fix k=0 (repeatable; "
                  "default: its lowest value)");
  cmd->add_option("--shape", opt->shapes, "With --format space: bind a symbolic size, e.g. --shape n=8 (repeatable)");
  cmd->add_option("--max-instances", opt->maxInstances, "With --format space: show at most this many instances")
      ->capture_default_str();
  cmd->callback([opt, &result] { result.exitCode = runPrint(*opt); });
}

} // namespace loopscape::cli
