#include "core/poly/dependences.h"

#include "core/poly/isl_util.h"

#include <isl/map.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>

#include <map>
#include <set>

namespace loopscape::poly {

using namespace detail;

const char* dependenceKindName(DependenceKind kind) {
  switch (kind) {
  case DependenceKind::Raw: return "RAW";
  case DependenceKind::War: return "WAR";
  case DependenceKind::Waw: return "WAW";
  }
  return "?";
}

namespace {

std::string rangeTuple(const isl::map& m) {
  const char* n = isl_map_get_tuple_name(m.get(), isl_dim_out);
  return n ? n : "";
}
std::string domainTuple(const isl::map& m) {
  const char* n = isl_map_get_tuple_name(m.get(), isl_dim_in);
  return n ? n : "";
}

/// Splits a union map by the tuple name of its range (the buffer).
std::map<std::string, isl::union_map> byBuffer(const isl::union_map& accesses) {
  std::map<std::string, isl::union_map> out;
  accesses.foreach_map([&](isl::map m) {
    auto [it, fresh] = out.try_emplace(rangeTuple(m), isl::union_map(m));
    if (!fresh) it->second = it->second.unite(isl::union_map(m));
  });
  return out;
}

isl::union_map get(const std::map<std::string, isl::union_map>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? isl::union_map::empty(islContext()) : it->second;
}

/// Splits full dependences { source -> [sink -> element] } of a flow computed over every
/// buffer at once into { source -> sink } per buffer (the tuple name of the element). One
/// flow computation per kind instead of one per buffer and kind: the analysis walks the
/// schedule tree once, and accesses to different buffers never meet anyway.
std::map<std::string, isl::union_map> splitByBuffer(const isl::union_map& full) {
  std::map<std::string, isl::union_map> out;
  full.foreach_map([&](isl::map m) {
    isl_space* range = isl_space_unwrap(isl_space_range(check(isl_map_get_space(m.get()), "dependence space")));
    const char* name = isl_space_get_tuple_name(range, isl_dim_out);
    const std::string buffer = name ? name : "";
    isl_space_free(range);
    isl::union_map dep(isl::manage(check(isl_map_range_factor_domain(m.copy()), "dropping the element")));
    auto [it, fresh] = out.try_emplace(buffer, dep);
    if (!fresh) it->second = it->second.unite(dep);
  });
  return out;
}

/// Splits the dependences { source -> [sink -> element] } of the flow into every write
/// (sources: writes and reads) by what the source does with the element: a WAW when it
/// writes it, a WAR when it reads it, both when it does both (`C[i] = C[i] + ...`: the last
/// writer is also the last reader, so the pair is both). Only a statement that reads and
/// writes a buffer through different accesses needs the element-wise test.
void splitWritesFlow(const isl::union_map& full, const isl::union_map& writes, const isl::union_map& reads,
                     isl::union_map& waw, isl::union_map& war) {
  full.foreach_map([&](isl::map m) {
    // The source statement's writes and reads of the element's buffer.
    isl_space* space = check(isl_map_get_space(m.get()), "dependence space");
    isl_space* pair = isl_space_unwrap(isl_space_range(isl_space_copy(space)));
    isl_space* sourceToElement = isl_space_map_from_domain_and_range(isl_space_domain(isl_space_copy(space)),
                                                                     isl_space_range(isl_space_copy(pair)));
    isl_space* sourceToSink = isl_space_map_from_domain_and_range(isl_space_domain(space), isl_space_domain(pair));
    isl::map w = isl::manage(check(isl_union_map_extract_map(writes.get(), isl_space_copy(sourceToElement)), "writes"));
    isl::map r = isl::manage(check(isl_union_map_extract_map(reads.get(), sourceToElement), "reads"));
    isl::map anySink = isl::manage(check(isl_map_universe(sourceToSink), "source to sink"));
    const bool writesIt = !w.is_empty(), readsIt = !r.is_empty();
    if (!writesIt || !readsIt || r.is_equal(w)) { // one kind of access, or a read-modify-write: both
      if (writesIt) waw = waw.unite(isl::union_map(m));
      if (readsIt) war = war.unite(isl::union_map(m));
      return;
    }
    // Different accesses of one buffer: by element ({ source -> [sink -> element] } whose
    // source accesses the element that way).
    auto through = [&](const isl::map& access) {
      return m.intersect(isl::manage(check(isl_map_range_product(anySink.copy(), access.copy()), "access")));
    };
    waw = waw.unite(isl::union_map(through(w)));
    war = war.unite(isl::union_map(through(r)));
  });
}

/// `relation` restricted to its first `n` input and output dimensions, both tuples anonymous.
isl::map projectCommon(const isl::map& relation, int n) {
  isl_map* m = relation.copy();
  const isl_size nIn = isl_map_dim(m, isl_dim_in), nOut = isl_map_dim(m, isl_dim_out);
  m = isl_map_project_out(m, isl_dim_in, unsigned(n), unsigned(nIn - n));
  m = isl_map_project_out(m, isl_dim_out, unsigned(n), unsigned(nOut - n));
  m = isl_map_reset_tuple_id(m, isl_dim_in);
  m = isl_map_reset_tuple_id(m, isl_dim_out);
  return isl::manage(check(m, "projecting a dependence"));
}

void describeDistance(Dependence& d) {
  isl::map common = projectCommon(d.relation, int(d.commonLoops.size()));
  isl::set deltas = common.deltas().coalesce();
  d.distances = str(deltas);
  if (deltas.is_singleton() && !deltas.is_empty()) {
    isl::point p = deltas.sample_point();
    d.distance = pointCoordinates(p);
  }
}

std::vector<int> commonLoops(const Scop& scop, const std::string& a, const std::string& b) {
  const auto* sa = scop.findStatement(a);
  const auto* sb = scop.findStatement(b);
  std::vector<int> out;
  for (std::size_t i = 0; sa && sb && i < sa->loops.size() && i < sb->loops.size(); ++i) {
    if (sa->loops[i] != sb->loops[i]) break;
    out.push_back(sa->loops[i]);
  }
  return out;
}

/// The schedule the flow analysis walks: the Scop's tree without the bands of loops that
/// run one iteration (a batch of 1, the outer loop of a split by the whole extent). Such a
/// band orders nothing the bands above it do not: instances below it that agree on the
/// outer loops agree on it too. Each band is one more level of isl's flow analysis (the
/// batch loops are 11 % of conv_bias_relu's dependence analysis); the dependences, pairs
/// of statement instances, are the same.
isl::schedule analysisSchedule(const Scop& scop) {
  // Band members are named after their loops; a name can be shared by sibling nests, so a
  // band is dropped only when every loop of its name runs once.
  std::set<std::string> once, more;
  for (const ScopLoop& l : scop.loops) {
    const auto* f = l.loop.as<ir::For>();
    (f && ir::isConstInt(f->extent, 1) ? once : more).insert(l.name);
  }
  for (const std::string& n : more) once.erase(n);
  if (once.empty()) return scop.schedule;
  auto drop = [](isl_schedule_node* node, void* user) -> isl_schedule_node* {
    if (isl_schedule_node_get_type(node) != isl_schedule_node_band || isl_schedule_node_band_n_member(node) != 1)
      return node;
    isl_multi_union_pw_aff* mupa = isl_schedule_node_band_get_partial_schedule(node);
    isl_id* id = isl_multi_union_pw_aff_get_dim_id(mupa, isl_dim_set, 0);
    isl_multi_union_pw_aff_free(mupa);
    const bool single = id && static_cast<const std::set<std::string>*>(user)->count(isl_id_get_name(id));
    isl_id_free(id);
    return single ? isl_schedule_node_delete(node) : node;
  };
  return isl::manage(check(isl_schedule_map_schedule_node_bottom_up(scop.schedule.copy(), drop, &once),
                           "dropping single-iteration bands"));
}

} // namespace

isl::map carriedPart(const isl::map& relation, int pos) {
  isl_map* m = relation.copy();
  for (int q = 0; q < pos; ++q) m = isl_map_equate(m, isl_dim_in, q, isl_dim_out, q);
  isl_map* lt = isl_map_order_lt(isl_map_copy(m), isl_dim_in, pos, isl_dim_out, pos);
  isl_map* gt = isl_map_order_gt(m, isl_dim_in, pos, isl_dim_out, pos);
  return isl::manage(check(isl_map_union(lt, gt), "carried part of a dependence"));
}

Expected<Dependences> computeDependences(const Scop& scop) {
  try {
    Dependences out;
    out.raw = out.war = out.waw = isl::union_map::empty(islContext());
    // Only buffers something writes can carry a dependence: reads of the others are no sink
    // (RAW) and no source (WAR) of one.
    const isl::union_set written = scop.mayWrites.range().universe();
    const isl::union_map reads = scop.reads.intersect_range(written);
    const isl::union_map& must = scop.mustWrites;
    const isl::union_map mayOnly = scop.mayWrites.subtract(scop.mustWrites);
    const isl::union_map& writes = scop.mayWrites;
    const isl::schedule schedule = analysisSchedule(scop);
    isl::union_flow rawFlow = isl::union_access_info(reads)
                                  .set_must_source(must)
                                  .set_may_source(mayOnly)
                                  .set_schedule(schedule)
                                  .compute_flow();
    // WAW and WAR in one flow into every write: the must-writes are sources and kills, the
    // may-writes and the reads are may-sources. Its dependences are the union of the two
    // flows' (the last must-writer, the may-writes and reads since it), one analysis of
    // the reductions' deep update statements instead of two.
    isl::union_flow writeFlow = isl::union_access_info(writes)
                                    .set_must_source(must)
                                    .set_may_source(mayOnly.unite(reads))
                                    .set_schedule(schedule)
                                    .compute_flow();
    const isl::union_map rawFull = rawFlow.full_may_dependence();
    const auto rawBy = splitByBuffer(rawFull);
    isl::union_map wawFull = isl::union_map::empty(islContext());
    isl::union_map warFull = isl::union_map::empty(islContext());
    splitWritesFlow(writeFlow.full_may_dependence(), writes, reads, wawFull, warFull);
    const auto warBy = splitByBuffer(warFull);
    const auto wawBy = splitByBuffer(wawFull);
    std::vector<Dependence> raw, war, waw;
    auto add = [&](std::vector<Dependence>& list, DependenceKind kind, const std::string& buffer,
                   const isl::union_map& rel) {
      rel.foreach_map([&](isl::map m) {
        if (m.is_empty()) return;
        Dependence d;
        d.kind = kind;
        d.buffer = buffer;
        d.source = domainTuple(m);
        d.sink = rangeTuple(m);
        d.relation = m.coalesce();
        d.commonLoops = commonLoops(scop, d.source, d.sink);
        describeDistance(d);
        list.push_back(std::move(d));
      });
    };
    for (const auto& entry : byBuffer(writes)) { // buffers in name order, as the list is sorted
      const std::string& buffer = entry.first;
      isl::union_map rawDeps = get(rawBy, buffer).coalesce();
      isl::union_map wawDeps = get(wawBy, buffer).coalesce();
      isl::union_map warDeps = get(warBy, buffer).coalesce();
      out.raw = out.raw.unite(rawDeps);
      out.war = out.war.unite(warDeps);
      out.waw = out.waw.unite(wawDeps);
      add(raw, DependenceKind::Raw, buffer, rawDeps);
      add(war, DependenceKind::War, buffer, warDeps);
      add(waw, DependenceKind::Waw, buffer, wawDeps);
    }
    auto order = [&](const Dependence& a, const Dependence& b) {
      auto index = [&](const std::string& s) {
        for (std::size_t i = 0; i < scop.statements.size(); ++i)
          if (scop.statements[i].name == s) return int(i);
        return -1;
      };
      return std::tuple(a.buffer, index(a.source), index(a.sink)) < std::tuple(b.buffer, index(b.source), index(b.sink));
    };
    for (auto* list : {&raw, &war, &waw}) {
      std::stable_sort(list->begin(), list->end(), order);
      for (auto& d : *list) out.list.push_back(std::move(d));
    }
    return out;
  } catch (const isl::exception& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed computing dependences: ") + e.what()));
  } catch (const IslError& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed computing dependences: ") + e.what()));
  }
}

Expected<std::vector<LoopDependences>> loopDependences(const Scop& scop, const Dependences& deps) {
  try {
    std::vector<LoopDependences> out;
    for (std::size_t l = 0; l < scop.loops.size(); ++l) {
      LoopDependences ld;
      ld.loop = int(l);
      for (std::size_t i = 0; i < deps.list.size(); ++i) {
        const auto& d = deps.list[i];
        auto it = std::find(d.commonLoops.begin(), d.commonLoops.end(), int(l));
        if (it == d.commonLoops.end()) continue;
        if (!carriedPart(d.relation, int(it - d.commonLoops.begin())).is_empty()) ld.carried.push_back(int(i));
      }
      ld.parallel = ld.carried.empty();
      out.push_back(std::move(ld));
    }
    return out;
  } catch (const isl::exception& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed: ") + e.what()));
  } catch (const IslError& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed: ") + e.what()));
  }
}

} // namespace loopscape::poly
