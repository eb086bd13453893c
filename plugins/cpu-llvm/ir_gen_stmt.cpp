// Statements, loops, parallel outlining and the module of a LoweredFunc (semantics: ir_gen.h).
#include "ir_gen_detail.h"

#include "core/ir/visitor.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace loopscape::codegen::cpullvm {

using namespace loopscape::ir;

namespace {

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "kernel_" + out;
  return out;
}

/// Variables and buffers a statement refers to (its free names are among them), in
/// order of first use so that the closure layout is deterministic.
class UseCollector final : public StmtVisitor {
public:
  std::vector<const ExprNode*> vars;
  std::vector<const BufferNode*> buffers;

  void visitExpr(const Expr& e) override {
    if (e.kind() == ExprKind::Var) add(vars, e.get());
    if (const auto* load = e.as<BufferLoad>()) add(buffers, load->buffer.get());
    ExprVisitor::visitExpr(e);
  }
  void visitStmt(const Stmt& s) override {
    if (const auto* store = s.as<BufferStore>()) add(buffers, store->buffer.get());
    if (const auto* alloc = s.as<Allocate>())
      for (const Expr& extent : alloc->buffer->shape) visitExpr(extent);
    StmtFunctor<void>::visitStmt(s);
  }

private:
  template <typename T> static void add(std::vector<T>& list, T item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  }
};

} // namespace

std::string kernelSymbol(const LoweredFunc& func) { return sanitize(func.name); }
std::string packedSymbol(const LoweredFunc& func) { return kernelSymbol(func) + "_packed"; }

