// Per-store features (features.h states every definition). Two steps:
//   1. collect: one walk over the lowered body records the loops, and for every
//      BufferStore its loop stack (with guard-pinned loops at extent 1), its accesses as
//      affine forms in the loop variables, its op counts per innermost iteration, its
//      unrolled-copy count, and the Allocate of its buffer;
//   2. rows: each store's row from those records; footprints, lines and reuse come from
//      the affine forms (features_access.cpp).
#include "core/tune/features.h"

#include "core/tune/features_detail.h"

#include "core/ir/visitor.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

namespace loopscape::tune {

using namespace detail;

namespace {

// Step 1: collect ------------------------------------------------------------------

/// Enclosing loop variables' values in an extent: each loop's midpoint.
using LoopValues = std::unordered_map<const ir::ExprNode*, double>;

double evalSize(const ir::Expr& e, const FeatureOptions& options, const LoopValues* loops = nullptr) {
  auto value = [&](const ir::Expr& x) { return evalSize(x, options, loops); };
  switch (e.kind()) {
  case ir::ExprKind::IntImm: return static_cast<double>(e.as<ir::IntImm>()->value);
  case ir::ExprKind::Var: {
    if (loops)
      if (auto loop = loops->find(e.get()); loop != loops->end()) return loop->second;
    auto it = options.sizes.find(e.as<ir::Var>()->name);
    return static_cast<double>(it != options.sizes.end() ? it->second : options.defaultSize);
  }
  case ir::ExprKind::Cast: return value(e.as<ir::Cast>()->value);
  case ir::ExprKind::Add: return value(e.as<ir::Add>()->a) + value(e.as<ir::Add>()->b);
  case ir::ExprKind::Sub: return value(e.as<ir::Sub>()->a) - value(e.as<ir::Sub>()->b);
  case ir::ExprKind::Mul: return value(e.as<ir::Mul>()->a) * value(e.as<ir::Mul>()->b);
  case ir::ExprKind::Min: return std::min(value(e.as<ir::Min>()->a), value(e.as<ir::Min>()->b));
  case ir::ExprKind::Max: return std::max(value(e.as<ir::Max>()->a), value(e.as<ir::Max>()->b));
  case ir::ExprKind::Div:
  case ir::ExprKind::FloorDiv: {
    const auto* d = e.as<ir::Div>();
    const auto* fd = e.as<ir::FloorDiv>();
    double b = value(d ? d->b : fd->b);
    return b == 0 ? 0 : std::floor(value(d ? d->a : fd->a) / b);
  }
  case ir::ExprKind::FloorMod: {
    double b = value(e.as<ir::FloorMod>()->b);
    double a = value(e.as<ir::FloorMod>()->a);
    return b == 0 ? 0 : a - std::floor(a / b) * b;
  }
  // Conditions (a version test's): 1 or 0.
  case ir::ExprKind::EQ: return value(e.as<ir::EQ>()->a) == value(e.as<ir::EQ>()->b);
  case ir::ExprKind::NE: return value(e.as<ir::NE>()->a) != value(e.as<ir::NE>()->b);
  case ir::ExprKind::LT: return value(e.as<ir::LT>()->a) < value(e.as<ir::LT>()->b);
  case ir::ExprKind::LE: return value(e.as<ir::LE>()->a) <= value(e.as<ir::LE>()->b);
  case ir::ExprKind::GT: return value(e.as<ir::GT>()->a) > value(e.as<ir::GT>()->b);
  case ir::ExprKind::GE: return value(e.as<ir::GE>()->a) >= value(e.as<ir::GE>()->b);
  case ir::ExprKind::And: return value(e.as<ir::And>()->a) != 0 && value(e.as<ir::And>()->b) != 0;
  case ir::ExprKind::Or: return value(e.as<ir::Or>()->a) != 0 || value(e.as<ir::Or>()->b) != 0;
  case ir::ExprKind::Not: return value(e.as<ir::Not>()->a) == 0;
  default: return static_cast<double>(options.defaultSize);
  }
}

/// Operation counts of one store per innermost iteration, lane-weighted (features.h).
OpCounts countOps(const ir::BufferStore& store) {
  OpCounts counts{};
  std::unordered_map<const ir::ExprNode*, int> absorbed; // Muls already counted in a mad
  auto isMul = [](const ir::Expr& x, ir::DataType t) { return x.is<ir::Mul>() && x.dtype() == t; };
  auto visit = [&](const ir::Expr& e) {
    const double lanes = e.dtype().lanes();
    const bool isFloat = e.dtype().isFloat();
    auto add = [&](int floatIndex, int intIndex, ir::DataType operand) {
      counts[static_cast<std::size_t>(operand.isFloat() ? floatIndex : intIndex)] += lanes;
    };
    switch (e.kind()) {
    case ir::ExprKind::Add:
    case ir::ExprKind::Sub: {
      const ir::Expr& a = e.is<ir::Add>() ? e.as<ir::Add>()->a : e.as<ir::Sub>()->a;
      const ir::Expr& b = e.is<ir::Add>() ? e.as<ir::Add>()->b : e.as<ir::Sub>()->b;
      if (isMul(a, e.dtype()) || isMul(b, e.dtype())) {
        ++absorbed[isMul(a, e.dtype()) ? a.get() : b.get()];
        counts[isFloat ? feature::kFloatMad : feature::kIntMad] += lanes;
      } else {
        counts[isFloat ? feature::kFloatAddSub : feature::kIntAddSub] += lanes;
      }
      break;
    }
    case ir::ExprKind::Mul: {
      auto it = absorbed.find(e.get());
      if (it != absorbed.end() && it->second > 0) {
        --it->second;
        break;
      }
      counts[isFloat ? feature::kFloatMul : feature::kIntMul] += lanes;
      break;
    }
    case ir::ExprKind::Div: add(feature::kFloatDivMod, feature::kIntDivMod, e.dtype()); break;
    case ir::ExprKind::FloorDiv: add(feature::kFloatDivMod, feature::kIntDivMod, e.dtype()); break;
    case ir::ExprKind::FloorMod: add(feature::kFloatDivMod, feature::kIntDivMod, e.dtype()); break;
    case ir::ExprKind::Min: add(feature::kFloatCmp, feature::kIntCmp, e.dtype()); break;
    case ir::ExprKind::Max:
      add(feature::kFloatCmp, feature::kIntCmp, e.dtype());
      break;
#define LS_X(name)                                                                                                     \
  case ir::ExprKind::name: add(feature::kFloatCmp, feature::kIntCmp, e.as<ir::name>()->a.dtype()); break;
      LS_COMPARE_KINDS(LS_X)
#undef LS_X
    case ir::ExprKind::And:
    case ir::ExprKind::Or:
    case ir::ExprKind::Not: counts[feature::kBoolOp] += lanes; break;
    case ir::ExprKind::Select: counts[feature::kSelectOp] += lanes; break;
    case ir::ExprKind::Cast: counts[feature::kCastOp] += lanes; break;
    case ir::ExprKind::Call:
      counts[e.as<ir::Call>()->op == ir::CallOp::Fma ? feature::kFloatMad : feature::kFloatMathFunc] += lanes;
      break;
    default: break; // leaves, loads, Ramp, Broadcast: no arithmetic
    }
  };
  ir::forEachExpr(store.value, visit);
  for (const auto& index : store.indices)
    ir::forEachExpr(index, visit);
  return counts;
}

/// A hash of a statement's shape: equal for statements that differ only in integer
/// constants (the copies an unrolled loop leaves behind).
class ShapeHasher final : public ir::StmtVisitor {
public:
  std::size_t hash = 0x51ed27;

