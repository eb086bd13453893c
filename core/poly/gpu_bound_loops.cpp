#include "core/poly/gpu_bound_loops.h"

#include "core/poly/dependences.h"
#include "core/poly/isl_util.h"
#include "core/poly/scop.h"

#include "core/ir/visitor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace loopscape::poly {

using namespace detail;

namespace {

bool usesVar(const ir::Expr& e, const ir::ExprNode* var) {
  bool uses = false;
  ir::forEachExpr(e, [&](const ir::Expr& x) { uses = uses || x.get() == var; });
  return uses;
}

/// Whether dependence `d`, carried by the threadIdx loop `loop`, is a cross-thread
/// reduction's: the update of a reduction block on its own output, the loop feeding only
/// reduce bindings of the block.
bool isCrossThreadReduction(const Scop& scop, const Dependence& d, const ir::For& loop) {
  if (d.source != d.sink) return false;
  const ScopStatement* st = scop.findStatement(d.source);
  if (!st || st->isInit) return false;
  const auto* block = st->block.as<ir::Block>();
  const auto* realize = st->realize.as<ir::BlockRealize>();
  if (!block || !realize || !block->init.defined() || block->writes.size() != 1) return false;
  if (scop.bufferTuple(block->writes.front().buffer) != d.buffer) return false;
  bool feedsReduce = false;
  for (std::size_t i = 0; i < block->iterVars.size(); ++i) {
    if (!usesVar(realize->iterValues[i], loop.loopVar.get())) continue;
    if (block->iterVars[i].kind != ir::IterKind::Reduce) return false;
    feedsReduce = true;
  }
  return feedsReduce;
}

/// Whether dependence `d` carried by `loop` is between copies of an on-chip buffer that
/// the GPU gives each thread ("local", for blockIdx and threadIdx loops) or each block
/// ("shared", for blockIdx loops) and is not a flow of values: a WAR or WAW between two
/// copies orders nothing. The ordering of "shared" accesses among the threads of a block
/// is the barriers' (lower_storage_sync.h), not checked here.
bool isPrivateCopy(const Scop& scop, const Dependence& d, const ir::For& loop) {
  const auto it = scop.buffers.find(d.buffer);
  if (it == scop.buffers.end()) return false;
  const ir::MemoryScope scope = it->second->scope;
  const bool threadLoop = loop.threadTag.starts_with("threadIdx.");
  if (scope == ir::MemoryScope::Shared && threadLoop) return true;
  if (scope == ir::MemoryScope::Global || d.kind == DependenceKind::Raw) return false;
  return scope == ir::MemoryScope::Local || !threadLoop;
}

/// "B(i=0, k=1)": a statement instance from the loop values of a point.
std::string instance(const Scop& scop, const ScopStatement& st, const std::vector<std::int64_t>& values,
                     std::size_t offset) {
  std::vector<std::string> parts;
  for (std::size_t j = 0; j < st.loops.size() && offset + j < values.size(); ++j)
    parts.push_back(fmt::format("{}={}", scop.loops[st.loops[j]].name, values[offset + j]));
  return fmt::format("{}({})", st.name, fmt::join(parts, ", "));
}

Diagnostic carriedError(const Scop& scop, const Dependence& d, const ir::For& loop, int pos) {
  const std::string& loopName = loop.loopVar.as<ir::Var>()->name;
  const ScopStatement* src = scop.findStatement(d.source);
  const ScopStatement* snk = scop.findStatement(d.sink);
  std::string pair;
  if (src && snk) {
    const std::vector<std::int64_t> point = pointCoordinates(carriedPart(d.relation, pos).wrap().sample_point());
    pair = fmt::format("{} and {}, in different iterations of '{}', touch the same element",
                       instance(scop, *src, point, 0), instance(scop, *snk, point, src->loops.size()), loopName);
  }
  auto diag = Diagnostic::error(
      "codegen.gpu-bound-loop-dependence",
      fmt::format("loop '{}' is bound to {} but carries a {} dependence on '{}' from block '{}' to block '{}': {}; "
                  "the iterations of a bound loop run at the same time on the GPU",
                  loopName, loop.threadTag, dependenceKindName(d.kind), d.buffer, src ? src->blockName : d.source,
                  snk ? snk->blockName : d.sink, pair));
  diag.references.push_back({IrReference::Kind::Loop, loopName, &loop});
  if (src) diag.references.push_back({IrReference::Kind::Block, src->blockName, nullptr});
  if (snk && snk != src) diag.references.push_back({IrReference::Kind::Block, snk->blockName, nullptr});
  diag.notes.push_back("bind a loop that carries no dependence (see `loopscape-cli legal` or the Dependences view), "
                       "or keep this one serial inside the bound loops");
  return diag;
}

} // namespace

Expected<void> checkBoundLoopDependences(const ir::PrimFunc& func) {
  auto scop = extractScop(func);
  if (!scop) {
    const std::string& code = scop.error().code;
    if (code == "poly.non-affine" || code == "poly.unsupported") return {};
    return Unexpected(scop.error());
  }
  // Only programs with a loop bound to blockIdx/threadIdx need the dependences.
  auto isChecked = [](const ScopLoop& l) {
    const auto* f = l.loop.as<ir::For>();
    return f && f->forKind == ir::ForKind::ThreadBinding &&
           (f->threadTag.starts_with("blockIdx.") || f->threadTag.starts_with("threadIdx."));
  };
  if (std::none_of(scop->loops.begin(), scop->loops.end(), isChecked)) return {};
  auto deps = computeDependences(*scop);
  if (!deps) return Unexpected(deps.error());
  auto loops = loopDependences(*scop, *deps);
  if (!loops) return Unexpected(loops.error());
  try {
    for (const LoopDependences& ld : *loops) {
      const ScopLoop& sl = scop->loops[ld.loop];
      if (ld.parallel || !isChecked(sl)) continue;
      const ir::For& loop = *sl.loop.as<ir::For>();
      for (int i : ld.carried) {
        const Dependence& d = deps->list[i];
        if (loop.threadTag.starts_with("threadIdx.") && isCrossThreadReduction(*scop, d, loop)) continue;
        if (isPrivateCopy(*scop, d, loop)) continue;
        const auto it = std::find(d.commonLoops.begin(), d.commonLoops.end(), ld.loop);
        return Unexpected(carriedError(*scop, d, loop, int(it - d.commonLoops.begin())));
      }
    }
    return {};
  } catch (const isl::exception& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed: ") + e.what()));
  } catch (const IslError& e) {
    return Unexpected(Diagnostic::error("poly.isl", std::string("isl failed: ") + e.what()));
  }
}

} // namespace loopscape::poly
