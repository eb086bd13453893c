// Legality: both programs' statement instances are mapped to the common space of block
// iterator values; the original dependences are pulled into that space once; the current
// schedule is pulled into it as a relation instance -> time (more than one time for a
// recomputed instance). A violation is a dependence pair whose source's first time is not
// before a time of the sink, or a pair a parallel/vectorized loop carries. Where each
// original statement stayed one statement, both questions are first asked of the loops the
// two statements share (below the innermost one, program order decides) instead of whole
// times or executions: on a tiled conv2d with its padding recomputed at a tile, that is a
// second against minutes or isl's operation bound.
//
// The original program's model (its Scop, its dependences and their images in the common
// space) is what a check costs most (about 70 ms of the 90 on conv_bias_relu), and every
// check of one Schedule is against the same original state: the model is built once per
// thread and original state from the thread's analysis of that state (program_analysis.h), kept
// in a small per-thread cache (isl objects live in the thread's context), with the last
// few reports against it.
#include "core/poly/legality.h"

#include "core/poly/dependences.h"
#include "core/poly/program_analysis.h"
#include "core/poly/isl_util.h"
#include "core/poly/scop.h"

#include "core/ir/printer.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_error.h"

#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

namespace loopscape::poly {

using namespace detail;

std::string counterexampleMessage(const Counterexample& c) {
  const std::string element = fmt::format("{}[{}]", c.buffer, fmt::join(c.element, ", "));
  if (!c.parallelLoop.empty())
    return fmt::format("loop '{}' is {} but carries the {} dependence from {} to {} on {}: {} runs at {} and {} at "
                       "{}, in different iterations of '{}'",
                       c.parallelLoop, c.loopKind, c.kind, c.source.text(), c.sink.text(), element, c.source.text(),
                       loopPointText(c.sourceAfter), c.sink.text(), loopPointText(c.sinkAfter), c.parallelLoop);
  return fmt::format("the {} dependence from {} to {} on {} is violated: before, {} ran at {} and {} after it at {}; "
                     "now {} runs at {}, before {} at {}",
                     c.kind, c.source.text(), c.sink.text(), element, c.source.text(), loopPointText(c.sourceBefore),
                     c.sink.text(), loopPointText(c.sinkBefore), c.sink.text(), loopPointText(c.sinkAfter),
                     c.source.text(), loopPointText(c.sourceAfter));
}

namespace {

/// The original program's model in the common space.
struct OriginalModel {
  Scop scop;
  Dependences deps;
  std::vector<isl::map> depIter; ///< per dependence: { S[iterators] -> T[iterators] }
};

OriginalModel buildOriginal(Scop scop, Dependences deps) {
  OriginalModel m{std::move(scop), std::move(deps), {}};
  for (const auto& d : m.deps.list) {
    const auto* s = m.scop.findStatement(d.source);
    const auto* t = m.scop.findStatement(d.sink);
    m.depIter.push_back(d.relation.apply_domain(s->iterValues.as_map()).apply_range(t->iterValues.as_map()));
  }
  return m;
}

bool sameIterators(const ScopStatement& a, const ScopStatement& b) {
  if (a.iterators.size() != b.iterators.size()) return false;
  for (std::size_t i = 0; i < a.iterators.size(); ++i) {
    const auto& x = a.iterators[i];
    const auto& y = b.iterators[i];
    if (x.kind != y.kind || ir::printExpr(x.dom.min) != ir::printExpr(y.dom.min) ||
        ir::printExpr(x.dom.extent) != ir::printExpr(y.dom.extent))
      return false;
  }
  return true;
}

/// The original statement a current statement stands for, or null.
const ScopStatement* matchStatement(const Scop& original, const ScopStatement& s) {
  const ScopStatement* o = original.findStatement(s.name);
  constexpr std::string_view suffix = "_update";
  if (!o && s.name.size() > suffix.size() && s.name.ends_with(suffix))
    o = original.findStatement(s.name.substr(0, s.name.size() - suffix.size()));
  if (o && sameIterators(*o, s)) return o;
  return nullptr;
}

isl::set instancePoint(const ScopStatement& s, const std::vector<std::int64_t>& coords) {
  isl_space* sp = isl_space_range(check(isl_multi_pw_aff_get_space(s.iterValues.get()), "space"));
  isl_set* set = isl_set_universe(sp);
  for (std::size_t i = 0; i < coords.size(); ++i) set = isl_set_fix_si(set, isl_dim_set, unsigned(i), int(coords[i]));
  set = isl_set_set_tuple_name(set, s.name.c_str());
  return isl::manage(check(set, "instance point"));
}

std::vector<std::int64_t> firstPoint(const isl::union_set& s, std::string* tuple = nullptr) {
  isl::point p = s.lexmin().sample_point();
  if (tuple) *tuple = pointTupleName(p);
  return pointCoordinates(p);
}

LoopPoint namedLoops(const Scop& scop, const std::string& stmt, const std::vector<std::int64_t>& coords) {
  LoopPoint out;
  const auto* s = scop.findStatement(stmt);
  for (std::size_t i = 0; i < coords.size(); ++i)
    out.push_back({s && i < s->loops.size() ? scop.loops[s->loops[i]].name : fmt::format("c{}", i), coords[i]});
  return out;
}

StatementInstance namedInstance(const ScopStatement& s, const std::vector<std::int64_t>& coords) {
  StatementInstance out;
  out.statement = s.name;
  for (std::size_t i = 0; i < coords.size() && i < s.iterators.size(); ++i)
    out.iterators.push_back({s.iterators[i].var.as<ir::Var>()->name, coords[i]});
  return out;
}

class Checker {
public:
  Checker(const OriginalModel& orig, const Scop& cur) : m_orig(orig), m_cur(cur) {}

