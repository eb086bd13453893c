// Internal to the interpreter: the node classes of the compiled tree (expressions as
// Eval<int64_t> / Eval<float> / Eval<double>, statements as Exec). Each node does one
// thing with no lookups: variables are frame slots, buffers are buffer slots, types are
// template parameters. float16 values travel as float, rounded after every operation.
#pragma once

#include "core/ir/interpreter_detail.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace loopscape::ir::interp {

enum class Wrap : std::uint8_t { None, I32, I16, I8, U8, Bool };

inline Wrap wrapOf(DataType t) {
  if (t.isBool()) return Wrap::Bool;
  if (t.isUInt()) return Wrap::U8;
  switch (t.bits()) {
  case 8: return Wrap::I8;
  case 16: return Wrap::I16;
  case 32: return Wrap::I32;
  default: return Wrap::None;
  }
}

inline std::int64_t wrapFast(Wrap w, std::int64_t v) {
  switch (w) {
  case Wrap::None: return v;
  case Wrap::I32: return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  case Wrap::I16: return static_cast<std::int16_t>(static_cast<std::uint16_t>(v));
  case Wrap::I8: return static_cast<std::int8_t>(static_cast<std::uint8_t>(v));
  case Wrap::U8: return static_cast<std::uint8_t>(v);
  case Wrap::Bool: return v != 0;
  }
  return v;
}

inline float roundHalf(float v) { return float16Value(float16Bits(v)); }

template <typename T> using EvalPtr = std::unique_ptr<Eval<T>>;
using IntPtr = std::unique_ptr<IntEval>;
using ExecPtr = std::unique_ptr<Exec>;

/// An integer operand that is usually a constant or a plain variable (loop bounds,
/// iterator domains and bindings, buffer indices): no virtual call in those cases.
struct IntOperand {
  std::int64_t constant = 0;
  int slot = -1; ///< >= 0: the value of int slot `slot`
  IntPtr expr;   ///< otherwise, when set: evaluated
  std::int64_t get(Frame& f) const {
    if (slot >= 0) return f.ints[slot];
    return expr ? expr->eval(f) : constant;
  }
};

// ---- leaves -------------------------------------------------------------------------

template <typename T> struct ConstNode final : Eval<T> {
  T value;
  explicit ConstNode(T v) : value(v) {}
  T eval(Frame&) const override { return value; }
};

struct IntVarNode final : IntEval {
  int slot;
  explicit IntVarNode(int s) : slot(s) {}
  std::int64_t eval(Frame& f) const override { return f.ints[slot]; }
};

template <typename T> struct FloatVarNode final : Eval<T> {
  int slot;
  explicit FloatVarNode(int s) : slot(s) {}
  T eval(Frame& f) const override { return static_cast<T>(f.floats[slot]); }
};

// ---- integer arithmetic ---------------------------------------------------------------

[[noreturn]] void raiseDivByZero(Frame& f, const BlockContext* ctx, ExprKind kind);

template <ExprKind K> struct IntBinNode final : IntEval {
  IntPtr a, b;
  Wrap wrap;
  const BlockContext* ctx;
  IntBinNode(IntPtr x, IntPtr y, Wrap w, const BlockContext* c) : a(std::move(x)), b(std::move(y)), wrap(w), ctx(c) {}
  std::int64_t eval(Frame& f) const override {
    std::int64_t x = a->eval(f), y = b->eval(f);
    using U = std::uint64_t;
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    if constexpr (K == ExprKind::Add) return wrapFast(wrap, static_cast<std::int64_t>(U(x) + U(y)));
    if constexpr (K == ExprKind::Sub) return wrapFast(wrap, static_cast<std::int64_t>(U(x) - U(y)));
    if constexpr (K == ExprKind::Mul) return wrapFast(wrap, static_cast<std::int64_t>(U(x) * U(y)));
    if constexpr (K == ExprKind::Min) return x < y ? x : y;
    if constexpr (K == ExprKind::Max) return x > y ? x : y;
    if constexpr (K == ExprKind::Div || K == ExprKind::FloorDiv || K == ExprKind::FloorMod) {
      if (y == 0) raiseDivByZero(f, ctx, K);
      if (y == -1) { // avoid the INT64_MIN / -1 trap; the wrapped result is exact
        if constexpr (K == ExprKind::FloorMod) return 0;
        else return wrapFast(wrap, x == kMin ? kMin : -x);
      }
      if constexpr (K == ExprKind::Div) return wrapFast(wrap, x / y);
      if constexpr (K == ExprKind::FloorDiv) {
        std::int64_t q = x / y;
        if (x % y != 0 && ((x < 0) != (y < 0))) --q;
        return wrapFast(wrap, q);
      }
      if constexpr (K == ExprKind::FloorMod) {
        std::int64_t r = x % y;
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return wrapFast(wrap, r);
      }
    }
    return 0;
  }
};

