#include "core/graph/x86_templates.h"

#include "core/schedule/ir_tree.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::graph {

namespace relay = frontend::relay;

namespace {

/// The one call of `op` in the group, or null (none, or several).
const relay::Node* onlyCall(const ModelGroup& group, const char* op) {
  const relay::Node* found = nullptr;
  for (const auto& n : group.fused->nodes)
    if (n->kind == relay::NodeKind::Call && n->name == op) {
      if (found) return nullptr;
      found = n.get();
    }
  return found;
}

std::vector<std::string> blockNames(const ModelGroup& group) {
  schedule::IrTree tree(group.func);
  std::vector<std::string> blocks;
  for (const auto* b : tree.blocks())
    blocks.push_back(b->block()->name);
  return blocks;
}

bool hasBlock(const std::vector<std::string>& blocks, const std::string& name) {
  return std::find(blocks.begin(), blocks.end(), name) != blocks.end();
}

} // namespace

std::optional<std::string> nchwcScheduleScript(const ModelGroup& group, int vectorRegisters) {
  if (!group.fused) return std::nullopt;
  const relay::Node* conv = onlyCall(group, "nn.contrib_conv2d_NCHWc"); // one convolution per group
  if (!conv || conv->type.shape.size() != 5) return std::nullopt;
  const auto blocks = blockNames(group);
  if (!hasBlock(blocks, "conv2d_NCHWc")) return std::nullopt;
  const std::int64_t width = conv->type.shape[3];
  const std::int64_t cap = std::max<std::int64_t>(1, std::min<std::int64_t>(31, vectorRegisters - 2));
  std::int64_t regN = 1;
  for (std::int64_t n = std::min(cap, width); n >= 1; --n)
    if (width % n == 0) {
      regN = n;
      break;
    }

  std::string s = "def apply_trace(sch):\n";
  auto line = [&](const std::string& text) { s += "    " + text + "\n"; };
  if (hasBlock(blocks, "data_pad")) {
    line("pad = sch.get_block(\"data_pad\")");
    line("p0, p1, p2, p3, p4 = sch.get_loops(pad)");
    line("sch.parallel(sch.fuse(p0, p1, p2))");
  }
  line("conv = sch.get_block(\"conv2d_NCHWc\")");
  const std::string& last = blocks.back();
  if (last == "conv2d_NCHWc") {
    line("n, oc_chunk, oh, ow, oc_block, ic_outer, kh, kw, ic_inner = sch.get_loops(conv)");
    line(fmt::format("ow_chunk, ow_block = sch.split(ow, factors=[None, {}])", regN));
    line("sch.reorder(ow_chunk, ic_outer, kh, kw, ic_inner, ow_block, oc_block)");
    line("sch.parallel(sch.fuse(n, oc_chunk, oh))");
  } else {
    // The elementwise tail: every block after the convolution but the last, inlined.
    bool after = false;
    for (std::size_t k = 0; k + 1 < blocks.size(); ++k) {
      if (after) line(fmt::format("sch.compute_inline(sch.get_block(\"{}\"))", blocks[k]));
      after = after || blocks[k] == "conv2d_NCHWc";
    }
    line(fmt::format("out = sch.get_block(\"{}\")", last));
    line("b, c, h, w, cb = sch.get_loops(out)");
    line(fmt::format("w_chunk, w_block = sch.split(w, factors=[None, {}])", regN));
    line("sch.reorder(w_chunk, w_block, cb)");
    line("sch.parallel(sch.fuse(b, c, h))");
    line("sch.vectorize(cb)");
    line("sch.compute_at(conv, w_chunk)");
    // compute_at makes loops for the extents above 1 only: name the ones there are.
    const auto& ws = conv->args[1]->type.shape; // (oc chunks, ic chunks, kh, kw, ic block, oc block)
    const std::pair<const char*, std::int64_t> spatial[] = {{"ow_block", regN}, {"oc_block", ws[5]}};
    const std::pair<const char*, std::int64_t> reduce[] = {
        {"ic_outer", ws[1]}, {"kh", ws[2]}, {"kw", ws[3]}, {"ic_inner", ws[4]}};
    std::string names = "fused, w_chunk_", order, first;
    for (const auto& [name, extent] : spatial)
      if (extent > 1) names += fmt::format(", {}", name);
    for (const auto& [name, extent] : reduce)
      if (extent > 1) {
        names += fmt::format(", {}", name);
        order += fmt::format("{}, ", name);
        if (first.empty()) first = name;
      }
    if (first.empty() || regN == 1) return std::nullopt;
    line(fmt::format("{} = sch.get_loops(conv)", names));
    line(fmt::format("sch.reorder({}ow_block, oc_block)", order));
    line("sch.unroll(ow_block)");
    line("sch.vectorize(oc_block)");
    line(fmt::format("sch.decompose_reduction(conv, {})", first));
    return s;
  }
  line("sch.unroll(ow_block)");
  line("sch.vectorize(oc_block)");
  line("sch.decompose_reduction(conv, ic_outer)");
  return s;
}