  LegalityReport run() {
    LegalityReport report;
    m_instNew = isl::union_map::empty(islContext());
    for (const auto& s : m_cur.statements) {
      const ScopStatement* o = matchStatement(m_orig.scop, s);
      if (!o) {
        report.unmatched.push_back(s.name);
        continue;
      }
      m_runsOf[o->name].push_back(&s);
      isl_map* m = isl_map_set_tuple_name(s.iterValues.as_map().release(), isl_dim_out, o->name.c_str());
      m_instNew = m_instNew.unite(isl::union_map(isl::manage(check(m, "renaming an instance map"))));
    }
    isl::union_map timeNew = m_instNew.reverse().apply_range(m_cur.scheduleMap());
    // The first run of each instance, per original statement: where every instance runs
    // once (no compute_at overcompute) that is its only time, and the lexmin (costly on
    // skewed, wavefront tiles: 30 s of a 2-D Jacobi's check) is not needed. Computed when
    // first needed: statements that stayed one statement are compared without them
    // (inOrderOnLoops).
    std::map<std::string, isl::union_map> firstTimes;
    auto firstTime = [&](const std::string& statement) -> const isl::union_map& {
      auto [it, fresh] = firstTimes.try_emplace(statement);
      if (fresh) it->second = runsOnce(statement) ? get(m_times, statement) : get(m_times, statement).lexmin();
      return it->second;
    };
    m_times = byDomain(timeNew);
    const auto& times = m_times;
    // Per (source, sink) statement pair with a dependence: the instance pairs whose source
    // first runs at or after a run of the sink (only these pairs: the lexicographic
    // comparison of every pair of statements is most of a check on tiled schedules).
    std::map<std::pair<std::string, std::string>, isl::union_map> reversed;
    std::map<std::pair<std::string, std::string>, bool> inOrder;
    for (std::size_t i = 0; i < m_orig.deps.list.size(); ++i) {
      const auto& d = m_orig.deps.list[i];
      if (!m_runsOf.contains(d.source) || !m_runsOf.contains(d.sink)) continue;
      // First the times of all dependent pairs of the two statements: when no source time
      // is at or after a sink time (every dependence of a legal state), the instance pairs
      // are not needed.
      auto [ordered, first] = inOrder.try_emplace({d.source, d.sink}, false);
      if (first) {
        isl::union_map pairs = isl::union_map::empty(islContext());
        for (std::size_t j = i; j < m_orig.deps.list.size(); ++j)
          if (m_orig.deps.list[j].source == d.source && m_orig.deps.list[j].sink == d.sink)
            pairs = pairs.unite(isl::union_map(m_orig.depIter[j]));
        const std::optional<bool> onLoops = inOrderOnLoops(d.source, d.sink, pairs);
        ordered->second =
            onLoops ? *onLoops : timesInOrder(pairs.apply_domain(firstTime(d.source)).apply_range(get(times, d.sink)));
      }
      if (ordered->second) continue;
      auto [it, fresh] = reversed.try_emplace({d.source, d.sink});
      if (fresh) it->second = lexGeUnionMap(firstTime(d.source), get(times, d.sink));
      isl::union_map bad = isl::union_map(m_orig.depIter[i]).intersect(it->second);
      if (bad.is_empty()) continue;
      report.legal = false;
      report.counterexample = orderCounterexample(d, bad);
      return report;
    }
    if (auto c = parallelViolation()) {
      report.legal = false;
      report.counterexample = std::move(c);
    }
    return report;
  }

private:
  /// Whether every pair { source time -> sink time } of `timePairs` is in increasing
  /// lexicographic order. Comparing the times of the dependent pairs only is cheaper than
  /// comparing every pair of instances of the two statements (depthwise_conv2d tiled: 23
  /// against 34 ms); false also when the times live in different spaces (then the instance
  /// comparison decides).
  static bool timesInOrder(const isl::union_map& timePairs) {
    bool ordered = true;
    timePairs.foreach_map([&](isl::map m) {
      if (!ordered) return;
      isl_space* space = isl_map_get_space(m.get());
      const bool same = isl_space_tuple_is_equal(space, isl_dim_in, space, isl_dim_out) == isl_bool_true;
      if (!same) {
        isl_space_free(space);
        ordered = false;
        return;
      }
      isl_map* ge = isl_map_lex_ge(isl_space_domain(space));
      ordered = m.intersect(isl::manage(check(ge, "lexicographic order"))).is_empty();
    });
    return ordered;
  }

