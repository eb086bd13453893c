// Scop extraction: one walk over the statement tree. Loops push a dimension, scope
// blocks (blocks that contain blocks) push their iterator bindings as substitutions, and
// leaf blocks become statements whose domains, iterator values and accesses are built in
// the space of their enclosing loops. The schedule tree is built bottom-up with the same
// walk: a band per loop (a mark above it for non-serial loops), a sequence for siblings.
#include "core/poly/scop.h"

#include "core/poly/affine.h"
#include "core/poly/isl_util.h"

#include "core/ir/printer.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <unordered_set>

namespace loopscape::poly {

using namespace detail;

const ScopStatement* Scop::findStatement(std::string_view name) const {
  for (const auto& s : statements)
    if (s.name == name) return &s;
  return nullptr;
}

std::string Scop::bufferTuple(const ir::Buffer& buffer) const {
  for (const auto& [name, b] : buffers)
    if (b.sameAs(buffer)) return name;
  return {};
}

isl::union_map Scop::scheduleMap() const { return schedule.get_map(); }

namespace {

/// A failure that ends the extraction with a Diagnostic.
struct ExtractError {
  Diagnostic diagnostic;
};

bool containsBlock(const ir::Stmt& s) {
  bool found = false;
  struct Finder final : ir::StmtVisitor {
    bool* found;
    void visitExpr(const ir::Expr&) override {}
    void visitBlockRealize(const ir::BlockRealize&, const ir::Stmt&) override { *found = true; }
  } finder;
  finder.found = &found;
  finder.visitStmt(s);
  return found;
}

/// Collects the variables bound by loops, blocks and lets, and every Var referenced.
void collectVars(const ir::Stmt& s, std::unordered_set<const ir::ExprNode*>& bound, std::vector<ir::Expr>& used) {
  struct Collector final : ir::StmtVisitor {
    std::unordered_set<const ir::ExprNode*>* bound;
    std::vector<ir::Expr>* used;
    void visitExpr(const ir::Expr& e) override {
      if (e.is<ir::Var>()) used->push_back(e);
      ir::ExprVisitor::visitExpr(e);
    }
    void visitFor(const ir::For& op, const ir::Stmt& self) override {
      bound->insert(op.loopVar.get());
      ir::StmtVisitor::visitFor(op, self);
    }
    void visitBlock(const ir::Block& op, const ir::Stmt& self) override {
      for (const auto& iv : op.iterVars) bound->insert(iv.var.get());
      ir::StmtVisitor::visitBlock(op, self);
    }
    void visitLetStmt(const ir::LetStmt& op, const ir::Stmt& self) override {
      bound->insert(op.var.get());
      ir::StmtVisitor::visitLetStmt(op, self);
    }
  } c;
  c.bound = &bound;
  c.used = &used;
  c.visitStmt(s);
}

struct LoopFrame {
  ir::Expr var;
  std::string name; ///< isl dimension name (deduplicated within the nest)
  int index;        ///< into Scop::loops
  ir::Expr min, extent; ///< substituted bounds
};

class Extractor {
public:
  Extractor(const ir::PrimFunc& func, Scop& scop, ScopContent content)
      : m_func(func), m_scop(scop), m_content(content) {}

