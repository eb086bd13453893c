// Benchmark of the polyhedral pipeline (issue 4, "Performance"): for every sample program
// (full size, as shipped in samples/), the time of each stage of an interactive poly
// step, in milliseconds:
//   scop     extractScop (domains, accesses, the schedule tree of the loop nest)
//   deps     computeDependences (isl flow analysis: RAW, WAR, WAW)
//   sched    the isl scheduler (computeIslSchedule; tiling included), "-" for identity
//   codegen  generateFunc (isl AST build + translation back to TensorIR)
//   check    checkLegality of the result against the original, as every poly step runs it
//            before it replaces the program: the original's model (Scop + dependences)
//            comes from the original state's analysis, the result's Scop is extracted
//   1st      the same check with nothing cached (checkLegalityUncached): what the first
//            poly step of a Schedule pays instead of `check`
//   total    scop + deps + sched + codegen + check: what one poly_auto step costs
//   1st step the whole first poly_auto step of a session, end to end: Schedule::apply on a
//            fresh Schedule with the legality verifier installed and nothing cached (the
//            step reuses the model the check builds; "-" for the identity)
// for the identity (the program regenerated from its own tree) and poly_auto with fusion
// max, smart and min, each also with tile=[32,32], on the simplified dependences (the
// default), and fusion max on the exact ones (simplify_deps=False). Each cell is the best of
// --reps runs (default 3), in CPU time of the (single) thread. The output is a Markdown
// table (bench/README.md).
//
// usage: loopscape-poly-bench [--reps N] [SAMPLE.te ...]   (default: every sample)
#include "core/frontend/te_frontend.h"
#include "core/poly/ast_to_tir.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/dependences.h"
#include "core/poly/legality.h"
#include "core/poly/poly_auto_detail.h"
#include "core/poly/poly_schedule.h"
#include "core/poly/scop.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_script.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscape;

namespace {

/// CPU time of the calling thread: the machine this runs on is often shared, and the
/// pipeline is single-threaded, so this is the wall time of an idle machine.
struct Clock {
  using time_point = double;
  static double now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
  }
};

double msSince(double t0) { return Clock::now() - t0; }

struct Config {
  const char* name;
  bool identity;
  poly::PolyAutoOptions options;
};

struct Times {
  double scop = 0, deps = 0, sched = 0, codegen = 0, check = 0, first = 0, step = 0;
  double total() const { return scop + deps + sched + codegen + check; }
};

/// One run of the pipeline; an error message on failure.
std::optional<std::string> runOnce(const schedule::StatePtr& original, const Config& c, Times& t) {
  const ir::PrimFunc& f = original->func();
  auto t0 = Clock::now();
  auto scop = poly::extractScop(f);
  t.scop = msSince(t0);
  if (!scop) return renderDiagnostic(scop.error());
  t0 = Clock::now();
  auto deps = poly::computeDependences(*scop);
  t.deps = msSince(t0);
  if (!deps) return renderDiagnostic(deps.error());
  isl::schedule tree = scop->schedule;
  t.sched = 0;
  if (!c.identity) {
    t0 = Clock::now();
    auto s = poly::computeIslSchedule(*scop, *deps, c.options);
    t.sched = msSince(t0);
    if (!s) return renderDiagnostic(s.error());
    tree = *s;
  }
  t0 = Clock::now();
  auto g = poly::generateFunc(f, *scop, tree);
  t.codegen = msSince(t0);
  if (!g) return renderDiagnostic(g.error());
  t0 = Clock::now();
  auto legal = poly::checkLegality(*original, *schedule::ProgramState::make(*g));
  t.check = msSince(t0);
  if (!legal) return renderDiagnostic(legal.error());
  if (!legal->legal) return "ILLEGAL: " + poly::counterexampleMessage(*legal->counterexample);
  t0 = Clock::now();
  auto uncached = poly::checkLegalityUncached(f, *g);
  t.first = msSince(t0);
  if (!uncached) return renderDiagnostic(uncached.error());
  if (uncached->legal != legal->legal) return "the cached and the uncached legality check disagree";
  if (c.identity) return std::nullopt;
  std::vector<std::string> tile;
  for (auto v : c.options.tile) tile.push_back(std::to_string(v));
  const std::string step = fmt::format("sch.poly_auto(fusion=\"{}\", tile=[{}], simplify_deps={})\n", c.options.fusion,
                                       fmt::join(tile, ", "), c.options.simplifyDependences ? "True" : "False");
  poly::clearLegalityCache();
  t0 = Clock::now();
  schedule::Schedule sch = poly::makeSchedule(f); // a new original state: nothing shared
  auto applied = schedule::applyScript(sch, step, "bench.py");
  t.step = msSince(t0);
  if (!applied) return renderDiagnostic(applied.error());
  // Leave the original's model cached for the next repetition's `check`.
  (void)poly::checkLegality(*original, *original);
  return std::nullopt;
}

