// Substitution of variables by expressions, in expressions and statements (loop bounds,
// block bindings and predicates, indices, values, regions). Variables are matched by
// identity. Used by the schedule primitives to re-express loops (split, fuse, ...).
#pragma once

#include "core/ir/stmt.h"

#include <unordered_map>

namespace loopscape::ir {

using VarMap = std::unordered_map<const ExprNode*, Expr>;

Expr substitute(const Expr& e, const VarMap& map);
Stmt substitute(const Stmt& s, const VarMap& map);

} // namespace loopscape::ir
