#include "cli_support.h"

#include "session_load.h"
#include "source_locate.h"

#include "core/frontend/program_source.h"
#include "core/ir/checked_arith.h"
#include "core/ir/file_read.h"
#include "core/ir/npy.h"
#include "core/ir/resource_limits.h"
#include "core/ir/visitor.h"
#include "core/poly/checked_schedule.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule_error.h"
#include "core/schedule/trace_json.h"
#include "core/schedule/trace_script.h"
#include "core/tune/apply_record.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fmt/format.h>
#include <limits>

namespace loopscape::cli {

Expected<std::string> readFile(const std::string& path) { return ir::readSourceFile(path); }

namespace {
std::string g_functionName;
}

void setFunctionName(std::string name) { g_functionName = std::move(name); }

std::optional<LoadedProgram> loadProgram(const std::string& path) {
  auto source = readFile(path);
  if (!source) {
    printDiagnostic(source.error());
    return std::nullopt;
  }
  if (isSessionPath(path)) return loadSession(path, *source);
  const auto ext = std::filesystem::path(path).extension().string();
  if (ext != ".te" && frontend::languageOfPath(path) != frontend::SourceLanguage::TvmScript) {
    printDiagnostic(Diagnostic::error(
        "cli.unknown-format",
        fmt::format("'{}': unknown program format '{}'; loopscape reads tensor-expression files (.te), "
                    "TVMScript (.py, .tvmscript) and workbench sessions (.lsproj)",
                    path, ext.empty() ? "(no extension)" : ext)));
    return std::nullopt;
  }
  ir::ScriptDialect dialect = ir::ScriptDialect::Tir;
  auto func = frontend::parseProgram(*source, frontend::languageOfPath(path), path, g_functionName, &dialect);
  if (!func) {
    printDiagnostic(func.error(), *source);
    return std::nullopt;
  }
  return LoadedProgram{path, std::move(*source), std::move(*func), dialect};
}

namespace {
std::string g_printDialect;
}

void setPrintDialect(std::string dialect) { g_printDialect = std::move(dialect); }

ir::PrintOptions printOptionsFor(const LoadedProgram& program) {
  ir::PrintOptions options;
  options.dialect = g_printDialect == "tirx"  ? ir::ScriptDialect::Tirx
                    : g_printDialect == "tir" ? ir::ScriptDialect::Tir
                                              : program.dialect;
  return options;
}

namespace {
schedule::LegalityPolicy g_legalityPolicy = schedule::LegalityPolicy::Exact;
}

bool hasTrace(const LoadedProgram& program, const std::string& tracePath) {
  return !tracePath.empty() || !program.sessionTrace.empty();
}

std::string traceName(const LoadedProgram& program, const std::string& tracePath) {
  return tracePath.empty() ? program.sessionPath + "[trace]" : tracePath;
}

std::optional<schedule::Schedule> applyTraceFile(const LoadedProgram& program, const std::string& givenPath,
                                                 int& exitCode,
                                                 std::optional<schedule::LegalityPolicy> policyOverride) {
  if (!givenPath.empty() && !program.sessionTrace.empty()) {
    printDiagnostic(Diagnostic::error(
        "cli.bad-argument", fmt::format("'{}' carries its own trace; --trace '{}' applies to program files only",
                                        program.sessionPath, givenPath)));
    exitCode = kExitBadInput;
    return std::nullopt;
  }
  const bool fromSession = givenPath.empty();
  const std::string tracePath = traceName(program, givenPath);
  std::optional<tune::Record> record;
  if (!fromSession && tracePath.starts_with("best:")) {
    auto best = tune::bestRecordOf(program.func, tracePath.substr(5));
    if (!best) {
      printDiagnostic(best.error());
      exitCode = kExitBadInput;
      return std::nullopt;
    }
    std::fprintf(stderr, "note: %s: %s\n", tracePath.c_str(), tune::recordSummary(*best).c_str());
    record = std::move(*best);
  }
  auto text = fromSession ? Expected<std::string>(program.sessionTrace)
              : record    ? Expected<std::string>(schedule::traceToJson(record->trace))
                          : readFile(tracePath);
  if (!text) {
    printDiagnostic(text.error());
    exitCode = kExitBadInput;
    return std::nullopt;
  }
  const auto ext = fromSession || record ? std::string(".json") : std::filesystem::path(tracePath).extension().string();
  if (ext != ".py" && ext != ".json") {
    printDiagnostic(Diagnostic::error(
        "cli.unknown-trace-format",
        fmt::format("'{}': unknown trace format '{}'; traces are TVM Python scripts (.py) or JSON traces (.json)",
                    tracePath, ext.empty() ? "(no extension)" : ext)));
    exitCode = kExitBadInput;
    return std::nullopt;
  }
  const schedule::LegalityPolicy policy = policyOverride.value_or(g_legalityPolicy);
  schedule::Schedule sch = poly::makeSchedule(program.func, policy);
  if (policy == schedule::LegalityPolicy::Unverified && !policyOverride)
    std::fprintf(stderr, "note: %s: the steps of '%s' are not checked against the original program's dependences\n",
                 poly::legalityPolicyName(policy), tracePath.c_str());
  // A tuning record is checked as the tuner checked it: once, on the program its steps give.
  Expected<std::vector<Diagnostic>> applied = std::vector<Diagnostic>{};
  if (record)
    applied = tune::applyRecord(sch, *record, tracePath);
  else if (auto ok = ext == ".py" ? schedule::applyScript(sch, *text, tracePath)
                                  : schedule::applyJsonTrace(sch, *text, tracePath);
           !ok)
    applied = std::unexpected(ok.error());
  if (applied) {
    for (const auto& n : *applied)
      std::fprintf(stderr, "note: %s\n", n.message.c_str());
    for (const auto& n : sch.notes())
      std::fprintf(stderr, "note: step %zu (%s): %s\n", n.instruction + 1,
                   std::string(sch.trace().instructions[n.instruction].kind->name).c_str(), n.note.message.c_str());
    return sch;
  }
  const Diagnostic& d = applied.error();
  if (d.code == "tune.record-illegal" || d.code == "tune.legality-unchecked") {
    // The check of the record's whole program: its message says it all.
    printDiagnostic(d);
    exitCode = kExitIllegalSchedule;
    return std::nullopt;
  }
  printDiagnostic(d, *text);
  if (d.subject == DiagnosticSubject::Program) {
    // A refused step, whichever check refused it: the schedule left the program as it
    // was before the step.
    std::fputs(schedule::renderScheduleError(d, sch.func()).c_str(), stderr);
    exitCode = kExitIllegalSchedule;
  } else {
    exitCode = kExitBadInput;
  }
  return std::nullopt;
}

void setLegalityPolicy(schedule::LegalityPolicy policy) { g_legalityPolicy = policy; }

std::string shapeText(const std::vector<std::int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

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

Expected<ir::SizeBindings> parseShapes(const ir::PrimFunc& func, const std::vector<std::string>& items) {
  std::vector<std::string> known;
  for (const auto& v : func.sizeVars())
    known.push_back(v.as<ir::Var>()->name);
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
    const bool digitsOnly = !valueText.empty() && ptr == valueText.data() + valueText.size();
    if (ec == std::errc::result_out_of_range && digitsOnly && valueText[0] != '-')
      return Unexpected(Diagnostic::error(
          "cli.bad-shape", fmt::format("--shape '{}': the value is too large (at most {})", quoteForMessage(item),
                                       std::numeric_limits<std::int64_t>::max())));
    if (ec != std::errc() || !digitsOnly || value < 1)
      return Unexpected(Diagnostic::error(
          "cli.bad-shape", fmt::format("--shape '{}': the value must be a positive integer", quoteForMessage(item))));
    auto knownIt = std::find(known.begin(), known.end(), name);
    if (knownIt == known.end())
      return Unexpected(Diagnostic::error("cli.bad-shape",
                                          fmt::format("--shape '{}': '{}' is not a symbolic size of the program ({})",
                                                      quoteForMessage(item), quoteForMessage(name), knownText)));
    // A size is a value of its variable's type (int32 for te.var): a larger value would
    // wrap in every index computed from it.
    const ir::DataType type = func.sizeVars()[static_cast<std::size_t>(knownIt - known.begin())].dtype();
    if (!ir::fitsSignedBits(value, type.bits()))
      return Unexpected(Diagnostic::error(
          "cli.bad-shape", fmt::format("--shape '{}': the value is too large for '{}', an {} size (at most {})", item,
                                       name, type.str(), (std::int64_t{1} << (type.bits() - 1)) - 1)));
    bindings[name] = value;
  }
  for (const auto& name : known)
    if (!bindings.contains(name))
      return Unexpected(Diagnostic::error(
          "cli.unbound-size", fmt::format("symbolic size '{}' is not bound; pass --shape {}=VALUE", name, name)));
  return bindings;
}

std::string multiIndex(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] > 0 ? flat % shape[d] : 0;
    flat = shape[d] > 0 ? flat / shape[d] : 0;
  }
  return fmt::format("[{}]", fmt::join(index, ", "));
}

