#include "core/codegen/lower_gpu.h"

#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

namespace loopscape::codegen {

using namespace ir;

namespace {

const std::string& loopName(const For& f) { return f.loopVar.as<Var>()->name; }

bool isNoOp(const Stmt& s) { return s.is<Evaluate>(); }

/// The block whose statements `s` holds first (its first block marker), or "".
std::string firstBlock(const Stmt& s) {
  std::string name;
  class Finder final : public StmtVisitor {
  public:
    std::string* out;
    void visitEvaluate(const Evaluate& op, const Stmt&) override {
      if (!out->empty()) return;
      if (auto* str = op.value.as<StringImm>()) {
        *out = str->value;
        if (out->ends_with(".init")) out->resize(out->size() - 5);
      }
    }
  } finder;
  finder.out = &name;
  finder(s);
  return name;
}

/// The first ThreadBinding loop inside `s` (pre-order), or null.
const For* firstBound(const Stmt& s) {
  class Finder final : public StmtVisitor {
  public:
    const For* found = nullptr;
    void visitFor(const For& op, const Stmt& self) override {
      if (found) return;
      if (op.forKind == ForKind::ThreadBinding) {
        found = &op;
        return;
      }
      StmtVisitor::visitFor(op, self);
    }
  } finder;
  finder(s);
  return finder.found;
}

Diagnostic located(std::string code, std::string message, IrReference::Kind kind, const std::string& name,
                   const void* identity = nullptr) {
  auto d = Diagnostic::error(std::move(code), std::move(message));
  d.references.push_back({kind, name, identity});
  return d;
}

Diagnostic globalIntermediate(const Buffer& b) {
  auto d = located("codegen.gpu-global-intermediate",
                   fmt::format("buffer '{}' is an intermediate in global memory; a GPU kernel allocates only "
                               "\"shared\" and \"local\" buffers",
                               b->name),
                   IrReference::Kind::Buffer, b->name);
  d.notes.push_back("move it on chip: sch.set_scope(block, 0, \"shared\") or \"local\", or compute it inline");
  return d;
}

/// What one bound tag launches: its extent and the first loop bound to it.
struct TagUse {
  std::int64_t extent = 0;
  const For* loop = nullptr;
};

/// "blockIdx.x" -> (0, dim 0), "threadIdx.z" -> (1, dim 2), "vthread.y" / "vthread" -> (2, ...).
std::optional<std::pair<int, int>> parseTag(const std::string& tag) {
  static const char* const kinds[] = {"blockIdx.", "threadIdx.", "vthread."};
  if (tag == "vthread") return std::pair{2, 0};
  for (int k = 0; k < 3; ++k) {
    const std::string prefix = kinds[k];
    if (tag.size() == prefix.size() + 1 && tag.starts_with(prefix)) {
      const char d = tag.back();
      if (d >= 'x' && d <= 'z') return std::pair{k, d - 'x'};
    }
  }
  return std::nullopt;
}

/// Collects the kernel's tags and checks its bound loops and Allocates.
class KernelScan final : public StmtVisitor {
public:
  std::map<std::string, TagUse> tags;
  std::optional<Diagnostic> error;

protected:
  void visitFor(const For& op, const Stmt& self) override {
    if (error) return;
    if (op.forKind != ForKind::ThreadBinding) {
      StmtVisitor::visitFor(op, self);
      return;
    }
    check(op);
    if (!error) checkNested(op);
    if (error) return;
    m_bound.push_back(&op);
    StmtVisitor::visitFor(op, self);
    m_bound.pop_back();
  }
  void visitAllocate(const Allocate& op, const Stmt& self) override {
    if (error) return;
    if (op.buffer->scope == MemoryScope::Global) {
      error = globalIntermediate(op.buffer);
      return;
    }
    StmtVisitor::visitAllocate(op, self);
  }

private:
  void check(const For& op) {
    const std::string& name = loopName(op);
    const auto parsed = parseTag(op.threadTag);
    if (!parsed) {
      error = located("codegen.gpu-bad-thread-tag",
                      fmt::format("loop '{}' is bound to '{}', which is not a GPU thread axis (blockIdx, threadIdx "
                                  "or vthread with .x, .y or .z)",
                                  name, op.threadTag),
                      IrReference::Kind::Loop, name, &op);
      return;
    }
    auto* extent = op.extent.as<IntImm>();
    if (!extent || !op.min.is<IntImm>()) {
      error = located("codegen.gpu-dynamic-extent",
                      fmt::format("loop '{}' is bound to {} but its range is not constant; a launch needs constant "
                                  "thread extents",
                                  name, op.threadTag),
                      IrReference::Kind::Loop, name, &op);
      return;
    }
    if (extent->value < 1) {
      error = located("codegen.gpu-dynamic-extent",
                      fmt::format("loop '{}' is bound to {} with extent {}; a launch needs at least one thread", name,
                                  op.threadTag, extent->value),
                      IrReference::Kind::Loop, name, &op);
      return;
    }
    if (parsed->first == 2) return; // vthread: a serial loop, no launch extent
    auto [it, inserted] = tags.try_emplace(op.threadTag, TagUse{extent->value, &op});
    if (inserted || it->second.extent == extent->value) return;
    const std::string& other = loopName(*it->second.loop);
    error = located("codegen.gpu-inconsistent-extent",
                    fmt::format("loop '{}' binds {} with extent {}, but loop '{}' binds it with extent {}; every "
                                "loop bound to one thread axis must have the same extent",
                                name, op.threadTag, extent->value, other, it->second.extent),
                    IrReference::Kind::Loop, name, &op);
    error->references.push_back({IrReference::Kind::Loop, other, it->second.loop});
  }

