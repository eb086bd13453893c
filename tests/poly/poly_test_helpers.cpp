#include "poly_test_helpers.h"

#include "core/frontend/te_frontend.h"
#include "core/ir/op.h"

#include <QtTest>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>
#include <unordered_map>

namespace loopscape::polytest {

ir::PrimFunc parseProgram(const std::string& source) {
  auto f = frontend::parseTe(source, "test.te");
  if (!f) qFatal("%s", renderDiagnostic(f.error(), source).c_str());
  return *f;
}

ir::PrimFunc stencil1d(std::int64_t steps, std::int64_t n, bool symbolic, int markedLoop, ir::ForKind kind) {
  using namespace ir;
  Expr T = symbolic ? Var::make("T") : intImm(steps);
  Expr N = symbolic ? Var::make("N") : intImm(n);
  Buffer A = makeBuffer("A", DataType::float32(), {T + 1, N});
  Expr t = Var::make("t"), i = Var::make("i"), vt = Var::make("v_t"), vi = Var::make("v_i");
  Stmt store = BufferStore::make(
      A,
      BufferLoad::make(A, {vt, vi - 1}) + BufferLoad::make(A, {vt, vi}) + BufferLoad::make(A, {vt, vi + 1}),
      {vt + 1, vi});
  std::vector<IterVar> iters = {{vt, Range::fromMinExtent(intImm(0), T), IterKind::Spatial},
                                {vi, Range::fromMinExtent(intImm(1), N - 2), IterKind::Spatial}};
  std::vector<BufferRegion> reads = {{A, {Range::fromMinExtent(vt, intImm(1)), Range::fromMinExtent(vi - 1, intImm(3))}}};
  std::vector<BufferRegion> writes = {{A, {Range::fromMinExtent(vt + 1, intImm(1)), Range::fromMinExtent(vi, intImm(1))}}};
  Stmt block = Block::make("stencil", iters, reads, writes, store);
  Stmt realize = BlockRealize::make({t, i}, boolImm(true), block);
  Stmt loops = For::make(t, intImm(0), T, markedLoop == 0 ? kind : ForKind::Serial,
                         For::make(i, intImm(1), N - 2, markedLoop == 1 ? kind : ForKind::Serial, realize));
  Stmt root = BlockRealize::make({}, boolImm(true), Block::make("root", {}, {}, {}, loops));
  PrimFunc f;
  f.name = "main";
  f.params = {A};
  f.body = root;
  return f;
}

namespace {

using Values = std::unordered_map<const ir::ExprNode*, std::int64_t>;

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::int64_t eval(const ir::Expr& e, const Values& v) {
  using namespace ir;
  if (auto x = e.as<IntImm>()) return x->value;
  if (e.is<Var>()) {
    auto it = v.find(e.get());
    if (it == v.end()) qFatal("brute force: unbound variable %s", e.as<Var>()->name.c_str());
    return it->second;
  }
  if (auto c = e.as<Cast>()) return eval(c->value, v);
  if (auto n = e.as<Not>()) return !eval(n->a, v);
  if (auto s = e.as<Select>()) return eval(s->condition, v) ? eval(s->trueValue, v) : eval(s->falseValue, v);
#define LS_B(K, expr)                                                                                             \
  if (auto op = e.as<K>()) {                                                                                     \
    std::int64_t a = eval(op->a, v), b = eval(op->b, v);                                                         \
    return expr;                                                                                                 \
  }
  LS_B(Add, a + b) LS_B(Sub, a - b) LS_B(Mul, a * b) LS_B(FloorDiv, floorDiv(a, b)) LS_B(FloorMod, a - floorDiv(a, b) * b)
  LS_B(Div, a / b) LS_B(Min, std::min(a, b)) LS_B(Max, std::max(a, b)) LS_B(EQ, a == b) LS_B(NE, a != b)
  LS_B(LT, a < b) LS_B(LE, a <= b) LS_B(GT, a > b) LS_B(GE, a >= b) LS_B(And, a && b) LS_B(Or, a || b)
#undef LS_B
  qFatal("brute force: cannot evaluate %s", exprKindName(e.kind()));
}

struct Access {
  std::string buffer;
  std::vector<std::int64_t> index;
  bool write;
};

/// One execution of a statement instance.
struct Exec {
  std::string stmt;                 ///< statement name (original naming)
  std::vector<std::int64_t> iters;  ///< identity
  std::vector<std::pair<const ir::StmtNode*, std::int64_t>> loops; ///< enclosing loops and their values
  std::vector<Access> accesses;
};

struct Walker {
  Values values;
  std::vector<std::pair<const ir::StmtNode*, std::int64_t>> loops;
  std::vector<Exec> execs;

