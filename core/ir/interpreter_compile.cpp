// Compiles a PrimFunc into the node tree of interpreter_nodes.h: resolves variables to
// frame slots and buffers to buffer slots (with lexical scoping), picks the typed node
// for every expression, and builds the statement nodes (loops, block instances,
// allocations). Everything that can be decided before running is decided here.
#include "core/ir/checked_arith.h"
#include "core/ir/file_read.h"
#include "core/ir/interpreter_nodes.h"
#include "core/ir/printer.h"
#include "core/ir/resource_limits.h"
#include "core/ir/visitor.h"

#include <algorithm>
#include <fmt/format.h>
#include <unordered_map>

namespace loopscape::ir::interp {

namespace {

[[noreturn]] void compileError(std::string code, std::string message) {
  throw InterpError{Diagnostic::error(std::move(code), std::move(message))};
}

// ---- statements ---------------------------------------------------------------------

struct SeqNode final : Exec {
  std::vector<ExecPtr> seq;
  void exec(Frame& f) const override {
    for (const auto& s : seq) s->exec(f);
  }
};

struct ForNode final : Exec {
  int slot = 0;
  IntOperand min, extent;
  ExecPtr body;
  void exec(Frame& f) const override {
    const std::int64_t lo = min.get(f), n = extent.get(f);
    for (std::int64_t i = 0; i < n; ++i) {
      if (f.stop.stop_requested()) throw InterpError{Diagnostic::error("interp.cancelled", "cancelled")};
      f.ints[slot] = lo + i;
      body->exec(f);
    }
  }
};

struct IfNode final : Exec {
  IntPtr cond;
  ExecPtr thenCase, elseCase;
  void exec(Frame& f) const override {
    if (cond->eval(f))
      thenCase->exec(f);
    else if (elseCase)
      elseCase->exec(f);
  }
};

template <typename T> struct EvaluateNode final : Exec {
  EvalPtr<T> value;
  void exec(Frame& f) const override { (void)value->eval(f); }
};

struct AssumeNode final : Exec {
  IntPtr cond;
  std::string text; ///< the condition as printed
  const BlockContext* ctx = nullptr;
  void exec(Frame& f) const override {
    if (!cond->eval(f)) raise(f, ctx, "interp.assume-violated", fmt::format("T.assume({}) does not hold", text));
  }
};

struct NopNode final : Exec {
  void exec(Frame&) const override {}
};

struct IntLetNode final : Exec {
  int slot = 0;
  IntPtr value;
  ExecPtr body;
  void exec(Frame& f) const override {
    f.ints[slot] = value->eval(f);
    body->exec(f);
  }
};

template <typename T> struct FloatLetNode final : Exec {
  int slot = 0;
  EvalPtr<T> value;
  ExecPtr body;
  void exec(Frame& f) const override {
    f.floats[slot] = static_cast<double>(value->eval(f));
    body->exec(f);
  }
};

/// A buffer allocated zero-filled for the duration of a block instance or Allocate.
struct AllocSpec {
  int slot = 0;
  DataType dtype;
  std::string name;
  std::vector<IntPtr> shape, strides;
  const BlockContext* ctx = nullptr;

