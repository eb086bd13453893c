// `relay run MODEL --target T [--schedule default|poly|poly:FUSION|tuned:LOG|FILE.json]
// [--threads N] [--repeat N] [--verify] ...`: the model compiled group by group through
// the target (core/graph), run in the isolated worker as TVM's graph executor would, one
// row per group and the end-to-end latency. A progress line on stderr while compiling;
// Ctrl-C stops (exit 130).
#include "cli_support.h"
#include "interrupt_guard.h"
#include "relay_run.h"

#include "core/codegen/cancel.h"
#include "core/graph/compiled_model.h"
#include "core/graph/model_run.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <unistd.h>

namespace loopscape::cli {

namespace {

constexpr int kExitInterrupted = 130;

std::string bar(std::size_t done, std::size_t total) {
  const std::size_t width = 24, filled = total ? done * width / total : width;
  return "[" + std::string(filled, '=') + std::string(width - filled, ' ') + "]";
}

int fail(const Diagnostic& d, const graph::Model* model = nullptr) {
  if (codegen::isCancelled(d)) {
    std::fprintf(stderr, "interrupted: %s\n", d.message.c_str());
    return kExitInterrupted;
  }
  // The located file's text: the model's, or a group's trace file.
  std::string text;
  if (model && (d.location.file.empty() || d.location.file == model->path))
    text = model->source;
  else if (auto read = readFile(d.location.file); read && d.location.valid())
    text = std::move(*read);
  printDiagnostic(d, text);
  // A group's step refused (by its primitive or the legality check) is about the program.
  return d.code == "graph.group-schedule" && d.subject == DiagnosticSubject::Program ? kExitIllegalSchedule
                                                                                     : kExitBadInput;
}

} // namespace

int runCompiledModel(const RelayRunOptions& opt) {
  // The schedule first: a model schedule file may ask for AlterOpLayout (its group names
  // are the blocked layout's).
  auto schedule = graph::scheduleFromOption(opt.schedule);
  if (!schedule) return fail(schedule.error());
  if (schedule->model.empty()) schedule->model = opt.file;
  schedule->alterLayout = schedule->alterLayout || opt.alterLayout;
  graph::ModelLoadOptions lo;
  lo.paramsDir = opt.params;
  lo.seed = opt.seed;
  lo.passes = graph::hostPassOptions(schedule->alterLayout);
  if (opt.verbose) lo.passLog = [](const std::string& line) { std::fprintf(stderr, "pass %s\n", line.c_str()); };
  auto model = graph::loadModel(opt.file, lo);
  if (!model) {
    auto text = readFile(opt.file);
    printDiagnostic(model.error(), text ? std::string_view(*text) : std::string_view());
    return kExitBadInput;
  }
  auto inputs = graph::modelInputs(*model, opt.inputs, opt.params, opt.seed);
  if (!inputs) return fail(inputs.error());

  std::map<std::string, int> distinct;
  for (const auto& g : model->groups)
    distinct[g.workload.substr(g.workload.find(':'))]++;
  std::printf("model %s: %zu groups (%zu distinct), target %s, %s, schedule %s\n", opt.file.c_str(),
              model->groups.size(), distinct.size(), opt.target.c_str(),
              opt.threads > 0 ? fmt::format("{} thread{}", opt.threads, opt.threads == 1 ? "" : "s").c_str()
                              : "all cores",
              opt.schedule.c_str());
  std::fflush(stdout);

  InterruptGuard interrupt;
  const bool tty = isatty(STDERR_FILENO);
  graph::CompileOptions co;
  co.target = opt.target;
  co.threads = opt.threads;
  co.fastMath = opt.fastMath;
  co.useCache = !opt.noCache;
  co.stop = interrupt.token();
  co.progress = [&](const graph::CompileProgress& p) {
    const std::string line = fmt::format("compiling {} {}/{} {}{}", bar(p.done, p.total), p.done, p.total, p.group,
                                         p.cached ? " (cached)" : "");
    if (tty)
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    else if (opt.verbose)
      std::fprintf(stderr, "%s\n", line.c_str());
  };
  const auto start = std::chrono::steady_clock::now();
  auto compiled = graph::compileModel(*model, *schedule, co);
  if (tty) std::fputs("\r\033[K", stderr);
  if (!compiled) return fail(compiled.error(), &*model);
  std::printf("compiled %zu groups in %.1f s (%zu kernels from the cache)\n", compiled->groups.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), compiled->cacheHits);

  if (!opt.writeSchedule.empty()) {
    // Every group's schedule as it was chosen, so the file reproduces this run.
    graph::ModelSchedule out = *schedule;
    for (const auto& g : model->groups)
      out.groups.emplace(g.name, schedule->choiceFor(g.name));
    if (auto r = graph::writeModelSchedule(opt.writeSchedule, out); !r) return fail(r.error());
    std::printf("wrote %s\n", opt.writeSchedule.c_str());
  }

  graph::ModelRunOptions ro;
  ro.repeat = opt.repeat;
  ro.isolation = opt.inProcess ? codegen::Isolation::InProcess : codegen::Isolation::Worker;
  ro.timeoutSeconds = opt.timeout;
  ro.stop = interrupt.token();
  auto run = graph::runModel(*model, *compiled, *inputs, ro);
  if (!run) return fail(run.error(), &*model);

