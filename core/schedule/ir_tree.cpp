#include "core/schedule/ir_tree.h"

#include "core/ir/mutator.h"

namespace loopscape::schedule {

IrTree::IrTree(const ir::PrimFunc& func) {
  const auto* realize = func.body.as<ir::BlockRealize>();
  LS_ASSERT(realize, "PrimFunc body must be the root BlockRealize");
  index(realize->block, nullptr, func.body);
}

void IrTree::index(const ir::Stmt& s, TreeNode* parent, const ir::Stmt& realize) {
  switch (s.kind()) {
  case ir::StmtKind::For:
  case ir::StmtKind::Block: {
    auto node = std::make_unique<TreeNode>();
    node->node = s.get();
    node->handle = s;
    node->realize = realize;
    node->parent = parent;
    TreeNode* raw = node.get();
    m_nodes.push_back(std::move(node));
    m_byNode[s.get()] = raw;
    if (parent) parent->children.push_back(raw);
    if (const auto* loop = s.as<ir::For>()) {
      m_loopsByVar[loop->loopVar.get()] = raw;
      index(loop->body, raw, {});
    } else {
      const auto* block = s.as<ir::Block>();
      if (!parent) {
        m_root = raw;
      } else {
        m_blocks.push_back(raw);
        m_blocksByName.emplace(block->name, raw);
      }
      if (block->init.defined()) index(block->init, raw, {});
      index(block->body, raw, {});
    }
    return;
  }
  case ir::StmtKind::BlockRealize: {
    const auto* br = s.as<ir::BlockRealize>();
    index(br->block, parent, s);
    return;
  }
  case ir::StmtKind::SeqStmt:
    for (const auto& c : s.as<ir::SeqStmt>()->seq) index(c, parent, {});
    return;
  case ir::StmtKind::IfThenElse: {
    const auto* ite = s.as<ir::IfThenElse>();
    index(ite->thenCase, parent, {});
    if (ite->elseCase.defined()) index(ite->elseCase, parent, {});
    return;
  }
  case ir::StmtKind::LetStmt: index(s.as<ir::LetStmt>()->body, parent, {}); return;
  case ir::StmtKind::Allocate: index(s.as<ir::Allocate>()->body, parent, {}); return;
  case ir::StmtKind::BufferStore:
  case ir::StmtKind::Evaluate:
  case ir::StmtKind::Assume: return;
  }
}

const TreeNode* IrTree::findBlock(std::string_view name) const {
  auto it = m_blocksByName.find(std::string(name));
  return it == m_blocksByName.end() ? nullptr : it->second;
}

const TreeNode* IrTree::findLoop(const ir::ExprNode* loopVar) const {
  auto it = m_loopsByVar.find(loopVar);
  return it == m_loopsByVar.end() ? nullptr : it->second;
}

const TreeNode* IrTree::find(const ir::StmtNode* node) const {
  auto it = m_byNode.find(node);
  return it == m_byNode.end() ? nullptr : it->second;
}

std::vector<const TreeNode*> IrTree::loopsAbove(const TreeNode& node) const {
  std::vector<const TreeNode*> loops;
  for (const TreeNode* p = node.parent; p && !p->isBlock(); p = p->parent) loops.push_back(p);
  return {loops.rbegin(), loops.rend()};
}

const TreeNode* IrTree::scopeBlock(const TreeNode& node) const {
  const TreeNode* p = node.parent;
  while (p && !p->isBlock()) p = p->parent;
  return p;
}

std::vector<const TreeNode*> IrTree::childBlocks(const TreeNode& node) const {
  std::vector<const TreeNode*> out;
  auto collect = [&](auto&& self, const TreeNode& n) -> void {
    for (const TreeNode* c : n.children) {
      if (c->isBlock())
        out.push_back(c);
      else
        self(self, *c);
    }
  };
  collect(collect, node);
  return out;
}

namespace {
class Replacer final : public ir::StmtMutator {
public:
  Replacer(const ir::StmtNode* target, ir::Stmt replacement) : m_target(target), m_replacement(std::move(replacement)) {}
  ir::Stmt visitStmt(const ir::Stmt& s) override {
    if (s.get() == m_target) return m_replacement;
    return StmtFunctor::visitStmt(s);
  }
  // Expressions never contain statements: skip them.
  ir::Expr visitExpr(const ir::Expr& e) override { return e; }

protected:
  ir::Stmt visitSeqStmt(const ir::SeqStmt& op, const ir::Stmt& self) override {
    std::vector<ir::Stmt> seq;
    bool changed = false;
    for (const auto& s : op.seq) {
      auto m = mutate(s);
      changed |= !m.sameAs(s);
      if (m.defined()) seq.push_back(std::move(m));
    }
    if (!changed) return self;
    LS_ASSERT(!seq.empty(), "removing the only statement of a sequence");
    return ir::SeqStmt::make(std::move(seq));
  }

private:
  const ir::StmtNode* m_target;
  ir::Stmt m_replacement;
};
} // namespace

ir::Stmt replaceStmt(const ir::Stmt& root, const ir::StmtNode* target, const ir::Stmt& replacement) {
  Replacer r(target, replacement);
  return r.mutate(root);
}

} // namespace loopscape::schedule
