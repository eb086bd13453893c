#include "core/frontend/tvmscript/tvms_range.h"

#include "core/ir/op.h"
#include "core/ir/structural_equal.h"

namespace loopscape::frontend::tvms {

ir::Expr extentBetween(ir::Expr lo, ir::Expr hi) {
  ir::matchIntegerTypes(lo, hi);
  if (lo.dtype() != hi.dtype()) return {}; // the caller reports it
  const auto* a = lo.as<ir::IntImm>();
  const auto* b = hi.as<ir::IntImm>();
  if (a && b) return ir::IntImm::make(lo.dtype(), b->value - a->value);
  if (a && a->value == 0) return hi;
  if (const auto* add = hi.as<ir::Add>()) {
    if (ir::structuralEqual(add->a, lo)) return add->b;
    if (add->b.is<ir::IntImm>()) return ir::Add::make(ir::Sub::make(add->a, lo), add->b);
  }
  return ir::Sub::make(hi, lo);
}

} // namespace loopscape::frontend::tvms
