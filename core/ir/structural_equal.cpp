// Structural equality and hashing through one canonical serialisation.
//
// A program is written as a prefix-free stream of 64-bit tokens: node kinds, dtypes,
// constants (floats by bit pattern), strings (length, then bytes), child counts, and for
// variables and buffers their number in order of first appearance instead of their name.
// A buffer's dtype, scope, shape and strides are written where it first appears. Two
// programs are structurally equal exactly when their streams are equal: equal numberings
// by first appearance are the same thing as a bijection between the variables (and the
// buffers) that respects the order of first appearance. The hash is a hash of the same
// stream, so equal programs hash equal by construction.
#include "core/ir/structural_equal.h"

#include "core/ir/functor.h"

#include <cstring>
#include <unordered_map>

namespace loopscape::ir {

namespace {

enum Tag : std::uint64_t {
  kUndefinedExpr = 1,
  kUndefinedStmt,
  kUndefinedBuffer,
  kNewBuffer,
  kBufferRef,
  kNewVar,
  kVarRef,
  kFunction,
  kExprBase = 0x100,
  kStmtBase = 0x200,
};

class Serializer final : public ExprFunctor<void>, public StmtFunctor<void> {
public:
  std::vector<std::uint64_t> tokens;

  void expr(const Expr& e) {
    if (!e.defined()) return push(kUndefinedExpr);
    push(kExprBase + static_cast<std::uint64_t>(e.kind()));
    dtype(e.dtype());
    visitExpr(e);
  }

  void stmt(const Stmt& s) {
    if (!s.defined()) return push(kUndefinedStmt);
    push(kStmtBase + static_cast<std::uint64_t>(s.kind()));
    visitStmt(s);
  }

  void function(const PrimFunc& f) {
    push(kFunction);
    push(f.params.size());
    for (const auto& p : f.params)
      buffer(p);
    annotations(f.attrs);
    stmt(f.body);
  }

private:
  void push(std::uint64_t token) { tokens.push_back(token); }

  void dtype(DataType t) {
    push((static_cast<std::uint64_t>(t.code()) << 32) | (static_cast<std::uint64_t>(t.bits()) << 16) |
         static_cast<std::uint64_t>(t.lanes()));
  }

  void string(const std::string& s) {
    push(s.size());
    for (std::size_t i = 0; i < s.size(); i += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, s.data() + i, std::min<std::size_t>(8, s.size() - i));
      push(word);
    }
  }

  void exprs(const std::vector<Expr>& list) {
    push(list.size());
    for (const auto& e : list)
      expr(e);
  }

  void range(const Range& r) {
    expr(r.min);
    expr(r.extent);
  }

  void buffer(const Buffer& b) {
    if (!b.defined()) return push(kUndefinedBuffer);
    auto [it, inserted] = m_buffers.try_emplace(b.get(), m_buffers.size());
    if (!inserted) {
      push(kBufferRef);
      push(it->second);
      return;
    }
    push(kNewBuffer);
    push(it->second);
    dtype(b->dtype);
    push(static_cast<std::uint64_t>(b->scope));
    exprs(b->shape);
    exprs(b->strides);
  }

  void regions(const std::vector<BufferRegion>& list) {
    push(list.size());
    for (const auto& r : list) {
      buffer(r.buffer);
      push(r.region.size());
      for (const auto& rg : r.region)
        range(rg);
    }
  }

  void annotations(const Annotations& annotations) {
    push(annotations.size());
    for (const auto& [key, value] : annotations) {
      string(key);
      expr(value);
    }
  }

  // ---- expressions (kind and dtype already written) -------------------------------------

