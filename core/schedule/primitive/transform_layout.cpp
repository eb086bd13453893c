// transform_layout(block, buffer, index_map, pad_value=None, assume_injective_transform=False)
// (TVM's tir.Schedule.transform_layout).
//
// `buffer` names one buffer the block accesses: ("read", i) / ("write", i) as TVM writes it
// (a list ["read", 0] here) or the buffer's name. The buffer is replaced, everywhere in
// the function, by one of shape index_map(shape) (each result's extent is its bound over
// the old domain + 1), and every load, store and block region of it is rewritten through
// the map. A function parameter may be transformed too: the function's signature changes,
// as in TVM.
//
// Preconditions:
//   1. `buffer` is ("read"|"write", i) with i in range for the block, or the name of a
//      buffer the block reads or writes                                   (bad-buffer)
//   2. the index map has one parameter per buffer dimension and at least one integer
//      result                                                              (bad-index-map)
//   3. pad_value is None (padding layouts are not supported)              (unsupported-pad-value)
//   4. the new extents can be computed: every result is bounded from 0 over the buffer's
//      domain (or is a parameter, for symbolic shapes)                     (unbounded-result)
//   5. the map is injective on the buffer's domain: no two elements land on the same
//      new element (checked exhaustively up to 2^24 elements)               (not-injective)
//   6. the map is onto the new shape: the new shape holds no more elements than the old
//      (the map would introduce padding)                                    (padding)
//   7. the check of 5 is possible: constant shape with at most 2^24 elements, a plain
//      permutation of the parameters, or assume_injective_transform=True    (cannot-verify)
#include "core/schedule/primitive/blockize_layout_detail.h"
#include "core/schedule/primitive/buffer_util.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/checked_arith.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/substitute.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::schedule::detail {

namespace {

constexpr std::string_view kTransformLayoutPrim = "transform_layout";

std::string indexList(const std::vector<std::int64_t>& v) {
  return fmt::format("({}{})", fmt::join(v, ", "), v.size() == 1 ? "," : "");
}

Expected<ir::Buffer> resolveBuffer(const ir::Block& block, const TraceValue& spec) {
  auto bad = [&](std::string why) {
    return Unexpected(scheduleError(kTransformLayoutPrim, "bad-buffer", std::move(why), {blockRef(block.name)}));
  };
  if (const auto* name = spec.get<std::string>()) {
    for (const auto* list : {&block.reads, &block.writes})
      for (const auto& r : *list)
        if (r.buffer->name == *name) return r.buffer;
    return bad(fmt::format("the block '{}' neither reads nor writes a buffer named '{}'", block.name, *name));
  }
  const auto* list = spec.get<TraceList>();
  const std::string* kind = list && list->size() == 2 ? (*list)[0].get<std::string>() : nullptr;
  const std::int64_t* index = list && list->size() == 2 ? (*list)[1].get<std::int64_t>() : nullptr;
  if (!kind || !index || (*kind != "read" && *kind != "write"))
    return bad("transform_layout expects the buffer as (\"read\", index), (\"write\", index) or a buffer name");
  const auto& regions = *kind == "read" ? block.reads : block.writes;
  if (*index < 0 || *index >= static_cast<std::int64_t>(regions.size()))
    return bad(fmt::format("the block '{}' has {} {} buffer(s); index {} is out of range", block.name,
                           regions.size(), *kind, *index));
  return regions[*index].buffer;
}

/// Simplifies the indices and regions of `buffer` with the ranges of the enclosing loops
/// and block iterators known (`(v_o * 16 + v_i) // 16` -> `v_o` for v_i in [0, 16)).
class IndexSimplifier final : public ir::StmtMutator {
public:
  explicit IndexSimplifier(ir::Buffer buffer) : m_buffer(std::move(buffer)) {}

protected:
  ir::Stmt visitFor(const ir::For& op, const ir::Stmt& self) override {
    m_analyzer.bind(op.loopVar, {op.min, op.extent});
    return StmtMutator::visitFor(op, self);
  }
  ir::Stmt visitBlock(const ir::Block& op, const ir::Stmt& self) override {
    for (const auto& iv : op.iterVars) m_analyzer.bind(iv.var, iv.dom);
    ir::Stmt s = StmtMutator::visitBlock(op, self);
    const auto* b = s.as<ir::Block>();
    bool changed = false;
    auto regions = [&](const std::vector<ir::BufferRegion>& in) {
      std::vector<ir::BufferRegion> out = in;
      for (auto& r : out) {
        if (!r.buffer.sameAs(m_buffer)) continue;
        for (auto& rg : r.region) {
          ir::Expr m = m_analyzer.simplify(rg.min);
          changed |= !m.sameAs(rg.min);
          rg.min = m;
        }
      }
      return out;
    };
    auto reads = regions(b->reads);
    auto writes = regions(b->writes);
    if (!changed) return s;
    return ir::Block::make(b->name, b->iterVars, std::move(reads), std::move(writes), b->body, b->init,
                           b->allocBuffers, b->annotations);
  }
  ir::Expr visitBufferLoad(const ir::BufferLoad& op, const ir::Expr& self) override {
    ir::Expr e = ExprMutator::visitBufferLoad(op, self);
    const auto* l = e.as<ir::BufferLoad>();
    if (!l->buffer.sameAs(m_buffer)) return e;
    return ir::BufferLoad::make(l->buffer, simplified(l->indices));
  }
  ir::Stmt visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
    ir::Stmt s = StmtMutator::visitBufferStore(op, self);
    const auto* st = s.as<ir::BufferStore>();
    if (!st->buffer.sameAs(m_buffer)) return s;
    return ir::BufferStore::make(st->buffer, st->value, simplified(st->indices));
  }

private:
  std::vector<ir::Expr> simplified(std::vector<ir::Expr> indices) const {
    for (auto& e : indices) e = m_analyzer.simplify(e);
    return indices;
  }
  ir::Buffer m_buffer;
  ir::Analyzer m_analyzer;
};

} // namespace

