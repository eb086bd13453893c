// Trace: the list of instructions a schedule applied, with the decisions of its sampling
// instructions. It is the one record of a schedule: it replays on a fresh copy of the
// original program, serialises to JSON (the canonical file format), prints as a Python
// script in TVM's tir.Schedule syntax, and is what undo/redo, sessions and tuning records
// are made of.
//
// Random variables (RVs) are the handles instructions pass around: a block (b), a loop
// (l) or a sampled integer (v). In a trace they are numbered by creation order, printed
// as b0, l1, v2 as TVM does.
#pragma once

#include "core/ir/expr.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace loopscape::schedule {

enum class RVKind : std::uint8_t { Block, Loop, Expr };

/// A random variable of a trace, numbered in creation order.
struct RV {
  RVKind kind = RVKind::Block;
  int id = -1;
  friend bool operator==(const RV&, const RV&) = default;
};

/// `lambda i, j: (i // 16, j, i % 16)` for transform_layout: the parameters are Vars,
/// the results integer expressions over them.
struct IndexMap {
  std::vector<ir::Expr> params;
  std::vector<ir::Expr> results;
};

struct TraceValue;
using TraceList = std::vector<TraceValue>;

/// An instruction argument, attribute or decision: None, bool, int, float, string, an
/// RV, a list, or an index-map lambda.
struct TraceValue {
  std::variant<std::monostate, bool, std::int64_t, double, std::string, RV, TraceList, IndexMap> value;

  TraceValue() = default;
  TraceValue(std::nullptr_t) {}
  TraceValue(bool v) : value(v) {}
  TraceValue(int v) : value(static_cast<std::int64_t>(v)) {}
  TraceValue(std::int64_t v) : value(v) {}
  TraceValue(double v) : value(v) {}
  TraceValue(std::string v) : value(std::move(v)) {}
  TraceValue(const char* v) : value(std::string(v)) {}
  TraceValue(RV v) : value(v) {}
  TraceValue(TraceList v) : value(std::move(v)) {}
  TraceValue(IndexMap v) : value(std::move(v)) {}

  bool isNone() const { return std::holds_alternative<std::monostate>(value); }
  template <typename T> const T* get() const { return std::get_if<T>(&value); }
};

struct InstructionKind;

struct Instruction {
  const InstructionKind* kind = nullptr;
  std::vector<TraceValue> inputs;  ///< RVs and literal arguments, in TVM's order
  std::vector<TraceValue> attrs;   ///< keyword attributes, in the kind's attribute order
  std::vector<RV> outputs;         ///< RVs the instruction defines
  std::optional<TraceValue> decision; ///< sampling instructions only
};

struct Trace {
  std::vector<Instruction> instructions;
  /// Number of RVs defined so far (the next RV id).
  int rvCount = 0;
};

} // namespace loopscape::schedule