std::optional<std::vector<ir::NDArray>> loadArguments(const ir::PrimFunc& func, const ir::SizeBindings& sizes,
                                                      const std::string& inputsDir, std::uint64_t seed) {
  const auto outputs = writtenParams(func);
  std::vector<ir::NDArray> args;
  std::int64_t totalBytes = 0;
  for (std::size_t i = 0; i < func.params.size(); ++i) {
    const auto& param = func.params[i];
    auto shape = ir::evalShape(param, sizes);
    if (!shape) {
      printDiagnostic(shape.error());
      return std::nullopt;
    }
    const bool isOutput = outputs.contains(param.get());
    // Every array counts against the memory limit, alone and all together.
    auto bytes = ir::NDArray::checkedBytes(*shape, param->dtype, param->name);
    if (bytes && *bytes > ir::resourceLimits().maxBufferBytes - totalBytes)
      bytes = Unexpected(Diagnostic::error(
          "cli.too-large",
          fmt::format("the arguments are too large: buffer '{}' needs {} bytes ({}) after {} bytes ({}) for the "
                      "parameters before it, more than the memory limit of {} bytes ({}) in all; use smaller sizes "
                      "or raise the limit (--max-memory)",
                      param->name, *bytes, ir::formatBytes(*bytes), totalBytes, ir::formatBytes(totalBytes),
                      ir::resourceLimits().maxBufferBytes, ir::formatBytes(ir::resourceLimits().maxBufferBytes))));
    if (!bytes) {
      printDiagnostic(bytes.error());
      return std::nullopt;
    }
    totalBytes += *bytes;
    if (isOutput || inputsDir.empty()) {
      auto created = ir::NDArray::create(*shape, param->dtype, param->name);
      if (!created) {
        printDiagnostic(created.error());
        return std::nullopt;
      }
      auto array = std::move(*created);
      if (!isOutput) {
        array.fillRandom(seed + i);
        fmt::print("input  {:<12} {:<8} {:<18} random, seed {}\n", param->name, param->dtype.str(), shapeText(*shape),
                   seed + i);
      }
      args.push_back(std::move(array));
      continue;
    }
    const auto path = (std::filesystem::path(inputsDir) / (param->name + ".npy")).string();
    auto loaded = ir::loadNpy(path);
    if (!loaded) {
      auto d = loaded.error();
      d.message = fmt::format("input '{}': {}", param->name, d.message);
      printDiagnostic(d);
      return std::nullopt;
    }
    if (loaded->shape() != *shape || loaded->dtype() != param->dtype) {
      printDiagnostic(Diagnostic::error(
          "cli.input-mismatch",
          fmt::format("input '{}': file '{}' holds {} {}, but the program expects {} {}", param->name, path,
                      loaded->dtype().str(), shapeText(loaded->shape()), param->dtype.str(), shapeText(*shape))));
      return std::nullopt;
    }
    fmt::print("input  {:<12} {:<8} {:<18} from {}\n", param->name, param->dtype.str(), shapeText(*shape), path);
    args.push_back(std::move(*loaded));
  }
  return args;
}