  /// `m` split by the tuple name of its domain.
  static std::map<std::string, isl::union_map> byDomain(const isl::union_map& m) {
    std::map<std::string, isl::union_map> out;
    m.foreach_map([&](isl::map x) {
      const char* n = isl_map_get_tuple_name(x.get(), isl_dim_in);
      auto [it, fresh] = out.try_emplace(n ? n : "", isl::union_map(x));
      if (!fresh) it->second = it->second.unite(isl::union_map(x));
    });
    return out;
  }
  static isl::union_map get(const std::map<std::string, isl::union_map>& m, const std::string& key) {
    auto it = m.find(key);
    return it == m.end() ? isl::union_map::empty(islContext()) : it->second;
  }

  /// Dependence `i` between the current program's statements (loops -> loops), computed once.
  const isl::union_map& depInNew(std::size_t i) {
    if (m_depInNew.size() != m_orig.deps.list.size()) m_depInNew.resize(m_orig.deps.list.size());
    if (!m_depInNew[i])
      m_depInNew[i] =
          isl::union_map(m_orig.depIter[i]).apply_domain(m_instNew.reverse()).apply_range(m_instNew.reverse());
    return *m_depInNew[i];
  }

  /// Fills kind, instances, element and the before points from a pair in the common space.
  Counterexample describe(const Dependence& d, const std::vector<std::int64_t>& pair) {
    const ScopStatement& s = *m_orig.scop.findStatement(d.source);
    const ScopStatement& t = *m_orig.scop.findStatement(d.sink);
    const std::size_t ns = s.iterators.size();
    std::vector<std::int64_t> sc(pair.begin(), pair.begin() + long(ns)), tc(pair.begin() + long(ns), pair.end());
    Counterexample c;
    c.kind = dependenceKindName(d.kind);
    c.source = namedInstance(s, sc);
    c.sink = namedInstance(t, tc);
    c.buffer = d.buffer;
    isl::set sp = instancePoint(s, sc), tp = instancePoint(t, tc);
    isl::set sLoops = sp.apply(s.iterValues.as_map().reverse());
    isl::set tLoops = tp.apply(t.iterValues.as_map().reverse());
    c.sourceBefore = namedLoops(m_orig.scop, s.name, firstPoint(isl::union_set(sLoops)));
    c.sinkBefore = namedLoops(m_orig.scop, t.name, firstPoint(isl::union_set(tLoops)));
    isl::union_map acc = m_orig.scop.reads.unite(m_orig.scop.mayWrites);
    isl::union_set elements = isl::union_set(sLoops).apply(acc).intersect(isl::union_set(tLoops).apply(acc));
    elements.foreach_set([&](isl::set e) {
      const char* name = isl_set_get_tuple_name(e.get());
      if (name && name == d.buffer && c.element.empty()) c.element = firstPoint(isl::union_set(e));
    });
    m_src = sp;
    m_snk = tp;
    return c;
  }