  std::optional<graph::ModelVerifyReport> verified;
  if (opt.verify) {
    graph::ModelVerifyOptions vo;
    vo.isolation = ro.isolation;
    vo.timeoutSeconds = opt.timeout;
    vo.stop = interrupt.token();
    vo.useCache = !opt.noCache;
    vo.progress = [&](std::size_t done, std::size_t total) {
      if (tty) std::fprintf(stderr, "\r\033[Kverifying %s %zu/%zu", bar(done, total).c_str(), done, total);
    };
    auto report = graph::verifyModel(*model, *compiled, *inputs, vo);
    if (tty) std::fputs("\r\033[K", stderr);
    if (!report) return fail(report.error(), &*model);
    verified = std::move(*report);
  }

  // One row per group, in execution order.
  double sum = 0;
  for (const auto& t : run->groups)
    sum += t.seconds;
  std::size_t nameWidth = 5, sourceWidth = 8;
  for (const auto& g : compiled->groups) {
    nameWidth = std::max(nameWidth, model->groups[g.group].name.size());
    sourceWidth = std::max(sourceWidth, g.scheduled.source.size());
  }
  std::printf("%-3s %-*s %-21s %-*s %9s %9s %6s%s\n", "#", static_cast<int>(nameWidth), "group", "pattern",
              static_cast<int>(sourceWidth), "schedule", "ms", "GFLOP/s", "share", opt.verify ? "  verified" : "");
  std::map<std::size_t, const graph::GroupCheck*> checks;
  if (verified)
    for (const auto& c : verified->groups)
      if (!checks.contains(c.group) || !c.check.passed()) checks[c.group] = &c;
  for (const auto& t : run->groups) {
    const auto& g = model->groups[t.group];
    const auto& cg = compiled->groups[t.group];
    std::string check;
    if (auto it = checks.find(t.group); it != checks.end()) {
      const auto& c = *it->second;
      check = !c.passed() ? "  MISMATCH"
              : c.reference == codegen::ReferenceKind::Interpreter
                  ? "  ok"
                  : fmt::format("  ok (vs unscheduled{})",
                                c.sampledElements ? fmt::format(", {} interpreted", c.sampledElements) : "");
    }
    std::printf("%-3zu %-*s %-21s %-*s %9.3f %9.1f %5.1f%%%s\n", t.group, static_cast<int>(nameWidth), g.name.c_str(),
                g.pattern.c_str(), static_cast<int>(sourceWidth), cg.scheduled.source.c_str(), t.seconds * 1e3,
                t.seconds > 0 ? static_cast<double>(g.flops) / t.seconds * 1e-9 : 0.0,
                sum > 0 ? 100 * t.seconds / sum : 0.0, check.c_str());
  }
  const double median = run->medianSeconds();
  const auto [mn, mx] = std::minmax_element(run->perRepeat.begin(), run->perRepeat.end());
  std::printf("end-to-end %.3f ms (median of %zu runs; min %.3f, max %.3f), %.2f GFLOP, %.1f GFLOP/s\n", median * 1e3,
              run->perRepeat.size(), *mn * 1e3, *mx * 1e3, static_cast<double>(model->totalFlops()) * 1e-9,
              median > 0 ? static_cast<double>(model->totalFlops()) / median * 1e-9 : 0.0);

  if (!opt.save.empty()) {
    if (!makeOutputDir(opt.save)) return kExitBadInput;
    for (std::size_t k = 0; k < run->outputs.size(); ++k)
      if (!saveOutput(opt.save, fmt::format("output_{}", k), run->outputs[k])) return kExitBadInput;
  }
  if (!opt.saveParams.empty()) {
    if (!makeOutputDir(opt.saveParams)) return kExitBadInput;
    for (std::size_t i = 0; i < model->sourceConstants; ++i)
      if (!saveOutput(opt.saveParams, fmt::format("const_{}", i), model->module.constants[i])) return kExitBadInput;
  }
  for (std::size_t k = 0; k < run->outputs.size(); ++k)
    std::printf("output %zu %s %s\n", k, run->outputs[k].describe().c_str(), run->outputs[k].checksum().str().c_str());

  if (verified) {
    int whole = 0, compiledRef = 0;
    for (const auto& c : verified->groups)
      (c.reference == codegen::ReferenceKind::Interpreter ? whole : compiledRef)++;
    for (const auto& c : verified->model)
      std::printf("verify: the whole model interpreted, %s: %s\n", c.name.c_str(), c.str().c_str());
    if (!verified->modelPassed()) return kExitInternal;
    if (const auto* f = verified->firstFailure()) {
      const auto& g = model->groups[f->group];
      const auto& failed = f->check.passed() ? *f->sampledCheck : f->check;
      std::printf("verify: FAILED at group %zu %s against %s: %s\n", f->group, g.name.c_str(),
                  f->check.passed()                                     ? "the interpreter on sampled elements"
                  : f->reference == codegen::ReferenceKind::Interpreter ? "the reference interpreter"
                                                                        : "the unscheduled group compiled",
                  failed.str().c_str());
      return kExitInternal;
    }
    std::printf("verify: every group matches on its compiled inputs: %d outputs against the reference interpreter, "
                "%d (too large to interpret) against the unscheduled group compiled by %s\n",
                whole, compiledRef, opt.target.c_str());
  }
  return kExitOk;
}

} // namespace loopscape::cli
