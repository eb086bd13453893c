#include "core/codegen/lower_cross_thread.h"

#include "core/codegen/lower_blocks.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/structural_equal.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace loopscape::codegen {

using namespace ir;

namespace {

constexpr const char* kCode = "codegen.gpu-cross-thread-reduction";

const std::string& loopName(const For& f) { return f.loopVar.as<Var>()->name; }

bool isThreadIdx(const For& f) { return f.forKind == ForKind::ThreadBinding && f.threadTag.starts_with("threadIdx."); }

bool usesVar(const Expr& e, const ExprNode* var) {
  bool uses = false;
  forEachExpr(e, [&](const Expr& x) { uses = uses || x.get() == var; });
  return uses;
}

enum class Combiner { Add, Mul, Max, Min };

Expr combine(Combiner c, Expr a, Expr b) {
  switch (c) {
  case Combiner::Add: return Add::make(std::move(a), std::move(b));
  case Combiner::Mul: return Mul::make(std::move(a), std::move(b));
  case Combiner::Max: return Max::make(std::move(a), std::move(b));
  case Combiner::Min: return Min::make(std::move(a), std::move(b));
  }
  return a;
}

/// The largest finite value of a float type.
double maxFinite(DataType t) {
  if (t.bits() == 16) return 65504.0;
  if (t.bits() == 32) return std::numeric_limits<float>::max();
  return std::numeric_limits<double>::max();
}

/// Whether `init` is the identity of `c` for its type.
bool isIdentity(Combiner c, const Expr& init) {
  const DataType t = init.dtype();
  if (auto* f = init.as<FloatImm>()) {
    switch (c) {
    case Combiner::Add: return f->value == 0.0;
    case Combiner::Mul: return f->value == 1.0;
    case Combiner::Max: return f->value <= -maxFinite(t);
    case Combiner::Min: return f->value >= maxFinite(t);
    }
  }
  if (auto* i = init.as<IntImm>()) {
    if (c == Combiner::Add) return i->value == 0;
    if (c == Combiner::Mul) return i->value == 1;
    const int bits = t.bits();
    if (bits > 63 || bits < 1) return false;
    const std::int64_t lowest = t.isUInt() ? 0 : -(std::int64_t{1} << (bits - 1));
    const std::int64_t highest = t.isUInt() ? (std::int64_t{1} << bits) - 1 : (std::int64_t{1} << (bits - 1)) - 1;
    return c == Combiner::Max ? i->value == lowest : i->value == highest;
  }
  return false;
}

/// A recognised reduction update `out[idx] = comb(out[idx], value)`.
struct Update {
  Combiner combiner{};
  Buffer out;
  std::vector<Expr> indices;
  Expr value; ///< the operand that is not out[idx]
  Expr init;  ///< the init's stored value
};

std::optional<Update> matchUpdate(const Block& block) {
  auto* store = block.body.as<BufferStore>();
  auto* initStore = block.init.defined() ? block.init.as<BufferStore>() : nullptr;
  if (!store || !initStore || initStore->buffer.get() != store->buffer.get()) return std::nullopt;
  if (initStore->indices.size() != store->indices.size()) return std::nullopt;
  for (std::size_t i = 0; i < store->indices.size(); ++i)
    if (!structuralEqual(initStore->indices[i], store->indices[i])) return std::nullopt;
  Update u;
  u.out = store->buffer;
  u.indices = store->indices;
  u.init = initStore->value;
  Expr a, b;
  const Expr& v = store->value;
  if (auto* op = v.as<Add>())
    u.combiner = Combiner::Add, a = op->a, b = op->b;
  else if (auto* op = v.as<Mul>())
    u.combiner = Combiner::Mul, a = op->a, b = op->b;
  else if (auto* op = v.as<Max>())
    u.combiner = Combiner::Max, a = op->a, b = op->b;
  else if (auto* op = v.as<Min>())
    u.combiner = Combiner::Min, a = op->a, b = op->b;
  else
    return std::nullopt;
  auto isSelf = [&](const Expr& e) {
    auto* load = e.as<BufferLoad>();
    if (!load || load->buffer.get() != store->buffer.get() || load->indices.size() != store->indices.size())
      return false;
    for (std::size_t i = 0; i < load->indices.size(); ++i)
      if (!structuralEqual(load->indices[i], store->indices[i])) return false;
    return true;
  };
  if (isSelf(a))
    u.value = b;
  else if (isSelf(b))
    u.value = a;
  else
    return std::nullopt;
  // The other operand must not read the output itself.
  bool readsOut = false;
  forEachExpr(u.value, [&](const Expr& e) {
    if (auto* load = e.as<BufferLoad>()) readsOut = readsOut || load->buffer.get() == store->buffer.get();
  });
  if (readsOut) return std::nullopt;
  return u;
}

const char* combinerName(Combiner c) {
  switch (c) {
  case Combiner::Add: return "+";
  case Combiner::Mul: return "*";
  case Combiner::Max: return "max";
  case Combiner::Min: return "min";
  }
  return "?";
}

Diagnostic error(std::string message, const std::string& block, const For* loop) {
  auto d = Diagnostic::error(kCode, std::move(message));
  d.references.push_back({IrReference::Kind::Block, block, nullptr});
  if (loop) d.references.push_back({IrReference::Kind::Loop, loopName(*loop), loop});
  return d;
}

/// The extent of every threadIdx tag the body binds (the first constant one seen).
std::map<std::string, std::int64_t> threadExtents(const Stmt& body) {
  std::map<std::string, std::int64_t> out;
  class Scan final : public StmtVisitor {
  public:
    std::map<std::string, std::int64_t>* out;
    void visitFor(const For& op, const Stmt& self) override {
      if (isThreadIdx(op))
        if (auto e = asConstInt(op.extent)) out->try_emplace(op.threadTag, *e);
      StmtVisitor::visitFor(op, self);
    }
  } scan;
  scan.out = &out;
  scan(body);
  return out;
}

class Lowerer final : public StmtMutator {
public:
  Lowerer(std::map<std::string, std::int64_t> extents, std::vector<Remark>& remarks)
      : m_extents(std::move(extents)), m_remarks(remarks) {}
  std::optional<Diagnostic> failure;

protected:
  Stmt visitFor(const For& op, const Stmt& self) override {
    if (failure) return self;
    // The perfect nest from this loop down to a block.
    std::vector<const For*> chain{&op};
    Stmt inner = op.body;
    while (auto* f = inner.as<For>()) {
      chain.push_back(f);
      inner = f->body;
    }
    if (auto* realize = inner.as<BlockRealize>(); realize && feedsReduce(op, *realize)) {
      std::optional<Stmt> lowered = lowerNest(chain, *realize);
      if (failure) return self;
      if (lowered) return *lowered;
    }
    m_enclosing.push_back(&op);
    Stmt out = StmtMutator::visitFor(op, self);
    m_enclosing.pop_back();
    return out;
  }
  Stmt visitIfThenElse(const IfThenElse& op, const Stmt& self) override {
    ++m_conditional;
    Stmt out = StmtMutator::visitIfThenElse(op, self);
    --m_conditional;
    return out;
  }
  Stmt visitBlockRealize(const BlockRealize& op, const Stmt& self) override {
    if (failure) return self;
    const Block& block = op.blockNode();
    // A reduce binding that uses a threadIdx loop outside a perfect reduce nest.
    for (const For* f : m_enclosing)
      if (isThreadIdx(*f) && feedsReduce(*f, op)) {
        failure = error(fmt::format("block '{}' reduces over loop '{}' bound to {}, but its reduce loops do not form "
                                    "a perfect nest around it (a reduce loop holds other statements): a cross-thread "
                                    "reduction needs its reduce loops directly around the block",
                                    block.name, loopName(*f), f->threadTag),
                        block.name, f);
        return self;
      }
    const bool guarded = !isConstInt(op.predicate, 1);
    m_conditional += guarded;
    Stmt out = StmtMutator::visitBlockRealize(op, self);
    m_conditional -= guarded;
    return out;
  }

private:
  /// Whether the variable of `loop` appears in a reduce binding of `realize`.
  static bool feedsReduce(const For& loop, const BlockRealize& realize) {
    const Block& block = realize.blockNode();
    for (std::size_t i = 0; i < block.iterVars.size(); ++i)
      if (block.iterVars[i].kind == IterKind::Reduce && usesVar(realize.iterValues[i], loop.loopVar.get())) return true;
    return false;
  }
  static bool feedsSpatial(const For& loop, const BlockRealize& realize) {
    const Block& block = realize.blockNode();
    for (std::size_t i = 0; i < block.iterVars.size(); ++i)
      if (block.iterVars[i].kind != IterKind::Reduce && usesVar(realize.iterValues[i], loop.loopVar.get())) return true;
    return usesVar(realize.predicate, loop.loopVar.get()) && !feedsReduce(loop, realize);
  }

