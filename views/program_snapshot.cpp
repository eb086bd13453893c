#include "views/program_snapshot.h"

#include "core/ir/printer.h"
#include "core/poly/report.h"
#include "core/poly/tree_description.h"
#include "core/schedule/ir_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace loopscape::views {

namespace {

void collectBlocksBelow(const schedule::TreeNode& n, std::vector<std::string>& out) {
  for (const schedule::TreeNode* c : n.children) {
    if (c->isBlock()) {
      out.push_back(c->block()->name);
      continue;
    }
    collectBlocksBelow(*c, out);
  }
}

std::string describeDependence(const poly::DependenceView& d) {
  std::string s = fmt::format("{} {} -> {} on {}", d.kind, d.source, d.sink, d.buffer);
  auto join = [](const auto& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + fmt::format("{}", v[i]);
    return out;
  };
  if (d.distance)
    s += fmt::format(", distance ({}) over ({})", join(*d.distance), join(d.commonLoops));
  else if (!d.distances.empty())
    s += ", distances " + d.distances;
  return s;
}

/// Fills the loops' parallel/carried facts; the report lists every loop in program order,
/// as the snapshot does.
void attachDependences(ProgramSnapshot& snap) {
  auto analysed = poly::analyzeDependences(*snap.state);
  if (!analysed) {
    snap.dependenceError = analysed.error().message;
    return;
  }
  const poly::DependenceReport* report = analysed->get();
  std::size_t next = 0;
  for (NodeInfo& n : snap.nodes) {
    if (n.kind != NodeInfo::Kind::Loop) continue;
    if (next >= report->loops.size() || report->loops[next].name != n.name) {
      snap.dependenceError = "the dependence analysis saw the loops differently";
      for (NodeInfo& m : snap.nodes) {
        m.parallel.reset();
        m.carried.clear();
      }
      return;
    }
    const poly::LoopView& l = report->loops[next++];
    n.parallel = l.parallel;
    for (int d : l.carried) n.carried.push_back(describeDependence(report->dependences[d]));
  }
}

} // namespace

int ProgramSnapshot::nodeAt(int line, int column) const {
  int best = -1;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeInfo& n = nodes[i];
    if (n.line != line || column < n.column || column >= n.column + n.length) continue;
    if (best < 0 || n.depth > nodes[best].depth) best = static_cast<int>(i);
  }
  return best;
}

int ProgramSnapshot::loopByOrdinal(int ordinal) const {
  int seen = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == NodeInfo::Kind::Loop && seen++ == ordinal) return static_cast<int>(i);
  return -1;
}

int ProgramSnapshot::ordinalOf(int index) const {
  if (index < 0 || nodes[index].kind != NodeInfo::Kind::Loop) return -1;
  int seen = 0;
  for (int i = 0; i < index; ++i) seen += nodes[i].kind == NodeInfo::Kind::Loop;
  return seen;
}

int ProgramSnapshot::indexOf(const ir::StmtNode* node) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].node == node) return static_cast<int>(i);
  return -1;
}

int ProgramSnapshot::find(NodeInfo::Kind kind, std::string_view name) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == kind && nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<int> ProgramSnapshot::positionOf(int index) const {
  std::vector<int> position;
  for (int at = index; at >= 0; at = nodes[at].parent) {
    int sibling = 0;
    for (int i = 0; i < at; ++i)
      if (nodes[i].parent == nodes[at].parent) ++sibling;
    position.push_back(sibling);
  }
  std::reverse(position.begin(), position.end());
  return position;
}

int ProgramSnapshot::atPosition(const std::vector<int>& position, NodeInfo::Kind kind) const {
  int parent = -1, found = -1;
  for (int wanted : position) {
    found = -1;
    int sibling = 0;
    for (std::size_t i = 0; i < nodes.size() && found < 0; ++i) {
      if (nodes[i].parent != parent) continue;
      if (sibling++ == wanted) found = static_cast<int>(i);
    }
    if (found < 0) return -1;
    parent = found;
  }
  if (found < 0 || nodes[found].kind != kind) return -1;
  return found;
}

std::vector<int> ProgramSnapshot::loopChain(int index) const {
  std::vector<int> chain;
  if (index < 0 || nodes[index].kind != NodeInfo::Kind::Loop) return chain;
  chain.push_back(index);
  for (;;) {
    int only = -1, count = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].parent == chain.back()) {
        ++count;
        only = static_cast<int>(i);
      }
    if (count != 1 || nodes[only].kind != NodeInfo::Kind::Loop) break;
    chain.push_back(only);
  }
  return chain;
}

std::vector<int> ProgramSnapshot::loopsOfBlockBelow(int index) const {
  if (index < 0) return {};
  for (std::size_t i = index; i < nodes.size(); ++i) {
    if (nodes[i].kind != NodeInfo::Kind::Block) continue;
    // is it below `index`?
    for (int p = nodes[i].parent; p >= 0; p = nodes[p].parent)
      if (p == index) return nodes[i].loopsAbove;
  }
  return {};
}

