// `tune`: the auto-scheduler (core/tune/search.h). A live progress line on stderr (trials,
// best GFLOP/s, or GB/s for a program without floating-point work, and its trace length,
// trials/s, errors, ETA); Ctrl-C stops the search after the candidate being measured (its
// worker is killed) and keeps every record written so far. At the end: the best trace as a TVM Python script on stdout,
// and the curve of the best against trials as CSV (--curve FILE, else on stdout).
//
// Several tasks (several program files, or a Relay model: one task per distinct fused
// group, weighted by how often it occurs) share the trials through the gradient-based task
// scheduler (task_scheduler.h); the summary then gives each task's best and the weighted
// latency, and the curve is that latency against trials.
#include "cli_options.h"
#include "cli_support.h"
#include "commands.h"
#include "interrupt_guard.h"

#include "core/ir/structural_equal.h"
#include "core/schedule/trace_python.h"
#include "core/tune/cost_model.h"
#include "core/tune/model_eval.h"
#include "core/tune/model_file.h"
#include "core/tune/search.h"
#include "core/tune/task_scheduler.h"
#include "core/tune/tune_settings.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

namespace loopscape::cli {

namespace {

/// The search's settings (shared with the GUI's Tune dock: tune_settings.h) and what only
/// the command line has.
struct TuneCliOptions : tune::TuneSettings {
  std::vector<std::string> files;
  std::string records;
  std::string curve;
  std::vector<std::string> shapes;
  bool alterLayout = false; ///< a Relay model's groups after AlterOpLayout
  int evaluateFolds = 0;    ///< > 0: no search, the cost model cross-validated on the records
};

std::string duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return "?";
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

std::string progressLine(const tune::TuneProgress& p) {
  const tune::Rate best = p.bestRate();
  return fmt::format("tune: {}/{} trials, best {:.1f} {} ({} steps{}), {:.2f} trials/s, {} error{}, ETA {}", p.trials,
                     p.total, best.value, best.unit, p.bestSteps, p.bestFamily.empty() ? "" : ", " + p.bestFamily,
                     p.trialsPerSecond, p.errors, p.errors == 1 ? "" : "s", duration(p.etaSeconds));
}

/// One task: a program (a file, or a fused group of a Relay model) and its weight.
struct CliTask {
  ir::PrimFunc func;
  ir::SizeBindings sizes;
  double weight = 1;
  std::string from; ///< the file it came from
};

/// The tasks of the files: a Relay model's distinct fused groups (by workload key,
/// weighted by their count), every other file's program. Nullopt after printing the
/// diagnostic.
std::optional<std::vector<CliTask>> loadTasks(const TuneCliOptions& opt) {
  std::vector<CliTask> tasks;
  std::map<std::string, std::size_t> byKey;
  for (const auto& file : opt.files) {
    std::vector<ir::PrimFunc> funcs;
    if (std::filesystem::path(file).extension() == ".relay") {
      auto groups = relayGroupFunctions(file, opt.alterLayout);
      if (!groups) return std::nullopt;
      funcs = std::move(*groups);
    } else {
      auto program = loadProgram(file);
      if (!program) return std::nullopt;
      funcs.push_back(program->func);
    }
    for (auto& f : funcs) {
      auto sizes = parseShapes(f, opt.shapes);
      if (!sizes) {
        printDiagnostic(sizes.error());
        return std::nullopt;
      }
      // Groups that differ only in name (TVM's _1, _2 suffixes) are one task.
      std::string key = fmt::format("{:016x}", ir::structuralHash(f));
      for (const auto& [name, value] : *sizes)
        key += fmt::format(",{}={}", name, value);
      if (auto it = byKey.find(key); it != byKey.end()) {
        tasks[it->second].weight += 1;
        continue;
      }
      byKey.emplace(key, tasks.size());
      tasks.push_back({std::move(f), std::move(*sizes), 1, file});
    }
  }
  return tasks;
}

/// Everything a task's search needs, kept alive for the search.
struct TaskSetup {
  CliTask task;
  std::unique_ptr<tune::LocalMeasurer> measurer;
  tune::TuneTask tuneTask;
};

std::optional<TaskSetup> setUp(CliTask task, const TuneCliOptions& opt, int& exitCode) {
  TaskSetup s;
  auto measurer = tune::LocalMeasurer::create(task.func, task.sizes, tune::makeMeasureOptions(opt));
  if (!measurer) {
    printDiagnostic(measurer.error());
    exitCode = measurer.error().code.starts_with("codegen.toolchain") ? kExitInternal : kExitBadInput;
    return std::nullopt;
  }
  s.measurer = std::move(*measurer);
  s.tuneTask = tune::makeTuneTask(task.func, task.sizes, opt, *s.measurer);
  s.task = std::move(task);
  return s;
}

bool writeCurve(const std::string& path, const std::string& csv) {
  if (path.empty()) {
    fmt::print("# curve\n{}", csv);
    return true;
  }
  std::ofstream out(path);
  out << csv;
  if (!out) {
    printDiagnostic(Diagnostic::error("cli.unwritable", fmt::format("cannot write the curve to '{}'", path)));
    return false;
  }
  fmt::print("# curve written to {}\n", path);
  return true;
}

void printBest(const tune::Record& best) {
  const tune::Rate rate = best.rate();
  fmt::print("# best: {:.1f} {}, {:.4g} ms (trial {}, family {}, sketch {}){}\n", rate.value, rate.unit,
             best.medianSeconds() * 1e3, best.trial, best.family.empty() ? "?" : best.family, best.sketch,
             best.verified ? ", verified against the reference" : "");
  fmt::print("{}", schedule::traceToPython(best.trace));
}

void printDropped(const tune::TuneResult& result) {
  for (const auto& [reason, count] : result.dropped)
    fmt::print(stderr, "tune: dropped before measuring: {} x {}\n", count, reason);
  for (const auto& [code, count] : result.legalityUnknown)
    fmt::print(stderr, "tune: {} new best(s) kept on verification alone: the exact legality check failed ({})\n", count,
               code);
}

int runSingle(TaskSetup& setup, const TuneCliOptions& opt, tune::CostModel& model,
              const std::vector<tune::Record>& previous, tune::RecordWriter& writer, const tune::TuneOptions& to) {
  const auto& func = setup.task.func;
  const std::string key = tune::workloadKey(func, setup.task.sizes);
  const int resumed = static_cast<int>(std::count_if(previous.begin(), previous.end(), [&](const tune::Record& r) {
    return r.workload == key && r.target == opt.target;
  }));
  fmt::print(stderr, "tune: {} on {} ({} thread{}), strategy {}, model {}, {} trials{}\n", func.name, opt.target,
             to.space.cores, to.space.cores == 1 ? "" : "s", tune::strategyName(to.strategy), model.name(), opt.trials,
             resumed ? fmt::format(", resuming from {} records in {}", resumed, opt.records) : "");
  InterruptGuard interrupt;
  const bool tty = isatty(STDERR_FILENO);
  int lastPrinted = 0;
  auto onProgress = [&](const tune::TuneProgress& p) {
    if (tty) {
      fmt::print(stderr, "\r\033[K{}", progressLine(p));
      std::fflush(stderr);
    } else if (p.last && (p.trials - lastPrinted >= opt.batch || p.trials == p.total)) {
      fmt::print(stderr, "{}\n", progressLine(p));
      lastPrinted = p.trials;
    }
  };
  auto result = tune::tune(setup.tuneTask, *setup.measurer, model, previous, writer.isOpen() ? &writer : nullptr, to,
                           onProgress, interrupt.token());
  if (tty) fmt::print(stderr, "\n");
  if (!result) {
    printDiagnostic(result.error());
    return kExitInternal;
  }
  if (interrupt.interrupted())
    fmt::print(stderr, "tune: interrupted; the records so far are kept\n");
  else if (result->stopped)
    fmt::print(stderr, "tune: the time budget ran out\n");
  else if (result->exhausted)
    fmt::print(stderr,
               "tune: the search space ran out after {} of {} trials: three rounds in a row drew no candidate that "
               "was not measured before\n",
               result->records.size(), opt.trials);
  printDropped(*result);

  fmt::print("# tuned {} on {}: {} candidates measured, {} failed\n", func.name, opt.target, result->records.size(),
             result->errors);
  if (result->best)
    printBest(*result->best);
  else
    fmt::print("# no candidate ran successfully\n");
  if (result->modelSamples > 0)
    fmt::print("# cost model {}: rank correlation {:.2f} of its predictions with the measured GFLOP/s over the {} "
               "candidates measured after its first training\n",
               result->modelName, result->modelCorrelation, result->modelSamples);
  if (!writeCurve(opt.curve, tune::curveCsv(result->curve))) return kExitBadInput;
  if (interrupt.interrupted()) return 130;
  return result->best ? kExitOk : kExitInternal;
}

int runMany(std::vector<TaskSetup>& setups, const TuneCliOptions& opt, tune::CostModel& model,
            const std::vector<tune::Record>& previous, tune::RecordWriter& writer, const tune::TuneOptions& to) {
  double totalWeight = 0;
  for (const auto& s : setups)
    totalWeight += s.task.weight;
  fmt::print(stderr, "tune: {} task{} ({} kernel launches) on {} ({} thread{}), strategy {}, model {}, {} trials\n",
             setups.size(), setups.size() == 1 ? "" : "s", totalWeight, opt.target, to.space.cores,
             to.space.cores == 1 ? "" : "s", tune::strategyName(to.strategy), model.name(), opt.trials);
  InterruptGuard interrupt;
  const bool tty = isatty(STDERR_FILENO);
  std::vector<std::unique_ptr<tune::TaskTuner>> tuners;
  std::vector<tune::ScheduledTask> scheduled;
  int measured = 0, errors = 0;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::vector<tune::CurvePoint> curve;
  for (auto& s : setups) {
    auto onProgress = [&, name = s.task.func.name](const tune::TuneProgress& p) {
      // Each measurement is reported at once (no record yet), then with its record.
      if (!p.last) ++measured;
      if (p.last && !p.last->ok()) ++errors;
      if (!tty) return;
      const double rate = measured / std::max(elapsed(), 1e-9);
      const tune::Rate best = p.bestRate();
      fmt::print(stderr, "\r\033[Ktune: {}/{} trials, {} best {:.1f} {}, {:.2f} trials/s, {} errors, ETA {}", measured,
                 opt.trials, name, best.value, best.unit, rate, errors, duration((opt.trials - measured) / rate));
      std::fflush(stderr);
    };
    tuners.push_back(std::make_unique<tune::TaskTuner>(
        s.tuneTask, *s.measurer, model, writer.isOpen() ? &writer : nullptr, to, onProgress, interrupt.token()));
    if (auto ok = tuners.back()->begin(previous); !ok) {
      printDiagnostic(ok.error());
      return kExitInternal;
    }
    scheduled.push_back({tuners.back().get(), s.task.weight});
  }
  tune::SchedulerOptions so;
  so.trials = opt.trials;
  so.batchSize = opt.batch;
  so.seed = opt.seed;
  auto onRound = [&](std::size_t task, double weighted) {
    curve.push_back({measured, elapsed(), std::isfinite(weighted) ? weighted * 1e3 : 0});
    if (tty) return;
    fmt::print(stderr, "tune: {}/{} trials, round of task {} ({}), weighted latency {}\n", measured, opt.trials,
               task + 1, setups[task].task.func.name,
               std::isfinite(weighted) ? fmt::format("{:.4g} ms", weighted * 1e3) : "not yet known");
  };
  const auto rounds = tune::scheduleTasks(scheduled, so, onRound);
  if (tty) fmt::print(stderr, "\n");
  if (interrupt.interrupted()) fmt::print(stderr, "tune: interrupted; the records so far are kept\n");
  for (const auto& t : tuners)
    printDropped(t->result());

  const double weighted = tune::weightedLatency(scheduled);
  fmt::print("# tuned {} task{} on {}: {} candidates measured, {} failed; weighted latency {}\n", setups.size(),
             setups.size() == 1 ? "" : "s", opt.target, measured, errors,
             std::isfinite(weighted) ? fmt::format("{:.4g} ms", weighted * 1e3) : "unknown (a task has no result)");
  for (std::size_t i = 0; i < setups.size(); ++i) {
    const auto& r = tuners[i]->result();
    fmt::print("# task {}/{}: {} (weight {}, from {}): {} rounds, {} measured\n", i + 1, setups.size(),
               setups[i].task.func.name, setups[i].task.weight, setups[i].task.from, rounds[i], r.records.size());
    if (r.best)
      printBest(*r.best);
    else
      fmt::print("# no candidate ran successfully\n");
  }
  std::string csv = "trial,seconds,weighted_ms\n";
  for (const auto& p : curve)
    csv += fmt::format("{},{:.3f},{:.6f}\n", p.trial, p.seconds, p.bestGflops);
  if (!writeCurve(opt.curve, csv)) return kExitBadInput;
  if (interrupt.interrupted()) return 130;
  return std::isfinite(weighted) ? kExitOk : kExitInternal;
}

/// --evaluate-model K: per task, its records replayed and the model named by --model (and
/// beside it the prior, the search's warm start, and the random model, the baseline)
/// cross-validated on them (model_eval.h).
int runEvaluate(const std::vector<TaskSetup>& setups, const TuneCliOptions& opt, int cores,
                const std::vector<tune::Record>& records) {
  InterruptGuard interrupt;
  const bool tty = isatty(STDERR_FILENO);
  for (const auto& s : setups) {
    const auto& name = s.task.func.name;
    auto lowered = tune::lowerRecords(
        s.tuneTask, records, cores,
        [&](int done, int total) {
          if (tty)
            fmt::print(stderr, "\r\033[Ktune: replaying the records of {}: {}/{}", name, done, total);
          else if (done % 64 == 0 || done == total)
            fmt::print(stderr, "tune: replaying the records of {}: {}/{}\n", name, done, total);
        },
        interrupt.token());
    if (tty) fmt::print(stderr, "\n");
    if (interrupt.interrupted()) {
      fmt::print(stderr, "tune: interrupted\n");
      return 130;
    }
    if (lowered.skipped > 0)
      fmt::print(stderr, "tune: {} record{} of {} no longer replay{} or lower{}; left out\n", lowered.skipped,
                 lowered.skipped == 1 ? "" : "s", name, lowered.skipped == 1 ? "s" : "",
                 lowered.skipped == 1 ? "s" : "");
    const auto ok = std::count_if(lowered.gflops.begin(), lowered.gflops.end(), [](double g) { return g > 0; });
    fmt::print("# {}: {}-fold cross-validation of the cost model on {} records of {} ({} successful)\n", opt.records,
               opt.evaluateFolds, lowered.programs.size(), name, ok);
    std::vector<const codegen::LoweredFunc*> ptrs;
    for (const auto& p : lowered.programs)
      ptrs.push_back(&p);
    std::vector<std::string> models = {opt.model};
    for (const char* m : {"prior", "random"})
      if (opt.model != m) models.emplace_back(m);
    for (const auto& m : models) {
      // runTune has checked the model's name; "prior" and "random" are always known.
      auto eval = tune::crossValidate(ptrs, lowered.gflops, opt.evaluateFolds, opt.seed,
                                      [&] { return std::move(*tune::makeCostModel(m, opt.seed, cores)); });
      if (!eval) {
        printDiagnostic(eval.error());
        return kExitBadInput;
      }
      for (std::size_t k = 0; k < eval->folds.size(); ++k)
        fmt::print("#   {} fold {}: {} programs, rank correlation {:.2f}, top pick {:.2f} of the fold's best\n",
                   eval->model, k + 1, eval->folds[k].programs, eval->folds[k].correlation, eval->folds[k].topPick);
      fmt::print("# {}: held-out rank correlation {:.2f}, top pick {:.2f} of the best (mean of {} folds)\n",
                 eval->model, eval->meanCorrelation(), eval->meanTopPick(), eval->folds.size());
    }
  }
  return kExitOk;
}

int runTune(const TuneCliOptions& opt) {
  auto options = tune::makeTuneOptions(opt);
  if (!options) {
    printDiagnostic(options.error());
    return kExitBadInput;
  }
  auto model = tune::makeCostModel(opt);
  if (!model) {
    printDiagnostic(model.error());
    return kExitBadInput;
  }
  auto tasks = loadTasks(opt);
  if (!tasks) return kExitBadInput;
  if (tasks->empty()) {
    printDiagnostic(Diagnostic::error("cli.nothing-to-tune", "the files hold no kernel to tune"));
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
    if (opt.evaluateFolds == 0) // --evaluate-model only reads them
      if (auto opened = writer.open(opt.records); !opened) {
        printDiagnostic(opened.error());
        return kExitBadInput;
      }
  }
  std::vector<TaskSetup> setups;
  for (auto& t : *tasks) {
    int exitCode = kExitOk;
    auto s = setUp(std::move(t), opt, exitCode);
    if (!s) return exitCode;
    setups.push_back(std::move(*s));
  }
  if (opt.evaluateFolds > 0) {
    if (opt.records.empty()) {
      printDiagnostic(Diagnostic::error("cli.missing-records", "--evaluate-model needs the records (--records LOG)"));
      return kExitBadInput;
    }
    return runEvaluate(setups, opt, options->space.cores, previous);
  }
  const tune::TuneOptions& to = *options;
  if (!opt.records.empty()) {
    // A model that cannot be read does not stop the search: it starts afresh and learns
    // from the log's records of this workload again.
    const auto path = tune::modelPathBeside(opt.records, **model);
    if (auto loaded = tune::loadModelBeside(**model, opt.records); !loaded) {
      Diagnostic d = loaded.error();
      d.severity = Severity::Warning;
      d.message += "; the cost model starts afresh";
      printDiagnostic(d);
    } else if (*loaded) {
      fmt::print(stderr, "tune: cost model loaded from {}\n", path.string());
    }
  }
  const int code = setups.size() == 1 && setups.front().task.weight == 1
                       ? runSingle(setups.front(), opt, **model, previous, writer, to)
                       : runMany(setups, opt, **model, previous, writer, to);
  if (!opt.records.empty()) {
    const auto path = tune::modelPathBeside(opt.records, **model);
    if (auto saved = tune::saveModelBeside(**model, opt.records); !saved) {
      Diagnostic d = saved.error();
      d.severity = Severity::Warning;
      printDiagnostic(d);
    } else {
      fmt::print(stderr, "tune: cost model saved to {}\n", path.string());
    }
  }
  return code;
}

} // namespace

void registerTune(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("tune", "Search for a fast schedule (auto-scheduling), measuring candidates for real");
  auto opt = std::make_shared<TuneCliOptions>();
  cmd->add_option("FILE", opt->files,
                  "Program files (.te, TVMScript .py) or a Relay model (.relay: its fused groups); several share the "
                  "trials through the task scheduler")
      ->required();
  cmd->add_option("--target", opt->target, "Target plugin (see `targets`)")->capture_default_str();
  cmd->add_option("--trials", opt->trials, "Candidates to measure (in all)")
      ->capture_default_str()
      ->check(numberInRange(1, 1e6, true));
  cmd->add_option("--strategy", opt->strategy,
                  "evolutionary (TIR sketches), annealing (TIR, simulated annealing), poly (poly_optimize's "
                  "decisions), mixed (both families), random (no model)")
      ->capture_default_str();
  cmd->add_option("--records", opt->records,
                  "Tuning log (JSON lines): read to resume the search, every measurement appended; the cost model "
                  "is kept beside it (LOG.xgb)");
  cmd->add_option("--curve", opt->curve, "Write the best against trials as CSV here (default: stdout)");
  cmd->add_option("--model", opt->model,
                  "Cost model: xgb, random, or prior (cycles estimated from the vector width, the accumulator "
                  "chains and the parallel loop; learns nothing)")
      ->capture_default_str();
  cmd->add_flag("!--no-prior", opt->warmStart,
                "Draw the first batch at random (MetaSchedule's cold start) instead of ranking by the prior until "
                "the cost model has learnt");
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
  cmd->add_flag("--alter-layout", opt->alterLayout,
                "For a .relay model: tune the groups AlterOpLayout makes (as `relay run --alter-layout`)");
  cmd->add_option("--shape", opt->shapes, "Bind a symbolic size, e.g. --shape n=64 (repeatable)");
  cmd->add_option("--evaluate-model", opt->evaluateFolds,
                  "No search: replay the records (--records) and report the cost model's (and the random model's) "
                  "rank correlation on held-out records, in this many folds")
      ->check(numberInRange(2, 1000, true));
  cmd->callback([opt, &result] { result.exitCode = runTune(*opt); });
}

} // namespace loopscape::cli
