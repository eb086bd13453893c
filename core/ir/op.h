// Operator helpers for building expressions in C++ (frontend lowering, passes, tests).
// Operands must have the same type, with TVM's integer promotion: integers of different
// widths meet in the wider type (`i32 * i64` is an int64 product), and an integer literal
// adopts the other operand's type, or int64 when it does not fit that type (`i * 4 + 1`,
// `i * 4294967296`). No simplification happens here; see simplify.h.
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

/// TVM's BinaryOpMatchTypes for index arithmetic: when `a` and `b` are integers of the same
/// lanes and signedness but different widths, the narrower one is widened to the other's
/// type (an IntImm is re-made in that type, anything else is Cast). Other pairs are left
/// as they are.
void matchIntegerTypes(Expr& a, Expr& b);

Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

} // namespace loopscape::ir
