// `check`: run the reference interpreter on the program with seeded random inputs (or
// inputs read from .npy files) and print one checksum line per output; optionally save
// the outputs as .npy so other tools (numpy, TVM) can compare them. With --trace, run
// both the original program and the program after the trace's schedule on the same
// inputs and report per output `equal` or the first differing element (exit status 1
// when any output differs).
#include "cli_options.h"
#include "cli_support.h"
#include "commands.h"
#include "source_locate.h"

#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/npy.h"
#include "core/ir/visitor.h"

#include <charconv>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <set>

namespace loopscape::cli {

namespace {

struct CheckOptions {
  std::string file;
  std::vector<std::string> shapes;
  std::string inputsDir;
  std::string saveDir;
  std::string trace;
  double atol = 0;
  double rtol = 0;
  std::uint64_t seed = 0;
};

int runCheck(const CheckOptions& opt) {
  auto program = loadProgram(opt.file);
  if (!program) return kExitBadInput;
  const auto& func = program->func;
  auto sizes = parseShapes(func, opt.shapes);
  if (!sizes) {
    printDiagnostic(sizes.error());
    return kExitBadInput;
  }
  std::optional<schedule::Schedule> scheduled;
  if (hasTrace(*program, opt.trace)) {
    int exitCode = kExitOk;
    scheduled = applyTraceFile(*program, opt.trace, exitCode);
    if (!scheduled) return exitCode;
  }

  const auto outputs = writtenParams(func);
  auto loadedArgs = loadArguments(func, *sizes, opt.inputsDir, opt.seed);
  if (!loadedArgs) return kExitBadInput;
  std::vector<ir::NDArray> args = std::move(*loadedArgs);

  // With a trace, the scheduled program runs on copies of the same inputs.
  std::vector<ir::NDArray> scheduledArgs;
  if (scheduled) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!outputs.contains(func.params[i].get())) {
        scheduledArgs.push_back(args[i].clone());
        continue;
      }
      auto fresh = ir::NDArray::create(args[i].shape(), args[i].dtype(), func.params[i]->name);
      if (!fresh) {
        printDiagnostic(fresh.error());
        return kExitBadInput;
      }
      scheduledArgs.push_back(std::move(*fresh));
    }
    fmt::print("trace  {} ({} instructions)\n", traceName(*program, opt.trace), scheduled->trace().instructions.size());
  }

  if (auto ran = ir::interpret(func, args, *sizes); !ran) return reportInterpreterFailure(*program, ran.error());
  if (scheduled) {
    if (scheduled->func().params.size() != func.params.size()) {
      printDiagnostic(Diagnostic::error("cli.signature-changed",
                                        "the scheduled program has a different parameter list than the original"));
      return kExitInternal;
    }
    if (auto ran = ir::interpret(scheduled->func(), scheduledArgs, *sizes); !ran) {
      auto d = ran.error();
      d.message = fmt::format("the scheduled program failed: {}", d.message);
      // The original program ran: a fault of the scheduled one is the schedule's (a bug
      // when every step was checked), unless it ran out of the memory limit.
      printDiagnostic(d);
      return d.code.ends_with("too-large") || d.code == "ndarray.out-of-memory" ? kExitBadInput : kExitInternal;
    }
  }

  if (!opt.saveDir.empty() && !makeOutputDir(opt.saveDir)) return kExitBadInput;
  bool allEqual = true;
  for (std::size_t i = 0; i < func.params.size(); ++i) {
    const auto& param = func.params[i];
    if (!outputs.contains(param.get())) continue;
    if (scheduled) {
      const auto mismatch = ir::firstMismatch(scheduledArgs[i], args[i], opt.atol, opt.rtol);
      if (!mismatch) {
        fmt::print("output {:<12} {:<8} {:<18} equal\n", param->name, param->dtype.str(), shapeText(args[i].shape()));
      } else {
        allEqual = false;
        fmt::print("output {:<12} {:<8} {:<18} differs at flat index {} {}: original {:.9g}, scheduled {:.9g}\n",
                   param->name, param->dtype.str(), shapeText(args[i].shape()), mismatch->index,
                   multiIndex(mismatch->index, args[i].shape()), mismatch->expected, mismatch->actual);
      }
      if (!opt.saveDir.empty() && !saveOutput(opt.saveDir, param->name, scheduledArgs[i])) return kExitBadInput;
      continue;
    }
    const auto sum = args[i].checksum();
    fmt::print("output {:<12} {:<8} {:<18} sum={:.9g} abs_sum={:.9g} fnv1a={:016x}\n", param->name,
               param->dtype.str(), shapeText(args[i].shape()), sum.sum, sum.absSum, sum.hash);
    if (!opt.saveDir.empty() && !saveOutput(opt.saveDir, param->name, args[i])) return kExitBadInput;
  }
  return allEqual ? kExitOk : kExitInternal;
}

} // namespace

void registerCheck(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand(
      "check", "Run the reference interpreter on seeded random inputs and print a checksum per output");
  auto opt = std::make_shared<CheckOptions>();
  cmd->add_option("FILE", opt->file,
                  "Program file (.te, TVMScript .py) or a workbench session (.lsproj: its program and trace)")
      ->required();
  cmd->add_option("--shape", opt->shapes, "Bind a symbolic size, e.g. --shape n=64 (repeatable)");
  cmd->add_option("--inputs", opt->inputsDir, "Read each input NAME from DIR/NAME.npy instead of random data");
  cmd->add_option("--save", opt->saveDir, "Write each output NAME to DIR/NAME.npy");
  cmd->add_option("--trace", opt->trace,
                  "Schedule trace (.py TVM script or .json): run the original and the scheduled program on the same "
                  "inputs and compare every output (exit status 1 if any differs, 3 if a step is illegal)");
  cmd->add_option("--atol", opt->atol, "With --trace: absolute tolerance of the comparison (default: bit-exact)")
      ->check(numberInRange(0, 1e30));
  cmd->add_option("--rtol", opt->rtol, "With --trace: relative tolerance of the comparison (default: bit-exact)")
      ->check(numberInRange(0, 1e6));
  cmd->add_option("--seed", opt->seed, "Seed of the random inputs (input number i uses SEED + i)")
      ->capture_default_str();
  cmd->callback([opt, &result] { result.exitCode = runCheck(*opt); });
}

} // namespace loopscape::cli