  void run() {
    m_scop.funcName = m_func.name;
    std::unordered_set<const ir::ExprNode*> bound;
    std::vector<ir::Expr> used;
    for (const auto& p : m_func.params)
      for (const auto& d : p->shape) collectVars(ir::Evaluate::make(d), bound, used);
    collectVars(m_func.body, bound, used);
    for (const auto& v : used) {
      if (bound.contains(v.get()) || !v.dtype().isInteger()) continue;
      const auto& name = v.as<ir::Var>()->name;
      if (std::find(m_scop.params.begin(), m_scop.params.end(), name) == m_scop.params.end())
        m_scop.params.push_back(name);
    }
    for (const auto& p : m_func.params) bufferTuple(p);
    // Context: every symbolic size is at least 1.
    AffineSpace ps(m_scop.params, {}, "");
    isl::set ctx = ps.universe().params();
    for (std::size_t i = 0; i < m_scop.params.size(); ++i) {
      auto v = ps.toPwAff(paramVar(i));
      ctx = ctx.intersect(v->ge_set(ps.constant(1)).params());
    }
    m_scop.context = ctx;

    std::optional<isl::schedule> sched = walk(m_func.body);
    m_scop.domain = isl::union_set::empty(islContext());
    m_scop.reads = m_scop.mustWrites = m_scop.mayWrites = m_scop.instances = isl::union_map::empty(islContext());
    for (const auto& s : m_scop.statements) {
      m_scop.domain = m_scop.domain.unite(s.domain);
      m_scop.reads = m_scop.reads.unite(s.reads);
      m_scop.mustWrites = m_scop.mustWrites.unite(s.mustWrites);
      m_scop.mayWrites = m_scop.mayWrites.unite(s.mayWrites).unite(s.mustWrites);
      m_scop.instances = m_scop.instances.unite(isl::union_map(s.iterValues.as_map()));
    }
    m_scop.schedule = sched ? *sched : isl::schedule::from_domain(m_scop.domain);
  }

private:
  ir::Expr paramVar(std::size_t i) {
    // A stand-in Var carrying the parameter's name (AffineSpace resolves params by name).
    return ir::Var::make(m_scop.params[i]);
  }

  std::string bufferTuple(const ir::Buffer& b) {
    if (auto t = m_scop.bufferTuple(b); !t.empty()) return t;
    std::string name = b->name;
    for (int k = 1; m_scop.buffers.contains(name); ++k) name = fmt::format("{}_{}", b->name, k);
    m_scop.buffers.emplace(name, b);
    return name;
  }

  [[noreturn]] void nonAffine(const std::string& block, const std::string& what, const ir::Expr& e) {
    Diagnostic d = Diagnostic::error(
        "poly.non-affine", fmt::format("block '{}': {} `{}` is not quasi-affine; the polyhedral model cannot "
                                       "represent it",
                                       block, what, ir::printExpr(e)));
    d.references.push_back({IrReference::Kind::Block, block});
    throw ExtractError{std::move(d)};
  }

  ir::Expr sub(const ir::Expr& e) const { return m_subst.empty() ? e : ir::substitute(e, m_subst); }

  std::optional<isl::schedule> sequence(std::optional<isl::schedule> a, std::optional<isl::schedule> b) {
    if (!a) return b;
    if (!b) return a;
    return scheduleSequence(*a, *b);
  }

  std::optional<isl::schedule> walk(const ir::Stmt& s) {
    if (!s) return std::nullopt;
    switch (s.kind()) {
    case ir::StmtKind::For: return walkFor(*s.as<ir::For>(), s);
    case ir::StmtKind::SeqStmt: {
      std::optional<isl::schedule> out;
      for (const auto& c : s.as<ir::SeqStmt>()->seq) out = sequence(out, walk(c));
      return out;
    }
    case ir::StmtKind::BlockRealize: return walkRealize(s);
    case ir::StmtKind::IfThenElse: {
      const auto& op = *s.as<ir::IfThenElse>();
      m_conditions.push_back(sub(op.condition));
      auto t = walk(op.thenCase);
      m_conditions.back() = ir::Not::make(sub(op.condition));
      auto f = walk(op.elseCase);
      m_conditions.pop_back();
      return sequence(t, f);
    }
    case ir::StmtKind::LetStmt: {
      const auto& op = *s.as<ir::LetStmt>();
      m_subst[op.var.get()] = sub(op.value);
      auto out = walk(op.body);
      m_subst.erase(op.var.get());
      return out;
    }
    case ir::StmtKind::Allocate: return walk(s.as<ir::Allocate>()->body);
    case ir::StmtKind::Evaluate:
    case ir::StmtKind::Assume: return std::nullopt;
    case ir::StmtKind::BufferStore:
    case ir::StmtKind::Block: {
      Diagnostic d = Diagnostic::error("poly.unsupported",
                                       fmt::format("a {} outside of a block cannot be modelled as a statement",
                                                   ir::stmtKindName(s.kind())));
      throw ExtractError{std::move(d)};
    }
    }
    return std::nullopt;
  }