  LoopPoint afterPoint(const isl::set& instance) {
    std::string tuple;
    auto coords = firstPoint(isl::union_set(instance).apply(m_instNew.reverse()), &tuple);
    return namedLoops(m_cur, tuple, coords);
  }

  Counterexample orderCounterexample(const Dependence& d, const isl::union_map& bad) {
    Counterexample c = describe(d, firstPoint(bad.wrap()));
    c.sourceAfter = afterPoint(m_src);
    c.sinkAfter = afterPoint(m_snk);
    return c;
  }

  /// { executions -> their loops 0..n-1 } on the executions' space, named "prefix".
  static isl::union_map prefixMap(const isl::space& executions, int n) {
    isl_map* id = isl_map_identity(isl_space_map_from_set(executions.copy()));
    const isl_size dims = isl_map_dim(id, isl_dim_out);
    id = isl_map_project_out(id, isl_dim_out, unsigned(n), unsigned(dims - n));
    id = isl_map_set_tuple_name(id, isl_dim_out, "prefix");
    return isl::union_map(isl::manage(check(id, "loop prefix")));
  }

  /// Whether loop `pos`, common to current statements `a` and `b`, carries a pair of
  /// dependence `dep` none of whose source instance's executions runs in the sink's
  /// iteration: the question parallelViolation answers for a recomputed source, asked in
  /// the space of instance x loops 0..pos instead of executions x executions. The same
  /// answer (a sink's iteration lacks the source instance, which runs in another iteration
  /// of loop `pos` under the same outer iterations), far cheaper (conv2d's padding at a
  /// tile: seconds per loop in the full space).
  bool carriesLonely(std::size_t dep, const ScopStatement& a, const ScopStatement& b, int pos) {
    const isl::space aSpace = a.domain.space(), bSpace = b.domain.space();
    const isl::union_map sourceRuns = m_instNew.intersect_domain(aSpace).reverse(); // instance -> executions
    const isl::union_map needed = isl::union_map(m_orig.depIter[dep])
                                      .intersect_domain(sourceRuns.domain())
                                      .apply_range(m_instNew.intersect_domain(bSpace).reverse())
                                      .apply_range(prefixMap(bSpace, pos + 1));
    const isl::union_map present = sourceRuns.apply_range(prefixMap(aSpace, pos + 1));
    const isl::union_map lonely = needed.subtract(present);
    if (lonely.is_empty()) return false;
    const isl::union_map outer = sourceRuns.apply_range(prefixMap(aSpace, pos));
    isl_space* p =
        isl_space_set_tuple_name(isl_space_set_alloc(islContext().get(), 0, unsigned(pos + 1)), isl_dim_set, "prefix");
    const isl::union_map truncate = prefixMap(isl::manage(check(p, "prefix space")), pos);
    return !lonely.apply_range(truncate).intersect(outer).is_empty();
  }

