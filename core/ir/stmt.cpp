#include "core/ir/stmt.h"

namespace loopscape::ir {

const char* stmtKindName(StmtKind kind) {
  switch (kind) {
#define LS_X(name)                                                                        \
  case StmtKind::name: return #name;
    LS_STMT_KINDS(LS_X)
#undef LS_X
  }
  LS_UNREACHABLE("bad StmtKind");
}

const char* forKindName(ForKind kind) {
  switch (kind) {
  case ForKind::Serial: return "serial";
  case ForKind::Parallel: return "parallel";
  case ForKind::Vectorized: return "vectorized";
  case ForKind::Unrolled: return "unroll";
  case ForKind::ThreadBinding: return "thread_binding";
  }
  LS_UNREACHABLE("bad ForKind");
}

const char* iterKindName(IterKind kind) {
  switch (kind) {
  case IterKind::Spatial: return "spatial";
  case IterKind::Reduce: return "reduce";
  case IterKind::Scan: return "scan";
  case IterKind::Opaque: return "opaque";
  }
  LS_UNREACHABLE("bad IterKind");
}

Stmt For::make(Expr loopVar, Expr min, Expr extent, ForKind forKind, Stmt body, std::string threadTag,
               Annotations annotations) {
  LS_ASSERT(loopVar.is<Var>(), "For loop variable must be a Var");
  LS_ASSERT(min.defined() && min.dtype() == loopVar.dtype(), "For min type differs from its variable");
  LS_ASSERT(extent.defined() && extent.dtype() == loopVar.dtype(), "For extent type differs from its variable");
  LS_ASSERT(body.defined(), "For without a body");
  LS_ASSERT((forKind == ForKind::ThreadBinding) == !threadTag.empty(), "thread tag iff thread binding");
  auto node = std::make_shared<For>();
  node->loopVar = std::move(loopVar);
  node->min = std::move(min);
  node->extent = std::move(extent);
  node->forKind = forKind;
  node->threadTag = std::move(threadTag);
  node->body = std::move(body);
  node->annotations = std::move(annotations);
  return Stmt(std::move(node));
}

Stmt Block::make(std::string name, std::vector<IterVar> iterVars, std::vector<BufferRegion> reads,
                 std::vector<BufferRegion> writes, Stmt body, Stmt init, std::vector<Buffer> allocBuffers,
                 Annotations annotations) {
  LS_ASSERT(!name.empty(), "Block needs a name");
  LS_ASSERT(body.defined(), "Block {} without a body", name);
  for (const auto& iv : iterVars) LS_ASSERT(iv.var.is<Var>(), "Block {} iterator is not a Var", name);
  for (const auto* regions : {&reads, &writes})
    for (const auto& r : *regions)
      LS_ASSERT(r.buffer.defined() && r.region.size() == r.buffer->ndim(), "Block {}: region rank mismatch", name);
  auto node = std::make_shared<Block>();
  node->name = std::move(name);
  node->iterVars = std::move(iterVars);
  node->reads = std::move(reads);
  node->writes = std::move(writes);
  node->allocBuffers = std::move(allocBuffers);
  node->init = std::move(init);
  node->body = std::move(body);
  node->annotations = std::move(annotations);
  return Stmt(std::move(node));
}

Stmt BlockRealize::make(std::vector<Expr> iterValues, Expr predicate, Stmt block) {
  const auto* b = block.as<Block>();
  LS_ASSERT(b, "BlockRealize must realize a Block");
  LS_ASSERT(iterValues.size() == b->iterVars.size(), "BlockRealize of {}: {} values for {} iterators", b->name,
            iterValues.size(), b->iterVars.size());
  for (std::size_t i = 0; i < iterValues.size(); ++i)
    LS_ASSERT(iterValues[i].defined() && iterValues[i].dtype() == b->iterVars[i].var.dtype(),
              "BlockRealize of {}: binding {} has the wrong type", b->name, i);
  if (!predicate.defined()) predicate = boolImm(true);
  LS_ASSERT(predicate.dtype().isBool(), "BlockRealize predicate must be bool");
  auto node = std::make_shared<BlockRealize>();
  node->iterValues = std::move(iterValues);
  node->predicate = std::move(predicate);
  node->block = std::move(block);
  return Stmt(std::move(node));
}

Stmt BufferStore::make(Buffer buffer, Expr value, std::vector<Expr> indices) {
  LS_ASSERT(buffer.defined(), "BufferStore to an undefined buffer");
  LS_ASSERT(indices.size() == buffer->ndim(), "BufferStore to {} with {} indices, buffer has {} dims", buffer->name,
            indices.size(), buffer->ndim());
  LS_ASSERT(value.defined() && value.dtype().element() == buffer->dtype,
            "BufferStore of {} into {} of {}", value.defined() ? value.dtype().str() : "undefined", buffer->name,
            buffer->dtype.str());
  auto node = std::make_shared<BufferStore>();
  node->buffer = std::move(buffer);
  node->value = std::move(value);
  node->indices = std::move(indices);
  return Stmt(std::move(node));
}

Stmt SeqStmt::make(std::vector<Stmt> seq) {
  std::vector<Stmt> flat;
  for (auto& s : seq) {
    LS_ASSERT(s.defined(), "SeqStmt with an undefined statement");
    if (const auto* inner = s.as<SeqStmt>())
      flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
    else
      flat.push_back(std::move(s));
  }
  LS_ASSERT(!flat.empty(), "empty SeqStmt");
  if (flat.size() == 1) return flat.front();
  auto node = std::make_shared<SeqStmt>();
  node->seq = std::move(flat);
  return Stmt(std::move(node));
}

Stmt IfThenElse::make(Expr condition, Stmt thenCase, Stmt elseCase) {
  LS_ASSERT(condition.defined() && condition.dtype().isBool(), "IfThenElse condition must be bool");
  LS_ASSERT(thenCase.defined(), "IfThenElse without a then-branch");
  auto node = std::make_shared<IfThenElse>();
  node->condition = std::move(condition);
  node->thenCase = std::move(thenCase);
  node->elseCase = std::move(elseCase);
  return Stmt(std::move(node));
}

Stmt Assume::make(Expr condition) {
  LS_ASSERT(condition.defined() && condition.dtype().isBool() && condition.dtype().isScalar(),
            "Assume condition must be a scalar bool");
  auto node = std::make_shared<Assume>();
  node->condition = std::move(condition);
  return Stmt(std::move(node));
}

Stmt Evaluate::make(Expr value) {
  LS_ASSERT(value.defined(), "Evaluate of an undefined value");
  auto node = std::make_shared<Evaluate>();
  node->value = std::move(value);
  return Stmt(std::move(node));
}

Stmt LetStmt::make(Expr var, Expr value, Stmt body) {
  LS_ASSERT(var.is<Var>(), "LetStmt binds a Var");
  LS_ASSERT(value.defined() && value.dtype() == var.dtype(), "LetStmt value type differs from its variable");
  LS_ASSERT(body.defined(), "LetStmt without a body");
  auto node = std::make_shared<LetStmt>();
  node->var = std::move(var);
  node->value = std::move(value);
  node->body = std::move(body);
  return Stmt(std::move(node));
}

Stmt Allocate::make(Buffer buffer, Stmt body) {
  LS_ASSERT(buffer.defined() && body.defined(), "bad Allocate");
  auto node = std::make_shared<Allocate>();
  node->buffer = std::move(buffer);
  node->body = std::move(body);
  return Stmt(std::move(node));
}

} // namespace loopscape::ir