  std::optional<isl::schedule> walkFor(const ir::For& f, const ir::Stmt& self) {
    std::string name = f.loopVar.as<ir::Var>()->name;
    auto taken = [&](const std::string& n) {
      return std::any_of(m_loops.begin(), m_loops.end(), [&](const LoopFrame& l) { return l.name == n; });
    };
    if (taken(name)) {
      std::string base = name;
      for (int k = 1; taken(name); ++k) name = fmt::format("{}_{}", base, k);
    }
    const int index = static_cast<int>(m_scop.loops.size());
    ScopLoop loop;
    loop.name = name;
    loop.loop = self;
    loop.parent = m_loops.empty() ? -1 : m_loops.back().index;
    loop.depth = static_cast<int>(m_loops.size());
    m_scop.loops.push_back(loop);
    m_loops.push_back({f.loopVar, name, index, sub(f.min), sub(f.extent)});
    const std::size_t first = m_scop.statements.size();
    auto body = walk(f.body);
    m_loops.pop_back();
    for (std::size_t i = first; i < m_scop.statements.size(); ++i) m_scop.loops[index].statements.push_back(int(i));
    if (!body) return std::nullopt;

    // The band: { S[..., loop, ...] -> [loop] } for every statement inside.
    const int depth = m_scop.loops[index].depth;
    std::optional<isl::union_pw_aff> upa;
    for (std::size_t i = first; i < m_scop.statements.size(); ++i) {
      isl::space sp = m_scop.statements[i].domain.space();
      isl_local_space* ls = isl_local_space_from_space(sp.release());
      isl::pw_aff pa = isl::manage(isl_pw_aff_from_aff(check(isl_aff_var_on_domain(ls, isl_dim_set, depth), "band")));
      isl::union_pw_aff u(pa);
      upa = upa ? upa->union_add(u) : u;
    }
    isl_multi_union_pw_aff* mupa = isl_multi_union_pw_aff_from_union_pw_aff(upa->release());
    mupa = isl_multi_union_pw_aff_set_dim_id(mupa, isl_dim_set, 0, makeId(name).release());
    isl::schedule out = scheduleInsertBand(*body, isl::manage(check(mupa, "band partial schedule")));
    switch (f.forKind) {
    case ir::ForKind::Serial: break;
    case ir::ForKind::Parallel: out = scheduleInsertMark(out, "parallel"); break;
    case ir::ForKind::Vectorized: out = scheduleInsertMark(out, "vectorized"); break;
    case ir::ForKind::Unrolled: out = scheduleInsertMark(out, "unroll"); break;
    case ir::ForKind::ThreadBinding: out = scheduleInsertMark(out, "thread_binding(" + f.threadTag + ")"); break;
    }
    return out;
  }

  std::optional<isl::schedule> walkRealize(const ir::Stmt& realizeStmt) {
    const auto& realize = *realizeStmt.as<ir::BlockRealize>();
    const auto& block = realize.blockNode();
    if (!containsBlock(block.body)) {
      std::optional<isl::schedule> out;
      if (block.init) out = makeStatement(realizeStmt, true);
      return sequence(out, makeStatement(realizeStmt, false));
    }
    // A scope block: its iterators become substitutions, its predicate a condition.
    std::vector<const ir::ExprNode*> added;
    for (std::size_t i = 0; i < block.iterVars.size() && i < realize.iterValues.size(); ++i) {
      m_subst[block.iterVars[i].var.get()] = sub(realize.iterValues[i]);
      added.push_back(block.iterVars[i].var.get());
    }
    const bool hasPredicate = realize.predicate && !ir::isConstInt(realize.predicate, 1);
    if (hasPredicate) m_conditions.push_back(sub(realize.predicate));
    std::optional<isl::schedule> out;
    if (block.init) out = makeStatement(realizeStmt, true);
    out = sequence(out, walk(block.body));
    if (hasPredicate) m_conditions.pop_back();
    for (auto* v : added) m_subst.erase(v);
    return out;
  }

  isl::schedule makeStatement(const ir::Stmt& realizeStmt, bool isInit);

