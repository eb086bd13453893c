#include "core/graph/compiled_model.h"

#include "core/codegen/cancel.h"
#include "core/codegen/pipeline.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/tile_model.h"
#include "core/schedule/trace_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

namespace loopscape::graph {

namespace fs = std::filesystem;

namespace {

/// What a file's contents are, cheaply: its size and modification time.
std::string fileStamp(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return "missing";
  const auto time = fs::last_write_time(path, ec);
  return fmt::format("{}@{}", size, ec ? 0 : time.time_since_epoch().count());
}

/// Everything a group's schedule depends on besides its program.
std::string choiceKey(const GroupChoice& c, const ModelSchedule& schedule) {
  std::string key{scheduleSourceName(c.source)};
  switch (c.source) {
  case ScheduleSource::Default: break;
  case ScheduleSource::Poly: key += ":" + c.fusion; break;
  case ScheduleSource::Tuned: key += ":" + fileStamp(schedule.resolve(c.log)); break;
  case ScheduleSource::Trace:
    key += c.traceFile.empty() ? ":" + c.traceJson
                               : ":" + schedule.resolve(c.traceFile) + ":" + fileStamp(schedule.resolve(c.traceFile));
    break;
  }
  return key;
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

Expected<CompiledModel> compileModel(const Model& model, const ModelSchedule& schedule, const CompileOptions& options) {
  codegen::Pipeline pipeline;
  auto target = pipeline.usableTarget(options.target);
  if (!target) return std::unexpected(target.error());
  auto plan = planGraph(model, true);
  if (!plan) return std::unexpected(plan.error());
  CompiledModel out;
  out.target = options.target;
  out.threads = options.threads;
  out.plan = std::move(*plan);
  const KernelCache cache(options.cacheDir, options.useCache);
  const int cores =
      options.threads > 0 ? options.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const auto machine = poly::MachineModel::host();
  const std::string version = fmt::format("{} abi{}", LOOPSCAPE_VERSION, codegen::kTargetAbiVersion);
  const std::string machineText =
      fmt::format("cores={} vector={} l1={} l2={}", cores, machine.vectorBytes, machine.l1Bytes, machine.l2Bytes);
  GroupScheduleOptions so;
  so.threads = options.threads;
  so.checkLegality = options.checkLegality;
  so.target = options.target;
  so.stop = options.stop;
  std::map<std::string, std::size_t> done; // (workload hash, choice) -> compiled group
  for (const auto& g : model.groups) {
    if (options.stop.stop_requested()) return std::unexpected(codegen::cancelledDiagnostic("building"));
    const auto start = std::chrono::steady_clock::now();
    const GroupChoice& choice = schedule.choiceFor(g.name);
    const std::string hash = g.workload.substr(g.workload.find(':') + 1);
    const std::string scheduleKey = KernelCache::key(
        {version, machineText, hash, choiceKey(choice, schedule), options.checkLegality ? "checked" : "unchecked"});
    if (auto it = done.find(scheduleKey); it != done.end()) {
      CompiledGroup copy = out.groups[it->second];
      copy.group = g.index;
      copy.seconds = 0;
      out.groups.push_back(std::move(copy));
      if (options.progress) options.progress({out.groups.size(), model.groups.size(), g.name, true});
      continue;
    }
    CompiledGroup cg;
    cg.group = g.index;
    // 1. The schedule: the trace this choice gave before, or schedule now.
    bool scheduled = false;
    if (auto stored = cache.findTrace(scheduleKey)) {
      auto j = nlohmann::json::parse(*stored, nullptr, false);
      if (!j.is_discarded() && j.contains("trace") && j.contains("source")) {
        auto trace = schedule::traceFromJson(j["trace"].get<std::string>(), g.name);
        auto sch = trace ? poly::replaySchedule(g.func, *trace, schedule::LegalityPolicy::Unverified)
                         : Expected<schedule::Schedule>(std::unexpected(trace.error()));
        if (sch) {
          cg.scheduled = {sch->func(), sch->trace(), j["source"].get<std::string>()};
          scheduled = true;
        }
      }
    }
    if (!scheduled) {
      auto sg = scheduleGroup(g, choice, schedule.baseDir, so);
      if (!sg) return std::unexpected(sg.error());
      cg.scheduled = std::move(*sg);
      cache.storeTrace(
          scheduleKey,
          nlohmann::json{{"source", cg.scheduled.source}, {"trace", schedule::traceToJson(cg.scheduled.trace)}}.dump() +
              "\n");
    }
    // 2. The kernel: from the cache, or built.
    const std::string kernelKey =
        KernelCache::key({version, options.target, fmt::format("threads={} fast={}", options.threads, options.fastMath),
                          hash, schedule::traceToJson(cg.scheduled.trace)});
    if (auto hit = cache.findKernel(kernelKey)) {
      cg.library = hit->library;
      cg.symbol = hit->symbol;
      cg.fromCache = true;
      ++out.cacheHits;
    } else {
      codegen::BuildOptions bo;
      bo.fastMath = options.fastMath;
      bo.threads = options.threads;
      bo.stop = options.stop;
      auto built = pipeline.compile(**target, cg.scheduled.func, bo, options.stop);
      if (!built) {
        if (codegen::isCancelled(built.error())) return std::unexpected(built.error());
        Diagnostic d = built.error();
        d.message = fmt::format("group {} ({}): {}", g.name, cg.scheduled.source, d.message);
        d.notes.insert(d.notes.begin(), fmt::format("cause: {}", d.code));
        d.code = "graph.group-build";
        return std::unexpected(d);
      }
      const std::string library = built->kernel->libraryPath();
      if (library.empty())
        return std::unexpected(Diagnostic::error(
            "graph.group-build",
            fmt::format("group {}: target '{}' made no shared library of the kernel", g.name, options.target)));
      auto stored = cache.storeKernel(kernelKey, library, built->kernel->symbol());
      cg.library = stored.library;
      cg.symbol = stored.symbol;
      if (stored.library == library) cg.keepAlive = built->kernel;
    }
    cg.seconds = since(start);
    done[scheduleKey] = out.groups.size();
    out.groups.push_back(std::move(cg));
    if (options.progress)
      options.progress({out.groups.size(), model.groups.size(), g.name, out.groups.back().fromCache});
  }
  return out;
}

} // namespace loopscape::graph