  void visitExpr(const ir::Expr& e) override {
    // `x + c` and `x - c` hash as `x`: the first unrolled copy has no offset.
    if (const auto* add = e.as<ir::Add>(); add && (add->a.is<ir::IntImm>() || add->b.is<ir::IntImm>()))
      return visitExpr(add->a.is<ir::IntImm>() ? add->b : add->a);
    if (const auto* sub = e.as<ir::Sub>(); sub && sub->b.is<ir::IntImm>()) return visitExpr(sub->a);
    mix(static_cast<std::size_t>(e.kind()));
    mix(std::hash<std::string>{}(e.dtype().str()));
    if (const auto* v = e.as<ir::Var>()) mix(std::hash<std::string>{}(v->name));
    if (const auto* f = e.as<ir::FloatImm>()) mix(std::hash<double>{}(f->value));
    if (const auto* s = e.as<ir::StringImm>()) mix(std::hash<std::string>{}(s->value));
    if (const auto* l = e.as<ir::BufferLoad>()) mix(std::hash<const void*>{}(l->buffer.get()));
    if (const auto* c = e.as<ir::Call>()) mix(static_cast<std::size_t>(c->op));
    ir::ExprVisitor::visitExpr(e);
  }
  void visitStmt(const ir::Stmt& s) override {
    mix(0x1000 + static_cast<std::size_t>(s.kind()));
    if (const auto* st = s.as<ir::BufferStore>()) mix(std::hash<const void*>{}(st->buffer.get()));
    if (const auto* f = s.as<ir::For>()) mix(static_cast<std::size_t>(f->forKind));
    ir::StmtFunctor<void>::visitStmt(s);
  }

private:
  void mix(std::size_t v) { hash ^= v + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2); }
};

std::size_t shapeHash(const ir::Stmt& s) {
  ShapeHasher h;
  h(s);
  return h.hash;
}

class Collector {
public:
  explicit Collector(const FeatureOptions& options) : m_options(options) {}

