#include "core/frontend/relay/relay_fuse.h"

#include "core/frontend/te_lower.h"
#include "core/ir/buffer.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace loopscape::frontend::relay {

namespace {

OpPattern combine(OpPattern a, OpPattern b) { return std::max(a, b); }

// ---- the indexed forward graph ----

struct Edge {
  std::size_t node;
  OpPattern pattern;
};

struct GraphNode {
  NodePtr ref;
  std::size_t index = 0;
  OpPattern pattern = OpPattern::Opaque;
  bool externRef = false;
  std::vector<Edge> outputs;
};

std::vector<GraphNode> buildGraph(const Function& f) {
  std::vector<NodePtr> order = postOrder(f.body);
  std::unordered_map<const Node*, std::size_t> index;
  std::vector<GraphNode> g(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    index[order[i].get()] = i;
    g[i].ref = order[i];
    g[i].index = i;
  }
  auto update = [&](const NodePtr& arg, std::size_t parent, OpPattern p) {
    g[index.at(arg.get())].outputs.push_back({parent, p});
  };
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Node& n = *order[i];
    switch (n.kind) {
    case NodeKind::Var: g[i].pattern = OpPattern::Opaque; break;
    case NodeKind::Constant: {
      ir::DataType t = n.type.dtype;
      bool simple = t == ir::DataType::int32() || t == ir::DataType::int64() || t == ir::DataType::float32() ||
                    t == ir::DataType::float64() || t.isBool();
      g[i].pattern = n.type.isTensor() && n.type.shape.empty() && simple ? OpPattern::ElemWise : OpPattern::Opaque;
      break;
    }
    case NodeKind::Call: {
      OpPattern p = n.op ? n.op->pattern : OpPattern::Opaque;
      g[i].pattern = p;
      for (const auto& a : n.args) {
        OpPattern edge = p;
        if (edge == OpPattern::Broadcast && a->type.isTensor() && n.type.isTensor() && a->type.shape == n.type.shape)
          edge = OpPattern::ElemWise;
        update(a, i, edge);
      }
      break;
    }
    case NodeKind::Tuple:
      g[i].pattern = OpPattern::Tuple;
      for (const auto& a : n.args) {
        if (a->type.isTensor())
          update(a, i, OpPattern::Injective);
        else
          g[index.at(a.get())].externRef = true;
      }
      break;
    case NodeKind::TupleGetItem: {
      bool allTensors = true;
      for (const auto& field : n.args[0]->type.fields)
        allTensors = allTensors && field.isTensor();
      if (!allTensors) {
        g[index.at(n.args[0].get())].externRef = true;
      } else {
        g[i].pattern = OpPattern::Injective;
        update(n.args[0], i, OpPattern::Injective);
      }
      break;
    }
    case NodeKind::GlobalCall:
      for (const auto& a : n.args)
        g[index.at(a.get())].externRef = true;
      break;
    }
  }
  for (const auto& p : f.params)
    if (index.contains(p.get())) g[index.at(p.get())].externRef = true;
  g[index.at(f.body.get())].externRef = true;
  return g;
}

// ---- the post-dominator tree ----

struct DomNode {
  const GraphNode* gnode = nullptr;
  DomNode* parent = nullptr;
  int depth = 0;
  OpPattern pattern = OpPattern::Opaque;
};

DomNode* lca(DomNode* lhs, DomNode* rhs, OpPattern& edge) {
  while (lhs != rhs) {
    if (!lhs || !rhs) return nullptr;
    if (lhs->depth < rhs->depth) {
      edge = combine(edge, rhs->pattern);
      rhs = rhs->parent;
    } else if (rhs->depth < lhs->depth) {
      edge = combine(edge, lhs->pattern);
      lhs = lhs->parent;
    } else {
      edge = combine(edge, lhs->pattern);
      edge = combine(edge, rhs->pattern);
      lhs = lhs->parent;
      rhs = rhs->parent;
    }
  }
  return lhs;
}

