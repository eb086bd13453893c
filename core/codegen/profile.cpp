#include "core/codegen/profile.h"

#include "core/ir/visitor.h"

#include <algorithm>
#include <fmt/format.h>

namespace loopscape::codegen {

double ProfileReport::gflops() const {
  const double median = timing.median();
  return median > 0 ? work.flops / median / 1e9 : 0;
}

double ProfileReport::arithmeticIntensity() const { return bytes > 0 ? work.flops / bytes : 0; }

double ProfileReport::modeledIntensity() const { return modeledBytes > 0 ? work.flops / modeledBytes : 0; }

void addModeledTraffic(ProfileReport& report, const LoweredFunc& lowered, const ir::SizeBindings& sizes,
                       TrafficOptions options) {
  const TrafficEstimate estimate = estimateTraffic(lowered, sizes, options);
  report.modeledBytes = estimate.bytes;
  report.trafficModel = estimate.model;
}

double ProfileReport::peakGflops() const {
  if (!peak) return 0;
  if (threads <= 1) return peak->gflopsPerCore;
  if (threads >= peak->cores) return peak->gflopsAllCores;
  return peak->gflopsAllCores * threads / peak->cores;
}

double ProfileReport::percentOfPeak() const {
  const double p = peakGflops();
  return p > 0 ? 100.0 * gflops() / p : 0;
}

double ProfileReport::rooflineGflops() const {
  if (!peak) return 0;
  return std::min(peakGflops(), arithmeticIntensity() * peak->bandwidthGBs);
}

MachinePeak peakFor(const ProfileReport& report, const PeakOptions& options) {
  ProfileReport probe = report;
  probe.peak = machinePeak(options);
  if (!probe.peak->fromCache || probe.percentOfPeak() <= 100) return *probe.peak;
  PeakOptions again = options;
  again.remeasure = true;
  return machinePeak(again);
}

bool usesParallelLoops(const ir::PrimFunc& func) {
  struct Finder final : ir::StmtVisitor {
    bool found = false;
    void visitFor(const ir::For& op, const ir::Stmt& self) override {
      if (op.forKind == ir::ForKind::Parallel) found = true;
      StmtVisitor::visitFor(op, self);
    }
  } finder;
  finder(func.body);
  return finder.found;
}

std::string formatProfile(const ProfileReport& r, int warmup) {
  const auto& t = r.timing;
  std::string out = fmt::format("timing: {}, {} repeat{} x {} call{}, {} warm-up\n", r.mode, t.perRepeat.size(),
                                t.perRepeat.size() == 1 ? "" : "s", t.number, t.number == 1 ? "" : "s", warmup);
  out += fmt::format("  {:>12} {:>12} {:>12} {:>8} {:>11} {:>11} {:>11}\n", "min ms", "median ms", "max ms", "spread",
                     "GFLOP/s", "% of peak", "AI FLOP/B");
  const std::string percent = r.peak ? fmt::format("{:.1f}", r.percentOfPeak()) : "-";
  out += fmt::format("  {:>12.4f} {:>12.4f} {:>12.4f} {:>7.1f}% {:>11.2f} {:>11} {:>11.3f}\n", t.min() * 1e3,
                     t.median() * 1e3, t.max() * 1e3, t.spread() * 100, r.gflops(), percent, r.arithmeticIntensity());
  out += fmt::format("work: {:.0f} FLOP ({}), {:.0f} bytes compulsory\n", r.work.flops,
                     r.work.exact ? "exact" : "estimate", r.bytes);
  for (const auto& note : r.work.notes) out += fmt::format("  note: {}\n", note);
  if (r.modeledBytes > 0)
    out += fmt::format("modeled traffic: {:.0f} bytes {} (AI {:.3f} FLOP/B)\n", r.modeledBytes, r.trafficModel,
                       r.modeledIntensity());
  if (r.peak)
    out += fmt::format("peak: {:.1f} GFLOP/s fp32 on {} core{} ({}), {:.1f} GB/s; roofline bound {:.1f} GFLOP/s\n",
                       r.peakGflops(), r.threads, r.threads == 1 ? "" : "s", r.peak->isa, r.peak->bandwidthGBs,
                       r.rooflineGflops());
  else if (!r.peakNote.empty())
    out += fmt::format("peak: {}\n", r.peakNote);
  if (t.countersRequested) {
    if (t.counters.available) {
      const auto& v = t.counters.values;
      out += fmt::format("counters: cycles {}, instructions {} (IPC {:.2f}), cache misses {}\n", v.cycles,
                         v.instructions, v.cycles ? static_cast<double>(v.instructions) / v.cycles : 0.0,
                         v.cacheMisses ? std::to_string(*v.cacheMisses) : "unavailable");
    } else {
      out += fmt::format("counters: {}\n", t.counters.note);
    }
  }
  return out;
}

const char* const kGpuPeakNote =
    "not modeled for a GPU kernel (this machine's CPU peak and cache do not apply); the time per call includes "
    "the device allocations, the copies both ways and the launch";

ProfileReport makeProfile(const ir::PrimFunc& original, const ir::PrimFunc& scheduled, const ir::SizeBindings& sizes,
                          TimingResult timing, int threads) {
  ProfileReport profile;
  profile.timing = std::move(timing);
  if (auto work = countFlops(original, sizes)) profile.work = *work;
  if (auto bytes = compulsoryBytes(original, sizes)) profile.bytes = *bytes;
  const int cores = coreCount();
  profile.threads = usesParallelLoops(scheduled) ? (threads > 0 ? std::min(threads, cores) : cores) : 1;
  return profile;
}

} // namespace loopscape::codegen