  /// Whether each source instance of `pairs` (original source instance -> sink instance)
  /// first runs before every execution of its sinks; nullopt where an original statement
  /// became several (then whole times decide). Decided on the loops the two current
  /// statements share instead of on whole times (whose lexmin over a recomputed padding's
  /// executions exceeded isl's bound on a tiled conv2d): below their innermost common loop
  /// the one first in program order runs first, so an execution of the source is before
  /// one of the sink when its common-loop values are lexicographically smaller, or equal
  /// with the source first in program order. A recomputed source (compute_at over
  /// overlapping tiles) counts by its first execution.
  std::optional<bool> inOrderOnLoops(const std::string& source, const std::string& sink, const isl::union_map& pairs) {
    const auto& sources = m_runsOf[source];
    const auto& sinks = m_runsOf[sink];
    if (sources.size() != 1 || sinks.size() != 1) return std::nullopt;
    const ScopStatement& a = *sources.front();
    const ScopStatement& b = *sinks.front();
    const isl::space aSpace = a.domain.space(), bSpace = b.domain.space();
    const std::size_t common = commonLoops(a, b);
    const bool sourceFirst = &a < &b; // program order (m_cur.statements)
    // source instance -> common-loop values of its first execution, and of its sinks' executions
    const isl::union_map runs =
        m_instNew.intersect_domain(aSpace).reverse().apply_range(prefixMap(aSpace, int(common)));
    const isl::union_map first = runsOnce(source) ? runs : runs.lexmin();
    const isl::union_map sinkRuns =
        pairs.apply_range(m_instNew.intersect_domain(bSpace).reverse().apply_range(prefixMap(bSpace, int(common))));
    isl::union_map late = isl::union_map::empty(islContext()); // first source run -> a sink run not after it
    first.range_product(sinkRuns).range().unwrap().foreach_map([&](isl::map m) {
      isl_space* prefix = isl_space_domain(isl_map_get_space(m.get()));
      isl_map* order = sourceFirst ? isl_map_lex_gt(prefix) : isl_map_lex_ge(prefix);
      late = late.unite(isl::union_map(m.intersect(isl::manage(check(order, "lexicographic order")))));
    });
    return late.is_empty();
  }

  /// Whether loop `pos`, common to current statements `a` and `b`, carries a pair of
  /// dependence `dep`, for a source whose instances run once (then every carried pair is a
  /// violation): asked of the dependence between the two statements' loops 0..pos instead
  /// of between whole executions (on a tiled conv2d, 17 loops each side: seconds per loop).
  bool carriesOnLoops(std::size_t dep, const ScopStatement& a, const ScopStatement& b, int pos) {
    const auto loops = [&](const isl::space& executions) { // instance -> loops 0..pos
      return m_instNew.intersect_domain(executions).reverse().apply_range(prefixMap(executions, pos + 1));
    };
    bool carried = false;
    isl::union_map(m_orig.depIter[dep])
        .apply_domain(loops(a.domain.space()))
        .apply_range(loops(b.domain.space()))
        .foreach_map([&](isl::map p) { carried = carried || !carriedPart(p, pos).is_empty(); });
    return carried;
  }

  /// Whether each instance of the original statement `original` runs once in the current
  /// program (no compute_at recomputation), computed once per statement: no two executions
  /// of its current statement have the same iterator values (on the executions, not on
  /// the inverse of their iterator values: that exceeded isl's bound on a recomputed conv2d
  /// padding); on the times where it became several statements.
  bool runsOnce(const std::string& original) {
    auto [it, fresh] = m_runsOnce.try_emplace(original, true);
    if (!fresh) return it->second;
    const auto& current = m_runsOf[original];
    if (current.size() != 1) return it->second = get(m_times, original).is_single_valued();
    const ScopStatement& s = *current.front();
    // The iterator values in the space of the original statement.
    isl_multi_pw_aff* renamed = isl_multi_pw_aff_set_tuple_name(s.iterValues.copy(), isl_dim_out, original.c_str());
    const isl::multi_pw_aff values = isl::manage(check(renamed, "renaming iterator values"));
    isl_space* iterators = isl_space_range(isl_multi_pw_aff_get_space(values.get()));
    isl_map* same = isl_map_identity(isl_space_map_from_set(iterators));
    isl_pw_multi_aff* sink = isl_pw_multi_aff_from_multi_pw_aff(values.copy());
    same = isl_map_preimage_range_pw_multi_aff(isl_map_preimage_domain_multi_pw_aff(same, values.copy()), sink);
    same = isl_map_intersect(same, isl_map_lex_lt(s.domain.space().release()));
    return it->second = isl::manage(check(same, "executions of one instance")).intersect_domain(s.domain).is_empty();
  }