  void accessesOf(const ir::Expr& e, std::vector<Access>& out) {
    using namespace ir;
    if (!e.defined()) return;
    if (auto l = e.as<BufferLoad>()) {
      std::vector<std::int64_t> idx;
      for (const auto& i : l->indices) idx.push_back(eval(i, values));
      out.push_back({l->buffer->name, idx, false});
      return;
    }
    if (auto s = e.as<Select>()) return accessesOf(eval(s->condition, values) ? s->trueValue : s->falseValue, out);
    if (auto c = e.as<Cast>()) return accessesOf(c->value, out);
    if (auto c = e.as<Call>()) {
      for (const auto& a : c->args) accessesOf(a, out);
      return;
    }
#define LS_B(K)                                                                                                   \
  if (auto op = e.as<K>()) {                                                                                     \
    accessesOf(op->a, out);                                                                                      \
    accessesOf(op->b, out);                                                                                      \
    return;                                                                                                      \
  }
    LS_BINARY_KINDS(LS_B)
#undef LS_B
  }

  void body(const ir::Stmt& s, std::vector<Access>& out) {
    using namespace ir;
    if (auto st = s.as<BufferStore>()) {
      accessesOf(st->value, out);
      std::vector<std::int64_t> idx;
      for (const auto& i : st->indices) idx.push_back(eval(i, values));
      out.push_back({st->buffer->name, idx, true});
    } else if (auto seq = s.as<SeqStmt>()) {
      for (const auto& c : seq->seq) body(c, out);
    } else if (auto ite = s.as<IfThenElse>()) {
      if (eval(ite->condition, values)) body(ite->thenCase, out);
      else if (ite->elseCase) body(ite->elseCase, out);
    } else {
      qFatal("brute force: unsupported statement %s in a block body", stmtKindName(s.kind()));
    }
  }