  Program run(const ir::Stmt& body) {
    walk(body, State{});
    for (std::size_t s = 0; s < m_program.stores.size(); ++s)
      for (int loop : m_program.stores[s].loops)
        m_program.loops[static_cast<std::size_t>(loop)].stores.push_back(static_cast<int>(s));
    return std::move(m_program);
  }

private:
  struct State {
    std::vector<int> loops;  // enclosing loops, outermost first
    std::vector<int> pinned; // loops fixed by an enclosing `v == c` guard
    double unroll = 1;       // product of unrolled-copy group sizes
    bool guarded = false;
    double runs = 1;
  };

  void walk(const ir::Stmt& s, State state) {
    switch (s.kind()) {
    case ir::StmtKind::For: {
      const auto& op = *s.as<ir::For>();
      Loop loop;
      loop.var = op.loopVar.get();
      loop.extent = std::max(0.0, evalSize(op.extent, m_options, &m_loopValue));
      m_loopValue[loop.var] = evalSize(op.min, m_options, &m_loopValue) + std::max(0.0, loop.extent - 1) / 2;
      loop.parallel = op.forKind == ir::ForKind::Parallel;
      loop.depth = static_cast<int>(state.loops.size());
      m_loopIndex[loop.var] = static_cast<int>(m_program.loops.size());
      state.loops.push_back(static_cast<int>(m_program.loops.size()));
      m_program.loops.push_back(std::move(loop));
      walk(op.body, std::move(state));
      return;
    }
    case ir::StmtKind::SeqStmt: {
      const auto& seq = s.as<ir::SeqStmt>()->seq;
      std::vector<std::size_t> hashes;
      for (const auto& child : seq)
        hashes.push_back(shapeHash(child));
      for (std::size_t i = 0; i < seq.size(); ++i) {
        State inner = state;
        inner.unroll *= static_cast<double>(std::count(hashes.begin(), hashes.end(), hashes[i]));
        walk(seq[i], std::move(inner));
      }
      return;
    }
    case ir::StmtKind::IfThenElse: {
      const auto& op = *s.as<ir::IfThenElse>();
      State then = state;
      pinGuard(op.condition, then);
      // With an else branch (a version test): the branch the loops' midpoints take runs.
      const bool taken = !op.elseCase.defined() || evalSize(op.condition, m_options, &m_loopValue) != 0;
      if (!taken) then.runs = 0;
      walk(op.thenCase, std::move(then));
      if (op.elseCase.defined()) {
        state.guarded = true;
        if (taken) state.runs = 0;
        walk(op.elseCase, std::move(state));
      }
      return;
    }
    case ir::StmtKind::LetStmt: {
      const auto& op = *s.as<ir::LetStmt>();
      m_letValues[op.var.get()] = op.value;
      walk(op.body, std::move(state));
      return;
    }
    case ir::StmtKind::Allocate: {
      const auto& op = *s.as<ir::Allocate>();
      AllocInfo info;
      info.bytes = elementCount(op.buffer) * op.buffer->dtype.bytes();
      info.depth = static_cast<int>(state.loops.size());
      info.local = op.buffer->scope == ir::MemoryScope::Local;
      m_program.allocs[op.buffer.get()] = info;
      walk(op.body, std::move(state));
      return;
    }
    case ir::StmtKind::BufferStore: addStore(*s.as<ir::BufferStore>(), state); return;
    case ir::StmtKind::BlockRealize: walk(s.as<ir::BlockRealize>()->block, std::move(state)); return;
    case ir::StmtKind::Block: {
      const auto& op = *s.as<ir::Block>();
      if (op.init.defined()) walk(op.init, state);
      walk(op.body, std::move(state));
      return;
    }
    case ir::StmtKind::Evaluate:
    case ir::StmtKind::Assume: return;
    }
    LS_UNREACHABLE("bad StmtKind");
  }

