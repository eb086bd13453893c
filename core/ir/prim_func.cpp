#include "core/ir/prim_func.h"

#include "core/ir/visitor.h"

#include <algorithm>

namespace loopscape::ir {

std::vector<Expr> PrimFunc::sizeVars() const {
  std::vector<Expr> vars;
  auto note = [&](const Expr& e) {
    forEachExpr(e, [&](const Expr& sub) {
      if (sub.is<Var>() && std::none_of(vars.begin(), vars.end(), [&](const Expr& v) { return v.sameAs(sub); }))
        vars.push_back(sub);
    });
  };
  for (const auto& b : params) {
    for (const auto& s : b->shape) note(s);
    for (const auto& s : b->strides) note(s);
  }
  return vars;
}

const Block& PrimFunc::rootBlock() const {
  const auto* realize = body.as<BlockRealize>();
  LS_ASSERT(realize, "PrimFunc {} body is not a BlockRealize", name);
  return realize->blockNode();
}

const PrimFunc* IRModule::find(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

} // namespace loopscape::ir
