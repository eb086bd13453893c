#include "core/poly/iteration_space.h"

#include "core/ir/assert.h"
#include "core/ir/xml_escape.h"
#include "core/poly/dependences.h"
#include "core/poly/isl_util.h"
#include "core/poly/program_analysis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stop_token>

namespace loopscape::poly {

using namespace detail;

namespace {

Diagnostic spaceError(std::string code, std::string message, const std::string& block) {
  Diagnostic d = Diagnostic::error(std::move(code), std::move(message));
  d.references.push_back({IrReference::Kind::Block, block, nullptr});
  d.subject = DiagnosticSubject::Program;
  return d;
}

/// A stop requested while enumerating (iterationSpace turns it into "cancelled").
struct Cancelled {};

/// Every point of the bounded, parameter-free set `s` in isl's scan order, up to `cap`:
/// when there are more, the scan stops after the cap + 1st point (kept in the result)
/// and `exceeded` is set.
std::vector<std::vector<std::int64_t>> enumeratePoints(const isl::set& s, std::size_t cap, const std::stop_token& stop,
                                                       bool* exceeded = nullptr) {
  struct State {
    std::size_t cap;
    const std::stop_token* stop;
    std::vector<std::vector<std::int64_t>> out;
    bool exceeded = false;
    bool cancelled = false;
    std::string error;
  } st{cap, &stop, {}, false, false, {}};
  auto cb = [](isl_point* pnt, void* user) -> isl_stat {
    auto* st = static_cast<State*>(user);
    isl::point p = isl::manage(pnt);
    if ((st->out.size() & 1023) == 0 && st->stop->stop_requested()) {
      st->cancelled = true;
      return isl_stat_error;
    }
    try {
      st->out.push_back(pointCoordinates(p));
    } catch (const std::exception& e) {
      st->error = e.what();
      return isl_stat_error;
    }
    if (st->out.size() > st->cap) {
      st->exceeded = true;
      return isl_stat_error;
    }
    return isl_stat_ok;
  };
  const isl_stat r = isl_set_foreach_point(s.get(), cb, &st);
  if (st.cancelled) throw Cancelled{};
  if (!st.error.empty()) throw IslError(st.error);
  if (r < 0 && !st.exceeded) throw IslError("isl: isl_set_foreach_point failed");
  if (exceeded) *exceeded = st.exceeded;
  return std::move(st.out);
}

/// `s` with dimension `pos` of kind `type` equal to `value` (64-bit: isl_set_fix_si takes an int).
isl::set fixValue(const isl::set& s, isl_dim_type type, int pos, std::int64_t value) {
  isl_val* v = check(isl_val_int_from_si(s.ctx().get(), static_cast<long>(value)), "isl_val_int_from_si");
  return isl::manage(check(isl_set_fix_val(s.copy(), type, static_cast<unsigned>(pos), v), "isl_set_fix_val"));
}

isl::set fixDim(const isl::set& s, int dim, std::int64_t value) { return fixValue(s, isl_dim_set, dim, value); }

/// The single map of a union map over one space.
isl::map onlyMap(const isl::union_map& um) {
  return isl::manage(check(isl_map_from_union_map(um.copy()), "isl_map_from_union_map"));
}

/// The lowest value of dimension `dim` of the non-empty, parameter-free set `s`.
std::int64_t lowestValue(const isl::set& s, int dim) {
  const isl_size n = isl_set_dim(s.get(), isl_dim_set);
  isl_set* p = isl_set_project_out(s.copy(), isl_dim_set, dim + 1, n - dim - 1);
  p = isl_set_project_out(p, isl_dim_set, 0, dim);
  isl::set one = isl::manage(check(p, "isl_set_project_out")).lexmin();
  return pointCoordinates(one.sample_point()).at(0);
}

/// Whether some piece's value (not its domain, which bounds every loop) uses loop `dim`.
bool valueInvolves(const isl::pw_aff& pa, unsigned dim) {
  struct State {
    unsigned dim;
    bool involves = false;
  } st{dim};
  auto cb = [](isl_set* set, isl_aff* aff, void* user) -> isl_stat {
    auto* st = static_cast<State*>(user);
    if (isl_aff_involves_dims(aff, isl_dim_in, st->dim, 1) == isl_bool_true) st->involves = true;
    isl_set_free(set);
    isl_aff_free(aff);
    return isl_stat_ok;
  };
  if (isl_pw_aff_foreach_piece(pa.get(), cb, &st) < 0) throw IslError("isl: isl_pw_aff_foreach_piece failed");
  return st.involves;
}

bool isParallelKind(ir::ForKind k) {
  return k == ir::ForKind::Parallel || k == ir::ForKind::Vectorized || k == ir::ForKind::ThreadBinding;
}

/// The statement of `scop` that holds the instances of `name` of another state of the
/// same program (decompose_reduction's `<block>_update` for `<block>`).
const ScopStatement* matchingStatement(const Scop& scop, const std::string& name) {
  if (const ScopStatement* s = scop.findStatement(name)) return s;
  return scop.findStatement(name + "_update");
}

std::string iteratorName(const ir::IterVar& iv) { return iv.var.as<ir::Var>()->name; }

/// The loop values of the first execution of `si` (iterators matched by name; sizes bound
/// by `params`), or nothing when the statement never executes it.
std::optional<std::vector<std::int64_t>> instanceLoops(const ScopStatement& stmt, const isl::set& params,
                                                       const StatementInstance& si) {
  isl::set iters =
      isl::manage(check(isl_set_universe(isl_space_range(stmt.iterValues.space().release())), "isl_set_universe"))
          .intersect_params(params)
          .project_out_all_params();
  for (const auto& [name, value] : si.iterators)
    for (std::size_t k = 0; k < stmt.iterators.size(); ++k)
      if (iteratorName(stmt.iterators[k]) == name) iters = fixDim(iters, static_cast<int>(k), value);
  isl::map m = stmt.iterValues.as_map().intersect_params(params).project_out_all_params();
  isl::set loops = m.intersect_range(iters).domain();
  if (loops.is_empty()) return std::nullopt;
  return pointCoordinates(loops.lexmin().sample_point());
}

struct Axis {
  bool isLoop = true;
  int index = -1; ///< loop position or iterator position
};

class Builder {
public:
  Builder(const schedule::ProgramState& state, const IterationSpaceRequest& req,
          const schedule::ProgramState* orderedBy, std::stop_token stop)
      : m_state(state), m_req(req), m_orderedBy(orderedBy), m_stop(std::move(stop)) {}

