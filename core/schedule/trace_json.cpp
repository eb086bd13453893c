#include "core/schedule/trace_json.h"

#include "core/ir/printer.h"
#include "core/ir/resource_limits.h"
#include "core/schedule/instruction.h"
#include "core/schedule/trace_python.h"
#include "core/schedule/trace_script.h"
#include "core/schedule/trace_script_syntax.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

namespace loopscape::schedule {

namespace {

using Json = nlohmann::json;

/// A JSON string literal; bytes that are not UTF-8 become U+FFFD instead of throwing.
std::string jsonString(const std::string& s) { return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace); }

/// Values inside `inputs` quote string literals ("\"shared\"") so that they differ from
/// RV names; attributes and decisions keep plain strings.
std::string jsonValue(const TraceValue& v, bool input) {
  struct Writer {
    bool input;
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return std::isfinite(d) ? pythonValue(TraceValue(d)) : "null"; }
    std::string operator()(const std::string& s) const { return jsonString(input ? ir::quoteString(s) : s); }
    std::string operator()(const RV& rv) const { return jsonString(rvName(rv)); }
    std::string operator()(const TraceList& list) const {
      std::vector<std::string> items;
      for (const auto& item : list) items.push_back(jsonValue(item, input));
      return fmt::format("[{}]", fmt::join(items, ", "));
    }
    std::string operator()(const IndexMap& map) const {
      return fmt::format("{{\"index_map\": {}}}", jsonString(indexMapToPython(map)));
    }
  };
  return std::visit(Writer{input}, v.value);
}

std::string joined(const std::vector<TraceValue>& values, bool input) {
  std::vector<std::string> items;
  for (const auto& v : values) items.push_back(jsonValue(v, input));
  return fmt::format("[{}]", fmt::join(items, ", "));
}

/// Line and column (1-based) of byte offset `offset`.
std::pair<int, int> lineColumn(std::string_view text, std::size_t offset) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

/// Byte offsets where the elements of the instruction list (the first element of the
/// top-level array) start, for error locations. A light scan that skips strings.
std::vector<std::size_t> instructionOffsets(std::string_view text) {
  std::vector<std::size_t> out;
  int depth = 0;
  int topIndex = 0;      // index of the current element of the top-level array
  bool expectValue = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      if (depth == 2 && topIndex == 0 && expectValue) {
        out.push_back(i);
        expectValue = false;
      }
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    if (depth == 2 && topIndex == 0 && expectValue && c != ']' && c != ',') {
      out.push_back(i);
      expectValue = false;
    }
    if (c == '[' || c == '{') {
      ++depth;
      if (depth == 2 && topIndex == 0) expectValue = true;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',') {
      if (depth == 1) ++topIndex;
      if (depth == 2 && topIndex == 0) expectValue = true;
    }
  }
  return out;
}

/// What nlohmann would refuse by throwing something other than a located parse_error, or
/// would take too deep a recursion to walk: the first array or object nested deeper than
/// the nesting limit, or a number too large for a double ("1e400"). A scan of the tokens
/// outside strings; the text need not be valid JSON.
std::optional<Diagnostic> checkLimits(std::string_view text, const std::string& file) {
  const int limit = ir::resourceLimits().maxNestingDepth;
  auto at = [&](std::size_t offset, std::size_t length) {
    const auto [line, column] = lineColumn(text, offset);
    return SourceLocation{file, line, column, static_cast<int>(std::min<std::size_t>(length, 80))};
  };
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > limit)
        return Diagnostic::error("trace.json-too-deep",
                                 fmt::format("arrays and objects nested more than {} levels deep; a trace needs a "
                                             "handful of levels",
                                             limit),
                                 at(i, 1));
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t end = i + 1;
      while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
                                   text[end] == 'e' || text[end] == 'E' || text[end] == '+' || text[end] == '-'))
        ++end;
      const std::string token(text.substr(i, end - i));
      char* stop = nullptr;
      const double value = std::strtod(token.c_str(), &stop);
      if (stop == token.c_str() + token.size() && !std::isfinite(value))
        return Diagnostic::error(
            "trace.json-number",
            fmt::format("number {} is out of range: trace numbers are 64-bit integers or doubles (at most about "
                        "1.8e308 in magnitude)",
                        token.size() > 40 ? token.substr(0, 40) + "..." : token),
            at(i, token.size()));
      i = end - 1;
    }
  }
  return std::nullopt;
}

