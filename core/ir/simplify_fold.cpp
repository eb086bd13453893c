// Constant folding for every expression kind and type. Integers wrap to the width of
// their type (uint64 compares and divides as unsigned), floats are computed in double and
// rounded to their type, FloorDiv/FloorMod round toward negative infinity and integer Div
// truncates. Division by zero, NaN-sensitive min/max and out-of-range float -> int casts
// are left unfolded, so folding never decides what the target would do differently.
#include "core/ir/simplify_detail.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace loopscape::ir::detail {

namespace {

bool isUnsigned64(DataType t) { return t.isUInt() && t.bits() >= 64; }

bool intLess(DataType t, std::int64_t a, std::int64_t b) {
  if (isUnsigned64(t)) return static_cast<std::uint64_t>(a) < static_cast<std::uint64_t>(b);
  return a < b;
}

std::optional<std::int64_t> intDivide(DataType t, std::int64_t a, std::int64_t b, bool floor) {
  if (b == 0) return std::nullopt;
  if (t.isUInt()) {
    if (isUnsigned64(t))
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) / static_cast<std::uint64_t>(b));
    return a / b;
  }
  if (floor) return floorDivInt(a, b);
  if (b == -1) return static_cast<std::int64_t>(std::uint64_t{0} - static_cast<std::uint64_t>(a));
  return a / b;
}

std::optional<std::int64_t> intModulo(DataType t, std::int64_t a, std::int64_t b) {
  if (b == 0) return std::nullopt;
  if (t.isUInt()) {
    if (isUnsigned64(t))
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) % static_cast<std::uint64_t>(b));
    return a % b;
  }
  return floorModInt(a, b);
}

std::optional<Expr> foldIntBinary(ExprKind kind, DataType t, std::int64_t a, std::int64_t b) {
  auto wrapped = [&](std::uint64_t v) { return IntImm::make(t, static_cast<std::int64_t>(v)); };
  auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
  switch (kind) {
  case ExprKind::Add: return wrapped(ua + ub);
  case ExprKind::Sub: return wrapped(ua - ub);
  case ExprKind::Mul: return wrapped(ua * ub);
  case ExprKind::Div:
  case ExprKind::FloorDiv:
    if (auto q = intDivide(t, a, b, kind == ExprKind::FloorDiv)) return IntImm::make(t, *q);
    return std::nullopt;
  case ExprKind::FloorMod:
    if (auto r = intModulo(t, a, b)) return IntImm::make(t, *r);
    return std::nullopt;
  case ExprKind::Min: return IntImm::make(t, intLess(t, b, a) ? b : a);
  case ExprKind::Max: return IntImm::make(t, intLess(t, a, b) ? b : a);
  case ExprKind::EQ: return boolImm(a == b);
  case ExprKind::NE: return boolImm(a != b);
  case ExprKind::LT: return boolImm(intLess(t, a, b));
  case ExprKind::LE: return boolImm(!intLess(t, b, a));
  case ExprKind::GT: return boolImm(intLess(t, b, a));
  case ExprKind::GE: return boolImm(!intLess(t, a, b));
  case ExprKind::And: return boolImm(a != 0 && b != 0);
  case ExprKind::Or: return boolImm(a != 0 || b != 0);
  default: return std::nullopt;
  }
}

std::optional<Expr> foldFloatBinary(ExprKind kind, DataType t, double a, double b) {
  switch (kind) {
  case ExprKind::Add: return FloatImm::make(t, a + b);
  case ExprKind::Sub: return FloatImm::make(t, a - b);
  case ExprKind::Mul: return FloatImm::make(t, a * b);
  case ExprKind::Div:
    if (b == 0.0) return std::nullopt;
    return FloatImm::make(t, a / b);
  case ExprKind::Min:
  case ExprKind::Max:
    // NaN and signed zeros depend on the target's min/max instruction: leave them.
    if (std::isnan(a) || std::isnan(b) || (a == b && std::signbit(a) != std::signbit(b))) return std::nullopt;
    return FloatImm::make(t, kind == ExprKind::Min ? std::min(a, b) : std::max(a, b));
  case ExprKind::EQ: return boolImm(a == b);
  case ExprKind::NE: return boolImm(a != b);
  case ExprKind::LT: return boolImm(a < b);
  case ExprKind::LE: return boolImm(a <= b);
  case ExprKind::GT: return boolImm(a > b);
  case ExprKind::GE: return boolImm(a >= b);
  default: return std::nullopt;
  }
}