  Expected<IterationSpace> run() {
    auto analysis = analyzeProgram(m_state);
    if (!analysis) return Unexpected(analysis.error());
    m_analysis = *analysis;
    const Scop& scop = m_analysis->scop;
    m_stmt = matchingStatement(scop, m_req.block); // `C` is `C_update` after decompose_reduction
    if (!m_stmt) {
      std::vector<std::string> names;
      for (const auto& s : scop.statements)
        names.push_back(s.name);
      return Unexpected(
          spaceError("space.unknown-block",
                     fmt::format("no block '{}' in the program (statements: {})", m_req.block, fmt::join(names, ", ")),
                     m_req.block));
    }
    IterationSpace& out = m_out;
    out.statement = m_stmt->name;
    out.block = m_stmt->blockName;
    out.sizes = m_req.sizes;
    for (int l : m_stmt->loops)
      out.loops.push_back(scop.loops[l].name);
    for (const auto& iv : m_stmt->iterators)
      out.iterators.push_back(iteratorName(iv));

    auto ax = resolveAxis(m_req.dimX);
    if (!ax) return Unexpected(ax.error());
    auto ay = resolveAxis(m_req.dimY);
    if (!ay) return Unexpected(ay.error());
    m_x = *ax;
    m_y = *ay;
    out.xName = axisName(m_x);
    out.yName = axisName(m_y);
    if (m_x.isLoop == m_y.isLoop && m_x.index == m_y.index)
      return Unexpected(spaceError("space.same-dimension",
                                   fmt::format("both axes of the view of block '{}' are '{}'", out.block, out.xName),
                                   out.block));
    auto params = bindParams();
    if (!params) return Unexpected(params.error());
    m_params = *params;
    freeLoops();
    auto slice = fixLoops();
    if (!slice) return Unexpected(slice.error());
    if (isl_set_is_bounded(slice->get()) != isl_bool_true)
      return Unexpected(spaceError("space.unbounded",
                                   fmt::format("the slice of block '{}' is unbounded: {}", out.block, str(*slice)),
                                   out.block));
    m_slice = cut(*slice);
    instances();
    if (auto ordered = order(); !ordered) return Unexpected(ordered.error());
    arrows();
    wavefronts();
    tiles();
    if (out.instances.empty() && out.message.empty())
      out.message = fmt::format("the slice of block '{}' has no instance{}", out.block, fixedText());
    return std::move(m_out);
  }

private:
  Expected<Axis> resolveAxis(const std::string& spec) const {
    const auto& loops = m_out.loops;
    for (std::size_t k = 0; k < loops.size(); ++k)
      if (loops[k] == spec) return Axis{true, static_cast<int>(k)};
    if (!spec.empty() && std::all_of(spec.begin(), spec.end(), [](unsigned char c) { return std::isdigit(c); })) {
      const auto pos = std::stoul(spec);
      if (pos < loops.size()) return Axis{true, static_cast<int>(pos)};
    }
    for (std::size_t k = 0; k < m_out.iterators.size(); ++k)
      if (m_out.iterators[k] == spec) return Axis{false, static_cast<int>(k)};
    return Unexpected(
        spaceError("space.unknown-dimension",
                   fmt::format("block '{}' has no loop or iterator '{}' (loops: {}; iterators: {})", m_out.block, spec,
                               fmt::join(loops, ", "), fmt::join(m_out.iterators, ", ")),
                   m_out.block));
  }

  std::string axisName(const Axis& a) const { return a.isLoop ? m_out.loops[a.index] : m_out.iterators[a.index]; }

  /// The bound sizes as a parameter set; every size the statement's domain uses is bound.
  Expected<isl::set> bindParams() const {
    isl::set params =
        isl::manage(check(isl_set_universe(isl_space_params(m_stmt->domain.space().release())), "isl_set_universe"));
    const isl_size n = isl_set_dim(params.get(), isl_dim_param);
    for (isl_size i = 0; i < n; ++i) {
      const std::string name = isl_set_get_dim_name(params.get(), isl_dim_param, i);
      auto it = m_req.sizes.find(name);
      if (it == m_req.sizes.end())
        return Unexpected(spaceError(
            "space.unbound-size",
            fmt::format("block '{}' depends on the symbolic size '{}': bind it to a small value (--shape {}=8)",
                        m_out.block, name, name),
            m_out.block));
      params = fixValue(params, isl_dim_param, i, it->second);
    }
    return params;
  }

