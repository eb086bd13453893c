// `poly FILE --auto [--fusion max|smart|min] [--tile 32,32] [--target cpu|gpu] [--exact-deps] [--check]
// [--trace T]`: runs the isl scheduler (--target gpu: PPCG's mapping onto blocks and threads); `poly FILE --optimize
// [--no-parallel] [--no-vectorize] [--no-pack] [--parallel-depth N]
// [--unroll-jam 8,32] [--tile auto|64,256,128]
// [--machine l1=48K,...]` runs poly_optimize and prints its decisions as comments. Both run the isl
// scheduler (the poly_auto primitive, after the steps of --trace when given) and prints
// the regenerated program and the trace as TVM-style Python (poly_* steps are
// Loopscape-only). `--check` interprets the original and the result on the same seeded
// inputs (as `check` makes them; --shape binds symbolic sizes) and compares every output:
// exactly for integer outputs, within rtol 1e-5 for floats (the scheduler may reorder a
// floating-point reduction). The interpreter is slow: for the full-size samples --check
// can take minutes; small shapes (--shape, or a smaller copy of the sample) are advised.
#include "cli_support.h"
#include "commands.h"

#include "core/poly/checked_schedule.h"

#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/printer.h"
#include "core/poly/poly_optimize.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/instruction.h"
#include "core/schedule/trace_python.h"

#include <cstdio>
#include <memory>
#include <sstream>