  const ir::PrimFunc& m_func;
  Scop& m_scop;
  ScopContent m_content;
  std::vector<LoopFrame> m_loops;
  std::vector<ir::Expr> m_conditions;
  ir::VarMap m_subst;
  friend class AccessCollector;
};

/// Collects the accesses of one block body (or init) in the space of the statement's loops
/// plus the body's own loops (projected out) and fresh dimensions for non-affine indices.
class AccessCollector {
public:
  AccessCollector(Scop& scop, ScopStatement& stmt, std::vector<std::pair<ir::Expr, std::string>> dims,
                  std::vector<ir::Expr> conditions, std::function<std::string(const ir::Buffer&)> tuple)
      : m_scop(scop), m_stmt(stmt), m_dims(std::move(dims)), m_baseDims(int(m_dims.size())),
        m_conditions(std::move(conditions)), m_tuple(std::move(tuple)) {}

  void stmt(const ir::Stmt& s) {
    if (!s) return;
    switch (s.kind()) {
    case ir::StmtKind::BufferStore: {
      const auto& op = *s.as<ir::BufferStore>();
      for (const auto& i : op.indices) expr(i);
      expr(op.value);
      access(op.buffer, op.indices, true);
      return;
    }
    case ir::StmtKind::SeqStmt:
      for (const auto& c : s.as<ir::SeqStmt>()->seq) stmt(c);
      return;
    case ir::StmtKind::IfThenElse: {
      const auto& op = *s.as<ir::IfThenElse>();
      expr(op.condition);
      m_conditions.push_back(op.condition);
      stmt(op.thenCase);
      m_conditions.back() = ir::Not::make(op.condition);
      stmt(op.elseCase);
      m_conditions.pop_back();
      return;
    }
    case ir::StmtKind::For: {
      const auto& op = *s.as<ir::For>();
      expr(op.min);
      expr(op.extent);
      m_dims.push_back({op.loopVar, op.loopVar.as<ir::Var>()->name});
      m_localRanges.push_back({op.loopVar, op.min, op.extent});
      stmt(op.body);
      m_localRanges.pop_back();
      m_dims.pop_back();
      return;
    }
    case ir::StmtKind::LetStmt: {
      const auto& op = *s.as<ir::LetStmt>();
      expr(op.value);
      stmt(ir::substitute(op.body, ir::VarMap{{op.var.get(), op.value}}));
      return;
    }
    case ir::StmtKind::Evaluate: expr(s.as<ir::Evaluate>()->value); return;
    case ir::StmtKind::Assume: expr(s.as<ir::Assume>()->condition); return; // its loads are reads
    case ir::StmtKind::Allocate: stmt(s.as<ir::Allocate>()->body); return;
    default: break;
    }
    throw ExtractError{Diagnostic::error(
        "poly.unsupported",
        fmt::format(
            "block '{}' holds a nested {} in its body or init (only stores, loops and conditions can be), which "
            "the polyhedral model cannot represent as one statement; polyhedral steps and the exact legality "
            "check do not support this block, so schedule it with the TIR primitives",
            m_stmt.blockName, ir::stmtKindName(s.kind())))};
  }

  void expr(const ir::Expr& e) {
    if (!e.defined()) return;
    if (auto load = e.as<ir::BufferLoad>()) {
      for (const auto& i : load->indices) expr(i);
      access(load->buffer, load->indices, false);
      return;
    }
    if (auto sel = e.as<ir::Select>()) {
      expr(sel->condition);
      m_conditions.push_back(sel->condition);
      expr(sel->trueValue);
      m_conditions.back() = ir::Not::make(sel->condition);
      expr(sel->falseValue);
      m_conditions.pop_back();
      return;
    }
    // Every other node: visit the direct children.
    struct Children final : ir::ExprVisitor {
      AccessCollector* self;
      const ir::ExprNode* top;
      void visitExpr(const ir::Expr& c) override {
        if (c.get() == top) return ir::ExprVisitor::visitExpr(c);
        self->expr(c);
      }
    } children;
    children.self = this;
    children.top = e.get();
    children.visitExpr(e);
  }

private:
  void access(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices, bool isWrite);

