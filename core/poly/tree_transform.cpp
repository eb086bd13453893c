// Schedule-tree edits of the poly primitives (see tree_transform.h).
#include "core/poly/tree_transform.h"

#include "core/poly/ast_to_tir.h"
#include "core/poly/isl_util.h"

#include "core/schedule/schedule_error.h"

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/options.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <numeric>

namespace loopscape::poly {

using namespace detail;
using schedule::blockRef;
using schedule::loopRef;
using schedule::scheduleError;

namespace {

/// A reference to the loop an address names ("i@C" is loop i).
IrReference loopAddrRef(const std::string& address) { return loopRef(address.substr(0, address.find('@'))); }

bool isBand(const isl::schedule_node& n) { return isl_schedule_node_get_type(n.get()) == isl_schedule_node_band; }
int nMembers(const isl::schedule_node& n) { return static_cast<int>(isl_schedule_node_band_n_member(n.get())); }

/// Pre-order search for the first band whose first member is named `loop`; `loop@block`
/// picks the band of that name that runs the statement `block` (sibling loop nests often
/// share their loop names).
std::optional<isl::schedule_node> searchBand(isl::schedule_node node, const std::string& loop) {
  std::string name = loop, statement;
  if (auto at = loop.find('@'); at != std::string::npos) {
    name = loop.substr(0, at);
    statement = loop.substr(at + 1);
  }
  if (isBand(node) && nMembers(node) > 0 && bandMemberNames(node).front() == name) {
    if (statement.empty()) return node;
    isl::union_set dom = isl::manage(check(isl_schedule_node_get_domain(node.get()), "domain"));
    bool found = false;
    isl::set_list sets = dom.get_set_list();
    for (int i = 0; i < static_cast<int>(sets.size()); ++i) {
      const char* t = isl_set_get_tuple_name(sets.at(i).get());
      if (t && statement == t) found = true;
    }
    if (found) return node;
  }
  const int n = static_cast<int>(isl_schedule_node_n_children(node.get()));
  for (int i = 0; i < n; ++i)
    if (auto r = searchBand(node.child(i), loop)) return r;
  return std::nullopt;
}

/// Merges the band at `node` with the band that is its only child.
isl::schedule_node mergeWithChild(isl::schedule_node node) {
  std::vector<std::string> names = bandMemberNames(node);
  isl::schedule_node child = node.child(0);
  std::vector<std::string> inner = bandMemberNames(child);
  names.insert(names.end(), inner.begin(), inner.end());
  isl_multi_union_pw_aff* outer = isl_schedule_node_band_get_partial_schedule(node.get());
  isl_multi_union_pw_aff* in = isl_schedule_node_band_get_partial_schedule(child.get());
  const bool permutable = isl_schedule_node_band_get_permutable(node.get()) == isl_bool_true &&
                          isl_schedule_node_band_get_permutable(child.get()) == isl_bool_true;
  isl_multi_union_pw_aff* merged = isl_multi_union_pw_aff_flat_range_product(outer, in);
  isl_schedule_node* n = isl_schedule_node_delete(child.copy()); // now at the grandchild
  n = isl_schedule_node_parent(n);                               // the outer band
  n = isl_schedule_node_delete(n);
  n = isl_schedule_node_insert_partial_schedule(n, merged);
  n = isl_schedule_node_band_set_permutable(n, permutable);
  isl::schedule_node out = isl::manage(check(n, "merging bands"));
  return setBandMemberNames(out, names);
}

Diagnostic noBand(std::string_view prim, const std::string& loop) {
  return scheduleError(prim, "no-band",
                       fmt::format("no loop named '{}' heads a band of the schedule tree (bands are addressed by the "
                                   "name of their first loop)",
                                   loop),
                       {loopAddrRef(loop)});
}

isl::multi_val sizesIn(const isl::schedule_node& band, const std::vector<std::int64_t>& sizes) {
  isl::multi_val mv = isl::manage(check(isl_multi_val_zero(isl_schedule_node_band_get_space(band.get())), "sizes"));
  for (std::size_t i = 0; i < sizes.size(); ++i)
    mv = mv.set_at(static_cast<int>(i), isl::val(islContext(), static_cast<long>(sizes[i])));
  return mv;
}

isl::schedule_node tileAt(const isl::schedule_node& band, const std::vector<std::int64_t>& sizes) {
  isl_ctx* ctx = islContext().get();
  const int scale = isl_options_get_tile_scale_tile_loops(ctx);
  const int shift = isl_options_get_tile_shift_point_loops(ctx);
  isl_options_set_tile_scale_tile_loops(ctx, 0);
  isl_options_set_tile_shift_point_loops(ctx, 1);
  std::vector<std::string> names = bandMemberNames(band);
  isl_schedule_node* t = isl_schedule_node_band_tile(band.copy(), sizesIn(band, sizes).release());
  isl_options_set_tile_scale_tile_loops(ctx, scale);
  isl_options_set_tile_shift_point_loops(ctx, shift);
  isl::schedule_node tile = isl::manage(check(t, "isl_schedule_node_band_tile"));
  std::vector<std::string> outer, inner;
  for (const auto& n : names) {
    outer.push_back(n + "_0");
    inner.push_back(n + "_1");
  }
  tile = setBandMemberNames(tile, outer);
  isl::schedule_node point = setBandMemberNames(tile.child(0), inner);
  return point.parent();
}

} // namespace

Expected<isl::schedule_node> findBand(const isl::schedule& s, const std::string& loop, int members,
                                      std::string_view prim) {
  auto found = searchBand(s.root(), loop);
  if (!found) return Unexpected(noBand(prim, loop));
  isl::schedule_node node = *found;
  while (nMembers(node) < members) {
    const bool nested = isl_schedule_node_n_children(node.get()) == 1 && isBand(node.child(0));
    if (!nested)
      return Unexpected(scheduleError(
          prim, "not-perfectly-nested",
          fmt::format("the band at loop '{}' has {} perfectly nested loop(s) ({}), {} are needed", loop, nMembers(node),
                      fmt::join(bandMemberNames(node), ", "), members),
          {loopAddrRef(loop)}));
    node = mergeWithChild(node);
  }
  return node;
}

Expected<isl::schedule> tileBand(const isl::schedule& s, const std::string& loop, const std::vector<std::int64_t>& sizes,
                                 std::string_view prim) {
  if (sizes.empty())
    return Unexpected(scheduleError(prim, "bad-size", "poly_tile needs at least one tile size", {loopAddrRef(loop)}));
  for (auto v : sizes)
    if (v < 1)
      return Unexpected(scheduleError(prim, "bad-size", fmt::format("tile size {} is not positive", v), {loopAddrRef(loop)}));
  auto band = findBand(s, loop, static_cast<int>(sizes.size()), prim);
  if (!band) return Unexpected(band.error());
  isl::schedule_node node = *band;
  if (nMembers(node) > static_cast<int>(sizes.size())) {
    std::vector<std::string> names = bandMemberNames(node);
    node = isl::manage(check(isl_schedule_node_band_split(node.release(), static_cast<int>(sizes.size())), "split"));
    names.resize(sizes.size());
    node = setBandMemberNames(node, names);
  }
  return tileAt(node, sizes).schedule();
}

Expected<isl::schedule> tileOutermostBands(const isl::schedule& s, const std::vector<std::int64_t>& sizes) {
  std::function<isl::schedule_node(isl::schedule_node)> walk = [&](isl::schedule_node node) -> isl::schedule_node {
    if (isBand(node) && nMembers(node) > 0) {
      const int n = std::min<int>(nMembers(node), static_cast<int>(sizes.size()));
      if (n == 0) return node;
      std::vector<std::int64_t> sz(sizes.begin(), sizes.begin() + n);
      if (nMembers(node) > n) {
        std::vector<std::string> names = bandMemberNames(node);
        node = isl::manage(check(isl_schedule_node_band_split(node.release(), n), "split"));
        names.resize(n);
        node = setBandMemberNames(node, names);
      }
      return tileAt(node, sz);
    }
    const int n = static_cast<int>(isl_schedule_node_n_children(node.get()));
    for (int i = 0; i < n; ++i) node = walk(node.child(i)).parent();
    return node;
  };
  for (auto v : sizes)
    if (v < 1)
      return Unexpected(scheduleError("poly_auto", "bad-size", fmt::format("tile size {} is not positive", v)));
  try {
    return walk(s.root()).schedule();
  } catch (const isl::exception& e) {
    return Unexpected(Diagnostic::error("poly.isl", e.what()));
  }
}

Expected<isl::schedule> interchangeBand(const isl::schedule& s, const std::string& loop,
                                        const std::vector<std::int64_t>& perm) {
  const std::string_view prim = "poly_interchange";
  std::vector<std::int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> iota(perm.size());
  std::iota(iota.begin(), iota.end(), 0);
  if (perm.size() < 2 || sorted != iota)
    return Unexpected(scheduleError(prim, "bad-permutation",
                                    fmt::format("[{}] is not a permutation of 0..n-1 with n >= 2", fmt::join(perm, ", ")),
                                    {loopAddrRef(loop)}));
  auto band = findBand(s, loop, static_cast<int>(perm.size()), prim);
  if (!band) return Unexpected(band.error());
  isl::schedule_node node = *band;
  if (nMembers(node) > static_cast<int>(perm.size())) {
    std::vector<std::string> names = bandMemberNames(node);
    node = isl::manage(check(isl_schedule_node_band_split(node.release(), static_cast<int>(perm.size())), "split"));
    names.resize(perm.size());
    node = setBandMemberNames(node, names);
  }
  return permuteBandNode(node, std::vector<int>(perm.begin(), perm.end())).schedule();
}

Expected<isl::schedule> skewBand(const isl::schedule& s, const std::string& loop, std::int64_t member,
                                 std::int64_t byMember, std::int64_t factor) {
  const std::string_view prim = "poly_skew";
  if (member < 0 || byMember < 0 || member == byMember)
    return Unexpected(scheduleError(prim, "bad-member",
                                    fmt::format("skewing member {} by member {} needs two different members >= 0",
                                                member, byMember),
                                    {loopAddrRef(loop)}));
  if (factor == 0)
    return Unexpected(scheduleError(prim, "bad-factor", "a skew by factor 0 changes nothing", {loopAddrRef(loop)}));
  auto band = findBand(s, loop, static_cast<int>(std::max(member, byMember) + 1), prim);
  if (!band) return Unexpected(band.error());
  isl::schedule_node node = *band;
  std::vector<std::string> names = bandMemberNames(node);
  isl::multi_union_pw_aff mupa = node.as<isl::schedule_node_band>().get_partial_schedule();
  isl::union_pw_aff by = mupa.at(static_cast<int>(byMember));
  isl::union_pw_aff scaled = isl::manage(
      check(isl_union_pw_aff_scale_val(by.copy(), isl_val_int_from_si(islContext().get(), static_cast<long>(factor))),
            "scale"));
  mupa = mupa.set_at(static_cast<int>(member), mupa.at(static_cast<int>(member)).add(scaled));
  isl_schedule_node* n = isl_schedule_node_delete(node.copy());
  n = isl_schedule_node_insert_partial_schedule(n, mupa.release());
  return setBandMemberNames(isl::manage(check(n, "skew")), names).schedule();
}

Expected<isl::schedule> shiftStatement(const isl::schedule& s, const Scop& scop, const std::string& statement,
                                       const std::string& member, std::int64_t offset) {
  const std::string_view prim = "poly_shift";
  const ScopStatement* st = scop.findStatement(statement);
  if (!st)
    return Unexpected(scheduleError(prim, "no-statement", fmt::format("no statement named '{}'", statement),
                                    {blockRef(statement)}));
  auto band = findBand(s, member, 1, prim);
  if (!band) return Unexpected(band.error());
  isl::schedule_node node = *band;
  isl::union_set domain = isl::manage(check(isl_schedule_node_get_domain(node.get()), "domain"));
  if (domain.intersect(isl::union_set(st->domain)).is_empty())
    return Unexpected(scheduleError(prim, "not-in-band",
                                    fmt::format("statement '{}' does not run inside the loop '{}'", statement, member),
                                    {blockRef(statement), loopAddrRef(member)}));
  // The shift: `offset` on the statement's instances, 0 on every other instance of the band.
  isl::multi_union_pw_aff mupa = node.as<isl::schedule_node_band>().get_partial_schedule();
  isl::multi_union_pw_aff shift = mupa;
  const int n = nMembers(node);
  isl::set_list sets = domain.get_set_list();
  for (int m = 0; m < n; ++m) {
    isl::union_pw_aff u = isl::manage(isl_union_pw_aff_empty(isl_union_set_get_space(domain.get())));
    for (int i = 0; i < static_cast<int>(sets.size()); ++i) {
      // The partial schedule is defined on whole statement spaces: so is the shift.
      isl::set d = isl::manage(check(isl_set_universe(isl_set_get_space(sets.at(i).get())), "universe"));
      const char* tuple = isl_set_get_tuple_name(d.get());
      const bool mine = m == 0 && tuple && statement == tuple;
      isl::val v(islContext(), mine ? static_cast<long>(offset) : 0L);
      isl::pw_aff pa = isl::manage(check(isl_pw_aff_val_on_domain(d.copy(), v.release()), "shift"));
      u = u.union_add(isl::union_pw_aff(pa));
    }
    shift = shift.set_at(m, u);
  }
  std::vector<std::string> names = bandMemberNames(node);
  isl::schedule_node out =
      isl::manage(check(isl_schedule_node_band_shift(node.copy(), shift.release()), "isl_schedule_node_band_shift"));
  return setBandMemberNames(out, names).schedule();
}

namespace {
/// The band reached from a filter child of a sequence (through marks), or nothing.
std::optional<isl::schedule_node> bandBelowFilter(isl::schedule_node filter) {
  isl::schedule_node n = filter;
  while (isl_schedule_node_n_children(n.get()) == 1) {
    n = n.child(0);
    if (isBand(n)) return n;
    if (isl_schedule_node_get_type(n.get()) != isl_schedule_node_mark) return std::nullopt;
  }
  return std::nullopt;
}

/// Removes the first member of the band at `node`; returns the node now at that place.
isl::schedule_node dropFirstMember(isl::schedule_node node) {
  if (nMembers(node) == 1) return isl::manage(check(isl_schedule_node_delete(node.release()), "delete"));
  std::vector<std::string> names = bandMemberNames(node);
  node = isl::manage(check(isl_schedule_node_band_split(node.release(), 1), "split"));
  node = isl::manage(check(isl_schedule_node_delete(node.release()), "delete"));
  return setBandMemberNames(node, std::vector<std::string>(names.begin() + 1, names.end()));
}
} // namespace

Expected<isl::schedule> fuseBands(const isl::schedule& s, const std::vector<std::string>& loops) {
  const std::string_view prim = "poly_fuse";
  if (loops.size() < 2)
    return Unexpected(scheduleError(prim, "too-few", "poly_fuse needs at least two sibling loops"));
  std::vector<isl::schedule_node> bands;
  for (const auto& l : loops) {
    auto b = searchBand(s.root(), l);
    if (!b) return Unexpected(noBand(prim, l));
    bands.push_back(*b);
  }
  // Each band hangs (through marks) below a filter child of one sequence, consecutively.
  auto filterOf = [](isl::schedule_node n) -> std::optional<isl::schedule_node> {
    while (n.has_parent()) {
      n = n.parent();
      if (isl_schedule_node_get_type(n.get()) == isl_schedule_node_filter) return n;
      if (isl_schedule_node_get_type(n.get()) != isl_schedule_node_mark) return std::nullopt;
    }
    return std::nullopt;
  };
  std::vector<int> positions;
  std::optional<isl::schedule_node> seq;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    auto f = filterOf(bands[i]);
    isl::schedule_node parent = f ? f->parent() : bands[i];
    const bool inSeq = f && isl_schedule_node_get_type(parent.get()) == isl_schedule_node_sequence;
    if (!inSeq || (seq && !parent.is_equal(*seq)))
      return Unexpected(scheduleError(prim, "not-siblings",
                                      fmt::format("the loops {} are not siblings in one sequence", fmt::join(loops, ", ")),
                                      {loopAddrRef(loops[i])}));
    seq = parent;
    positions.push_back(static_cast<int>(f->child_position()));
  }
  for (std::size_t i = 1; i < positions.size(); ++i)
    if (positions[i] != positions[i - 1] + 1)
      return Unexpected(scheduleError(prim, "not-siblings",
                                      fmt::format("the loops {} are not consecutive siblings in program order",
                                                  fmt::join(loops, ", ")),
                                      {loopAddrRef(loops[i])}));
  // The fused loop: the union of the first members' partial schedules.
  isl::union_pw_aff fused = bands[0].as<isl::schedule_node_band>().get_partial_schedule().at(0);
  for (std::size_t i = 1; i < bands.size(); ++i)
    fused = fused.union_add(bands[i].as<isl::schedule_node_band>().get_partial_schedule().at(0));
  const std::string name = bandMemberNames(bands[0]).front();

