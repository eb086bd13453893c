// Navigation of a PrimFunc's statement tree for the schedule primitives. IR nodes have no
// parent pointers, so an IrTree indexes one program state: for every For and Block node
// its parent For/Block (skipping SeqStmt and other glue), the BlockRealize of each Block,
// and lookups by block name and by loop variable. It is rebuilt after every replace.
//
// Identity across program states: a block is identified by its name (names are unique in
// a function; primitives that create blocks give them fresh names), a loop by its loop
// variable (a Var node; primitives that keep a loop keep its Var).
#pragma once

#include "core/ir/prim_func.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace loopscape::schedule {

/// A For or Block node of the current tree.
struct TreeNode {
  const ir::StmtNode* node = nullptr;
  ir::Stmt handle;               ///< the For, or the Block itself
  ir::Stmt realize;              ///< for a Block: its BlockRealize; empty for loops and the root
  const TreeNode* parent = nullptr; ///< nearest enclosing For or Block; null for the root block
  std::vector<const TreeNode*> children; ///< For/Block nodes directly below, in program order
  bool isBlock() const { return handle.is<ir::Block>(); }
  const ir::For* loop() const { return handle.as<ir::For>(); }
  const ir::Block* block() const { return handle.as<ir::Block>(); }
};

class IrTree {
public:
  explicit IrTree(const ir::PrimFunc& func);
  IrTree(const IrTree&) = delete;
  IrTree& operator=(const IrTree&) = delete;

  const TreeNode& root() const { return *m_root; }
  const TreeNode* findBlock(std::string_view name) const;
  const TreeNode* findLoop(const ir::ExprNode* loopVar) const;
  const TreeNode* find(const ir::StmtNode* node) const;

  /// Loops between `node` and its enclosing block, outermost first (TVM's get_loops).
  std::vector<const TreeNode*> loopsAbove(const TreeNode& node) const;
  /// The block whose body (transitively, through loops only) contains `node`.
  const TreeNode* scopeBlock(const TreeNode& node) const;
  /// Blocks directly inside `node` (not inside a nested block), in program order.
  std::vector<const TreeNode*> childBlocks(const TreeNode& node) const;
  /// Every block in the function except the root, in program order.
  const std::vector<const TreeNode*>& blocks() const { return m_blocks; }

private:
  void index(const ir::Stmt& s, TreeNode* parent, const ir::Stmt& realize);
  std::vector<std::unique_ptr<TreeNode>> m_nodes;
  TreeNode* m_root = nullptr;
  std::vector<const TreeNode*> m_blocks;
  std::unordered_map<std::string, const TreeNode*> m_blocksByName;
  std::unordered_map<const ir::ExprNode*, const TreeNode*> m_loopsByVar;
  std::unordered_map<const ir::StmtNode*, const TreeNode*> m_byNode;
};

/// `root` with the statement `target` (pointer identity) replaced by `replacement`;
/// only the ancestors of `target` are rebuilt. `replacement` may be undefined to remove
/// `target` from its SeqStmt.
ir::Stmt replaceStmt(const ir::Stmt& root, const ir::StmtNode* target, const ir::Stmt& replacement);

} // namespace loopscape::schedule
