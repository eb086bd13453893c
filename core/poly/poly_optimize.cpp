// poly_optimize (see poly_optimize.h): the band models read from the isl tree, the tree
// rewritten after the plans of tile_model.h, and the reduction inits hoisted.
#include "core/poly/poly_optimize.h"

#include "core/poly/ast_to_tir.h"
#include "core/poly/isl_util.h"
#include "core/poly/packing.h"
#include "core/poly/poly_auto_detail.h"
#include "core/poly/tail_split.h"
#include "core/poly/tree_transform.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"
#include "core/schedule/ir_tree.h"
#include "core/schedule/primitives.h"
#include "core/schedule/schedule.h"

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

namespace loopscape::poly {

using namespace detail;

namespace {

bool isBandNode(const isl::schedule_node& n) { return isl_schedule_node_get_type(n.get()) == isl_schedule_node_band; }

/// { [m] -> [m + e_d] } on the space of the band's schedule values.
isl::map stepMap(const isl::space& setSpace, int d) {
  isl_space* mapSpace = isl_space_map_from_set(setSpace.copy());
  isl_multi_aff* ma = isl_multi_aff_identity(mapSpace);
  isl_aff* a = isl_multi_aff_get_at(ma, d);
  a = isl_aff_add_constant_si(a, 1);
  ma = isl_multi_aff_set_at(ma, d, a);
  return isl::manage(check(isl_map_from_multi_aff(ma), "step map"));
}

/// The widest spread, per array dimension, of the element deltas of a window of reads
/// (see windowDelta): a stencil of radius 2 spreads over 2 * 2 * 2 elements.
constexpr std::int64_t kMaxWindowSpread = 8;

/// The delta of a window of reads, e.g. a stencil's reads of one array, which isl keeps as
/// one relation from an instance to several elements: advancing one member moves every
/// element of the window by the same vector, so the deltas between an element of the
/// window and one of the next window spread symmetrically around that vector (borders,
/// where the window is cut, stay inside the spread). The centre of the deltas' bounding
/// box when it is a whole vector and every dimension spreads over kMaxWindowSpread
/// elements at most; nullopt otherwise (two reads far apart, as A[i, k] and A[j, k]).
std::optional<std::vector<std::int64_t>> windowDelta(const isl::set& deltas) {
  const int dims = static_cast<int>(isl_set_dim(deltas.get(), isl_dim_set));
  std::vector<std::int64_t> centre;
  for (int k = 0; k < dims; ++k) {
    isl::val lo = deltas.dim_min_val(k), hi = deltas.dim_max_val(k);
    if (!lo.is_int() || !hi.is_int()) return std::nullopt;
    const std::int64_t a = lo.get_num_si(), b = hi.get_num_si();
    if (b - a > kMaxWindowSpread || (a + b) % 2 != 0) return std::nullopt;
    centre.push_back((a + b) / 2);
  }
  return centre;
}

/// The band's members' extents (constant only when the band's values over its domain
/// form a box) and its statements' accesses as deltas per member.
BandModel bandModel(const isl::schedule_node& band, const Scop& scop) {
  BandModel m;
  m.members = bandMemberNames(band);
  const int n = static_cast<int>(m.members.size());
  m.permutable = isl_schedule_node_band_get_permutable(band.get()) == isl_bool_true;
  for (int d = 0; d < n; ++d)
    m.coincident.push_back(isl_schedule_node_band_member_get_coincident(band.get(), d) == isl_bool_true);
  isl::union_set domain = isl::manage(check(isl_schedule_node_get_domain(band.get()), "band domain"));
  isl::union_map partial =
      isl::manage(check(isl_schedule_node_band_get_partial_schedule_union_map(band.get()), "partial schedule"))
          .intersect_domain(domain);
  isl::set range = isl::manage(check(isl_set_from_union_set(partial.range().release()), "band range"));
  m.extent.assign(n, std::nullopt);
  isl_set* box = isl_set_universe(range.get_space().release());
  bool bounded = true;
  std::vector<std::int64_t> lo(n), hi(n);
  for (int d = 0; d < n; ++d) {
    isl::val a = range.dim_min_val(d), b = range.dim_max_val(d);
    if (!a.is_int() || !b.is_int()) {
      bounded = false;
      break;
    }
    lo[d] = a.get_num_si();
    hi[d] = b.get_num_si();
    box = isl_set_lower_bound_val(box, isl_dim_set, d, a.release());
    box = isl_set_upper_bound_val(box, isl_dim_set, d, b.release());
  }
  isl::set boxSet = isl::manage(check(box, "band box"));
  m.span.assign(n, std::nullopt);
  for (int d = 0; d < n && bounded; ++d)
    m.span[d] = hi[d] - lo[d] + 1;
  if (bounded && boxSet.is_subset(range)) m.extent = m.span;

  // Accesses are read through the prefix and the band together (a band below another one
  // does not identify the instances alone); a step advances one member of the band.
  isl::union_map prefix =
      isl::manage(check(isl_schedule_node_get_prefix_schedule_union_map(band.get()), "prefix schedule"));
  isl::union_map full = isl::manage(
      check(isl_union_map_flat_range_product(prefix.intersect_domain(domain).release(), partial.copy()), "schedule"));
  isl::set fullRange = isl::manage(check(isl_set_from_union_set(full.range().release()), "schedule range"));
  const int outer = static_cast<int>(isl_set_dim(fullRange.get(), isl_dim_set)) - n;
  std::vector<isl::map> steps;
  for (int d = 0; d < n; ++d)
    steps.push_back(stepMap(fullRange.get_space(), outer + d));
  for (const auto& st : scop.statements) {
    isl::union_set sd = domain.intersect(isl::union_set(st.domain));
    if (sd.is_empty()) continue;
    isl::union_map inverse = full.intersect_domain(sd).reverse();
    auto addAccesses = [&](const isl::union_map& accesses, bool write) {
      accesses.foreach_map([&](isl::map a) {
        isl::union_map am = inverse.apply_range(isl::union_map(a));
        if (am.is_empty()) return;
        AccessModel x;
        const char* tuple = isl_map_get_tuple_name(a.get(), isl_dim_out);
        x.array = tuple ? tuple : "?";
        if (auto it = scop.buffers.find(x.array); it != scop.buffers.end()) x.elemBytes = it->second->dtype.bytes();
        x.write = write;
        for (int d = 0; d < n; ++d) {
          isl::union_map pairs = am.reverse().apply_range(isl::union_map(steps[d])).apply_range(am);
          isl::union_set deltas = pairs.deltas();
          // No two instances one step apart along d (an init, whose reduce member takes one
          // value): the access does not move along d.
          std::optional<std::vector<std::int64_t>> delta;
          if (deltas.is_empty())
            delta = std::vector<std::int64_t>(isl_map_dim(a.get(), isl_dim_out), 0);
          else {
            isl::set ds = isl::manage(check(isl_set_from_union_set(deltas.release()), "deltas"));
            if (isl_set_is_singleton(ds.get()) == isl_bool_true)
              delta = pointCoordinates(ds.sample_point());
            else
              delta = windowDelta(ds);
          }
          x.delta.push_back(std::move(delta));
        }
        m.accesses.push_back(std::move(x));
      });
    };
    addAccesses(st.reads, false);
    addAccesses(st.mustWrites, true);
    addAccesses(st.mayWrites, true);
  }
  return m;
}

/// The tile band as a wavefront: member 0 := the sum of all members (Pluto's tile
/// wavefront); the others become coincident.
isl::schedule_node wavefrontNode(const isl::schedule_node& tile) {
  const std::vector<std::string> names = bandMemberNames(tile);
  isl::multi_union_pw_aff mupa = tile.as<isl::schedule_node_band>().get_partial_schedule();
  const int n = static_cast<int>(names.size());
  isl::union_pw_aff sum = mupa.at(0);
  for (int d = 1; d < n; ++d)
    sum = sum.add(mupa.at(d));
  mupa = mupa.set_at(0, sum);
  isl_schedule_node* node = isl_schedule_node_delete(tile.copy());
  node = isl_schedule_node_insert_partial_schedule(node, mupa.release());
  node = isl_schedule_node_band_set_permutable(node, 1);
  for (int d = 1; d < n; ++d)
    node = isl_schedule_node_band_member_set_coincident(node, d, 1);
  std::vector<std::string> wave = names;
  wave[0] = "wave";
  return setBandMemberNames(isl::manage(check(node, "wavefront")), wave);
}

/// The most iterations of a selector loop (see selectorMember).
constexpr std::int64_t kMaxSelectorExtent = 4;

/// A member of the inner band of timeOutsideNode that selects what the statement computes:
/// a loop of at most kMaxSelectorExtent iterations whose block iterator an if_then_else
/// condition of the block tests (fdtd-2d's field f: ex, ey or hz, one te.scan state). In
/// a vector loop every branch would be computed and selected lane by lane; unrolled, each
/// copy has a constant condition and computes its own branch only. The member's index in
/// the inner band, or -1.
int selectorMember(const isl::schedule_node& innerBand, const Scop& scop, const ScopStatement& st) {
  const auto* realize = st.realize.as<ir::BlockRealize>();
  const auto* block = st.block.as<ir::Block>();
  if (!realize || !block) return -1;
  // The block iterators the conditions test.
  std::set<const ir::ExprNode*> tested;
  ir::forEachExpr(block->body, [&](const ir::Expr& e) {
    if (const auto* sel = e.as<ir::Select>())
      ir::forEachExpr(sel->condition, [&](const ir::Expr& v) {
        if (v.is<ir::Var>()) tested.insert(v.get());
      });
  });
  const int n = static_cast<int>(isl_schedule_node_band_n_member(innerBand.get()));
  for (int d = 0; d < n; ++d) {
    const auto* loop = scop.loops[st.loops[d + 1]].loop.as<ir::For>();
    auto extent = loop ? ir::asConstInt(loop->extent) : std::nullopt;
    if (!extent || *extent < 2 || *extent > kMaxSelectorExtent) continue;
    for (std::size_t k = 0; k < block->iterVars.size() && k < realize->iterValues.size(); ++k)
      if (realize->iterValues[k].get() == loop->loopVar.get() && tested.contains(block->iterVars[k].var.get()))
        return d;
  }
  return -1;
}

/// A stencil band in its original order (see Walk::keepTimeOutside): `band` (permutable,
/// no coincident member: isl skewed the spatial loops by the time loop) and the bands
/// below it down to the leaf are replaced by the statement's own loops, split after the
/// outermost one (time). The inner band's flags come from the dependences the time loop
/// does not carry: member d is coincident when they do not move along d, and the band is
/// permutable when none goes backwards along a member. nullopt when the band is not of
/// that shape: several statements, a node other than a band below it, or an original
/// order that the dependences do not allow (not expected: they were computed from it).
std::optional<isl::schedule_node> timeOutsideNode(const isl::schedule_node& band, const Scop& scop,
                                                  const Dependences& deps) {
  isl::union_set domain = isl::manage(check(isl_schedule_node_get_domain(band.get()), "band domain"));
  if (isl_union_set_n_set(domain.get()) != 1) return std::nullopt;
  isl::set set = isl::manage(check(isl_set_from_union_set(domain.copy()), "band domain"));
  const char* tuple = isl_set_get_tuple_name(set.get());
  const ScopStatement* st = tuple ? scop.findStatement(tuple) : nullptr;
  const int n = static_cast<int>(isl_set_dim(set.get(), isl_dim_set));
  if (!st || n < 2 || static_cast<int>(st->loops.size()) != n) return std::nullopt;
  for (isl::schedule_node c = band.child(0); isl_schedule_node_get_type(c.get()) != isl_schedule_node_leaf;
       c = c.child(0))
    if (!isBandNode(c)) return std::nullopt;

  // The dependences between instances of the band, in the statement's loop coordinates.
  isl::union_map within = deps.all().intersect_domain(domain).intersect_range(domain);
  isl::set inner = isl::manage(check(isl_set_empty(isl_set_get_space(set.get())), "deltas"));
  if (!within.is_empty()) {
    isl::map dep = isl::manage(check(isl_map_from_union_map(within.release()), "dependences"));
    isl::map forward = isl::manage(check(isl_map_lex_lt(isl_set_get_space(set.get())), "lex order"));
    if (!dep.is_subset(forward)) return std::nullopt;
    inner = isl::manage(check(isl_set_fix_si(isl_map_deltas(dep.release()), isl_dim_set, 0, 0), "deltas"));
  }
  std::vector<bool> coincident;
  bool permutable = true;
  for (int d = 1; d < n; ++d) {
    isl::set zero = isl::manage(check(isl_set_fix_si(inner.copy(), isl_dim_set, d, 0), "deltas"));
    isl::set forward = isl::manage(check(isl_set_lower_bound_si(inner.copy(), isl_dim_set, d, 0), "deltas"));
    coincident.push_back(inner.is_subset(zero));
    permutable = permutable && inner.is_subset(forward);
  }

  // { S[loops] -> [loops] }: the original order of the statement's instances.
  isl_multi_aff* identity = isl_multi_aff_identity(isl_space_map_from_set(isl_set_get_space(set.get())));
  identity = isl_multi_aff_reset_tuple_id(identity, isl_dim_out);
  isl_multi_union_pw_aff* schedule = isl_multi_union_pw_aff_from_union_pw_multi_aff(
      isl_union_pw_multi_aff_from_pw_multi_aff(isl_pw_multi_aff_from_multi_aff(identity)));
  isl_schedule_node* node = band.copy();
  while (node && isl_schedule_node_get_type(node) == isl_schedule_node_band)
    node = isl_schedule_node_delete(node);
  node = isl_schedule_node_insert_partial_schedule(node, schedule);
  node = isl_schedule_node_band_split(node, 1);
  node = isl_schedule_node_child(node, 0);
  node = isl_schedule_node_band_set_permutable(node, permutable ? 1 : 0);
  for (int d = 1; d < n; ++d)
    node = isl_schedule_node_band_member_set_coincident(node, d - 1, coincident[d - 1] ? 1 : 0);
  std::vector<std::string> names;
  for (int loop : st->loops)
    names.push_back(scop.loops[loop].name);
  isl::schedule_node innerBand = setBandMemberNames(isl::manage(check(node, "time loop outside")),
                                                    std::vector<std::string>(names.begin() + 1, names.end()));
  return setBandMemberNames(innerBand.parent(), {names[0]});
}

/// The block of `band`'s statements when every one of them loads inside a branch of a
/// T.if_then_else or T.Select (a stencil's border, a triangle's mask): the code
/// generator's vector lowering refuses such a body (every lane would evaluate the load)
/// and leaves a vectorized loop scalar, so a vector member only shortens the loop that the
/// compiler's own vectorizer sees (fdtd-2d MEDIUM: a 16-iteration scalar loop ran 4x
/// slower than the whole row). Empty otherwise (a band that also holds another statement,
/// e.g. a padding fused with its convolution, keeps its vector member).
std::string blockLoadingInBranch(const isl::schedule_node& band, const Scop& scop) {
  isl::union_set domain = isl::manage(check(isl_schedule_node_get_domain(band.get()), "band domain"));
  std::string name;
  for (const auto& st : scop.statements) {
    if (domain.intersect(isl::union_set(st.domain)).is_empty()) continue;
    const auto* block = st.block.as<ir::Block>();
    bool found = false;
    if (block)
      ir::forEachExpr(block->body, [&](const ir::Expr& e) {
        const auto* sel = e.as<ir::Select>();
        if (found || !sel) return;
        for (const ir::Expr* branch : {&sel->trueValue, &sel->falseValue})
          ir::forEachExpr(*branch, [&](const ir::Expr& x) { found = found || x.is<ir::BufferLoad>(); });
      });
    if (!found) return {};
    if (name.empty()) name = st.blockName;
  }
  return name;
}

/// The time band of timeOutsideNode with the inner band's selector member (see
/// selectorMember), when it has one, split off and marked "unroll", below a coincident
/// member of its own when the band has one; the node at the time band's position.
isl::schedule_node unrollSelector(const isl::schedule_node& timeBand, const Scop& scop) {
  isl::schedule_node inner = timeBand.child(0);
  const int n = static_cast<int>(isl_schedule_node_band_n_member(inner.get()));
  isl::union_set domain = isl::manage(check(isl_schedule_node_get_domain(inner.get()), "band domain"));
  isl::set set = isl::manage(check(isl_set_from_union_set(domain.release()), "band domain"));
  const char* tuple = isl_set_get_tuple_name(set.get());
  const ScopStatement* st = tuple ? scop.findStatement(tuple) : nullptr;
  const int sel = st ? selectorMember(inner, scop, *st) : -1;
  const bool permutable = isl_schedule_node_band_get_permutable(inner.get()) == isl_bool_true;
  if (sel < 0 || n < 2 || (!permutable && sel != 0)) return timeBand;
  // A coincident member goes first when there is one (it becomes the one parallel loop of
  // the step, around the unrolled copies: one parallel region per step, not one per copy).
  int outer = -1;
  for (int d = 0; d < n && permutable && n > 2; ++d)
    if (d != sel && isl_schedule_node_band_member_get_coincident(inner.get(), d) == isl_bool_true) {
      outer = d;
      break;
    }
  std::vector<int> order;
  if (outer >= 0) order.push_back(outer);
  order.push_back(sel);
  for (int d = 0; d < n; ++d)
    if (d != sel && d != outer) order.push_back(d);
  inner = permuteBandNode(inner, order);
  std::vector<std::string> names = bandMemberNames(inner);
  if (outer >= 0) {
    inner = isl::manage(check(isl_schedule_node_band_split(inner.release(), 1), "selector"));
    inner = setBandMemberNames(inner, {names[0]}).child(0);
    names.erase(names.begin());
  }
  inner = isl::manage(check(isl_schedule_node_band_split(inner.release(), 1), "selector"));
  inner = setBandMemberNames(inner, {names[0]});
  inner = setBandMemberNames(inner.child(0), std::vector<std::string>(names.begin() + 1, names.end())).parent();
  // The mark node above the selector band; the time band is its parent, or the parent of
  // the outer member's band.
  isl::schedule_node mark = markBandMemberNode(inner, 0, "unroll");
  return outer >= 0 ? mark.parent().parent() : mark.parent();
}

/// Marks members first .. first + count - 1 of `band` parallel (innermost first, so each
/// split leaves the outer members in the band being marked); returns the node at the
/// band's position.
isl::schedule_node markParallelMembers(isl::schedule_node band, int first, int count) {
  for (int d = first + count - 1; d > first; --d)
    band = markBandMemberNode(band, d, "parallel");
  return markBandMemberNode(band, first, "parallel");
}

/// Rewrites one outermost band after its plan; returns the node at the band's position.
/// `fused` gets the names of the tile loops to fuse into one parallel loop (parallel depth).
isl::schedule_node applyPlan(isl::schedule_node node, const BandPlan& plan, std::vector<std::string>* fused) {
  const int n = static_cast<int>(plan.tile.size());
  if (!plan.tiled) {
    if (plan.parallelMember >= 0) node = markBandMemberNode(node, plan.parallelMember, "parallel");
    return node;
  }
  isl::schedule_node tile = tileBandNode(node, plan.tile);
  isl::schedule_node point = tile.child(0);
  // Intra-tile order: the inner member last, the others in the band's order.
  std::vector<int> order;
  for (int d = 0; d < n; ++d)
    if (d != plan.innerMember) order.push_back(d);
  if (plan.innerMember >= 0) order.push_back(plan.innerMember);
  point = permuteBandNode(point, order);
  const bool registerLevel =
      std::any_of(plan.registerTile.begin(), plan.registerTile.end(), [](std::int64_t s) { return s > 1; });
  if (registerLevel) {
    std::vector<std::int64_t> sizes;
    for (int d : order)
      sizes.push_back(plan.registerTile[d]);
    point = tileBandNode(point, sizes);
    // The register band: members of size 1 (single iterations) first, then the
    // accumulator's member, the jammed one and the vector one.
    auto position = [&](int member) {
      return static_cast<int>(std::find(order.begin(), order.end(), member) - order.begin());
    };
    std::vector<int> inner;
    for (int i = 0; i < n; ++i) {
      const int d = order[i];
      if (d != plan.reductionMember && d != plan.unrollMember && d != plan.vectorMember) inner.push_back(i);
    }
    for (int d : {plan.reductionMember, plan.unrollMember, plan.vectorMember})
      if (d >= 0) inner.push_back(position(d));
    isl::schedule_node reg = permuteBandNode(point.child(0), inner);
    if (plan.vectorMember >= 0) reg = markBandMemberNode(reg, n - 1, "vectorized");
    if (plan.unrollMember >= 0) reg = markBandMemberNode(reg, n - 2, "unroll");
    point = reg.parent();
  }
  tile = point.parent();
  if (plan.wavefront) tile = wavefrontNode(tile);
  if (plan.parallelCount > 1) {
    const std::vector<std::string> names = bandMemberNames(tile);
    fused->assign(names.begin() + plan.parallelMember, names.begin() + plan.parallelMember + plan.parallelCount);
    return markParallelMembers(tile, plan.parallelMember, plan.parallelCount);
  }
  if (plan.parallelMember >= 0) tile = markBandMemberNode(tile, plan.parallelMember, "parallel");
  return tile;
}

/// "256 KiB", "1 MiB".
std::string bytesText(std::int64_t bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return bytes >= 1024 ? fmt::format("{} KiB", (bytes + 1023) / 1024) : fmt::format("{} B", bytes);
}

/// The decision recorded for a band kept in its original order with the time loop outside
/// (a band's tile decision has two values per member, so it cannot be mistaken for one).
const std::vector<std::int64_t> kTimeOutsideDecision{1};

struct Walk {
  const Scop& scop;
  const Dependences& deps;
  const PolyOptimizeOptions& options;
  const MachineModel& machine;
  const std::vector<std::vector<std::int64_t>>* decided;
  std::vector<std::vector<std::int64_t>> decisions;
  std::vector<std::string> notes;
  std::vector<std::vector<std::string>> fuseGroups;

