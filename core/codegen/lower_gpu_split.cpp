#include "core/codegen/lower_gpu_split.h"

#include "core/ir/op.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <set>

namespace loopscape::codegen {

using namespace ir;

namespace {

bool isBoundLoop(const Stmt& s) {
  auto* f = s.as<For>();
  return f && f->forKind == ForKind::ThreadBinding &&
         (f->threadTag.starts_with("blockIdx.") || f->threadTag.starts_with("threadIdx."));
}

/// The buffers `s` loads, stores, or names in a block's regions.
std::set<const BufferNode*> buffersUsed(const Stmt& s) {
  class Collect final : public StmtVisitor {
  public:
    std::set<const BufferNode*> used;

  protected:
    void visitBufferLoad(const BufferLoad& op, const Expr& self) override {
      used.insert(op.buffer.get());
      StmtVisitor::visitBufferLoad(op, self);
    }
    void visitBufferStore(const BufferStore& op, const Stmt& self) override {
      used.insert(op.buffer.get());
      StmtVisitor::visitBufferStore(op, self);
    }
    void visitBlock(const Block& op, const Stmt& self) override {
      for (const auto& r : op.reads)
        used.insert(r.buffer.get());
      for (const auto& w : op.writes)
        used.insert(w.buffer.get());
      StmtVisitor::visitBlock(op, self);
    }
  } collect;
  collect(s);
  return collect.used;
}

} // namespace

Expected<std::vector<PrimFunc>> splitGpuKernels(const PrimFunc& func) {
  auto* realize = func.body.as<BlockRealize>();
  if (!realize) return std::vector<PrimFunc>{func};
  const Block& root = realize->blockNode();
  auto* seq = root.body.as<SeqStmt>();
  if (!seq) return std::vector<PrimFunc>{func};
  std::vector<Stmt> parts;
  for (const Stmt& s : seq->seq) {
    if (s.is<Evaluate>()) continue;
    if (!isBoundLoop(s)) return std::vector<PrimFunc>{func};
    parts.push_back(s);
  }
  if (parts.size() < 2) return std::vector<PrimFunc>{func};

  // Each intermediate goes with the one kernel that uses it.
  std::vector<std::set<const BufferNode*>> used;
  for (const Stmt& p : parts)
    used.push_back(buffersUsed(p));
  std::vector<std::vector<Buffer>> allocs(parts.size());
  for (const Buffer& b : root.allocBuffers) {
    int owner = -1;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (!used[i].contains(b.get())) continue;
      if (owner < 0) {
        owner = int(i);
        continue;
      }
      const std::string& first = parts[owner].as<For>()->loopVar.as<Var>()->name;
      const std::string& second = parts[i].as<For>()->loopVar.as<Var>()->name;
      auto d = Diagnostic::error(
          "codegen.gpu-buffer-across-kernels",
          fmt::format("buffer '{}' (\"{}\") is used by kernel {} (loop '{}') and kernel {} (loop '{}'): a buffer does "
                      "not outlive its kernel, and a GPU target allocates no global intermediates",
                      b->name, memoryScopeName(b->scope), owner + 1, first, i + 1, second));
      d.references.push_back({IrReference::Kind::Buffer, b->name, nullptr});
      d.references.push_back({IrReference::Kind::Loop, first, parts[owner].get()});
      d.references.push_back({IrReference::Kind::Loop, second, parts[i].get()});
      d.notes.push_back("compute the blocks that share it under one bound loop (compute_at), so that one kernel "
                        "holds them");
      return Unexpected(std::move(d));
    }
    if (owner >= 0) allocs[owner].push_back(b);
  }
  std::vector<PrimFunc> out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    PrimFunc f = func;
    Stmt block = Block::make(root.name, root.iterVars, root.reads, root.writes, parts[i], root.init, allocs[i],
                             root.annotations);
    f.body = BlockRealize::make(realize->iterValues, realize->predicate, block);
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace loopscape::codegen
