#include "core/frontend/te_expr_size.h"

#include <algorithm>
#include <limits>

namespace loopscape::frontend::detail {

namespace {

constexpr std::int64_t kSaturated = std::numeric_limits<std::int64_t>::max() / 4;

/// The operands of `e`, in no particular order.
std::vector<const ir::Expr*> operands(const ir::Expr& e) {
  switch (e.kind()) {
  case ir::ExprKind::IntImm:
  case ir::ExprKind::FloatImm:
  case ir::ExprKind::StringImm:
  case ir::ExprKind::Var: return {};
#define LS_X(name)                                                                                                     \
  case ir::ExprKind::name: {                                                                                           \
    const auto* n = e.as<ir::name>();                                                                                  \
    return {&n->a, &n->b};                                                                                             \
  }
    LS_BINARY_KINDS(LS_X)
#undef LS_X
  case ir::ExprKind::Not: return {&e.as<ir::Not>()->a};
  case ir::ExprKind::Select: {
    const auto* n = e.as<ir::Select>();
    return {&n->condition, &n->trueValue, &n->falseValue};
  }
  case ir::ExprKind::Cast: return {&e.as<ir::Cast>()->value};
  case ir::ExprKind::Call: {
    std::vector<const ir::Expr*> out;
    for (const auto& a : e.as<ir::Call>()->args)
      out.push_back(&a);
    return out;
  }
  case ir::ExprKind::BufferLoad: {
    std::vector<const ir::Expr*> out;
    for (const auto& i : e.as<ir::BufferLoad>()->indices)
      out.push_back(&i);
    return out;
  }
  case ir::ExprKind::Ramp: {
    const auto* n = e.as<ir::Ramp>();
    return {&n->base, &n->stride};
  }
  case ir::ExprKind::Broadcast: return {&e.as<ir::Broadcast>()->value};
  }
  return {};
}

} // namespace

ExprSizes::Size ExprSizes::of(const ir::Expr& root) {
  if (!root.defined()) return {};
  if (auto it = m_sizes.find(root.get()); it != m_sizes.end()) return it->second;
  // Post-order over the nodes not measured yet: a node is measured once its operands are.
  std::vector<std::pair<ir::Expr, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (m_sizes.contains(e.get())) continue;
    const auto kids = operands(e);
    if (!expanded) {
      stack.emplace_back(e, true);
      for (const ir::Expr* k : kids)
        if (k->defined() && !m_sizes.contains(k->get())) stack.emplace_back(*k, false);
      continue;
    }
    Size size{1, 1};
    for (const ir::Expr* k : kids) {
      if (!k->defined()) continue;
      const Size& s = m_sizes.at(k->get());
      size.nodes = std::min(kSaturated, size.nodes + s.nodes);
      size.height = std::max(size.height, s.height + 1);
    }
    m_sizes.emplace(e.get(), size);
    m_keep.push_back(e);
  }
  return m_sizes.at(root.get());
}

} // namespace loopscape::frontend::detail
