// PrimFunc: one tensor program. Its parameters are buffers (inputs, then outputs); the
// symbolic sizes in their shapes are the function's size parameters. The body is the
// root BlockRealize (block "root"), which allocates intermediate buffers.
#pragma once

#include "core/ir/stmt.h"

#include <string>
#include <vector>

namespace loopscape::ir {

struct PrimFunc {
  std::string name;
  std::vector<Buffer> params;
  Stmt body;
  Annotations attrs;

  /// Symbolic size Vars of the parameter shapes, in order of first appearance.
  std::vector<Expr> sizeVars() const;
  /// The root Block (body must be a BlockRealize of a Block).
  const Block& rootBlock() const;
};

/// A named collection of PrimFuncs, in insertion order.
struct IRModule {
  std::vector<PrimFunc> functions;
  const PrimFunc* find(std::string_view name) const;
};

} // namespace loopscape::ir
