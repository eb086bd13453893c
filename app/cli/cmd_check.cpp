// `check`: run the reference interpreter on the program with seeded random inputs (or
// inputs read from .npy files) and print one checksum line per output; optionally save
// the outputs as .npy so other tools (numpy, TVM) can compare them. With --trace, run
// both the original program and the program after the trace's schedule on the same
// inputs and report per output `equal` or the first differing element (exit status 1
// when any output differs).
#include "cli_support.h"
#include "commands.h"

#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/npy.h"
#include "core/ir/visitor.h"

#include <charconv>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <set>

namespace loopscape::cli {

namespace {

struct CheckOptions {
  std::string file;
  std::vector<std::string> shapes;
  std::string inputsDir;
  std::string saveDir;
  std::string trace;
  double atol = 0;
  double rtol = 0;
  std::uint64_t seed = 0;
};

std::string shapeText(const std::vector<std::int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

/// Parameters that some statement stores to: the outputs.
std::set<const ir::BufferNode*> writtenParams(const ir::PrimFunc& func) {
  struct Collector final : ir::StmtVisitor {
    std::set<const ir::BufferNode*> written;
    void visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
      written.insert(op.buffer.get());
      StmtVisitor::visitBufferStore(op, self);
    }
  } collector;
  collector(func.body);
  std::set<const ir::BufferNode*> out;
  for (const auto& p : func.params)
    if (collector.written.contains(p.get())) out.insert(p.get());
  return out;
}

/// Parses `--shape name=value` bindings against the program's symbolic sizes.
Expected<ir::SizeBindings> parseShapes(const ir::PrimFunc& func, const std::vector<std::string>& items) {
  std::vector<std::string> known;
  for (const auto& v : func.sizeVars()) known.push_back(v.as<ir::Var>()->name);
  const std::string knownText =
      known.empty() ? "the program has no symbolic sizes" : fmt::format("symbolic sizes: {}", fmt::join(known, ", "));
  ir::SizeBindings bindings;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return Unexpected(Diagnostic::error("cli.bad-shape", fmt::format("--shape '{}': expected NAME=VALUE", item)));
    std::string name = item.substr(0, eq);
    std::string valueText = item.substr(eq + 1);
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(valueText.data(), valueText.data() + valueText.size(), value);
    if (ec != std::errc() || ptr != valueText.data() + valueText.size() || value < 1)
      return Unexpected(Diagnostic::error(
          "cli.bad-shape", fmt::format("--shape '{}': the value must be a positive integer", item)));
    if (std::find(known.begin(), known.end(), name) == known.end())
      return Unexpected(Diagnostic::error(
          "cli.bad-shape", fmt::format("--shape '{}': '{}' is not a symbolic size of the program ({})", item, name,
                                       knownText)));
    bindings[name] = value;
  }
  for (const auto& name : known)
    if (!bindings.contains(name))
      return Unexpected(Diagnostic::error(
          "cli.unbound-size", fmt::format("symbolic size '{}' is not bound; pass --shape {}=VALUE", name, name)));
  return bindings;
}

/// `[0, 17]`: the row-major multi-dimensional index of flat index `flat`.
std::string multiIndex(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] > 0 ? flat % shape[d] : 0;
    flat = shape[d] > 0 ? flat / shape[d] : 0;
  }
  return fmt::format("[{}]", fmt::join(index, ", "));
}

