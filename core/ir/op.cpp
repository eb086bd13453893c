#include "core/ir/op.h"

namespace loopscape::ir {

#define LS_OP_DEF(fn, Node)                                                               \
  Expr fn(Expr a, Expr b) { return Node::make(std::move(a), std::move(b)); }              \
  Expr fn(Expr a, std::int64_t b) {                                                       \
    auto t = a.dtype();                                                                   \
    return Node::make(std::move(a), makeConst(t, static_cast<double>(b)));                \
  }                                                                                       \
  Expr fn(std::int64_t a, Expr b) {                                                       \
    auto t = b.dtype();                                                                   \
    return Node::make(makeConst(t, static_cast<double>(a)), std::move(b));                \
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