  /// The rewrite of lower_cross_thread.h for the nest `chain` (outermost first, its first
  /// loop feeding a reduce binding) around `realize`; nullopt when no reduce loop of the
  /// nest is bound to threadIdx (nothing to do here) or on `failure`.
  std::optional<Stmt> lowerNest(const std::vector<const For*>& chain, const BlockRealize& realize) {
    const Block& block = realize.blockNode();
    // 1. The nest starts at chain[0], which feeds a reduce binding; find its bound loop.
    const For* bound = nullptr;
    for (std::size_t i = 0; i < chain.size(); ++i)
      if (isThreadIdx(*chain[i]) && feedsReduce(*chain[i], realize)) {
        if (bound) {
          failure = error(fmt::format("block '{}' reduces over two loops bound to threads, '{}' ({}) and '{}' ({}); a "
                                      "cross-thread reduction binds one reduce loop",
                                      block.name, loopName(*bound), bound->threadTag, loopName(*chain[i]),
                                      chain[i]->threadTag),
                          block.name, chain[i]);
          return std::nullopt;
        }
        bound = chain[i];
      }
    if (!bound) return std::nullopt;
    // 2. Preconditions.
    for (const For* f : chain)
      if (feedsSpatial(*f, realize)) {
        failure = error(fmt::format("block '{}' reduces over loop '{}' bound to {}, but loop '{}' inside its reduce "
                                    "loops feeds a spatial iterator; a cross-thread reduction needs only reduce loops "
                                    "between its outermost reduce loop and the block",
                                    block.name, loopName(*bound), bound->threadTag, loopName(*f)),
                        block.name, f);
        return std::nullopt;
      }
    for (const For* f : m_enclosing)
      if (feedsReduce(*f, realize)) {
        failure = error(fmt::format("block '{}' reduces over loop '{}' bound to {}, but its reduce loop '{}' holds "
                                    "other statements: a cross-thread reduction needs its reduce loops directly "
                                    "around the block",
                                    block.name, loopName(*bound), bound->threadTag, loopName(*f)),
                        block.name, f);
        return std::nullopt;
      }
    const auto update = matchUpdate(block);
    if (!update) {
      failure = error(fmt::format("block '{}' reduces over loop '{}' bound to {}, but its body is not a reduction "
                                  "update `out[...] = out[...] + value` (or *, max, min) with an init",
                                  block.name, loopName(*bound), bound->threadTag),
                      block.name, bound);
      return std::nullopt;
    }
    if (!isIdentity(update->combiner, update->init)) {
      failure = error(fmt::format("block '{}' reduces over loop '{}' bound to {}, but its init is not the identity "
                                  "of its combiner ({}): every thread's part would start from it",
                                  block.name, loopName(*bound), bound->threadTag, combinerName(update->combiner)),
                      block.name, bound);
      return std::nullopt;
    }
    if (m_conditional > 0) {
      failure = error(fmt::format("block '{}' reduces over loop '{}' bound to {} under a condition: some threads "
                                  "would not reach the barriers of the cross-thread reduction",
                                  block.name, loopName(*bound), bound->threadTag),
                      block.name, bound);
      return std::nullopt;
    }
    const auto boundExtent = asConstInt(bound->extent);
    if (!boundExtent || *boundExtent < 1) return std::nullopt; // lowerGpuKernel says why
    return rewrite(chain, realize, *update, *bound, *boundExtent);
  }

