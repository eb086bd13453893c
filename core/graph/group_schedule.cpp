#include "core/graph/group_schedule.h"

#include "core/codegen/cancel.h"
#include "core/graph/x86_templates.h"
#include "core/ir/file_read.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/legality.h"
#include "core/poly/poly_optimize.h"
#include "core/schedule/instruction.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_script.h"
#include "core/tune/records.h"
#include "core/tune/space.h"

#include <fmt/format.h>

#include <filesystem>
#include <thread>

namespace loopscape::graph {

namespace fs = std::filesystem;

namespace {

/// `d` as the group's error: the group and its schedule source first, the cause kept.
Diagnostic groupError(const ModelGroup& group, const std::string& source, const Diagnostic& d) {
  Diagnostic out = d;
  out.code = "graph.group-schedule";
  out.message = fmt::format("group {} ({}): {}", group.name, source, d.message);
  out.notes.insert(out.notes.begin(), fmt::format("cause: {}", d.code));
  return out;
}

int cores(int threads) {
  return threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

/// The sketch generated from seed 1 with its parallel decision (the one categorical
/// sample with several candidates: jobs per core) at the most jobs per core.
Expected<schedule::Schedule> withMostJobs(const ir::PrimFunc& func, const tune::Sketch& sketch,
                                          const tune::SpaceOptions& so) {
  auto first = tune::generate(func, sketch, so, {}, 1);
  if (!first) return first;
  tune::Decisions decisions = tune::decisionsOf(first->trace());
  std::size_t i = 0;
  bool changed = false;
  for (const auto& inst : first->trace().instructions) {
    if (!inst.kind || !inst.kind->isSampling) continue;
    const auto* candidates = inst.attrs.empty() ? nullptr : inst.attrs[0].get<schedule::TraceList>();
    if (inst.kind->name == "sample_categorical" && candidates && candidates->size() > 1) {
      std::int64_t best = 0, bestValue = -1;
      for (std::size_t c = 0; c < candidates->size(); ++c)
        if (const auto* v = (*candidates)[c].get<std::int64_t>(); v && *v > bestValue) {
          bestValue = *v;
          best = static_cast<std::int64_t>(c);
        }
      changed = changed || decisions[i].get<std::int64_t>() == nullptr || *decisions[i].get<std::int64_t>() != best;
      decisions[i] = schedule::TraceValue(best);
    }
    ++i;
  }
  if (!changed) return first;
  return tune::generate(func, sketch, so, decisions, 1);
}

/// The built-in schedule: the auto-scheduler's TIR rules with fixed decisions (see the
/// header). Sketches are tried in order of preference (write reuse at the inner tile
/// level first); the first that generates a legal program wins.
Expected<ScheduledGroup> defaultSchedule(const ModelGroup& group, const GroupScheduleOptions& options) {
  tune::SpaceOptions so;
  so.cores = cores(options.threads);
  so.vectorLanes = std::max(1, poly::MachineModel::host().vectorBytes / 4);
  so.guidedTileProbability = 1.0;
  so.unrollSteps = {16};
  so.poly = false;
  // A convolution in NCHW[x]c, a packed dense or an NN batch_matmul (AlterOpLayout):
  // TOPI's x86 template first.
  const poly::MachineModel machine = poly::MachineModel::host();
  if (auto t = x86TemplateScript(group, machine.vectorRegisters, static_cast<int>(machine.vectorBytes / 4))) {
    auto sch = poly::makeSchedule(group.func, options.checkLegality ? schedule::LegalityPolicy::Exact
                                                                    : schedule::LegalityPolicy::Unverified);
    sch.setStopToken(options.stop);
    if (schedule::applyScript(sch, t->script, fmt::format("{}[{} template]", group.name, t->name)))
      return ScheduledGroup{sch.func(), sch.trace(), fmt::format("default ({} template)", t->name)};
  }
  auto sketches = tune::generateSketches(group.func, so);
  auto rank = [](const tune::Sketch& s) {
    bool tile1 = false, tile = false;
    for (const auto& p : s.plans) {
      tile1 = tile1 || (p.rule == tune::Sketch::Rule::Tile && p.writeLevel == 1);
      tile = tile || p.rule == tune::Sketch::Rule::Tile;
    }
    return tile1 ? 0 : tile ? 1 : 2;
  };
  std::stable_sort(sketches.begin(), sketches.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  std::optional<Diagnostic> last;
  for (const auto& sketch : sketches) {
    if (options.stop.stop_requested()) break;
    auto sch = withMostJobs(group.func, sketch, so);
    if (!sch) {
      last = sch.error();
      continue;
    }
    if (options.checkLegality) {
      auto report = poly::checkLegality(group.func, sch->func());
      if (!report) {
        last = report.error();
        continue;
      }
      if (!report->legal) {
        last = Diagnostic::error("graph.default-illegal", fmt::format("sketch {} is not legal here", sketch.name));
        continue;
      }
    }
    return ScheduledGroup{sch->func(), sch->trace(), "default"};
  }
  if (options.stop.stop_requested()) return std::unexpected(codegen::cancelledDiagnostic("scheduling"));
  // Nothing applied: the unscheduled program (always legal).
  (void)last;
  return ScheduledGroup{group.func, schedule::Trace{}, "default (unscheduled: no rule applies)"};
}

Expected<ScheduledGroup> polySchedule(const ModelGroup& group, const GroupChoice& choice,
                                      const GroupScheduleOptions& options) {
  auto sch = poly::makeSchedule(group.func, options.checkLegality ? schedule::LegalityPolicy::Exact
                                                                  : schedule::LegalityPolicy::Unverified);
  sch.setStopToken(options.stop);
  poly::PolyOptimizeOptions po;
  po.fusion = choice.fusion;
  po.parallel = cores(options.threads) > 1;
  if (auto r = poly::polyOptimize(sch, po); !r) return std::unexpected(groupError(group, choice.describe(), r.error()));
  return ScheduledGroup{sch.func(), sch.trace(), choice.describe()};
}

Expected<ScheduledGroup> tunedSchedule(const ModelGroup& group, const GroupChoice& choice, const std::string& baseDir,
                                       const GroupScheduleOptions& options) {
  const std::string path = resolvePath(baseDir, choice.log);
  if (!fs::exists(path))
    return std::unexpected(groupError(
        group, choice.describe(), Diagnostic::error("graph.no-log", fmt::format("the log '{}' does not exist", path))));
  auto records = tune::readRecords(path);
  if (!records) return std::unexpected(groupError(group, choice.describe(), records.error()));
  // Groups that differ only in name (TVM's _1, _2 copies) share records: match the hash.
  const std::string hash = group.workload.substr(group.workload.find(':'));
  std::optional<tune::Record> best;
  for (const auto& r : *records) {
    if (!r.ok() || !r.workload.ends_with(hash) || r.workload.find(':') != r.workload.size() - hash.size()) continue;
    if (!options.target.empty() && r.target != options.target) continue;
    if (!best || r.medianSeconds() < best->medianSeconds()) best = r;
  }
  if (!best) {
    auto fallback = defaultSchedule(group, options);
    if (fallback) fallback->source = fmt::format("default (no record in {})", choice.log);
    return fallback;
  }
  auto sch = poly::replaySchedule(group.func, best->trace,
                                  options.checkLegality ? schedule::LegalityPolicy::Exact
                                                        : schedule::LegalityPolicy::Unverified);
  if (!sch) return std::unexpected(groupError(group, choice.describe(), sch.error()));
  return ScheduledGroup{sch->func(), sch->trace(),
                        fmt::format("tuned:{} (trial {}, {:.1f} GFLOP/s)", choice.log, best->trial, best->gflops)};
}

Expected<ScheduledGroup> traceSchedule(const ModelGroup& group, const GroupChoice& choice, const std::string& baseDir,
                                       const GroupScheduleOptions& options) {
  const std::string path = resolvePath(baseDir, choice.traceFile);
  std::string text = choice.traceJson;
  if (!path.empty()) {
    auto read = ir::readSourceFile(path);
    if (!read) return std::unexpected(groupError(group, choice.describe(), read.error()));
    text = std::move(*read);
  }
  auto sch = poly::makeSchedule(group.func, options.checkLegality ? schedule::LegalityPolicy::Exact
                                                                  : schedule::LegalityPolicy::Unverified);
  sch.setStopToken(options.stop);
  const bool python = !path.empty() && fs::path(path).extension() == ".py";
  const std::string name = path.empty() ? group.name + "[trace]" : path;
  auto applied = python ? schedule::applyScript(sch, text, name) : schedule::applyJsonTrace(sch, text, name);
  if (!applied) return std::unexpected(groupError(group, choice.describe(), applied.error()));
  return ScheduledGroup{sch.func(), sch.trace(), choice.describe()};
}

} // namespace

Expected<ScheduledGroup> scheduleGroup(const ModelGroup& group, const GroupChoice& choice, const std::string& baseDir,
                                       const GroupScheduleOptions& options) {
  switch (choice.source) {
  case ScheduleSource::Default: return defaultSchedule(group, options);
  case ScheduleSource::Poly: return polySchedule(group, choice, options);
  case ScheduleSource::Tuned: return tunedSchedule(group, choice, baseDir, options);
  case ScheduleSource::Trace: return traceSchedule(group, choice, baseDir, options);
  }
  return defaultSchedule(group, options);
}

} // namespace loopscape::graph