  /// The number of outermost loops statements `a` and `b` share.
  static std::size_t commonLoops(const ScopStatement& a, const ScopStatement& b) {
    return std::size_t(std::mismatch(a.loops.begin(), a.loops.end(), b.loops.begin(), b.loops.end()).first -
                       a.loops.begin());
  }

  /// The position of loop `l` among the loops statements `a` and `b` share, or -1.
  static int loopPosition(const ScopStatement& a, const ScopStatement& b, std::size_t l) {
    const auto end = a.loops.begin() + long(commonLoops(a, b));
    const auto it = std::find(a.loops.begin(), end, int(l));
    return it == end ? -1 : int(it - a.loops.begin());
  }

  std::optional<Counterexample> parallelViolation() {
    for (std::size_t l = 0; l < m_cur.loops.size(); ++l) {
      const auto* f = m_cur.loops[l].loop.as<ir::For>();
      if (f->forKind != ir::ForKind::Parallel && f->forKind != ir::ForKind::Vectorized) continue;
      for (std::size_t i = 0; i < m_orig.deps.list.size(); ++i) {
        const auto& d = m_orig.deps.list[i];
        if (!m_runsOf.contains(d.source) || !m_runsOf.contains(d.sink)) continue;
        // First on the loops the two statements share, then, where the loop carries a pair,
        // between whole executions for the counterexample.
        const bool once = runsOnce(d.source);
        bool suspect = false;
        for (const ScopStatement* a : m_runsOf[d.source])
          for (const ScopStatement* b : m_runsOf[d.sink]) {
            const int pos = loopPosition(*a, *b, l);
            suspect = suspect || (pos >= 0 && (once ? carriesOnLoops(i, *a, *b, pos) : carriesLonely(i, *a, *b, pos)));
          }
        if (!suspect) continue;
        const isl::union_map& inNew = depInNew(i);
        std::optional<Counterexample> found;
        inNew.foreach_map([&](isl::map m) {
          if (found) return;
          const auto* s = m_cur.findStatement(isl_map_get_tuple_name(m.get(), isl_dim_in));
          const auto* t = m_cur.findStatement(isl_map_get_tuple_name(m.get(), isl_dim_out));
          const int pos = loopPosition(*s, *t, l);
          if (pos < 0) return;
          isl::union_map carried(carriedPart(m, pos));
          if (!once) {
            // Executions of the sink that have no execution of the source in the same
            // iteration of the loop (and of every loop outside it): the loop carries them.
            isl_map* same = m.copy();
            for (int q = 0; q <= pos; ++q)
              same = isl_map_equate(same, isl_dim_in, q, isl_dim_out, q);
            isl::union_map internal(isl::manage(check(same, "same iteration")));
            isl::union_map all(m);
            // a -> execution of b, and those with an execution of a in the same iteration.
            isl::union_map lonely = all.apply_domain(m_instNew).subtract(internal.apply_domain(m_instNew));
            carried = carried.intersect(lonely.apply_domain(m_instNew.reverse()));
          }
          if (carried.is_empty()) return;
          auto pair = firstPoint(carried.wrap());
          const std::size_t ns = s->loops.size();
          std::vector<std::int64_t> sl(pair.begin(), pair.begin() + long(ns)), tl(pair.begin() + long(ns), pair.end());
          // Their identities in the common space.
          auto ident = [&](const ScopStatement& st, const std::vector<std::int64_t>& loops) {
            isl_set* p = isl_set_universe(isl_space_domain(isl_multi_pw_aff_get_space(st.iterValues.get())));
            for (std::size_t k = 0; k < loops.size(); ++k) p = isl_set_fix_si(p, isl_dim_set, unsigned(k), int(loops[k]));
            return firstPoint(isl::union_set(isl::manage(check(p, "loop point"))).apply(m_instNew));
          };
          auto sid = ident(*s, sl), tid = ident(*t, tl);
          std::vector<std::int64_t> both = sid;
          both.insert(both.end(), tid.begin(), tid.end());
          Counterexample c = describe(d, both);
          c.parallelLoop = m_cur.loops[l].name;
          c.loopKind = f->forKind == ir::ForKind::Parallel ? "parallel" : "vectorized";
          c.sourceAfter = namedLoops(m_cur, s->name, sl);
          c.sinkAfter = namedLoops(m_cur, t->name, tl);
          found = std::move(c);
        });
        if (found) return found;
      }
    }
    return std::nullopt;
  }