namespace {

/// A matmul-like block (`block`, reduction loop k) and its output: `batchLoops` leading
/// loops kept (and fused into the parallel tile), then `rowLoops` row loops (fused), then
/// the column loop, split by `colBlock`; the rows (`rows` in all) split by 8 or the largest
/// power of two below that divides them.
struct MatmulShape {
  std::string block;
  std::size_t batchLoops = 0, rowLoops = 1;
  std::int64_t rows = 1, colBlock = 1;
};

std::string matmulScript(const std::vector<std::string>& blocks, const MatmulShape& m) {
  std::int64_t regM = 8;
  while (m.rows % regM != 0)
    regM /= 2;
  std::string s = "def apply_trace(sch):\n";
  auto line = [&](const std::string& text) { s += "    " + text + "\n"; };
  std::string batch;
  for (std::size_t k = 0; k < m.batchLoops; ++k)
    batch += fmt::format("b{}, ", k);
  // The batch, row and column loops of `block`: rows fused, rows and columns split.
  auto rowsAndColumn = [&](const std::string& block, const std::string& reduce) {
    std::string rows;
    for (std::size_t k = 0; k < m.rowLoops; ++k)
      rows += fmt::format("y{}, ", k);
    line(fmt::format("{}{}x{} = sch.get_loops({})", batch, rows, reduce.empty() ? "" : ", " + reduce, block));
    if (m.rowLoops > 1) {
      rows.resize(rows.size() - 2);
      line(fmt::format("y = sch.fuse({})", rows));
    } else {
      line("y = y0");
    }
    line(fmt::format("y_chunk, y_block = sch.split(y, factors=[None, {}])", regM));
    line(fmt::format("x_chunk, x_block = sch.split(x, factors=[None, {}])", m.colBlock));
  };
  line(fmt::format("mm = sch.get_block(\"{}\")", m.block));
  if (blocks.back() == m.block) {
    rowsAndColumn("mm", "k");
    line("sch.reorder(y_chunk, x_chunk, k, y_block, x_block)");
    line(fmt::format("sch.parallel(sch.fuse({}y_chunk, x_chunk))", batch));
  } else {
    bool after = false;
    for (std::size_t k = 0; k + 1 < blocks.size(); ++k) {
      if (after) line(fmt::format("sch.compute_inline(sch.get_block(\"{}\"))", blocks[k]));
      after = after || blocks[k] == m.block;
    }
    line(fmt::format("out = sch.get_block(\"{}\")", blocks.back()));
    rowsAndColumn("out", "");
    line("sch.reorder(y_chunk, x_chunk, y_block, x_block)");
    line(fmt::format("tile = sch.fuse({}y_chunk, x_chunk)", batch));
    line("sch.parallel(tile)");
    line("sch.vectorize(x_block)");
    line("sch.compute_at(mm, tile)");
    // compute_at makes loops for the extents above 1 only.
    line(fmt::format("tile{}, x_block, k = sch.get_loops(mm)", regM > 1 ? ", y_block" : ""));
    line(regM > 1 ? "sch.reorder(k, y_block, x_block)" : "sch.reorder(k, x_block)");
  }
  if (regM > 1) line("sch.unroll(y_block)");
  line("sch.vectorize(x_block)");
  line("sch.decompose_reduction(mm, k)");
  return s;
}

} // namespace

std::optional<std::string> densePackScheduleScript(const ModelGroup& group) {
  if (!group.fused) return std::nullopt;
  const relay::Node* dense = onlyCall(group, "nn.contrib_dense_pack");
  if (!dense || dense->type.shape.size() < 2 || dense->args[1]->type.shape.size() != 3) return std::nullopt;
  const auto blocks = blockNames(group);
  if (!hasBlock(blocks, "T_dense_pack")) return std::nullopt;
  const auto& shape = dense->type.shape;
  MatmulShape m;
  m.block = "T_dense_pack";
  m.rowLoops = shape.size() - 1;
  for (std::size_t k = 0; k + 1 < shape.size(); ++k)
    m.rows *= shape[k];
  m.colBlock = dense->args[1]->type.shape[2];
  return matmulScript(blocks, m);
}

std::optional<std::string> batchMatmulScheduleScript(const ModelGroup& group, int lanes) {
  if (!group.fused) return std::nullopt;
  const relay::Node* bmm = onlyCall(group, "nn.batch_matmul");
  if (!bmm || bmm->type.shape.size() != 3) return std::nullopt;
  const auto blocks = blockNames(group);
  if (!hasBlock(blocks, "T_batch_matmul_NN")) return std::nullopt;
  const auto& shape = bmm->type.shape;
  MatmulShape m;
  m.block = "T_batch_matmul_NN";
  m.batchLoops = 1;
  m.rows = shape[1];
  m.colBlock = 1;
  for (std::int64_t b = std::min<std::int64_t>(shape[2], 2 * lanes); b > 1; --b)
    if (shape[2] % b == 0) {
      m.colBlock = b;
      break;
    }
  if (m.colBlock == 1) return std::nullopt;
  return matmulScript(blocks, m);
}

std::optional<TemplateScript> x86TemplateScript(const ModelGroup& group, int vectorRegisters, int lanes) {
  if (auto s = nchwcScheduleScript(group, vectorRegisters)) return TemplateScript{"conv2d_NCHWc", std::move(*s)};
  if (auto s = densePackScheduleScript(group)) return TemplateScript{"dense_pack", std::move(*s)};
  if (auto s = batchMatmulScheduleScript(group, lanes)) return TemplateScript{"batch_matmul", std::move(*s)};
  return std::nullopt;
}

} // namespace loopscape::graph