  /// Whether `band` is below an "unroll" mark (timeOutsideNode's selector loop).
  static bool unrolled(const isl::schedule_node& band) {
    if (!isl_schedule_node_has_parent(band.get())) return false;
    isl::schedule_node parent = band.parent();
    if (isl_schedule_node_get_type(parent.get()) != isl_schedule_node_mark) return false;
    isl_id* id = isl_schedule_node_mark_get_id(parent.get());
    const bool unroll = id && isl_id_get_name(id) && std::string(isl_id_get_name(id)) == "unroll";
    isl_id_free(id);
    return unroll;
  }

  /// Whether a band is below `node` (strictly).
  static bool hasBandBelow(const isl::schedule_node& node) {
    const int children = static_cast<int>(isl_schedule_node_n_children(node.get()));
    for (int i = 0; i < children; ++i) {
      isl::schedule_node c = node.child(i);
      if (isBandNode(c) || hasBandBelow(c)) return true;
    }
    return false;
  }

  /// Time tiling, or the time loop outside. isl makes a time-iterated stencil one
  /// permutable band with no coincident member (the spatial loops skewed by time), which
  /// planBand tiles in time: tiles re-use one step's values in cache for the next steps,
  /// but no loop of the band is vectorized or parallel (without wavefronts). When one time
  /// step's data fits in L2, the next step finds it there anyway, and the original order
  /// is faster: time outermost and sequential, the spatial loops below it in a band of
  /// their own, coincident (Jacobi, heat) and thus tiled, vectorized and parallel per step
  /// (PolyBench MEDIUM heat-3d, fdtd-2d, seidel-2d and jacobi-2d: 1.1-4.5x faster than the
  /// time-tiled band on one thread). Kept when the user asks for wavefronts or tile sizes.
  /// `given` is the recorded decision of this band (kTimeOutsideDecision, or tile sizes).
  /// Returns the outer (time) band, with the decision and notes recorded, or nullopt.
  std::optional<isl::schedule_node> keepTimeOutside(const isl::schedule_node& node, const BandModel& model,
                                                    const std::vector<std::int64_t>* given) {
    if (options.wavefront || !options.tile.empty() || !model.permutable || model.members.size() < 2 ||
        std::any_of(model.coincident.begin(), model.coincident.end(), [](bool c) { return c; }))
      return std::nullopt;
    if (given && *given != kTimeOutsideDecision) return std::nullopt;
    auto outside = timeOutsideNode(node, scop, deps);
    if (!outside) return std::nullopt;
    // What one step writes (the inner band over its whole range): the values the next
    // step reads back.
    BandModel step = bandModel(outside->child(0), scop);
    std::vector<std::int64_t> sizes;
    for (const auto& s : step.span)
      if (s) sizes.push_back(*s);
    const bool known = sizes.size() == step.members.size();
    BandModel written = step;
    std::erase_if(written.accesses, [](const AccessModel& a) { return !a.write; });
    const std::int64_t bytes = known ? footprintBytes(written, sizes) : 0;
    const std::string band = fmt::format("{}", fmt::join(model.members, ", "));
    if (!given && (!known || bytes > machine.l2Bytes)) {
      notes.push_back(known ? fmt::format("band ({}): one time step writes {} (L2 {}): tiled in time", band,
                                          bytesText(bytes), bytesText(machine.l2Bytes))
                            : fmt::format("band ({}): the size of one time step is not constant: tiled in time", band));
      return std::nullopt;
    }
    *outside = unrollSelector(*outside, scop);
    decisions.push_back(kTimeOutsideDecision);
    notes.push_back(
        given ? fmt::format("band ({}): no coincident member; not tiled in time (recorded decision), {} outermost",
                            band, bandMemberNames(*outside)[0])
              : fmt::format("band ({}): no coincident member; one time step writes {} (L2 {}): not tiled in time, "
                            "{} outermost and the loops ({}) below it in their original order",
                            band, bytesText(bytes), bytesText(machine.l2Bytes), bandMemberNames(*outside)[0],
                            fmt::join(step.members, ", ")));
    return outside;
  }