namespace loopscape::cli {

namespace {
struct PolyOptions {
  std::string file;
  bool autoSchedule = false;
  bool optimize = false;
  bool noParallel = false;
  bool wavefront = false;
  bool noVectorize = false;
  bool noPack = false;
  int parallelDepth = 1;
  std::string unrollJam;
  std::string machine;
  std::string fusion; // empty: poly_auto's max, poly_optimize's smart
  std::string tile;
  bool exactDeps = false;
  std::string target = "cpu"; // --auto: "cpu" or "gpu" (PPCG's mapping)
  bool check = false;
  std::string trace;
  std::vector<std::string> shapes;
  std::uint64_t seed = 0;
};

std::optional<std::vector<std::int64_t>> parseSizes(const std::string& text) {
  std::vector<std::int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t used = 0;
      const long long v = std::stoll(item, &used);
      if (used != item.size() || v < 1) return std::nullopt;
      out.push_back(v);
    } catch (...) {
      return std::nullopt;
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

int checkResults(const ir::PrimFunc& original, const ir::PrimFunc& scheduled, const PolyOptions& opt) {
  auto sizes = parseShapes(original, opt.shapes);
  if (!sizes) {
    printDiagnostic(sizes.error());
    return kExitBadInput;
  }
  // The scheduled program has the original's parameters: one set of inputs, cloned.
  auto a = loadArguments(original, *sizes, {}, opt.seed);
  if (!a) return kExitBadInput;
  std::optional<std::vector<ir::NDArray>> b(std::in_place);
  for (const auto& x : *a) b->push_back(x.clone());
  if (auto ok = ir::interpret(original, *a, *sizes); !ok) {
    printDiagnostic(ok.error());
    return kExitBadInput;
  }
  if (auto ok = ir::interpret(scheduled, *b, *sizes); !ok) {
    printDiagnostic(ok.error());
    return kExitInternal;
  }
  const auto outputs = writtenParams(original);
  for (std::size_t i = 0; i < original.params.size(); ++i) {
    if (!outputs.contains(original.params[i].get())) continue;
    const bool isFloat = original.params[i]->dtype.isFloat();
    auto m = ir::firstMismatch((*b)[i], (*a)[i], isFloat ? 1e-6 : 0.0, isFloat ? 1e-5 : 0.0);
    if (m) {
      std::fprintf(stdout, "check: MISMATCH %s%s: %.9g vs %.9g\n", original.params[i]->name.c_str(),
                   multiIndex(m->index, (*a)[i].shape()).c_str(), m->actual, m->expected);
      return kExitInternal;
    }
    std::fprintf(stdout, "check: %s equal%s\n", original.params[i]->name.c_str(), isFloat ? " (rtol 1e-5)" : "");
  }
  return kExitOk;
}

int runPoly(const PolyOptions& opt) {
  poly::registerPolyInstructionKinds();
  auto program = loadProgram(opt.file);
  if (!program) return kExitBadInput;
  std::optional<schedule::Schedule> sch;
  if (hasTrace(*program, opt.trace)) {
    int exitCode = kExitOk;
    sch = applyTraceFile(*program, opt.trace, exitCode);
    if (!sch) return exitCode;
  } else {
    sch.emplace(poly::makeSchedule(program->func));
  }
  if (opt.autoSchedule) {
    poly::PolyAutoOptions options;
    if (!opt.fusion.empty()) options.fusion = opt.fusion;
    options.simplifyDependences = !opt.exactDeps;
    options.target = opt.target;
    if (!opt.tile.empty()) {
      auto sizes = parseSizes(opt.tile);
      if (!sizes) {
        std::fprintf(stderr, "error: --tile expects positive sizes separated by commas, e.g. 32,32\n");
        return kExitBadInput;
      }
      for (auto v : *sizes)
        options.tile.push_back(v);
    }
    auto r = poly::polyAuto(*sch, options);
    if (!r) {
      printDiagnostic(r.error());
      return r.error().code.starts_with("schedule.poly_auto.illegal") ? kExitIllegalSchedule : kExitBadInput;
    }
  }
  std::vector<std::string> explained;
  if (opt.optimize) {
    if (opt.autoSchedule) {
      std::fprintf(stderr, "error: --optimize runs the isl scheduler itself; give --auto or --optimize, not both\n");
      return kExitBadInput;
    }
    if (opt.target != "cpu") {
      std::fprintf(stderr, "error: --target gpu maps the isl schedule onto a GPU with --auto; --optimize schedules for "
                           "this CPU\n");
      return kExitBadInput;
    }
    poly::PolyOptimizeOptions options;
    if (!opt.fusion.empty()) options.fusion = opt.fusion;
    options.parallel = !opt.noParallel;
    options.wavefront = opt.wavefront;
    options.vectorize = !opt.noVectorize;
    options.pack = !opt.noPack;
    if (opt.parallelDepth < 1 || opt.parallelDepth > 8) {
      std::fprintf(stderr, "error: --parallel-depth expects 1 to 8 (1: the outermost coincident tile loop alone)\n");
      return kExitBadInput;
    }
    options.parallelDepth = opt.parallelDepth;
    if (!opt.tile.empty() && opt.tile != "auto") {
      auto sizes = parseSizes(opt.tile);
      if (!sizes) {
        std::fprintf(stderr, "error: --tile expects auto or positive sizes separated by commas, e.g. 32,32,32\n");
        return kExitBadInput;
      }
      options.tile = *sizes;
    }
    if (!opt.unrollJam.empty()) {
      auto sizes = parseSizes(opt.unrollJam);
      if (!sizes || sizes->size() > 2) {
        std::fprintf(stderr, "error: --unroll-jam expects ROWS or ROWS,LANES, e.g. 8,32 (1: no unroll-and-jam)\n");
        return kExitBadInput;
      }
      options.unrollJam = *sizes;
    }
    if (!opt.machine.empty()) {
      std::string why;
      options.machine = poly::MachineModel::parse(opt.machine, &why);
      if (!options.machine) {
        std::fprintf(stderr, "error: --machine %s: %s\n", opt.machine.c_str(), why.c_str());
        return kExitBadInput;
      }
    }
    auto report = poly::explainPolyOptimize(sch->func(), options);
    if (!report) {
      printDiagnostic(report.error());
      return kExitBadInput;
    }
    explained.push_back("machine: " + report->machine.str());
    for (auto& line : report->lines)
      explained.push_back(std::move(line));
    auto r = poly::polyOptimize(*sch, options);
    if (!r) {
      printDiagnostic(r.error());
      return r.error().code.ends_with(".illegal") ? kExitIllegalSchedule : kExitBadInput;
    }
  }
  std::fputs(ir::printPrimFunc(sch->func(), printOptionsFor(*program)).c_str(), stdout);
  if (!explained.empty()) {
    std::fputs("\n# poly_optimize decisions\n", stdout);
    for (const auto& line : explained)
      std::fprintf(stdout, "#   %s\n", line.c_str());
  }
  std::fputs("\n# trace (poly_* steps are Loopscape-only, not TVM tir.Schedule methods)\n", stdout);
  std::fputs(schedule::traceToPython(sch->trace()).c_str(), stdout);
  if (opt.check) return checkResults(program->func, sch->func(), opt);
  return kExitOk;
}
} // namespace

void registerPoly(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("poly", "Polyhedral scheduling with isl: regenerate the program from an isl schedule");
  auto opt = std::make_shared<PolyOptions>();
  cmd->add_option("FILE", opt->file,
                  "Program file (.te, TVMScript .py) or a workbench session (.lsproj: its program and trace)")
      ->required();
  cmd->add_flag("--auto", opt->autoSchedule, "Run the isl scheduler (poly_auto) on the dependences");
  cmd->add_option(
         "--fusion", opt->fusion,
         "Fusion strategy of the scheduler: max (whole components, AKG), smart (fuse SCCs where no parallelism "
         "is lost, PPCG) or min (serialize SCCs); default max with --auto, smart with --optimize")
      ->check(CLI::IsMember({"max", "smart", "min"}));
  cmd->add_flag("--optimize", opt->optimize,
                "The whole polyhedral pipeline (poly_optimize): the isl scheduler, then cache and register tiling "
                "from a model of this machine, intra-tile order, unroll-and-jam, vector and parallel marks");
  cmd->add_option("--tile", opt->tile,
                  "Tile the outermost bands of the computed schedule, e.g. 32,32 (with --optimize: auto, the default, "
                  "or the cache tile sizes)");
  cmd->add_option("--target", opt->target,
                  "With --auto: cpu (the schedule as computed, the default) or gpu (PPCG's mapping: the outermost "
                  "band tiled, its coincident tile and point loops bound to blockIdx and threadIdx, reused input tiles "
                  "in shared memory; build it with run/print --target opencl or cuda)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  cmd->add_flag("--no-parallel", opt->noParallel, "With --optimize: no parallel loop");
  cmd->add_flag("--wavefront", opt->wavefront,
                "With --optimize: run the tiles of a band with no coincident member (a time-iterated stencil) in "
                "parallel wavefronts (its exact legality check can take tens of seconds)");
  cmd->add_flag("--no-vectorize", opt->noVectorize, "With --optimize: no vectorized loop");
  cmd->add_flag("--no-pack", opt->noPack,
                "With --optimize: no packing (an input read with a non-unit stride along the vector loop is not "
                "copied into a buffer with that dimension last)");
  cmd->add_option("--parallel-depth", opt->parallelDepth,
                  "With --optimize: fuse up to N coincident tile loops into the one parallel loop (PPCG's --parallel; "
                  "default 1)");
  cmd->add_option("--unroll-jam", opt->unrollJam,
                  "With --optimize: register tile ROWS[,LANES] (default from the vector registers; 1: none)");
  cmd->add_option("--machine", opt->machine,
                  "With --optimize: the cache and register model instead of this machine's, e.g. "
                  "l1=48K,l2=1M,l3=32M,vector=64,registers=32");
  cmd->add_flag("--exact-deps", opt->exactDeps,
                "Schedule on the exact dependences (PPCG) instead of the ones simplified against the domains "
                "(Polly's default; much faster for fusion max, same result for smart and min)");
  cmd->add_flag("--check", opt->check,
                "Interpret the original and the result on the same seeded inputs and compare the outputs "
                "(slow for full-size samples: use --shape or small copies)");
  cmd->add_option("--trace", opt->trace, "Schedule trace applied before (.py or .json)");
  cmd->add_option("--shape", opt->shapes, "Symbolic size binding for --check, NAME=VALUE");
  cmd->add_option("--seed", opt->seed, "Seed of the random inputs of --check (as `check`)");
  cmd->callback([opt, &result] { result.exitCode = runPoly(*opt); });
}

} // namespace loopscape::cli