class JsonReader {
public:
  JsonReader(std::string_view text, const std::string& file) : m_text(text), m_file(file) {}

  /// Nothing nlohmann throws leaves this function.
  Expected<Trace> read() {
    try {
      return readDocument();
    } catch (const Json::exception& e) {
      return Unexpected(Diagnostic::error("trace.json-malformed",
                                          fmt::format("cannot read the JSON trace: {}", e.what()),
                                          SourceLocation{m_file, 0, 0, 1}));
    }
  }

  /// The location of instruction `index` (the file only when unknown).
  SourceLocation location(int index) const {
    if (index < 0 || index >= static_cast<int>(m_offsets.size())) return SourceLocation{m_file, 0, 0, 1};
    const auto [line, column] = lineColumn(m_text, m_offsets[index]);
    return SourceLocation{m_file, line, column, 1};
  }

private:
  Expected<Trace> readDocument() {
    if (auto limit = checkLimits(m_text, m_file)) return Unexpected(std::move(*limit));
    Json doc;
    try {
      doc = Json::parse(m_text.begin(), m_text.end());
    } catch (const Json::parse_error& e) {
      std::string what = e.what();
      if (auto pos = what.find(": ", what.find("parse error")); pos != std::string::npos) what = what.substr(pos + 2);
      const auto [line, column] = lineColumn(m_text, e.byte > 0 ? e.byte - 1 : 0);
      return Unexpected(Diagnostic::error("trace.json-syntax", fmt::format("invalid JSON: {}", what),
                                          SourceLocation{m_file, line, column, 1}));
    }
    m_offsets = instructionOffsets(m_text);
    if (!doc.is_array() || doc.size() != 2 || !doc[0].is_array() || !doc[1].is_array())
      return Unexpected(malformed(-1, "a trace is [instructions, decisions]: an array of two arrays"));

    Trace trace;
    for (std::size_t i = 0; i < doc[0].size(); ++i) {
      auto inst = instruction(static_cast<int>(i), doc[0][i]);
      if (!inst) return Unexpected(inst.error());
      trace.instructions.push_back(std::move(*inst));
    }
    for (std::size_t i = 0; i < doc[1].size(); ++i) {
      const Json& d = doc[1][i];
      if (!d.is_array() || d.size() != 2 || !d[0].is_number_integer())
        return Unexpected(malformed(-1, fmt::format("decision {}: expected [instruction index, value]", i)));
      const auto index = d[0].get<std::int64_t>();
      if (index < 0 || index >= static_cast<std::int64_t>(trace.instructions.size()))
        return Unexpected(malformed(-1, fmt::format("decision {}: there is no instruction {}", i, index)));
      auto& inst = trace.instructions[index];
      if (!inst.kind->isSampling)
        return Unexpected(malformed(static_cast<int>(index),
                                    fmt::format("decision {}: instruction {} ({}) is not a sampling instruction", i,
                                                index, inst.kind->jsonName)));
      auto value = convert(static_cast<int>(index), d[1], false);
      if (!value) return Unexpected(value.error());
      inst.decision = std::move(*value);
    }
    trace.rvCount = m_maxId + 1;
    return trace;
  }

  Diagnostic malformed(int index, std::string message, std::string code = "trace.json-malformed") const {
    return Diagnostic::error(std::move(code), std::move(message), location(index));
  }