bool makeOutputDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec) return true;
  printDiagnostic(
      Diagnostic::error("cli.cannot-write", fmt::format("cannot create directory '{}': {}", dir, ec.message())));
  return false;
}

bool saveOutput(const std::string& dir, const std::string& name, const ir::NDArray& array) {
  const auto path = (std::filesystem::path(dir) / (name + ".npy")).string();
  if (auto saved = ir::saveNpy(path, array); !saved) {
    printDiagnostic(saved.error());
    return false;
  }
  fmt::print("saved  {:<12} {}\n", name, path);
  return true;
}

int reportInterpreterFailure(const LoadedProgram& program, Diagnostic d) {
  if (!isProgramFault(d)) {
    printDiagnostic(d);
    return kExitInternal;
  }
  if (!d.location.valid()) d.location = locateFault(program.source, program.path, d);
  if (d.code == "interp.out-of-bounds")
    d.notes.push_back("the program reads or writes outside the buffer's shape; fix the index expression or the shapes");
  else if (d.code == "interp.division-by-zero")
    d.notes.push_back("an integer division or modulo in the program divides by zero for these index values");
  else if (d.code == "interp.too-large")
    d.notes.push_back("use smaller sizes or raise the limit (--max-memory)");
  printDiagnostic(d, program.source);
  return kExitBadInput;
}

void printDiagnostic(const Diagnostic& d, std::string_view source) {
  std::fputs(renderDiagnostic(d, source).c_str(), stderr);
}

} // namespace loopscape::cli
