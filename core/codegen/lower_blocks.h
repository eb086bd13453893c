// Lowering pass 2: blocks become plain statements (TVM's LowerInitBlock +
// ConvertBlocksToOpaque + LowerOpaqueBlock in one pass). For every BlockRealize:
//   * the block iterators are replaced by their binding values;
//   * a predicate other than `True` becomes an IfThenElse around the instance;
//   * alloc_buffers become Allocate statements around the block's statements;
//   * a reduction init is placed where the block's reduce loops start: when the loops
//     directly around the block (a perfect nest, nothing else in between) are exactly the
//     loops its reduce bindings use, and at their minimums every reduce binding is at its
//     domain minimum, the init is hoisted above them (`init; for k: update`); otherwise
//     it stays in front of the update guarded by `if (every reduce binding == its min)`;
//   * a block marker statement is left where the block's statements start (see
//     lowered_func.h): Evaluate(StringImm("<block>")) before the update and
//     Evaluate(StringImm("<block>.init")) before the init. The root block gets none.
#pragma once

#include "core/ir/stmt.h"

#include <string>

namespace loopscape::codegen {

/// The marker text for a block's statements ("C") and for its init ("C.init").
std::string blockMarker(const std::string& blockName, bool init);
ir::Stmt makeBlockMarker(const std::string& blockName, bool init);

/// The pass. The result has no Block, BlockRealize or Assume.
ir::Stmt lowerBlocks(const ir::Stmt& body);

} // namespace loopscape::codegen