  isl::schedule_node visit(isl::schedule_node node, bool insideParallel = false) {
    if (isBandNode(node) && isl_schedule_node_band_n_member(node.get()) > 0) {
      BandModel model = bandModel(node, scop);
      // A single loop around other bands (a fused outer loop over a sequence of nests):
      // tiling it alone gains nothing; it is marked parallel when it can be, and the
      // bands below it are optimised.
      if (model.members.size() == 1 && hasBandBelow(node)) {
        const bool parallel = options.parallel && !insideParallel && model.coincident[0] && !unrolled(node);
        decisions.emplace_back();
        notes.push_back(fmt::format("band ({}) surrounds other bands: {}; the bands inside are optimised",
                                    model.members[0],
                                    parallel         ? "parallel"
                                    : unrolled(node) ? "unrolled (a condition of the block tests it: each copy "
                                                       "computes its own branch)"
                                                     : "not tiled"));
        if (parallel) node = markBandMemberNode(node, 0, "parallel").child(0);
        const int children = static_cast<int>(isl_schedule_node_n_children(node.get()));
        for (int i = 0; i < children; ++i)
          node = visit(node.child(i), insideParallel || parallel).parent();
        return parallel ? node.parent() : node;
      }
      const std::size_t index = decisions.size();
      const std::vector<std::int64_t>* fixed = decided && index < decided->size() ? &(*decided)[index] : nullptr;
      if (auto outside = keepTimeOutside(node, model, fixed)) return visit(*outside, insideParallel);
      const std::string branchLoads = options.vectorize ? blockLoadingInBranch(node, scop) : std::string();
      PlanOptions po{.vectorize = options.vectorize && branchLoads.empty(),
                     .parallel = options.parallel && !insideParallel,
                     .wavefront = options.wavefront,
                     .unrollJam = options.unrollJam,
                     .tile = options.tile,
                     .parallelDepth = options.parallelDepth};
      BandPlan plan = planBand(model, machine, po, fixed);
      std::vector<std::int64_t> decision = plan.tile;
      decision.insert(decision.end(), plan.registerTile.begin(), plan.registerTile.end());
      decisions.push_back(std::move(decision));
      notes.insert(notes.end(), plan.notes.begin(), plan.notes.end());
      if (!branchLoads.empty())
        notes.push_back(fmt::format("not vectorized: block {} loads in a branch of T.if_then_else (the vector "
                                    "lowering keeps such a loop scalar); the innermost loop is left to the compiler",
                                    branchLoads));
      std::vector<std::string> fused;
      node = applyPlan(node, plan, &fused);
      if (!fused.empty()) fuseGroups.push_back(std::move(fused));
      return node;
    }
    const int children = static_cast<int>(isl_schedule_node_n_children(node.get()));
    for (int i = 0; i < children; ++i)
      node = visit(node.child(i), insideParallel).parent();
    return node;
  }
};

/// The loop to decompose a reduction block at: the outermost loop above it that feeds a
/// reduce iterator.
const schedule::TreeNode* reductionLoop(const schedule::IrTree& tree, const schedule::TreeNode& block) {
  const auto& realize = *block.realize.as<ir::BlockRealize>();
  const auto& b = *block.block();
  std::set<const ir::ExprNode*> reduceVars;
  for (std::size_t i = 0; i < b.iterVars.size() && i < realize.iterValues.size(); ++i) {
    if (b.iterVars[i].kind != ir::IterKind::Reduce) continue;
    ir::forEachExpr(realize.iterValues[i], [&](const ir::Expr& e) {
      if (e.is<ir::Var>()) reduceVars.insert(e.get());
    });
  }
  for (const schedule::TreeNode* loop : tree.loopsAbove(block))
    if (reduceVars.contains(loop->loop()->loopVar.get())) return loop;
  return nullptr;
}

} // namespace

namespace detail {

Expected<OptimizedSchedule> optimizeIslSchedule(const Scop& scop, const Dependences& deps,
                                                const PolyOptimizeOptions& options, const MachineModel& machine,
                                                const std::vector<std::vector<std::int64_t>>* decided,
                                                std::map<std::string, isl::schedule>* scheduled) {
  isl::schedule tree;
  if (scheduled && scheduled->contains(options.fusion)) {
    tree = scheduled->at(options.fusion);
  } else {
    PolyAutoOptions autoOptions;
    autoOptions.fusion = options.fusion;
    auto computed = computeIslSchedule(scop, deps, autoOptions);
    if (!computed) return Unexpected(computed.error());
    tree = *computed;
    if (scheduled) scheduled->emplace(options.fusion, tree);
  }
  Walk walk{scop, deps, options, machine, decided, {}, {}, {}};
  isl::schedule_node root = walk.visit(tree.root());
  return OptimizedSchedule{root.schedule(), std::move(walk.decisions), std::move(walk.notes),
                           std::move(walk.fuseGroups)};
}

Expected<PreparedProgram> prepareForOptimize(const ir::PrimFunc& func, const PolyOptimizeOptions& options,
                                             const MachineModel& machine) {
  PreparedProgram out{func, {}, false};
  if (options.pack) {
    auto p = packInputs(out.func, machine);
    if (!p) return Unexpected(p.error());
    out.notes = std::move(p->notes);
    if (p->packed > 0) out.func = std::move(p->func), out.changed = true;
  }
  if (options.vectorize) {
    TailSplitResult t = splitVectorTails(out.func, machine);
    out.notes.insert(out.notes.end(), t.notes.begin(), t.notes.end());
    if (t.split > 0) out.func = std::move(t.func), out.changed = true;
  }
  return out;
}

Expected<ir::PrimFunc> hoistReductionInits(const ir::PrimFunc& func, std::vector<std::string>* renamed) {
  // Each top-level nest on its own: decompose_reduction wants the block to be the only
  // writer of its buffer in the scope, and a vector tail's copy (tail_split.h) writes the
  // same buffer in a nest of its own; the hoisting is local to the nest either way.
  const auto* rootRealize = func.body.as<ir::BlockRealize>();
  if (!rootRealize) return func;
  const ir::Block& root = rootRealize->blockNode();
  std::vector<ir::Stmt> items;
  if (const auto* seq = root.body.as<ir::SeqStmt>())
    items = seq->seq;
  else
    items.push_back(root.body);
  auto withBody = [&](ir::Stmt body) {
    ir::PrimFunc f = func;
    f.body = ir::BlockRealize::make(rootRealize->iterValues, rootRealize->predicate,
                                    ir::Block::make(root.name, root.iterVars, root.reads, root.writes, std::move(body),
                                                    root.init, root.allocBuffers, root.annotations));
    return f;
  };
  bool changed = false;
  for (auto& item : items) {
    schedule::Schedule scratch(items.size() == 1 ? func : withBody(item));
    std::vector<std::string> names;
    for (const schedule::TreeNode* block : scratch.tree().blocks())
      if (block->block()->init.defined() && block->realize.defined()) names.push_back(block->block()->name);
    // A block decompose_reduction refuses (e.g. a loop fused from a spatial and a reduce
    // dimension bounds the spatial loops below it, or another block of the nest writes
    // its buffer) keeps its init in place.
    bool decomposed = false;
    for (const auto& name : names) {
      const schedule::TreeNode* block = scratch.tree().findBlock(name);
      const schedule::TreeNode* loop = block ? reductionLoop(scratch.tree(), *block) : nullptr;
      if (!loop) continue;
      schedule::BlockRV blockRV{scratch.defineBlock(name)};
      schedule::LoopRV loopRV{scratch.defineLoop(loop->loop()->loopVar)};
      if (!schedule::decomposeReduction(scratch, blockRV, loopRV)) continue;
      decomposed = true;
      if (renamed) renamed->push_back(name);
    }
    if (!decomposed) continue;
    if (items.size() == 1) return scratch.func();
    item = scratch.func().rootBlock().body;
    changed = true;
  }
  return changed ? withBody(ir::SeqStmt::make(items)) : func;
}

namespace {

/// The fusion of one group of nested parallel loops (see fuseParallelLoops).
class ParallelFuser final : public ir::StmtMutator {
public:
  explicit ParallelFuser(const std::vector<std::string>& names) : m_names(names) {}
  bool fused() const { return m_fused; }

protected:
  ir::Stmt visitFor(const ir::For& op, const ir::Stmt& self) override {
    if (m_fused || op.forKind != ir::ForKind::Parallel || op.loopVar.as<ir::Var>()->name != m_names[0])
      return ir::StmtMutator::visitFor(op, self);
    // The chain: each loop the only statement of the one above, from 0, constant extent.
    std::vector<const ir::For*> chain{&op};
    while (chain.size() < m_names.size()) {
      const auto* inner = chain.back()->body.as<ir::For>();
      if (!inner || inner->loopVar.as<ir::Var>()->name != m_names[chain.size()] || !inner->annotations.empty() ||
          inner->forKind != ir::ForKind::Parallel)
        return self;
      chain.push_back(inner);
    }
    std::vector<std::int64_t> extents;
    for (const ir::For* loop : chain) {
      auto min = ir::asConstInt(loop->min);
      auto extent = ir::asConstInt(loop->extent);
      if (!min || *min != 0 || !extent || *extent < 1) return self;
      extents.push_back(*extent);
    }
    std::string name = m_names[0];
    for (std::size_t k = 1; k < m_names.size(); ++k)
      name += "_" + m_names[k];
    name += "_fused";
    const ir::DataType type = op.loopVar.dtype();
    ir::Expr fused = ir::Var::make(name, type);
    ir::VarMap map;
    std::int64_t inner = 1;
    std::int64_t total = 1;
    for (std::int64_t e : extents)
      total *= e;
    for (std::size_t k = chain.size(); k-- > 0;) {
      ir::Expr value = inner == 1 ? fused : ir::floordiv(fused, ir::intImm(inner, type));
      if (k > 0) value = ir::floormod(value, ir::intImm(extents[k], type));
      map[chain[k]->loopVar.get()] = value;
      inner *= extents[k];
    }
    m_fused = true;
    return ir::For::make(fused, ir::intImm(0, type), ir::intImm(total, type), ir::ForKind::Parallel,
                         ir::substitute(chain.back()->body, map), {}, op.annotations);
  }

private:
  const std::vector<std::string>& m_names;
  bool m_fused = false;
};

/// Makes the parallel loops of a group that could not be fused serial, but the outermost.
class SerialInner final : public ir::StmtMutator {
public:
  explicit SerialInner(const std::vector<std::string>& names) : m_names(names) {}

protected:
  ir::Stmt visitFor(const ir::For& op, const ir::Stmt& self) override {
    ir::Stmt s = ir::StmtMutator::visitFor(op, self);
    const auto& name = op.loopVar.as<ir::Var>()->name;
    if (op.forKind != ir::ForKind::Parallel || std::find(m_names.begin() + 1, m_names.end(), name) == m_names.end())
      return s;
    const auto* f = s.as<ir::For>();
    return ir::For::make(f->loopVar, f->min, f->extent, ir::ForKind::Serial, f->body, f->threadTag, f->annotations);
  }

private:
  const std::vector<std::string>& m_names;
};

} // namespace

ir::PrimFunc fuseParallelLoops(const ir::PrimFunc& func, const std::vector<std::vector<std::string>>& groups,
                               std::vector<std::string>* notes) {
  ir::PrimFunc out = func;
  for (const auto& group : groups) {
    if (group.size() < 2) continue;
    ParallelFuser fuser(group);
    ir::Stmt body = fuser.mutate(out.body);
    if (!fuser.fused()) {
      body = SerialInner(group).mutate(out.body);
      if (notes)
        notes->push_back(fmt::format("parallel loops {} are not directly nested: only {} runs in parallel",
                                     fmt::join(group, ", "), group[0]));
    }
    out.body = body;
  }
  return out;
}

} // namespace detail

Expected<PolyOptimizeReport> explainPolyOptimize(const ir::PrimFunc& func, const PolyOptimizeOptions& options) {
  PolyOptimizeReport report;
  report.machine = options.machine.value_or(MachineModel::host());
  auto packed = prepareForOptimize(func, options, report.machine);
  if (!packed) return Unexpected(packed.error());
  auto scop = extractScop(packed->func);
  if (!scop) return Unexpected(scop.error());
  try {
    auto deps = computeDependences(*scop);
    if (!deps) return Unexpected(deps.error());
    auto optimized = optimizeIslSchedule(*scop, *deps, options, report.machine, nullptr);
    if (!optimized) return Unexpected(optimized.error());
    report.lines = std::move(packed->notes);
    report.lines.insert(report.lines.end(), optimized->notes.begin(), optimized->notes.end());
    return report;
  } catch (const isl::exception& e) {
    return Unexpected(Diagnostic::error("poly.isl", fmt::format("poly_optimize failed in isl: {}", e.what())));
  } catch (const IslError& e) {
    return Unexpected(Diagnostic::error("poly.isl", fmt::format("poly_optimize failed in isl: {}", e.what())));
  }
}

} // namespace loopscape::poly