  Expected<Instruction> instruction(int index, const Json& j) {
    if (!j.is_array() || j.size() != 4 || !j[0].is_string() || !j[1].is_array() || !j[2].is_array() ||
        !j[3].is_array())
      return Unexpected(malformed(index, fmt::format("instruction {}: expected [kind, [inputs], [attrs], [outputs]]",
                                                     index)));
    const std::string kindName = j[0].get<std::string>();
    const InstructionKind* kind = findInstructionKind(kindName);
    if (!kind || kind->jsonName != kindName)
      return Unexpected(malformed(index, fmt::format("instruction {}: unknown instruction kind '{}'", index, kindName),
                                  "trace.unknown-kind"));
    m_current = kind;
    Instruction inst;
    inst.kind = kind;
    for (const auto& in : j[1]) {
      auto v = convert(index, in, true);
      if (!v) return Unexpected(v.error());
      inst.inputs.push_back(std::move(*v));
    }
    if (j[2].size() > kind->attrs.size())
      return Unexpected(malformed(index, fmt::format("instruction {} ({}): {} attributes, but {} takes {}", index,
                                                     kindName, j[2].size(), kindName, kind->attrs.size())));
    for (const auto& a : j[2]) {
      auto v = convert(index, a, false);
      if (!v) return Unexpected(v.error());
      inst.attrs.push_back(std::move(*v));
    }
    for (std::size_t k = inst.attrs.size(); k < kind->attrs.size(); ++k) inst.attrs.push_back(kind->attrs[k].defaultValue);
    if (!kind->outputsVariadic && j[3].size() != kind->outputs.size())
      return Unexpected(malformed(index, fmt::format("instruction {} ({}): {} outputs, but {} defines {}", index,
                                                     kindName, j[3].size(), kindName, kind->outputs.size())));
    for (std::size_t k = 0; k < j[3].size(); ++k) {
      const RVKind expected = kind->outputsVariadic ? kind->outputs.at(0) : kind->outputs[k];
      auto rv = j[3][k].is_string() ? parseRV(j[3][k].get<std::string>()) : std::nullopt;
      if (!rv || rv->kind != expected)
        return Unexpected(malformed(index, fmt::format("instruction {} ({}): output {} must be the name of a {} RV "
                                                       "('{}' followed by its number)",
                                                       index, kindName, j[3][k].dump(),
                                                       expected == RVKind::Block  ? "block"
                                                       : expected == RVKind::Loop ? "loop"
                                                                                  : "sampled integer",
                                                       expected == RVKind::Block  ? 'b'
                                                       : expected == RVKind::Loop ? 'l'
                                                                                  : 'v')));
      if (m_defined.contains(rv->id))
        return Unexpected(malformed(index, fmt::format("instruction {} ({}): RV id {} is defined twice", index,
                                                       kindName, rv->id)));
      m_defined[rv->id] = rv->kind;
      m_maxId = std::max(m_maxId, rv->id);
      inst.outputs.push_back(*rv);
    }
    return inst;
  }

  static std::optional<RV> parseRV(const std::string& s) {
    if (s.size() < 2 || s.size() > 10) return std::nullopt;
    RV rv;
    switch (s[0]) {
    case 'b': rv.kind = RVKind::Block; break;
    case 'l': rv.kind = RVKind::Loop; break;
    case 'v': rv.kind = RVKind::Expr; break;
    default: return std::nullopt;
    }
    int id = 0;
    for (std::size_t i = 1; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      id = id * 10 + (s[i] - '0');
    }
    if (s.size() > 2 && s[1] == '0') return std::nullopt;
    rv.id = id;
    return rv;
  }