std::vector<DomNode> postDominators(const std::vector<GraphNode>& g) {
  std::vector<DomNode> dom(g.size());
  for (std::size_t k = g.size(); k-- > 0;) {
    DomNode& t = dom[k];
    t.gnode = &g[k];
    if (g[k].externRef || g[k].outputs.empty()) {
      t.depth = 1;
      t.parent = nullptr;
      t.pattern = OpPattern::Opaque;
      continue;
    }
    OpPattern pattern = OpPattern::ElemWise;
    DomNode* parent = &dom[g[k].outputs[0].node];
    pattern = combine(pattern, g[k].outputs[0].pattern);
    for (std::size_t e = 1; e < g[k].outputs.size(); ++e) {
      parent = lca(parent, &dom[g[k].outputs[e].node], pattern);
      pattern = combine(pattern, g[k].outputs[e].pattern);
    }
    t.depth = parent ? parent->depth + 1 : 1;
    t.parent = parent;
    t.pattern = pattern;
  }
  return dom;
}

// ---- the partitioner ----

struct Group {
  Group* parent = nullptr;
  OpPattern pattern = OpPattern::Opaque;
  bool hasAnchor = false;
  int numNodes = 1;
  Group* findRoot() {
    Group* root = this;
    while (root->parent)
      root = root->parent;
    for (Group* p = this; p != root;) {
      Group* next = p->parent;
      p->parent = root;
      p = next;
    }
    return root;
  }
};

class Partitioner {
public:
  Partitioner(const std::vector<GraphNode>& g, int maxDepth) : m_g(g), m_groups(g.size()), m_maxDepth(maxDepth) {
    for (std::size_t i = 0; i < g.size(); ++i) {
      m_groups[i].pattern = g[i].pattern;
      m_groups[i].hasAnchor = g[i].pattern == OpPattern::OutEWiseFusable;
    }
  }

  std::vector<std::size_t> run(const std::vector<DomNode>& dom) {
    for (int phase = 0; phase < 3; ++phase)
      runFuse(dom, phase);
    std::vector<std::size_t> rootOf(m_g.size());
    std::map<Group*, std::size_t> last;
    for (std::size_t i = 0; i < m_g.size(); ++i)
      last[m_groups[i].findRoot()] = i;
    for (std::size_t i = 0; i < m_g.size(); ++i)
      rootOf[i] = last[m_groups[i].findRoot()];
    return rootOf;
  }

private:
  const std::vector<GraphNode>& m_g;
  std::vector<Group> m_groups;
  int m_maxDepth;
  std::unordered_set<std::size_t> m_visited;

  // The walks below visit every node on a path from `src` to `sink` once (iteratively:
  // a model can be a long chain); the order does not change their result.
  template <typename F> bool checkPath(std::size_t src, std::size_t sink, F fcond) {
    m_visited.clear();
    std::vector<std::size_t> stack;
    for (const auto& e : m_g[src].outputs)
      stack.push_back(e.node);
    while (!stack.empty()) {
      std::size_t n = stack.back();
      stack.pop_back();
      if (!m_visited.insert(n).second) continue;
      if (!fcond(m_groups[n].findRoot()->pattern, n == sink)) return false;
      if (n == sink) continue;
      for (const auto& e : m_g[n].outputs)
        stack.push_back(e.node);
    }
    return true;
  }

  void mergeFromTo(Group* child, Group* parent) {
    child = child->findRoot();
    parent = parent->findRoot();
    if (child == parent) return;
    parent->numNodes += child->numNodes;
    child->parent = parent;
    if (child->hasAnchor) {
      parent->hasAnchor = true;
      parent->pattern = combine(child->pattern, parent->pattern);
    }
  }
  /// Merges every node on the paths from `src` up to (not including) `sink` into sink's group.
  void commitFuse(std::size_t src, std::size_t sink) {
    m_visited.clear();
    Group* target = &m_groups[sink];
    std::vector<std::size_t> stack{src};
    while (!stack.empty()) {
      std::size_t n = stack.back();
      stack.pop_back();
      if (n == sink || !m_visited.insert(n).second) continue;
      mergeFromTo(&m_groups[n], target);
      for (const auto& e : m_g[n].outputs)
        stack.push_back(e.node);
    }
  }
  /// TVM's CountFusedNodesWithNewChild: the sink group's size plus the group sizes on the
  /// paths from `child` to it.
  int countFusedWithNewChild(std::size_t child, std::size_t domParent) {
    m_visited.clear();
    int sum = m_groups[domParent].findRoot()->numNodes;
    std::vector<std::size_t> stack{child};
    while (!stack.empty()) {
      std::size_t n = stack.back();
      stack.pop_back();
      if (n == domParent || !m_visited.insert(n).second) continue;
      sum += m_groups[n].numNodes;
      for (const auto& e : m_g[n].outputs)
        stack.push_back(e.node);
    }
    return sum;
  }

