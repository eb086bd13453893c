#include "core/ir/substitute.h"

#include "core/ir/mutator.h"

namespace loopscape::ir {

namespace {
class Substituter final : public StmtMutator {
public:
  explicit Substituter(const VarMap& map) : m_map(map) {}

protected:
  Expr visitVar(const Var&, const Expr& self) override {
    auto it = m_map.find(self.get());
    return it == m_map.end() ? self : it->second;
  }

private:
  const VarMap& m_map;
};
} // namespace

Expr substitute(const Expr& e, const VarMap& map) {
  if (map.empty()) return e;
  Substituter s(map);
  return s.mutate(e);
}

Stmt substitute(const Stmt& s, const VarMap& map) {
  if (map.empty()) return s;
  Substituter sub(map);
  return sub.mutate(s);
}

} // namespace loopscape::ir
