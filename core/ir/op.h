// Operator helpers for building expressions in C++ (frontend lowering, passes, tests).
// Operands must already have the same type, except that an integer literal adopts the
// other operand's type (`i * 4 + 1`). No simplification happens here; see simplify.h.
#pragma once

#include "core/ir/expr.h"

namespace loopscape::ir {

#define LS_OP_DECL(fn)                                                                    \
  Expr fn(Expr a, Expr b);                                                                \
  Expr fn(Expr a, std::int64_t b);                                                        \
  Expr fn(std::int64_t a, Expr b);

LS_OP_DECL(operator+)
LS_OP_DECL(operator-)
LS_OP_DECL(operator*)
LS_OP_DECL(operator/) // Div: truncating on integers
LS_OP_DECL(floordiv)
LS_OP_DECL(floormod)
LS_OP_DECL(min)
LS_OP_DECL(max)
LS_OP_DECL(operator==)
LS_OP_DECL(operator!=)
LS_OP_DECL(operator<)
LS_OP_DECL(operator<=)
LS_OP_DECL(operator>)
LS_OP_DECL(operator>=)
#undef LS_OP_DECL

Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

} // namespace loopscape::ir
