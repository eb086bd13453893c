// Storage of intermediate buffers: set_scope and storage_align (TVM's tir.Schedule
// semantics), and the helpers of the caching family (cache_common.h).
//
// set_scope(block, buffer_index, storage_scope)
//   Preconditions, checked in this order:
//   1. buffer_index indexes the block's writes                        (index-out-of-range)
//   2. storage_scope is "global", "shared" or "local"                  (bad-scope)
//   3. the buffer is allocated by a block (alloc_buffer), not a
//      function parameter                                              (is-parameter)
//      nor a buffer declared by an Allocate statement                  (not-allocated)
//   Effect: the buffer is replaced everywhere by a buffer of the new scope named
//   `<buffer>_<scope>` (TVM's WithScope). Setting the scope the buffer already has changes
//   nothing and checks nothing further (as in TVM; the step is still recorded).
//
// storage_align(block, buffer_index, axis, factor, offset)
//   1. buffer_index indexes the block's writes                        (index-out-of-range)
//   2. factor > 0                                                     (bad-factor)
//   3. 0 <= offset < factor                                            (bad-offset; TVM does
//      not check the offset, a residue outside [0, factor) is a mistake)
//   4. axis in [-ndim, ndim) (negative counts from the end)           (axis-out-of-range)
//   5. the buffer is allocated by a block, not a parameter            (is-parameter /
//                                                                      not-allocated)
//   6. an existing "buffer_dim_align" annotation of the block is one we wrote
//                                                                      (bad-annotation)
//   7. the padded layout (a constant shape's strides and size) fits the buffer's index
//      type                                                             (too-large)
//   Effect: as in TVM, the block gets the annotation "buffer_dim_align" = the list of
//   [buffer_index, axis, factor, offset] (one entry per buffer and axis; a new call for
//   the same buffer and axis replaces its entry). Our annotations hold expressions, so the
//   list is a StringImm with TVM's text, e.g. "[[0, 0, 32, 1]]". Where TVM applies the
//   alignment only when lowering, we apply it at once: the buffer gets explicit strides,
//   innermost first, stride[d] = the smallest value >= the compact stride with
//   stride[d] % factor == offset for aligned axes (TVM's lowering formula
//   s + (factor + offset - s % factor) % factor), so the printed program shows
//   `strides=(...)` on the alloc_buffer and the interpreter runs the padded layout.
#include "core/schedule/primitive/buffer_replace.h"
#include "core/schedule/primitive/cache_common.h"
#include "core/schedule/primitive/util.h"
#include "core/schedule/schedule_error.h"

#include "core/ir/checked_arith.h"
#include "core/ir/op.h"
#include "core/ir/simplify.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace loopscape::schedule::detail {

Expected<ir::Buffer> nthAccessBuffer(const TreeNode& block, std::int64_t index, bool write, std::string_view prim) {
  const auto& regions = write ? block.block()->writes : block.block()->reads;
  if (index < 0 || index >= static_cast<std::int64_t>(regions.size()))
    return Unexpected(scheduleError(prim, "index-out-of-range",
                                    fmt::format("{}: the block '{}' {} {} buffer(s), so the {} buffer index must be in "
                                                "[0, {}), got {}",
                                                prim, block.block()->name, write ? "writes" : "reads", regions.size(),
                                                write ? "write" : "read", regions.size(), index),
                                    {blockRef(block.block()->name)}));
  return regions[static_cast<std::size_t>(index)].buffer;
}

Expected<ir::MemoryScope> storageScope(const TraceValue& name, std::string_view prim) {
  const auto* s = name.get<std::string>();
  if (!s)
    return Unexpected(scheduleError(prim, "bad-arguments", fmt::format("{}: storage_scope must be a string", prim)));
  auto scope = ir::parseMemoryScope(*s);
  if (!scope)
    return Unexpected(scheduleError(prim, "bad-scope",
                                    fmt::format("{}: '{}' is not a storage scope; the scopes are \"global\", "
                                                "\"shared\" and \"local\"",
                                                prim, *s)));
  return *scope;
}

const TreeNode* allocationSite(const TreeNode& block, const ir::Buffer& buffer) {
  for (const TreeNode* p = &block; p; p = p->parent) {
    if (!p->isBlock()) continue;
    const auto& allocs = p->block()->allocBuffers;
    if (std::any_of(allocs.begin(), allocs.end(), [&](const ir::Buffer& b) { return b.sameAs(buffer); })) return p;
  }
  return nullptr;
}

Expected<const TreeNode*> requireAllocated(const Schedule& sch, const TreeNode& block, const ir::Buffer& buffer,
                                           std::string_view prim) {
  if (const TreeNode* site = allocationSite(block, buffer)) return site;
  const auto& params = sch.func().params;
  const bool isParam =
      std::any_of(params.begin(), params.end(), [&](const ir::Buffer& p) { return p.sameAs(buffer); });
  std::vector<IrReference> refs{blockRef(block.block()->name), {IrReference::Kind::Buffer, buffer->name}};
  if (isParam)
    return Unexpected(scheduleError(prim, "is-parameter",
                                    fmt::format("{}: the buffer '{}' written by block '{}' is a parameter of the "
                                                "function; only intermediate buffers (alloc_buffer) can be changed",
                                                prim, buffer->name, block.block()->name),
                                    std::move(refs)));
  return Unexpected(scheduleError(prim, "not-allocated",
                                  fmt::format("{}: the buffer '{}' written by block '{}' is not allocated by a block "
                                              "(alloc_buffer) enclosing it",
                                              prim, buffer->name, block.block()->name),
                                  std::move(refs)));
}