  void allocate(Frame& f) const {
    RtBuffer& b = f.buffers[slot];
    const std::size_t n = shape.size();
    b.shape.resize(n);
    b.strides.resize(n);
    bool empty = false;
    for (std::size_t d = 0; d < n; ++d) {
      b.shape[d] = shape[d]->eval(f);
      if (b.shape[d] < 0)
        raise(f, ctx, "interp.negative-extent",
              fmt::format("buffer {} has negative extent {} in dimension {}", name, b.shape[d], d),
              {{IrReference::Kind::Buffer, name}});
      empty = empty || b.shape[d] == 0;
    }
    // Sizes come from the program and its --shape bindings: every product is checked.
    std::optional<std::int64_t> span = 1;
    if (strides.empty()) {
      for (std::size_t d = n; d-- > 0;) {
        b.strides[d] = span.value_or(0);
        if (span) span = checkedMul(*span, b.shape[d]);
      }
    } else {
      for (std::size_t d = 0; d < n; ++d) {
        b.strides[d] = strides[d]->eval(f);
        if (b.strides[d] < 0)
          raise(f, ctx, "interp.bad-strides", fmt::format("buffer {} has negative stride {}", name, b.strides[d]));
        auto reach = empty ? std::optional<std::int64_t>(0) : checkedMul(b.shape[d] - 1, b.strides[d]);
        span = span && reach ? checkedAdd(*span, *reach) : std::nullopt;
      }
    }
    // Row-major storage is described by the shape (as create() names it); strided
    // storage by the span its strides reach.
    std::vector<std::int64_t> extent =
        strides.empty() ? b.shape : std::vector<std::int64_t>{empty ? 0 : span.value_or(0)};
    auto bytes = NDArray::checkedBytes(extent, dtype, name);
    if (bytes && !span)
      bytes = Unexpected(Diagnostic::error(
          "ndarray.too-large",
          fmt::format("buffer '{}' is too large: its strides reach beyond 64-bit offsets; use smaller sizes", name)));
    if (!bytes) raise(f, ctx, bytes.error().code, bytes.error().message, {{IrReference::Kind::Buffer, name}});
    const std::int64_t limit = resourceLimits().maxBufferBytes;
    if (*bytes > limit - f.allocatedBytes)
      raise(f, ctx, "interp.too-large",
            fmt::format("buffer '{}' needs {} bytes ({}) while the interpreter already holds {} bytes ({}), more "
                        "than the memory limit of {} bytes ({}) in all,",
                        name, *bytes, formatBytes(*bytes), f.allocatedBytes, formatBytes(f.allocatedBytes), limit,
                        formatBytes(limit)),
            {{IrReference::Kind::Buffer, name}});
    auto owned = NDArray::create(std::move(extent), dtype, name);
    if (!owned) raise(f, ctx, owned.error().code, owned.error().message, {{IrReference::Kind::Buffer, name}});
    b.owned = std::move(*owned);
    b.data = b.owned.rawData();
    f.allocatedBytes += *bytes;
  }
  void release(Frame& f) const {
    RtBuffer& b = f.buffers[slot];
    f.allocatedBytes -= static_cast<std::int64_t>(b.owned.nbytes());
    b.owned = NDArray();
    b.data = nullptr;
  }
};

struct AllocateNode final : Exec {
  AllocSpec alloc;
  ExecPtr body;
  void exec(Frame& f) const override {
    alloc.allocate(f);
    body->exec(f);
    alloc.release(f);
  }
};

/// One BlockRealize: bind iterators, check the predicate and domains, allocate, run
/// init (when every reduce iterator is at its minimum) and body, free.
struct BlockNode final : Exec {
  struct Iter {
    IntOperand value, min, extent;
    int slot = 0;
    bool reduce = false;
  };
  std::vector<Iter> iters;
  IntPtr predicate; ///< null when constant true
  ExecPtr init, body;
  std::vector<AllocSpec> allocs;
  const BlockContext* ctx = nullptr;

  void exec(Frame& f) const override {
    if (predicate && !predicate->eval(f)) return;
    for (const auto& it : iters) f.ints[it.slot] = it.value.get(f);
    bool atInit = true;
    for (const auto& it : iters) {
      const std::int64_t v = f.ints[it.slot], lo = it.min.get(f), n = it.extent.get(f);
      if (v < lo || v >= lo + n) [[unlikely]]
        outOfDomain(f, it, lo, n);
      if (it.reduce && v != lo) atInit = false;
    }
    for (const auto& a : allocs) a.allocate(f);
    if (init && atInit) init->exec(f);
    body->exec(f);
    for (const auto& a : allocs) a.release(f);
  }

  [[noreturn]] void outOfDomain(Frame& f, const Iter& it, std::int64_t lo, std::int64_t n) const {
    std::string name;
    for (const auto& [iterName, slot] : ctx->iters)
      if (slot == it.slot) name = iterName;
    raise(f, ctx, "interp.binding-out-of-domain",
          fmt::format("iterator {} = {} is outside its domain [{}, {})", name, f.ints[it.slot], lo, lo + n));
  }
};

// ---- the compiler -------------------------------------------------------------------

class Compiler {
public:
  Compiler(Program& program, const SizeBindings& sizes) : m_program(program), m_sizes(sizes) {}

