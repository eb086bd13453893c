// The trace script's reading of the shared Python syntax (core/syntax): what
// trace_script.cpp interprets (internal to core/schedule; the public entry points are in
// trace_script.h).
//
// The language is what TVM's Trace.as_python() prints and what people write by hand in
// TVM's tir.Schedule syntax: `import`/`from` lines (ignored), one optional
// `def apply_trace(sch: tir.Schedule) -> None:` wrapper whose indented body is the
// script, assignments (`a = e`, `a, b = e`, `a, = e`, `(a, b) = e`, `[a, b] = e`),
// expression statements, and expressions made of names, ints, floats, strings (single,
// double or triple quotes, adjacent literals concatenated), None/True/False, lists,
// tuples, subscripts, attribute access, calls with positional, keyword and `*starred`
// arguments, unary minus and + - * / // %, and `lambda i, j: ...`. Comments and blank
// lines are skipped; brackets join lines as in Python. The shared parser reads the whole
// Python subset; everything else it accepts is refused here with code "trace.syntax".
#pragma once

#include "core/ir/diagnostic.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::schedule::detail {

enum class PyKind : std::uint8_t {
  Name, Int, Float, String, None, True, False, List, Tuple, Subscript, Attribute, Call, Lambda, BinOp, Neg, Starred
};

struct PyNode;
using PyPtr = std::shared_ptr<const PyNode>;

struct PyArg {
  std::string keyword; ///< empty for positional arguments
  int line = 0, column = 0;
  PyPtr value;
};

struct PyNode {
  PyKind kind = PyKind::None;
  int line = 0, column = 0;
  int length = 1;             ///< columns covered on `line` (the whole node when it fits)
  std::string text;           ///< Name / Attribute: the name; String: the value; BinOp: the operator
  std::int64_t intValue = 0;
  double floatValue = 0;
  std::vector<PyPtr> items;   ///< List/Tuple elements; Subscript [object, index]; BinOp [lhs, rhs];
                              ///< Neg/Starred [operand]; Attribute [object]; Call [callee]; Lambda [body]
  std::vector<std::string> params; ///< Lambda parameters
  std::vector<PyArg> args;    ///< Call arguments
};

struct PyTarget {
  std::string name;
  int line = 0, column = 0;
};

struct PyStmt {
  int line = 0, column = 0;
  std::vector<PyTarget> targets; ///< empty: an expression statement
  bool tupleTarget = false;      ///< `a, = ...` / `(a, b) = ...`: unpack
  PyPtr value;
};

struct PyScript {
  std::vector<PyStmt> statements;
  std::string scheduleName = "sch"; ///< the parameter of the def wrapper, if any
};

/// Parses a whole script. Syntax errors have code "trace.syntax" and a location in `fileName`.
Expected<PyScript> parsePyScript(std::string_view text, const std::string& fileName);
/// Parses one expression (the whole text), e.g. an index-map lambda.
Expected<PyPtr> parsePyExpression(std::string_view text, const std::string& fileName);

} // namespace loopscape::schedule::detail
