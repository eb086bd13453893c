#include "core/schedule/primitive/buffer_replace.h"

#include "core/ir/mutator.h"

namespace loopscape::schedule::detail {

namespace {

class BufferReplacer final : public ir::StmtMutator {
public:
  explicit BufferReplacer(const BufferMap& map) : m_map(map) {}

  const ir::Buffer* lookup(const ir::Buffer& b) const {
    auto it = m_map.find(b.get());
    return it == m_map.end() ? nullptr : &it->second;
  }

protected:
  ir::Expr visitBufferLoad(const ir::BufferLoad& op, const ir::Expr& self) override {
    ir::Expr e = ExprMutator::visitBufferLoad(op, self);
    const auto* load = e.as<ir::BufferLoad>();
    if (const auto* nb = lookup(load->buffer)) return ir::BufferLoad::make(*nb, load->indices);
    return e;
  }
  ir::Stmt visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
    ir::Stmt s = StmtMutator::visitBufferStore(op, self);
    const auto* store = s.as<ir::BufferStore>();
    if (const auto* nb = lookup(store->buffer)) return ir::BufferStore::make(*nb, store->value, store->indices);
    return s;
  }
  ir::Stmt visitAllocate(const ir::Allocate& op, const ir::Stmt& self) override {
    ir::Stmt s = StmtMutator::visitAllocate(op, self);
    const auto* alloc = s.as<ir::Allocate>();
    if (const auto* nb = lookup(alloc->buffer)) return ir::Allocate::make(*nb, alloc->body);
    return s;
  }
  ir::Stmt visitBlock(const ir::Block& op, const ir::Stmt& self) override {
    ir::Stmt s = StmtMutator::visitBlock(op, self);
    const auto* b = s.as<ir::Block>();
    bool changed = false;
    auto regions = [&](const std::vector<ir::BufferRegion>& in) {
      std::vector<ir::BufferRegion> out = in;
      for (auto& r : out)
        if (const auto* nb = lookup(r.buffer)) {
          r.buffer = *nb;
          changed = true;
        }
      return out;
    };
    auto reads = regions(b->reads);
    auto writes = regions(b->writes);
    std::vector<ir::Buffer> allocs = b->allocBuffers;
    for (auto& a : allocs)
      if (const auto* nb = lookup(a)) {
        a = *nb;
        changed = true;
      }
    if (!changed) return s;
    return ir::Block::make(b->name, b->iterVars, std::move(reads), std::move(writes), b->body, b->init,
                           std::move(allocs), b->annotations);
  }

private:
  const BufferMap& m_map;
};

} // namespace

ir::Stmt replaceBuffers(const ir::Stmt& s, const BufferMap& map) {
  if (map.empty()) return s;
  BufferReplacer r(map);
  return r.mutate(s);
}

ir::PrimFunc replaceBuffers(const ir::PrimFunc& f, const BufferMap& map) {
  ir::PrimFunc out = f;
  out.body = replaceBuffers(f.body, map);
  for (auto& p : out.params)
    if (auto it = map.find(p.get()); it != map.end()) p = it->second;
  return out;
}

ir::Buffer withNameAndScope(const ir::Buffer& b, std::string name, ir::MemoryScope scope) {
  return ir::makeBuffer(std::move(name), b->dtype, b->shape, scope, b->strides);
}

ir::Buffer withStrides(const ir::Buffer& b, std::vector<ir::Expr> strides) {
  return ir::makeBuffer(b->name, b->dtype, b->shape, b->scope, std::move(strides));
}

} // namespace loopscape::schedule::detail