  IntPtr intExpr(const Expr& e);
  template <typename T> EvalPtr<T> floatExpr(const Expr& e);
  ExecPtr stmt(const Stmt& s);
  IntOperand operand(const Expr& e) {
    IntOperand o;
    if (auto c = asConstInt(e)) {
      o.constant = *c;
      return o;
    }
    if (const auto* v = e.as<Var>(); v && !e.dtype().isFloat()) {
      o.slot = lookupVar(*v, e).slot;
      return o;
    }
    o.expr = intExpr(e);
    return o;
  }
  int newBufferSlot() { return m_program.numBuffers++; }
  void bindBuffer(const Buffer& b, int slot) { m_buffers[b.get()] = slot; }
  void setBlock(const BlockContext* ctx) { m_block = ctx; }

private:
  struct VarSlot {
    bool isFloat = false;
    int slot = 0;
  };
  /// Binds `var` to a new slot until the returned restore function runs.
  VarSlot bindVar(const Expr& var) {
    const bool isFloat = var.dtype().isFloat();
    VarSlot s{isFloat, isFloat ? m_program.numFloats++ : m_program.numInts++};
    m_vars[var.get()].push_back(s);
    return s;
  }
  void unbindVar(const Expr& var) {
    auto it = m_vars.find(var.get());
    it->second.pop_back();
    if (it->second.empty()) m_vars.erase(it);
  }
  VarSlot lookupVar(const Var& v, const Expr& self);
  void checkScalar(const Expr& e) {
    if (!e.dtype().isScalar())
      compileError("interp.unsupported",
                   fmt::format("vector expression of type {} ({}) is not supported by the interpreter yet; "
                               "interpret the program before vectorize lowering",
                               e.dtype().str(), exprKindName(e.kind())));
  }
  Access access(const Buffer& buffer, const std::vector<Expr>& indices, bool isStore);
  ExecPtr store(const BufferStore& s);
  ExecPtr blockRealize(const BlockRealize& r);
  AllocSpec allocSpec(const Buffer& b);
  template <typename T> EvalPtr<T> floatLoad(const BufferLoad& l);

