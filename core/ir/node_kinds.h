// The one list of IR node kinds. Each X-macro below generates the kind enums, the
// functor dispatch and the visitor/mutator defaults; adding a kind here breaks every
// switch and functor until the new kind is handled.
#pragma once

// Binary arithmetic: result has the operands' type.
#define LS_ARITH_BINARY_KINDS(X) X(Add) X(Sub) X(Mul) X(Div) X(FloorDiv) X(FloorMod) X(Min) X(Max)
// Comparisons: result is bool with the operands' lanes.
#define LS_COMPARE_KINDS(X) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE)
// Logical connectives on bool operands.
#define LS_LOGICAL_BINARY_KINDS(X) X(And) X(Or)

#define LS_BINARY_KINDS(X) LS_ARITH_BINARY_KINDS(X) LS_COMPARE_KINDS(X) LS_LOGICAL_BINARY_KINDS(X)

#define LS_EXPR_KINDS(X)                                                                  \
  X(IntImm) X(FloatImm) X(StringImm) X(Var) LS_BINARY_KINDS(X) X(Not) X(Select) X(Cast)   \
  X(Call) X(BufferLoad) X(Ramp) X(Broadcast)

#define LS_STMT_KINDS(X)                                                                                               \
  X(For) X(BlockRealize) X(Block) X(BufferStore) X(SeqStmt) X(IfThenElse) X(Evaluate) X(Assume) X(LetStmt) X(Allocate)

// Math intrinsics of Call: name as printed (T.exp ...), number of arguments.
#define LS_CALL_OPS(X)                                                                    \
  X(Exp, "exp", 1) X(Log, "log", 1) X(Sqrt, "sqrt", 1) X(Rsqrt, "rsqrt", 1)               \
  X(Tanh, "tanh", 1) X(Sigmoid, "sigmoid", 1) X(Erf, "erf", 1) X(Pow, "pow", 2)           \
  X(Fabs, "fabs", 1) X(Floor, "floor", 1) X(Ceil, "ceil", 1) X(Round, "round", 1)         \
  X(Fma, "fma", 3)