  isl::set bind(const isl::set& s) const { return s.intersect_params(m_params).project_out_all_params(); }
  isl::map bind(const isl::map& m) const { return m.intersect_params(m_params).project_out_all_params(); }

  /// The loops an axis depends on are free; the outer ones of an iterator's are tile loops.
  void freeLoops() {
    const std::size_t n = m_out.loops.size();
    m_out.free.assign(n, false);
    m_out.fixedValues.assign(n, 0);
    // The innermost loop of each axis moves within a tile; the other free loops pick the
    // tile (i_0 and j_0 for v_i = i_0 * 4 + i_1, v_j = j_0 * 8 + j_1; t_0 and i_0 when a
    // skewed band is tiled and v_i involves t_0, i_0, t_1, i_1).
    std::vector<bool> intra(n, false);
    bool split = false;
    for (const Axis* a : {&m_x, &m_y}) {
      if (a->isLoop) {
        m_out.free[a->index] = true;
        intra[a->index] = true;
        continue;
      }
      isl::pw_aff pa = m_stmt->iterValues.at(a->index);
      std::vector<int> involved;
      for (std::size_t k = 0; k < n; ++k)
        if (valueInvolves(pa, static_cast<unsigned>(k))) involved.push_back(static_cast<int>(k));
      for (int k : involved)
        m_out.free[k] = true;
      if (!involved.empty()) intra[involved.back()] = true;
      split = split || involved.size() > 1;
    }
    for (std::size_t k = 0; k < n && split; ++k)
      if (m_out.free[k] && !intra[k]) {
        m_tileLoops.push_back(static_cast<int>(k));
        m_out.tileLoops.push_back(m_out.loops[k]);
      }
  }

  /// The domain with the sizes bound and every loop that is not free fixed.
  Expected<isl::set> fixLoops() {
    for (const auto& [name, value] : m_req.fixed) {
      auto it = std::find(m_out.loops.begin(), m_out.loops.end(), name);
      if (it == m_out.loops.end())
        return Unexpected(spaceError("space.unknown-loop",
                                     fmt::format("loop '{}' is not around block '{}' (loops: {})", name, m_out.block,
                                                 fmt::join(m_out.loops, ", ")),
                                     m_out.block));
      if (m_out.free[it - m_out.loops.begin()])
        return Unexpected(spaceError("space.not-free",
                                     fmt::format("loop '{}' of block '{}' spans an axis of the view ({}, {}) and "
                                                 "cannot be fixed",
                                                 name, m_out.block, m_out.xName, m_out.yName),
                                     m_out.block));
    }
    std::optional<std::vector<std::int64_t>> shown;
    if (m_req.showInstance) {
      if (m_req.showInstance->statement != m_stmt->name)
        return Unexpected(spaceError(
            "space.other-statement",
            fmt::format("{} is not an instance of '{}'", m_req.showInstance->text(), m_stmt->name), m_out.block));
      shown = instanceLoops(*m_stmt, m_params, *m_req.showInstance);
      if (!shown)
        return Unexpected(spaceError("space.not-executed",
                                     fmt::format("{} is not executed by this program", m_req.showInstance->text()),
                                     m_out.block));
    }
    isl::set cur = bind(m_stmt->domain);
    for (std::size_t k = 0; k < m_out.loops.size(); ++k) {
      if (m_out.free[k]) continue;
      auto it = m_req.fixed.find(m_out.loops[k]);
      std::int64_t v = 0;
      if (it != m_req.fixed.end())
        v = it->second;
      else if (shown)
        v = (*shown)[k];
      else if (!cur.is_empty())
        v = lowestValue(cur, static_cast<int>(k));
      m_out.fixedValues[k] = v;
      cur = fixDim(cur, static_cast<int>(k), v);
    }
    return cur;
  }

  std::string fixedText() const {
    std::vector<std::string> parts;
    for (std::size_t k = 0; k < m_out.loops.size(); ++k)
      if (!m_out.free[k]) parts.push_back(fmt::format("{}={}", m_out.loops[k], m_out.fixedValues[k]));
    return parts.empty() ? std::string() : fmt::format(" at {}", fmt::join(parts, ", "));
  }