  Program& m_program;
  const SizeBindings& m_sizes;
  std::unordered_map<const ExprNode*, std::vector<VarSlot>> m_vars;
  std::unordered_map<std::string, int> m_sizeSlots;
  std::unordered_map<const BufferNode*, int> m_buffers;
  const BlockContext* m_block = nullptr;
};

Compiler::VarSlot Compiler::lookupVar(const Var& v, const Expr& self) {
  if (auto it = m_vars.find(self.get()); it != m_vars.end()) return it->second.back();
  if (auto it = m_sizeSlots.find(v.name); it != m_sizeSlots.end()) return {false, it->second};
  auto size = m_sizes.find(v.name);
  if (size == m_sizes.end() || !v.dtype.isInteger())
    compileError("interp.unbound-var",
                 fmt::format("variable '{}'{} is not bound: it is not a loop variable, block iterator or let "
                             "variable in scope, nor a size variable with a value",
                             v.name, m_block ? fmt::format(" (in block \"{}\")", m_block->name) : ""));
  int slot = m_program.numInts++;
  m_sizeSlots.emplace(v.name, slot);
  m_program.sizeSlots.emplace_back(v.name, slot);
  return {false, slot};
}

template <template <ExprKind> class Node, typename... A> IntPtr makeIntBin(ExprKind k, A&&... args) {
  switch (k) {
#define LS_X(name)                                                                        \
  case ExprKind::name: return std::make_unique<Node<ExprKind::name>>(std::forward<A>(args)...);
    LS_ARITH_BINARY_KINDS(LS_X)
#undef LS_X
  default: LS_UNREACHABLE("not an arithmetic kind");
  }
}

template <typename T> IntPtr makeCompare(ExprKind k, EvalPtr<T> a, EvalPtr<T> b) {
  switch (k) {
#define LS_X(name)                                                                        \
  case ExprKind::name: return std::make_unique<CompareNode<ExprKind::name, T>>(std::move(a), std::move(b));
    LS_COMPARE_KINDS(LS_X)
#undef LS_X
  default: LS_UNREACHABLE("not a comparison");
  }
}

template <typename T, bool Half> EvalPtr<T> makeFloatBin(ExprKind k, EvalPtr<T> a, EvalPtr<T> b) {
  switch (k) {
#define LS_X(name)                                                                        \
  case ExprKind::name: return std::make_unique<FloatBinNode<ExprKind::name, T, Half>>(std::move(a), std::move(b));
    LS_X(Add) LS_X(Sub) LS_X(Mul) LS_X(Div) LS_X(Min) LS_X(Max)
#undef LS_X
  default: LS_UNREACHABLE("{} on floats", exprKindName(k));
  }
}

bool isArith(ExprKind k) {
  switch (k) {
#define LS_X(name) case ExprKind::name:
    LS_ARITH_BINARY_KINDS(LS_X)
#undef LS_X
    return true;
  default: return false;
  }
}
bool isCompare(ExprKind k) {
  switch (k) {
#define LS_X(name) case ExprKind::name:
    LS_COMPARE_KINDS(LS_X)
#undef LS_X
    return true;
  default: return false;
  }
}

/// Operands of any binary node (same layout for every kind).
std::pair<const Expr*, const Expr*> binaryOperands(const Expr& e) {
  const auto* node = static_cast<const BinaryOp<ExprKind::Add>*>(e.get());
  return {&node->a, &node->b};
}

IntPtr Compiler::intExpr(const Expr& e) {
  checkScalar(e);
  const DataType t = e.dtype();
  LS_ASSERT(!t.isFloat(), "intExpr on {}", t.str());
  const ExprKind k = e.kind();
  if (isArith(k)) {
    auto [a, b] = binaryOperands(e);
    return makeIntBin<IntBinNode>(k, intExpr(*a), intExpr(*b), wrapOf(t), m_block);
  }
  if (isCompare(k)) {
    auto [a, b] = binaryOperands(e);
    const DataType ot = a->dtype();
    if (!ot.isFloat()) return makeCompare<std::int64_t>(k, intExpr(*a), intExpr(*b));
    if (ot.bits() == 64) return makeCompare<double>(k, floatExpr<double>(*a), floatExpr<double>(*b));
    return makeCompare<float>(k, floatExpr<float>(*a), floatExpr<float>(*b));
  }
  switch (k) {
  case ExprKind::IntImm: return std::make_unique<ConstNode<std::int64_t>>(e.as<IntImm>()->value);
  case ExprKind::Var: {
    auto s = lookupVar(*e.as<Var>(), e);
    LS_ASSERT(!s.isFloat, "integer variable in a float slot");
    return std::make_unique<IntVarNode>(s.slot);
  }
  case ExprKind::And: {
    auto [a, b] = binaryOperands(e);
    return std::make_unique<AndNode>(intExpr(*a), intExpr(*b));
  }
  case ExprKind::Or: {
    auto [a, b] = binaryOperands(e);
    return std::make_unique<OrNode>(intExpr(*a), intExpr(*b));
  }
  case ExprKind::Not: return std::make_unique<NotNode>(intExpr(e.as<Not>()->a));
  case ExprKind::Select: {
    const auto* s = e.as<Select>();
    return std::make_unique<SelectNode<std::int64_t>>(intExpr(s->condition), intExpr(s->trueValue),
                                                      intExpr(s->falseValue));
  }
  case ExprKind::Cast: {
    const auto& v = e.as<Cast>()->value;
    checkScalar(v);
    const DataType from = v.dtype();
    if (!from.isFloat()) return std::make_unique<IntCastNode>(intExpr(v), wrapOf(t));
    if (from.bits() == 64) return std::make_unique<FloatToIntNode<double>>(floatExpr<double>(v), from, t, m_block);
    return std::make_unique<FloatToIntNode<float>>(floatExpr<float>(v), from, t, m_block);
  }
  case ExprKind::BufferLoad: {
    const auto* l = e.as<BufferLoad>();
    auto acc = access(l->buffer, l->indices, false);
    if (t.isBool() || t.isUInt()) return std::make_unique<IntLoadNode<std::uint8_t>>(std::move(acc));
    switch (t.bits()) {
    case 8: return std::make_unique<IntLoadNode<std::int8_t>>(std::move(acc));
    case 16: return std::make_unique<IntLoadNode<std::int16_t>>(std::move(acc));
    case 32: return std::make_unique<IntLoadNode<std::int32_t>>(std::move(acc));
    default: return std::make_unique<IntLoadNode<std::int64_t>>(std::move(acc));
    }
  }
  case ExprKind::StringImm:
    compileError("interp.unsupported", fmt::format("string constant \"{}\" used as a value", e.as<StringImm>()->value));
  default:
    compileError("interp.unsupported", fmt::format("{} of type {} is not supported", exprKindName(k), t.str()));
  }
}

template <typename T> EvalPtr<T> Compiler::floatLoad(const BufferLoad& l) {
  auto acc = access(l.buffer, l.indices, false);
  switch (l.buffer->dtype.bits()) {
  case 16: return std::make_unique<FloatLoadNode<T, std::uint16_t>>(std::move(acc));
  case 32: return std::make_unique<FloatLoadNode<T, float>>(std::move(acc));
  default: return std::make_unique<FloatLoadNode<T, double>>(std::move(acc));
  }
}

/// T is float for float16/float32 expressions and double for float64 ones.
template <typename T> EvalPtr<T> Compiler::floatExpr(const Expr& e) {
  checkScalar(e);
  const DataType t = e.dtype();
  LS_ASSERT(t.isFloat() && (t.bits() == 64) == (sizeof(T) == 8), "floatExpr<{}> on {}",
            sizeof(T) == 8 ? "double" : "float", t.str());
  const bool half = t.bits() == 16;
  const ExprKind k = e.kind();
  if (isArith(k)) {
    auto [a, b] = binaryOperands(e);
    if (half) return makeFloatBin<T, true>(k, floatExpr<T>(*a), floatExpr<T>(*b));
    return makeFloatBin<T, false>(k, floatExpr<T>(*a), floatExpr<T>(*b));
  }
  switch (k) {
  case ExprKind::FloatImm: return std::make_unique<ConstNode<T>>(static_cast<T>(e.as<FloatImm>()->value));
  case ExprKind::Var: {
    auto s = lookupVar(*e.as<Var>(), e);
    LS_ASSERT(s.isFloat, "float variable in an integer slot");
    return std::make_unique<FloatVarNode<T>>(s.slot);
  }
  case ExprKind::Select: {
    const auto* s = e.as<Select>();
    return std::make_unique<SelectNode<T>>(intExpr(s->condition), floatExpr<T>(s->trueValue),
                                           floatExpr<T>(s->falseValue));
  }
  case ExprKind::Call: {
    const auto* c = e.as<Call>();
    std::vector<EvalPtr<T>> args;
    for (const auto& a : c->args) args.push_back(floatExpr<T>(a));
    if (half) return std::make_unique<CallNode<T, true>>(c->op, std::move(args));
    return std::make_unique<CallNode<T, false>>(c->op, std::move(args));
  }
  case ExprKind::Cast: {
    const auto& v = e.as<Cast>()->value;
    checkScalar(v);
    const DataType from = v.dtype();
    if (!from.isFloat()) {
      if (half) return std::make_unique<IntToFloatNode<T, true>>(intExpr(v));
      return std::make_unique<IntToFloatNode<T, false>>(intExpr(v));
    }
    if (from.bits() == 64) {
      if (half) return std::make_unique<FloatCastNode<T, double, true>>(floatExpr<double>(v));
      return std::make_unique<FloatCastNode<T, double, false>>(floatExpr<double>(v));
    }
    // float16 -> float32 is exact; float32 -> float16 rounds.
    if (half && from.bits() != 16) return std::make_unique<FloatCastNode<T, float, true>>(floatExpr<float>(v));
    return std::make_unique<FloatCastNode<T, float, false>>(floatExpr<float>(v));
  }
  case ExprKind::BufferLoad: return floatLoad<T>(*e.as<BufferLoad>());
  default:
    compileError("interp.unsupported", fmt::format("{} of type {} is not supported", exprKindName(k), t.str()));
  }
}

Access Compiler::access(const Buffer& buffer, const std::vector<Expr>& indices, bool isStore) {
  auto it = m_buffers.find(buffer.get());
  if (it == m_buffers.end())
    compileError("interp.unbound-buffer",
                 fmt::format("buffer {} is used{} but is neither a parameter nor allocated by an enclosing block "
                             "or Allocate",
                             buffer->name, m_block ? fmt::format(" in block \"{}\"", m_block->name) : ""));
  Access a;
  a.slot = it->second;
  a.ctx = m_block;
  a.bufferName = buffer->name;
  a.isStore = isStore;
  for (const auto& i : indices) {
    checkScalar(i);
    a.indices.push_back(operand(i));
  }
  return a;
}

ExecPtr Compiler::store(const BufferStore& s) {
  checkScalar(s.value);
  auto acc = access(s.buffer, s.indices, true);
  const DataType t = s.buffer->dtype;
  if (t.isFloat()) {
    switch (t.bits()) {
    case 16: return std::make_unique<FloatStoreNode<float, std::uint16_t>>(std::move(acc), floatExpr<float>(s.value));
    case 32: return std::make_unique<FloatStoreNode<float, float>>(std::move(acc), floatExpr<float>(s.value));
    default: return std::make_unique<FloatStoreNode<double, double>>(std::move(acc), floatExpr<double>(s.value));
    }
  }
  auto v = intExpr(s.value);
  if (t.isBool() || t.isUInt()) return std::make_unique<IntStoreNode<std::uint8_t>>(std::move(acc), std::move(v));
  switch (t.bits()) {
  case 8: return std::make_unique<IntStoreNode<std::int8_t>>(std::move(acc), std::move(v));
  case 16: return std::make_unique<IntStoreNode<std::int16_t>>(std::move(acc), std::move(v));
  case 32: return std::make_unique<IntStoreNode<std::int32_t>>(std::move(acc), std::move(v));
  default: return std::make_unique<IntStoreNode<std::int64_t>>(std::move(acc), std::move(v));
  }
}

AllocSpec Compiler::allocSpec(const Buffer& b) {
  if (!b->dtype.isScalar())
    compileError("interp.unsupported", fmt::format("buffer {} has vector type {}", b->name, b->dtype.str()));
  AllocSpec a;
  a.slot = newBufferSlot();
  a.dtype = b->dtype;
  a.name = b->name;
  a.ctx = m_block;
  for (const auto& e : b->shape) a.shape.push_back(intExpr(e));
  for (const auto& e : b->strides) a.strides.push_back(intExpr(e));
  return a;
}

ExecPtr Compiler::blockRealize(const BlockRealize& r) {
  const Block& block = r.blockNode();
  auto node = std::make_unique<BlockNode>();
  auto ctx = std::make_unique<BlockContext>();
  ctx->name = block.name;
  // Bindings, predicate and domains live in the enclosing scope.
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    const auto& iv = block.iterVars[i];
    if (iv.var.dtype().isFloat()) compileError("interp.unsupported", fmt::format("float iterator in block {}", block.name));
    BlockNode::Iter it;
    it.value = operand(r.iterValues[i]);
    it.min = operand(iv.dom.min);
    it.extent = operand(iv.dom.extent);
    it.reduce = iv.kind == IterKind::Reduce;
    node->iters.push_back(std::move(it));
  }
  if (!isConstInt(r.predicate, 1)) node->predicate = intExpr(r.predicate);
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    auto s = bindVar(block.iterVars[i].var);
    node->iters[i].slot = s.slot;
    ctx->iters.emplace_back(block.iterVars[i].var.as<Var>()->name, s.slot);
  }
  const BlockContext* outer = m_block;
  m_block = ctx.get();
  node->ctx = ctx.get();
  m_program.contexts.push_back(std::move(ctx));
  std::vector<std::pair<const BufferNode*, std::optional<int>>> shadowed;
  for (const auto& b : block.allocBuffers) {
    node->allocs.push_back(allocSpec(b));
    auto prev = m_buffers.find(b.get());
    shadowed.emplace_back(b.get(), prev == m_buffers.end() ? std::nullopt : std::optional<int>(prev->second));
    m_buffers[b.get()] = node->allocs.back().slot;
  }
  if (block.init.defined()) node->init = stmt(block.init);
  node->body = stmt(block.body);
  for (const auto& [b, prev] : shadowed) {
    if (prev)
      m_buffers[b] = *prev;
    else
      m_buffers.erase(b);
  }
  m_block = outer;
  for (const auto& iv : block.iterVars) unbindVar(iv.var);
  return node;
}