  void walk(const ir::Stmt& s) {
    using namespace ir;
    if (auto f = s.as<For>()) {
      std::int64_t lo = eval(f->min, values), n = eval(f->extent, values);
      for (std::int64_t x = lo; x < lo + n; ++x) {
        values[f->loopVar.get()] = x;
        loops.push_back({s.get(), x});
        walk(f->body);
        loops.pop_back();
      }
      return;
    }
    if (auto seq = s.as<SeqStmt>()) {
      for (const auto& c : seq->seq) walk(c);
      return;
    }
    if (auto r = s.as<BlockRealize>()) {
      const Block& b = r->blockNode();
      std::vector<std::int64_t> vals;
      for (const auto& v : r->iterValues) vals.push_back(eval(v, values));
      for (std::size_t i = 0; i < vals.size(); ++i) values[b.iterVars[i].var.get()] = vals[i];
      if (!eval(r->predicate, values)) return;
      bool leaf = true;
      // Blocks inside: a scope block (root).
      std::function<bool(const Stmt&)> hasBlock = [&](const Stmt& x) -> bool {
        if (!x) return false;
        if (x.is<BlockRealize>()) return true;
        if (auto f = x.as<For>()) return hasBlock(f->body);
        if (auto q = x.as<SeqStmt>()) {
          for (const auto& c : q->seq)
            if (hasBlock(c)) return true;
        }
        if (auto a = x.as<Allocate>()) return hasBlock(a->body);
        return false;
      };
      leaf = !hasBlock(b.body);
      if (!leaf) {
        walk(b.body);
        return;
      }
      bool atMin = true;
      std::vector<std::int64_t> spatial;
      for (std::size_t i = 0; i < vals.size(); ++i) {
        if (b.iterVars[i].kind == IterKind::Reduce) atMin = atMin && vals[i] == eval(b.iterVars[i].dom.min, values);
        else spatial.push_back(vals[i]);
      }
      std::string name = b.name;
      if (name.ends_with("_update")) name = name.substr(0, name.size() - 7);
      if (b.init && atMin) {
        Exec e{name + "_init", spatial, loops, {}};
        body(b.init, e.accesses);
        execs.push_back(std::move(e));
      }
      Exec e{name, vals, loops, {}};
      body(b.body, e.accesses);
      execs.push_back(std::move(e));
      return;
    }
    if (auto a = s.as<Allocate>()) return walk(a->body);
    qFatal("brute force: unsupported statement %s", stmtKindName(s.kind()));
  }
};

std::vector<Exec> execute(const ir::PrimFunc& f) {
  Walker w;
  w.walk(f.body);
  return std::move(w.execs);
}

using Key = std::pair<std::string, std::vector<std::int64_t>>;

std::string keyText(const Key& k) { return fmt::format("{}({})", k.first, fmt::join(k.second, ", ")); }

} // namespace

std::string bruteForceLegality(const ir::PrimFunc& original, const ir::PrimFunc& current) {
  // Dependence pairs of the original program (instance identities), from its access trace.
  std::vector<Exec> orig = execute(original);
  struct Pair {
    Key src, snk;
    std::string kind;
  };
  std::vector<Pair> deps;
  std::map<std::pair<std::string, std::vector<std::int64_t>>, std::pair<int, std::vector<int>>> state; // element -> last write, reads since
  for (int x = 0; x < int(orig.size()); ++x) {
    const Exec& e = orig[x];
    std::set<std::pair<int, std::string>> seen;
    for (const auto& a : e.accesses) {
      auto& [lastWrite, readsSince] = state.try_emplace({a.buffer, a.index}, -1, std::vector<int>{}).first->second;
      if (!a.write) {
        if (lastWrite >= 0 && lastWrite != x) deps.push_back({{orig[lastWrite].stmt, orig[lastWrite].iters}, {e.stmt, e.iters}, "RAW"});
        readsSince.push_back(x);
      } else {
        if (lastWrite >= 0 && lastWrite != x) deps.push_back({{orig[lastWrite].stmt, orig[lastWrite].iters}, {e.stmt, e.iters}, "WAW"});
        for (int r : readsSince)
          if (r != x) deps.push_back({{orig[r].stmt, orig[r].iters}, {e.stmt, e.iters}, "WAR"});
        lastWrite = x;
        readsSince.clear();
      }
    }
  }
  std::vector<Exec> cur = execute(current);
  std::map<Key, std::vector<int>> times;
  for (int x = 0; x < int(cur.size()); ++x) times[{cur[x].stmt, cur[x].iters}].push_back(x);
  std::set<std::string> curStmts, origStmts;
  for (const auto& e : cur) curStmts.insert(e.stmt);
  for (const auto& e : orig) origStmts.insert(e.stmt);
  for (const auto& d : deps) {
    auto s = times.find(d.src);
    auto t = times.find(d.snk);
    if (s == times.end() || t == times.end()) continue;
    const int first = s->second.front();
    for (int tt : t->second)
      if (tt <= first) return fmt::format("{} {} -> {} reversed", d.kind, keyText(d.src), keyText(d.snk));
  }
  // Parallel / vectorized loops must not carry a dependence: every execution of a sink
  // inside such a loop needs an execution of its source in the same iteration of that loop
  // when the source runs in the same iteration of the loops outside it.
  for (const auto& d : deps) {
    auto s = times.find(d.src);
    auto t = times.find(d.snk);
    if (s == times.end() || t == times.end()) continue;
    for (int b : t->second) {
      const auto& lb = cur[b].loops;
      for (std::size_t q = 0; q < lb.size(); ++q) {
        const auto* f = static_cast<const ir::For*>(lb[q].first);
        if (f->forKind != ir::ForKind::Parallel && f->forKind != ir::ForKind::Vectorized) continue;
        bool sharesLoop = false, sameIteration = false;
        for (int a : s->second) {
          const auto& la = cur[a].loops;
          bool prefix = la.size() > q;
          for (std::size_t r = 0; prefix && r <= q; ++r) prefix = la[r].first == lb[r].first;
          for (std::size_t r = 0; prefix && r < q; ++r) prefix = la[r].second == lb[r].second;
          if (!prefix) continue; // not inside the same iteration of the outer loops
          sharesLoop = true;
          sameIteration = sameIteration || la[q].second == lb[q].second;
        }
        if (sharesLoop && !sameIteration)
          return fmt::format("{} {} -> {} carried by parallel loop {}", d.kind, keyText(d.src), keyText(d.snk),
                             f->loopVar.as<ir::Var>()->name);
      }
    }
  }
  return {};
}

} // namespace loopscape::polytest
