#include "core/poly/tree_description.h"

#include "core/poly/dependences.h"
#include "core/poly/isl_util.h"
#include "core/poly/program_analysis.h"

#include <isl/aff.h>
#include <isl/schedule_node.h>

#include <fmt/format.h>

#include <optional>

namespace loopscape::poly {

using namespace detail;

const char* treeNodeKindName(TreeNodeKind kind) {
  switch (kind) {
  case TreeNodeKind::Domain: return "domain";
  case TreeNodeKind::Band: return "band";
  case TreeNodeKind::Sequence: return "sequence";
  case TreeNodeKind::Set: return "set";
  case TreeNodeKind::Filter: return "filter";
  case TreeNodeKind::Mark: return "mark";
  case TreeNodeKind::Leaf: return "leaf";
  case TreeNodeKind::Extension: return "extension";
  case TreeNodeKind::Expansion: return "expansion";
  case TreeNodeKind::Context: return "context";
  case TreeNodeKind::Guard: return "guard";
  }
  return "?";
}

namespace {

struct Describer {
  const Scop& scop;
  const std::vector<LoopDependences>& loops;

  TreeNodeView node(const isl::schedule_node& n, const std::string& id) {
    TreeNodeView v;
    v.id = id;
    const std::string type = nodeTypeName(n);
    if (type == "domain") {
      v.kind = TreeNodeKind::Domain;
      v.text = str(n.as<isl::schedule_node_domain>().domain());
    } else if (type == "band") {
      v.kind = TreeNodeKind::Band;
      auto band = n.as<isl::schedule_node_band>();
      isl::multi_union_pw_aff mupa = band.partial_schedule();
      v.text = str(mupa);
      v.permutable = band.permutable();
      const int members = int(band.n_member());
      for (int i = 0; i < members; ++i) {
        BandMemberView m;
        isl_id* did = isl_multi_union_pw_aff_get_dim_id(mupa.get(), isl_dim_set, unsigned(i));
        if (did) {
          m.name = isl_id_get_name(did) ? isl_id_get_name(did) : "";
          isl_id_free(did);
        }
        m.schedule = str(mupa.at(i));
        m.coincident = band.member_get_coincident(i);
        m.loopIndex = loopIndex(m.name, n);
        if (m.loopIndex >= 0 && m.loopIndex < int(loops.size())) m.parallel = loops[m.loopIndex].parallel;
        v.members.push_back(std::move(m));
      }
    } else if (type == "sequence") {
      v.kind = TreeNodeKind::Sequence;
    } else if (type == "set") {
      v.kind = TreeNodeKind::Set;
    } else if (type == "filter") {
      v.kind = TreeNodeKind::Filter;
      v.text = str(n.as<isl::schedule_node_filter>().filter());
    } else if (type == "mark") {
      v.kind = TreeNodeKind::Mark;
      v.mark = markName(n);
      v.text = v.mark;
    } else if (type == "leaf") {
      v.kind = TreeNodeKind::Leaf;
    } else if (type == "extension") {
      v.kind = TreeNodeKind::Extension;
      v.text = str(n.as<isl::schedule_node_extension>().extension());
    } else if (type == "expansion") {
      v.kind = TreeNodeKind::Expansion;
      v.text = str(n.as<isl::schedule_node_expansion>().contraction());
    } else if (type == "context") {
      v.kind = TreeNodeKind::Context;
      v.text = str(n.as<isl::schedule_node_context>().context());
    } else if (type == "guard") {
      v.kind = TreeNodeKind::Guard;
      v.text = str(n.as<isl::schedule_node_guard>().guard());
    }
    const int children = int(n.n_children());
    for (int i = 0; i < children; ++i) v.children.push_back(node(n.child(i), fmt::format("{}.{}", id, i)));
    return v;
  }