  /// The slice, or its first `maxInstances` instances in loop (execution) order: the
  /// instances lexicographically at most the last one kept. isl's scan need not be
  /// lexicographic across disjuncts, so the bound is lowered until the cut set fits.
  isl::set cut(const isl::set& slice) {
    const std::size_t cap = std::max<std::size_t>(m_req.maxInstances, 1);
    bool exceeded = false;
    auto pts = enumeratePoints(slice, cap, m_stop, &exceeded);
    if (!exceeded) return slice;
    isl::set kept = slice;
    // `pts` holds cap + 1 points of the slice. Keep the slice up to (lexicographically) the
    // cap-th smallest of them: fewer points than before (the largest is left out), and at
    // least cap. isl's scan is lexicographic within a basic set, so one pass is the rule;
    // a slice of several disjuncts may take more.
    for (;;) {
      std::sort(pts.begin(), pts.end());
      isl::set last = isl::manage(check(isl_set_universe(slice.space().release()), "isl_set_universe"));
      for (std::size_t d = 0; d < pts[cap - 1].size(); ++d)
        last = fixDim(last, static_cast<int>(d), pts[cap - 1][d]);
      isl::map le = isl::manage(check(isl_set_lex_le_set(slice.copy(), last.copy()), "isl_set_lex_le_set"));
      kept = le.domain();
      pts = enumeratePoints(kept, cap, m_stop, &exceeded);
      if (!exceeded) break;
    }
    m_out.truncated = true;
    m_out.message = fmt::format(
        "the slice of block '{}'{} has more than {} instances: showing the first {} in execution order (bind smaller "
        "sizes or fix more loops)",
        m_out.block, fixedText(), cap, pts.size());
    return kept;
  }

  void instances() {
    isl::map iter = bind(m_stmt->iterValues.as_map()).intersect_domain(m_slice);
    const std::size_t n = m_out.loops.size();
    for (auto& p : enumeratePoints(iter.wrap(), std::numeric_limits<std::size_t>::max(), m_stop)) {
      SpaceInstance inst;
      inst.loops.assign(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(n));
      inst.iterators.assign(p.begin() + static_cast<std::ptrdiff_t>(n), p.end());
      auto coord = [&](const Axis& a) { return a.isLoop ? inst.loops[a.index] : inst.iterators[a.index]; };
      inst.x = coord(m_x);
      inst.y = coord(m_y);
      m_out.instances.push_back(std::move(inst));
    }
  }

  /// Ranks by the ordering state's schedule at each instance's first execution.
  Expected<void> order() {
    std::shared_ptr<const ProgramAnalysis> other;
    const Scop* oscop = &m_analysis->scop;
    const ScopStatement* ostmt = m_stmt;
    if (m_orderedBy && m_orderedBy != &m_state) {
      auto a = analyzeProgram(*m_orderedBy);
      if (!a) return Unexpected(a.error());
      other = *a;
      oscop = &other->scop;
      ostmt = matchingStatement(*oscop, m_stmt->name);
      if (!ostmt || ostmt->iterators.size() != m_stmt->iterators.size())
        return Unexpected(spaceError("space.not-in-order",
                                     fmt::format("the ordering program has no statement matching '{}'", m_stmt->name),
                                     m_out.block));
    }
    // { S[l] -> S[it] } . { S[it] -> S'[l'] } . { S'[l'] -> [[t] -> S'[l']] }, first t.
    isl::map iter = bind(m_stmt->iterValues.as_map()).intersect_domain(m_slice);
    isl::map oiter = bind(ostmt->iterValues.as_map()).reverse();
    oiter = isl::manage(
        check(isl_map_set_tuple_name(oiter.release(), isl_dim_in, m_stmt->name.c_str()), "isl_map_set_tuple_name"));
    isl::map sched = bind(onlyMap(oscop->scheduleMap().intersect_domain(isl::union_set(ostmt->domain))));
    isl::map timed = isl::manage(check(isl_map_range_map(sched.reverse().release()), "isl_map_range_map")).reverse();
    isl::map first = iter.apply_range(oiter).apply_range(timed).lexmin();
    const std::size_t n = m_out.loops.size();
    const std::size_t on = ostmt->loops.size();
    std::map<std::vector<std::int64_t>, std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> when;
    for (auto& p : enumeratePoints(first.wrap(), std::numeric_limits<std::size_t>::max(), m_stop)) {
      std::vector<std::int64_t> loops(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(n));
      std::vector<std::int64_t> time(p.begin() + static_cast<std::ptrdiff_t>(n),
                                     p.end() - static_cast<std::ptrdiff_t>(on));
      std::vector<std::int64_t> oloops(p.end() - static_cast<std::ptrdiff_t>(on), p.end());
      when[loops] = {std::move(time), std::move(oloops)};
    }
    std::vector<std::pair<std::vector<std::int64_t>, SpaceInstance>> keyed;
    std::vector<bool> parallel;
    for (int l : ostmt->loops)
      parallel.push_back(isParallelKind(oscop->loops[l].loop.as<ir::For>()->forKind));
    std::map<std::vector<std::int64_t>, std::int64_t> steps;
    std::vector<std::vector<std::int64_t>> stepKey;
    for (auto& inst : m_out.instances) {
      auto it = when.find(inst.loops);
      if (it == when.end())
        return Unexpected(spaceError(
            "space.not-in-order",
            fmt::format("the ordering program does not execute {}({})", m_stmt->name, fmt::join(inst.iterators, ", ")),
            m_out.block));
      std::vector<std::int64_t> key;
      for (std::size_t k = 0; k < on; ++k)
        if (!parallel[k]) key.push_back(it->second.second[k]);
      steps[key] = 0;
      stepKey.push_back(key);
      auto time = it->second.first;
      time.insert(time.end(), inst.loops.begin(), inst.loops.end());
      keyed.emplace_back(std::move(time), std::move(inst));
    }
    std::int64_t s = 0;
    for (auto& [key, step] : steps)
      step = s++;
    for (std::size_t i = 0; i < keyed.size(); ++i)
      keyed[i].second.parallelStep = steps[stepKey[i]];
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    m_out.instances.clear();
    for (auto& [time, inst] : keyed) {
      inst.order = static_cast<std::int64_t>(m_out.instances.size());
      m_out.instances.push_back(std::move(inst));
    }
    m_out.parallelSteps = s;
    for (std::size_t i = 0; i < m_out.instances.size(); ++i)
      m_index[m_out.instances[i].loops] = static_cast<int>(i);
    return {};
  }

