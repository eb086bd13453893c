#include "core/ir/expr.h"

#include "core/ir/buffer.h"

#include <cstdio>
#include <cstdlib>

namespace loopscape::detail {
void assertFail(const char* file, int line, const char* cond, const std::string& message) {
  std::fprintf(stderr, "%s:%d: internal error: assertion '%s' failed: %s\n", file, line, cond, message.c_str());
  std::fflush(stderr);
  std::abort();
}
} // namespace loopscape::detail

namespace loopscape::ir {

const char* exprKindName(ExprKind kind) {
  switch (kind) {
#define LS_X(name)                                                                        \
  case ExprKind::name: return #name;
    LS_EXPR_KINDS(LS_X)
#undef LS_X
  }
  LS_UNREACHABLE("bad ExprKind");
}

const char* callOpName(CallOp op) {
  switch (op) {
#define LS_X(o, name, arity)                                                              \
  case CallOp::o: return name;
    LS_CALL_OPS(LS_X)
#undef LS_X
  }
  LS_UNREACHABLE("bad CallOp");
}

int callOpArity(CallOp op) {
  switch (op) {
#define LS_X(o, name, arity)                                                              \
  case CallOp::o: return arity;
    LS_CALL_OPS(LS_X)
#undef LS_X
  }
  LS_UNREACHABLE("bad CallOp");
}

Expr IntImm::make(DataType dtype, std::int64_t value) {
  LS_ASSERT(dtype.isInteger() || dtype.isBool(), "IntImm of type {}", dtype.str());
  LS_ASSERT(dtype.isScalar(), "IntImm must be scalar");
  return Expr(std::make_shared<IntImm>(dtype, wrapInt(dtype, value)));
}

Expr FloatImm::make(DataType dtype, double value) {
  LS_ASSERT(dtype.isFloat() && dtype.isScalar(), "FloatImm of type {}", dtype.str());
  return Expr(std::make_shared<FloatImm>(dtype, roundToFloatType(dtype, value)));
}

StringImm::StringImm(std::string v) : ExprNode(kKind, DataType::int8()), value(std::move(v)) {}

Expr StringImm::make(std::string value) { return Expr(std::make_shared<StringImm>(std::move(value))); }

Expr Var::make(std::string name, DataType dtype) {
  LS_ASSERT(!name.empty(), "Var needs a name");
  return Expr(std::make_shared<Var>(std::move(name), dtype));
}

namespace {
template <ExprKind K> constexpr bool isCompare() {
  return K == ExprKind::EQ || K == ExprKind::NE || K == ExprKind::LT || K == ExprKind::LE || K == ExprKind::GT ||
         K == ExprKind::GE;
}
template <ExprKind K> constexpr bool isLogical() { return K == ExprKind::And || K == ExprKind::Or; }
} // namespace

template <ExprKind K> Expr BinaryOp<K>::make(Expr a, Expr b) {
  LS_ASSERT(a.defined() && b.defined(), "{} with an undefined operand", exprKindName(K));
  LS_ASSERT(a.dtype() == b.dtype(), "{} operands have different types: {} and {}", exprKindName(K),
            a.dtype().str(), b.dtype().str());
  DataType t = a.dtype();
  if constexpr (isCompare<K>()) {
    t = DataType::boolean(a.dtype().lanes());
  } else if constexpr (isLogical<K>()) {
    LS_ASSERT(t.isBool(), "{} needs bool operands, got {}", exprKindName(K), t.str());
  } else {
    LS_ASSERT(!t.isBool(), "{} on bool operands", exprKindName(K));
    if constexpr (K == ExprKind::FloorDiv || K == ExprKind::FloorMod)
      LS_ASSERT(t.isInteger(), "{} needs integer operands, got {}", exprKindName(K), t.str());
  }
  return Expr(std::make_shared<BinaryOp<K>>(t, std::move(a), std::move(b)));
}

#define LS_X(name) template struct BinaryOp<ExprKind::name>;
LS_BINARY_KINDS(LS_X)
#undef LS_X

Expr Not::make(Expr a) {
  LS_ASSERT(a.defined() && a.dtype().isBool(), "Not needs a bool operand");
  auto t = a.dtype();
  return Expr(std::make_shared<Not>(t, std::move(a)));
}

Expr Select::make(Expr condition, Expr trueValue, Expr falseValue, bool lazy) {
  LS_ASSERT(condition.defined() && condition.dtype().isBool(), "Select condition must be bool");
  LS_ASSERT(trueValue.dtype() == falseValue.dtype(), "Select branches differ: {} and {}", trueValue.dtype().str(),
            falseValue.dtype().str());
  auto t = trueValue.dtype();
  return Expr(std::make_shared<Select>(t, std::move(condition), std::move(trueValue), std::move(falseValue), lazy));
}

Expr Cast::make(DataType dtype, Expr value) {
  LS_ASSERT(value.defined(), "Cast of an undefined value");
  LS_ASSERT(dtype.lanes() == value.dtype().lanes(), "Cast changes lanes");
  return Expr(std::make_shared<Cast>(dtype, std::move(value)));
}

Expr Call::make(DataType dtype, CallOp op, std::vector<Expr> args) {
  LS_ASSERT(static_cast<int>(args.size()) == callOpArity(op), "{} takes {} arguments, got {}", callOpName(op),
            callOpArity(op), args.size());
  LS_ASSERT(dtype.isFloat(), "{} on type {}", callOpName(op), dtype.str());
  for (const auto& a : args)
    LS_ASSERT(a.defined() && a.dtype() == dtype, "{} argument of type {}, call is {}", callOpName(op),
              a.defined() ? a.dtype().str() : "undefined", dtype.str());
  return Expr(std::make_shared<Call>(dtype, op, std::move(args)));
}

Expr BufferLoad::make(Buffer buffer, std::vector<Expr> indices) {
  LS_ASSERT(buffer.defined(), "BufferLoad of an undefined buffer");
  LS_ASSERT(indices.size() == buffer->ndim(), "BufferLoad of {} with {} indices, buffer has {} dims", buffer->name,
            indices.size(), buffer->ndim());
  int lanes = 1;
  for (const auto& i : indices) {
    LS_ASSERT(i.defined() && i.dtype().isInteger(), "BufferLoad index of {} is not an integer", buffer->name);
    lanes = std::max(lanes, i.dtype().lanes());
  }
  auto t = buffer->dtype.withLanes(lanes);
  return Expr(std::make_shared<BufferLoad>(t, std::move(buffer), std::move(indices)));
}

Expr Ramp::make(Expr base, Expr stride, int lanes) {
  LS_ASSERT(base.dtype().isInteger() && base.dtype().isScalar() && stride.dtype() == base.dtype(), "bad Ramp");
  LS_ASSERT(lanes > 1, "Ramp needs more than one lane");
  auto t = base.dtype().withLanes(lanes);
  return Expr(std::make_shared<Ramp>(t, std::move(base), std::move(stride), lanes));
}

Expr Broadcast::make(Expr value, int lanes) {
  LS_ASSERT(value.dtype().isScalar() && lanes > 1, "bad Broadcast");
  auto t = value.dtype().withLanes(lanes);
  return Expr(std::make_shared<Broadcast>(t, std::move(value), lanes));
}

Expr intImm(std::int64_t value, DataType dtype) { return IntImm::make(dtype, value); }
Expr floatImm(double value, DataType dtype) { return FloatImm::make(dtype, value); }
Expr boolImm(bool value) { return IntImm::make(DataType::boolean(), value ? 1 : 0); }

Expr makeConst(DataType dtype, double value) {
  if (dtype.isFloat()) return FloatImm::make(dtype, value);
  return IntImm::make(dtype, static_cast<std::int64_t>(value));
}

std::optional<std::int64_t> asConstInt(const Expr& e) {
  if (auto* imm = e.as<IntImm>()) return imm->value;
  return std::nullopt;
}

bool isConstInt(const Expr& e, std::int64_t value) {
  auto v = asConstInt(e);
  return v && *v == value;
}

const Expr* variableIntegerDivisor(const Expr& e) {
  const Expr* divisor = e.as<Div>()        ? &e.as<Div>()->b
                        : e.as<FloorDiv>() ? &e.as<FloorDiv>()->b
                        : e.as<FloorMod>() ? &e.as<FloorMod>()->b
                                           : nullptr;
  return divisor && e.dtype().isInteger() && !asConstInt(*divisor) ? divisor : nullptr;
}

} // namespace loopscape::ir
