// Expressions: immutable, reference-counted nodes behind the cheap `Expr` handle.
// Nodes are built only through their checking `make()`; `e.as<Add>()` gives the node
// when the kind matches. Variables have identity: two Var nodes with the same name are
// different variables. Integer arithmetic is exact in the node's type (wrapping at its
// width), FloorDiv/FloorMod round toward negative infinity, Div on integers truncates
// toward zero (C semantics) and on floats is IEEE division.
#pragma once

#include "core/ir/assert.h"
#include "core/ir/data_type.h"
#include "core/ir/node_kinds.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::ir {

enum class ExprKind : std::uint8_t {
#define LS_X(name) name,
  LS_EXPR_KINDS(LS_X)
#undef LS_X
};

/// "Add", "BufferLoad", ...
const char* exprKindName(ExprKind kind);

enum class CallOp : std::uint8_t {
#define LS_X(op, name, arity) op,
  LS_CALL_OPS(LS_X)
#undef LS_X
};
const char* callOpName(CallOp op);
int callOpArity(CallOp op);

struct ExprNode {
  ExprKind kind;
  DataType dtype;

protected:
  ExprNode(ExprKind k, DataType t) : kind(k), dtype(t) {}
  ~ExprNode() = default;
};

struct BufferNode;

/// Value handle to a buffer (buffer.h has the node). Buffers have identity like Vars.
class Buffer {
public:
  Buffer() = default;
  explicit Buffer(std::shared_ptr<const BufferNode> node) : m_node(std::move(node)) {}
  bool defined() const { return m_node != nullptr; }
  explicit operator bool() const { return defined(); }
  const BufferNode* get() const { return m_node.get(); }
  const BufferNode* operator->() const { return m_node.get(); }
  bool sameAs(const Buffer& other) const { return m_node == other.m_node; }

private:
  std::shared_ptr<const BufferNode> m_node;
};

/// Value handle to an immutable expression node; may be undefined (null).
class Expr {
public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> node) : m_node(std::move(node)) {}

  bool defined() const { return m_node != nullptr; }
  explicit operator bool() const { return defined(); }
  ExprKind kind() const { return m_node->kind; }
  DataType dtype() const { return m_node->dtype; }
  const ExprNode* get() const { return m_node.get(); }
  /// Same node (pointer identity), the cheap "nothing changed" test of mutators.
  bool sameAs(const Expr& other) const { return m_node == other.m_node; }

  template <typename T> const T* as() const {
    return m_node && m_node->kind == T::kKind ? static_cast<const T*>(m_node.get()) : nullptr;
  }
  template <typename T> bool is() const { return as<T>() != nullptr; }

private:
  std::shared_ptr<const ExprNode> m_node;
};

struct IntImm final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::IntImm;
  std::int64_t value;
  /// `value` is wrapped to the width of `dtype` (an integer or bool type).
  static Expr make(DataType dtype, std::int64_t value);
  IntImm(DataType t, std::int64_t v) : ExprNode(kKind, t), value(v) {}
};

struct FloatImm final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::FloatImm;
  double value;
  /// `value` is rounded to `dtype` (float16/32/64).
  static Expr make(DataType dtype, double value);
  FloatImm(DataType t, double v) : ExprNode(kKind, t), value(v) {}
};

struct StringImm final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::StringImm;
  std::string value;
  static Expr make(std::string value);
  explicit StringImm(std::string v);
};

struct Var final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Var;
  std::string name;
  static Expr make(std::string name, DataType dtype = DataType::int32());
  Var(std::string n, DataType t) : ExprNode(kKind, t), name(std::move(n)) {}
};

/// All binary nodes share this layout; the kind picks the meaning (see node_kinds.h).
template <ExprKind K> struct BinaryOp final : ExprNode {
  static constexpr ExprKind kKind = K;
  Expr a, b;
  /// Both operands must have the same type; comparisons yield bool, And/Or need bool.
  static Expr make(Expr a, Expr b);
  BinaryOp(DataType t, Expr x, Expr y) : ExprNode(kKind, t), a(std::move(x)), b(std::move(y)) {}
};

#define LS_X(name) using name = BinaryOp<ExprKind::name>;
LS_BINARY_KINDS(LS_X)
#undef LS_X

struct Not final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Not;
  Expr a;
  static Expr make(Expr a);
  Not(DataType t, Expr x) : ExprNode(kKind, t), a(std::move(x)) {}
};

/// A conditional value. `lazy`: TVM's `T.if_then_else` (a call of the builtin), which
/// evaluates only the chosen branch, so a branch may read out of bounds when it is not
/// taken (padding, stencil borders); printed `T.if_then_else`. Otherwise TVM's
/// `T.Select`, whose branches TVM evaluates both. Here both forms evaluate only the
/// chosen branch wherever a branch can trap (interpreter, C, LLVM); the flag keeps the
/// user's form through printing, equality and passes.
struct Select final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  Expr condition, trueValue, falseValue;
  bool lazy = false;
  static Expr make(Expr condition, Expr trueValue, Expr falseValue, bool lazy = false);
  Select(DataType t, Expr c, Expr x, Expr y, bool l)
      : ExprNode(kKind, t), condition(std::move(c)), trueValue(std::move(x)), falseValue(std::move(y)), lazy(l) {}
};

struct Cast final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  Expr value;
  static Expr make(DataType dtype, Expr value);
  Cast(DataType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
};

/// A pure math intrinsic on floating-point arguments of the call's type.
struct Call final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  CallOp op;
  std::vector<Expr> args;
  static Expr make(DataType dtype, CallOp op, std::vector<Expr> args);
  Call(DataType t, CallOp o, std::vector<Expr> a) : ExprNode(kKind, t), op(o), args(std::move(a)) {}
};

struct BufferLoad final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::BufferLoad;
  Buffer buffer;
  std::vector<Expr> indices;
  /// One integer index per buffer dimension; the result has the buffer's dtype.
  static Expr make(Buffer buffer, std::vector<Expr> indices);
  BufferLoad(DataType t, Buffer b, std::vector<Expr> i) : ExprNode(kKind, t), buffer(std::move(b)), indices(std::move(i)) {}
};

/// Vector of `lanes` integers base, base+stride, ... (vector lowering only).
struct Ramp final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Ramp;
  Expr base, stride;
  int lanes;
  static Expr make(Expr base, Expr stride, int lanes);
  Ramp(DataType t, Expr b, Expr s, int l) : ExprNode(kKind, t), base(std::move(b)), stride(std::move(s)), lanes(l) {}
};

/// A scalar repeated over `lanes` (vector lowering only).
struct Broadcast final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Broadcast;
  Expr value;
  int lanes;
  static Expr make(Expr value, int lanes);
  Broadcast(DataType t, Expr v, int l) : ExprNode(kKind, t), value(std::move(v)), lanes(l) {}
};

// Convenience constructors.
Expr intImm(std::int64_t value, DataType dtype = DataType::int32());
Expr floatImm(double value, DataType dtype = DataType::float32());
Expr boolImm(bool value);
/// The constant `value` in `dtype` (IntImm for integers/bool, FloatImm for floats).
Expr makeConst(DataType dtype, double value);
/// Integer constant value, if `e` is an IntImm.
std::optional<std::int64_t> asConstInt(const Expr& e);
bool isConstInt(const Expr& e, std::int64_t value);
/// The divisor of `e` when `e` is an integer Div, FloorDiv or FloorMod by a divisor that is
/// not a constant (it may be 0: such a division may trap), else nullptr.
const Expr* variableIntegerDivisor(const Expr& e);

} // namespace loopscape::ir