  void arrows() {
    for (const auto& d : m_analysis->deps.list) {
      if (d.source != m_stmt->name || d.sink != m_stmt->name) continue;
      isl::map rel = bind(d.relation).intersect_domain(m_slice).intersect_range(m_slice);
      const std::size_t n = m_out.loops.size();
      std::vector<SpaceArrow> found;
      const std::size_t room = m_req.maxArrows > m_out.arrows.size() ? m_req.maxArrows - m_out.arrows.size() : 0;
      bool exceeded = false;
      auto pairs = enumeratePoints(rel.wrap(), room, m_stop, &exceeded);
      if (exceeded) {
        pairs.resize(room);
        m_out.arrowsTruncated = true;
      }
      for (auto& p : pairs) {
        std::vector<std::int64_t> a(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(n));
        std::vector<std::int64_t> b(p.begin() + static_cast<std::ptrdiff_t>(n), p.end());
        auto ia = m_index.find(a);
        auto ib = m_index.find(b);
        if (ia == m_index.end() || ib == m_index.end()) continue;
        found.push_back({ia->second, ib->second, dependenceKindName(d.kind), d.buffer});
      }
      std::sort(found.begin(), found.end(), [](const SpaceArrow& x, const SpaceArrow& y) {
        return std::pair(x.source, x.sink) < std::pair(y.source, y.sink);
      });
      m_out.arrows.insert(m_out.arrows.end(), found.begin(), found.end());
      if (m_out.arrowsTruncated) break;
    }
    if (m_out.arrowsTruncated) {
      const std::string note = fmt::format("more than {} dependences between the instances shown: showing {}",
                                           m_req.maxArrows, m_out.arrows.size());
      m_out.message = m_out.message.empty() ? note : m_out.message + "; " + note;
    }
  }

  /// Longest dependence chain ending at each instance (Kahn's order over the arrows).
  void wavefronts() {
    const std::size_t n = m_out.instances.size();
    std::vector<std::vector<int>> succ(n);
    std::vector<int> indeg(n, 0);
    for (const auto& a : m_out.arrows) {
      if (a.source == a.sink) continue;
      succ[a.source].push_back(a.sink);
      ++indeg[a.sink];
    }
    std::vector<int> ready;
    for (std::size_t i = 0; i < n; ++i)
      if (indeg[i] == 0) ready.push_back(static_cast<int>(i));
    std::int64_t levels = 0;
    while (!ready.empty()) {
      const int i = ready.back();
      ready.pop_back();
      auto& inst = m_out.instances[i];
      levels = std::max(levels, inst.wavefront + 1);
      for (int j : succ[i]) {
        m_out.instances[j].wavefront = std::max(m_out.instances[j].wavefront, inst.wavefront + 1);
        if (--indeg[j] == 0) ready.push_back(j);
      }
    }
    m_out.wavefronts = levels;
  }

  void tiles() {
    std::map<std::vector<std::int64_t>, int> byKey;
    for (std::size_t i = 0; i < m_out.instances.size(); ++i) {
      const auto& inst = m_out.instances[i];
      if (m_out.xMax < m_out.xMin) {
        m_out.xMin = m_out.xMax = inst.x;
        m_out.yMin = m_out.yMax = inst.y;
      }
      m_out.xMin = std::min(m_out.xMin, inst.x);
      m_out.xMax = std::max(m_out.xMax, inst.x);
      m_out.yMin = std::min(m_out.yMin, inst.y);
      m_out.yMax = std::max(m_out.yMax, inst.y);
      if (m_tileLoops.empty()) continue;
      std::vector<std::int64_t> key;
      for (int k : m_tileLoops)
        key.push_back(inst.loops[k]);
      auto [it, added] = byKey.emplace(key, static_cast<int>(m_out.tiles.size()));
      if (added) m_out.tiles.push_back({key, inst.x, inst.x, inst.y, inst.y, {}});
      SpaceTile& t = m_out.tiles[it->second];
      t.xMin = std::min(t.xMin, inst.x);
      t.xMax = std::max(t.xMax, inst.x);
      t.yMin = std::min(t.yMin, inst.y);
      t.yMax = std::max(t.yMax, inst.y);
      t.instances.push_back(static_cast<int>(i));
    }
  }