  // Drop the first member of each fused band (deepest-last positions stay valid: work by path).
  isl::schedule_node node = *seq;
  const int first = positions.front();
  for (int p : positions) {
    isl::schedule_node b = *bandBelowFilter(node.child(p));
    int up = 0;
    for (isl::schedule_node x = b; !x.is_equal(node); x = x.parent()) ++up;
    b = dropFirstMember(b);
    for (int k = 0; k < up; ++k) b = b.parent();
    node = b;
  }
  // Group the fused children: a sequence of {before, fused, after} above the old one.
  isl::union_set_list filters(islContext(), 3);
  isl::union_set before = isl::union_set::empty(islContext()), mid = before, after = before;
  const int n = static_cast<int>(isl_schedule_node_n_children(node.get()));
  for (int i = 0; i < n; ++i) {
    isl::union_set f = node.child(i).as<isl::schedule_node_filter>().get_filter();
    if (i < first)
      before = before.unite(f);
    else if (i <= positions.back())
      mid = mid.unite(f);
    else
      after = after.unite(f);
  }
  int midIndex = 0;
  if (!before.is_empty()) {
    filters = filters.add(before);
    midIndex = 1;
  }
  filters = filters.add(mid);
  if (!after.is_empty()) filters = filters.add(after);
  isl::multi_union_pw_aff mupa = isl::manage(isl_multi_union_pw_aff_from_union_pw_aff(fused.release()));
  if (filters.size() == 1) {
    node = isl::manage(check(isl_schedule_node_insert_partial_schedule(node.release(), mupa.release()), "fuse"));
    return setBandMemberNames(node, {name}).schedule();
  }
  node = isl::manage(check(isl_schedule_node_insert_sequence(node.release(), filters.release()), "sequence"));
  node = node.child(midIndex).child(0);
  node = isl::manage(check(isl_schedule_node_insert_partial_schedule(node.release(), mupa.release()), "fuse"));
  return setBandMemberNames(node, {name}).schedule();
}