  const OriginalModel& m_orig;
  const Scop& m_cur;
  isl::union_map m_instNew;
  std::map<std::string, isl::union_map> m_times;                     ///< original statement -> { instance -> times }
  std::map<std::string, bool> m_runsOnce;                            ///< per original statement, see runsOnce
  std::map<std::string, std::vector<const ScopStatement*>> m_runsOf; ///< matched original statement -> current ones
  std::vector<std::optional<isl::union_map>> m_depInNew;
  isl::set m_src, m_snk;
};

Expected<LegalityReport> checkAgainst(const OriginalModel& orig, const Scop& cur,
                                      unsigned long maxOperations = kLegalityMaxOperations) {
  IslQuotaScope quota(maxOperations);
  auto failed = [&](const char* what, bool overQuota = false) {
    if (overQuota || quota.exceeded())
      return Diagnostic::error("poly.quota", fmt::format("the legality check exceeded the bound of {} isl operations: "
                                                         "the schedule is too complex to check exactly",
                                                         maxOperations));
    return Diagnostic::error("poly.isl", std::string("isl failed checking legality: ") + what);
  };
  try {
    return Checker(orig, cur).run();
  } catch (const isl::exception_quota& e) { // the C++ bindings reset the context's last error
    return Unexpected(failed(e.what(), true));
  } catch (const isl::exception& e) {
    return Unexpected(failed(e.what()));
  } catch (const IslError& e) {
    return Unexpected(failed(e.what()));
  }
}

Expected<OriginalModel> modelOf(const ProgramAnalysis& analysis) {
  try {
    return buildOriginal(analysis.scop, analysis.deps);
  } catch (const isl::exception& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed: ") + e.what()));
  } catch (const IslError& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed: ") + e.what()));
  }
}

/// Per-thread cache of original models (keyed by the original state, which an entry keeps
/// alive), most recently used first, each with the last few reports against it.
class ModelCache {
public:
  struct Entry {
    schedule::StatePtr original;
    std::shared_ptr<const OriginalModel> model; ///< null when `error` is set
    std::optional<Diagnostic> error;            ///< why the original has no model
    std::vector<std::pair<schedule::StatePtr, Expected<LegalityReport>>> reports; ///< most recent first
  };

  Entry& get(const schedule::ProgramState& original) {
    auto it =
        std::find_if(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.original.get() == &original; });
    if (it != m_entries.end()) {
      std::rotate(m_entries.begin(), it, it + 1);
      return m_entries.front();
    }
    Entry e{original.shared_from_this(), nullptr, std::nullopt, {}};
    auto analysis = analyzeProgram(original);
    auto m = analysis ? modelOf(**analysis) : Expected<OriginalModel>(Unexpected(analysis.error()));
    if (m) e.model = std::make_shared<const OriginalModel>(std::move(*m));
    else e.error = m.error();
    if (m_entries.size() >= kModels) m_entries.pop_back();
    m_entries.insert(m_entries.begin(), std::move(e));
    return m_entries.front();
  }

  void clear() { m_entries.clear(); }

  static constexpr std::size_t kModels = 8;
  static constexpr std::size_t kReports = 4;

private:
  std::vector<Entry> m_entries;
};

ModelCache& modelCache() {
  // The context first: thread_locals are destroyed in reverse order of construction, so
  // the cached isl objects are freed before the context they live in.
  (void)islContext();
  thread_local ModelCache cache;
  return cache;
}

} // namespace

