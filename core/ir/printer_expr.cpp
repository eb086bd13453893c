// Expression half of the TVMScript printer: names, literals and operator precedence.
// Parenthesisation follows TVM's Python doc printer: a child gets parentheses when its
// precedence is lower than its parent's, and a right operand also when it is equal
// (`a - (b - c)`, `a // b * c`). One deliberate addition: a comparison operand of a
// comparison is parenthesised, since Python would read `a < b == c` as a chain.

#include "core/ir/printer.h"

#include "core/ir/functor.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace loopscape::ir {

// ---------------------------------------------------------------------------------------
// Literals

namespace {

/// A finite float as TVM 0.25-0.27 print the double a literal holds: an integral value in
/// all its digits with ".0" (`T.float32(-340282346638528859811704183484516925440.0)`),
/// any other with 17 significant digits (`T.float32(1.0000000000000001e-05)`). TVM keeps
/// the literal's double; Loopscape keeps it rounded to the literal's type, so a fraction
/// is taken back to the double of its shortest digits in that type (the digits the user
/// wrote, in the usual case) before it is printed.
std::string tirxFloatLiteral(double value, int bits) {
  if (value == std::floor(value)) return fmt::format("{:.1f}", value);
  const double written = std::strtod(formatFloatLiteral(value, bits).c_str(), nullptr);
  return fmt::format("{:.17g}", written);
}

} // namespace

std::string formatFloatLiteral(double value, int bits) {
  char buf[64];
  // The shortest digits that round-trip in the literal's own precision: a float32 1e-05
  // prints as 1e-05, not as the double expansion of the stored float.
  auto res = bits <= 32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(value), std::chars_format::scientific)
                        : std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  LS_ASSERT(res.ec == std::errc(), "float formatting failed");
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  // sci is [-]d[.ddd]e(+|-)XX with the shortest round-trip digits.
  std::string out;
  if (sci.front() == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  auto ePos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, ePos))
    if (c != '.') digits.push_back(c);
  int exponent = std::atoi(std::string(sci.substr(ePos + 1)).c_str());
  // Python's repr: fixed notation for 1e-4 <= |v| < 1e16, scientific otherwise.
  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      std::string intPart = digits.substr(0, std::min<std::size_t>(digits.size(), exponent + 1));
      while (intPart.size() < static_cast<std::size_t>(exponent + 1))
        intPart.push_back('0');
      std::string frac = digits.size() > intPart.size() ? digits.substr(exponent + 1) : std::string();
      out += intPart;
      if (!frac.empty()) out += "." + frac; // integral values drop ".0" (TVMScript's T.float32(0))
    } else {
      out += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    }
    return out;
  }
  out.push_back(digits[0]);
  if (digits.size() > 1) out += "." + digits.substr(1);
  out += exponent < 0 ? "e-" : "e+";
  int absExp = std::abs(exponent);
  if (absExp < 10) out.push_back('0');
  out += std::to_string(absExp);
  return out;
}

std::string quoteString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
    case '\\': out += "\\\\"; break;
    case '"': out += "\\\""; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
      } else {
        out.push_back(c);
      }
    }
  }
  out.push_back('"');
  return out;
}