std::string freshBlockName(const IrTree& tree, const std::string& base) {
  if (!tree.findBlock(base)) return base;
  for (int k = 1;; ++k) {
    std::string name = fmt::format("{}_{}", base, k);
    if (!tree.findBlock(name)) return name;
  }
}

Expected<std::int64_t> integerArg(const Schedule& sch, const TraceValue& v, std::string_view prim,
                                  std::string_view what) {
  if (v.get<std::int64_t>() || v.get<RV>()) {
    auto value = sch.integer(v, prim);
    if (value) return *value;
  }
  return Unexpected(scheduleError(prim, "bad-arguments", fmt::format("{}: {} must be an integer", prim, what)));
}

// ---------------------------------------------------------------------------- set_scope
Expected<std::vector<RV>> applySetScope(Schedule& sch, const std::vector<TraceValue>& inputs,
                                        const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "set_scope";
  auto block = sch.block(inputs.at(0), prim);
  if (!block) return Unexpected(block.error());
  auto index = integerArg(sch, attrs.at(0), prim, "buffer_index");
  if (!index) return Unexpected(index.error());
  auto buffer = nthAccessBuffer(**block, *index, true, prim);
  if (!buffer) return Unexpected(buffer.error());
  auto scope = storageScope(attrs.at(1), prim);
  if (!scope) return Unexpected(scope.error());
  if ((*buffer)->scope == *scope) return std::vector<RV>{};
  if (auto site = requireAllocated(sch, **block, *buffer, prim); !site) return Unexpected(site.error());

  const ir::Buffer fresh =
      withNameAndScope(*buffer, (*buffer)->name + "_" + ir::memoryScopeName(*scope), *scope);
  if (auto ok = sch.replace(replaceBuffers(sch.func(), {{buffer->get(), fresh}})); !ok) return Unexpected(ok.error());
  return std::vector<RV>{};
}

