#include "core/codegen/lower_blocks.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/simplify.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <algorithm>
#include <unordered_set>

namespace loopscape::codegen {

using namespace ir;

std::string blockMarker(const std::string& blockName, bool init) { return init ? blockName + ".init" : blockName; }

Stmt makeBlockMarker(const std::string& blockName, bool init) {
  return Evaluate::make(StringImm::make(blockMarker(blockName, init)));
}

namespace {

using VarSet = std::unordered_set<const ExprNode*>;

bool usesAny(const Expr& e, const VarSet& vars) {
  bool found = false;
  forEachExpr(e, [&](const Expr& sub) {
    if (sub.is<Var>() && vars.contains(sub.get())) found = true;
  });
  return found;
}

VarSet varsOf(const Expr& e) {
  VarSet vars;
  forEachExpr(e, [&](const Expr& sub) {
    if (sub.is<Var>()) vars.insert(sub.get());
  });
  return vars;
}

Stmt seq(std::vector<Stmt> stmts) {
  std::erase_if(stmts, [](const Stmt& s) { return !s.defined(); });
  return SeqStmt::make(std::move(stmts));
}

class BlockLowerer final : public StmtMutator {
protected:
  // Assumptions are facts for analyses, not code: removed here, as TVM's RemoveAssume does
  // in its lowering. The interpreter is the one that checks them.
  Stmt visitAssume(const Assume&, const Stmt&) override { return Evaluate::make(intImm(0)); }

  // A For whose perfect nest ends in a reduction block whose reduce loops are exactly
  // this nest: hoist the init above it.
  Stmt visitFor(const For& op, const Stmt& self) override {
    std::vector<const For*> chain{&op};
    Stmt inner = op.body;
    while (const auto* f = inner.as<For>()) {
      chain.push_back(f);
      inner = f->body;
    }
    if (const auto* realize = inner.as<BlockRealize>(); realize && canHoistInit(chain, *realize)) {
      const Block& block = realize->blockNode();
      Stmt update = lowerRealize(*realize, /*withInit=*/false);
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const For& f = **it;
        update = For::make(f.loopVar, f.min, f.extent, f.forKind, update, f.threadTag, f.annotations);
      }
      VarMap spatial;
      for (std::size_t i = 0; i < block.iterVars.size(); ++i)
        if (block.iterVars[i].kind == IterKind::Spatial) spatial[block.iterVars[i].var.get()] = realize->iterValues[i];
      Stmt init = substitute(seq({makeBlockMarker(block.name, true), mutate(block.init)}), spatial);
      if (!isConstInt(realize->predicate, 1)) init = IfThenElse::make(realize->predicate, init);
      return seq({init, update});
    }
    return StmtMutator::visitFor(op, self);
  }

  Stmt visitBlockRealize(const BlockRealize& op, const Stmt&) override { return lowerRealize(op, true); }

private:
  /// The hoisting condition of lower_blocks.h, for the perfect nest `chain` (outermost
  /// first) directly around `realize`.
  static bool canHoistInit(const std::vector<const For*>& chain, const BlockRealize& realize) {
    const Block& block = realize.blockNode();
    if (!block.init.defined()) return false;
    VarSet chainVars, reduceVars;
    for (const For* f : chain) {
      chainVars.insert(f->loopVar.get());
      if (auto e = asConstInt(f->extent); e && *e <= 0) return false;
    }
    VarMap atMin;
    for (const For* f : chain) atMin[f->loopVar.get()] = f->min;
    bool anyReduce = false;
    for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
      const Expr& value = realize.iterValues[i];
      const IterKind kind = block.iterVars[i].kind;
      if (kind != IterKind::Spatial && kind != IterKind::Reduce) return false; // scan, opaque: keep the guard
      if (kind == IterKind::Spatial) {
        if (usesAny(value, chainVars)) return false;
        continue;
      }
      anyReduce = true;
      for (const auto* v : varsOf(value)) {
        if (!chainVars.contains(v)) return false; // a reduce binding uses an outer loop
        reduceVars.insert(v);
      }
      // At the nest's minimums the reduce binding must be at its domain minimum.
      Expr atStart = simplify(substitute(value, atMin));
      if (!isConstInt(simplify(EQ::make(atStart, block.iterVars[i].dom.min)), 1)) return false;
    }
    if (!anyReduce || reduceVars != chainVars) return false;
    return !usesAny(realize.predicate, chainVars);
  }

  Stmt lowerRealize(const BlockRealize& op, bool withInit) {
    const Block& block = op.blockNode();
    bool isRoot = block.iterVars.empty() && block.name == "root";
    std::vector<Stmt> stmts;
    if (withInit && block.init.defined()) {
      Expr atMin = boolImm(true);
      bool first = true;
      for (std::size_t i = 0; i < block.iterVars.size(); ++i) {
        if (block.iterVars[i].kind != IterKind::Reduce) continue;
        Expr eq = EQ::make(block.iterVars[i].var, block.iterVars[i].dom.min);
        atMin = first ? eq : And::make(atMin, eq);
        first = false;
      }
      Stmt init = seq({makeBlockMarker(block.name, true), mutate(block.init)});
      stmts.push_back(first ? init : IfThenElse::make(atMin, init));
    }
    if (!isRoot) stmts.push_back(makeBlockMarker(block.name, false));
    stmts.push_back(mutate(block.body));
    Stmt body = seq(std::move(stmts));
    for (auto it = block.allocBuffers.rbegin(); it != block.allocBuffers.rend(); ++it)
      body = Allocate::make(*it, body);
    VarMap bindings;
    for (std::size_t i = 0; i < block.iterVars.size(); ++i) bindings[block.iterVars[i].var.get()] = op.iterValues[i];
    if (!bindings.empty()) body = substitute(body, bindings);
    if (!isConstInt(op.predicate, 1)) body = IfThenElse::make(op.predicate, body);
    return body;
  }
};

} // namespace

Stmt lowerBlocks(const Stmt& body) {
  BlockLowerer lowerer;
  return lowerer.mutate(body);
}

} // namespace loopscape::codegen