  /// The loop with this name whose statements are the ones reaching the band.
  int loopIndex(const std::string& name, const isl::schedule_node& n) {
    isl::union_set reaching = isl::manage(check(isl_schedule_node_get_domain(n.get()), "node domain"));
    for (std::size_t l = 0; l < scop.loops.size(); ++l) {
      if (scop.loops[l].name != name || scop.loops[l].statements.empty()) continue;
      const auto& first = scop.statements[scop.loops[l].statements.front()];
      if (!reaching.intersect(isl::union_set(first.domain)).is_empty() || first.domain.is_empty()) return int(l);
    }
    return -1;
  }
};

void render(const TreeNodeView& v, int indent, bool withFlags, std::string& out) {
  std::string pad(std::size_t(indent) * 2, ' ');
  switch (v.kind) {
  case TreeNodeKind::Band: {
    std::string names, flags;
    for (const auto& m : v.members) {
      names += (names.empty() ? "" : ", ") + m.name;
      flags += fmt::format("{}{}{}", flags.empty() ? "" : ", ", m.name,
                           !withFlags   ? ""
                           : m.parallel ? ": parallel"
                                        : ": carries dependences");
      if (m.coincident) flags += " (coincident)";
    }
    out += fmt::format("{}band [{}]{}: {}  # {}\n", pad, names, v.permutable ? " permutable" : "", v.text, flags);
    break;
  }
  case TreeNodeKind::Sequence:
  case TreeNodeKind::Set:
  case TreeNodeKind::Leaf: out += fmt::format("{}{}\n", pad, treeNodeKindName(v.kind)); break;
  default: out += fmt::format("{}{}: {}\n", pad, treeNodeKindName(v.kind), v.text); break;
  }
  for (const auto& c : v.children)
    if (c.kind != TreeNodeKind::Leaf) render(c, indent + 1, withFlags, out);
}

// ---- isl's bands -----------------------------------------------------------------------
// The Scop's tree has one band per loop. isl's scheduler builds bands of several members
// that may be permuted (every dependence not carried by an outer band has a non-negative
// distance along each member), with a coincident flag per member (distance zero along it).
// groupBands gives the extracted tree that form: a chain of nested bands (each the only
// child of the one above) is one band as long as the members stay permutable.

/// Whether every distance of `deps` along `member` is == 0 (`zeroOnly`) or >= 0.
bool distancesAre(const isl::union_map& deps, const isl::union_pw_aff& member, bool zeroOnly) {
  if (deps.is_empty()) return true;
  const isl::union_map s = isl::manage(check(isl_union_map_from_union_pw_aff(member.copy()), "member map"));
  const isl::union_set deltas = deps.apply_domain(s).apply_range(s).deltas();
  if (deltas.is_empty()) return true;
  const isl::set d = isl::manage(check(isl_set_from_union_set(deltas.copy()), "distances"));
  isl::set allowed(d.ctx(), zeroOnly ? "{ [x] : x = 0 }" : "{ [x] : x >= 0 }");
  allowed = isl::manage(check(isl_set_align_params(allowed.release(), isl_set_get_space(d.get())), "align"));
  return d.is_subset(allowed);
}

isl::schedule_node groupChain(isl::schedule_node node, const isl::union_map& allDeps) {
  const std::string type = nodeTypeName(node);
  if (type == "band") {
    // The dependences left to this band: both ends reach it and no outer node orders them.
    const isl::union_set reaching = isl::manage(check(isl_schedule_node_get_domain(node.get()), "node domain"));
    const isl::union_map prefix =
        isl::manage(check(isl_schedule_node_get_prefix_schedule_union_map(node.get()), "prefix schedule"));
    const isl::union_map left =
        allDeps.intersect_domain(reaching).intersect_range(reaching).intersect(prefix.apply_range(prefix.reverse()));
    auto band = node.as<isl::schedule_node_band>();
    isl::multi_union_pw_aff members = band.partial_schedule();
    bool permutable = true;
    for (int i = 0; i < int(members.size()) && permutable; ++i)
      permutable = distancesAre(left, members.at(i), false);
    int chain = 1;
    while (permutable && node.n_children() == 1) {
      // Only a band that is the sole child and covers the same instances joins.
      isl::schedule_node child = node.child(0);
      for (int k = 1; k < chain; ++k)
        child = child.child(0);
      if (nodeTypeName(child) != "band") break;
      const isl::union_set childReaching = isl::manage(check(isl_schedule_node_get_domain(child.get()), "node domain"));
      if (!childReaching.is_equal(reaching)) break;
      const isl::multi_union_pw_aff next = child.as<isl::schedule_node_band>().partial_schedule();
      bool ok = true;
      for (int i = 0; i < int(next.size()) && ok; ++i)
        ok = distancesAre(left, next.at(i), false);
      if (!ok) break;
      members = members.flat_range_product(next);
      ++chain;
      if (child.n_children() != 1) break;
    }
    if (chain > 1 || permutable) {
      std::vector<bool> coincident;
      for (int i = 0; i < int(members.size()); ++i)
        coincident.push_back(distancesAre(left, members.at(i), true));
      // Keep the members' names (the loops they stand for).
      std::vector<isl_id*> ids;
      {
        isl::schedule_node walk = node;
        for (int k = 0; k < chain; ++k, walk = walk.child(0)) {
          const isl::multi_union_pw_aff m = walk.as<isl::schedule_node_band>().partial_schedule();
          for (int i = 0; i < int(m.size()); ++i)
            ids.push_back(isl_multi_union_pw_aff_get_dim_id(m.get(), isl_dim_set, unsigned(i)));
        }
      }
      isl_multi_union_pw_aff* named = members.release();
      for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i]) named = isl_multi_union_pw_aff_set_dim_id(named, isl_dim_set, unsigned(i), ids[i]);
      members = isl::manage(named);
      for (int k = 0; k < chain; ++k)
        node = isl::manage(check(isl_schedule_node_delete(node.release()), "delete band"));
      node =
          isl::manage(check(isl_schedule_node_insert_partial_schedule(node.release(), members.copy()), "insert band"));
      node =
          isl::manage(check(isl_schedule_node_band_set_permutable(node.release(), permutable ? 1 : 0), "permutable"));
      for (std::size_t i = 0; i < coincident.size(); ++i)
        node = isl::manage(check(
            isl_schedule_node_band_member_set_coincident(node.release(), int(i), coincident[i] ? 1 : 0), "coincident"));
    }
  }
  for (int i = 0; i < int(node.n_children()); ++i)
    node = groupChain(node.child(i), allDeps).parent();
  return node;
}