template <ExprKind K, typename T> struct CompareNode final : IntEval {
  EvalPtr<T> a, b;
  CompareNode(EvalPtr<T> x, EvalPtr<T> y) : a(std::move(x)), b(std::move(y)) {}
  std::int64_t eval(Frame& f) const override {
    T x = a->eval(f), y = b->eval(f);
    if constexpr (K == ExprKind::EQ) return x == y;
    if constexpr (K == ExprKind::NE) return x != y;
    if constexpr (K == ExprKind::LT) return x < y;
    if constexpr (K == ExprKind::LE) return x <= y;
    if constexpr (K == ExprKind::GT) return x > y;
    if constexpr (K == ExprKind::GE) return x >= y;
    return 0;
  }
};

struct AndNode final : IntEval {
  IntPtr a, b;
  AndNode(IntPtr x, IntPtr y) : a(std::move(x)), b(std::move(y)) {}
  std::int64_t eval(Frame& f) const override { return a->eval(f) && b->eval(f); }
};
struct OrNode final : IntEval {
  IntPtr a, b;
  OrNode(IntPtr x, IntPtr y) : a(std::move(x)), b(std::move(y)) {}
  std::int64_t eval(Frame& f) const override { return a->eval(f) || b->eval(f); }
};
struct NotNode final : IntEval {
  IntPtr a;
  explicit NotNode(IntPtr x) : a(std::move(x)) {}
  std::int64_t eval(Frame& f) const override { return !a->eval(f); }
};

template <typename T> struct SelectNode final : Eval<T> {
  IntPtr cond;
  EvalPtr<T> a, b;
  SelectNode(IntPtr c, EvalPtr<T> x, EvalPtr<T> y) : cond(std::move(c)), a(std::move(x)), b(std::move(y)) {}
  T eval(Frame& f) const override { return cond->eval(f) ? a->eval(f) : b->eval(f); }
};

// ---- float arithmetic -----------------------------------------------------------------

template <ExprKind K, typename T, bool Half> struct FloatBinNode final : Eval<T> {
  EvalPtr<T> a, b;
  FloatBinNode(EvalPtr<T> x, EvalPtr<T> y) : a(std::move(x)), b(std::move(y)) {}
  T eval(Frame& f) const override {
    T x = a->eval(f), y = b->eval(f);
    T r{};
    if constexpr (K == ExprKind::Add) r = x + y;
    if constexpr (K == ExprKind::Sub) r = x - y;
    if constexpr (K == ExprKind::Mul) r = x * y;
    if constexpr (K == ExprKind::Div) r = x / y;
    if constexpr (K == ExprKind::Min) r = x < y ? x : y;
    if constexpr (K == ExprKind::Max) r = x > y ? x : y;
    if constexpr (Half) return roundHalf(static_cast<float>(r));
    return r;
  }
};

template <typename T, bool Half> struct CallNode final : Eval<T> {
  CallOp op;
  std::vector<EvalPtr<T>> args;
  CallNode(CallOp o, std::vector<EvalPtr<T>> a) : op(o), args(std::move(a)) {}
  T eval(Frame& f) const override {
    T x = args[0]->eval(f);
    T r{};
    switch (op) {
    case CallOp::Exp: r = std::exp(x); break;
    case CallOp::Log: r = std::log(x); break;
    case CallOp::Sqrt: r = std::sqrt(x); break;
    case CallOp::Rsqrt: r = T(1) / std::sqrt(x); break;
    case CallOp::Tanh: r = std::tanh(x); break;
    case CallOp::Sigmoid: r = T(1) / (T(1) + std::exp(-x)); break;
    case CallOp::Erf: r = std::erf(x); break;
    case CallOp::Pow: r = std::pow(x, args[1]->eval(f)); break;
    case CallOp::Fabs: r = std::fabs(x); break;
    case CallOp::Floor: r = std::floor(x); break;
    case CallOp::Ceil: r = std::ceil(x); break;
    case CallOp::Round: r = std::round(x); break;
    case CallOp::Fma: {
      T y = args[1]->eval(f);
      r = std::fma(x, y, args[2]->eval(f));
      break;
    }
    }
    if constexpr (Half) return roundHalf(static_cast<float>(r));
    return r;
  }
};

// ---- casts --------------------------------------------------------------------------

struct IntCastNode final : IntEval {
  IntPtr a;
  Wrap wrap;
  IntCastNode(IntPtr x, Wrap w) : a(std::move(x)), wrap(w) {}
  std::int64_t eval(Frame& f) const override { return wrapFast(wrap, a->eval(f)); }
};

