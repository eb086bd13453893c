#include "core/graph/model_run.h"

#include "core/codegen/c_abi_call.h"
#include "core/codegen/cancel.h"
#include "core/codegen/flop_count.h"
#include "core/codegen/pipeline.h"
#include "core/codegen/profile_timer.h"
#include "core/codegen/verify_sample.h"
#include "core/frontend/relay/relay_exec.h"
#include "core/ir/interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <memory>

namespace loopscape::graph {

namespace {

/// A 64-byte aligned, zeroed arena.
struct Arena {
  std::unique_ptr<std::byte, decltype(&std::free)> data{nullptr, &std::free};
  std::size_t bytes = 0;
  static Expected<Arena> make(std::uint64_t bytes) {
    Arena a;
    a.bytes = static_cast<std::size_t>(bytes);
    const std::size_t rounded = std::max<std::size_t>(64, (a.bytes + 63) / 64 * 64);
    a.data.reset(static_cast<std::byte*>(std::aligned_alloc(64, rounded)));
    if (!a.data)
      return std::unexpected(
          Diagnostic::error("graph.too-large", fmt::format("cannot allocate the model's {} bytes of tensors", bytes)));
    std::fill_n(a.data.get(), rounded, std::byte{0});
    return a;
  }
  std::span<std::byte> span() { return {data.get(), bytes}; }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::vector<codegen::WorkerCall> workerCalls(const CompiledModel& compiled, const GraphPlan& plan) {
  std::vector<codegen::WorkerCall> calls;
  for (const auto& c : plan.calls) {
    const CompiledGroup& g = compiled.groups.at(c.group);
    codegen::WorkerCall w{g.library, g.symbol, {}, {}};
    for (auto slot : c.args)
      w.buffers.push_back({plan.slots[slot].offset, static_cast<std::uint64_t>(plan.slots[slot].bytes)});
    calls.push_back(std::move(w));
  }
  return calls;
}

/// The libraries of `calls` loaded into this process (closed on destruction).
struct LoadedCalls {
  std::vector<void*> handles;
  std::vector<void*> functions;
  LoadedCalls() = default;
  LoadedCalls(const LoadedCalls&) = delete;
  LoadedCalls& operator=(const LoadedCalls&) = delete;
  ~LoadedCalls() {
    for (void* h : handles)
      ::dlclose(h);
  }
};

Expected<void> loadCalls(const std::vector<codegen::WorkerCall>& calls, LoadedCalls& out) {
  for (const auto& c : calls) {
    void* h = ::dlopen(c.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h)
      return std::unexpected(
          Diagnostic::error("graph.cannot-load", fmt::format("cannot load '{}': {}", c.library, ::dlerror())));
    out.handles.push_back(h);
    void* fn = ::dlsym(h, c.symbol.c_str());
    if (!fn)
      return std::unexpected(
          Diagnostic::error("graph.cannot-load", fmt::format("'{}' has no function '{}'", c.library, c.symbol)));
    out.functions.push_back(fn);
  }
  return {};
}

/// Runs the calls over `arena` as `timing` says: per-repeat seconds of the whole sequence
/// and each call's median.
Expected<codegen::TimingResult> runCalls(const std::vector<codegen::WorkerCall>& calls, std::span<std::byte> arena,
                                         const codegen::TimingOptions& timing, codegen::Isolation isolation,
                                         double timeoutSeconds, std::stop_token stop) {
  if (isolation == codegen::Isolation::Worker) {
    codegen::RunOptions ro;
    ro.timing = timing;
    ro.timeoutSeconds = timeoutSeconds;
    ro.stop = stop;
    auto r = codegen::runCallsIsolated(calls, arena, ro);
    if (!r) return std::unexpected(r.error());
    return r->timing;
  }
  if (stop.stop_requested()) return std::unexpected(codegen::cancelledDiagnostic("running"));
  LoadedCalls loaded;
  if (auto r = loadCalls(calls, loaded); !r) return std::unexpected(r.error());
  std::vector<std::vector<std::uint64_t>> args;
  for (const auto& c : calls) {
    auto& a = args.emplace_back();
    for (const auto& b : c.buffers)
      a.push_back(reinterpret_cast<std::uint64_t>(arena.data() + b.offset));
  }
  std::vector<std::vector<double>> times(calls.size());
  auto result = codegen::timeCalls(
      [&]() -> Expected<void> {
        for (std::size_t i = 0; i < calls.size(); ++i) {
          const auto start = std::chrono::steady_clock::now();
          codegen::callCAbi(loaded.functions[i], args[i]);
          times[i].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        return {};
      },
      timing);
  if (!result) return result;
  for (auto& t : times)
    result->callSeconds.push_back(median(t));
  return result;
}

/// A kernel's library and symbol, with the kernel kept alive when its file is not cached.
struct ReferenceKernel {
  CachedKernel kernel;
  std::shared_ptr<codegen::Kernel> keepAlive;
};

/// The unscheduled group built by the model's target (kept in the kernel cache).
Expected<ReferenceKernel> compiledReference(const ModelGroup& g, const CompiledModel& compiled,
                                            const ModelVerifyOptions& options) {
  const KernelCache cache(options.cacheDir, options.useCache);
  const std::string key = KernelCache::key(
      {"reference", LOOPSCAPE_VERSION, compiled.target, fmt::format("threads={}", compiled.threads), g.workload});
  if (auto hit = cache.findKernel(key)) return ReferenceKernel{*hit, nullptr};
  codegen::Pipeline pipeline;
  auto target = pipeline.usableTarget(compiled.target);
  if (!target) return std::unexpected(target.error());
  codegen::BuildOptions bo;
  bo.threads = compiled.threads;
  bo.stop = options.stop;
  auto built = pipeline.compile(**target, g.func, bo, options.stop);
  if (!built) return std::unexpected(built.error());
  const std::string library = built->kernel->libraryPath();
  if (library.empty())
    return std::unexpected(Diagnostic::error(
        "graph.group-build",
        fmt::format("group {}: target '{}' made no shared library of the reference kernel", g.name, compiled.target)));
  auto stored = cache.storeKernel(key, library, built->kernel->symbol());
  return ReferenceKernel{stored, stored.library == library ? built->kernel : nullptr};
}

/// Runs `kernel` on `args` (as verify's reference: isolated or in process).
Expected<void> runReference(const CachedKernel& kernel, std::vector<ir::NDArray>& args,
                            const ModelVerifyOptions& options) {
  codegen::RunOptions ro;
  ro.timeoutSeconds = options.timeoutSeconds;
  ro.stop = options.stop;
  if (options.isolation == codegen::Isolation::Worker) {
    auto r = codegen::runLibraryIsolated(kernel.library, kernel.symbol, args, {}, ro);
    if (!r) return std::unexpected(r.error());
    return {};
  }
  LoadedCalls loaded;
  if (auto r = loadCalls({codegen::WorkerCall{kernel.library, kernel.symbol, {}, {}}}, loaded); !r)
    return std::unexpected(r.error());
  std::vector<std::uint64_t> a;
  for (auto& arg : args)
    a.push_back(reinterpret_cast<std::uint64_t>(arg.rawData()));
  codegen::callCAbi(loaded.functions.front(), a);
  return {};
}

Expected<void> checkStatic(const Model& model) {
  for (const auto& g : model.groups)
    if (!g.func.sizeVars().empty())
      return std::unexpected(Diagnostic::error(
          "graph.unsupported", fmt::format("group {} has symbolic sizes; compiled models need static shapes", g.name)));
  return {};
}

} // namespace

double ModelRun::medianSeconds() const { return median(perRepeat); }

Expected<ModelRun> runModel(const Model& model, const CompiledModel& compiled, const std::vector<ir::NDArray>& inputs,
                            const ModelRunOptions& options) {
  if (auto r = checkStatic(model); !r) return std::unexpected(r.error());
  const GraphPlan& plan = compiled.plan;
  auto arena = Arena::make(plan.arenaBytes);
  if (!arena) return std::unexpected(arena.error());
  fillArena(plan, inputs, arena->span());
  codegen::TimingOptions timing{options.warmup, std::max(1, options.repeat), 1, 0, false};
  auto t = runCalls(workerCalls(compiled, plan), arena->span(), timing, options.isolation, options.timeoutSeconds,
                    options.stop);
  if (!t) return std::unexpected(t.error());
  ModelRun run;
  run.perRepeat = t->perRepeat;
  for (std::size_t i = 0; i < plan.calls.size(); ++i)
    run.groups.push_back({plan.calls[i].group, t->callSeconds.empty() ? t->median() : t->callSeconds.at(i)});
  for (auto slot : plan.outputs)
    run.outputs.push_back(readSlot(plan.slots[slot], arena->span()));
  return run;
}

bool ModelVerifyReport::passed() const { return firstFailure() == nullptr && modelPassed(); }

bool ModelVerifyReport::modelPassed() const {
  return std::all_of(model.begin(), model.end(), [](const auto& c) { return c.passed(); });
}

const GroupCheck* ModelVerifyReport::firstFailure() const {
  for (const auto& g : groups)
    if (!g.passed()) return &g;
  return nullptr;
}

Expected<ModelVerifyReport> verifyModel(const Model& model, const CompiledModel& compiled,
                                        const std::vector<ir::NDArray>& inputs, const ModelVerifyOptions& options) {
  if (auto r = checkStatic(model); !r) return std::unexpected(r.error());
  // 1. The compiled model once, every group's result kept.
  auto plan = planGraph(model, false);
  if (!plan) return std::unexpected(plan.error());
  auto arena = Arena::make(plan->arenaBytes);
  if (!arena) return std::unexpected(arena.error());
  fillArena(*plan, inputs, arena->span());
  auto ran = runCalls(workerCalls(compiled, *plan), arena->span(), codegen::TimingOptions::single(), options.isolation,
                      options.timeoutSeconds, options.stop);
  if (!ran) return std::unexpected(ran.error());

  // 2. Each group against the interpreter on what its compiled predecessors produced.
  ModelVerifyReport report;
  double instances = 0;
  for (std::size_t i = 0; i < plan->calls.size(); ++i) {
    const PlannedCall& call = plan->calls[i];
    const ModelGroup& g = model.groups.at(call.group);
    if (options.progress) options.progress(i, plan->calls.size());
    std::vector<ir::NDArray> actual, reference;
    for (auto slot : call.args)
      actual.push_back(readSlot(plan->slots[slot], arena->span()));
    for (std::size_t k = 0; k < actual.size(); ++k)
      reference.push_back(k < call.firstOutput ? actual[k] : ir::NDArray(actual[k].shape(), actual[k].dtype()));
    auto count = codegen::countFlops(g.func, {});
    if (!count) return std::unexpected(count.error());
    instances += count->instances;
    const bool interpretWhole = count->instances <= options.interpretLimit;
    if (interpretWhole) {
      if (auto r = ir::interpret(g.func, reference, {}, options.stop); !r) return std::unexpected(r.error());
    } else {
      auto ref = compiledReference(g, compiled, options);
      if (!ref) return std::unexpected(ref.error());
      if (auto r = runReference(ref->kernel, reference, options); !r) return std::unexpected(r.error());
    }
    for (std::size_t k = call.firstOutput; k < actual.size(); ++k) {
      GroupCheck gc;
      gc.group = g.index;
      const codegen::Tolerance tol =
          options.tolerance.value_or(codegen::defaultTolerance(actual[k].dtype(), *count, reference[k]));
      const std::string name = call.args.size() - call.firstOutput == 1 ? g.name : fmt::format("{}.{}", g.name, k);
      gc.check = codegen::compareOutput(name, actual[k], reference[k], tol);
      if (!interpretWhole) {
        gc.reference = codegen::ReferenceKind::CompiledUnscheduled;
        auto sampled = codegen::interpretSampledElements(g.func, {}, reference, k, options.sampleElements, 1,
                                                         options.interpretLimit, options.stop);
        if (!sampled) return std::unexpected(sampled.error());
        gc.skipped = sampled->skipped;
        gc.sampledElements = static_cast<int>(sampled->flatIndices.size());
        if (!sampled->flatIndices.empty()) {
          ir::NDArray got({static_cast<std::int64_t>(sampled->flatIndices.size())}, actual[k].dtype());
          for (std::size_t e = 0; e < sampled->flatIndices.size(); ++e)
            got.setDouble(static_cast<std::int64_t>(e), actual[k].getDouble(sampled->flatIndices[e]));
          gc.sampledCheck = codegen::compareOutput(name, got, sampled->values, tol);
          if (gc.sampledCheck->first) {
            // The mismatch's index in the whole output.
            auto& first = *gc.sampledCheck->first;
            first.flatIndex = sampled->flatIndices.at(static_cast<std::size_t>(first.flatIndex));
            first.index = codegen::unflattenIndex(first.flatIndex, actual[k].shape());
          }
        }
      }
      report.groups.push_back(std::move(gc));
    }
  }
  // 3. A small model whole: its outputs against the interpreted model.
  if (instances <= options.interpretLimit) {
    auto expected = frontend::relay::runFused(model.module, model.main(), model.fusion, inputs, nullptr, false);
    if (!expected) return std::unexpected(expected.error());
    for (std::size_t k = 0; k < plan->outputs.size(); ++k) {
      const auto actual = readSlot(plan->slots[plan->outputs[k]], arena->span());
      report.model.push_back(
          codegen::compareOutput(fmt::format("output {}", k), actual, expected->at(k),
                                 options.tolerance.value_or(codegen::defaultTolerance(actual.dtype()))));
    }
  }
  if (options.progress) options.progress(plan->calls.size(), plan->calls.size());
  return report;
}

} // namespace loopscape::graph