  const schedule::ProgramState& m_state;
  const IterationSpaceRequest& m_req;
  const schedule::ProgramState* m_orderedBy;
  std::stop_token m_stop;
  std::shared_ptr<const ProgramAnalysis> m_analysis;
  const ScopStatement* m_stmt = nullptr;
  Axis m_x, m_y;
  isl::set m_params;
  isl::set m_slice;
  std::vector<int> m_tileLoops;
  std::map<std::vector<std::int64_t>, int> m_index;
  IterationSpace m_out;
};

/// Places one counterexample instance; `loops` of the slice's state.
PlacedInstance place(const Scop& scop, const isl::set& params, const IterationSpace& space,
                     const StatementInstance& si) {
  PlacedInstance out;
  out.instance = si;
  if (si.statement != space.statement) {
    out.hint =
        fmt::format("{} is an instance of '{}', not of the slice's '{}'", si.text(), si.statement, space.statement);
    return out;
  }
  const ScopStatement* stmt = scop.findStatement(si.statement);
  LS_ASSERT(stmt);
  auto loops = instanceLoops(*stmt, params, si);
  if (!loops) {
    out.hint = fmt::format("{} is not executed by this program", si.text());
    return out;
  }
  out.loops = std::move(*loops);
  std::vector<std::string> fix;
  for (std::size_t k = 0; k < space.loops.size(); ++k)
    if (!space.free[k] && out.loops[k] != space.fixedValues[k])
      fix.push_back(fmt::format("{}={}", space.loops[k], out.loops[k]));
  if (!fix.empty()) {
    out.hint = fmt::format("fix {} to show {}", fmt::join(fix, ", "), si.text());
    return out;
  }
  out.index = space.findInstance(out.loops);
  if (out.index < 0) {
    out.hint = fmt::format("{} is cut from the slice by the instance cap", si.text());
    return out;
  }
  out.inSlice = true;
  return out;
}

Diagnostic islFailure(const std::exception& e) {
  return Diagnostic::error("poly.isl", std::string("isl failed computing the iteration space: ") + e.what());
}

/// One cell per instance on the x/y grid of the slice (`cell(index)`), `.` elsewhere.
std::string grid(const IterationSpace& s, const std::string& title, const std::function<std::string(int)>& cell) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> cells;
  std::size_t width = 1;
  for (std::size_t i = 0; i < s.instances.size(); ++i) {
    std::string text = cell(static_cast<int>(i));
    width = std::max(width, text.size());
    cells[{s.instances[i].x, s.instances[i].y}] = std::move(text);
  }
  const std::string corner = s.yName + "\\" + s.xName;
  std::size_t label = corner.size();
  for (std::int64_t y = s.yMin; y <= s.yMax; ++y)
    label = std::max(label, std::to_string(y).size());
  for (std::int64_t x = s.xMin; x <= s.xMax; ++x)
    width = std::max(width, std::to_string(x).size());
  std::string out = title + ":\n" + fmt::format("  {:>{}}", corner, label);
  for (std::int64_t x = s.xMin; x <= s.xMax; ++x)
    out += fmt::format(" {:>{}}", x, width);
  out += "\n";
  for (std::int64_t y = s.yMin; y <= s.yMax; ++y) {
    out += fmt::format("  {:>{}}", y, label);
    for (std::int64_t x = s.xMin; x <= s.xMax; ++x) {
      auto it = cells.find({x, y});
      out += fmt::format(" {:>{}}", it == cells.end() ? std::string(".") : it->second, width);
    }
    out += "\n";
  }
  return out;
}

std::function<std::string(int)> numbers(const IterationSpace& s, std::int64_t SpaceInstance::*value) {
  return [&s, value](int i) { return std::to_string(s.instances[i].*value); };
}

constexpr std::int64_t kMaxGridColumns = 256, kMaxGridRows = 1024;

/// `#rrggbb` of the colour with this hue at 70 % saturation and 75 % lightness (SVG
/// readers such as Qt's do not all know hsl()).
std::string pastel(double hue) {
  const double s = 0.7, l = 0.75, c = (1 - std::abs(2 * l - 1)) * s;
  const double h = std::fmod(hue, 360.0) / 60.0, x = c * (1 - std::abs(std::fmod(h, 2.0) - 1)), m = l - c / 2;
  double r = 0, g = 0, b = 0;
  if (h < 1)
    r = c, g = x;
  else if (h < 2)
    r = x, g = c;
  else if (h < 3)
    g = c, b = x;
  else if (h < 4)
    g = x, b = c;
  else if (h < 5)
    r = x, b = c;
  else
    r = c, b = x;
  auto byte = [&](double v) { return static_cast<int>(std::lround((v + m) * 255)); };
  return fmt::format("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b));
}

std::string gridsOf(const IterationSpace& s, const PlacedCounterexample* c);
std::string listsOf(const IterationSpace& s, const PlacedCounterexample* c);

} // namespace

std::string renderIterationSpace(const IterationSpace& s, const PlacedCounterexample* c) {
  std::vector<std::string> fixed;
  for (std::size_t k = 0; k < s.loops.size(); ++k)
    if (!s.free[k]) fixed.push_back(fmt::format("{}={}", s.loops[k], s.fixedValues[k]));
  std::string out = fmt::format("block '{}' (statement {}): loops {}; x = {}, y = {}; fixed: {}\n", s.block,
                                s.statement, fmt::join(s.loops, ", "), s.xName, s.yName,
                                fixed.empty() ? std::string("none") : fmt::format("{}", fmt::join(fixed, ", ")));
  out += fmt::format("{} instances, {} dependences, {} wavefronts, {} parallel steps\n", s.instances.size(),
                     s.arrows.size(), s.wavefronts, s.parallelSteps);
  if (!s.message.empty()) out += "note: " + s.message + "\n";
  if (c) out += "counterexample: " + c->message + "\n";
  if (s.instances.empty()) return out;
  const std::int64_t columns = s.xMax - s.xMin + 1, rows = s.yMax - s.yMin + 1;
  if (columns > kMaxGridColumns || rows > kMaxGridRows) {
    out += fmt::format("grids omitted: {} x {} cells (at most {} x {}; fix more loops or lower the cap)\n", columns,
                       rows, kMaxGridColumns, kMaxGridRows);
  } else {
    out += gridsOf(s, c);
  }
  return out + listsOf(s, c);
}

namespace {

std::string gridsOf(const IterationSpace& s, const PlacedCounterexample* c) {
  std::string out;
  out += grid(s, "execution order", numbers(s, &SpaceInstance::order));
  out += grid(s, "wavefront", numbers(s, &SpaceInstance::wavefront));
  if (s.parallelSteps != static_cast<std::int64_t>(s.instances.size()))
    out += grid(s, "parallel step", numbers(s, &SpaceInstance::parallelStep));
  if (c && (c->source.inSlice || c->sink.inSlice))
    out += grid(s, "counterexample (S: source, T: sink)", [c](int i) {
      if (c->source.inSlice && i == c->source.index) return std::string("S");
      if (c->sink.inSlice && i == c->sink.index) return std::string("T");
      return std::string("o");
    });
  return out;
}

std::string listsOf(const IterationSpace& s, const PlacedCounterexample* c) {
  std::string out;
  if (!s.arrows.empty()) {
    out += "dependences:\n";
    for (std::size_t i = 0; i < s.arrows.size(); ++i) {
      const auto& a = s.arrows[i];
      const auto& p = s.instances[a.source];
      const auto& q = s.instances[a.sink];
      out += fmt::format("  {} {}: ({}, {}) -> ({}, {}){}\n", a.kind, a.buffer, p.x, p.y, q.x, q.y,
                         c && c->arrow == static_cast<int>(i) ? " (violated)" : "");
    }
  }
  if (!s.tiles.empty()) {
    out += fmt::format("tiles ({}):\n", fmt::join(s.tileLoops, ", "));
    for (const auto& t : s.tiles)
      out += fmt::format("  [{}]: {} {}..{}, {} {}..{} ({} instances)\n", fmt::join(t.key, ", "), s.xName, t.xMin,
                         t.xMax, s.yName, t.yMin, t.yMax, t.instances.size());
  }
  return out;
}

} // namespace

std::string renderIterationSpaceSvg(const IterationSpace& s, const PlacedCounterexample* c) {
  constexpr int kCell = 36, kMargin = 48;
  const std::int64_t columns = s.instances.empty() ? 0 : s.xMax - s.xMin + 1;
  const std::int64_t rows = s.instances.empty() ? 0 : s.yMax - s.yMin + 1;
  auto header = [](std::int64_t w, std::int64_t h) {
    return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                       "font-family=\"sans-serif\" font-size=\"11\">\n",
                       w, h);
  };
  if (columns > kMaxGridColumns || rows > kMaxGridRows || s.instances.empty()) {
    const std::string why = s.instances.empty() ? (s.message.empty() ? "no instance" : s.message)
                                                : fmt::format("{} x {} cells: too large to draw", columns, rows);
    return header(640, 40) + fmt::format("<text x=\"8\" y=\"24\">{}</text>\n</svg>\n", ir::xmlEscape(why));
  }
  auto cx = [&](std::int64_t x) { return kMargin + (x - s.xMin) * kCell + kCell / 2; };
  auto cy = [&](std::int64_t y) { return kMargin + (y - s.yMin) * kCell + kCell / 2; };
  std::string out = header(2 * kMargin + columns * kCell, 2 * kMargin + rows * kCell);
  out += fmt::format("<text x=\"{}\" y=\"14\">{} (x) / {} (y), block {}</text>\n", kMargin, ir::xmlEscape(s.xName),
                     ir::xmlEscape(s.yName), ir::xmlEscape(s.block));
  for (std::int64_t x = s.xMin; x <= s.xMax; ++x)
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", cx(x), kMargin - 8, x);
  for (std::int64_t y = s.yMin; y <= s.yMax; ++y)
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kMargin - 8, cy(y) + 4, y);
  for (const auto& t : s.tiles)
    out += fmt::format("<rect class=\"tile\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
                       "stroke=\"#888888\" stroke-dasharray=\"4 3\"/>\n",
                       cx(t.xMin) - kCell / 2 + 2, cy(t.yMin) - kCell / 2 + 2, (t.xMax - t.xMin + 1) * kCell - 4,
                       (t.yMax - t.yMin + 1) * kCell - 4);
  for (std::size_t i = 0; i < s.arrows.size(); ++i) {
    const auto& a = s.arrows[i];
    const bool violated = c && c->arrow == static_cast<int>(i);
    const char* colour = violated ? "#d62728" : a.kind == "WAR" ? "#1f77b4" : a.kind == "WAW" ? "#2ca02c" : "#555555";
    const auto& p = s.instances[a.source];
    const auto& q = s.instances[a.sink];
    const double dx = static_cast<double>(cx(q.x) - cx(p.x)), dy = static_cast<double>(cy(q.y) - cy(p.y));
    const double len = std::max(1.0, std::sqrt(dx * dx + dy * dy)), r = 11.0;
    const double ux = dx / len, uy = dy / len;
    const double x1 = cx(p.x) + ux * r, y1 = cy(p.y) + uy * r, x2 = cx(q.x) - ux * r, y2 = cy(q.y) - uy * r;
    out +=
        fmt::format("<g class=\"{}{}\" stroke=\"{}\" fill=\"{}\"><line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
                    "y2=\"{:.1f}\" stroke-width=\"{}\"/><polygon points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"/>"
                    "</g>\n",
                    a.kind, violated ? " violated" : "", colour, colour, x1, y1, x2, y2, violated ? 2.5 : 1, x2, y2,
                    x2 - ux * 7 - uy * 3.5, y2 - uy * 7 + ux * 3.5, x2 - ux * 7 + uy * 3.5, y2 - uy * 7 - ux * 3.5);
  }
  for (std::size_t i = 0; i < s.instances.size(); ++i) {
    const auto& inst = s.instances[i];
    const bool marked = c && ((c->source.inSlice && c->source.index == static_cast<int>(i)) ||
                              (c->sink.inSlice && c->sink.index == static_cast<int>(i)));
    const double hue = s.wavefronts > 1 ? 220.0 * static_cast<double>(inst.wavefront) / (s.wavefronts - 1) : 200.0;
    const std::string fill = pastel(hue);
    out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"10\" fill=\"{}\" stroke=\"{}\" "
                       "stroke-width=\"{}\"><title>({}) order {}, wavefront {}</title></circle>\n",
                       cx(inst.x), cy(inst.y), fill, marked ? "#d62728" : "#333333", marked ? 3 : 1,
                       fmt::join(inst.loops, ", "), inst.order, inst.wavefront);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", cx(inst.x), cy(inst.y) + 4,
                       inst.order);
  }
  return out + "</svg>\n";
}

