// `relay`: Relay models (core/frontend/relay). `relay print MODEL` (also reached as
// `print MODEL --format relay`) parses and type-checks the model and prints the typed
// graph back in Relay text; `relay groups MODEL` runs the graph passes and FuseOps and
// lists the fused groups and the memory plan; `relay run MODEL --interpret` executes them
// group by group with the reference interpreter in the planned storage; `relay extract MODEL --group N` prints one
// group's PrimFunc.
#include "cli_support.h"
#include "commands.h"
#include "relay_run.h"

#include "core/frontend/relay/relay_exec.h"
#include "core/frontend/relay/relay_parser.h"
#include "core/frontend/relay/relay_printer.h"
#include "core/frontend/relay/relay_te_printer.h"
#include "core/frontend/relay/relay_type_infer.h"

#include "core/graph/model.h"
#include "core/ir/npy.h"
#include "core/ir/printer.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>

namespace loopscape::cli {

namespace {

/// The parsed and typed model, or nullopt after printing the diagnostic (bad input).
std::optional<frontend::relay::Module> loadRelay(const std::string& path, std::string& source) {
  auto text = readFile(path);
  if (!text) {
    printDiagnostic(text.error());
    return std::nullopt;
  }
  source = std::move(*text);
  auto parsed = frontend::relay::parseRelay(source, path);
  if (!parsed) {
    printDiagnostic(parsed.error(), source);
    return std::nullopt;
  }
  auto typed = frontend::relay::inferTypes(*parsed);
  if (!typed) {
    printDiagnostic(typed.error(), source);
    return std::nullopt;
  }
  return std::move(*typed);
}

struct RelayOptions {
  std::string file;
  std::string params, inputs, save, saveParams;
  std::uint64_t seed = 0;
  bool interpret = false;
  bool verbose = false;
  bool alterLayout = false;
  int group = -1;
  std::string out;
};

/// The model after constants, passes, fusion and the memory plan (groups not lowered),
/// or nullopt after printing the diagnostic (bad input).
std::optional<graph::Model> prepare(const RelayOptions& opt) {
  graph::ModelLoadOptions lo;
  lo.paramsDir = opt.params;
  lo.seed = opt.seed;
  lo.passes = graph::hostPassOptions(opt.alterLayout);
  lo.lower = false;
  if (opt.verbose) lo.passLog = [](const std::string& line) { std::fprintf(stderr, "pass %s\n", line.c_str()); };
  auto model = graph::loadModel(opt.file, lo);
  if (!model) {
    auto text = readFile(opt.file);
    printDiagnostic(model.error(), text ? std::string_view(*text) : std::string_view());
    return std::nullopt;
  }
  return std::move(*model);
}

void printPlan(const frontend::relay::MemoryPlan& plan) {
  std::size_t count = 0;
  for (const auto& t : plan.tensors)
    count += t.storage >= 0 ? 1 : 0;
  std::printf("memory %lld bytes planned in %zu storages for %zu intermediate tensors (naive %lld bytes)\n",
              static_cast<long long>(plan.plannedBytes), plan.storageBytes.size(), count,
              static_cast<long long>(plan.naiveBytes));
}

int runGroups(const RelayOptions& opt) {
  auto p = prepare(opt);
  if (!p) return kExitBadInput;
  int k = 0;
  for (const auto& g : p->fusion.groups) {
    if (!g.hasCall()) continue;
    std::string ins;
    for (const auto& in : g.inputs)
      ins += (ins.empty() ? "" : ", ") + frontend::relay::typeStr(in->type);
    std::string ops;
    for (const auto& n : g.nodes)
      if (n->kind == frontend::relay::NodeKind::Call) ops += (ops.empty() ? "" : " ") + n->name;
    std::printf("group %d %s\n  pattern %s\n  ops %s\n  inputs %s\n  output %s\n  flops %lld\n", k++, g.name.c_str(),
                frontend::relay::patternName(g.pattern), ops.c_str(), ins.c_str(),
                frontend::relay::typeStr(g.root()->type).c_str(),
                static_cast<long long>(frontend::relay::groupFlops(g)));
  }
  printPlan(p->plan);
  return kExitOk;
}

int runExtract(const RelayOptions& opt) {
  auto p = prepare(opt);
  if (!p) return kExitBadInput;
  int k = 0;
  for (const auto& g : p->fusion.groups) {
    if (!g.hasCall()) continue;
    if (k++ != opt.group) continue;
    auto func = frontend::relay::lowerGroup(g);
    auto program = frontend::relay::groupProgram(g);
    if (!func || !program) {
      printDiagnostic(func ? program.error() : func.error(), p->source);
      return kExitBadInput;
    }
    std::string ops;
    for (const auto& n : g.nodes)
      if (n->kind == frontend::relay::NodeKind::Call) ops += (ops.empty() ? "" : " ") + n->name;
    bool te = std::filesystem::path(opt.out).extension() == ".te";
    std::string text =
        te ? frontend::relay::printTeProgram(*program, fmt::format("{}: {} (from {})", g.name, ops, opt.file))
           : ir::printPrimFunc(*func);
    if (opt.out.empty()) {
      std::fputs(text.c_str(), stdout);
      return kExitOk;
    }
    std::FILE* f = std::fopen(opt.out.c_str(), "w");
    if (!f || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0) {
      printDiagnostic(Diagnostic::error("cli.cannot-write", fmt::format("cannot write '{}'", opt.out)));
      return kExitBadInput;
    }
    std::printf("wrote %s (%s)\n", opt.out.c_str(), g.name.c_str());
    return kExitOk;
  }
  printDiagnostic(
      Diagnostic::error("cli.bad-argument", fmt::format("--group {} is out of range: the model has {} groups "
                                                        "(see `relay groups`)",
                                                        opt.group, k)));
  return kExitBadInput;
}

int runModel(const RelayOptions& opt) {
  auto p = prepare(opt);
  if (!p) return kExitBadInput;
  const auto& main = p->module.functions.front();
  std::vector<ir::NDArray> inputs;
  for (std::size_t k = 0; k < main.params.size(); ++k) {
    const auto& param = main.params[k];
    std::string named = opt.params.empty() ? "" : fmt::format("{}/{}.npy", opt.params, param->name);
    bool fromParams = !named.empty() && std::filesystem::exists(named);
    if (!opt.inputs.empty() || fromParams) {
      std::string path = fromParams ? named : fmt::format("{}/{}.npy", opt.inputs, param->name);
      auto a = ir::loadNpy(path);
      if (!a) {
        printDiagnostic(a.error());
        return kExitBadInput;
      }
      if (a->shape() != param->type.shape || a->dtype() != param->type.dtype) {
        printDiagnostic(
            Diagnostic::error("cli.bad-input", fmt::format("input %{} must be {}, the file holds {}", param->name,
                                                           frontend::relay::typeStr(param->type), a->describe())));
        return kExitBadInput;
      }
      inputs.push_back(*a);
    } else {
      ir::NDArray a(param->type.shape, param->type.dtype);
      a.fillRandom(opt.seed + k);
      inputs.push_back(a);
    }
    std::printf("input  %%%s %s\n", param->name.c_str(), inputs.back().describe().c_str());
  }
  // Run in the planned storage, poisoning storage as its tensors die.
  printPlan(p->plan);
  auto outputs = frontend::relay::runFused(p->module, main, p->fusion, inputs, &p->plan, true);
  if (!outputs) {
    printDiagnostic(outputs.error(), p->source);
    return kExitInternal;
  }
  if (!opt.save.empty() && !makeOutputDir(opt.save)) return kExitBadInput;
  for (std::size_t k = 0; k < outputs->size(); ++k) {
    const auto& o = (*outputs)[k];
    std::printf("output %zu %s %s\n", k, o.describe().c_str(), o.checksum().str().c_str());
    if (!opt.save.empty() && !saveOutput(opt.save, fmt::format("output_{}", k), o)) return kExitBadInput;
  }
  if (!opt.saveParams.empty()) {
    if (!makeOutputDir(opt.saveParams)) return kExitBadInput;
    for (std::size_t i = 0; i < p->sourceConstants; ++i)
      if (!saveOutput(opt.saveParams, fmt::format("const_{}", i), p->module.constants[i])) return kExitBadInput;
  }
  return kExitOk;
}

int printAfterPasses(const RelayOptions& opt) {
  auto p = prepare(opt);
  if (!p) return kExitBadInput;
  std::fputs(frontend::relay::printRelay(p->module, false).c_str(), stdout);
  return kExitOk;
}

} // namespace

std::optional<std::vector<ir::PrimFunc>> relayGroupFunctions(const std::string& path, bool alterLayout) {
  RelayOptions opt;
  opt.file = path;
  opt.alterLayout = alterLayout;
  auto p = prepare(opt);
  if (!p) return std::nullopt;
  std::vector<ir::PrimFunc> out;
  for (const auto& g : p->fusion.groups) {
    if (!g.hasCall()) continue;
    auto func = frontend::relay::lowerGroup(g);
    if (!func) {
      printDiagnostic(func.error(), p->source);
      return std::nullopt;
    }
    out.push_back(std::move(*func));
  }
  return out;
}

int printRelayModel(const std::string& path) {
  std::string source;
  auto model = loadRelay(path, source);
  if (!model) return kExitBadInput;
  std::fputs(frontend::relay::printRelay(*model).c_str(), stdout);
  return kExitOk;
}

void registerRelay(CLI::App& app, CommandResult& result) {
  auto* relay =
      app.add_subcommand("relay", "Relay models: print the typed graph, list fused groups, run, extract a group");
  relay->require_subcommand(1);
  auto opt = std::make_shared<RelayOptions>();
  const char* modelHelp = "Relay text file (TVM 0.8-0.18, #[version = \"0.0.5\"])";
  const char* alterLayoutHelp =
      "AlterOpLayout as TVM on x86: NCHW conv2d as nn.contrib_conv2d_NCHWc in NCHW[x]c, blocks of the host's "
      "vector lanes, layout_transform at the borders";
  auto* print = relay->add_subcommand("print", "Parse and type-check MODEL.relay and print the typed graph");
  print->add_option("MODEL", opt->file, modelHelp)->required();
  auto passes = std::make_shared<bool>(false);
  print->add_flag(
      "--passes", *passes,
      "Print the graph after the passes (InlineGlobals, SimplifyInference, AlterOpLayout with --alter-layout, "
      "FoldConstant, CSE; --verbose "
      "logs each), without the metadata of the folded constants");
  print->add_option("--params", opt->params, "Directory with const_<i>.npy values of meta[relay.Constant][i]");
  print->add_option("--seed", opt->seed, "Seed of the random constants")->capture_default_str();
  print->add_flag("--verbose", opt->verbose, "Log each graph pass");
  print->add_flag("--alter-layout", opt->alterLayout, alterLayoutHelp);
  print->callback(
      [opt, passes, &result] { result.exitCode = *passes ? printAfterPasses(*opt) : printRelayModel(opt->file); });
  auto common = [&](CLI::App* cmd) {
    cmd->add_option("MODEL", opt->file, modelHelp)->required();
    cmd->add_option("--params", opt->params, "Directory with const_<i>.npy values of meta[relay.Constant][i]");
    cmd->add_option("--seed", opt->seed, "Seed of the random constants and inputs")->capture_default_str();
    cmd->add_flag("--verbose", opt->verbose, "Log each graph pass");
    cmd->add_flag("--alter-layout", opt->alterLayout, alterLayoutHelp);
  };
  auto* groups = relay->add_subcommand("groups", "Run the graph passes and FuseOps; list the fused groups");
  common(groups);
  groups->callback([opt, &result] { result.exitCode = runGroups(*opt); });
  auto* extract = relay->add_subcommand("extract", "Print fused group N as a TVMScript PrimFunc");
  common(extract);
  extract->add_option("--group", opt->group, "Group number (as `relay groups` lists them)")->required();
  extract->add_option("--out", opt->out,
                      "Write the group to this file instead of stdout: a .te program (opens in the workbench) or, for "
                      "any other extension, the PrimFunc as TVMScript");
  extract->callback([opt, &result] { result.exitCode = runExtract(*opt); });
  auto* run = relay->add_subcommand(
      "run", "Run the model: compiled group by group through a target (--target), or with the reference interpreter");
  common(run);
  run->add_option("--inputs", opt->inputs,
                  "Directory with <param>.npy inputs (default: seeded random; --params DIR/<param>.npy, for weights "
                  "passed as parameters, comes first)");
  run->add_option("--save", opt->save, "Write output_<k>.npy here");
  run->add_option("--save-params", opt->saveParams, "Write the constants used (const_<i>.npy) here");
  run->add_flag("--interpret", opt->interpret, "Execute with the reference interpreter");
  auto compiled = std::make_shared<RelayRunOptions>();
  run->add_option("--target", compiled->target, "Compile every group through this target plugin (cpu-llvm, cpu-c)");
  run->add_option("--schedule", compiled->schedule,
                  "Each group's schedule: default (TVM-style fallback rules), poly (poly_optimize, fusion smart), "
                  "poly:max|smart|min, tuned:LOG (the best record per group), or a model schedule FILE.json")
      ->capture_default_str();
  run->add_option("--write-schedule", compiled->writeSchedule, "Write the model schedule used to this JSON file");
  run->add_option("--threads", compiled->threads, "Threads inside each group (0: all cores)")->capture_default_str();
  run->add_option("--repeat", compiled->repeat, "Timed runs of the whole model (the median is reported)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  run->add_flag("--verify", compiled->verify,
                "Check every group against the reference interpreter on the inputs its compiled predecessors made");
  run->add_flag("--fast-math", compiled->fastMath, "Allow reassociation in the kernels");
  run->add_flag("--no-cache", compiled->noCache, "Neither use nor fill the compiled-group cache");
  run->add_flag("--in-process", compiled->inProcess, "Run the kernels in this process (no isolation)");
  run->add_option("--timeout", compiled->timeout, "Seconds each kernel call may take")->capture_default_str();
  run->callback([opt, compiled, &result] {
    if (opt->interpret == !compiled->target.empty()) {
      printDiagnostic(Diagnostic::error("cli.bad-argument",
                                        "relay run needs either --target T (compile every group) or --interpret"));
      result.exitCode = kExitBadInput;
      return;
    }
    if (opt->interpret) {
      result.exitCode = runModel(*opt);
      return;
    }
    compiled->file = opt->file;
    compiled->params = opt->params;
    compiled->inputs = opt->inputs;
    compiled->save = opt->save;
    compiled->saveParams = opt->saveParams;
    compiled->seed = opt->seed;
    compiled->verbose = opt->verbose;
    compiled->alterLayout = opt->alterLayout;
    result.exitCode = runCompiledModel(*compiled);
  });
}

} // namespace loopscape::cli