/// Float value of an integer constant of type `from`, rounded once to float type `to`.
double intToFloat(DataType from, std::int64_t v, DataType to) {
  if (isUnsigned64(from)) {
    auto u = static_cast<std::uint64_t>(v);
    return to.bits() == 32 ? static_cast<double>(static_cast<float>(u)) : roundToFloatType(to, static_cast<double>(u));
  }
  return to.bits() == 32 ? static_cast<double>(static_cast<float>(v)) : roundToFloatType(to, static_cast<double>(v));
}

std::optional<Expr> foldCast(DataType to, const Expr& value) {
  if (!to.isScalar()) return std::nullopt;
  DataType from = value.dtype();
  if (auto iv = asConstInt(value)) {
    if (to.isBool()) return boolImm(*iv != 0);
    if (to.isInteger()) return IntImm::make(to, *iv);
    return FloatImm::make(to, intToFloat(from, *iv, to));
  }
  const auto* fimm = value.as<FloatImm>();
  if (!fimm) return std::nullopt;
  double v = fimm->value;
  if (to.isBool()) return boolImm(v != 0.0);
  if (to.isFloat()) return FloatImm::make(to, v);
  // float -> integer truncates toward zero; out of range (or NaN) is undefined: leave it.
  if (std::isnan(v)) return std::nullopt;
  double tv = std::trunc(v);
  if (to.isUInt()) {
    double limit = std::ldexp(1.0, to.bits());
    if (tv < 0.0 || tv >= limit) return std::nullopt;
    return IntImm::make(to, static_cast<std::int64_t>(static_cast<std::uint64_t>(tv)));
  }
  double limit = std::ldexp(1.0, to.bits() - 1);
  if (tv < -limit || tv >= limit) return std::nullopt;
  return IntImm::make(to, static_cast<std::int64_t>(tv));
}

std::optional<Expr> foldCall(const Call& call) {
  std::vector<double> a;
  for (const auto& arg : call.args) {
    const auto* f = arg.as<FloatImm>();
    if (!f) return std::nullopt;
    a.push_back(f->value);
  }
  double r = 0;
  switch (call.op) {
  case CallOp::Exp: r = std::exp(a[0]); break;
  case CallOp::Log: r = std::log(a[0]); break;
  case CallOp::Sqrt: r = std::sqrt(a[0]); break;
  case CallOp::Rsqrt: r = 1.0 / std::sqrt(a[0]); break;
  case CallOp::Tanh: r = std::tanh(a[0]); break;
  case CallOp::Sigmoid: r = 1.0 / (1.0 + std::exp(-a[0])); break;
  case CallOp::Erf: r = std::erf(a[0]); break;
  case CallOp::Pow: r = std::pow(a[0], a[1]); break;
  case CallOp::Fabs: r = std::fabs(a[0]); break;
  case CallOp::Floor: r = std::floor(a[0]); break;
  case CallOp::Ceil: r = std::ceil(a[0]); break;
  case CallOp::Round: r = std::nearbyint(a[0]); break; // ties to even, as TVM's round
  case CallOp::Fma: r = std::fma(a[0], a[1], a[2]); break;
  }
  return FloatImm::make(call.dtype, r);
}

template <typename Node> std::optional<Expr> foldBinary(const Node& n) {
  DataType t = n.a.dtype();
  if (!t.isScalar()) return std::nullopt;
  auto ia = asConstInt(n.a), ib = asConstInt(n.b);
  if (ia && ib) return foldIntBinary(Node::kKind, t, *ia, *ib);
  const auto *fa = n.a.template as<FloatImm>(), *fb = n.b.template as<FloatImm>();
  if (fa && fb) return foldFloatBinary(Node::kKind, t, fa->value, fb->value);
  return std::nullopt;
}

} // namespace

std::optional<Expr> foldConstant(const Expr& e) {
  switch (e.kind()) {
  case ExprKind::IntImm:
  case ExprKind::FloatImm:
  case ExprKind::StringImm: return e;
  case ExprKind::Var:
  case ExprKind::BufferLoad:
  case ExprKind::Ramp:
  case ExprKind::Broadcast: return std::nullopt;
#define LS_X(name)                                                                                                     \
  case ExprKind::name: return foldBinary(*e.as<name>());
    LS_BINARY_KINDS(LS_X)
#undef LS_X
  case ExprKind::Not:
    if (auto v = asConstInt(e.as<Not>()->a)) return boolImm(*v == 0);
    return std::nullopt;
  case ExprKind::Select: {
    const auto* s = e.as<Select>();
    if (auto c = asConstInt(s->condition)) return *c ? s->trueValue : s->falseValue;
    return std::nullopt;
  }
  case ExprKind::Cast: return foldCast(e.dtype(), e.as<Cast>()->value);
  case ExprKind::Call: return foldCall(*e.as<Call>());
  }
  LS_UNREACHABLE("bad ExprKind");
}

} // namespace loopscape::ir::detail