/// `s` with isl's bands: permutable chains of nested bands merged, flags set.
isl::schedule groupBands(const isl::schedule& s, const Dependences& deps) {
  return groupChain(s.root(), deps.all()).schedule();
}

} // namespace

namespace {

Expected<TreeDescription> describe(const schedule::ProgramState& state, TreeFacts facts) {
  std::shared_ptr<const Scop> scop;
  std::shared_ptr<const ProgramAnalysis> analysis;
  std::vector<LoopDependences> loops;
  if (facts == TreeFacts::WithDependences) {
    auto analysed = analyzeProgram(state);
    if (!analysed) return Unexpected(analysed.error());
    analysis = *analysed;
    scop = std::shared_ptr<const Scop>(*analysed, &(*analysed)->scop);
    auto perLoop = loopDependences(*scop, (*analysed)->deps);
    if (!perLoop) return Unexpected(perLoop.error());
    loops = std::move(*perLoop);
  } else {
    auto structure = programStructure(state);
    if (!structure) return Unexpected(structure.error());
    scop = *structure;
  }
  try {
    TreeDescription out;
    Describer d{*scop, loops};
    const isl::schedule tree = analysis ? groupBands(scop->schedule, analysis->deps) : scop->schedule;
    out.root = d.node(tree.root(), "0");
    out.yaml = scheduleToBlockYaml(tree);
    out.dependencesKnown = facts == TreeFacts::WithDependences;
    return out;
  } catch (const isl::exception& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed describing the tree: ") + e.what()));
  } catch (const IslError& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed describing the tree: ") + e.what()));
  }
}

/// The description with dependences, as an analysis of the state.
struct AnalysedTree {
  TreeDescription tree;
};

} // namespace

Expected<std::shared_ptr<const TreeDescription>> describeScheduleTree(const schedule::ProgramState& state,
                                                                      TreeFacts facts) {
  if (facts == TreeFacts::StructureOnly) {
    auto d = describe(state, facts);
    if (!d) return Unexpected(d.error());
    return std::make_shared<const TreeDescription>(std::move(*d));
  }
  auto analysed = state.analysis<AnalysedTree>([&]() -> Expected<AnalysedTree> {
    auto d = describe(state, facts);
    if (!d) return Unexpected(d.error());
    return AnalysedTree{std::move(*d)};
  });
  if (!analysed) return Unexpected(analysed.error());
  return std::shared_ptr<const TreeDescription>(*analysed, &(*analysed)->tree);
}

Expected<TreeDescription> describeScheduleTree(const ir::PrimFunc& func, TreeFacts facts) {
  return describe(*schedule::ProgramState::make(func), facts);
}

std::string renderTree(const TreeDescription& tree) {
  std::string out;
  render(tree.root, 0, tree.dependencesKnown, out);
  return out;
}

} // namespace loopscape::poly