ExecPtr Compiler::stmt(const Stmt& s) {
  switch (s.kind()) {
  case StmtKind::For: {
    const auto* f = s.as<For>();
    if (f->loopVar.dtype().isFloat() || !f->loopVar.dtype().isScalar())
      compileError("interp.unsupported", fmt::format("loop variable of type {}", f->loopVar.dtype().str()));
    auto node = std::make_unique<ForNode>();
    node->min = operand(f->min);
    node->extent = operand(f->extent);
    node->slot = bindVar(f->loopVar).slot;
    node->body = stmt(f->body);
    unbindVar(f->loopVar);
    return node;
  }
  case StmtKind::BlockRealize: return blockRealize(*s.as<BlockRealize>());
  case StmtKind::Block:
    compileError("interp.unsupported",
                 fmt::format("block \"{}\" appears without a BlockRealize", s.as<Block>()->name));
  case StmtKind::BufferStore: return store(*s.as<BufferStore>());
  case StmtKind::SeqStmt: {
    auto node = std::make_unique<SeqNode>();
    for (const auto& c : s.as<SeqStmt>()->seq) node->seq.push_back(stmt(c));
    return node;
  }
  case StmtKind::IfThenElse: {
    const auto* i = s.as<IfThenElse>();
    auto node = std::make_unique<IfNode>();
    node->cond = intExpr(i->condition);
    node->thenCase = stmt(i->thenCase);
    if (i->elseCase.defined()) node->elseCase = stmt(i->elseCase);
    return node;
  }
  case StmtKind::Evaluate: {
    const auto& v = s.as<Evaluate>()->value;
    if (v.is<StringImm>()) return std::make_unique<NopNode>();
    checkScalar(v);
    if (!v.dtype().isFloat()) {
      auto node = std::make_unique<EvaluateNode<std::int64_t>>();
      node->value = intExpr(v);
      return node;
    }
    if (v.dtype().bits() == 64) {
      auto node = std::make_unique<EvaluateNode<double>>();
      node->value = floatExpr<double>(v);
      return node;
    }
    auto node = std::make_unique<EvaluateNode<float>>();
    node->value = floatExpr<float>(v);
    return node;
  }
  case StmtKind::Assume: {
    auto node = std::make_unique<AssumeNode>();
    node->cond = intExpr(s.as<Assume>()->condition);
    node->text = printExpr(s.as<Assume>()->condition);
    node->ctx = m_block;
    return node;
  }
  case StmtKind::LetStmt: {
    const auto* l = s.as<LetStmt>();
    checkScalar(l->value);
    const DataType t = l->value.dtype();
    if (!t.isFloat()) {
      auto node = std::make_unique<IntLetNode>();
      node->value = intExpr(l->value);
      node->slot = bindVar(l->var).slot;
      node->body = stmt(l->body);
      unbindVar(l->var);
      return node;
    }
    auto build = [&]<typename T>(EvalPtr<T> value) -> ExecPtr {
      auto node = std::make_unique<FloatLetNode<T>>();
      node->value = std::move(value);
      node->slot = bindVar(l->var).slot;
      node->body = stmt(l->body);
      unbindVar(l->var);
      return node;
    };
    if (t.bits() == 64) return build(floatExpr<double>(l->value));
    return build(floatExpr<float>(l->value));
  }
  case StmtKind::Allocate: {
    const auto* a = s.as<Allocate>();
    auto node = std::make_unique<AllocateNode>();
    node->alloc = allocSpec(a->buffer);
    auto prev = m_buffers.find(a->buffer.get());
    std::optional<int> shadowed = prev == m_buffers.end() ? std::nullopt : std::optional<int>(prev->second);
    m_buffers[a->buffer.get()] = node->alloc.slot;
    node->body = stmt(a->body);
    if (shadowed)
      m_buffers[a->buffer.get()] = *shadowed;
    else
      m_buffers.erase(a->buffer.get());
    return node;
  }
  }
  LS_UNREACHABLE("bad StmtKind");
}

} // namespace

