#include "core/codegen/lower_flatten.h"

#include "core/ir/checked_arith.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/simplify.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace loopscape::codegen {

using namespace ir;

SizeParams makeSizeParams(const PrimFunc& func) {
  SizeParams out;
  for (const Expr& v : func.sizeVars()) {
    if (v.dtype() == DataType::int64()) {
      out.vars.push_back(v);
      continue;
    }
    Expr wide = Var::make(v.as<Var>()->name, DataType::int64());
    out.vars.push_back(wide);
    out.replace[v.get()] = Cast::make(v.dtype(), wide);
    out.wide[v.get()] = wide;
  }
  return out;
}

namespace {

/// How accesses to one buffer are flattened.
struct FlatLayout {
  Buffer flat;
  std::vector<Expr> strides; ///< in the offset type
  DataType offsetType;
};

Expr castTo(DataType t, const Expr& e) { return e.dtype() == t ? e : Cast::make(t, e); }

/// A shape or stride expression as an int64 expression over the int64 size parameters:
/// a size Var becomes its int64 Var directly (no Cast round trip).
Expr asInt64(const Expr& e, const SizeParams& sizes) {
  if (auto it = sizes.wide.find(e.get()); it != sizes.wide.end()) return it->second;
  if (auto c = asConstInt(e)) return intImm(*c, DataType::int64());
  return castTo(DataType::int64(), substitute(e, sizes.replace));
}

FlatLayout makeLayout(const Buffer& buffer, const SizeParams& sizes) {
  const auto& b = *buffer.get();
  std::vector<Expr> shape, strides;
  for (const auto& s : b.shape) shape.push_back(simplify(asInt64(s, sizes)));
  for (const auto& s : b.strides) strides.push_back(simplify(asInt64(s, sizes)));
  // Element count reachable by the offsets, in int64 (decides the offset type).
  Expr extent = intImm(1, DataType::int64());
  if (strides.empty()) {
    for (const auto& s : shape) extent = extent * s;
  } else {
    for (std::size_t d = 0; d < shape.size(); ++d)
      extent = extent + (shape[d] - 1) * strides[d];
  }
  extent = simplify(extent);
  // The simplifier folds int64 constants wrapping; the offset type is decided on the exact
  // count (a shape whose element count overflows int64 keeps int64 offsets, and its
  // buffer is refused when allocated).
  std::optional<std::int64_t> constExtent = 1;
  for (std::size_t d = 0; d < shape.size() && constExtent; ++d) {
    const auto n = asConstInt(shape[d]);
    if (!n)
      constExtent.reset();
    else if (strides.empty())
      constExtent = checkedMul(*constExtent, *n);
    else if (const auto st = asConstInt(strides[d]); st && *n > 0) {
      const auto span = checkedMul(*n - 1, *st);
      constExtent = span ? checkedAdd(*constExtent, *span) : std::nullopt;
    } else
      constExtent.reset();
    if (constExtent && *constExtent < 0) constExtent.reset();
  }
  bool allConstant = std::all_of(shape.begin(), shape.end(), [](const Expr& e) { return asConstInt(e).has_value(); }) &&
                     std::all_of(strides.begin(), strides.end(), [](const Expr& e) { return asConstInt(e).has_value(); });
  DataType offsetType = allConstant && constExtent && *constExtent < std::numeric_limits<std::int32_t>::max()
                            ? DataType::int32()
                            : DataType::int64();
  if (strides.empty()) {
    Expr stride = intImm(1, offsetType);
    strides.resize(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
      strides[d] = stride;
      stride = simplify(stride * (offsetType == DataType::int32() ? intImm(*asConstInt(shape[d])) : shape[d]));
    }
  } else {
    for (auto& s : strides) s = offsetType == DataType::int32() ? intImm(*asConstInt(s)) : s;
  }
  Expr flatExtent = offsetType == DataType::int32() ? intImm(*constExtent, DataType::int32()) : extent;
  return {makeBuffer(b.name, b.dtype, {flatExtent}, b.scope), std::move(strides), offsetType};
}

class Flattener final : public StmtMutator {
public:
  explicit Flattener(const SizeParams& sizes) : m_sizes(sizes) {}
  const FlatLayout& layoutOf(const Buffer& buffer) {
    auto it = m_layouts.find(buffer.get());
    if (it == m_layouts.end()) it = m_layouts.emplace(buffer.get(), makeLayout(buffer, m_sizes)).first;
    return it->second;
  }

protected:
  Expr visitVar(const Var& op, const Expr& self) override {
    auto it = m_sizes.replace.find(&op);
    return it == m_sizes.replace.end() ? self : it->second;
  }
  Expr visitBufferLoad(const BufferLoad& op, const Expr&) override {
    bool changed = false;
    auto indices = mutateAll(op.indices, changed);
    const auto& layout = layoutOf(op.buffer);
    return BufferLoad::make(layout.flat, {offset(layout, indices)});
  }
  Stmt visitBufferStore(const BufferStore& op, const Stmt&) override {
    bool changed = false;
    auto indices = mutateAll(op.indices, changed);
    const auto& layout = layoutOf(op.buffer);
    return BufferStore::make(layout.flat, mutate(op.value), {offset(layout, indices)});
  }
  Stmt visitAllocate(const Allocate& op, const Stmt&) override {
    return Allocate::make(layoutOf(op.buffer).flat, mutate(op.body));
  }

private:
  static Expr offset(const FlatLayout& layout, const std::vector<Expr>& indices) {
    if (indices.empty()) return intImm(0, layout.offsetType);
    Expr sum;
    for (std::size_t d = 0; d < indices.size(); ++d) {
      Expr term = castTo(layout.offsetType, indices[d]);
      if (!isConstInt(layout.strides[d], 1)) term = term * layout.strides[d];
      sum = sum.defined() ? sum + term : term;
    }
    return sum;
  }

  const SizeParams& m_sizes;
  std::unordered_map<const BufferNode*, FlatLayout> m_layouts;
};

} // namespace

FlatBuffers flattenBuffers(const Stmt& body, const std::vector<Buffer>& params, const SizeParams& sizes) {
  Flattener flattener(sizes);
  FlatBuffers out;
  for (const auto& p : params) out.flatParams.push_back(flattener.layoutOf(p).flat);
  out.body = flattener.mutate(body);
  return out;
}

} // namespace loopscape::codegen