  void visitIntImm(const IntImm& op, const Expr&) override { push(static_cast<std::uint64_t>(op.value)); }
  void visitFloatImm(const FloatImm& op, const Expr&) override {
    std::uint64_t bits;
    std::memcpy(&bits, &op.value, sizeof bits);
    push(bits);
  }
  void visitStringImm(const StringImm& op, const Expr&) override { string(op.value); }
  void visitVar(const Var&, const Expr& self) override {
    auto [it, inserted] = m_vars.try_emplace(self.get(), m_vars.size());
    push(inserted ? kNewVar : kVarRef);
    push(it->second);
  }
#define LS_X(name)                                                                                                     \
  void visit##name(const name& op, const Expr&) override {                                                             \
    expr(op.a);                                                                                                        \
    expr(op.b);                                                                                                        \
  }
  LS_BINARY_KINDS(LS_X)
#undef LS_X
  void visitNot(const Not& op, const Expr&) override { expr(op.a); }
  void visitSelect(const Select& op, const Expr&) override {
    push(op.lazy ? 1 : 0);
    expr(op.condition);
    expr(op.trueValue);
    expr(op.falseValue);
  }
  void visitCast(const Cast& op, const Expr&) override { expr(op.value); }
  void visitCall(const Call& op, const Expr&) override {
    push(static_cast<std::uint64_t>(op.op));
    exprs(op.args);
  }
  void visitBufferLoad(const BufferLoad& op, const Expr&) override {
    buffer(op.buffer);
    exprs(op.indices);
  }
  void visitRamp(const Ramp& op, const Expr&) override {
    push(static_cast<std::uint64_t>(op.lanes));
    expr(op.base);
    expr(op.stride);
  }
  void visitBroadcast(const Broadcast& op, const Expr&) override {
    push(static_cast<std::uint64_t>(op.lanes));
    expr(op.value);
  }

  // ---- statements (kind already written) ------------------------------------------------

  void visitFor(const For& op, const Stmt&) override {
    expr(op.loopVar);
    expr(op.min);
    expr(op.extent);
    push(static_cast<std::uint64_t>(op.forKind));
    string(op.threadTag);
    annotations(op.annotations);
    stmt(op.body);
  }
  void visitBlockRealize(const BlockRealize& op, const Stmt&) override {
    exprs(op.iterValues);
    expr(op.predicate);
    stmt(op.block);
  }
  void visitBlock(const Block& op, const Stmt&) override {
    string(op.name);
    push(op.iterVars.size());
    for (const auto& iv : op.iterVars) {
      expr(iv.var);
      range(iv.dom);
      push(static_cast<std::uint64_t>(iv.kind));
    }
    push(op.allocBuffers.size());
    for (const auto& b : op.allocBuffers)
      buffer(b);
    regions(op.reads);
    regions(op.writes);
    stmt(op.init);
    stmt(op.body);
    annotations(op.annotations);
  }
  void visitBufferStore(const BufferStore& op, const Stmt&) override {
    buffer(op.buffer);
    expr(op.value);
    exprs(op.indices);
  }
  void visitSeqStmt(const SeqStmt& op, const Stmt&) override {
    push(op.seq.size());
    for (const auto& s : op.seq)
      stmt(s);
  }
  void visitIfThenElse(const IfThenElse& op, const Stmt&) override {
    expr(op.condition);
    stmt(op.thenCase);
    stmt(op.elseCase);
  }
  void visitEvaluate(const Evaluate& op, const Stmt&) override { expr(op.value); }
  void visitAssume(const Assume& op, const Stmt&) override { expr(op.condition); }
  void visitLetStmt(const LetStmt& op, const Stmt&) override {
    expr(op.var);
    expr(op.value);
    stmt(op.body);
  }
  void visitAllocate(const Allocate& op, const Stmt&) override {
    buffer(op.buffer);
    stmt(op.body);
  }

  std::unordered_map<const ExprNode*, std::uint64_t> m_vars;
  std::unordered_map<const BufferNode*, std::uint64_t> m_buffers;
};

template <typename T> std::vector<std::uint64_t> serialize(const T& node) {
  Serializer s;
  if constexpr (std::is_same_v<T, Expr>)
    s.expr(node);
  else if constexpr (std::is_same_v<T, Stmt>)
    s.stmt(node);
  else
    s.function(node);
  return std::move(s.tokens);
}

std::uint64_t mix(std::uint64_t x) { // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t hashTokens(const std::vector<std::uint64_t>& tokens) {
  std::uint64_t h = mix(tokens.size());
  for (auto t : tokens)
    h = mix(h ^ mix(t));
  return h;
}

} // namespace

bool structuralEqual(const Expr& a, const Expr& b) { return a.sameAs(b) || serialize(a) == serialize(b); }
bool structuralEqual(const Stmt& a, const Stmt& b) { return a.sameAs(b) || serialize(a) == serialize(b); }
bool structuralEqual(const PrimFunc& a, const PrimFunc& b) { return serialize(a) == serialize(b); }

std::uint64_t structuralHash(const Expr& e) { return hashTokens(serialize(e)); }
std::uint64_t structuralHash(const Stmt& s) { return hashTokens(serialize(s)); }
std::uint64_t structuralHash(const PrimFunc& f) { return hashTokens(serialize(f)); }

} // namespace loopscape::ir