namespace detail {

// ---------------------------------------------------------------------------------------
// Names

void NameTable::pushScope() { m_scopes.emplace_back(); }

void NameTable::popScope() {
  LS_ASSERT(m_scopes.size() > 1, "popping the outermost name scope");
  auto& scope = m_scopes.back();
  for (auto it = scope.rbegin(); it != scope.rend(); ++it) {
    if (--m_taken[it->name] == 0) m_taken.erase(it->name);
    if (it->previous.empty())
      m_names.erase(it->node);
    else
      m_names[it->node] = it->previous;
  }
  m_scopes.pop_back();
}

static std::string sanitise(std::string_view hint) {
  std::string name(hint.empty() ? std::string_view("v") : hint);
  for (char& c : name)
    if (c != '_' && !std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

std::string NameTable::define(const void* node, std::string_view hint) {
  std::string base = sanitise(hint);
  std::string name = base;
  for (int i = 1; m_taken.contains(name); ++i)
    name = base + "_" + std::to_string(i);
  auto found = m_names.find(node);
  m_scopes.back().push_back({node, name, found == m_names.end() ? std::string() : found->second});
  m_names[node] = name;
  ++m_taken[name];
  return name;
}

std::string NameTable::nameOf(const void* node, std::string_view hint) {
  if (auto it = m_names.find(node); it != m_names.end()) return it->second;
  std::string base = sanitise(hint);
  std::string name = base;
  for (int i = 1; m_taken.contains(name); ++i)
    name = base + "_" + std::to_string(i);
  m_scopes.front().push_back({node, name, {}});
  m_names[node] = name;
  ++m_taken[name];
  return name;
}

// ---------------------------------------------------------------------------------------
// Constant folding as TVM's PrimExpr operators do it: the printer uses sugar (`a + b`)
// only where parsing the sugar back would build the same node, i.e. where the operator
// would not fold.

namespace {

const IntImm* intConst(const Expr& e) { return e.as<IntImm>(); }
const FloatImm* floatConst(const Expr& e) { return e.as<FloatImm>(); }
bool isInt(const Expr& e, std::int64_t v) { return e.is<IntImm>() && e.as<IntImm>()->value == v; }
bool isFloat(const Expr& e, double v) { return e.is<FloatImm>() && e.as<FloatImm>()->value == v; }
bool isNum(const Expr& e, std::int64_t v) { return isInt(e, v) || isFloat(e, static_cast<double>(v)); }
bool bothConst(const Expr& a, const Expr& b) {
  return (intConst(a) && intConst(b)) || (floatConst(a) && floatConst(b));
}

bool wouldFold(ExprKind kind, const Expr& a, const Expr& b) {
  switch (kind) {
  case ExprKind::Add: return bothConst(a, b) || isNum(a, 0) || isNum(b, 0);
  case ExprKind::Sub: return bothConst(a, b) || isNum(b, 0);
  case ExprKind::Mul: return bothConst(a, b) || isNum(a, 0) || isNum(a, 1) || isNum(b, 0) || isNum(b, 1);
  case ExprKind::Div:
  case ExprKind::FloorDiv: return bothConst(a, b) || isNum(a, 0) || isNum(b, 1);
  case ExprKind::FloorMod: return bothConst(a, b) || isInt(a, 0) || isInt(b, 1);
  case ExprKind::EQ:
  case ExprKind::NE:
  case ExprKind::LT:
  case ExprKind::LE:
  case ExprKind::GT:
  case ExprKind::GE: return bothConst(a, b);
  case ExprKind::And:
  case ExprKind::Or: return intConst(a) || intConst(b);
  default: return false;
  }
}

// Python operator precedence, as in TVM's python_doc_printer.
enum Prec : int { kOr = 3, kAnd = 4, kNot = 5, kCompare = 6, kAdd = 11, kMult = 12, kUnary = 13, kAtom = 15 };

struct Doc {
  std::string text;
  int prec = kAtom;
};

struct BinarySugar {
  const char* op;      ///< Python operator
  const char* tirName; ///< T.<name>(a, b) when the sugar would fold
  int prec;
};

BinarySugar binarySugar(ExprKind kind) {
  switch (kind) {
  case ExprKind::Add: return {"+", "Add", kAdd};
  case ExprKind::Sub: return {"-", "Sub", kAdd};
  case ExprKind::Mul: return {"*", "Mul", kMult};
  case ExprKind::Div: return {"/", "Div", kMult};
  case ExprKind::FloorDiv: return {"//", "FloorDiv", kMult};
  case ExprKind::FloorMod: return {"%", "FloorMod", kMult};
  case ExprKind::EQ: return {"==", "EQ", kCompare};
  case ExprKind::NE: return {"!=", "NE", kCompare};
  case ExprKind::LT: return {"<", "LT", kCompare};
  case ExprKind::LE: return {"<=", "LE", kCompare};
  case ExprKind::GT: return {">", "GT", kCompare};
  case ExprKind::GE: return {">=", "GE", kCompare};
  case ExprKind::And: return {"and", "And", kAnd};
  case ExprKind::Or: return {"or", "Or", kOr};
  case ExprKind::Min: return {nullptr, "min", kAtom};
  case ExprKind::Max: return {nullptr, "max", kAtom};
  default: LS_UNREACHABLE("not a binary kind");
  }
}

class ExprPrinter final : public ExprFunctor<Doc> {
public:
  explicit ExprPrinter(NameTable& names, ScriptDialect dialect = ScriptDialect::Tir)
      : m_names(names), m_dialect(dialect) {}

  std::string str(const Expr& e) { return visitExpr(e).text; }

  std::string indices(const std::vector<Expr>& idx) {
    if (idx.empty()) return "[()]";
    std::string out = "[";
    for (std::size_t i = 0; i < idx.size(); ++i) {
      if (i) out += ", ";
      out += index(idx[i]);
    }
    return out + "]";
  }

protected:
  Doc visitIntImm(const IntImm& op, const Expr&) override {
    if (op.dtype == DataType::int32()) return {std::to_string(op.value)};
    if (op.dtype.isBool()) return {op.value ? "T.bool(True)" : "T.bool(False)"};
    return {fmt::format("T.{}({})", op.dtype.str(), op.value)};
  }
  Doc visitFloatImm(const FloatImm& op, const Expr&) override {
    std::string lit;
    if (std::isnan(op.value))
      lit = "\"nan\"";
    else if (std::isinf(op.value))
      lit = op.value < 0 ? "\"-inf\"" : "\"inf\"";
    else if (m_dialect == ScriptDialect::Tirx)
      lit = tirxFloatLiteral(op.value, op.dtype.bits());
    else
      lit = formatFloatLiteral(op.value, op.dtype.bits());
    return {fmt::format("T.{}({})", op.dtype.str(), lit)};
  }
  Doc visitStringImm(const StringImm& op, const Expr&) override { return {quoteString(op.value)}; }
  Doc visitVar(const Var& op, const Expr&) override { return {m_names.nameOf(&op, op.name)}; }

#define LS_X(name)                                                                                                     \
  Doc visit##name(const name& op, const Expr&) override { return binary(ExprKind::name, op.a, op.b); }
  LS_BINARY_KINDS(LS_X)
#undef LS_X

  Doc visitNot(const Not& op, const Expr&) override {
    Doc a = visitExpr(op.a);
    return {"not " + wrap(a, kNot, false), kNot};
  }
  Doc visitSelect(const Select& op, const Expr&) override {
    return {fmt::format("T.{}({}, {}, {})", op.lazy ? "if_then_else" : "Select", str(op.condition), str(op.trueValue),
                        str(op.falseValue))};
  }
  Doc visitCast(const Cast& op, const Expr&) override {
    return {fmt::format("T.Cast(\"{}\", {})", op.dtype.str(), str(op.value))};
  }
  Doc visitCall(const Call& op, const Expr&) override {
    std::string out = fmt::format("T.{}(", callOpName(op.op));
    for (std::size_t i = 0; i < op.args.size(); ++i) {
      if (i) out += ", ";
      out += str(op.args[i]);
    }
    return {out + ")"};
  }
  Doc visitBufferLoad(const BufferLoad& op, const Expr&) override {
    return {m_names.nameOf(op.buffer.get(), op.buffer->name) + indices(op.indices)};
  }
  Doc visitRamp(const Ramp& op, const Expr&) override {
    return {fmt::format("T.Ramp({}, {}, {})", str(op.base), str(op.stride), op.lanes)};
  }
  Doc visitBroadcast(const Broadcast& op, const Expr&) override {
    return {fmt::format("T.Broadcast({}, {})", str(op.value), op.lanes)};
  }

private:
  static std::string wrap(const Doc& d, int parent, bool parenOnEqual) {
    bool paren = d.prec < parent || (parenOnEqual && d.prec == parent);
    return paren ? "(" + d.text + ")" : d.text;
  }

  Doc binary(ExprKind kind, const Expr& a, const Expr& b) {
    BinarySugar sugar = binarySugar(kind);
    Doc da = visitExpr(a);
    Doc db = visitExpr(b);
    bool sugared = sugar.op != nullptr && !wouldFold(kind, a, b);
    // TVM prints integer division as T.Div: Python's `/` would mean true division.
    if (kind == ExprKind::Div && a.dtype().isInteger()) sugared = false;
    if (!sugared) return {fmt::format("T.{}({}, {})", sugar.tirName, da.text, db.text)};
    bool compare = sugar.prec == kCompare;
    return {wrap(da, sugar.prec, compare) + " " + sugar.op + " " + wrap(db, sugar.prec, true), sugar.prec};
  }

  // One subscript: a Ramp with a constant stride is a slice `base:base + lanes*stride`.
  std::string index(const Expr& e) {
    if (const auto* ramp = e.as<Ramp>()) {
      if (const auto* stride = ramp->stride.as<IntImm>()) {
        Expr span = IntImm::make(ramp->base.dtype(), stride->value * ramp->lanes);
        std::string out = str(ramp->base) + ":" + str(addFolded(ramp->base, span));
        if (stride->value != 1) out += ":" + str(ramp->stride);
        return out;
      }
    }
    return str(e);
  }

  NameTable& m_names;
  ScriptDialect m_dialect;
};

} // namespace

// Structural equality of small index expressions (same variables, same constants), as
// TVM's ExprDeepEqual is used to decide whether an iterator may be remapped.
template <ExprKind K> bool binaryEqual(const Expr& a, const Expr& b);
bool exprEqual(const Expr& a, const Expr& b) {
  if (a.sameAs(b)) return true;
  if (!a.defined() || !b.defined() || a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  switch (a.kind()) {
  case ExprKind::IntImm: return a.as<IntImm>()->value == b.as<IntImm>()->value;
  case ExprKind::FloatImm: return a.as<FloatImm>()->value == b.as<FloatImm>()->value;
#define LS_X(name)                                                                                                     \
  case ExprKind::name: return binaryEqual<ExprKind::name>(a, b);
    LS_BINARY_KINDS(LS_X)
#undef LS_X
  default: return false; // Vars only equal themselves; other kinds never occur in domains
  }
}
template <ExprKind K> bool binaryEqual(const Expr& a, const Expr& b) {
  const auto* x = a.as<BinaryOp<K>>();
  const auto* y = b.as<BinaryOp<K>>();
  return exprEqual(x->a, y->a) && exprEqual(x->b, y->b);
}

Expr addFolded(const Expr& a, const Expr& b) {
  const auto* ia = a.as<IntImm>();
  const auto* ib = b.as<IntImm>();
  if (ia && ib) return IntImm::make(a.dtype(), ia->value + ib->value);
  if (ia && ia->value == 0) return b;
  if (ib && ib->value == 0) return a;
  const auto* fa = a.as<FloatImm>();
  const auto* fb = b.as<FloatImm>();
  if (fa && fb) return FloatImm::make(a.dtype(), fa->value + fb->value);
  if (fa && fa->value == 0) return b;
  if (fb && fb->value == 0) return a;
  // a + ((x - a) + c) is x + c, and a + (x - a) is x when a is not a constant (also when
  // the arithmetic wraps): the end of a range whose extent is `upper - lower + 1` or
  // `upper - lower` (isl's AST bounds) prints as `upper + 1` or `upper`. (With a constant
  // a, a + (x - a) stays: TVM prints `range(1, 1 + (m - 1))` for its own scan loops.)
  if (const auto* sub = b.as<Sub>(); sub && !ia && !fa && exprEqual(sub->b, a)) return sub->a;
  if (const auto* add = b.as<Add>())
    if (const auto* sub = add->a.as<Sub>(); sub && exprEqual(sub->b, a)) return addFolded(sub->a, add->b);
  return Add::make(a, b);
}

std::string printExpr(const Expr& e, NameTable& names, ScriptDialect dialect) {
  return ExprPrinter(names, dialect).str(e);
}

std::string printIndices(const std::vector<Expr>& indices, NameTable& names) {
  return ExprPrinter(names).indices(indices);
}

} // namespace detail

std::string printExpr(const Expr& e) {
  detail::NameTable names;
  return detail::printExpr(e, names);
}

} // namespace loopscape::ir