Expected<Program> compileProgram(const PrimFunc& func, const SizeBindings& sizes) {
  Program program;
  try {
    Compiler c(program, sizes);
    for (const auto& p : func.params) {
      if (!p->dtype.isScalar())
        compileError("interp.unsupported", fmt::format("parameter {} has vector type {}", p->name, p->dtype.str()));
      ParamLayout layout;
      layout.slot = c.newBufferSlot();
      for (const auto& e : p->strides) layout.strides.push_back(c.intExpr(e));
      c.bindBuffer(p, layout.slot);
      program.params.push_back(std::move(layout));
    }
    program.body = c.stmt(func.body);
  } catch (InterpError& e) {
    return Unexpected(std::move(e.diag));
  }
  return program;
}

namespace {
/// Shapes are sums, products and quotients of sizes: evaluated here exactly, with every
/// step checked against 64 bits and the expression's type; nullopt for any other
/// expression (left to the interpreter's own evaluation).
struct CheckedSizeEval {
  const SizeBindings& sizes;
  bool overflow = false;

  std::optional<std::int64_t> operator()(const Expr& e) {
    const DataType t = e.dtype();
    if (!t.isScalar() || t.isFloat() || t.isBool()) return std::nullopt;
    std::optional<std::int64_t> r;
    switch (e.kind()) {
    case ExprKind::IntImm: return e.as<IntImm>()->value;
    case ExprKind::Var: {
      auto it = sizes.find(e.as<Var>()->name);
      if (it == sizes.end()) return std::nullopt;
      r = it->second;
      break;
    }
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod: {
      auto [pa, pb] = binaryOperands(e);
      auto a = (*this)(*pa);
      if (!a) return std::nullopt;
      auto b = (*this)(*pb);
      if (!b) return std::nullopt;
      switch (e.kind()) {
      case ExprKind::Add: r = checkedAdd(*a, *b); break;
      case ExprKind::Sub: r = checkedSub(*a, *b); break;
      case ExprKind::Mul: r = checkedMul(*a, *b); break;
      case ExprKind::Min: return std::min(*a, *b);
      case ExprKind::Max: return std::max(*a, *b);
      default:
        // Division by zero, INT64_MIN / -1 and the rounding: the interpreter's nodes.
        if (*b == 0 || *b == -1) return std::nullopt;
        if (e.kind() == ExprKind::FloorDiv) return *a / *b - ((*a % *b != 0 && ((*a < 0) != (*b < 0))) ? 1 : 0);
        const std::int64_t rem = *a % *b;
        return rem != 0 && ((rem < 0) != (*b < 0)) ? rem + *b : rem;
      }
      break;
    }
    default: return std::nullopt;
    }
    if (!r || !fitsSignedBits(*r, t.isUInt() ? 9 : t.bits())) {
      overflow = true;
      return std::nullopt;
    }
    return r;
  }
};
} // namespace