  /// Conjuncts `v == c` on enclosing loops pin v; any other conjunct marks the branch
  /// guarded.
  void pinGuard(const ir::Expr& cond, State& state) {
    if (const auto* a = cond.as<ir::And>()) {
      pinGuard(a->a, state);
      pinGuard(a->b, state);
      return;
    }
    if (const auto* eq = cond.as<ir::EQ>()) {
      const ir::Expr& var = eq->a.is<ir::Var>() ? eq->a : eq->b;
      const ir::Expr& other = eq->a.is<ir::Var>() ? eq->b : eq->a;
      auto it = m_loopIndex.find(var.get());
      if (it != m_loopIndex.end() && other.is<ir::IntImm>() &&
          std::find(state.loops.begin(), state.loops.end(), it->second) != state.loops.end()) {
        state.pinned.push_back(it->second);
        return;
      }
    }
    state.guarded = true;
  }

  double elementCount(const ir::Buffer& b) const {
    double n = 1;
    for (const auto& dim : b->shape)
      n *= std::max(0.0, evalSize(dim, m_options));
    return n;
  }

  void addStore(const ir::BufferStore& op, const State& state) {
    Store store;
    store.loops = state.loops;
    for (int loop : state.loops) {
      bool pinned = std::find(state.pinned.begin(), state.pinned.end(), loop) != state.pinned.end();
      store.extents.push_back(pinned ? 1.0 : m_program.loops[static_cast<std::size_t>(loop)].extent);
    }
    store.lanes = op.value.dtype().lanes();
    store.unroll = state.unroll;
    store.guarded = state.guarded;
    store.runs = state.runs;
    store.buffer = op.buffer.get();
    store.ops = countOps(op);
    auto access = [&](const ir::Buffer& buffer, const ir::Expr& index, bool write) {
      Access a;
      a.buffer = buffer.get();
      a.index = affineOf(index);
      a.lanes = index.dtype().lanes();
      a.write = write;
      if (!m_elements.contains(a.buffer)) m_elements[a.buffer] = elementCount(buffer);
      a.bufferElements = m_elements[a.buffer];
      store.accesses.push_back(std::move(a));
    };
    LS_ASSERT(op.indices.size() == 1, "features need flat (lowered) stores");
    access(op.buffer, op.indices[0], true);
    auto loads = [&](const ir::Expr& e) {
      if (const auto* l = e.as<ir::BufferLoad>(); l && l->indices.size() == 1) access(l->buffer, l->indices[0], false);
    };
    ir::forEachExpr(op.value, loads);
    ir::forEachExpr(op.indices[0], loads);
    m_program.stores.push_back(std::move(store));
  }

