// Local measurement through the codegen pipeline (measure.h).
#include "core/tune/measure.h"

#include "core/codegen/cancel.h"
#include "core/codegen/verify.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <thread>

namespace loopscape::tune {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// "<kind>: <message>" for a failed run (records.h's kinds).
std::string runError(const Diagnostic& d) {
  std::string_view kind = "run";
  if (d.code == "runner.crashed")
    kind = "crash";
  else if (d.code == "runner.timeout")
    kind = "timeout";
  else if (d.code == codegen::kCancelledCode)
    kind = "cancelled";
  return fmt::format("{}: {}", kind, d.message);
}

} // namespace

Expected<std::unique_ptr<LocalMeasurer>> LocalMeasurer::create(ir::PrimFunc original, ir::SizeBindings sizes,
                                                               LocalMeasureOptions options) {
  std::unique_ptr<LocalMeasurer> m(new LocalMeasurer());
  auto target = m->m_pipeline.usableTarget(options.target);
  if (!target) return std::unexpected(target.error());
  m->m_target = *target;
  auto args = codegen::makeArguments(original, sizes, options.seed);
  if (!args) return std::unexpected(args.error());
  m->m_args = std::move(*args);
  m->m_original = std::move(original);
  m->m_sizes = std::move(sizes);
  m->m_options = std::move(options);
  return m;
}

std::vector<MeasureResult> LocalMeasurer::measure(std::span<const codegen::LoweredFunc> programs,
                                                  const std::vector<bool>& verify, std::stop_token stop,
                                                  const OnMeasured& onMeasured) {
  // 1. Every program built, on several threads when the target builds concurrently.
  const std::size_t n = programs.size();
  std::vector<std::optional<Expected<codegen::CompiledKernel>>> kernels(n);
  std::vector<double> buildSeconds(n, 0.0);
  std::atomic<std::size_t> next{0};
  auto builder = [&] {
    for (std::size_t i = next++; i < n && !stop.stop_requested(); i = next++) {
      const auto t0 = std::chrono::steady_clock::now();
      // The build's own stop: the search's, or its time limit.
      std::stop_source own;
      std::stop_callback forward(stop, [&own] { own.request_stop(); });
      std::jthread timer;
      if (m_options.buildTimeoutSeconds > 0)
        timer = std::jthread([&own, limit = m_options.buildTimeoutSeconds](std::stop_token done) {
          std::mutex mutex;
          std::condition_variable_any wake;
          std::unique_lock lock(mutex);
          wake.wait_for(lock, done, std::chrono::duration<double>(limit), [] { return false; });
          if (!done.stop_requested()) own.request_stop();
        });
      codegen::BuildOptions build = m_options.build;
      build.stop = own.get_token();
      kernels[i] = m_pipeline.build(*m_target, programs[i], build, own.get_token());
      if (timer.joinable()) {
        timer.request_stop();
        timer.join();
      }
      buildSeconds[i] = secondsSince(t0);
      if (!*kernels[i] && own.stop_requested() && !stop.stop_requested())
        kernels[i] = Unexpected(
            Diagnostic::error("tune.build-timeout", fmt::format("the build took more than {:g} s and was stopped",
                                                                m_options.buildTimeoutSeconds)));
    }
  };
  std::size_t threads = 1;
  if (m_target->capabilities().concurrentBuilds)
    threads = std::min<std::size_t>(n, m_options.buildThreads > 0 ? static_cast<std::size_t>(m_options.buildThreads)
                                                                  : std::max(1u, std::thread::hardware_concurrency()));
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < threads; ++t)
      pool.emplace_back(builder);
    builder();
  }
  // 2. Run one at a time.
  std::vector<MeasureResult> out;
  bool ended = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (ended || stop.stop_requested() || !kernels[i]) {
      out.push_back({.error = "cancelled: the search was stopped"});
      continue;
    }
    out.push_back(runOne(*kernels[i], i < verify.size() && verify[i], stop));
    out.back().buildSeconds = buildSeconds[i];
    if (onMeasured && !onMeasured(i, out.back())) ended = true;
  }
  return out;
}

MeasureResult LocalMeasurer::runOne(const Expected<codegen::CompiledKernel>& kernel, bool verify,
                                    std::stop_token stop) {
  MeasureResult result;
  if (!kernel) {
    result.error = codegen::isCancelled(kernel.error()) ? runError(kernel.error())
                                                        : fmt::format("build: {}", kernel.error().message);
    return result;
  }
  const auto t1 = std::chrono::steady_clock::now();
  codegen::RunOptions run;
  run.timeoutSeconds = m_options.timeoutSeconds;
  run.workerPath = m_options.workerPath;
  run.stop = stop;
  if (verify) {
    codegen::VerifyOptions vo;
    vo.interpretLimit = m_options.interpretLimit;
    vo.stop = stop;
    vo.reference = m_reference;
    auto report = m_pipeline.verify(*kernel, m_original, m_sizes, m_args, run, vo, stop);
    if (!report) {
      result.error = runError(report.error());
      result.runSeconds = secondsSince(t1);
      return result;
    }
    if (!report->passed()) {
      std::string what;
      for (const auto& o : report->outputs)
        if (!o.passed()) what = o.str();
      for (const auto& s : report->sampled)
        if (!s.passed() && what.empty()) what = s.str();
      result.error = fmt::format("wrong: {}", what.empty() ? "the outputs differ from the reference" : what);
      result.runSeconds = secondsSince(t1);
      return result;
    }
    result.verified = true;
  }
  codegen::TimeOptions to;
  to.timing = m_options.timing;
  if (m_fastest > 0 && m_options.slowCutoffFactor > 0)
    to.timing.slowCutoffSeconds = m_options.slowCutoffFactor * m_fastest;
  auto timed = m_pipeline.time(*kernel, m_original, m_sizes, m_args, run, to, stop);
  result.runSeconds = secondsSince(t1);
  if (!timed) {
    result.error = runError(timed.error());
    return result;
  }
  result.seconds = timed->timing.perRepeat;
  if (result.seconds.empty())
    result.error = "run: no time was measured";
  else if (const double median = timed->timing.median(); median > 0 && (m_fastest == 0 || median < m_fastest))
    m_fastest = median;
  return result;
}

} // namespace loopscape::tune