std::string cell(double ms) { return ms < 10 ? fmt::format("{:.2f}", ms) : fmt::format("{:.1f}", ms); }

} // namespace

int main(int argc, char** argv) {
  int reps = 3;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "-h" || a == "--help") {
      std::puts("usage: loopscape-poly-bench [--reps N] [SAMPLE.te ...]");
      return 0;
    } else
      files.push_back(a);
  }
  if (files.empty()) {
    for (const auto& e : std::filesystem::directory_iterator(LS_SOURCE_DIR "/samples"))
      if (e.path().extension() == ".te") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
  }
  // The scheduler on the simplified dependences (the default, Polly's) with every fusion
  // setting, untiled and tiled; fusion max also on the exact dependences (PPCG's input).
  std::vector<Config> configs{{"identity", true, {}}};
  auto add = [&](const char* name, const char* fusion, bool tile, bool simplify) {
    Config c{name, false, {}};
    c.options.fusion = fusion;
    if (tile) c.options.tile = {32, 32};
    c.options.simplifyDependences = simplify;
    configs.push_back(c);
  };
  add("auto max", "max", false, true);
  add("auto max tile 32,32", "max", true, true);
  add("auto smart", "smart", false, true);
  add("auto smart tile 32,32", "smart", true, true);
  add("auto min", "min", false, true);
  add("auto min tile 32,32", "min", true, true);
  add("auto max exact", "max", false, false);
  add("auto max exact tile 32,32", "max", true, false);

  poly::registerPolyInstructionKinds();
  std::puts("| sample | schedule | scop | deps | sched | codegen | check | total | 1st check | 1st step |");
  std::puts("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  int failures = 0;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string name = std::filesystem::path(file).stem().string();
    auto f = frontend::parseTe(ss.str(), file);
    if (!f) {
      std::fprintf(stderr, "%s: %s\n", file.c_str(), renderDiagnostic(f.error(), ss.str()).c_str());
      ++failures;
      continue;
    }
    // The original's model is built by the first check of a Schedule and cached: `check`
    // times the later ones (the identity check primes the cache).
    poly::clearLegalityCache();
    const schedule::StatePtr original = schedule::ProgramState::make(*f);
    (void)poly::checkLegality(*original, *original);
    for (const auto& c : configs) {
      Times best;
      best.scop = best.deps = best.sched = best.codegen = best.check = best.first = best.step =
          std::numeric_limits<double>::infinity();
      std::optional<std::string> error;
      for (int r = 0; r < reps && !error; ++r) {
        Times t;
        error = runOnce(original, c, t);
        best.scop = std::min(best.scop, t.scop);
        best.deps = std::min(best.deps, t.deps);
        best.sched = std::min(best.sched, t.sched);
        best.codegen = std::min(best.codegen, t.codegen);
        best.check = std::min(best.check, t.check);
        best.first = std::min(best.first, t.first);
        best.step = std::min(best.step, t.step);
      }
      if (error) {
        std::printf("| %s | %s | failed: %s |\n", name.c_str(), c.name, error->substr(0, error->find('\n')).c_str());
        ++failures;
        continue;
      }
      std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name.c_str(), c.name,
                  cell(best.scop).c_str(), cell(best.deps).c_str(), c.identity ? "-" : cell(best.sched).c_str(),
                  cell(best.codegen).c_str(), cell(best.check).c_str(), cell(best.total()).c_str(),
                  cell(best.first).c_str(), c.identity ? "-" : cell(best.step).c_str());
      std::fflush(stdout);
    }
  }
  return failures == 0 ? 0 : 1;
}