  /// The affine form of an index in the loop variables (features.h: approximations).
  Affine affineOf(const ir::Expr& e) const {
    Affine r;
    switch (e.kind()) {
    case ir::ExprKind::IntImm: r.constant = static_cast<double>(e.as<ir::IntImm>()->value); return r;
    case ir::ExprKind::Var: {
      if (auto it = m_loopIndex.find(e.get()); it != m_loopIndex.end()) {
        r.coef[it->second] = 1;
        return r;
      }
      if (auto it = m_letValues.find(e.get()); it != m_letValues.end()) return affineOf(it->second);
      r.constant = evalSize(e, m_options);
      return r;
    }
    case ir::ExprKind::Cast: return affineOf(e.as<ir::Cast>()->value);
    case ir::ExprKind::Broadcast: return affineOf(e.as<ir::Broadcast>()->value);
    case ir::ExprKind::Add: return affineOf(e.as<ir::Add>()->a).plus(affineOf(e.as<ir::Add>()->b), 1);
    case ir::ExprKind::Sub: return affineOf(e.as<ir::Sub>()->a).plus(affineOf(e.as<ir::Sub>()->b), -1);
    case ir::ExprKind::Ramp: {
      const auto& ramp = *e.as<ir::Ramp>();
      r = affineOf(ramp.base);
      Affine stride = affineOf(ramp.stride);
      r.coef[kLanesKey] = stride.coef.empty() ? stride.constant : 1;
      return r;
    }
    case ir::ExprKind::Mul: {
      Affine a = affineOf(e.as<ir::Mul>()->a), b = affineOf(e.as<ir::Mul>()->b);
      if (a.coef.empty()) return b.scaled(a.constant);
      if (b.coef.empty()) return a.scaled(b.constant);
      return opaque(e);
    }
    case ir::ExprKind::Div:
    case ir::ExprKind::FloorDiv: {
      const ir::Expr& num = e.is<ir::Div>() ? e.as<ir::Div>()->a : e.as<ir::FloorDiv>()->a;
      Affine den = affineOf(e.is<ir::Div>() ? e.as<ir::Div>()->b : e.as<ir::FloorDiv>()->b);
      if (den.coef.empty() && den.constant > 0) return affineOf(num).scaled(1.0 / den.constant);
      return opaque(e);
    }
    default: return opaque(e);
    }
  }

  /// Every loop variable in `e` (through let bindings) with coefficient 1.
  Affine opaque(const ir::Expr& e) const {
    Affine r;
    ir::forEachExpr(e, [&](const ir::Expr& x) {
      if (!x.is<ir::Var>()) return;
      if (auto it = m_loopIndex.find(x.get()); it != m_loopIndex.end()) r.coef[it->second] = 1;
      if (auto it = m_letValues.find(x.get()); it != m_letValues.end())
        for (const auto& [loop, c] : opaque(it->second).coef)
          r.coef[loop] = 1;
    });
    if (e.dtype().lanes() > 1) r.coef[kLanesKey] = 1;
    return r;
  }

