// The evaluator of trace scripts: walks the syntax tree of trace_script_syntax.h and
// applies each schedule call (see trace_script.h for the semantics).
#include "core/schedule/trace_script.h"

#include "core/ir/op.h"
#include "core/schedule/instruction.h"
#include "core/schedule/trace_python.h"
#include "core/schedule/trace_script_syntax.h"

#include <fmt/format.h>

#include <map>

namespace loopscape::schedule {

using namespace detail;

namespace {

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string typeName(const TraceValue& v) {
  struct Namer {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(bool) const { return "a bool"; }
    std::string operator()(std::int64_t) const { return "an int"; }
    std::string operator()(double) const { return "a float"; }
    std::string operator()(const std::string&) const { return "a string"; }
    std::string operator()(const RV& rv) const {
      return rv.kind == RVKind::Block ? "a block" : rv.kind == RVKind::Loop ? "a loop" : "a sampled integer";
    }
    std::string operator()(const TraceList&) const { return "a list"; }
    std::string operator()(const IndexMap&) const { return "an index map"; }
  };
  return std::visit(Namer{}, v.value);
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

class Interpreter {
public:
  /// `sch` may be null when only index maps are evaluated.
  Interpreter(Schedule* sch, const std::string& file, std::string scheduleName)
      : m_sch(sch), m_file(file), m_schName(std::move(scheduleName)) {}

  Expected<void> run(const std::vector<PyStmt>& statements) {
    for (const auto& s : statements)
      if (auto ok = statement(s); !ok) return ok;
    return {};
  }

  /// An index-map lambda with no environment (for JSON traces).
  Expected<IndexMap> indexMap(const PyNode& n) {
    if (n.kind != PyKind::Lambda) return Unexpected(error(n, "trace.bad-index-map", "expected a lambda"));
    return lambda(n);
  }

private:
  Diagnostic error(const PyNode& at, std::string code, std::string message) const {
    return Diagnostic::error(std::move(code), std::move(message), SourceLocation{m_file, at.line, at.column, at.length});
  }
  Diagnostic errorAt(int line, int column, int length, std::string code, std::string message) const {
    return Diagnostic::error(std::move(code), std::move(message), SourceLocation{m_file, line, column, length});
  }

  struct CallResult {
    const InstructionKind* kind = nullptr;
    std::vector<RV> outputs;
  };

  Expected<void> statement(const PyStmt& s) {
    // Calls are evaluated here so that the outputs keep their count for unpacking.
    std::optional<CallResult> call;
    TraceValue value;
    if (s.value->kind == PyKind::Call) {
      auto r = applyCall(*s.value);
      if (!r) return Unexpected(r.error());
      call = std::move(*r);
      value = callValue(*call);
    } else {
      auto v = eval(*s.value);
      if (!v) return Unexpected(v.error());
      value = std::move(*v);
    }
    if (s.targets.empty()) return {};
    if (!s.tupleTarget) {
      m_env[s.targets[0].name] = std::move(value);
      return {};
    }
    std::vector<TraceValue> items;
    if (call) {
      for (const auto& rv : call->outputs) items.push_back(rv);
    } else if (const auto* list = value.get<TraceList>()) {
      items = *list;
    } else {
      return Unexpected(errorAt(s.line, s.column, 1, "trace.unpack",
                                fmt::format("cannot unpack {} into {}", typeName(value),
                                            plural(s.targets.size(), "name", "names"))));
    }
    if (items.size() != s.targets.size()) {
      const std::string assigned =
          s.targets.size() == 1 ? "1 name is assigned" : fmt::format("{} names are assigned", s.targets.size());
      const std::string message =
          call ? fmt::format("{} returned {}, but {}", call->kind->name, plural(items.size(), "value", "values"),
                             assigned)
               : fmt::format("cannot unpack a list of {}: {}", plural(items.size(), "value", "values"), assigned);
      return Unexpected(errorAt(s.line, s.column, 1, "trace.unpack", message));
    }
    for (std::size_t i = 0; i < items.size(); ++i) m_env[s.targets[i].name] = items[i];
    return {};
  }

  static TraceValue callValue(const CallResult& r) {
    TraceValue out;
    if (!r.kind->outputsVariadic && r.outputs.size() == 1) {
      out.value = r.outputs[0];
    } else if (r.kind->outputsVariadic || r.outputs.size() > 1) {
      TraceList list(r.outputs.begin(), r.outputs.end());
      out.value = std::move(list);
    }
    return out;
  }

  Expected<CallResult> applyCall(const PyNode& call) {
    const PyNode& callee = *call.items[0];
    if (callee.kind != PyKind::Attribute) {
      if (callee.kind == PyKind::Name)
        return Unexpected(error(callee, "trace.unknown-name",
                                fmt::format("unknown function '{}'; trace scripts call schedule primitives as "
                                            "{}.<primitive>(...)",
                                            callee.text, m_schName)));
      return Unexpected(error(callee, "trace.unsupported", "only schedule primitives can be called"));
    }
    const PyNode& object = *callee.items[0];
    if (object.kind != PyKind::Name || object.text != m_schName) {
      if (object.kind == PyKind::Name && !m_env.contains(object.text))
        return Unexpected(error(object, "trace.unknown-name", fmt::format("unknown name '{}'", object.text)));
      return Unexpected(error(callee, "trace.unsupported",
                              fmt::format("only methods of the schedule '{}' can be called", m_schName)));
    }
    // TVM >= 0.21 spells get_block `get_sblock` (its blocks became s_tir SBlocks).
    const std::string_view method = callee.text == "get_sblock" ? std::string_view("get_block") : callee.text;
    const InstructionKind* kind = findInstructionKind(method);
    if (!kind || kind->name != method) {
      const int methodColumn = callee.column + static_cast<int>(object.text.size()) + 1;
      return Unexpected(errorAt(callee.line, methodColumn, static_cast<int>(callee.text.size()),
                                "trace.unknown-primitive",
                                fmt::format("unknown schedule primitive '{}'", callee.text)));
    }

    std::vector<TraceValue> inputs;
    // Variadic kinds: positional arguments are the inputs, keywords the attributes.
    std::vector<PythonArgument> signature;
    if (kind->variadic) {
      for (std::size_t i = 0; i < kind->attrs.size(); ++i) signature.push_back({kind->attrs[i].name, false, i, {}});
    } else {
      signature = pythonSignature(*kind);
    }
    std::vector<std::optional<TraceValue>> given(signature.size());
    std::vector<std::optional<TraceValue>> attrs(kind->attrs.size());
    std::optional<TraceValue> decision;
    const std::size_t slots = signature.size();
    std::size_t positional = 0;
    auto slotName = [&](std::size_t i) { return signature[i].name; };
    auto slot = [&](std::size_t i) -> std::optional<TraceValue>& { return given[i]; };
    auto allNames = [&] {
      std::vector<std::string_view> names;
      for (std::size_t i = 0; i < slots; ++i) names.push_back(slotName(i));
      if (kind->isSampling) names.push_back("decision");
      return names;
    };

    for (const auto& arg : call.args) {
      const PyNode& at = *arg.value;
      if (arg.keyword.empty()) {
        if (at.kind == PyKind::Starred) {
          auto v = eval(*at.items[0]);
          if (!v) return Unexpected(v.error());
          const auto* list = v->get<TraceList>();
          if (!list)
            return Unexpected(error(at, "trace.bad-argument",
                                    fmt::format("{}: '*' needs a list, got {}", kind->name, typeName(*v))));
          for (const auto& item : *list) {
            if (kind->variadic) {
              inputs.push_back(item);
            } else {
              if (positional >= slots)
                return Unexpected(error(at, "trace.too-many-arguments", tooMany(*kind, slots, call)));
              slot(positional++) = item;
            }
          }
          continue;
        }
        auto v = eval(at);
        if (!v) return Unexpected(v.error());
        if (kind->variadic) {
          if (v->get<TraceList>())
            return Unexpected(error(at, "trace.bad-argument",
                                    fmt::format("{} takes its {} as separate arguments, got a list (write "
                                                "*{} to pass a list)",
                                                kind->name, kind->inputNames.empty() ? "inputs" : kind->inputNames[0],
                                                at.kind == PyKind::Name ? at.text : "list")));
          inputs.push_back(std::move(*v));
          continue;
        }
        if (positional >= slots) return Unexpected(error(at, "trace.too-many-arguments", tooMany(*kind, slots, call)));
        slot(positional++) = std::move(*v);
        continue;
      }
      // Keyword argument.
      const int kwLength = static_cast<int>(arg.keyword.size());
      std::optional<TraceValue>* target = nullptr;
      if (kind->isSampling && arg.keyword == "decision") target = &decision;
      for (std::size_t i = 0; i < slots && !target; ++i)
        if (slotName(i) == arg.keyword) target = &slot(i);
      if (!target) {
        const auto names = allNames();
        return Unexpected(errorAt(arg.line, arg.column, kwLength, "trace.unknown-argument",
                                  fmt::format("{} has no argument '{}' ({})", kind->name, arg.keyword,
                                              names.empty() ? std::string("it takes no keyword arguments")
                                                            : fmt::format("arguments: {}", fmt::join(names, ", ")))));
      }
      if (target->has_value())
        return Unexpected(errorAt(arg.line, arg.column, kwLength, "trace.duplicate-argument",
                                  fmt::format("{}: argument '{}' given twice", kind->name, arg.keyword)));
      auto v = eval(at);
      if (!v) return Unexpected(v.error());
      *target = std::move(*v);
    }

    if (!kind->variadic) inputs.resize(kind->inputNames.size());
    for (std::size_t i = 0; i < slots; ++i) {
      const PythonArgument& a = signature[i];
      if (!a.isInput) {
        attrs[a.index] = std::move(given[i]);
        continue;
      }
      if (!given[i] && !a.inputDefault)
        return Unexpected(error(call, "trace.missing-argument",
                                fmt::format("{}: missing argument '{}'", kind->name, a.name)));
      inputs[a.index] = given[i] ? std::move(*given[i]) : *a.inputDefault;
    }
    std::vector<TraceValue> attrValues;
    for (std::size_t i = 0; i < attrs.size(); ++i)
      attrValues.push_back(attrs[i] ? std::move(*attrs[i]) : kind->attrs[i].defaultValue);
    if (decision && decision->isNone()) decision.reset();

    if (!m_sch) return Unexpected(error(call, "trace.unsupported", "no schedule to apply primitives to"));
    // TVM takes a block's name wherever it takes a block (`sch.get_loops("C")`): the name
    // becomes a get_block instruction of its own before the call.
    for (std::size_t i = 0; i < inputs.size() && !kind->variadic && kind->name != "get_block"; ++i)
      if (const auto* name = inputs[i].get<std::string>();
          name && (i >= kind->inputSpecs.size() || kind->inputSpecs[i].kind == ParamKind::Selection)) {
        auto block = m_sch->apply("get_block", {}, {TraceValue(*name), TraceValue(m_sch->func().name)});
        if (!block) {
          Diagnostic d = block.error();
          d.location = SourceLocation{m_file, call.line, call.column, call.length};
          return Unexpected(std::move(d));
        }
        inputs[i] = block->front();
      }
    auto outputs = m_sch->apply(*kind, std::move(inputs), std::move(attrValues), std::move(decision));
    if (!outputs) {
      Diagnostic d = outputs.error();
      d.location = SourceLocation{m_file, call.line, call.column, call.length};
      return Unexpected(std::move(d));
    }
    return CallResult{kind, std::move(*outputs)};
  }

  static std::string tooMany(const InstructionKind& kind, std::size_t slots, const PyNode& call) {
    std::vector<std::string_view> names;
    for (const auto& a : pythonSignature(kind)) names.push_back(a.name);
    std::size_t given = 0;
    for (const auto& arg : call.args) given += arg.keyword.empty() ? 1 : 0;
    return fmt::format("{} takes at most {} positional {} ({}), got {}", kind.name, slots,
                       slots == 1 ? "argument" : "arguments", fmt::join(names, ", "), given);
  }

  Expected<TraceValue> eval(const PyNode& n) {
    switch (n.kind) {
    case PyKind::None: return TraceValue();
    case PyKind::True: return TraceValue(true);
    case PyKind::False: return TraceValue(false);
    case PyKind::Int: return TraceValue(n.intValue);
    case PyKind::Float: return TraceValue(n.floatValue);
    case PyKind::String: return TraceValue(n.text);
    case PyKind::Name: {
      auto it = m_env.find(n.text);
      if (it != m_env.end()) return it->second;
      if (n.text == m_schName)
        return Unexpected(error(n, "trace.unsupported",
                                fmt::format("the schedule '{}' can only be used to call primitives", m_schName)));
      return Unexpected(error(n, "trace.unknown-name", fmt::format("unknown name '{}'", n.text)));
    }
    case PyKind::List:
    case PyKind::Tuple: {
      TraceList list;
      for (const auto& item : n.items) {
        auto v = eval(*item);
        if (!v) return v;
        list.push_back(std::move(*v));
      }
      return TraceValue(std::move(list));
    }
    case PyKind::Subscript: {
      auto object = eval(*n.items[0]);
      if (!object) return object;
      auto index = eval(*n.items[1]);
      if (!index) return index;
      const auto* list = object->get<TraceList>();
      if (!list)
        return Unexpected(error(*n.items[0], "trace.bad-subscript",
                                fmt::format("cannot subscript {}", typeName(*object))));
      const auto* i = index->get<std::int64_t>();
      if (!i)
        return Unexpected(error(*n.items[1], "trace.bad-subscript",
                                fmt::format("list indices must be integers, got {}", typeName(*index))));
      const auto size = static_cast<std::int64_t>(list->size());
      const std::int64_t k = *i < 0 ? *i + size : *i;
      if (k < 0 || k >= size)
        return Unexpected(error(*n.items[1], "trace.bad-subscript",
                                fmt::format("index {} is out of range for a list of {}", *i,
                                            plural(list->size(), "value", "values"))));
      return (*list)[k];
    }
    case PyKind::Neg: {
      auto v = eval(*n.items[0]);
      if (!v) return v;
      if (const auto* i = v->get<std::int64_t>()) return TraceValue(-*i);
      if (const auto* d = v->get<double>()) return TraceValue(-*d);
      return Unexpected(error(n, "trace.bad-operand", fmt::format("cannot negate {}", typeName(*v))));
    }
    case PyKind::BinOp: return binary(n);
    case PyKind::Lambda: {
      auto map = lambda(n);
      if (!map) return Unexpected(map.error());
      return TraceValue(std::move(*map));
    }
    case PyKind::Call: {
      auto r = applyCall(n);
      if (!r) return Unexpected(r.error());
      return callValue(*r);
    }
    case PyKind::Attribute:
      return Unexpected(error(n, "trace.unsupported",
                              fmt::format("attribute access '.{}' is only supported to call schedule primitives",
                                          n.text)));
    case PyKind::Starred:
      return Unexpected(error(n, "trace.unsupported", "'*' is only supported in call arguments"));
    }
    return Unexpected(error(n, "trace.unsupported", "unsupported expression"));
  }

  Expected<TraceValue> binary(const PyNode& n) {
    auto a = eval(*n.items[0]);
    if (!a) return a;
    auto b = eval(*n.items[1]);
    if (!b) return b;
    const std::string& op = n.text;
    const auto* ia = a->get<std::int64_t>();
    const auto* ib = b->get<std::int64_t>();
    if (ia && ib && op != "/") {
      if ((op == "//" || op == "%") && *ib == 0)
        return Unexpected(error(n, "trace.division-by-zero", "integer division or modulo by zero"));
      if (op == "+") return TraceValue(*ia + *ib);
      if (op == "-") return TraceValue(*ia - *ib);
      if (op == "*") return TraceValue(*ia * *ib);
      if (op == "//") return TraceValue(floorDiv(*ia, *ib));
      return TraceValue(*ia - floorDiv(*ia, *ib) * *ib);
    }
    auto asDouble = [](const TraceValue& v) -> std::optional<double> {
      if (const auto* i = v.get<std::int64_t>()) return static_cast<double>(*i);
      if (const auto* d = v.get<double>()) return *d;
      return std::nullopt;
    };
    auto da = asDouble(*a);
    auto db = asDouble(*b);
    if (!da || !db || op == "//" || op == "%")
      return Unexpected(error(n, "trace.bad-operand",
                              fmt::format("unsupported operand types for {}: {} and {}", op, typeName(*a),
                                          typeName(*b))));
    if (op == "/" && *db == 0) return Unexpected(error(n, "trace.division-by-zero", "division by zero"));
    if (op == "+") return TraceValue(*da + *db);
    if (op == "-") return TraceValue(*da - *db);
    if (op == "*") return TraceValue(*da * *db);
    return TraceValue(*da / *db);
  }

  Expected<IndexMap> lambda(const PyNode& n) {
    IndexMap map;
    std::map<std::string, ir::Expr> params;
    for (const auto& p : n.params) {
      if (params.contains(p))
        return Unexpected(error(n, "trace.bad-index-map", fmt::format("duplicate lambda parameter '{}'", p)));
      map.params.push_back(ir::Var::make(p, ir::DataType::int32()));
      params[p] = map.params.back();
    }
    const PyNode& body = *n.items[0];
    std::vector<PyPtr> results;
    if (body.kind == PyKind::Tuple || body.kind == PyKind::List)
      results = body.items;
    else
      results.push_back(n.items[0]);
    for (const auto& r : results) {
      auto e = indexExpr(*r, params);
      if (!e) return Unexpected(e.error());
      map.results.push_back(std::move(*e));
    }
    return map;
  }

  Expected<ir::Expr> indexExpr(const PyNode& n, const std::map<std::string, ir::Expr>& params) {
    switch (n.kind) {
    case PyKind::Int:
      if (n.intValue > INT32_MAX)
        return Unexpected(error(n, "trace.bad-index-map", fmt::format("{} does not fit in int32", n.intValue)));
      return ir::intImm(n.intValue);
    case PyKind::Name: {
      if (auto it = params.find(n.text); it != params.end()) return it->second;
      if (auto it = m_env.find(n.text); it != m_env.end())
        if (const auto* i = it->second.get<std::int64_t>()) return ir::intImm(*i);
      std::vector<std::string> names;
      for (const auto& [name, _] : params) names.push_back(name);
      return Unexpected(error(n, "trace.unknown-name",
                              fmt::format("unknown name '{}' in the index map (its parameters are: {})", n.text,
                                          fmt::join(names, ", "))));
    }
    case PyKind::Neg: {
      if (n.items[0]->kind == PyKind::Int) return ir::intImm(-n.items[0]->intValue);
      auto v = indexExpr(*n.items[0], params);
      if (!v) return v;
      return ir::intImm(0) - *v;
    }
    case PyKind::BinOp: {
      auto a = indexExpr(*n.items[0], params);
      if (!a) return a;
      auto b = indexExpr(*n.items[1], params);
      if (!b) return b;
      if (n.text == "+") return *a + *b;
      if (n.text == "-") return *a - *b;
      if (n.text == "*") return *a * *b;
      if (n.text == "//") return ir::floordiv(*a, *b);
      if (n.text == "%") return ir::floormod(*a, *b);
      return Unexpected(error(n, "trace.bad-index-map",
                              fmt::format("operator '{}' is not supported in index maps (use // for integer "
                                          "division)",
                                          n.text)));
    }
    default:
      return Unexpected(error(n, "trace.bad-index-map",
                              "index map results are integer expressions of the lambda parameters (+ - * // % and "
                              "integer constants)"));
    }
  }

  Schedule* m_sch;
  const std::string& m_file;
  std::string m_schName;
  std::map<std::string, TraceValue> m_env;
};

} // namespace

Expected<void> applyScript(Schedule& sch, std::string_view text, const std::string& fileName) {
  auto script = parsePyScript(text, fileName);
  if (!script) return Unexpected(script.error());
  return Interpreter(&sch, fileName, script->scheduleName).run(script->statements);
}

Expected<Trace> traceFromPython(const ir::PrimFunc& original, std::string_view text, const std::string& fileName) {
  Schedule sch(original);
  if (auto ok = applyScript(sch, text, fileName); !ok) return Unexpected(ok.error());
  return sch.trace();
}

Expected<IndexMap> parseIndexMap(std::string_view text, const std::string& fileName) {
  auto e = parsePyExpression(text, fileName);
  if (!e) return Unexpected(e.error());
  return Interpreter(nullptr, fileName, "sch").indexMap(**e);
}

} // namespace loopscape::schedule