Expected<LegalityReport> checkLegality(const schedule::ProgramState& original, const schedule::ProgramState& current) {
  ModelCache::Entry& e = modelCache().get(original);
  if (e.error) return Unexpected(*e.error);
  for (const auto& [state, report] : e.reports)
    if (state.get() == &current) return report;
  const auto model = e.model; // `e` may move while the structure is extracted
  auto structure = programStructure(current);
  Expected<LegalityReport> report =
      structure ? checkAgainst(*model, **structure) : Expected<LegalityReport>(Unexpected(structure.error()));
  ModelCache::Entry& again = modelCache().get(original);
  if (again.reports.size() >= ModelCache::kReports) again.reports.pop_back();
  again.reports.insert(again.reports.begin(), {current.shared_from_this(), report});
  return report;
}

Expected<LegalityReport> checkLegality(const ir::PrimFunc& original, const ir::PrimFunc& current) {
  return checkLegality(*schedule::ProgramState::make(original), *schedule::ProgramState::make(current));
}

Expected<LegalityReport> checkLegalityUncached(const ir::PrimFunc& original, const ir::PrimFunc& current,
                                               unsigned long maxOperations) {
  auto scop = extractScop(original);
  if (!scop) return Unexpected(scop.error());
  auto deps = computeDependences(*scop);
  if (!deps) return Unexpected(deps.error());
  auto orig = modelOf(ProgramAnalysis{std::move(*scop), std::move(*deps)});
  if (!orig) return Unexpected(orig.error());
  auto cur = extractScop(current, ScopContent::Structure);
  if (!cur) return Unexpected(cur.error());
  return checkAgainst(*orig, *cur, maxOperations);
}

void clearLegalityCache() {
  modelCache().clear();
  clearProgramAnalyses();
}

Diagnostic illegalDiagnostic(const Counterexample& c, std::string code, std::string_view what) {
  std::string msg = counterexampleMessage(c);
  Diagnostic d = Diagnostic::error(std::move(code), what.empty() ? msg : fmt::format("{} is illegal: {}", what, msg));
  d.subject = DiagnosticSubject::Program;
  d.references.push_back({IrReference::Kind::Block, c.source.statement});
  d.references.push_back({IrReference::Kind::Block, c.sink.statement});
  d.counterexample = std::make_shared<const Counterexample>(c);
  return d;
}

Expected<void> verifyLegality(const ir::PrimFunc& original, const ir::PrimFunc& current, std::string_view what) {
  auto report = checkLegality(original, current);
  if (!report) return {};
  if (report->legal) return {};
  return Unexpected(illegalDiagnostic(*report->counterexample, "poly.illegal", what));
}

void installLegalityVerifier(schedule::Schedule& sch) {
  sch.setVerifier(
      [](const schedule::ProgramState& original, const schedule::ProgramState& after,
         const schedule::Instruction& instruction) -> Expected<std::optional<Diagnostic>> {
        const std::string what = instruction.kind ? std::string(instruction.kind->name) : std::string("step");
        auto report = checkLegality(original, after);
        if (!report) {
          const std::string& code = report.error().code;
          if (code != "poly.non-affine" && code != "poly.unsupported") {
            Diagnostic d = schedule::scheduleError(
                what, "legality-unchecked",
                fmt::format("{} could not be checked for legality: {}", what, report.error().message),
                report.error().references);
            d.notes.push_back(fmt::format("the check failed with {}", code));
            return Unexpected(std::move(d));
          }
          Diagnostic note =
              Diagnostic::error("legality.undecided", fmt::format("{} was not checked against the dependences: {}",
                                                                  what, report.error().message));
          note.severity = Severity::Note;
          note.references = report.error().references;
          return std::optional<Diagnostic>(std::move(note));
        }
        if (report->legal) return std::optional<Diagnostic>();
        return Unexpected(illegalDiagnostic(*report->counterexample, fmt::format("schedule.{}.illegal", what), what));
      },
      schedule::LegalityPolicy::Exact);
}

} // namespace loopscape::poly