  Scop& m_scop;
  ScopStatement& m_stmt;
  std::vector<std::pair<ir::Expr, std::string>> m_dims;
  int m_baseDims;
  struct LocalRange {
    ir::Expr var, min, extent;
  };
  std::vector<LocalRange> m_localRanges;
  std::vector<ir::Expr> m_conditions;
  std::function<std::string(const ir::Buffer&)> m_tuple;
};

void AccessCollector::access(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices, bool isWrite) {
  const std::string tuple = m_tuple(buffer);
  bool exact = true;
  // Which indices are quasi-affine; the others get a fresh dimension over the buffer extent.
  std::vector<std::pair<ir::Expr, std::string>> dims = m_dims;
  std::vector<ir::Expr> idx = indices;
  std::vector<std::pair<ir::Expr, ir::Expr>> fresh; // (fresh var, extent)
  {
    AffineSpace probe(m_scop.params, dims, "");
    for (std::size_t d = 0; d < idx.size(); ++d) {
      if (probe.toPwAff(idx[d])) continue;
      ir::Expr v = ir::Var::make(fmt::format("__o{}", d));
      m_scop.approximations.push_back(
          {m_stmt.name, ir::printExpr(idx[d]),
           fmt::format("non-affine index of buffer '{}' (dimension {}): {} over-approximated by the whole extent",
                       buffer->name, d, isWrite ? "write" : "read")});
      dims.push_back({v, fmt::format("__o{}", d)});
      fresh.push_back({v, buffer->shape[d]});
      idx[d] = v;
      exact = false;
    }
  }
  AffineSpace sp(m_scop.params, dims, "");
  isl::set where = sp.universe();
  for (const auto& r : m_localRanges) {
    auto x = sp.toPwAff(r.var);
    auto s = sp.rangeSet(*x, r.min, r.extent);
    if (s) where = where.intersect(*s);
    else exact = false;
  }
  for (const auto& [v, extent] : fresh) {
    auto x = sp.toPwAff(v);
    if (auto s = sp.rangeSet(*x, ir::intImm(0, extent.dtype()), extent)) where = where.intersect(*s);
  }
  for (const auto& c : m_conditions) {
    auto s = sp.toSet(c);
    if (s) {
      where = where.intersect(*s);
      continue;
    }
    exact = false;
    if (isWrite)
      m_scop.approximations.push_back({m_stmt.name, ir::printExpr(c),
                                       fmt::format("non-affine condition on a write of buffer '{}': dropped, the "
                                                   "write is a may-write",
                                                   buffer->name)});
  }
  isl::pw_aff_list list(islContext(), int(idx.size()));
  for (const auto& i : idx) list = list.add(*sp.toPwAff(i));
  isl::space range = setSpace(m_scop.params, "", std::vector<std::string>(idx.size(), ""));
  isl_space* mapSpace = isl_space_map_from_domain_and_range(sp.space().copy(), range.release());
  isl::multi_pw_aff mpa(isl::manage(check(mapSpace, "access space")), list);
  isl_map* m = check(isl_map_from_multi_pw_aff(mpa.release()), "access map");
  m = isl_map_intersect_domain(m, where.release());
  m = isl_map_project_out(m, isl_dim_in, unsigned(m_baseDims), unsigned(dims.size()) - unsigned(m_baseDims));
  m = isl_map_set_tuple_name(m, isl_dim_in, m_stmt.name.c_str());
  m = isl_map_set_tuple_id(m, isl_dim_out, makeId(tuple).release());
  isl::map accessMap = isl::manage(check(m, "access map"));
  accessMap = accessMap.intersect_domain(m_stmt.domain).coalesce();
  if (!isWrite) m_stmt.reads = m_stmt.reads.unite(isl::union_map(accessMap));
  else if (exact && m_stmt.exact) m_stmt.mustWrites = m_stmt.mustWrites.unite(isl::union_map(accessMap));
  else m_stmt.mayWrites = m_stmt.mayWrites.unite(isl::union_map(accessMap));
}

isl::schedule Extractor::makeStatement(const ir::Stmt& realizeStmt, bool isInit) {
  const auto& realize = *realizeStmt.as<ir::BlockRealize>();
  const auto& block = realize.blockNode();
  ScopStatement st;
  st.blockName = block.name;
  st.name = isInit ? block.name + "_init" : block.name;
  st.isInit = isInit;
  st.block = realize.block;
  st.realize = realizeStmt;
  std::vector<std::pair<ir::Expr, std::string>> dims;
  std::vector<std::string> dimNames;
  for (const auto& l : m_loops) {
    st.loops.push_back(l.index);
    dims.push_back({l.var, l.name});
  }
  AffineSpace sp(m_scop.params, dims, st.name);
  isl::set domain = sp.universe();
  for (const auto& l : m_loops) {
    auto x = sp.toPwAff(l.var);
    auto r = sp.rangeSet(*x, l.min, l.extent);
    if (!r) nonAffine(block.name, fmt::format("the bound of loop '{}',", l.name), r.error());
    domain = domain.intersect(*r);
  }
  // Iterator values (bindings through the enclosing scopes' substitutions).
  ir::VarMap iterSubst = m_subst;
  std::vector<isl::pw_aff> values;
  for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
    const auto& iv = block.iterVars[i];
    ir::Expr binding = sub(realize.iterValues.at(i));
    iterSubst[iv.var.get()] = binding;
    auto v = sp.toPwAff(binding);
    if (!v) nonAffine(block.name, fmt::format("the binding of iterator '{}',", iv.var.as<ir::Var>()->name), v.error());
    auto in = sp.rangeSet(*v, sub(iv.dom.min), sub(iv.dom.extent));
    if (!in) nonAffine(block.name, fmt::format("the domain of iterator '{}',", iv.var.as<ir::Var>()->name), in.error());
    domain = domain.intersect(*in);
    if (isInit && iv.kind == ir::IterKind::Reduce) {
      auto lo = sp.toPwAff(sub(iv.dom.min));
      domain = domain.intersect(v->eq_set(*lo));
    }
    if (!isInit || iv.kind != ir::IterKind::Reduce) {
      values.push_back(*v);
      st.iterators.push_back(iv);
    }
  }
  std::vector<ir::Expr> conditions = m_conditions;
  if (realize.predicate && !ir::isConstInt(realize.predicate, 1)) conditions.push_back(sub(realize.predicate));
  for (const auto& c : conditions) {
    auto s = sp.toSet(c);
    if (s) {
      domain = domain.intersect(*s);
      continue;
    }
    st.exact = false;
    m_scop.approximations.push_back(
        {st.name, ir::printExpr(c), "non-affine predicate: dropped (the domain is over-approximated)"});
  }
  st.domain = domain.intersect_params(m_scop.context).coalesce();