Expected<isl::schedule> distributeBand(const isl::schedule& s, const std::string& loop) {
  const std::string_view prim = "poly_distribute";
  auto band = findBand(s, loop, 1, prim);
  if (!band) return Unexpected(band.error());
  isl::schedule_node node = *band;
  std::vector<std::string> names = bandMemberNames(node);
  if (nMembers(node) > 1) {
    node = isl::manage(check(isl_schedule_node_band_split(node.release(), 1), "split"));
    node = setBandMemberNames(node, {names.front()});
    node = setBandMemberNames(node.child(0), std::vector<std::string>(names.begin() + 1, names.end())).parent();
  }
  isl::schedule_node seq = node.child(0);
  const auto type = isl_schedule_node_get_type(seq.get());
  if (type != isl_schedule_node_sequence && type != isl_schedule_node_set)
    return Unexpected(scheduleError(prim, "not-over-sequence",
                                    fmt::format("the loop '{}' has a single child; there is nothing to distribute", loop),
                                    {loopAddrRef(loop)}));
  isl::multi_union_pw_aff mupa = node.as<isl::schedule_node_band>().get_partial_schedule();
  isl::schedule_node n = isl::manage(check(isl_schedule_node_delete(node.copy()), "delete")); // the sequence
  const int count = static_cast<int>(isl_schedule_node_n_children(n.get()));
  for (int i = 0; i < count; ++i) {
    isl::schedule_node f = n.child(i);
    isl::union_set filter = f.as<isl::schedule_node_filter>().get_filter();
    isl::multi_union_pw_aff part = mupa.intersect_domain(filter);
    isl::schedule_node c = f.child(0);
    c = isl::manage(check(isl_schedule_node_insert_partial_schedule(c.release(), part.release()), "distribute"));
    c = setBandMemberNames(c, {names.front()});
    n = c.parent().parent();
  }
  return n.schedule();
}