namespace detail {

void IrGen::stmt(const Stmt& s) {
  if (!s.defined()) return;
  switch (s.kind()) {
  case StmtKind::For: return forLoop(*s.as<For>());
  case StmtKind::BlockRealize:
  case StmtKind::Block: {
    const Block& block = s.kind() == StmtKind::Block ? *s.as<Block>() : s.as<BlockRealize>()->blockNode();
    fail("codegen.unsupported",
         fmt::format("block \"{}\" remains in the lowered function (a LoweredFunc has no blocks)", block.name));
    return;
  }
  case StmtKind::BufferStore: return store(*s.as<BufferStore>());
  case StmtKind::SeqStmt:
    for (const Stmt& child : s.as<SeqStmt>()->seq) stmt(child);
    return;
  case StmtKind::IfThenElse: return ifThenElse(*s.as<IfThenElse>());
  case StmtKind::Evaluate: {
    const Expr& value = s.as<Evaluate>()->value;
    if (!value.is<IntImm>() && !value.is<StringImm>() && !value.is<FloatImm>()) expr(value); // pure: for errors only
    return;
  }
  case StmtKind::Assume: return; // lowering removes assumptions, as TVM's RemoveAssume
  case StmtKind::LetStmt: {
    const auto* let = s.as<LetStmt>();
    llvm::Value* v = expr(let->value);
    v->setName(let->var.as<Var>()->name);
    auto previous = m_scope.vars.find(let->var.get());
    llvm::Value* saved = previous != m_scope.vars.end() ? previous->second : nullptr;
    m_scope.vars[let->var.get()] = v;
    stmt(let->body);
    if (saved) m_scope.vars[let->var.get()] = saved;
    else m_scope.vars.erase(let->var.get());
    return;
  }
  case StmtKind::Allocate: return allocate(*s.as<Allocate>());
  }
  LS_UNREACHABLE("statement kind {}", static_cast<int>(s.kind()));
}

void IrGen::store(const BufferStore& op) {
  llvm::Value* value = expr(op.value);
  int lanes = op.value.dtype().lanes();
  if (op.indices.size() == 1 && op.indices[0].dtype().lanes() > lanes) {
    lanes = op.indices[0].dtype().lanes();
    value = splat(value, lanes);
  }
  bool contiguous = false;
  llvm::Value* ptr = address(op.buffer, op.indices, lanes, contiguous);
  const DataType t = op.buffer->dtype.withLanes(lanes);
  llvm::Value* mem = toMemory(value, t);
  const llvm::Align align(static_cast<std::uint64_t>(op.buffer->dtype.bytes()));
  llvm::Value* tail = tailMask(lanes); // the held lanes past the last stay in registers
  if (lanes == 1 || (contiguous && !tail))
    m_b.CreateAlignedStore(mem, ptr, align);
  else if (contiguous)
    storePieces(mem, memType(op.buffer->dtype), ptr, align, lanes);
  else
    m_b.CreateMaskedScatter(mem, ptr, align, tail);
}

void IrGen::ifThenElse(const IfThenElse& op) {
  llvm::Value* c = expr(op.condition);
  if (!op.condition.dtype().isScalar()) {
    fail("codegen.unsupported", "an if with a vector condition");
    return;
  }
  auto* thenBlock = llvm::BasicBlock::Create(m_ctx, "if.then", m_function);
  auto* merge = llvm::BasicBlock::Create(m_ctx, "if.end", m_function);
  auto* elseBlock = op.elseCase.defined() ? llvm::BasicBlock::Create(m_ctx, "if.else", m_function) : merge;
  m_b.CreateCondBr(c, thenBlock, elseBlock);
  m_b.SetInsertPoint(thenBlock);
  stmt(op.thenCase);
  m_b.CreateBr(merge);
  if (op.elseCase.defined()) {
    m_b.SetInsertPoint(elseBlock);
    stmt(op.elseCase);
    m_b.CreateBr(merge);
  }
  m_b.SetInsertPoint(merge);
}

llvm::AllocaInst* IrGen::entryAlloca(llvm::Type* type, llvm::Value* count, unsigned align, const std::string& name) {
  llvm::BasicBlock& entry = m_function->getEntryBlock();
  llvm::IRBuilder<> b(&entry, entry.begin());
  llvm::AllocaInst* a = b.CreateAlloca(type, count, name);
  a->setAlignment(llvm::Align(align));
  return a;
}

llvm::FunctionCallee IrGen::runtimeFunction(const char* name) {
  llvm::Type* i64 = llvm::Type::getInt64Ty(m_ctx);
  llvm::Type* i32 = llvm::Type::getInt32Ty(m_ctx);
  llvm::Type* ptr = llvm::PointerType::get(m_ctx, 0);
  llvm::Type* voidTy = llvm::Type::getVoidTy(m_ctx);
  const std::string n = name;
  if (n == kParallelForSymbol) return m_module.getOrInsertFunction(n, voidTy, i64, ptr, ptr, i32);
  if (n == "aligned_alloc") return m_module.getOrInsertFunction(n, ptr, i64, i64);
  if (n == "free") return m_module.getOrInsertFunction(n, voidTy, ptr);
  LS_UNREACHABLE("unknown runtime function {}", n);
}

void IrGen::allocate(const Allocate& op) {
  const Buffer& buffer = op.buffer;
  llvm::Type* i64 = llvm::Type::getInt64Ty(m_ctx);
  const std::int64_t elemBytes = buffer->dtype.bytes();
  // Element count: the product of the extents (constant when they all are).
  bool constant = true;
  std::int64_t constCount = 1;
  llvm::Value* count = llvm::ConstantInt::get(i64, 1);
  for (const Expr& extent : buffer->shape) {
    if (auto c = asConstInt(extent)) constCount *= *c;
    else constant = false;
    count = m_b.CreateMul(count, toIndex(expr(extent), extent.dtype()));
  }
  llvm::Value* bytes = m_b.CreateMul(count, llvm::ConstantInt::get(i64, static_cast<std::uint64_t>(elemBytes)));
  llvm::Value* ptr = nullptr;
  llvm::Value* heap = nullptr;
  if (buffer->scope == MemoryScope::Local && constant && constCount * elemBytes <= kMaxStackBytes) {
    ptr = entryAlloca(memType(buffer->dtype), llvm::ConstantInt::get(i64, static_cast<std::uint64_t>(std::max<std::int64_t>(constCount, 1))), 64,
                      buffer->name);
  } else {
    // aligned_alloc needs a size that is a multiple of the alignment (and not zero).
    llvm::Value* rounded = m_b.CreateAnd(m_b.CreateAdd(bytes, llvm::ConstantInt::get(i64, 64)),
                                         llvm::ConstantInt::get(i64, ~std::uint64_t{63}));
    heap = m_b.CreateCall(runtimeFunction("aligned_alloc"), {llvm::ConstantInt::get(i64, 64), rounded}, buffer->name);
    ptr = heap;
  }
  m_b.CreateMemSet(ptr, m_b.getInt8(0), bytes, llvm::MaybeAlign(64));
  auto previous = m_scope.buffers.find(buffer.get());
  llvm::Value* saved = previous != m_scope.buffers.end() ? previous->second : nullptr;
  m_scope.buffers[buffer.get()] = ptr;
  stmt(op.body);
  if (saved) m_scope.buffers[buffer.get()] = saved;
  else m_scope.buffers.erase(buffer.get());
  if (heap) m_b.CreateCall(runtimeFunction("free"), {heap});
}

// ---- loops --------------------------------------------------------------------------

void IrGen::forLoop(const For& op) {
  const std::string& name = op.loopVar.as<Var>()->name;
  switch (op.forKind) {
  case ForKind::ThreadBinding:
    fail("codegen.thread-binding",
         fmt::format("loop '{}' is bound to {}; the cpu-llvm target has no GPU threads", name, op.threadTag), name);
    return;
  case ForKind::Parallel: return parallelLoop(op);
  case ForKind::Serial:
  case ForKind::Vectorized: // lowering leaves a Vectorized loop only where it fell back to scalar code
  case ForKind::Unrolled: break;
  }
  llvm::Value* begin = expr(op.min);
  llvm::Value* extent = expr(op.extent);
  serialLoop(op.loopVar, begin, m_b.CreateAdd(begin, extent), nullptr, op.body);
}

void IrGen::serialLoop(const Expr& loopVar, llvm::Value* begin, llvm::Value* end, llvm::Value* offset, const Stmt& body) {
  const auto* var = loopVar.as<Var>();
  llvm::BasicBlock* pre = m_b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(m_ctx, var->name + ".loop", m_function);
  auto* exit = llvm::BasicBlock::Create(m_ctx, var->name + ".end", m_function);
  m_b.CreateCondBr(m_b.CreateICmpSLT(begin, end), loop, exit);
  m_b.SetInsertPoint(loop);
  llvm::PHINode* iv = m_b.CreatePHI(begin->getType(), 2, var->name + ".iv");
  iv->addIncoming(begin, pre);
  llvm::Value* value = iv;
  if (offset) value = m_b.CreateAdd(offset, m_b.CreateSExtOrTrunc(iv, offset->getType()));
  value->setName(var->name);
  auto previous = m_scope.vars.find(var);
  llvm::Value* saved = previous != m_scope.vars.end() ? previous->second : nullptr;
  m_scope.vars[var] = value;
  stmt(body);
  if (saved) m_scope.vars[var] = saved;
  else m_scope.vars.erase(var);
  // The counter stays below `end`, so the increment cannot overflow (nsw is exact).
  llvm::Value* next = m_b.CreateNSWAdd(iv, llvm::ConstantInt::get(iv->getType(), 1), var->name + ".next");
  iv->addIncoming(next, m_b.GetInsertBlock());
  m_b.CreateCondBr(m_b.CreateICmpSLT(next, end), loop, exit);
  m_b.SetInsertPoint(exit);
}

void IrGen::parallelLoop(const For& op) {
  const auto* var = op.loopVar.as<Var>();
  llvm::Type* i64 = llvm::Type::getInt64Ty(m_ctx);
  llvm::Type* ptrTy = llvm::PointerType::get(m_ctx, 0);
  // 1. What the body uses from the enclosing scope travels in a closure struct.
  UseCollector uses;
  uses.visitStmt(op.body);
  std::vector<std::pair<const ExprNode*, llvm::Value*>> vars;
  std::vector<std::pair<const BufferNode*, llvm::Value*>> buffers;
  for (const ExprNode* v : uses.vars)
    if (auto it = m_scope.vars.find(v); it != m_scope.vars.end() && v != var) vars.emplace_back(v, it->second);
  for (const BufferNode* b : uses.buffers)
    if (auto it = m_scope.buffers.find(b); it != m_scope.buffers.end()) buffers.emplace_back(b, it->second);
  llvm::Value* min = expr(op.min);
  llvm::Value* extent = toIndex(expr(op.extent), op.extent.dtype());
  std::vector<llvm::Type*> fields{min->getType()};
  for (auto& [node, value] : vars) fields.push_back(value->getType());
  for (std::size_t i = 0; i < buffers.size(); ++i) fields.push_back(ptrTy);
  auto* closureType = llvm::StructType::get(m_ctx, fields);
  llvm::AllocaInst* closure = entryAlloca(closureType, nullptr, 8, var->name + ".closure");
  std::vector<llvm::Value*> captured{min};
  for (auto& [node, value] : vars) captured.push_back(value);
  for (auto& [node, value] : buffers) captured.push_back(value);
  for (unsigned i = 0; i < captured.size(); ++i) m_b.CreateStore(captured[i], m_b.CreateStructGEP(closureType, closure, i));

  // 2. The body: an internal function with noalias buffer parameters (so that inlining it
  //    into the trampoline keeps the aliasing facts as scoped metadata).
  const std::string base = fmt::format("{}_{}_par{}", m_function->getName().str(), var->name, m_outlined++);
  std::vector<llvm::Type*> bodyParams{i64, i64};
  for (llvm::Value* v : captured) bodyParams.push_back(v->getType());
  auto* bodyFn = llvm::Function::Create(llvm::FunctionType::get(m_b.getVoidTy(), bodyParams, false),
                                        llvm::Function::InternalLinkage, base + "_body", m_module);
  bodyFn->addFnAttr(llvm::Attribute::NoUnwind);
  bodyFn->addFnAttr(llvm::Attribute::AlwaysInline);
  for (unsigned i = 0; i < buffers.size(); ++i) bodyFn->addParamAttr(2 + 1 + static_cast<unsigned>(vars.size()) + i, llvm::Attribute::NoAlias);

  // 3. The trampoline the runtime calls: void(i64 begin, i64 end, ptr closure).
  auto* trampoline = llvm::Function::Create(llvm::FunctionType::get(m_b.getVoidTy(), {i64, i64, ptrTy}, false),
                                            llvm::Function::InternalLinkage, base, m_module);
  trampoline->addFnAttr(llvm::Attribute::NoUnwind);
  {
    llvm::IRBuilder<> tb(llvm::BasicBlock::Create(m_ctx, "entry", trampoline));
    std::vector<llvm::Value*> args{trampoline->getArg(0), trampoline->getArg(1)};
    for (unsigned i = 0; i < captured.size(); ++i)
      args.push_back(tb.CreateLoad(fields[i], tb.CreateStructGEP(closureType, trampoline->getArg(2), i)));
    tb.CreateCall(bodyFn, args);
    tb.CreateRetVoid();
  }

  // 4. Emit the loop inside the body function with its own scope.
  llvm::IRBuilderBase::InsertPoint savedIp = m_b.saveIP();
  llvm::Function* savedFn = m_function;
  Scope savedScope = std::move(m_scope);
  m_scope = Scope{};
  m_function = bodyFn;
  m_b.SetInsertPoint(llvm::BasicBlock::Create(m_ctx, "entry", bodyFn));
  unsigned arg = 2;
  llvm::Value* bodyMin = bodyFn->getArg(arg++);
  if (asConstInt(op.min)) bodyMin = min; // a constant: known to LLVM, unlike a closure field
  for (auto& [node, value] : vars) m_scope.vars[node] = bodyFn->getArg(arg++);
  for (auto& [node, value] : buffers) m_scope.buffers[node] = bodyFn->getArg(arg++);
  // The runtime hands out chunks 0 <= begin < end <= extent. Saying so with a clamp (a
  // no-op at run time) bounds the loop variable for LLVM, which can then prove that the
  // index arithmetic derived from it does not wrap and fold it into i64 addresses, as it
  // does in a serial loop (without it every access of a weight-like operand paid a
  // 32-bit add and a sign extension: poly_optimize's schedule of the ResNet-18 conv layer
  // ran at 58 GFLOP/s on one thread against 107 with the clamps).
  // With a constant extent the chunk fits the loop variable's type: the loop counts in
  // that type, as a serial loop does, and the clamps are in that type (a clamp before a
  // truncation would tell LLVM nothing about the truncated value).
  llvm::Value* chunkBegin = bodyFn->getArg(0);
  llvm::Value* chunkEnd = bodyFn->getArg(1);
  if (auto constExtent = asConstInt(op.extent)) {
    llvm::Type* varType = regType(op.loopVar.dtype());
    auto clamp = [&](llvm::Value* v) {
      v = m_b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, m_b.CreateTrunc(v, varType),
                                    llvm::ConstantInt::get(varType, 0));
      return m_b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, llvm::ConstantInt::get(varType, *constExtent));
    };
    chunkBegin = clamp(chunkBegin);
    chunkEnd = clamp(chunkEnd);
  }
  serialLoop(op.loopVar, chunkBegin, chunkEnd, bodyMin, op.body);
  m_b.CreateRetVoid();
  m_function = savedFn;
  m_scope = std::move(savedScope);
  m_b.restoreIP(savedIp);

  // 5. The loop itself is one runtime call.
  m_b.CreateCall(runtimeFunction(kParallelForSymbol),
                 {extent, trampoline, closure, m_b.getInt32(static_cast<std::uint32_t>(std::max(m_options.threads, 0)))});
}