  const FeatureOptions& m_options;
  Program m_program;
  std::unordered_map<const ir::ExprNode*, int> m_loopIndex;
  LoopValues m_loopValue;
  std::unordered_map<const ir::ExprNode*, ir::Expr> m_letValues;
  std::unordered_map<const ir::BufferNode*, double> m_elements;
};

// Step 2: rows ---------------------------------------------------------------------

void fillParallel(const Program& program, const Store& store, std::vector<float>& row) {
  int outermost = -1;
  double prod = 1, len = 0;
  int num = 0;
  for (std::size_t d = 0; d < store.loops.size(); ++d) {
    if (!program.loops[static_cast<std::size_t>(store.loops[d])].parallel) continue;
    if (outermost < 0) outermost = static_cast<int>(d);
    ++num;
    prod *= store.extents[d];
    len = store.extents[d];
  }
  row[feature::kParallelNum] = static_cast<float>(num);
  row[feature::kParallelProd] = num > 0 ? static_cast<float>(prod) : 0.0F;
  row[feature::kParallelLen] = static_cast<float>(len);
  const int last = static_cast<int>(store.loops.size()) - 1;
  int pos = outermost < 0       ? feature::kParallelPosNone
            : outermost == 0    ? feature::kParallelPosOuter
            : outermost == last ? feature::kParallelPosInner
                                : feature::kParallelPosMiddle;
  row[static_cast<std::size_t>(pos)] = 1;
}

/// Ansor's curve: y = flops / bytes at each loop level, sampled at 10 evenly spaced flops.
void fillIntensity(const Program& program, const Store& store, std::vector<float>& row) {
  const double flops = 2 * store.ops[feature::kFloatMad] + store.ops[feature::kFloatAddSub] +
                       store.ops[feature::kFloatMul] + store.ops[feature::kFloatDivMod] +
                       store.ops[feature::kFloatCmp] + store.ops[feature::kFloatMathFunc];
  if (flops <= 0) return;
  std::vector<double> ops, intensity;
  const int n = static_cast<int>(store.loops.size());
  double inner = 1;
  for (int level = n == 0 ? 0 : n - 1; level >= 0; --level) {
    if (n > 0) inner *= store.extents[static_cast<std::size_t>(level)];
    ops.push_back(flops * inner);
    intensity.push_back(ops.back() / std::max(1.0, storeBytesFrom(program, store, level)));
  }
  std::size_t pt = 0;
  for (int i = 0; i < feature::kArithIntensitySamples; ++i) {
    const double x = ops.back() * (i + 1) / feature::kArithIntensitySamples;
    while (pt + 1 < ops.size() && ops[pt] < x - 1e-4)
      ++pt;
    double y = intensity[pt];
    if (pt > 0 && ops[pt] > ops[pt - 1])
      y = intensity[pt - 1] + (intensity[pt] - intensity[pt - 1]) / (ops[pt] - ops[pt - 1]) * (x - ops[pt - 1]);
    row[static_cast<std::size_t>(feature::kArithIntensityBase + i)] = static_cast<float>(y);
  }
}

bool isFlag(int index) {
  using namespace feature;
  if (index >= kParallelPosOuter && index <= kGuarded) return true;
  if (index == kAllocLocal) return true;
  if (index >= kBufferBase && index < kArithIntensityBase) {
    int field = (index - kBufferBase) % kBufferFieldCount;
    return field <= kAccReadWrite || (field >= kReuseLoopRead && field <= kReuseNone);
  }
  return false;
}

std::vector<float> storeRow(const Program& program, const Store& store, BufferStatsCache& cache) {
  std::vector<float> row(kFeatureCount, 0.0F);
  double prod = 1;
  for (double e : store.extents)
    prod *= e;
  for (std::size_t i = 0; i < store.ops.size(); ++i)
    row[i] = static_cast<float>(store.ops[i] * prod);
  row[feature::kVecLanes] = static_cast<float>(store.lanes);
  row[feature::kUnrollCopies] = static_cast<float>(store.unroll);
  fillParallel(program, store, row);
  row[feature::kGuarded] = store.guarded ? 1.0F : 0.0F;
  std::vector<BufferStats> buffers = bufferStats(program, store, cache);
  for (int slot = 0; slot < feature::kMaxBuffers && slot < static_cast<int>(buffers.size()); ++slot) {
    const BufferStats& b = buffers[static_cast<std::size_t>(slot)];
    auto set = [&](feature::BufferField f, double v) {
      row[static_cast<std::size_t>(feature::bufferFeature(slot, f))] = static_cast<float>(v);
    };
    set(b.read && b.write ? feature::kAccReadWrite : b.write ? feature::kAccWrite : feature::kAccRead, 1);
    set(feature::kBytes, b.bytes);
    set(feature::kUniqueBytes, b.uniqueBytes);
    set(feature::kLines, b.lines);
    set(feature::kUniqueLines, b.uniqueLines);
    set(b.reuse == ReuseKind::LoopMultipleRead  ? feature::kReuseLoopRead
        : b.reuse == ReuseKind::SerialReadWrite ? feature::kReuseSerialRW
                                                : feature::kReuseNone,
        1);
    set(feature::kReuseDisIter, b.reuseDisIter);
    set(feature::kReuseDisBytes, b.reuseDisBytes);
    set(feature::kReuseCt, b.reuseCt);
    const double ct = std::max(1.0, b.reuseCt);
    set(feature::kBytesDReuseCt, b.bytes / ct);
    set(feature::kUniqueBytesDReuseCt, b.uniqueBytes / ct);
    set(feature::kLinesDReuseCt, b.lines / ct);
    set(feature::kUniqueLinesDReuseCt, b.uniqueLines / ct);
    set(feature::kStride, b.stride);
  }
  fillIntensity(program, store, row);
  if (auto it = program.allocs.find(store.buffer); it != program.allocs.end()) {
    double outer = 1;
    for (int d = 0; d < it->second.depth && d < static_cast<int>(store.extents.size()); ++d)
      outer *= store.extents[static_cast<std::size_t>(d)];
    row[feature::kAllocSize] = static_cast<float>(it->second.bytes);
    row[feature::kAllocOuterProd] = static_cast<float>(outer);
    row[feature::kAllocLocal] = it->second.local ? 1.0F : 0.0F;
  }
  row[feature::kOuterProd] = static_cast<float>(prod);
  row[feature::kNumLoops] = static_cast<float>(store.loops.size());
  return row;
}

} // namespace