int runCheck(const CheckOptions& opt) {
  auto program = loadProgram(opt.file);
  if (!program) return kExitBadInput;
  const auto& func = program->func;
  auto sizes = parseShapes(func, opt.shapes);
  if (!sizes) {
    printDiagnostic(sizes.error());
    return kExitBadInput;
  }
  std::optional<schedule::Schedule> scheduled;
  if (!opt.trace.empty()) {
    int exitCode = kExitOk;
    scheduled = applyTraceFile(*program, opt.trace, exitCode);
    if (!scheduled) return exitCode;
  }

  const auto outputs = writtenParams(func);
  std::vector<ir::NDArray> args;
  for (std::size_t i = 0; i < func.params.size(); ++i) {
    const auto& param = func.params[i];
    auto shape = ir::evalShape(param, *sizes);
    if (!shape) {
      printDiagnostic(shape.error());
      return kExitBadInput;
    }
    const bool isOutput = outputs.contains(param.get());
    if (isOutput || opt.inputsDir.empty()) {
      auto array = ir::NDArray(*shape, param->dtype);
      if (!isOutput) {
        array.fillRandom(opt.seed + i);
        fmt::print("input  {:<12} {:<8} {:<18} random, seed {}\n", param->name, param->dtype.str(), shapeText(*shape),
                   opt.seed + i);
      }
      args.push_back(std::move(array));
      continue;
    }
    const auto path = (std::filesystem::path(opt.inputsDir) / (param->name + ".npy")).string();
    auto loaded = ir::loadNpy(path);
    if (!loaded) {
      auto d = loaded.error();
      d.message = fmt::format("input '{}': {}", param->name, d.message);
      printDiagnostic(d);
      return kExitBadInput;
    }
    if (loaded->shape() != *shape || loaded->dtype() != param->dtype) {
      printDiagnostic(Diagnostic::error(
          "cli.input-mismatch",
          fmt::format("input '{}': file '{}' holds {} {}, but the program expects {} {}", param->name, path,
                      loaded->dtype().str(), shapeText(loaded->shape()), param->dtype.str(), shapeText(*shape))));
      return kExitBadInput;
    }
    fmt::print("input  {:<12} {:<8} {:<18} from {}\n", param->name, param->dtype.str(), shapeText(*shape), path);
    args.push_back(std::move(*loaded));
  }

  // With a trace, the scheduled program runs on copies of the same inputs.
  std::vector<ir::NDArray> scheduledArgs;
  if (scheduled) {
    for (std::size_t i = 0; i < args.size(); ++i)
      scheduledArgs.push_back(outputs.contains(func.params[i].get()) ? ir::NDArray(args[i].shape(), args[i].dtype())
                                                                      : args[i].clone());
    fmt::print("trace  {} ({} instructions)\n", opt.trace, scheduled->trace().instructions.size());
  }

  if (auto ran = ir::interpret(func, args, *sizes); !ran) {
    printDiagnostic(ran.error());
    return kExitInternal;
  }
  if (scheduled) {
    if (scheduled->func().params.size() != func.params.size()) {
      printDiagnostic(Diagnostic::error("cli.signature-changed",
                                        "the scheduled program has a different parameter list than the original"));
      return kExitInternal;
    }
    if (auto ran = ir::interpret(scheduled->func(), scheduledArgs, *sizes); !ran) {
      auto d = ran.error();
      d.message = fmt::format("the scheduled program failed: {}", d.message);
      printDiagnostic(d);
      return kExitInternal;
    }
  }

  if (!opt.saveDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opt.saveDir, ec);
    if (ec) {
      printDiagnostic(Diagnostic::error(
          "cli.cannot-write", fmt::format("cannot create directory '{}': {}", opt.saveDir, ec.message())));
      return kExitBadInput;
    }
  }
  bool allEqual = true;
  for (std::size_t i = 0; i < func.params.size(); ++i) {
    const auto& param = func.params[i];
    if (!outputs.contains(param.get())) continue;
    if (scheduled) {
      const auto mismatch = ir::firstMismatch(scheduledArgs[i], args[i], opt.atol, opt.rtol);
      if (!mismatch) {
        fmt::print("output {:<12} {:<8} {:<18} equal\n", param->name, param->dtype.str(), shapeText(args[i].shape()));
      } else {
        allEqual = false;
        fmt::print("output {:<12} {:<8} {:<18} differs at flat index {} {}: original {:.9g}, scheduled {:.9g}\n",
                   param->name, param->dtype.str(), shapeText(args[i].shape()), mismatch->index,
                   multiIndex(mismatch->index, args[i].shape()), mismatch->expected, mismatch->actual);
      }
      if (opt.saveDir.empty()) continue;
      const auto path = (std::filesystem::path(opt.saveDir) / (param->name + ".npy")).string();
      if (auto saved = ir::saveNpy(path, scheduledArgs[i]); !saved) {
        printDiagnostic(saved.error());
        return kExitBadInput;
      }
      fmt::print("saved  {:<12} {}\n", param->name, path);
      continue;
    }
    const auto sum = args[i].checksum();
    fmt::print("output {:<12} {:<8} {:<18} sum={:.9g} abs_sum={:.9g} fnv1a={:016x}\n", param->name,
               param->dtype.str(), shapeText(args[i].shape()), sum.sum, sum.absSum, sum.hash);
    if (opt.saveDir.empty()) continue;
    const auto path = (std::filesystem::path(opt.saveDir) / (param->name + ".npy")).string();
    if (auto saved = ir::saveNpy(path, args[i]); !saved) {
      printDiagnostic(saved.error());
      return kExitBadInput;
    }
    fmt::print("saved  {:<12} {}\n", param->name, path);
  }
  return allEqual ? kExitOk : kExitInternal;
}

} // namespace

void registerCheck(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand(
      "check", "Run the reference interpreter on seeded random inputs and print a checksum per output");
  auto opt = std::make_shared<CheckOptions>();
  cmd->add_option("FILE", opt->file, "Program file (.te)")->required();
  cmd->add_option("--shape", opt->shapes, "Bind a symbolic size, e.g. --shape n=64 (repeatable)");
  cmd->add_option("--inputs", opt->inputsDir, "Read each input NAME from DIR/NAME.npy instead of random data");
  cmd->add_option("--save", opt->saveDir, "Write each output NAME to DIR/NAME.npy");
  cmd->add_option("--trace", opt->trace,
                  "Schedule trace (.py TVM script or .json): run the original and the scheduled program on the same "
                  "inputs and compare every output (exit status 1 if any differs, 3 if a step is illegal)");
  cmd->add_option("--atol", opt->atol, "With --trace: absolute tolerance of the comparison (default: bit-exact)");
  cmd->add_option("--rtol", opt->rtol, "With --trace: relative tolerance of the comparison (default: bit-exact)");
  cmd->add_option("--seed", opt->seed, "Seed of the random inputs (input number i uses SEED + i)")
      ->capture_default_str();
  cmd->callback([opt, &result] { result.exitCode = runCheck(*opt); });
}

} // namespace loopscape::cli