Expected<std::int64_t> evalSizeExpr(const Expr& e, const SizeBindings& sizes, const std::string& what) {
  CheckedSizeEval checked{sizes};
  if (auto v = checked(e)) return *v;
  if (checked.overflow) {
    std::vector<std::string> bound;
    forEachExpr(e, [&](const Expr& sub) {
      if (const auto* v = sub.as<Var>(); v && sizes.contains(v->name)) {
        std::string b = fmt::format("{}={}", v->name, sizes.at(v->name));
        if (std::find(bound.begin(), bound.end(), b) == bound.end()) bound.push_back(b);
      }
    });
    return Unexpected(Diagnostic::error(
        "interp.size-too-large",
        fmt::format("{}: {} is too large for {}{}; use smaller sizes", what, printExpr(e), e.dtype().str(),
                    bound.empty() ? "" : fmt::format(" with {}", fmt::join(bound, ", ")))));
  }
  Program program;
  Frame frame;
  try {
    Compiler c(program, sizes);
    auto node = c.intExpr(e);
    frame.ints.resize(program.numInts);
    for (const auto& [name, slot] : program.sizeSlots) frame.ints[slot] = sizes.at(name);
    return node->eval(frame);
  } catch (InterpError& err) {
    if (err.diag.code == "interp.unbound-var") {
      std::string var;
      forEachExpr(e, [&](const Expr& sub) {
        if (const auto* v = sub.as<Var>(); v && var.empty() && !sizes.contains(v->name)) var = v->name;
      });
      return Unexpected(Diagnostic::error("interp.unbound-size",
                                          fmt::format("{}: size variable '{}' is not bound", what, var)));
    }
    return Unexpected(std::move(err.diag));
  }
}

} // namespace loopscape::ir::interp