Program detail::collectProgram(const ir::Stmt& body, const FeatureOptions& options) {
  return Collector(options).run(body);
}

const std::vector<std::string>& featureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"float_mad",
                                  "float_addsub",
                                  "float_mul",
                                  "float_divmod",
                                  "float_cmp",
                                  "float_math_func",
                                  "int_mad",
                                  "int_addsub",
                                  "int_mul",
                                  "int_divmod",
                                  "int_cmp",
                                  "bool_op",
                                  "select_op",
                                  "cast_op",
                                  "vec_lanes",
                                  "unroll_copies",
                                  "parallel_num",
                                  "parallel_prod",
                                  "parallel_len",
                                  "parallel_pos_outer",
                                  "parallel_pos_middle",
                                  "parallel_pos_inner",
                                  "parallel_pos_none",
                                  "guarded"};
    const char* fields[] = {"acc_read",
                            "acc_write",
                            "acc_readwrite",
                            "bytes",
                            "unique_bytes",
                            "lines",
                            "unique_lines",
                            "reuse_loop_read",
                            "reuse_serial_rw",
                            "reuse_none",
                            "reuse_dis_iter",
                            "reuse_dis_bytes",
                            "reuse_ct",
                            "bytes_d_reuse_ct",
                            "unique_bytes_d_reuse_ct",
                            "lines_d_reuse_ct",
                            "unique_lines_d_reuse_ct",
                            "stride"};
    for (int slot = 0; slot < feature::kMaxBuffers; ++slot)
      for (const char* f : fields)
        n.push_back("buf" + std::to_string(slot) + "." + f);
    for (int i = 0; i < feature::kArithIntensitySamples; ++i)
      n.push_back("arith_intensity_" + std::to_string(i));
    for (const char* f : {"alloc_size", "alloc_outer_prod", "alloc_local", "outer_prod", "num_loops"})
      n.push_back(f);
    LS_ASSERT(n.size() == static_cast<std::size_t>(kFeatureCount), "feature name table out of date");
    return n;
  }();
  return names;
}

std::vector<std::vector<float>> extractFeatures(const codegen::LoweredFunc& func, const FeatureOptions& options) {
  std::vector<std::vector<float>> rows;
  if (!func.body.defined()) return rows;
  Program program = collectProgram(func.body, options);
  BufferStatsCache cache;
  for (const Store& store : program.stores) {
    rows.push_back(storeRow(program, store, cache));
    if (!options.logScale) continue;
    for (int i = 0; i < kFeatureCount; ++i)
      if (!isFlag(i))
        rows.back()[static_cast<std::size_t>(i)] = std::log2(1.0F + rows.back()[static_cast<std::size_t>(i)]);
  }
  return rows;
}

} // namespace loopscape::tune
