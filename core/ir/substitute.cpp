#include "core/ir/substitute.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"

namespace loopscape::ir {

namespace {
/// Replaces variables and keeps the index arithmetic well typed: a variable replaced by a
/// wider integer expression (an int32 iterator bound to an int64 index) widens the
/// operations that use it, as TVM's BinaryOpMatchTypes does, instead of mixing widths.
class Substituter final : public StmtMutator {
public:
  explicit Substituter(const VarMap& map) : m_map(map) {}

protected:
  Expr visitVar(const Var&, const Expr& self) override {
    auto it = m_map.find(self.get());
    return it == m_map.end() ? self : it->second;
  }

#define LS_X(name)                                                                                                     \
  Expr visit##name(const name& op, const Expr& self) override {                                                        \
    Expr a = mutate(op.a), b = mutate(op.b);                                                                           \
    if (a.sameAs(op.a) && b.sameAs(op.b)) return self;                                                                 \
    matchIntegerTypes(a, b);                                                                                           \
    return name::make(std::move(a), std::move(b));                                                                     \
  }
  LS_BINARY_KINDS(LS_X)
#undef LS_X

  Expr visitSelect(const Select& op, const Expr& self) override {
    Expr c = mutate(op.condition), t = mutate(op.trueValue), f = mutate(op.falseValue);
    if (c.sameAs(op.condition) && t.sameAs(op.trueValue) && f.sameAs(op.falseValue)) return self;
    matchIntegerTypes(t, f);
    return Select::make(std::move(c), std::move(t), std::move(f), op.lazy);
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