Expected<std::vector<RV>> applyTransformLayout(Schedule& sch, const std::vector<TraceValue>& inputs,
                                               const std::vector<TraceValue>& attrs) {
  auto blockNode = sch.block(inputs.at(0), kTransformLayoutPrim);
  if (!blockNode) return Unexpected(blockNode.error());
  const ir::Block& block = *(*blockNode)->block();
  // 1. the buffer.
  auto bufferOr = resolveBuffer(block, inputs.size() > 1 ? inputs[1] : TraceValue{});
  if (!bufferOr) return Unexpected(bufferOr.error());
  const ir::Buffer buffer = *bufferOr;
  const std::string& bname = buffer->name;
  // 2. the map.
  const auto* map = inputs.size() > 2 ? inputs[2].get<IndexMap>() : nullptr;
  if (!map)
    return Unexpected(
        scheduleError(kTransformLayoutPrim, "bad-index-map", "transform_layout expects an index map (a lambda)"));
  if (map->params.size() != buffer->ndim() || map->results.empty() ||
      std::any_of(map->results.begin(), map->results.end(), [](const ir::Expr& e) { return !e.dtype().isInt(); }))
    return Unexpected(scheduleError(kTransformLayoutPrim, "bad-index-map",
                                    fmt::format("the index map takes {} parameter(s) and gives {} result(s); buffer "
                                                "'{}' has {} dimension(s) and the results must be integers",
                                                map->params.size(), map->results.size(), bname, buffer->ndim()),
                                    {blockRef(block.name)}));
  // 3. no padding value.
  if (attrs.size() > 0 && !attrs[0].isNone())
    return Unexpected(scheduleError(kTransformLayoutPrim, "unsupported-pad-value",
                                    "transform_layout with a pad_value (a padded layout) is not supported; the map "
                                    "must be a bijection of the buffer's elements",
                                    {blockRef(block.name)}));
  const bool assumeInjective = attrs.size() > 1 && attrs[1].get<bool>() && *attrs[1].get<bool>();

  // The map with its parameters retyped to the buffer's index type.
  const std::size_t nd = buffer->ndim();
  ir::Analyzer domain;
  for (std::size_t k = 0; k < nd; ++k)
    domain.bind(map->params[k], {ir::intImm(0, buffer->shape[k].dtype()), buffer->shape[k]});
  // 4. new extents.
  std::vector<ir::Expr> newShape;
  for (std::size_t d = 0; d < map->results.size(); ++d) {
    const ir::Expr r = domain.simplify(map->results[d]);
    const auto param = std::find_if(map->params.begin(), map->params.end(),
                                    [&](const ir::Expr& p) { return p.sameAs(r); });
    if (param != map->params.end()) {
      newShape.push_back(buffer->shape[param - map->params.begin()]);
      continue;
    }
    const ir::IntBound b = domain.bound(r);
    if (!b.min || !b.max || *b.min < 0)
      return Unexpected(scheduleError(kTransformLayoutPrim, "unbounded-result",
                                      fmt::format("the result {} of the index map has no bounds from 0 over the domain "
                                                  "of buffer '{}', so the new extent is unknown",
                                                  ir::printExpr(map->results[d]), bname),
                                      {blockRef(block.name)}));
    newShape.push_back(ir::intImm(*b.max + 1, map->results[d].dtype()));
  }

  // 5-7. bijectivity.
  std::vector<std::int64_t> oldExt, newExt;
  for (const auto& e : buffer->shape)
    if (auto c = ir::asConstInt(e)) oldExt.push_back(*c);
  for (const auto& e : newShape)
    if (auto c = ir::asConstInt(e)) newExt.push_back(*c);
  const bool constant = oldExt.size() == nd && newExt.size() == newShape.size();
  const bool permutation = [&] {
    if (map->results.size() != nd) return false;
    std::vector<const ir::ExprNode*> seen;
    for (const auto& r : map->results) {
      if (std::find_if(map->params.begin(), map->params.end(), [&](const auto& p) { return p.sameAs(r); }) ==
              map->params.end() ||
          std::find(seen.begin(), seen.end(), r.get()) != seen.end())
        return false;
      seen.push_back(r.get());
    }
    return true;
  }();
  const std::optional<std::int64_t> oldVolume = ir::checkedProduct(oldExt), newVolume = ir::checkedProduct(newExt);
  if (!oldVolume || !newVolume)
    return Unexpected(scheduleError(kTransformLayoutPrim, "too-large",
                                    fmt::format("the {} shape of buffer '{}' has more elements than fit in int64",
                                                oldVolume ? "new" : "old", bname),
                                    {blockRef(block.name)}));
  const std::int64_t oldVol = *oldVolume, newVol = *newVolume;
  constexpr std::int64_t kMaxEnumerated = std::int64_t{1} << 24;
  auto paddingError = [&] {
    return Unexpected(scheduleError(kTransformLayoutPrim, "padding",
                                    fmt::format("the index map introduces padding: the new shape of buffer '{}' has "
                                                "{} elements, the buffer {}; transform_layout without pad_value "
                                                "needs a bijection",
                                                bname, newVol, oldVol),
                                    {blockRef(block.name)}));
  };
  if (!assumeInjective && !permutation) {
    if (!constant || oldVol > kMaxEnumerated)
      return Unexpected(scheduleError(kTransformLayoutPrim, "cannot-verify",
                                      fmt::format("cannot check that the index map is a bijection of buffer '{}' "
                                                  "(symbolic shape or more than 2^24 elements); pass "
                                                  "assume_injective_transform=True to assume it",
                                                  bname),
                                      {blockRef(block.name)}));
    // The enumeration's tables have one entry per new element: a larger new shape than
    // the buffer cannot be a bijection anyway.
    if (newVol > kMaxEnumerated) return paddingError();
    std::vector<std::uint8_t> hit(static_cast<std::size_t>(newVol), 0);
    std::vector<std::int64_t> firstOf(static_cast<std::size_t>(newVol), -1);
    std::vector<std::pair<const ir::ExprNode*, std::int64_t>> values;
    for (const auto& p : map->params) values.emplace_back(p.get(), 0);
    std::vector<std::int64_t> point(nd, 0);
    for (std::int64_t flat = 0; flat < oldVol; ++flat) {
      std::int64_t rest = flat;
      for (std::size_t k = nd; k-- > 0;) {
        point[k] = rest % oldExt[k];
        rest /= oldExt[k];
        values[k].second = point[k];
      }
      std::int64_t target = 0;
      for (std::size_t d = 0; d < map->results.size(); ++d) {
        auto v = evalInt(map->results[d], values);
        if (!v || *v < 0 || *v >= newExt[d])
          return Unexpected(scheduleError(
              kTransformLayoutPrim, "unbounded-result",
              fmt::format("the index map cannot be evaluated in range at {} of buffer '{}'", indexList(point), bname),
              {blockRef(block.name)}));
        target = target * newExt[d] + *v;
      }
      if (hit[target]) {
        std::vector<std::int64_t> other(nd);
        std::int64_t o = firstOf[target];
        for (std::size_t k = nd; k-- > 0;) {
          other[k] = o % oldExt[k];
          o /= oldExt[k];
        }
        return Unexpected(scheduleError(kTransformLayoutPrim, "not-injective",
                                        fmt::format("the index map is not injective on buffer '{}': the elements {} "
                                                    "and {} both map to the same new element",
                                                    bname, indexList(other), indexList(point)),
                                        {blockRef(block.name)}));
      }
      hit[target] = 1;
      firstOf[target] = flat;
    }
    if (newVol > oldVol) return paddingError();
  }

  // The new buffer and the rewrite of every access.
  const ir::Buffer newBuffer = ir::makeBuffer(bname, buffer->dtype, newShape, buffer->scope);
  auto apply = [&](const std::vector<ir::Expr>& indices) {
    ir::VarMap m;
    for (std::size_t k = 0; k < nd; ++k) m[map->params[k].get()] = indices[k];
    std::vector<ir::Expr> out;
    for (const auto& r : map->results) out.push_back(ir::simplify(ir::substitute(r, m)));
    return out;
  };
  BufferRewrite rw;
  rw.oldBuffer = buffer;
  rw.newBuffer = newBuffer;
  rw.mapIndices = apply;
  rw.mapRegion = [&](const std::vector<ir::Range>& region) {
    const bool points = std::all_of(region.begin(), region.end(), [](const ir::Range& r) {
      return ir::isConstInt(r.extent, 1);
    });
    std::vector<ir::Expr> mins;
    for (const auto& r : region) mins.push_back(r.min);
    std::vector<ir::Range> out;
    if (points) {
      for (const auto& e : apply(mins)) out.push_back({e, ir::intImm(1, e.dtype())});
      return out;
    }
    std::vector<RelaxVar> relax;
    std::vector<ir::Expr> shifted;
    for (std::size_t k = 0; k < nd; ++k) {
      ir::Expr t = ir::Var::make(fmt::format("t{}", k), region[k].min.dtype());
      relax.push_back({t, {ir::intImm(0, t.dtype()), region[k].extent}});
      shifted.push_back(region[k].min + t);
    }
    const auto mapped = apply(shifted);
    for (std::size_t d = 0; d < mapped.size(); ++d)
      out.push_back(relaxRange({mapped[d], ir::intImm(1, mapped[d].dtype())}, relax, ir::Analyzer{}, newShape[d]));
    return out;
  };
  ir::PrimFunc f = sch.func();
  f.body = rewriteBuffer(f.body, rw);
  f.body = IndexSimplifier(newBuffer).mutate(f.body);
  for (auto& p : f.params)
    if (p.sameAs(buffer)) p = newBuffer;
  if (auto ok = sch.replace(std::move(f)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{};
}

} // namespace loopscape::schedule::detail