Expected<isl::schedule> markMember(const isl::schedule& s, const std::string& loop, std::int64_t member,
                                   const std::string& kind) {
  const std::string_view prim = "poly_mark";
  std::string mark = kind;
  if (kind == "vectorize") mark = "vectorized";
  if (mark != "parallel" && mark != "vectorized" && mark != "unroll")
    return Unexpected(scheduleError(prim, "bad-kind",
                                    fmt::format("unknown mark '{}' (expected \"parallel\", \"vectorize\" or \"unroll\")", kind),
                                    {loopAddrRef(loop)}));
  if (member < 0)
    return Unexpected(scheduleError(prim, "bad-member", fmt::format("member {} is negative", member), {loopAddrRef(loop)}));
  auto band = findBand(s, loop, static_cast<int>(member + 1), prim);
  if (!band) return Unexpected(band.error());
  return markBandMemberNode(*band, static_cast<int>(member), mark).schedule();
}

isl::schedule_node markBandMemberNode(const isl::schedule_node& band, int member, const std::string& mark) {
  isl::schedule_node node = band;
  std::vector<std::string> names = bandMemberNames(node);
  if (member > 0) {
    node = isl::manage(check(isl_schedule_node_band_split(node.release(), member), "split"));
    node = setBandMemberNames(node, std::vector<std::string>(names.begin(), names.begin() + member));
    node = setBandMemberNames(node.child(0), std::vector<std::string>(names.begin() + member, names.end()));
  }
  node = isl::manage(check(isl_schedule_node_insert_mark(node.release(), makeId(mark).release()), "mark"));
  return member > 0 ? node.parent() : node;
}