[[noreturn]] void raiseCastRange(Frame& f, const BlockContext* ctx, double v, DataType from, DataType to);

template <typename S> struct FloatToIntNode final : IntEval {
  EvalPtr<S> a;
  DataType from, to;
  double lo, hi; ///< the truncated value must lie in [lo, hi)
  const BlockContext* ctx;
  FloatToIntNode(EvalPtr<S> x, DataType fr, DataType t, const BlockContext* c) : a(std::move(x)), from(fr), to(t), ctx(c) {
    if (t.isUInt()) {
      lo = 0;
      hi = std::ldexp(1.0, t.bits());
    } else {
      lo = -std::ldexp(1.0, t.bits() - 1);
      hi = std::ldexp(1.0, t.bits() - 1);
    }
  }
  std::int64_t eval(Frame& f) const override {
    S v = a->eval(f);
    if (to.isBool()) return v != S(0);
    double t = std::trunc(static_cast<double>(v));
    if (!(t >= lo && t < hi)) raiseCastRange(f, ctx, static_cast<double>(v), from, to);
    return static_cast<std::int64_t>(t);
  }
};

template <typename T, bool Half> struct IntToFloatNode final : Eval<T> {
  IntPtr a;
  explicit IntToFloatNode(IntPtr x) : a(std::move(x)) {}
  T eval(Frame& f) const override {
    T r = static_cast<T>(a->eval(f));
    if constexpr (Half) return roundHalf(static_cast<float>(r));
    return r;
  }
};

template <typename T, typename S, bool Half> struct FloatCastNode final : Eval<T> {
  EvalPtr<S> a;
  explicit FloatCastNode(EvalPtr<S> x) : a(std::move(x)) {}
  T eval(Frame& f) const override {
    T r = static_cast<T>(a->eval(f));
    if constexpr (Half) return roundHalf(static_cast<float>(r));
    return r;
  }
};

// ---- buffer access ------------------------------------------------------------------

/// Index expressions of one load/store and the bounds check.
struct Access {
  int slot = 0;
  std::vector<IntOperand> indices;
  const BlockContext* ctx = nullptr;
  std::string bufferName;
  bool isStore = false;

  /// Address of the element, after checking every index against the extent.
  std::byte* address(Frame& f, std::size_t elemSize) const {
    const RtBuffer& b = f.buffers[slot];
    std::int64_t offset = 0;
    const std::size_t n = indices.size();
    for (std::size_t d = 0; d < n; ++d) {
      std::int64_t i = indices[d].get(f);
      if (static_cast<std::uint64_t>(i) >= static_cast<std::uint64_t>(b.shape[d])) [[unlikely]]
        outOfBounds(f);
      offset += i * b.strides[d];
    }
    return b.data + offset * static_cast<std::int64_t>(elemSize);
  }
  [[noreturn]] void outOfBounds(Frame& f) const;
};

template <typename S> struct IntLoadNode final : IntEval {
  Access access;
  explicit IntLoadNode(Access a) : access(std::move(a)) {}
  std::int64_t eval(Frame& f) const override {
    S v;
    std::memcpy(&v, access.address(f, sizeof(S)), sizeof(S));
    return static_cast<std::int64_t>(v);
  }
};

/// S: float, double, or std::uint16_t holding float16 bits.
template <typename T, typename S> struct FloatLoadNode final : Eval<T> {
  Access access;
  explicit FloatLoadNode(Access a) : access(std::move(a)) {}
  T eval(Frame& f) const override {
    S v;
    std::memcpy(&v, access.address(f, sizeof(S)), sizeof(S));
    if constexpr (std::is_same_v<S, std::uint16_t>) return static_cast<T>(float16Value(v));
    else return static_cast<T>(v);
  }
};

template <typename S> struct IntStoreNode final : Exec {
  Access access;
  IntPtr value;
  IntStoreNode(Access a, IntPtr v) : access(std::move(a)), value(std::move(v)) {}
  void exec(Frame& f) const override {
    S v = static_cast<S>(value->eval(f));
    std::memcpy(access.address(f, sizeof(S)), &v, sizeof(S));
  }
};

template <typename T, typename S> struct FloatStoreNode final : Exec {
  Access access;
  EvalPtr<T> value;
  FloatStoreNode(Access a, EvalPtr<T> v) : access(std::move(a)), value(std::move(v)) {}
  void exec(Frame& f) const override {
    S v;
    if constexpr (std::is_same_v<S, std::uint16_t>) v = float16Bits(static_cast<float>(value->eval(f)));
    else v = static_cast<S>(value->eval(f));
    std::memcpy(access.address(f, sizeof(S)), &v, sizeof(S));
  }
};

} // namespace loopscape::ir::interp
