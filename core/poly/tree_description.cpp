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

} // namespace

namespace {

Expected<TreeDescription> describe(const schedule::ProgramState& state, TreeFacts facts) {
  std::shared_ptr<const Scop> scop;
  std::vector<LoopDependences> loops;
  if (facts == TreeFacts::WithDependences) {
    auto analysed = analyzeProgram(state);
    if (!analysed) return Unexpected(analysed.error());
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
    out.root = d.node(scop->schedule.root(), "0");
    out.yaml = scheduleToBlockYaml(scop->schedule);
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