  /// A loop bound inside a loop bound to the same tag is the same thread index on the
  /// GPU, but the serial program runs every pair of them: the same only when the inner
  /// loop does not use the outer one's variable.
  void checkNested(const For& op) {
    for (const For* outer : m_bound) {
      if (outer->threadTag != op.threadTag) continue;
      bool uses = false;
      forEachExpr(op.body, [&](const Expr& e) { uses = uses || e.get() == outer->loopVar.get(); });
      if (!uses) continue;
      const std::string& name = loopName(op);
      const std::string& outerName = loopName(*outer);
      error = located("codegen.gpu-nested-binding",
                      fmt::format("loop '{}' is bound to {} inside loop '{}', which is bound to {} too, and its body "
                                  "uses '{}': on the GPU both are one thread index",
                                  name, op.threadTag, outerName, op.threadTag, outerName),
                      IrReference::Kind::Loop, name, &op);
      error->references.push_back({IrReference::Kind::Loop, outerName, outer});
      error->notes.push_back("compute the inner block at a loop outside '" + outerName +
                             "' (e.g. a shared cache at a loop above the threadIdx loops)");
      return;
    }
  }

  std::vector<const For*> m_bound;
};

Expected<std::int64_t> constantBytes(const Buffer& b, const char* code, const char* scope) {
  std::int64_t elems = 1;
  for (const Expr& e : b->shape) {
    auto* imm = e.as<IntImm>();
    if (!imm)
      return Unexpected(located(
          code, fmt::format("{} buffer '{}' has a symbolic size; on-chip buffers need a constant size", scope, b->name),
          IrReference::Kind::Buffer, b->name));
    // Saturates instead of overflowing: any size past int64 is over every limit.
    if (imm->value < 0 || __builtin_mul_overflow(elems, imm->value, &elems)) elems = INT64_MAX / 16;
  }
  return elems > INT64_MAX / 16 ? INT64_MAX / 16 : elems * b->dtype.bytes();
}

/// Launch and memory limits (GpuLimits).
Expected<void> checkLaunch(const KernelScan& scan, const GpuLimits& limits, GpuKernel& kernel) {
  std::string threadLoops;
  std::vector<IrReference> threadRefs;
  for (const auto& [tag, use] : scan.tags) {
    const auto [kind, dim] = *parseTag(tag);
    const std::string& name = loopName(*use.loop);
    if (kind == 0) {
      kernel.grid[dim] = use.extent;
      if (limits.maxGridDim[dim] > 0 && use.extent > limits.maxGridDim[dim])
        return Unexpected(located("codegen.gpu-grid-limit",
                                  fmt::format("loop '{}' launches {} = {} blocks, over the target's limit of {}", name,
                                              tag, use.extent, limits.maxGridDim[dim]),
                                  IrReference::Kind::Loop, name, use.loop));
      continue;
    }
    kernel.block[dim] = use.extent;
    threadLoops += fmt::format("{}'{}' {} = {}", threadLoops.empty() ? "" : ", ", name, tag, use.extent);
    threadRefs.push_back({IrReference::Kind::Loop, name, use.loop});
    if (limits.maxThreadDim[dim] > 0 && use.extent > limits.maxThreadDim[dim])
      return Unexpected(located("codegen.gpu-thread-limit",
                                fmt::format("loop '{}' binds {} with extent {}, over the target's limit of {}", name,
                                            tag, use.extent, limits.maxThreadDim[dim]),
                                IrReference::Kind::Loop, name, use.loop));
  }
  std::int64_t threads = 1;
  for (std::int64_t e : kernel.block)
    if (__builtin_mul_overflow(threads, e, &threads)) threads = INT64_MAX;
  if (limits.maxThreadsPerBlock > 0 && threads > limits.maxThreadsPerBlock) {
    auto d = Diagnostic::error("codegen.gpu-thread-limit",
                               fmt::format("{} threads per block (loops {}) exceed the target's limit of {}", threads,
                                           threadLoops, limits.maxThreadsPerBlock));
    d.references = std::move(threadRefs);
    return Unexpected(std::move(d));
  }
  return {};
}

/// The on-chip buffers of a flattened kernel body.
class OnChip final : public StmtVisitor {
public:
  std::vector<Buffer> shared, local;

protected:
  void visitAllocate(const Allocate& op, const Stmt& self) override {
    if (op.buffer->scope == MemoryScope::Shared) shared.push_back(op.buffer);
    if (op.buffer->scope == MemoryScope::Local) local.push_back(op.buffer);
    StmtVisitor::visitAllocate(op, self);
  }
};

/// Memory limits (GpuLimits).
Expected<void> checkMemory(const OnChip& scan, const GpuLimits& limits, GpuKernel& kernel) {
  for (const Buffer& b : scan.shared) {
    auto bytes = constantBytes(b, "codegen.gpu-shared-limit", "shared");
    if (!bytes) return Unexpected(bytes.error());
    kernel.sharedBytes = std::min(kernel.sharedBytes + *bytes, INT64_MAX / 2);
    kernel.shared.push_back(b);
  }
  if (limits.maxSharedBytesPerBlock > 0 && kernel.sharedBytes > limits.maxSharedBytesPerBlock) {
    std::string names;
    for (const Buffer& b : scan.shared)
      names += (names.empty() ? "'" : ", '") + b->name + "'";
    auto d = Diagnostic::error("codegen.gpu-shared-limit",
                               fmt::format("shared buffers {} take {} bytes per block, over the target's limit of {}",
                                           names, kernel.sharedBytes, limits.maxSharedBytesPerBlock));
    for (const Buffer& b : scan.shared)
      d.references.push_back({IrReference::Kind::Buffer, b->name});
    d.notes.push_back("a cache under a loop has the whole buffer's shape; cache a smaller region or tile further");
    return Unexpected(std::move(d));
  }
  for (const Buffer& b : scan.local) {
    auto bytes = constantBytes(b, "codegen.gpu-local-limit", "local");
    if (!bytes) return Unexpected(bytes.error());
    kernel.localBytes = std::min(kernel.localBytes + *bytes, INT64_MAX / 2);
  }
  if (limits.maxLocalBytesPerThread > 0 && kernel.localBytes > limits.maxLocalBytesPerThread) {
    std::string names;
    for (const Buffer& b : scan.local)
      names += (names.empty() ? "'" : ", '") + b->name + "'";
    auto d = Diagnostic::error("codegen.gpu-local-limit",
                               fmt::format("local buffers {} take {} bytes per thread, over the target's limit of {}",
                                           names, kernel.localBytes, limits.maxLocalBytesPerThread));
    for (const Buffer& b : scan.local)
      d.references.push_back({IrReference::Kind::Buffer, b->name});
    return Unexpected(std::move(d));
  }
  return {};
}

/// Removes the bound loops (their variables become axes), the shared Allocates, turns
/// vthread loops into Serial loops and guards stores (lowered_func.h).
class KernelRewrite final : public StmtMutator {
public:
  KernelRewrite(GpuKernel& kernel, std::vector<Remark>& remarks) : m_kernel(kernel), m_remarks(remarks) {
    static const char* const names[2][3] = {{"blockIdx.x", "blockIdx.y", "blockIdx.z"},
                                            {"threadIdx.x", "threadIdx.y", "threadIdx.z"}};
    for (int k = 0; k < 2; ++k)
      for (int d = 0; d < 3; ++d) {
        const auto& extents = k == 0 ? kernel.grid : kernel.block;
        if (extents[d] <= 1) continue;
        std::string tag = names[k][d];
        std::string varName = tag;
        varName[varName.find('.')] = '_';
        Expr var = Var::make(varName, DataType::int32());
        m_launched.push_back({tag, var});
        m_kernel.axes.push_back({tag, var, 0});
      }
  }

protected:
  Stmt visitFor(const For& op, const Stmt& self) override {
    if (op.forKind == ForKind::ThreadBinding && parseTag(op.threadTag)->first == 2) {
      m_remarks.push_back({loopName(op), "the vthread loop runs serially in each thread"});
      return For::make(op.loopVar, op.min, op.extent, ForKind::Serial, mutate(op.body), {}, op.annotations);
    }
    if (op.forKind != ForKind::ThreadBinding) return StmtMutator::visitFor(op, self);
    m_enclosing.push_back(op.threadTag);
    Stmt body = mutate(op.body);
    m_enclosing.pop_back();
    // The loop variable is the tag's index (plus the loop's min).
    Expr index;
    for (const auto& [tag, var] : m_launched)
      if (tag == op.threadTag) index = var;
    if (!index.defined()) index = intImm(0); // an extent-1 tag is not launched
    if (index.dtype() != op.loopVar.dtype()) index = Cast::make(op.loopVar.dtype(), index);
    if (op.min.as<IntImm>()->value != 0) index = index + op.min;
    return substitute(body, VarMap{{op.loopVar.get(), index}});
  }
  Stmt visitBufferStore(const BufferStore& op, const Stmt& self) override {
    if (op.buffer->scope == MemoryScope::Local) return self;
    Expr guard;
    for (const auto& [tag, var] : m_launched) {
      if (std::find(m_enclosing.begin(), m_enclosing.end(), tag) != m_enclosing.end()) continue;
      Expr isFirst = var == 0;
      guard = guard.defined() ? (guard && isFirst) : isFirst;
    }
    if (!guard.defined()) return self;
    return IfThenElse::make(guard, self);
  }

private:
  GpuKernel& m_kernel;
  std::vector<Remark>& m_remarks;
  std::vector<std::pair<std::string, Expr>> m_launched;
  std::vector<std::string> m_enclosing;
};

/// Why `s` (the statement left after the top Allocates) is not one kernel.
Diagnostic notOneKernel(const Stmt& s) {
  std::vector<Stmt> parts;
  if (auto* seq = s.as<SeqStmt>())
    for (const Stmt& c : seq->seq) {
      if (!isNoOp(c)) parts.push_back(c);
    }
  else
    parts.push_back(s);
  int kernels = 0;
  std::string names;
  for (const Stmt& p : parts) {
    const For* bound = firstBound(p);
    auto* f = p.as<For>();
    if (f && f->forKind == ForKind::ThreadBinding) {
      ++kernels;
      names += (names.empty() ? "'" : " and '") + loopName(*f) + "'";
      continue;
    }
    const std::string block = firstBlock(p);
    if (bound && f) {
      const std::string& name = loopName(*f);
      auto d = located("codegen.gpu-unbound-loop",
                       fmt::format("loop '{}' of block '{}' is not bound to a GPU thread axis but encloses the bound "
                                   "loop '{}' ({}): the kernel would run inside a host loop",
                                   name, block, loopName(*bound), bound->threadTag),
                       IrReference::Kind::Loop, name, f);
      d.notes.push_back("bind it (sch.bind to blockIdx.* or threadIdx.*) or move it inside the bound loops");
      return d;
    }
    if (!bound) {
      auto d = located("codegen.gpu-no-binding",
                       fmt::format("block '{}' is outside every bound loop: a GPU target runs only code under loops "
                                   "bound to blockIdx/threadIdx",
                                   block),
                       IrReference::Kind::Block, block);
      d.notes.push_back("bind its outer loops (sch.bind), or compute_at it under the kernel's bound loops");
      return d;
    }
    // A bound loop under something other than a loop (an if): the host cannot launch it.
    return located(
        "codegen.gpu-unbound-loop",
        fmt::format("block '{}' has its bound loop '{}' under a condition outside the kernel", block, loopName(*bound)),
        IrReference::Kind::Block, block);
  }
  auto d = Diagnostic::error("codegen.gpu-several-kernels",
                             fmt::format("the program needs {} kernels (loops {} are each bound at the top); a GPU "
                                         "target lowers one kernel per function",
                                         kernels, names));
  d.notes.push_back("compute_at the blocks under one bound loop, or fuse the top loops before binding");
  return d;
}

} // namespace

Expected<GpuLowering> lowerGpuKernel(const Stmt& body, const GpuLimits& limits, std::vector<Remark>& remarks) {
  // 1. Peel the Allocates and no-ops around the kernel.
  std::vector<Buffer> outer;
  Stmt s = body;
  for (;;) {
    if (auto* a = s.as<Allocate>()) {
      if (a->buffer->scope == MemoryScope::Global) return Unexpected(globalIntermediate(a->buffer));
      outer.push_back(a->buffer);
      s = a->body;
      continue;
    }
    if (auto* seq = s.as<SeqStmt>()) {
      std::vector<Stmt> rest;
      for (const Stmt& c : seq->seq)
        if (!isNoOp(c)) rest.push_back(c);
      if (rest.size() == 1) {
        s = rest.front();
        continue;
      }
    }
    break;
  }
  // 2. The kernel is the outermost bound loop.
  auto* root = s.as<For>();
  if (!root || root->forKind != ForKind::ThreadBinding) return Unexpected(notOneKernel(s));

  // 3. Its tags and extents.
  KernelScan scan;
  scan(s);
  if (scan.error) return Unexpected(std::move(*scan.error));
  GpuLowering out;
  if (auto ok = checkLaunch(scan, limits, out.kernel); !ok) return Unexpected(ok.error());

  // 4. The kernel as one thread runs it, inside the on-chip buffers allocated around it.
  KernelRewrite rewrite(out.kernel, remarks);
  out.body = rewrite.mutate(s);
  for (auto it = outer.rbegin(); it != outer.rend(); ++it)
    out.body = Allocate::make(*it, out.body);
  return out;
}

Expected<Stmt> placeOnChipBuffers(const Stmt& body, const GpuLimits& limits, GpuKernel& kernel) {
  OnChip scan;
  scan(body);
  if (auto ok = checkMemory(scan, limits, kernel); !ok) return Unexpected(ok.error());
  class DropShared final : public StmtMutator {
  protected:
    Stmt visitAllocate(const Allocate& op, const Stmt& self) override {
      if (op.buffer->scope == MemoryScope::Shared) return mutate(op.body);
      return StmtMutator::visitAllocate(op, self);
    }
  } drop;
  return drop.mutate(body);
}

} // namespace loopscape::codegen