  void runFuse(const std::vector<DomNode>& dom, int phase) {
    using P = OpPattern;
    for (std::size_t nid = 0; nid < m_g.size(); ++nid) {
      Group* group = &m_groups[nid];
      const DomNode& d = dom[nid];
      if (group->pattern == P::Opaque) continue;
      if (!d.parent) continue;
      std::size_t parentIndex = d.parent->gnode->index;
      if (countFusedWithNewChild(nid, parentIndex) > m_maxDepth) continue;
      Group* parentGroup = &m_groups[parentIndex];
      if (phase == 2) {
        if (group->pattern > P::Injective) continue;
        Group* domRoot = parentGroup->findRoot();
        if (domRoot->pattern == P::Tuple) continue;
        if (parentGroup->pattern == P::Tuple && domRoot->pattern <= P::Injective) {
          if (checkPath(nid, parentIndex, [](P k, bool) { return k <= P::Injective; })) commitFuse(nid, parentIndex);
        }
        continue;
      }
      if (group->findRoot() == parentGroup->findRoot()) continue;
      if (parentGroup->pattern == P::Tuple) continue;
      if (group->pattern == P::OutEWiseFusable) {
        if (phase != 0) continue;
        if (d.pattern == P::ElemWise && checkPath(nid, parentIndex, [](P k, bool) { return k <= P::Broadcast; }))
          commitFuse(nid, parentIndex);
      } else if (group->pattern <= P::Broadcast) {
        if (d.pattern <= P::Injective || d.pattern == P::CommReduce) {
          auto fcond = [](P k, bool isSink) {
            if (!isSink) return k <= P::Injective;
            return k <= P::Broadcast || k == P::CommReduce || k == P::Injective || k == P::OutEWiseFusable;
          };
          if (checkPath(nid, parentIndex, fcond)) commitFuse(nid, parentIndex);
        }
      } else if (group->pattern == P::Injective || group->pattern == P::Tuple) {
        if (phase != 1) continue;
        if (checkPath(nid, parentIndex, [](P k, bool) { return k <= P::Injective; })) commitFuse(nid, parentIndex);
      }
    }
  }
};

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

bool isLiteral(const NodePtr& n) { return n->kind == NodeKind::Constant && n->index < 0 && n->value.defined(); }

} // namespace

bool FusedGroup::hasCall() const {
  for (const auto& n : nodes)
    if (n->kind == NodeKind::Call) return true;
  return false;
}

FusionResult fuseOps(const Function& f, int maxDepth) {
  std::vector<GraphNode> g = buildGraph(f);
  std::vector<DomNode> dom = postDominators(g);
  std::vector<std::size_t> rootOf = Partitioner(g, maxDepth).run(dom);
  std::map<std::size_t, FusedGroup> byRoot;
  for (std::size_t i = 0; i < g.size(); ++i)
    byRoot[rootOf[i]].nodes.push_back(g[i].ref);
  FusionResult result;
  std::map<std::string, int> used;
  for (auto& [root, group] : byRoot) {
    const NodeKind k = group.root()->kind;
    if (k == NodeKind::Var || (k == NodeKind::Constant && group.nodes.size() == 1)) continue;
    std::unordered_set<const Node*> members;
    for (const auto& n : group.nodes)
      members.insert(n.get());
    std::unordered_set<const Node*> seen;
    std::string readable = "fused";
    for (const auto& n : group.nodes) {
      if (n->kind == NodeKind::Call) {
        readable += "_" + n->name;
        if (n->op && (group.pattern == OpPattern::Opaque || n->op->pattern == OpPattern::OutEWiseFusable))
          group.pattern = n->op->pattern;
      }
      for (const auto& a : n->args)
        // A meta constant is always an input, also when it joined the group (a 0-d
        // constant is elementwise, so it fuses into its consumer).
        if ((!members.contains(a.get()) || a->kind == NodeKind::Constant) && !isLiteral(a) &&
            seen.insert(a.get()).second)
          group.inputs.push_back(a);
    }
    if (group.pattern != OpPattern::OutEWiseFusable) {
      OpPattern p = OpPattern::ElemWise;
      for (const auto& n : group.nodes)
        if (n->kind == NodeKind::Call && n->op)
          p = combine(p, n->op->pattern);
        else if (n->kind == NodeKind::Tuple)
          p = combine(p, OpPattern::Injective);
      group.pattern = p;
    }
    std::replace(readable.begin(), readable.end(), '.', '_');
    if (readable.size() > 80) readable = fmt::format("{}_{:016x}", readable.substr(0, 80), fnv1a(readable));
    std::string name = "tvmgen_default_" + readable;
    int count = used[name]++;
    group.name = count ? fmt::format("{}_{}", name, count) : name;
    result.groups.push_back(std::move(group));
  }
  return result;
}

