// Operators of the .te language: Python arithmetic on Python values (exact integers,
// errors on int64 overflow and division by zero) and TVM's typed arithmetic once an ir
// expression is involved (te_eval_detail.h, Evaluator::unify for the promotion rules).
#include "core/frontend/te_eval_detail.h"
#include "core/ir/op.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace loopscape::frontend::detail {

namespace {

bool isIntLike(const Value& v) { return v.kind == ValueKind::Int || v.kind == ValueKind::Bool; }
std::int64_t intOf(const Value& v) { return v.kind == ValueKind::Bool ? (v.b ? 1 : 0) : v.i; }
double floatOf(const Value& v) { return v.kind == ValueKind::Float ? v.f : static_cast<double>(intOf(v)); }

bool fitsInt32(std::int64_t v) { return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max(); }

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
std::int64_t floorMod(std::int64_t a, std::int64_t b) {
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/// The wider of two integer types; nullopt for same-width signed/unsigned mixes.
std::optional<ir::DataType> widerInt(ir::DataType a, ir::DataType b) {
  if (a.bits() != b.bits()) return a.bits() > b.bits() ? a : b;
  if (a.code() == b.code()) return a;
  return std::nullopt;
}

ir::Expr castTo(ir::DataType t, const ir::Expr& e) { return e.dtype() == t ? e : ir::Cast::make(t, e); }

/// Builds `x op y` with the constant folding TVM's operator overloads do (TryConstFold):
/// two constants fold; x + 0, x - 0, x * 1, 1 * x, x // 1 give x; x * 0 gives 0.
ir::Expr arith(std::string_view op, const ir::Expr& x, const ir::Expr& y) {
  ir::DataType t = x.dtype();
  auto ci = [](const ir::Expr& e) { return ir::asConstInt(e); };
  auto cf = [](const ir::Expr& e) -> std::optional<double> {
    if (auto* f = e.as<ir::FloatImm>()) return f->value;
    return std::nullopt;
  };
  auto isValue = [&](const ir::Expr& e, double v) {
    if (auto i = ci(e)) return static_cast<double>(*i) == v;
    if (auto f = cf(e)) return *f == v;
    return false;
  };
  auto xi = ci(x), yi = ci(y);
  auto xf = cf(x), yf = cf(y);
  std::int64_t r = 0;
  if (op == "+") {
    if (xi && yi && !__builtin_add_overflow(*xi, *yi, &r)) return ir::IntImm::make(t, r);
    if (xf && yf) return ir::FloatImm::make(t, *xf + *yf);
    if (isValue(x, 0)) return y;
    if (isValue(y, 0)) return x;
    return ir::Add::make(x, y);
  }
  if (op == "-") {
    if (xi && yi && !__builtin_sub_overflow(*xi, *yi, &r)) return ir::IntImm::make(t, r);
    if (xf && yf) return ir::FloatImm::make(t, *xf - *yf);
    if (isValue(y, 0)) return x;
    return ir::Sub::make(x, y);
  }
  if (op == "*") {
    if (xi && yi && !__builtin_mul_overflow(*xi, *yi, &r)) return ir::IntImm::make(t, r);
    if (xf && yf) return ir::FloatImm::make(t, *xf * *yf);
    if (isValue(x, 1)) return y;
    if (isValue(y, 1)) return x;
    if (isValue(x, 0)) return x;
    if (isValue(y, 0)) return y;
    return ir::Mul::make(x, y);
  }
  if (op == "/") {
    if (xf && yf && *yf != 0.0) return ir::FloatImm::make(t, *xf / *yf);
    if (isValue(y, 1)) return x;
    return ir::Div::make(x, y);
  }
  if (op == "//") {
    if (xi && yi && *yi != 0 && !(*yi == -1 && *xi == std::numeric_limits<std::int64_t>::min())) return ir::IntImm::make(t, floorDiv(*xi, *yi));
    if (isValue(y, 1)) return x;
    return ir::FloorDiv::make(x, y);
  }
  if (op == "%") {
    if (xi && yi && *yi != 0 && *yi != -1) return ir::IntImm::make(t, floorMod(*xi, *yi));
    if (isValue(y, 1)) return ir::IntImm::make(t, 0);
    return ir::FloorMod::make(x, y);
  }
  if (op == "max" || op == "min") {
    bool mx = op == "max";
    if (xi && yi) return ir::IntImm::make(t, mx ? std::max(*xi, *yi) : std::min(*xi, *yi));
    if (xf && yf) return ir::FloatImm::make(t, mx ? std::max(*xf, *yf) : std::min(*xf, *yf));
    return mx ? ir::Max::make(x, y) : ir::Min::make(x, y);
  }
  LS_UNREACHABLE("arith: bad operator {}", op);
}

} // namespace

ir::Expr foldedArith(std::string_view op, const ir::Expr& x, const ir::Expr& y) { return arith(op, x, y); }

Expected<ir::Expr> Evaluator::toExpr(const Value& v) {
  switch (v.kind) {
  case ValueKind::Int:
    return fitsInt32(v.i) ? ir::intImm(v.i) : ir::intImm(v.i, ir::DataType::int64());
  case ValueKind::Float: return ir::floatImm(v.f);
  case ValueKind::Bool: return ir::boolImm(v.b);
  case ValueKind::Expr: return v.expr;
  case ValueKind::Axis:
    if (m_computeDepth == 0)
      return Unexpected(error("te.reduce-axis-outside",
                              fmt::format("reduce axis '{}' can only be used inside a reduction in a compute", v.axis->name), v.loc));
    m_axisUses.push_back(AxisUse{v.axis, v.loc, false});
    return v.axis->var;
  case ValueKind::Reduction:
    return Unexpected(error("te.reduction-not-top-level", "reduction must be the top level expression of compute", v.reduction->loc));
  case ValueKind::Tensor:
    return Unexpected(error("te.tensor-as-value",
                            fmt::format("tensor '{}' cannot be used as a value: index it, e.g. {}[{}]", v.tensor->name, v.tensor->name,
                                        v.tensor->buffer->ndim() == 1 ? "i" : "i, j"),
                            v.loc));
  default:
    return Unexpected(error("te.type-mismatch", fmt::format("expected a number or an expression, got {}", describeValue(v)), v.loc));
  }
}

Expected<std::pair<ir::Expr, ir::Expr>> Evaluator::unify(const Value& a, const Value& b, const SourceLocation& loc) {
  // A Python literal adopts the type of the expression on the other side.
  auto literalFor = [&](const Value& lit, ir::DataType other) -> std::optional<ir::Expr> {
    if (lit.kind == ValueKind::Int && other.isFloat()) return ir::FloatImm::make(other, static_cast<double>(lit.i));
    if (lit.kind == ValueKind::Int && other.isInteger()) {
      bool fits = other.bits() >= 64 || (other.isInt() && lit.i >= -(std::int64_t{1} << (other.bits() - 1)) &&
                                         lit.i < (std::int64_t{1} << (other.bits() - 1))) ||
                  (other.isUInt() && lit.i >= 0 && lit.i < (std::int64_t{1} << other.bits()));
      if (fits) return ir::IntImm::make(other, lit.i);
    }
    if (lit.kind == ValueKind::Float && other.isFloat()) return ir::FloatImm::make(other, lit.f);
    return std::nullopt;
  };
  auto ea = toExpr(a);
  if (!ea) return std::unexpected(ea.error());
  auto eb = toExpr(b);
  if (!eb) return std::unexpected(eb.error());
  ir::Expr x = *ea, y = *eb;
  if (a.isPyNumber() && !b.isPyNumber()) {
    if (auto lit = literalFor(a, y.dtype())) x = *lit;
  } else if (b.isPyNumber() && !a.isPyNumber()) {
    if (auto lit = literalFor(b, x.dtype())) y = *lit;
  }
  ir::DataType ta = x.dtype(), tb = y.dtype();
  if (!ta.isScalar() || !tb.isScalar())
    return Unexpected(error("te.type-mismatch", "vector expressions are not supported", loc));
  if (ta == tb) return std::pair{x, y};
  if (ta.isFloat() && tb.isFloat()) {
    auto wider = ta.bits() > tb.bits() ? ta : tb;
    auto d = error("te.type-mismatch", fmt::format("type mismatch: {} and {}", ta.str(), tb.str()), loc);
    d.notes.push_back(fmt::format("cast one operand explicitly, e.g. {}(...)", wider.str()));
    return Unexpected(std::move(d));
  }
  if (ta.isFloat()) return std::pair{x, castTo(ta, y)};
  if (tb.isFloat()) return std::pair{castTo(tb, x), y};
  if (ta.isBool()) return std::pair{castTo(tb, x), y};
  if (tb.isBool()) return std::pair{x, castTo(ta, y)};
  auto w = widerInt(ta, tb);
  if (!w) {
    auto d = error("te.type-mismatch", fmt::format("type mismatch: {} and {}", ta.str(), tb.str()), loc);
    d.notes.push_back("cast one operand explicitly, e.g. int64(...)");
    return Unexpected(std::move(d));
  }
  return std::pair{castTo(*w, x), castTo(*w, y)};
}

Expected<ir::Expr> Evaluator::toCondition(const Value& v, std::string_view what) {
  if (v.kind == ValueKind::Bool) return ir::boolImm(v.b);
  if (v.kind == ValueKind::Expr && v.expr.dtype() == ir::DataType::boolean()) return v.expr;
  std::string got = v.kind == ValueKind::Expr ? v.expr.dtype().str() : describeValue(v);
  if (v.kind == ValueKind::Reduction || v.kind == ValueKind::Tensor || v.kind == ValueKind::Axis) {
    auto e = toExpr(v);
    if (!e) return e;
    got = e->dtype().str();
  }
  return Unexpected(error("te.bad-condition", fmt::format("{} must be a boolean expression, got {}", what, got), v.loc));
}

Result Evaluator::binaryOp(const std::string& op, const Value& a, const Value& b, const SourceLocation& loc) {
  // Python arithmetic on plain numbers (sizes), evaluated now.
  if (a.isPyNumber() && b.isPyNumber()) {
    if (isIntLike(a) && isIntLike(b)) {
      std::int64_t x = intOf(a), y = intOf(b), r = 0;
      auto overflow = [&] {
        return Unexpected(error("te.overflow", fmt::format("integer overflow in size arithmetic: {} {} {} does not fit in int64", x, op, y), loc));
      };
      if (op == "+") return __builtin_add_overflow(x, y, &r) ? Result(overflow()) : makeInt(r, loc);
      if (op == "-") return __builtin_sub_overflow(x, y, &r) ? Result(overflow()) : makeInt(r, loc);
      if (op == "*") return __builtin_mul_overflow(x, y, &r) ? Result(overflow()) : makeInt(r, loc);
      if (op == "//" || op == "%") {
        if (y == 0) return Unexpected(error("te.division-by-zero", fmt::format("integer division by zero ({} {} 0)", x, op), loc));
        if (x == std::numeric_limits<std::int64_t>::min() && y == -1) {
          if (op == "%") return makeInt(0, loc);
          return overflow();
        }
        return makeInt(op == "//" ? floorDiv(x, y) : floorMod(x, y), loc);
      }
      if (op == "/")
        return Unexpected(error("te.int-division", "'/' on integers is true division; use '//' for integer (floor) division", loc));
      if (op == "**") {
        if (y < 0) return makeFloat(std::pow(static_cast<double>(x), static_cast<double>(y)), loc);
        std::int64_t result = 1, base = x;
        while (y > 0) {
          if (y & 1)
            if (__builtin_mul_overflow(result, base, &result)) return overflow();
          y >>= 1;
          if (y > 0 && __builtin_mul_overflow(base, base, &base)) return overflow();
        }
        return makeInt(result, loc);
      }
      if (op == "&" || op == "|") {
        if (a.kind == ValueKind::Bool && b.kind == ValueKind::Bool) return makeBool(op == "&" ? (a.b && b.b) : (a.b || b.b), loc);
        return makeInt(op == "&" ? (x & y) : (x | y), loc);
      }
    } else {
      double x = floatOf(a), y = floatOf(b);
      if (op == "+") return makeFloat(x + y, loc);
      if (op == "-") return makeFloat(x - y, loc);
      if (op == "*") return makeFloat(x * y, loc);
      if (op == "/" || op == "//" || op == "%") {
        if (y == 0.0) return Unexpected(error("te.division-by-zero", "float division by zero", loc));
        if (op == "/") return makeFloat(x / y, loc);
        if (op == "//") return makeFloat(std::floor(x / y), loc);
        double r = std::fmod(x, y);
        if (r != 0.0 && ((r < 0) != (y < 0))) r += y;
        return makeFloat(r, loc);
      }
      if (op == "**") return makeFloat(std::pow(x, y), loc);
    }
    return Unexpected(error("te.type-mismatch", fmt::format("unsupported operand types for '{}': {} and {}", op, describeValue(a), describeValue(b)), loc));
  }
  if (a.kind == ValueKind::Str && b.kind == ValueKind::Str && op == "+") {
    Value v = a;
    v.s += b.s;
    v.loc = loc;
    return v;
  }
  auto exprLike = [](const Value& v) {
    return v.isPyNumber() || v.kind == ValueKind::Expr || v.kind == ValueKind::Axis || v.kind == ValueKind::Reduction ||
           v.kind == ValueKind::Tensor;
  };
  if (!exprLike(a) || !exprLike(b))
    return Unexpected(error("te.type-mismatch",
                            fmt::format("unsupported operand types for '{}': {} and {}", op, describeValue(a), describeValue(b)), loc));
  auto operands = unify(a, b, loc);
  if (!operands) return std::unexpected(operands.error());
  auto [x, y] = *operands;
  ir::DataType t = x.dtype();
  if (op == "&" || op == "|") {
    if (!t.isBool())
      return Unexpected(error("te.type-mismatch", fmt::format("'{}' needs boolean operands, got {}", op, t.str()), loc));
    return makeExpr(op == "&" ? ir::And::make(x, y) : ir::Or::make(x, y), loc);
  }
  if (t.isBool()) { // Python: True + True == 2
    x = ir::Cast::make(ir::DataType::int32(), x);
    y = ir::Cast::make(ir::DataType::int32(), y);
    t = ir::DataType::int32();
  }
  if (op == "+" || op == "-" || op == "*") return makeExpr(arith(op, x, y), loc);
  if (op == "/") {
    if (t.isInteger()) {
      auto d = error("te.int-division", fmt::format("'/' on {} operands is not integer division; use '//' (floor division)", t.str()), loc);
      d.notes.push_back("or cast to a float type for true division, e.g. float32(x) / y");
      return Unexpected(std::move(d));
    }
    return makeExpr(arith("/", x, y), loc);
  }
  if (op == "//" || op == "%") {
    if (t.isInteger()) {
      if (ir::isConstInt(y, 0)) return Unexpected(error("te.division-by-zero", fmt::format("integer division by zero ('{}' by 0)", op), loc));
      return makeExpr(arith(op, x, y), loc);
    }
    if (op == "//") return makeExpr(ir::Call::make(t, ir::CallOp::Floor, {arith("/", x, y)}), loc);
    return Unexpected(error("te.type-mismatch", fmt::format("'%' needs integer operands, got {}", t.str()), loc));
  }
  if (op == "**") {
    if (!t.isFloat()) {
      auto d = error("te.type-mismatch", fmt::format("'**' needs floating-point operands, got {}", t.str()), loc);
      d.notes.push_back("cast the base, e.g. float32(x) ** 2");
      return Unexpected(std::move(d));
    }
    return makeExpr(ir::Call::make(t, ir::CallOp::Pow, {x, y}), loc);
  }
  return Unexpected(error("te.unsupported", fmt::format("unsupported operator '{}'", op), loc));
}

Result Evaluator::unaryOp(const std::string& op, const Value& a, const SourceLocation& loc) {
  if (op == "not") {
    if (a.kind == ValueKind::Expr || a.kind == ValueKind::Axis || a.kind == ValueKind::Reduction) {
      auto c = toCondition(a, "the operand of 'not'");
      if (!c) return std::unexpected(c.error());
      return makeExpr(ir::Not::make(*c), loc);
    }
    bool t = a.kind == ValueKind::None ? false : a.kind == ValueKind::Bool ? a.b : a.kind == ValueKind::Int ? a.i != 0
                                               : a.kind == ValueKind::Float ? a.f != 0.0 : true;
    return makeBool(!t, loc);
  }
  if (a.kind == ValueKind::Int || a.kind == ValueKind::Bool) {
    std::int64_t x = intOf(a);
    if (op == "+") return makeInt(x, loc);
    if (x == std::numeric_limits<std::int64_t>::min())
      return Unexpected(error("te.overflow", "integer overflow in size arithmetic: negation does not fit in int64", loc));
    return makeInt(-x, loc);
  }
  if (a.kind == ValueKind::Float) return makeFloat(op == "-" ? -a.f : a.f, loc);
  auto e = toExpr(a);
  if (!e) return std::unexpected(e.error());
  ir::DataType t = e->dtype();
  if (t.isBool() || !t.isScalar())
    return Unexpected(error("te.type-mismatch", fmt::format("unary '{}' needs a numeric operand, got {}", op, t.str()), loc));
  if (op == "+") return makeExpr(*e, loc);
  // As TVM's ExprOp.__neg__: multiply by the constant -1 of the operand's type.
  return makeExpr(arith("*", *e, ir::makeConst(t, -1)), loc);
}

Result Evaluator::compare(const std::string& op, const Value& a, const Value& b, const SourceLocation& loc) {
  if (a.isPyNumber() && b.isPyNumber()) {
    bool r;
    if (isIntLike(a) && isIntLike(b)) {
      std::int64_t x = intOf(a), y = intOf(b);
      r = op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y : op == "==" ? x == y : x != y;
    } else {
      double x = floatOf(a), y = floatOf(b);
      r = op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y : op == "==" ? x == y : x != y;
    }
    return makeBool(r, loc);
  }
  if (a.kind == ValueKind::Str && b.kind == ValueKind::Str && (op == "==" || op == "!="))
    return makeBool((a.s == b.s) == (op == "=="), loc);
  auto operands = unify(a, b, loc);
  if (!operands) return std::unexpected(operands.error());
  auto [x, y] = *operands;
  if (op == "<") return makeExpr(ir::LT::make(x, y), loc);
  if (op == "<=") return makeExpr(ir::LE::make(x, y), loc);
  if (op == ">") return makeExpr(ir::GT::make(x, y), loc);
  if (op == ">=") return makeExpr(ir::GE::make(x, y), loc);
  if (op == "==") return makeExpr(ir::EQ::make(x, y), loc);
  return makeExpr(ir::NE::make(x, y), loc);
}

Result Evaluator::logical(const std::string& op, const Value& a, const Value& b, const SourceLocation& loc) {
  auto operand = [&](const Value& v) -> Expected<ir::Expr> {
    if (v.kind == ValueKind::Bool) return ir::boolImm(v.b);
    auto e = toExpr(v);
    if (!e) return e;
    if (e->dtype() != ir::DataType::boolean())
      return Unexpected(error("te.type-mismatch", fmt::format("'{}' needs boolean operands, got {}", op, e->dtype().str()), v.loc));
    return e;
  };
  auto x = operand(a);
  if (!x) return std::unexpected(x.error());
  auto y = operand(b);
  if (!y) return std::unexpected(y.error());
  return makeExpr(op == "and" ? ir::And::make(*x, *y) : ir::Or::make(*x, *y), loc);
}

} // namespace loopscape::frontend::detail