// ---------------------------------------------------------------------------- storage_align
namespace {

constexpr const char* kDimAlign = "buffer_dim_align";
using AlignEntry = std::array<std::int64_t, 4>; // buffer_index, axis, factor, offset

/// Parses "[[a, b, c, d], ...]"; nullopt if the text is not that.
std::optional<std::vector<AlignEntry>> parseAlign(std::string_view text) {
  std::vector<AlignEntry> out;
  std::size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  auto expect = [&](char c) {
    skip();
    if (i < text.size() && text[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  auto number = [&]() -> std::optional<std::int64_t> {
    skip();
    std::size_t start = i;
    if (i < text.size() && text[i] == '-') ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start || (text[start] == '-' && i == start + 1)) return std::nullopt;
    return std::stoll(std::string(text.substr(start, i - start)));
  };
  if (!expect('[')) return std::nullopt;
  if (expect(']')) return out;
  do {
    if (!expect('[')) return std::nullopt;
    AlignEntry e{};
    for (int k = 0; k < 4; ++k) {
      if (k && !expect(',')) return std::nullopt;
      auto n = number();
      if (!n) return std::nullopt;
      e[k] = *n;
    }
    if (!expect(']')) return std::nullopt;
    out.push_back(e);
  } while (expect(','));
  if (!expect(']')) return std::nullopt;
  skip();
  if (i != text.size()) return std::nullopt;
  return out;
}

std::string printAlign(const std::vector<AlignEntry>& entries) {
  std::vector<std::string> items;
  for (const auto& e : entries) items.push_back(fmt::format("[{}, {}, {}, {}]", e[0], e[1], e[2], e[3]));
  return fmt::format("[{}]", fmt::join(items, ", "));
}

Expected<std::vector<RV>> applyStorageAlignImpl(Schedule& sch, const std::vector<TraceValue>& inputs,
                                                const std::vector<TraceValue>& attrs) {
  constexpr std::string_view prim = "storage_align";
  auto blockNode = sch.block(inputs.at(0), prim);
  if (!blockNode) return Unexpected(blockNode.error());
  const TreeNode& node = **blockNode;
  const ir::Block& block = *node.block();
  std::int64_t values[4];
  const char* names[4] = {"buffer_index", "axis", "factor", "offset"};
  for (int k = 0; k < 4; ++k) {
    auto v = integerArg(sch, attrs.at(k), prim, names[k]);
    if (!v) return Unexpected(v.error());
    values[k] = *v;
  }
  const auto [index, axisIn, factor, offset] = std::tuple(values[0], values[1], values[2], values[3]);
  // 1.
  auto buffer = nthAccessBuffer(node, index, true, prim);
  if (!buffer) return Unexpected(buffer.error());
  const IrReference bufRef{IrReference::Kind::Buffer, (*buffer)->name};
  // 2-3.
  if (factor <= 0)
    return Unexpected(scheduleError(prim, "bad-factor",
                                    fmt::format("storage_align: the factor must be positive, got {}", factor),
                                    {blockRef(block.name), bufRef}));
  if (offset < 0 || offset >= factor)
    return Unexpected(scheduleError(prim, "bad-offset",
                                    fmt::format("storage_align: the offset must be in [0, {}) (a residue modulo the "
                                                "factor), got {}",
                                                factor, offset),
                                    {blockRef(block.name), bufRef}));
  // 4.
  const auto ndim = static_cast<std::int64_t>((*buffer)->ndim());
  if (axisIn < -ndim || axisIn >= ndim)
    return Unexpected(scheduleError(prim, "axis-out-of-range",
                                    fmt::format("storage_align: the buffer '{}' has {} dimension(s), so the axis must "
                                                "be in [{}, {}), got {}",
                                                (*buffer)->name, ndim, -ndim, ndim, axisIn),
                                    {blockRef(block.name), bufRef}));
  const std::int64_t axis = axisIn < 0 ? axisIn + ndim : axisIn;
  // 5.
  if (auto site = requireAllocated(sch, node, *buffer, prim); !site) return Unexpected(site.error());
  // 6.
  std::vector<AlignEntry> entries;
  if (auto it = block.annotations.find(kDimAlign); it != block.annotations.end()) {
    const auto* text = it->second.as<ir::StringImm>();
    auto parsed = text ? parseAlign(text->value) : std::nullopt;
    if (!parsed)
      return Unexpected(scheduleError(prim, "bad-annotation",
                                      fmt::format("storage_align: the annotation \"{}\" of block '{}' is not a list "
                                                  "of [buffer_index, axis, factor, offset]",
                                                  kDimAlign, block.name),
                                      {blockRef(block.name)}));
    entries = *parsed;
  }
  const AlignEntry entry{index, axis, factor, offset};
  auto same = std::find_if(entries.begin(), entries.end(), [&](const AlignEntry& e) { return e[0] == index && e[1] == axis; });
  if (same != entries.end())
    *same = entry;
  else
    entries.push_back(entry);

  // Strides from the shape, innermost first, aligning the annotated axes of this buffer.
  // With a constant shape the strides are also computed exactly in int64 (`exact`): the
  // padded layout must fit the buffer's index type, or its indices would wrap.
  const ir::Buffer& old = *buffer;
  const ir::DataType indexType = old->shape.back().dtype();
  std::vector<ir::Expr> strides(old->ndim());
  ir::Expr stride = ir::intImm(1, indexType);
  std::optional<std::int64_t> exact = 1;
  bool overflow = false;
  for (std::int64_t d = ndim - 1; d >= 0; --d) {
    for (const auto& e : entries)
      if (e[0] == index && e[1] == d) {
        const auto sum = ir::checkedAdd(e[2], e[3]);
        overflow |= !sum || !ir::fitsSignedBits(*sum, indexType.bits());
        if (exact && !overflow) {
          exact = ir::checkedAdd(*exact, (*sum - *exact % e[2]) % e[2]);
          overflow |= !exact || !ir::fitsSignedBits(*exact, indexType.bits());
        }
        if (overflow) break;
        stride = ir::simplify(stride + ir::floormod(ir::intImm(e[2] + e[3], stride.dtype()) -
                                                        ir::floormod(stride, e[2]),
                                                    e[2]));
      }
    if (overflow) break;
    strides[d] = stride;
    const auto extent = ir::asConstInt(old->shape[d]);
    if (exact && extent) {
      exact = ir::checkedMul(*exact, *extent);
      overflow |= !exact || !ir::fitsSignedBits(*exact, indexType.bits());
      if (overflow) break;
    } else {
      exact.reset();
    }
    stride = ir::simplify(stride * old->shape[d]);
  }
  if (overflow)
    return Unexpected(scheduleError(prim, "too-large",
                                    fmt::format("storage_align: with factor {} and offset {} the padded layout of "
                                                "buffer '{}' has more elements than {} (its index type) can count; "
                                                "use a smaller factor",
                                                factor, offset, old->name, indexType.str()),
                                    {blockRef(block.name), bufRef}));
  const ir::Buffer aligned = withStrides(old, std::move(strides));

  ir::Annotations ann = block.annotations;
  ann[kDimAlign] = ir::StringImm::make(printAlign(entries));
  ir::Stmt newBlock = ir::Block::make(block.name, block.iterVars, block.reads, block.writes, block.body, block.init,
                                      block.allocBuffers, std::move(ann));
  ir::PrimFunc f = replaced(sch, node.node, newBlock);
  f = replaceBuffers(f, {{old.get(), aligned}});
  if (auto ok = sch.replace(std::move(f)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{};
}

} // namespace

Expected<std::vector<RV>> applyStorageAlign(Schedule& sch, const std::vector<TraceValue>& inputs,
                                            const std::vector<TraceValue>& attrs) {
  return applyStorageAlignImpl(sch, inputs, attrs);
}

} // namespace loopscape::schedule::detail