Expected<TeProgram> groupProgram(const FusedGroup& group) {
  TeProgram program;
  std::unordered_map<const Node*, std::vector<TensorPtr>> values;
  std::set<std::string> names;
  int param = 0;
  for (const auto& in : group.inputs) {
    std::vector<Type> fields = in->type.kind == Type::Kind::Tuple ? in->type.fields : std::vector<Type>{in->type};
    for (const auto& t : fields) {
      auto p = std::make_shared<TensorInfo>();
      p->name = fmt::format("p{}", param++);
      std::vector<ir::Expr> shape;
      for (auto d : t.shape)
        shape.push_back(ir::intImm(d));
      p->buffer = ir::makeBuffer(p->name, t.dtype, shape);
      p->loc = in->loc;
      names.insert(p->name);
      program.tensors.push_back(p);
      values[in.get()].push_back(p);
    }
  }
  for (const auto& n : group.nodes) {
    if (isLiteral(n) || values.contains(n.get())) continue;
    switch (n->kind) {
    case NodeKind::Tuple:
      for (const auto& a : n->args) {
        const auto& v = values.at(a.get());
        values[n.get()].insert(values[n.get()].end(), v.begin(), v.end());
      }
      continue;
    case NodeKind::TupleGetItem:
      values[n.get()] = {values.at(n->args[0].get()).at(static_cast<std::size_t>(n->index))};
      continue;
    case NodeKind::Call: break;
    default:
      return Unexpected(Diagnostic::error(
          "relay.lower", fmt::format("group {} holds a node that cannot be lowered", group.name), n->loc));
    }
    if (!n->op || !n->op->compute)
      return Unexpected(Diagnostic::error("relay.lower",
                                          fmt::format("{} has no compute: run SimplifyInference first (it rewrites "
                                                      "nn.batch_norm, nn.dropout and nn.layer_norm)",
                                                      n->name),
                                          n->loc));
    CallAttrs attrs(*n, n->op->attrs);
    ComputeContext ctx{*n, attrs, {}, n->type, &names, {}};
    for (const auto& a : n->args) {
      if (isLiteral(a)) {
        ir::DataType t = a->value.dtype();
        ctx.inputs.push_back(
            Operand{{},
                    t.isFloat() ? ir::makeConst(t, a->value.getDouble(0)) : ir::IntImm::make(t, a->value.getInt(0)),
                    {},
                    t});
        continue;
      }
      const auto& v = values.at(a.get());
      std::vector<Type> types = a->type.kind == Type::Kind::Tuple ? a->type.fields : std::vector<Type>{a->type};
      for (std::size_t k = 0; k < v.size(); ++k)
        ctx.inputs.push_back(Operand{v[k], {}, types[k].shape, types[k].dtype});
    }
    auto outs = n->op->compute(ctx);
    if (!outs) return std::unexpected(outs.error());
    program.tensors.insert(program.tensors.end(), ctx.stages.begin(), ctx.stages.end());
    values[n.get()] = std::move(*outs);
  }
  for (const auto& t : values.at(group.root().get())) {
    if (!t->isCompute)
      return Unexpected(Diagnostic::error("relay.lower", fmt::format("group {} only forwards an input", group.name),
                                          group.root()->loc));
    program.outputs.push_back(t);
  }
  return program;
}

Expected<ir::PrimFunc> lowerGroup(const FusedGroup& group) {
  auto program = groupProgram(group);
  if (!program) return std::unexpected(program.error());
  auto func = lowerTe(*program);
  if (!func) return func;
  func->name = group.name;
  return func;
}

std::int64_t groupFlops(const FusedGroup& group) {
  std::int64_t total = 0;
  for (const auto& n : group.nodes) {
    if (n->kind != NodeKind::Call || !n->op) continue;
    CallAttrs attrs(*n, n->op->attrs);
    std::vector<Type> args;
    for (const auto& a : n->args)
      args.push_back(a->type);
    total += n->op->flops ? n->op->flops(args, n->type, attrs) : (n->type.isTensor() ? n->type.numel() : 0);
  }
  return total;
}

} // namespace loopscape::frontend::relay