isl::schedule_node tileBandNode(const isl::schedule_node& band, const std::vector<std::int64_t>& sizes) {
  return tileAt(band, sizes);
}

isl::schedule_node permuteBandNode(const isl::schedule_node& band, const std::vector<int>& permutation) {
  const std::vector<std::string> names = bandMemberNames(band);
  const bool permutable = isl_schedule_node_band_get_permutable(band.get()) == isl_bool_true;
  std::vector<bool> coincident;
  for (int i = 0; i < nMembers(band); ++i)
    coincident.push_back(isl_schedule_node_band_member_get_coincident(band.get(), i) == isl_bool_true);
  isl::multi_union_pw_aff mupa = band.as<isl::schedule_node_band>().get_partial_schedule();
  isl::multi_union_pw_aff out = mupa;
  std::vector<std::string> newNames;
  for (std::size_t i = 0; i < permutation.size(); ++i) {
    out = out.set_at(static_cast<int>(i), mupa.at(permutation[i]));
    newNames.push_back(names[permutation[i]]);
  }
  isl_schedule_node* n = isl_schedule_node_delete(band.copy());
  n = isl_schedule_node_insert_partial_schedule(n, out.release());
  n = isl_schedule_node_band_set_permutable(n, permutable);
  for (std::size_t i = 0; i < permutation.size(); ++i)
    n = isl_schedule_node_band_member_set_coincident(n, static_cast<int>(i), coincident[permutation[i]]);
  isl::schedule_node result = isl::manage(check(n, "permuting a band"));
  return setBandMemberNames(result, newNames);
}

