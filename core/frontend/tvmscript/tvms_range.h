// The extent of a range written as `lo:hi` or `range(lo, hi)`: the inverse of the
// printer's `lo + extent` folding (ir/printer.h addFolded), so that printed programs read
// back as the same tree.
#pragma once

#include "core/ir/expr.h"

namespace loopscape::frontend::tvms {

/// hi - lo, as the printer's addFolded(lo, extent) == hi would have it: constants give
/// their difference, `lo + c` gives c, `x + c` gives (x - lo) + c, anything else hi - lo;
/// integer types are unified first; undefined when they cannot be (int32 and uint32).
ir::Expr extentBetween(ir::Expr lo, ir::Expr hi);

} // namespace loopscape::frontend::tvms