namespace {

void attachTree(ProgramSnapshot& snap, poly::TreeFacts facts) {
  auto scheduleTree = poly::describeScheduleTree(*snap.state, facts);
  if (scheduleTree) {
    snap.tree = *scheduleTree;
    snap.treeError.clear();
  } else {
    snap.tree.reset();
    snap.treeError = scheduleTree.error().message;
  }
}

ProgramSnapshot makeStructure(const schedule::StatePtr& state, ir::ScriptDialect dialect) {
  ProgramSnapshot snap;
  snap.state = state;
  snap.func = state->func();
  // The IrTree of the state indexes the same nodes as snap.func (shared handles).
  ir::PrintedProgram printed = ir::printPrimFuncWithSpans(snap.func, {dialect});
  snap.text = std::move(printed.text);
  const schedule::IrTree& tree = state->tree();
  std::unordered_map<const ir::StmtNode*, int> indexByNode;
  snap.nodes.reserve(printed.spans.size());
  for (const ir::PrintedSpan& span : printed.spans) {
    NodeInfo info;
    info.node = span.node;
    info.line = span.line;
    info.column = span.column;
    info.length = span.length;
    indexByNode[span.node] = static_cast<int>(snap.nodes.size());
    snap.nodes.push_back(std::move(info));
  }
  for (NodeInfo& info : snap.nodes) {
    const schedule::TreeNode* tn = tree.find(info.node);
    if (tn == nullptr) continue;
    if (tn->parent != nullptr) {
      auto it = indexByNode.find(tn->parent->node);
      if (it != indexByNode.end()) info.parent = it->second;
    }
    if (const ir::For* loop = tn->loop()) {
      info.kind = NodeInfo::Kind::Loop;
      info.name = loop->loopVar.as<ir::Var>()->name;
      info.extent = ir::printExpr(loop->extent);
      info.min = ir::printExpr(loop->min);
      if (const auto* imm = loop->extent.as<ir::IntImm>()) info.constExtent = imm->value;
      info.loopKind = ir::forKindName(loop->forKind);
      info.threadTag = loop->threadTag;
      collectBlocksBelow(*tn, info.blocksBelow);
      continue;
    }
    const ir::Block* block = tn->block();
    info.kind = NodeInfo::Kind::Block;
    info.name = block->name;
    info.isRoot = tn->parent == nullptr;
    for (const ir::IterVar& iv : block->iterVars)
      if (iv.kind == ir::IterKind::Reduce) info.isReduction = true;
    for (const ir::BufferRegion& r : block->reads) info.reads.push_back(r.buffer->name);
    for (const ir::BufferRegion& r : block->writes) info.writes.push_back(r.buffer->name);
    if (!info.isRoot)
      for (const schedule::TreeNode* l : tree.loopsAbove(*tn)) {
        auto it = indexByNode.find(l->node);
        if (it != indexByNode.end()) info.loopsAbove.push_back(it->second);
      }
  }
  for (NodeInfo& info : snap.nodes)
    info.depth = info.parent < 0 ? 0 : snap.nodes[info.parent].depth + 1;
  snap.analysisPending = true;
  attachTree(snap, poly::TreeFacts::StructureOnly);
  return snap;
}

/// The two snapshots of each dialect as analyses of the state (distinct types, distinct
/// slots).
template <ir::ScriptDialect D> struct StructureSnapshot {
  std::shared_ptr<const ProgramSnapshot> snap;
};
template <ir::ScriptDialect D> struct AnalysedSnapshot {
  std::shared_ptr<const ProgramSnapshot> snap;
};

template <ir::ScriptDialect D> std::shared_ptr<const ProgramSnapshot> structureOf(const schedule::StatePtr& state) {
  auto s = state->analysis<StructureSnapshot<D>>([&]() -> Expected<StructureSnapshot<D>> {
    return StructureSnapshot<D>{std::make_shared<const ProgramSnapshot>(makeStructure(state, D))};
  });
  return (*s)->snap;
}

template <ir::ScriptDialect D> std::shared_ptr<const ProgramSnapshot> analysedOf(const schedule::StatePtr& state) {
  auto s = state->analysis<AnalysedSnapshot<D>>([&]() -> Expected<AnalysedSnapshot<D>> {
    auto full = std::make_shared<ProgramSnapshot>(*structureOf<D>(state));
    full->analysisPending = false;
    attachDependences(*full);
    attachTree(*full, poly::TreeFacts::WithDependences);
    return AnalysedSnapshot<D>{std::move(full)};
  });
  return (*s)->snap;
}

template <ir::ScriptDialect D> std::shared_ptr<const ProgramSnapshot> currentOf(const schedule::StatePtr& state) {
  if (auto a = state->cachedAnalysis<AnalysedSnapshot<D>>()) return a->snap;
  if (auto s = state->cachedAnalysis<StructureSnapshot<D>>()) return s->snap;
  return nullptr;
}

} // namespace

std::shared_ptr<const ProgramSnapshot> structureSnapshot(const schedule::StatePtr& state, ir::ScriptDialect dialect) {
  return dialect == ir::ScriptDialect::Tirx ? structureOf<ir::ScriptDialect::Tirx>(state)
                                            : structureOf<ir::ScriptDialect::Tir>(state);
}

std::shared_ptr<const ProgramSnapshot> analysedSnapshot(const schedule::StatePtr& state, ir::ScriptDialect dialect) {
  return dialect == ir::ScriptDialect::Tirx ? analysedOf<ir::ScriptDialect::Tirx>(state)
                                            : analysedOf<ir::ScriptDialect::Tir>(state);
}

std::shared_ptr<const ProgramSnapshot> currentSnapshot(const schedule::StatePtr& state, ir::ScriptDialect dialect) {
  if (!state) return nullptr;
  return dialect == ir::ScriptDialect::Tirx ? currentOf<ir::ScriptDialect::Tirx>(state)
                                            : currentOf<ir::ScriptDialect::Tir>(state);
}

} // namespace loopscape::views