Expected<isl::schedule> computeAtTile(const isl::schedule& s, const Scop& scop, const std::string& producer,
                                      const std::string& loop) {
  const std::string_view prim = "poly_compute_at_tile";
  const ScopStatement* p = scop.findStatement(producer);
  if (!p)
    return Unexpected(scheduleError(prim, "no-statement", fmt::format("no statement named '{}'", producer),
                                    {blockRef(producer)}));
  auto band = findBand(s, loop, 1, prim);
  if (!band) return Unexpected(band.error());
  isl::schedule_node node = *band;
  if (nMembers(node) > 1) {
    std::vector<std::string> names = bandMemberNames(node);
    node = isl::manage(check(isl_schedule_node_band_split(node.release(), 1), "split"));
    node = setBandMemberNames(node, {names.front()});
    node = setBandMemberNames(node.child(0), std::vector<std::string>(names.begin() + 1, names.end())).parent();
  }
  isl::schedule_node body = node.child(0);
  // Footprint: what the statements inside the loop read, per prefix (tile) point.
  isl::union_map prefix = body.get_prefix_schedule_union_map();
  isl::union_set pdom(p->domain);
  prefix = prefix.subtract_domain(pdom);
  isl::union_map needed = prefix.reverse().apply_range(scop.reads);
  isl::union_map extension = needed.apply_range(isl::union_map(p->mustWrites.unite(p->mayWrites)).reverse());
  extension = extension.intersect_range(pdom);
  if (extension.is_empty())
    return Unexpected(scheduleError(prim, "not-needed",
                                    fmt::format("no statement inside the loop '{}' reads what '{}' writes", loop, producer),
                                    {blockRef(producer), loopAddrRef(loop)}));
  // The producer's own loops, in the grafted subtree.
  std::vector<std::string> dims;
  isl::space sp = p->domain.space();
  const int nd = static_cast<int>(isl_space_dim(sp.get(), isl_dim_set));
  for (int i = 0; i < nd; ++i) {
    isl_id* id = isl_space_get_dim_id(sp.get(), isl_dim_set, i);
    dims.push_back(id && isl_id_get_name(id) ? isl_id_get_name(id) : fmt::format("ax{}", i));
    isl_id_free(id);
  }
  isl::multi_aff identity = isl::manage(check(isl_multi_aff_identity_on_domain_space(sp.copy()), "identity"));
  isl_multi_union_pw_aff* inner = isl_multi_union_pw_aff_from_multi_aff(
      isl_multi_aff_reset_tuple_id(identity.release(), isl_dim_out));
  isl::schedule_node graft = isl::manage(check(isl_schedule_node_from_extension(extension.release()), "extension"));
  graft = graft.child(0);
  if (nd > 0) {
    graft = isl::manage(check(isl_schedule_node_insert_partial_schedule(graft.release(), inner), "graft band"));
    graft = setBandMemberNames(graft, dims);
  } else {
    isl_multi_union_pw_aff_free(inner);
  }
  while (graft.has_parent()) graft = graft.parent();
  // Remove the producer's old instances (isl drops the filters left empty, so paths
  // change), find the loop again by name, and graft before its body.
  isl::union_set rest = s.get_domain().subtract(pdom);
  isl::schedule trimmed = isl::manage(check(isl_schedule_intersect_domain(s.copy(), rest.release()), "intersect"));
  auto again = searchBand(trimmed.root(), loop);
  if (!again) return Unexpected(noBand(prim, loop));
  isl::schedule_node at = *again;
  if (nMembers(at) > 1) {
    std::vector<std::string> names = bandMemberNames(at);
    at = isl::manage(check(isl_schedule_node_band_split(at.release(), 1), "split"));
    at = setBandMemberNames(at, {names.front()});
    at = setBandMemberNames(at.child(0), std::vector<std::string>(names.begin() + 1, names.end())).parent();
  }
  at = at.child(0);
  at = isl::manage(check(isl_schedule_node_graft_before(at.release(), graft.release()), "isl_schedule_node_graft_before"));
  return at.schedule();
}

} // namespace loopscape::poly
