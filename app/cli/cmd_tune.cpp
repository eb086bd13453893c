// `tune`: the auto-scheduler on one program (core/tune/search.h). A live progress line on
// stderr (trials, best GFLOP/s and its trace length, trials/s, errors, ETA); Ctrl-C stops
// the search after the candidate being measured (its worker is killed) and keeps every
// record written so far. At the end: the best trace as a TVM Python script on stdout, and
// the curve of the best GFLOP/s against trials as CSV (--curve FILE, else on stdout).
#include "cli_options.h"
#include "cli_support.h"
#include "commands.h"

#include "core/codegen/pipeline.h"
#include "core/schedule/trace_python.h"
#include "core/tune/cost_model.h"
#include "core/tune/search.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <thread>
#include <unistd.h>

namespace loopscape::cli {

namespace {

struct TuneCliOptions {
  std::string file;
  std::string target = "cpu-llvm";
  int trials = 64;
  std::string strategy = "mixed";
  std::string records;
  std::string curve;
  std::string model = "xgb";
  int threads = 0;
  double timeBudget = 0;
  std::uint64_t seed = 1;
  int batch = 16;
  int population = 64;
  double timeout = 10;
  bool fastMath = false;
  std::vector<std::string> shapes;
};

std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted.store(true); }

std::string duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return "?";
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

std::string progressLine(const tune::TuneProgress& p) {
  return fmt::format("tune: {}/{} trials, best {:.1f} GFLOP/s ({} steps{}), {:.2f} trials/s, {} error{}, ETA {}",
                     p.trials, p.total, p.bestGflops, p.bestSteps, p.bestFamily.empty() ? "" : ", " + p.bestFamily,
                     p.trialsPerSecond, p.errors, p.errors == 1 ? "" : "s", duration(p.etaSeconds));
}

int runTune(const TuneCliOptions& opt) {
  auto program = loadProgram(opt.file);
  if (!program) return kExitBadInput;
  auto sizes = parseShapes(program->func, opt.shapes);
  if (!sizes) {
    printDiagnostic(sizes.error());
    return kExitBadInput;
  }
  auto strategy = tune::parseStrategy(opt.strategy);
  if (!strategy) {
    printDiagnostic(strategy.error());
    return kExitBadInput;
  }
  auto model = tune::makeCostModel(opt.model, opt.seed);
  if (!model) {
    printDiagnostic(model.error());
    return kExitBadInput;
  }
  std::vector<tune::Record> previous;
  tune::RecordWriter writer;
  if (!opt.records.empty()) {
    auto read = tune::readRecords(opt.records);
    if (!read) {
      printDiagnostic(read.error());
      return kExitBadInput;
    }
    previous = std::move(*read);
    if (auto opened = writer.open(opt.records); !opened) {
      printDiagnostic(opened.error());
      return kExitBadInput;
    }
  }

  tune::LocalMeasureOptions mo;
  mo.target = opt.target;
  mo.build.threads = opt.threads;
  mo.build.fastMath = opt.fastMath;
  mo.timeoutSeconds = opt.timeout;
  auto measurer = tune::LocalMeasurer::create(program->func, *sizes, mo);
  if (!measurer) {
    printDiagnostic(measurer.error());
    return measurer.error().code.starts_with("codegen.toolchain") ? kExitInternal : kExitBadInput;
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  tune::TuneTask task;
  task.func = program->func;
  task.sizes = *sizes;
  task.target = opt.target;
  task.threads = opt.threads;
  task.fastMath = opt.fastMath;
  const codegen::Target& target = (*measurer)->target();
  const codegen::Pipeline& pipeline = (*measurer)->pipeline();
  task.lower = [&](const ir::PrimFunc& f) { return pipeline.lower(target, f); };

  tune::TuneOptions to;
  to.trials = opt.trials;
  to.batchSize = opt.batch;
  to.population = opt.population;
  to.strategy = *strategy;
  to.seed = opt.seed;
  to.timeBudgetSeconds = opt.timeBudget;
  to.space.cores = opt.threads > 0 ? std::min(opt.threads, cores) : cores;

  const int resumed = static_cast<int>(std::count_if(previous.begin(), previous.end(), [&](const tune::Record& r) {
    return r.workload == tune::workloadKey(program->func, *sizes) && r.target == opt.target;
  }));
  fmt::print(stderr, "tune: {} on {} ({} thread{}), strategy {}, model {}, {} trials{}\n", program->func.name,
             opt.target, to.space.cores, to.space.cores == 1 ? "" : "s", tune::strategyName(*strategy),
             (*model)->name(), opt.trials,
             resumed ? fmt::format(", resuming from {} records in {}", resumed, opt.records) : "");

  // Ctrl-C: the handler only sets a flag; a watcher turns it into a stop request.
  std::stop_source stopSource;
  g_interrupted.store(false);
  auto previousHandler = std::signal(SIGINT, onInterrupt);
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      if (g_interrupted.load()) {
        stopSource.request_stop();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  const bool tty = isatty(STDERR_FILENO);
  int lastPrinted = 0;
  auto onProgress = [&](const tune::TuneProgress& p) {
    if (tty) {
      fmt::print(stderr, "\r\033[K{}", progressLine(p));
      std::fflush(stderr);
    } else if (p.trials - lastPrinted >= opt.batch || p.trials == p.total) {
      fmt::print(stderr, "{}\n", progressLine(p));
      lastPrinted = p.trials;
    }
  };
  auto result = tune::tune(task, **measurer, **model, previous, writer.isOpen() ? &writer : nullptr, to, onProgress,
                           stopSource.get_token());
  done.store(true);
  watcher.join();
  std::signal(SIGINT, previousHandler);
  if (tty) fmt::print(stderr, "\n");
  if (!result) {
    printDiagnostic(result.error());
    return kExitInternal;
  }
  if (g_interrupted.load())
    fmt::print(stderr, "tune: interrupted; the records so far are kept\n");
  else if (result->stopped)
    fmt::print(stderr, "tune: the time budget ran out\n");
  for (const auto& [reason, count] : result->dropped)
    fmt::print(stderr, "tune: dropped before measuring: {} x {}\n", count, reason);

  const auto& records = result->records;
  fmt::print("# tuned {} on {}: {} candidates measured, {} failed\n", program->func.name, opt.target, records.size(),
             result->errors);
  if (!result->best) {
    fmt::print("# no candidate ran successfully\n");
  } else {
    const auto& best = *result->best;
    fmt::print("# best: {:.1f} GFLOP/s, {:.4f} ms (trial {}, family {}, sketch {}){}\n", best.gflops,
               best.medianSeconds() * 1e3, best.trial, best.family.empty() ? "?" : best.family, best.sketch,
               best.verified ? ", verified against the reference" : "");
    fmt::print("{}", schedule::traceToPython(best.trace));
  }
  const std::string csv = tune::curveCsv(result->curve);
  if (!opt.curve.empty()) {
    std::ofstream out(opt.curve);
    out << csv;
    if (!out) {
      printDiagnostic(Diagnostic::error("cli.unwritable", fmt::format("cannot write the curve to '{}'", opt.curve)));
      return kExitBadInput;
    }
    fmt::print("# curve written to {}\n", opt.curve);
  } else {
    fmt::print("# curve\n{}", csv);
  }
  if (g_interrupted.load()) return 130;
  return result->best ? kExitOk : kExitInternal;
}

} // namespace

void registerTune(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("tune", "Search for a fast schedule (auto-scheduling), measuring candidates for real");
  auto opt = std::make_shared<TuneCliOptions>();
  cmd->add_option("FILE", opt->file, "Program file (.te, or TVMScript .py)")->required();
  cmd->add_option("--target", opt->target, "Target plugin (see `targets`)")->capture_default_str();
  cmd->add_option("--trials", opt->trials, "Candidates to measure")
      ->capture_default_str()
      ->check(numberInRange(1, 1e6, true));
  cmd->add_option("--strategy", opt->strategy,
                  "evolutionary (TIR sketches), annealing (TIR, simulated annealing), poly (poly_optimize's "
                  "decisions), mixed (both families), random (no model)")
      ->capture_default_str();
  cmd->add_option("--records", opt->records,
                  "Tuning log (JSON lines): read to resume the search, every measurement appended");
  cmd->add_option("--curve", opt->curve, "Write the best GFLOP/s against trials as CSV here (default: stdout)");
  cmd->add_option("--model", opt->model, "Cost model: xgb or random")->capture_default_str();
  cmd->add_option("--threads", opt->threads, "Threads of parallel loops (0: all cores)")
      ->capture_default_str()
      ->check(numberInRange(0, 4096, true));
  cmd->add_option("--time-budget", opt->timeBudget, "Stop after this many seconds (0: no limit)")
      ->capture_default_str()
      ->check(numberInRange(0, 1e7));
  cmd->add_option("--seed", opt->seed, "Seed of the search")->capture_default_str();
  cmd->add_option("--batch", opt->batch, "Candidates measured per round")
      ->capture_default_str()
      ->check(numberInRange(1, 4096, true));
  cmd->add_option("--population", opt->population, "Candidates evolved per round")
      ->capture_default_str()
      ->check(numberInRange(1, 65536, true));
  cmd->add_option("--timeout", opt->timeout, "Time limit of one kernel call in the worker, seconds")
      ->capture_default_str()
      ->check(numberInRange(0.001, 86400));
  cmd->add_flag("--fast-math", opt->fastMath, "Compile candidates with fast-math (as `run --fast-math`)");
  cmd->add_option("--shape", opt->shapes, "Bind a symbolic size, e.g. --shape n=64 (repeatable)");
  cmd->callback([opt, &result] { result.exitCode = runTune(*opt); });
}

} // namespace loopscape::cli