int IterationSpace::findInstance(const std::vector<std::int64_t>& values) const {
  for (std::size_t i = 0; i < instances.size(); ++i)
    if (instances[i].loops == values) return static_cast<int>(i);
  return -1;
}

Expected<IterationSpace> iterationSpace(const schedule::ProgramState& state, const IterationSpaceRequest& request,
                                        const schedule::ProgramState* orderedBy, std::stop_token stop) {
  // The analyses first, outside the stop scope: an aborted analysis must not be kept by
  // the thread's cache as the program's result.
  for (const schedule::ProgramState* s : {&state, orderedBy})
    if (s) {
      if (auto a = analyzeProgram(*s); !a) return Unexpected(a.error());
    }
  auto cancelled = [] { return Diagnostic::error("cancelled", "the iteration space was cancelled"); };
  IslStopScope stopScope(stop);
  try {
    auto r = Builder(state, request, orderedBy, stop).run();
    if (stopScope.cancelled()) return Unexpected(cancelled());
    return r;
  } catch (const Cancelled&) {
    return Unexpected(cancelled());
  } catch (const isl::exception& e) {
    return Unexpected(stopScope.cancelled() ? cancelled() : islFailure(e));
  } catch (const IslError& e) {
    return Unexpected(stopScope.cancelled() ? cancelled() : islFailure(e));
  }
}

