#include "core/ir/op.h"

#include "core/ir/checked_arith.h"

namespace loopscape::ir {

void matchIntegerTypes(Expr& a, Expr& b) {
  if (!a.defined() || !b.defined()) return;
  const DataType ta = a.dtype(), tb = b.dtype();
  if (ta == tb || !ta.isInteger() || !tb.isInteger() || ta.lanes() != tb.lanes()) return;
  if (ta.code() != tb.code()) return; // signedness differs: no implicit choice
  auto widen = [](Expr& e, DataType t) {
    if (const auto* imm = e.as<IntImm>())
      e = IntImm::make(t, imm->value);
    else
      e = Cast::make(t, e);
  };
  if (ta.bits() < tb.bits())
    widen(a, tb);
  else
    widen(b, ta);
}

namespace {
/// The literal `v` as an operand beside an expression of type `t`: in `t` when it fits,
/// else (signed types) an int64 literal that matchIntegerTypes meets with the other
/// operand. Unsigned types keep their modular literal.
Expr literalFor(DataType t, std::int64_t v) {
  if (t.isInteger() && t.isScalar()) {
    if (!t.isInt() || fitsSignedBits(v, t.bits())) return IntImm::make(t, v);
    return IntImm::make(DataType::int64(), v);
  }
  return makeConst(t, static_cast<double>(v));
}

template <typename Node> Expr makeMatched(Expr a, Expr b) {
  matchIntegerTypes(a, b);
  return Node::make(std::move(a), std::move(b));
}
} // namespace

#define LS_OP_DEF(fn, Node)                                                                                            \
  Expr fn(Expr a, Expr b) { return makeMatched<Node>(std::move(a), std::move(b)); }                                    \
  Expr fn(Expr a, std::int64_t b) {                                                                                    \
    auto t = a.dtype();                                                                                                \
    return makeMatched<Node>(std::move(a), literalFor(t, b));                                                          \
  }                                                                                                                    \
  Expr fn(std::int64_t a, Expr b) {                                                                                    \
    auto t = b.dtype();                                                                                                \
    return makeMatched<Node>(literalFor(t, a), std::move(b));                                                          \
  }

LS_OP_DEF(operator+, Add)
LS_OP_DEF(operator-, Sub)
LS_OP_DEF(operator*, Mul)
LS_OP_DEF(operator/, Div)
LS_OP_DEF(floordiv, FloorDiv)
LS_OP_DEF(floormod, FloorMod)
LS_OP_DEF(min, Min)
LS_OP_DEF(max, Max)
LS_OP_DEF(operator==, EQ)
LS_OP_DEF(operator!=, NE)
LS_OP_DEF(operator<, LT)
LS_OP_DEF(operator<=, LE)
LS_OP_DEF(operator>, GT)
LS_OP_DEF(operator>=, GE)
#undef LS_OP_DEF

Expr operator&&(Expr a, Expr b) { return And::make(std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return Or::make(std::move(a), std::move(b)); }
Expr operator!(Expr a) { return Not::make(std::move(a)); }

} // namespace loopscape::ir