  Expected<TraceValue> convert(int index, const Json& j, bool input) {
    const std::string where = fmt::format("instruction {} ({})", index, m_current ? m_current->jsonName : "?");
    switch (j.type()) {
    case Json::value_t::null: return TraceValue();
    case Json::value_t::boolean: return TraceValue(j.get<bool>());
    case Json::value_t::number_integer: return TraceValue(j.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      if (j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
        return Unexpected(malformed(index, fmt::format("{}: integer {} does not fit in 64 bits", where, j.dump())));
      return TraceValue(static_cast<std::int64_t>(j.get<std::uint64_t>()));
    case Json::value_t::number_float: return TraceValue(j.get<double>());
    case Json::value_t::string: {
      const std::string s = j.get<std::string>();
      if (!input) return TraceValue(s);
      if (!s.empty() && (s[0] == '"' || s[0] == '\'')) {
        auto lit = detail::parsePyExpression(s, m_file);
        if (!lit || (*lit)->kind != detail::PyKind::String)
          return Unexpected(malformed(index, fmt::format("{}: bad string literal {}", where, j.dump())));
        return TraceValue((*lit)->text);
      }
      auto rv = parseRV(s);
      if (!rv)
        return Unexpected(malformed(index, fmt::format("{}: input {} is neither an RV name (b0, l1, v2) nor a quoted "
                                                       "string literal",
                                                       where, j.dump())));
      auto it = m_defined.find(rv->id);
      if (it == m_defined.end() || it->second != rv->kind)
        return Unexpected(malformed(index, fmt::format("{}: '{}' is not defined by an earlier instruction", where, s),
                                    "trace.undefined-rv"));
      return TraceValue(*rv);
    }
    case Json::value_t::array: {
      TraceList list;
      for (const auto& item : j) {
        auto v = convert(index, item, input);
        if (!v) return v;
        list.push_back(std::move(*v));
      }
      return TraceValue(std::move(list));
    }
    case Json::value_t::object: {
      if (j.size() == 1 && j.contains("index_map") && j["index_map"].is_string()) {
        auto map = parseIndexMap(j["index_map"].get<std::string>(), m_file);
        if (!map)
          return Unexpected(malformed(index, fmt::format("{}: bad index map: {}", where, map.error().message)));
        return TraceValue(std::move(*map));
      }
      return Unexpected(malformed(index, fmt::format("{}: the only object value is {{\"index_map\": \"lambda ...\"}}",
                                                     where)));
    }
    default: break;
    }
    return Unexpected(malformed(index, fmt::format("{}: unsupported value {}", where, j.dump())));
  }

  std::string_view m_text;
  const std::string& m_file;
  std::vector<std::size_t> m_offsets;
  std::map<int, RVKind> m_defined;
  int m_maxId = -1;
  const InstructionKind* m_current = nullptr;
};

} // namespace

std::string traceToJson(const Trace& trace) {
  std::string out = "[\n  [";
  for (std::size_t i = 0; i < trace.instructions.size(); ++i) {
    const auto& inst = trace.instructions[i];
    std::vector<std::string> outputs;
    for (const auto& rv : inst.outputs) outputs.push_back(jsonString(rvName(rv)));
    out += fmt::format("{}\n    [{}, {}, {}, [{}]]", i ? "," : "", jsonString(std::string(inst.kind->jsonName)),
                       joined(inst.inputs, true), joined(inst.attrs, false), fmt::join(outputs, ", "));
  }
  out += trace.instructions.empty() ? "],\n  [" : "\n  ],\n  [";
  bool first = true;
  for (std::size_t i = 0; i < trace.instructions.size(); ++i) {
    const auto& inst = trace.instructions[i];
    if (!inst.decision) continue;
    out += fmt::format("{}\n    [{}, {}]", first ? "" : ",", i, jsonValue(*inst.decision, false));
    first = false;
  }
  out += first ? "]\n]\n" : "\n  ]\n]\n";
  return out;
}

Expected<Trace> traceFromJson(std::string_view text, const std::string& fileName) {
  return JsonReader(text, fileName).read();
}

Expected<void> applyJsonTrace(Schedule& sch, std::string_view text, const std::string& fileName) {
  JsonReader reader(text, fileName);
  auto trace = reader.read();
  if (!trace) return Unexpected(trace.error());
  std::map<int, RV> map; // RV id in the file -> RV of `sch`
  auto remap = [&](auto&& self, const TraceValue& v) -> TraceValue {
    if (const RV* rv = v.get<RV>()) return map.at(rv->id);
    if (const auto* list = v.get<TraceList>()) {
      TraceList out;
      for (const auto& item : *list) out.push_back(self(self, item));
      return out;
    }
    return v;
  };
  for (std::size_t i = 0; i < trace->instructions.size(); ++i) {
    const auto& inst = trace->instructions[i];
    std::vector<TraceValue> inputs;
    for (const auto& in : inst.inputs) inputs.push_back(remap(remap, in));
    auto outs = sch.apply(*inst.kind, std::move(inputs), inst.attrs, inst.decision);
    if (!outs) {
      Diagnostic d = outs.error();
      d.location = reader.location(static_cast<int>(i));
      return Unexpected(std::move(d));
    }
    if (outs->size() != inst.outputs.size()) {
      return Unexpected(Diagnostic::error(
          "trace.output-count",
          fmt::format("instruction {} ({}) defined {} RVs here, but the trace records {}", i, inst.kind->jsonName,
                      outs->size(), inst.outputs.size()),
          reader.location(static_cast<int>(i))));
    }
    for (std::size_t k = 0; k < outs->size(); ++k) map[inst.outputs[k].id] = (*outs)[k];
  }
  return {};
}

} // namespace loopscape::schedule
