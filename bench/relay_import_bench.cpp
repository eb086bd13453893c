// The Relay importer benchmark of issue 16 (bench/README.md, "Relay import"): for
// samples/relay/resnet18.relay and bert_proxy.relay, with and without AlterOpLayout, the
// median time of each stage a workbench user waits for when opening a model (parse, type
// inference, constants, graph passes, FuseOps, memory plan, lowering every group to a
// PrimFunc), the number of groups, and the planned against the naive intermediate bytes.
// No peer: Relay is no longer in the PyPI TVM (0.27); the bar is "well under a second".
//
//   build/bench/loopscape-relay-bench [--repeat N]
#include "core/frontend/relay/relay_exec.h"
#include "core/frontend/relay/relay_fuse.h"
#include "core/frontend/relay/relay_memory.h"
#include "core/frontend/relay/relay_parser.h"
#include "core/frontend/relay/relay_passes.h"
#include "core/frontend/relay/relay_type_infer.h"
#include "core/ir/file_read.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace loopscape;
using namespace loopscape::frontend::relay;

namespace {

using Clock = std::chrono::steady_clock;

double medianMs(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename T> T orDie(Expected<T> e, const std::string& what) {
  if (!e) {
    fmt::print(stderr, "{}: {}\n", what, e.error().message);
    std::exit(1);
  }
  return std::move(*e);
}

struct Times {
  std::vector<double> parse, types, constants, passes, fuse, plan, lower;
  std::size_t groups = 0;
  std::int64_t planned = 0, naive = 0;
};

void runOnce(const std::string& path, const std::string& text, bool alterLayout, Times& t) {
  auto ms = [](Clock::time_point a) { return std::chrono::duration<double, std::milli>(Clock::now() - a).count(); };
  auto start = Clock::now();
  Module parsed = orDie(parseRelay(text, path), "parse");
  t.parse.push_back(ms(start));
  start = Clock::now();
  Module typed = orDie(inferTypes(parsed), "types");
  t.types.push_back(ms(start));
  start = Clock::now();
  if (auto r = materializeConstants(typed, "", 0); !r) orDie<int>(std::unexpected(r.error()), "constants");
  t.constants.push_back(ms(start));
  start = Clock::now();
  PassOptions options;
  options.alterLayout = alterLayout;
  Module passed = orDie(runPasses(typed, {}, options), "passes");
  t.passes.push_back(ms(start));
  start = Clock::now();
  FusionResult fusion = fuseOps(passed.functions.front());
  t.fuse.push_back(ms(start));
  start = Clock::now();
  MemoryPlan plan = planMemory(passed.functions.front(), fusion);
  t.plan.push_back(ms(start));
  start = Clock::now();
  std::size_t groups = 0;
  for (const auto& g : fusion.groups) {
    if (!g.hasCall()) continue;
    orDie(lowerGroup(g), g.name);
    ++groups;
  }
  t.lower.push_back(ms(start));
  t.groups = groups;
  t.planned = plan.plannedBytes;
  t.naive = plan.naiveBytes;
}

} // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
  fmt::print("{:<11} {:<7} {:>8} {:>8} {:>9} {:>8} {:>7} {:>6} {:>8} {:>8} {:>6} {:>11} {:>11}\n", "model", "layout",
             "parse", "types", "constants", "passes", "fuse", "plan", "lower", "total", "groups", "planned MB",
             "naive MB");
  for (const char* name : {"resnet18", "bert_proxy"}) {
    const std::string path = fmt::format("{}/samples/relay/{}.relay", LS_SOURCE_DIR, name);
    const std::string text = orDie(ir::readSourceFile(path), path);
    for (bool layout : {false, true}) {
      Times t;
      for (int r = 0; r < repeat; ++r)
        runOnce(path, text, layout, t);
      const double parse = medianMs(t.parse), types = medianMs(t.types), constants = medianMs(t.constants),
                   passes = medianMs(t.passes), fuse = medianMs(t.fuse), plan = medianMs(t.plan),
                   lower = medianMs(t.lower);
      fmt::print("{:<11} {:<7} {:>8.1f} {:>8.1f} {:>9.1f} {:>8.1f} {:>7.1f} {:>6.1f} {:>8.1f} {:>8.1f} {:>6} {:>11.2f} "
                 "{:>11.2f}\n",
                 name, layout ? "NCHWc" : "NCHW", parse, types, constants, passes, fuse, plan, lower,
                 parse + types + constants + passes + fuse + plan + lower, t.groups, t.planned / 1e6, t.naive / 1e6);
    }
  }
  fmt::print("milliseconds, median of {} runs each; constants are seeded random (no --params)\n", repeat);
  return 0;
}