// ---- the kernel ---------------------------------------------------------------------

std::optional<Diagnostic> IrGen::emitKernel(const LoweredFunc& func) {
  llvm::Type* ptrTy = llvm::PointerType::get(m_ctx, 0);
  llvm::Type* i64 = m_b.getInt64Ty();
  if (func.flatParams.size() != func.params.size() && !func.flatParams.empty())
    fail("codegen.unsupported", "flatParams and params differ in length");
  const std::size_t nBuffers = func.params.size();
  std::vector<llvm::Type*> params(nBuffers, ptrTy);
  params.insert(params.end(), func.sizeVars.size(), i64);
  auto* kernel = llvm::Function::Create(llvm::FunctionType::get(m_b.getVoidTy(), params, false),
                                        llvm::Function::ExternalLinkage, kernelSymbol(func), m_module);
  kernel->addFnAttr(llvm::Attribute::NoUnwind);
  m_function = kernel;
  m_b.SetInsertPoint(llvm::BasicBlock::Create(m_ctx, "entry", kernel));
  for (std::size_t i = 0; i < nBuffers; ++i) {
    llvm::Argument* a = kernel->getArg(static_cast<unsigned>(i));
    a->setName(func.params[i]->name);
    kernel->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
    m_scope.buffers[func.params[i].get()] = a;
    if (i < func.flatParams.size()) m_scope.buffers[func.flatParams[i].get()] = a;
  }
  for (std::size_t j = 0; j < func.sizeVars.size(); ++j) {
    const Expr& v = func.sizeVars[j];
    llvm::Argument* a = kernel->getArg(static_cast<unsigned>(nBuffers + j));
    const auto* var = v.as<Var>();
    if (!var || !v.dtype().isInteger()) {
      fail("codegen.unsupported", "a size parameter that is not an integer Var");
      continue;
    }
    a->setName(var->name);
    m_scope.vars[v.get()] = m_b.CreateTrunc(a, regType(v.dtype()));
  }
  stmt(func.body);
  m_b.CreateRetVoid();

  // The packed entry: void <name>_packed(ptr buffers, ptr sizes).
  auto* packed = llvm::Function::Create(llvm::FunctionType::get(m_b.getVoidTy(), {ptrTy, ptrTy}, false),
                                        llvm::Function::ExternalLinkage, packedSymbol(func), m_module);
  packed->addFnAttr(llvm::Attribute::NoUnwind);
  {
    llvm::IRBuilder<> pb(llvm::BasicBlock::Create(m_ctx, "entry", packed));
    std::vector<llvm::Value*> args;
    for (std::size_t i = 0; i < nBuffers; ++i)
      args.push_back(pb.CreateLoad(ptrTy, pb.CreateConstInBoundsGEP1_64(ptrTy, packed->getArg(0), i)));
    for (std::size_t j = 0; j < func.sizeVars.size(); ++j)
      args.push_back(pb.CreateLoad(i64, pb.CreateConstInBoundsGEP1_64(i64, packed->getArg(1), j)));
    pb.CreateCall(kernel, args);
    pb.CreateRetVoid();
  }

  // Host attributes on every function; 512-bit vectors need min-legal-vector-width, or
  // the X86 backend (which prefers 256-bit vectors on AVX-512 CPUs) splits them.
  for (llvm::Function& f : m_module) {
    if (f.isDeclaration()) continue;
    if (!m_options.cpu.empty()) f.addFnAttr("target-cpu", m_options.cpu);
    if (!m_options.features.empty()) f.addFnAttr("target-features", m_options.features);
    if (m_maxVectorBits > 0) f.addFnAttr("min-legal-vector-width", std::to_string(m_maxVectorBits));
    if (m_options.preferVectorBits > 0) f.addFnAttr("prefer-vector-width", std::to_string(m_options.preferVectorBits));
    if (m_options.fastMath) {
      f.addFnAttr("unsafe-fp-math", "true");
      f.addFnAttr("no-nans-fp-math", "true");
      f.addFnAttr("no-infs-fp-math", "true");
      f.addFnAttr("no-signed-zeros-fp-math", "true");
    }
  }
  return m_error;
}

} // namespace detail

Expected<std::unique_ptr<llvm::Module>> generateModule(const LoweredFunc& func, const GenOptions& options,
                                                       llvm::LLVMContext& context) {
  auto module = std::make_unique<llvm::Module>(kernelSymbol(func), context);
  detail::IrGen gen(*module, options);
  if (auto error = gen.emitKernel(func)) return Unexpected(std::move(*error));
  std::string message;
  llvm::raw_string_ostream os(message);
  if (llvm::verifyModule(*module, &os)) {
    os.flush();
    return Unexpected(Diagnostic::error("codegen.invalid-ir", "cpu-llvm produced invalid LLVM IR: " + message));
  }
  return module;
}

} // namespace loopscape::codegen::cpullvm