  std::vector<std::string> iterNames;
  isl::pw_aff_list list(islContext(), int(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    list = list.add(values[i]);
    iterNames.push_back(st.iterators[i].var.as<ir::Var>()->name);
  }
  isl::space range = setSpace(m_scop.params, st.name, iterNames);
  isl_space* ms = isl_space_map_from_domain_and_range(sp.space().copy(), range.release());
  st.iterValues = isl::multi_pw_aff(isl::manage(check(ms, "iterator space")), list).intersect_domain(st.domain);

  st.reads = st.mustWrites = st.mayWrites = isl::union_map::empty(islContext());
  const int stmtIndex = static_cast<int>(m_scop.statements.size());
  m_scop.statements.push_back(st);
  ScopStatement& stored = m_scop.statements.back();
  if (m_content == ScopContent::Structure) return isl::schedule::from_domain(isl::union_set(stored.domain));
  AccessCollector collector(m_scop, stored, dims, {}, [this](const ir::Buffer& b) { return bufferTuple(b); });
  collector.stmt(ir::substitute(isInit ? block.init : block.body, iterSubst));
  stored.reads = stored.reads.coalesce();
  stored.mustWrites = stored.mustWrites.coalesce();
  stored.mayWrites = stored.mayWrites.coalesce();
  (void)stmtIndex;
  return isl::schedule::from_domain(isl::union_set(stored.domain));
}

} // namespace

Expected<Scop> extractScop(const ir::PrimFunc& func, ScopContent content) {
  try {
    Scop scop;
    Extractor(func, scop, content).run();
    return scop;
  } catch (const ExtractError& e) {
    return Unexpected(e.diagnostic);
  } catch (const isl::exception& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed while extracting the Scop: ") + e.what()));
  } catch (const IslError& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed while extracting the Scop: ") + e.what()));
  }
}

} // namespace loopscape::poly
