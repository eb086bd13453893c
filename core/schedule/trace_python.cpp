#include "core/schedule/trace_python.h"

#include "core/ir/printer.h"
#include "core/schedule/instruction.h"

#include <fmt/format.h>

#include <cmath>

namespace loopscape::schedule {

namespace {
char rvPrefix(RVKind kind) {
  switch (kind) {
  case RVKind::Block: return 'b';
  case RVKind::Loop: return 'l';
  case RVKind::Expr: return 'v';
  }
  return '?';
}

/// Python's repr of a double: formatFloatLiteral drops `.0` of integral values (as
/// TVMScript prints T.float32(0)); a Python float literal needs it back.
std::string floatRepr(double v) {
  if (std::isnan(v)) return "float(\"nan\")";
  if (std::isinf(v)) return v > 0 ? "float(\"inf\")" : "-float(\"inf\")";
  std::string text = ir::formatFloatLiteral(v);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}
} // namespace

std::vector<PythonArgument> pythonSignature(const InstructionKind& kind) {
  std::vector<PythonArgument> args;
  for (std::size_t i = 0; i < kind.inputNames.size(); ++i) {
    std::optional<TraceValue> inputDefault;
    if (i < kind.inputSpecs.size() && kind.inputSpecs[i].optional) inputDefault = TraceValue();
    args.push_back({kind.inputNames[i], true, i, std::move(inputDefault)});
  }
  for (std::size_t i = 0; i < kind.attrs.size(); ++i)
    args.push_back({kind.attrs[i].name, false, i, std::nullopt});
  // TVM signatures that interleave inputs and attributes.
  if (kind.pythonOrder.empty()) return args;
  std::vector<PythonArgument> ordered;
  for (auto name : kind.pythonOrder)
    for (const auto& a : args)
      if (a.name == name) ordered.push_back(a);
  LS_ASSERT(ordered.size() == args.size(), "the Python order of {} does not name each argument once", kind.name);
  return ordered;
}

std::string rvName(const RV& rv) { return fmt::format("{}{}", rvPrefix(rv.kind), rv.id); }

std::string indexMapToPython(const IndexMap& map) {
  std::vector<std::string> params, results;
  ir::detail::NameTable names;
  for (const auto& p : map.params) params.push_back(names.define(p.get(), p.as<ir::Var>()->name));
  for (const auto& r : map.results) results.push_back(ir::detail::printExpr(r, names));
  return fmt::format("lambda {}: ({}{})", fmt::join(params, ", "), fmt::join(results, ", "),
                     results.size() == 1 ? "," : "");
}

std::string pythonValue(const TraceValue& value) {
  struct Printer {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return floatRepr(d); }
    std::string operator()(const std::string& s) const { return ir::quoteString(s); }
    std::string operator()(const RV& rv) const { return rvName(rv); }
    std::string operator()(const TraceList& list) const {
      std::vector<std::string> items;
      for (const auto& v : list) items.push_back(pythonValue(v));
      return fmt::format("[{}]", fmt::join(items, ", "));
    }
    std::string operator()(const IndexMap& map) const { return indexMapToPython(map); }
  };
  return std::visit(Printer{}, value.value);
}

namespace {
/// An argument as TVM's Python signature wants it: a BufferAccess input (transform_layout's
/// `buffer`) is a ("read" | "write", index) tuple in TVM (a list is refused there),
/// everything else prints as pythonValue does.
std::string pythonArgument(const InstructionKind& kind, const PythonArgument& arg, const TraceValue& value) {
  const auto* list = value.get<TraceList>();
  if (arg.isInput && arg.index < kind.inputSpecs.size() && kind.inputSpecs[arg.index].kind == ParamKind::BufferAccess &&
      list && list->size() == 2 && (*list)[0].get<std::string>() && (*list)[1].get<std::int64_t>())
    return fmt::format("({}, {})", pythonValue((*list)[0]), pythonValue((*list)[1]));
  return pythonValue(value);
}
} // namespace

std::string instructionToPython(const Instruction& inst) {
  const InstructionKind& kind = *inst.kind;
  std::vector<std::string> args;
  if (kind.variadic) {
    for (const auto& in : inst.inputs) args.push_back(pythonValue(in));
    for (std::size_t i = 0; i < inst.attrs.size() && i < kind.attrs.size(); ++i)
      args.push_back(fmt::format("{}={}", kind.attrs[i].name, pythonValue(inst.attrs[i])));
  } else {
    for (const auto& a : pythonSignature(kind)) {
      const auto& values = a.isInput ? inst.inputs : inst.attrs;
      if (a.index < values.size())
        args.push_back(fmt::format("{}={}", a.name, pythonArgument(kind, a, values[a.index])));
    }
  }
  if (kind.isSampling && inst.decision) args.push_back(fmt::format("decision={}", pythonValue(*inst.decision)));

  std::string lhs;
  if (!inst.outputs.empty()) {
    std::vector<std::string> names;
    for (const auto& rv : inst.outputs) names.push_back(rvName(rv));
    lhs = fmt::format("{}{} = ", fmt::join(names, ", "), kind.outputsVariadic && names.size() == 1 ? "," : "");
  }
  return fmt::format("{}sch.{}({})", lhs, kind.name, fmt::join(args, ", "));
}

std::string traceToPython(const Trace& trace) {
  std::string out = "# from tvm import tir\n";
  for (const auto& inst : trace.instructions) out += instructionToPython(inst) + "\n";
  return out;
}

std::optional<std::size_t> firstNonTvmInstruction(const Trace& trace) {
  for (std::size_t i = 0; i < trace.instructions.size(); ++i)
    if (trace.instructions[i].kind->name.starts_with("poly_")) return i;
  return std::nullopt;
}

std::string tvmReplayablePython(const Trace& trace) {
  const auto cut = firstNonTvmInstruction(trace);
  if (!cut) return traceToPython(trace);
  Trace prefix;
  prefix.instructions.assign(trace.instructions.begin(),
                             trace.instructions.begin() + static_cast<std::ptrdiff_t>(*cut));
  const std::size_t left = trace.instructions.size() - *cut;
  return traceToPython(prefix) +
         fmt::format("# left out: {} instruction{} from {} on: Loopscape's polyhedral primitives (poly_*) are not "
                     "tir.Schedule methods\n",
                     left, left == 1 ? "" : "s", instructionToPython(trace.instructions[*cut]));
}

} // namespace loopscape::schedule