  Stmt rewrite(const std::vector<const For*>& chain, const BlockRealize& realize, const Update& u, const For& bound,
               std::int64_t extent) {
    const Block& block = realize.blockNode();
    const DataType it = bound.loopVar.dtype();
    const DataType dt = u.out->dtype;
    auto cast = [&](Expr e) { return e.dtype() == it ? e : Cast::make(it, std::move(e)); };
    auto imm = [&](std::int64_t v) { return intImm(v, it); };

    // 1. The slot of a thread: enclosing threadIdx loops, then the other launched tags
    //    (wrapped around each step), then the reducing thread.
    Expr outerSlot = imm(0);
    std::int64_t outerCount = 1;
    std::vector<std::string> enclosingTags;
    for (const For* f : m_enclosing) {
      if (!isThreadIdx(*f)) continue;
      auto e = asConstInt(f->extent);
      if (!e) continue;
      enclosingTags.push_back(f->threadTag);
      outerSlot = outerSlot * imm(*e) + (cast(f->loopVar) - cast(f->min));
      outerCount *= *e;
    }
    std::vector<std::pair<std::string, std::int64_t>> others;
    std::int64_t otherCount = 1;
    for (const auto& [tag, e] : m_extents) {
      if (tag == bound.threadTag || e <= 1) continue;
      if (std::find(enclosingTags.begin(), enclosingTags.end(), tag) != enclosingTags.end()) continue;
      others.emplace_back(tag, e);
      otherCount *= e;
    }
    const std::string base = block.name;
    const Buffer local = makeBuffer(base + "_red_local", dt, {intImm(1)}, MemoryScope::Local);
    const Buffer shared =
        makeBuffer(base + "_red_shared", dt, {intImm(outerCount * otherCount * extent)}, MemoryScope::Shared);
    const Expr localValue = BufferLoad::make(local, {intImm(0)});

    // 2. The part each thread reduces, into its local buffer.
    VarMap bindings;
    for (std::size_t i = 0; i < block.iterVars.size(); ++i)
      bindings[block.iterVars[i].var.get()] = realize.iterValues[i];
    Stmt partial =
        BufferStore::make(local, combine(u.combiner, localValue, substitute(u.value, bindings)), {intImm(0)});
    if (!isConstInt(realize.predicate, 1)) partial = IfThenElse::make(realize.predicate, partial);
    partial = SeqStmt::make({makeBlockMarker(block.name, false), partial});
    for (auto f = chain.rbegin(); f != chain.rend(); ++f)
      partial =
          For::make((*f)->loopVar, (*f)->min, (*f)->extent, (*f)->forKind, partial, (*f)->threadTag, (*f)->annotations);

    // 3. The steps over the shared buffer, each run by every thread of the block.
    int stepNo = 0;
    auto step = [&](auto body /* (Expr t, Expr slot) -> Stmt */) {
      const std::string suffix = fmt::format("_red{}", stepNo++);
      Expr t = Var::make(loopName(bound) + suffix, it);
      std::vector<Expr> otherVars;
      Expr otherSlot = imm(0);
      for (const auto& [tag, e] : others) {
        std::string name = tag;
        name[name.find('.')] = '_';
        Expr v = Var::make(name + suffix, it);
        otherVars.push_back(v);
        otherSlot = otherSlot * imm(e) + v;
      }
      Expr slot = (outerSlot * imm(otherCount) + otherSlot) * imm(extent) + t;
      Stmt s = body(t, slot);
      s = For::make(t, imm(0), imm(extent), ForKind::ThreadBinding, s, bound.threadTag);
      for (std::size_t i = others.size(); i-- > 0;)
        s = For::make(otherVars[i], imm(0), imm(others[i].second), ForKind::ThreadBinding, s, others[i].first);
      return s;
    };
    std::vector<Stmt> stmts;
    stmts.push_back(SeqStmt::make({makeBlockMarker(block.name, true), BufferStore::make(local, u.init, {intImm(0)})}));
    stmts.push_back(partial);
    stmts.push_back(step([&](const Expr&, const Expr& slot) { return BufferStore::make(shared, localValue, {slot}); }));
    std::int64_t p = 1;
    while (p * 2 <= extent)
      p *= 2;
    auto fold = [&](std::int64_t active, std::int64_t offset) {
      stmts.push_back(step([&](const Expr& t, const Expr& slot) {
        Expr sum =
            combine(u.combiner, BufferLoad::make(shared, {slot}), BufferLoad::make(shared, {slot + imm(offset)}));
        return IfThenElse::make(t < imm(active), BufferStore::make(shared, sum, {slot}));
      }));
    };
    if (p < extent) fold(extent - p, p);
    for (std::int64_t s = p / 2; s >= 1; s /= 2)
      fold(s, s);
    // 4. The write-back, from the slot of thread 0 (of the reducing and the other tags).
    Expr outIndex = (outerSlot * imm(otherCount)) * imm(extent);
    stmts.push_back(BufferStore::make(u.out, BufferLoad::make(shared, {outIndex}), u.indices));
    Stmt out = substitute(SeqStmt::make(std::move(stmts)), bindings);
    m_remarks.push_back({loopName(bound), fmt::format("cross-thread reduction of block '{}' ({}) over {} threads of "
                                                      "{}: a per-thread part into '{}', then a tree in shared '{}'",
                                                      block.name, combinerName(u.combiner), extent, bound.threadTag,
                                                      local->name, shared->name)});
    return Allocate::make(local, Allocate::make(shared, out));
  }

  std::map<std::string, std::int64_t> m_extents;
  std::vector<Remark>& m_remarks;
  std::vector<const For*> m_enclosing;
  int m_conditional = 0;
};

} // namespace

Expected<Stmt> lowerCrossThreadReductions(const Stmt& body, std::vector<Remark>& remarks) {
  Lowerer lowerer(threadExtents(body), remarks);
  Stmt out = lowerer.mutate(body);
  if (lowerer.failure) return Unexpected(std::move(*lowerer.failure));
  return out;
}

} // namespace loopscape::codegen