Expected<PlacedCounterexample> placeCounterexample(const schedule::ProgramState& state, const IterationSpace& space,
                                                   const Counterexample& c) {
  auto analysis = analyzeProgram(state);
  if (!analysis) return Unexpected(analysis.error());
  const Scop& scop = (*analysis)->scop;
  try {
    const ScopStatement* stmt = scop.findStatement(space.statement);
    if (!stmt) return Unexpected(Diagnostic::error("space.unknown-block", "no statement '" + space.statement + "'"));
    isl::set params =
        isl::manage(check(isl_set_universe(isl_space_params(stmt->domain.space().release())), "isl_set_universe"));
    const isl_size np = isl_set_dim(params.get(), isl_dim_param);
    for (isl_size i = 0; i < np; ++i) {
      auto it = space.sizes.find(isl_set_get_dim_name(params.get(), isl_dim_param, i));
      if (it != space.sizes.end()) params = fixValue(params, isl_dim_param, i, it->second);
    }
    PlacedCounterexample out;
    out.source = place(scop, params, space, c.source);
    out.sink = place(scop, params, space, c.sink);
    for (std::size_t i = 0; i < space.arrows.size(); ++i) {
      const auto& a = space.arrows[i];
      if (a.kind == c.kind && a.source == out.source.index && a.sink == out.sink.index && out.source.inSlice &&
          out.sink.inSlice) {
        out.arrow = static_cast<int>(i);
        break;
      }
    }
    auto at = [&](const PlacedInstance& p) {
      const auto& inst = space.instances[p.index];
      return fmt::format("{} at ({}, {})", p.instance.text(), inst.x, inst.y);
    };
    if (out.source.inSlice && out.sink.inSlice)
      out.message = fmt::format("the {} dependence from {} to {} is violated", c.kind, at(out.source), at(out.sink));
    else {
      std::vector<std::string> hints;
      for (const auto* p : {&out.source, &out.sink})
        if (!p->inSlice) hints.push_back(p->hint);
      out.message = fmt::format("the {} dependence from {} to {} is outside the slice: {}", c.kind, c.source.text(),
                                c.sink.text(), fmt::join(hints, "; "));
    }
    return out;
  } catch (const isl::exception& e) {
    return Unexpected(islFailure(e));
  } catch (const IslError& e) {
    return Unexpected(islFailure(e));
  }
}

} // namespace loopscape::poly
