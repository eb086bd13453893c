// `run`: compile the program (optionally scheduled by a trace) with a target plugin, run
// it on seeded random inputs (or .npy inputs, exactly as `check`), optionally verify every
// output against the reference, and print a timing table (profile.h), all through the
// codegen pipeline (core/codegen/pipeline.h). The kernel runs in the isolated worker
// unless --in-process; a crash or a timeout is an error message and exit status 1, as is
// a failed verification.
#include "cli_options.h"
#include "cli_support.h"
#include "commands.h"
#include "run_measure.h"

#include "core/codegen/machine_peak.h"
#include "core/codegen/pipeline.h"
#include "core/codegen/profile.h"

#include <fmt/format.h>
#include <memory>

namespace loopscape::cli {

namespace {

struct RunCliOptions {
  std::string file;
  std::string trace;
  std::string target;
  std::vector<std::string> shapes;
  std::string inputsDir;
  std::string saveDir;
  std::uint64_t seed = 0;
  int repeat = 5;
  int number = 0;
  int warmup = 1;
  double minRepeatMs = 100;
  bool verify = false;
  double timeout = 10;
  bool inProcess = false;
  int threads = 0;
  bool fastMath = false;
  std::optional<double> rtol, atol;
  double interpretLimit = 2e8;
  bool noPeak = false;
};

int runRun(const RunCliOptions& opt) {
  auto program = loadProgram(opt.file);
  if (!program) return kExitBadInput;
  const ir::PrimFunc& original = program->func;
  auto sizes = parseShapes(original, opt.shapes);
  if (!sizes) {
    printDiagnostic(sizes.error());
    return kExitBadInput;
  }
  ir::PrimFunc scheduled = original;
  std::size_t traceSteps = 0;
  if (hasTrace(*program, opt.trace)) {
    int exitCode = kExitOk;
    auto sch = applyTraceFile(*program, opt.trace, exitCode);
    if (!sch) return exitCode;
    scheduled = sch->func();
    traceSteps = sch->trace().instructions.size();
  }
  const codegen::Pipeline pipeline;
  codegen::BuildOptions buildOptions;
  buildOptions.threads = opt.threads;
  buildOptions.fastMath = opt.fastMath;
  int buildExit = kExitOk;
  auto built = buildKernel(pipeline, opt.target, scheduled, buildOptions, buildExit);
  if (!built) return buildExit;
  const codegen::CompiledKernel& kernel = built->kernel;
  if (auto sizeArgs = codegen::sizeArguments(kernel.func, *sizes); !sizeArgs) {
    printDiagnostic(sizeArgs.error());
    return kExitBadInput;
  }

  auto loadedArgs = loadArguments(original, *sizes, opt.inputsDir, opt.seed);
  if (!loadedArgs) return kExitBadInput;
  const std::vector<ir::NDArray> args = std::move(*loadedArgs);

  codegen::RunOptions runOptions;
  runOptions.isolation = opt.inProcess ? codegen::Isolation::InProcess : codegen::Isolation::Worker;
  runOptions.timeoutSeconds = opt.timeout;
  const std::string mode = opt.inProcess ? "in process" : fmt::format("isolated worker, time limit {:g} s", opt.timeout);
  if (hasTrace(*program, opt.trace))
    fmt::print("trace  {} ({} instructions)\n", traceName(*program, opt.trace), traceSteps);
  fmt::print("target {} ({}), {}\n", opt.target, built->target->toolchain().message, mode);
  for (const auto& r : kernel.func.remarks)
    fmt::print("remark loop {}: {}\n", r.loop, r.message);

  const auto outputs = writtenParams(original);
  std::vector<ir::NDArray> results;
  bool allPassed = true;
  if (opt.verify) {
    codegen::VerifyOptions verifyOptions;
    verifyOptions.interpretLimit = opt.interpretLimit;
    if (opt.rtol || opt.atol) verifyOptions.tolerance = codegen::Tolerance{opt.rtol.value_or(0), opt.atol.value_or(0)};
    auto report = pipeline.verify(kernel, original, *sizes, args, runOptions, verifyOptions);
    if (!report) return reportInterpreterFailure(*program, report.error());
    std::size_t k = 0;
    for (std::size_t i = 0; i < original.params.size(); ++i) {
      const auto& param = original.params[i];
      if (!outputs.contains(param.get())) continue;
      const auto& check = report->outputs[k++];
      fmt::print("output {:<12} {:<8} {:<18} {}\n", param->name, param->dtype.str(), shapeText(check.shape),
                 check.str());
    }
    fmt::print("reference: {}\n", report->referenceText);
    for (const auto& sample : report->sampled) fmt::print("sample {:<12} {}\n", sample.name, sample.str());
    allPassed = report->passed();
    results = std::move(report->actual);
  }

  // Timing (the outputs of the timed calls are the results when not verifying).
  int timeExit = kExitOk;
  auto timed = timeKernel(pipeline, kernel, original, scheduled, *sizes, args, runOptions,
                          codegen::TimingOptions{opt.warmup, opt.repeat, opt.number, opt.minRepeatMs, true},
                          opt.threads, !opt.noPeak, timeExit);
  if (!timed) return timeExit;
  codegen::TimedRun& ran = timed->run;
  if (!ran.workerOutput.empty()) fmt::print("kernel output: {}", ran.workerOutput);
  if (!opt.verify) {
    for (std::size_t i = 0; i < original.params.size(); ++i) {
      const auto& param = original.params[i];
      if (!outputs.contains(param.get())) continue;
      const auto sum = ran.args[i].checksum();
      fmt::print("output {:<12} {:<8} {:<18} not verified (sum={:.9g} abs_sum={:.9g} fnv1a={:016x})\n", param->name,
                 param->dtype.str(), shapeText(ran.args[i].shape()), sum.sum, sum.absSum, sum.hash);
    }
    results = std::move(ran.args);
  }

  const codegen::ProfileReport& profile = timed->profile;
  if (profile.peak && !profile.peak->cacheNote.empty()) fmt::print("note: {}\n", profile.peak->cacheNote);
  fmt::print("{}", codegen::formatProfile(profile, opt.warmup));

  if (!opt.saveDir.empty()) {
    if (!makeOutputDir(opt.saveDir)) return kExitBadInput;
    for (std::size_t i = 0; i < original.params.size(); ++i)
      if (outputs.contains(original.params[i].get()) && !saveOutput(opt.saveDir, original.params[i]->name, results[i]))
        return kExitBadInput;
  }
  return allPassed ? kExitOk : kExitInternal;
}

} // namespace

void registerRun(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("run", "Compile with a target plugin, run (isolated), verify and time the program");
  auto opt = std::make_shared<RunCliOptions>();
  cmd->add_option("FILE", opt->file,
                  "Program file (.te, TVMScript .py) or a workbench session (.lsproj: its program and trace)")
      ->required();
  cmd->add_option("--trace", opt->trace, "Schedule trace (.py TVM script or .json) applied before compiling");
  cmd->add_option("--target", opt->target, "Target plugin, e.g. cpu-c or cpu-llvm (see `targets`)")->required();
  cmd->add_option("--shape", opt->shapes, "Bind a symbolic size, e.g. --shape n=64 (repeatable)");
  cmd->add_option("--inputs", opt->inputsDir, "Read each input NAME from DIR/NAME.npy instead of random data");
  cmd->add_option("--save", opt->saveDir, "Write each output NAME to DIR/NAME.npy");
  cmd->add_option("--seed", opt->seed, "Seed of the random inputs (input number i uses SEED + i)")
      ->capture_default_str();
  cmd->add_option("--repeat", opt->repeat, "Timing repeats")->capture_default_str()->check(numberInRange(1, 1e6, true));
  cmd->add_option("--number", opt->number, "Calls per repeat (0: enough for --min-repeat-ms)")
      ->capture_default_str()
      ->check(numberInRange(0, 1e9, true));
  cmd->add_option("--warmup", opt->warmup, "Untimed calls before timing")
      ->capture_default_str()
      ->check(numberInRange(0, 1e6, true));
  cmd->add_option("--min-repeat-ms", opt->minRepeatMs, "With --number 0: least duration of one repeat")
      ->capture_default_str()
      ->check(numberInRange(0, 3.6e6));
  cmd->add_flag("--verify", opt->verify,
                "Compare every output with the reference interpreter (or, for programs too large to interpret, the "
                "unscheduled program compiled by the same target; for a GPU target by cpu-c or cpu-llvm)");
  cmd->add_option("--rtol", opt->rtol, "With --verify: relative tolerance (default per dtype: float32 1e-4)")
      ->check(numberInRange(0, 1e6));
  cmd->add_option("--atol", opt->atol,
                  "With --verify: absolute tolerance (default per dtype: float32 1e-5, widened for long sums)")
      ->check(numberInRange(0, 1e30));
  cmd->add_option("--interpret-limit", opt->interpretLimit,
                  "With --verify: most statement instances to interpret before using the compiled reference")
      ->capture_default_str()
      ->check(numberInRange(0, 1e15));
  cmd->add_option("--timeout", opt->timeout, "Time limit of the isolated worker, seconds")
      ->capture_default_str()
      ->check(numberInRange(0.001, 86400));
  cmd->add_flag("--in-process", opt->inProcess, "Run the kernel in this process (no isolation; for benchmarks)");
  cmd->add_option("--threads", opt->threads, "Threads of parallel loops (0: all cores)")
      ->capture_default_str()
      ->check(numberInRange(0, 4096, true));
  cmd->add_flag("--fast-math", opt->fastMath, "Let the compiler reassociate and contract floating-point operations (cpu-c: -ffast-math; cpu-llvm: fast-math flags and FMA contraction); off by default");
  cmd->add_flag("--no-peak", opt->noPeak, "Do not measure or show the machine's peak");
  cmd->callback([opt, &result] { result.exitCode = runRun(*opt); });
}

} // namespace loopscape::cli
