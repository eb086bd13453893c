// Expressions of a LoweredFunc as LLVM values (semantics: ir_gen.h).
#include "ir_gen_detail.h"

#include "core/ir/visitor.h"

#include <llvm/IR/Intrinsics.h>

#include <fmt/format.h>

#include <bit>

namespace loopscape::codegen::cpullvm::detail {

using namespace loopscape::ir;

namespace {

/// True when evaluating `e` may trap (a load that the interpreter would not perform, an
/// integer division by a non-constant divisor), so that it must stay behind a branch.
bool mayTrap(const Expr& e) {
  bool trap = false;
  forEachExpr(e, [&](const Expr& x) { trap = trap || x.is<BufferLoad>() || variableIntegerDivisor(x); });
  return trap;
}

} // namespace

IrGen::IrGen(llvm::Module& module, const GenOptions& options)
    : m_module(module), m_ctx(module.getContext()), m_options(options), m_b(module.getContext()) {
  if (options.fastMath) {
    llvm::FastMathFlags fmf;
    fmf.setFast();
    m_b.setFastMathFlags(fmf);
  }
}

void IrGen::fail(std::string code, std::string message, std::string loop) {
  if (m_error) return;
  Diagnostic d = Diagnostic::error(std::move(code), std::move(message));
  if (!loop.empty()) d.references.push_back({IrReference::Kind::Loop, std::move(loop)});
  m_error = std::move(d);
}

llvm::Type* IrGen::regType(DataType t) {
  llvm::Type* scalar = nullptr;
  switch (t.code()) {
  case DataType::Code::Bool: scalar = llvm::Type::getInt1Ty(m_ctx); break;
  case DataType::Code::Int:
  case DataType::Code::UInt: scalar = llvm::Type::getIntNTy(m_ctx, static_cast<unsigned>(t.bits())); break;
  case DataType::Code::Float:
    scalar = t.bits() == 16   ? llvm::Type::getHalfTy(m_ctx)
             : t.bits() == 64 ? llvm::Type::getDoubleTy(m_ctx)
                              : llvm::Type::getFloatTy(m_ctx);
    break;
  }
  if (t.lanes() == 1) return scalar;
  const int lanes = heldLanes(t.lanes());
  m_maxVectorBits = std::max(m_maxVectorBits, static_cast<unsigned>(lanes * (t.isBool() ? 8 : t.bits())));
  return llvm::FixedVectorType::get(scalar, static_cast<unsigned>(lanes));
}

llvm::Value* IrGen::tailMask(int lanes) {
  const int held = heldLanes(lanes);
  if (held == lanes) return nullptr;
  std::vector<llvm::Constant*> bits;
  for (int i = 0; i < held; ++i)
    bits.push_back(llvm::ConstantInt::getBool(m_ctx, i < lanes));
  return llvm::ConstantVector::get(bits);
}

int IrGen::heldLanes(int lanes) const {
  const int registerBits = m_options.preferVectorBits > 0 ? m_options.preferVectorBits : 128;
  if (lanes <= 1 || std::has_single_bit(static_cast<unsigned>(lanes)) || lanes * 32 <= registerBits) return lanes;
  return static_cast<int>(std::bit_ceil(static_cast<unsigned>(lanes)));
}

llvm::Value* IrGen::memoryMask(int lanes) {
  llvm::Value* tail = tailMask(lanes);
  if (!tail) return m_laneMask;
  if (!m_laneMask) return tail;
  // A select, not an and: the held lanes past the last are poison (loadPieces), and so may
  // be a branch's mask there; `and` would keep the poison, a select takes false.
  return m_b.CreateSelect(tail, m_laneMask, llvm::Constant::getNullValue(m_laneMask->getType()));
}

llvm::Type* IrGen::memType(DataType t) {
  if (t.isBool()) return llvm::Type::getInt8Ty(m_ctx);
  return regType(t.element());
}

llvm::Value* IrGen::placeholder(DataType t) { return llvm::PoisonValue::get(regType(t)); }

llvm::Value* IrGen::splat(llvm::Value* v, int lanes) {
  if (lanes <= 1 || v->getType()->isVectorTy()) return v;
  return m_b.CreateVectorSplat(static_cast<unsigned>(heldLanes(lanes)), v);
}

llvm::Value* IrGen::toIndex(llvm::Value* v, DataType t) {
  llvm::Type* i64 = llvm::Type::getInt64Ty(m_ctx);
  llvm::Type* to = t.lanes() > 1 ? llvm::FixedVectorType::get(i64, static_cast<unsigned>(heldLanes(t.lanes()))) : i64;
  if (t.bits() == 64 && !t.isBool()) return v;
  return t.isInt() ? m_b.CreateSExt(v, to) : m_b.CreateZExt(v, to);
}

llvm::Value* IrGen::toMemory(llvm::Value* v, DataType t) {
  if (!t.isBool()) return v;
  llvm::Type* i8 = llvm::Type::getInt8Ty(m_ctx);
  return m_b.CreateZExt(v, t.lanes() > 1 ? llvm::FixedVectorType::get(i8, static_cast<unsigned>(heldLanes(t.lanes())))
                                         : i8);
}

llvm::Value* IrGen::fromMemory(llvm::Value* v, DataType t) {
  if (!t.isBool()) return v;
  return m_b.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
}

// ---- dispatch -------------------------------------------------------------------------

llvm::Value* IrGen::expr(const Expr& e) {
  if (!e.defined()) {
    fail("codegen.unsupported", "an undefined expression");
    return llvm::PoisonValue::get(llvm::Type::getInt32Ty(m_ctx));
  }
  switch (e.kind()) {
  case ExprKind::IntImm: return llvm::ConstantInt::get(regType(e.dtype()), static_cast<std::uint64_t>(e.as<IntImm>()->value), true);
  case ExprKind::FloatImm: return llvm::ConstantFP::get(regType(e.dtype()), e.as<FloatImm>()->value);
  case ExprKind::StringImm:
    fail("codegen.unsupported", fmt::format("a string \"{}\" used as a value", e.as<StringImm>()->value));
    return llvm::PoisonValue::get(llvm::Type::getInt32Ty(m_ctx));
  case ExprKind::Var: {
    auto it = m_scope.vars.find(e.get());
    if (it != m_scope.vars.end()) return it->second;
    fail("codegen.unbound", fmt::format("variable '{}' is used outside its scope", e.as<Var>()->name));
    return placeholder(e.dtype());
  }
#define LS_X(name) case ExprKind::name:
    LS_ARITH_BINARY_KINDS(LS_X) LS_COMPARE_KINDS(LS_X)
#undef LS_X
    return binary(e);
  case ExprKind::And:
  case ExprKind::Or: return logical(e);
  case ExprKind::Not: return m_b.CreateNot(expr(e.as<Not>()->a));
  case ExprKind::Select: return select(*e.as<Select>(), e);
  case ExprKind::Cast: return cast(e.dtype(), e.as<Cast>()->value);
  case ExprKind::Call: return call(*e.as<Call>());
  case ExprKind::BufferLoad: return load(*e.as<BufferLoad>());
  case ExprKind::Ramp: {
    const auto* r = e.as<Ramp>();
    llvm::Value* base = expr(r->base);
    llvm::Value* stride = expr(r->stride);
    std::vector<llvm::Constant*> steps;
    for (int i = 0; i < heldLanes(r->lanes); ++i)
      steps.push_back(llvm::ConstantInt::get(base->getType(), static_cast<std::uint64_t>(i)));
    llvm::Value* offsets = m_b.CreateMul(splat(stride, r->lanes), llvm::ConstantVector::get(steps));
    return m_b.CreateAdd(splat(base, r->lanes), offsets);
  }
  case ExprKind::Broadcast: {
    const auto* b = e.as<Broadcast>();
    regType(e.dtype()); // records the vector width
    return splat(expr(b->value), b->lanes);
  }
  }
  LS_UNREACHABLE("expression kind {}", static_cast<int>(e.kind()));
}

// ---- arithmetic ---------------------------------------------------------------------

llvm::Value* IrGen::binary(const Expr& e) {
  Expr a, b;
  switch (e.kind()) {
#define LS_X(name)                                                                        \
  case ExprKind::name:                                                                    \
    a = e.as<name>()->a;                                                                  \
    b = e.as<name>()->b;                                                                  \
    break;
    LS_BINARY_KINDS(LS_X)
#undef LS_X
  default: LS_UNREACHABLE("not a binary node");
  }
  llvm::Value* x = expr(a);
  llvm::Value* y = expr(b);
  switch (e.kind()) {
#define LS_X(name) case ExprKind::name:
    LS_COMPARE_KINDS(LS_X)
#undef LS_X
    return compare(e.kind(), a.dtype(), x, y);
  default: break;
  }
  if (e.dtype().isFloat()) return floatBinary(e.kind(), x, y);
  return intBinary(e.kind(), e.dtype(), x, y);
}

llvm::Value* IrGen::intBinary(ExprKind kind, DataType t, llvm::Value* a, llvm::Value* b) {
  llvm::Type* type = a->getType();
  if (t.isBool()) { // results are (integer result) != 0
    switch (kind) {
    case ExprKind::Add: case ExprKind::Max: return m_b.CreateOr(a, b);
    case ExprKind::Sub: return m_b.CreateXor(a, b);
    case ExprKind::Mul: case ExprKind::Min: return m_b.CreateAnd(a, b);
    case ExprKind::Div: case ExprKind::FloorDiv: return a; // the divisor is 1 (0 is an error)
    case ExprKind::FloorMod: return llvm::Constant::getNullValue(type);
    default: LS_UNREACHABLE("not arithmetic");
    }
  }
  const bool isSigned = t.isInt();
  switch (kind) {
  case ExprKind::Add: return m_b.CreateAdd(a, b);
  case ExprKind::Sub: return m_b.CreateSub(a, b);
  case ExprKind::Mul: return m_b.CreateMul(a, b);
  case ExprKind::Min: return m_b.CreateSelect(isSigned ? m_b.CreateICmpSLT(a, b) : m_b.CreateICmpULT(a, b), a, b);
  case ExprKind::Max: return m_b.CreateSelect(isSigned ? m_b.CreateICmpSGT(a, b) : m_b.CreateICmpUGT(a, b), a, b);
  case ExprKind::Div:
  case ExprKind::FloorDiv:
  case ExprKind::FloorMod: break;
  default: LS_UNREACHABLE("not arithmetic");
  }
  if (llvm::Value* tail = tailMask(t.lanes())) // the held lanes past the last divide by 1, not by what they hold
    b = m_b.CreateSelect(tail, b, llvm::ConstantInt::get(type, 1));
  if (!isSigned) return kind == ExprKind::FloorMod ? m_b.CreateURem(a, b) : m_b.CreateUDiv(a, b);
  // Signed: x / -1 is the wrapped negation (floormod 0), without the INT_MIN / -1 trap.
  llvm::Value* zero = llvm::Constant::getNullValue(type);
  llvm::Value* one = llvm::ConstantInt::get(type, 1);
  llvm::Value* isMinusOne = m_b.CreateICmpEQ(b, llvm::Constant::getAllOnesValue(type));
  llvm::Value* divisor = m_b.CreateSelect(isMinusOne, one, b);
  llvm::Value* q = m_b.CreateSDiv(a, divisor);
  if (kind == ExprKind::Div) return m_b.CreateSelect(isMinusOne, m_b.CreateSub(zero, a), q);
  llvm::Value* r = m_b.CreateSRem(a, divisor);
  // Round toward -inf: adjust when the remainder is non-zero and its sign differs from the divisor's.
  llvm::Value* adjust = m_b.CreateAnd(m_b.CreateICmpNE(r, zero), m_b.CreateICmpSLT(m_b.CreateXor(r, divisor), zero));
  if (kind == ExprKind::FloorDiv)
    return m_b.CreateSelect(isMinusOne, m_b.CreateSub(zero, a), m_b.CreateSub(q, m_b.CreateZExt(adjust, type)));
  llvm::Value* fixed = m_b.CreateAdd(r, m_b.CreateSelect(adjust, divisor, zero));
  return m_b.CreateSelect(isMinusOne, zero, fixed);
}

llvm::Value* IrGen::floatBinary(ExprKind kind, llvm::Value* a, llvm::Value* b) {
  switch (kind) {
  case ExprKind::Add: return m_b.CreateFAdd(a, b);
  case ExprKind::Sub: return m_b.CreateFSub(a, b);
  case ExprKind::Mul: return m_b.CreateFMul(a, b);
  case ExprKind::Div: return m_b.CreateFDiv(a, b);
  case ExprKind::Min: return m_b.CreateSelect(m_b.CreateFCmpOLT(a, b), a, b);
  case ExprKind::Max: return m_b.CreateSelect(m_b.CreateFCmpOGT(a, b), a, b);
  case ExprKind::FloorDiv: return m_b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, m_b.CreateFDiv(a, b));
  case ExprKind::FloorMod: {
    llvm::Value* q = m_b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, m_b.CreateFDiv(a, b));
    return m_b.CreateFSub(a, m_b.CreateFMul(q, b));
  }
  default: LS_UNREACHABLE("not arithmetic");
  }
}

llvm::Value* IrGen::compare(ExprKind kind, DataType t, llvm::Value* a, llvm::Value* b) {
  if (t.isFloat()) {
    switch (kind) {
    case ExprKind::EQ: return m_b.CreateFCmpOEQ(a, b);
    case ExprKind::NE: return m_b.CreateFCmpUNE(a, b);
    case ExprKind::LT: return m_b.CreateFCmpOLT(a, b);
    case ExprKind::LE: return m_b.CreateFCmpOLE(a, b);
    case ExprKind::GT: return m_b.CreateFCmpOGT(a, b);
    case ExprKind::GE: return m_b.CreateFCmpOGE(a, b);
    default: LS_UNREACHABLE("not a comparison");
    }
  }
  const bool s = t.isInt();
  switch (kind) {
  case ExprKind::EQ: return m_b.CreateICmpEQ(a, b);
  case ExprKind::NE: return m_b.CreateICmpNE(a, b);
  case ExprKind::LT: return s ? m_b.CreateICmpSLT(a, b) : m_b.CreateICmpULT(a, b);
  case ExprKind::LE: return s ? m_b.CreateICmpSLE(a, b) : m_b.CreateICmpULE(a, b);
  case ExprKind::GT: return s ? m_b.CreateICmpSGT(a, b) : m_b.CreateICmpUGT(a, b);
  case ExprKind::GE: return s ? m_b.CreateICmpSGE(a, b) : m_b.CreateICmpUGE(a, b);
  default: LS_UNREACHABLE("not a comparison");
  }
}

llvm::Value* IrGen::guarded(llvm::Value* cond, const Expr& e, llvm::Value* otherwise, bool whenTrue) {
  llvm::BasicBlock* from = m_b.GetInsertBlock();
  auto* then = llvm::BasicBlock::Create(m_ctx, "guard.then", m_function);
  auto* merge = llvm::BasicBlock::Create(m_ctx, "guard.end", m_function);
  if (whenTrue) m_b.CreateCondBr(cond, then, merge);
  else m_b.CreateCondBr(cond, merge, then);
  m_b.SetInsertPoint(then);
  llvm::Value* v = expr(e);
  llvm::BasicBlock* thenEnd = m_b.GetInsertBlock();
  m_b.CreateBr(merge);
  m_b.SetInsertPoint(merge);
  llvm::PHINode* phi = m_b.CreatePHI(v->getType(), 2);
  phi->addIncoming(v, thenEnd);
  phi->addIncoming(otherwise, from);
  return phi;
}

llvm::Value* IrGen::logical(const Expr& e) {
  const bool isAnd = e.kind() == ExprKind::And;
  const Expr& a = isAnd ? e.as<And>()->a : e.as<Or>()->a;
  const Expr& b = isAnd ? e.as<And>()->b : e.as<Or>()->b;
  llvm::Value* x = expr(a);
  if (e.dtype().isScalar() && mayTrap(b))
    return guarded(x, b, llvm::ConstantInt::get(x->getType(), isAnd ? 0 : 1), isAnd);
  llvm::Value* y = expr(b);
  return isAnd ? m_b.CreateAnd(x, y) : m_b.CreateOr(x, y);
}

llvm::Value* IrGen::select(const Select& op, const Expr& self) {
  llvm::Value* c = expr(op.condition);
  if (op.condition.dtype().isScalar() && (mayTrap(op.trueValue) || mayTrap(op.falseValue))) {
    auto* thenBlock = llvm::BasicBlock::Create(m_ctx, "select.true", m_function);
    auto* elseBlock = llvm::BasicBlock::Create(m_ctx, "select.false", m_function);
    auto* merge = llvm::BasicBlock::Create(m_ctx, "select.end", m_function);
    m_b.CreateCondBr(c, thenBlock, elseBlock);
    m_b.SetInsertPoint(thenBlock);
    llvm::Value* t = expr(op.trueValue);
    llvm::BasicBlock* thenEnd = m_b.GetInsertBlock();
    m_b.CreateBr(merge);
    m_b.SetInsertPoint(elseBlock);
    llvm::Value* f = expr(op.falseValue);
    llvm::BasicBlock* elseEnd = m_b.GetInsertBlock();
    m_b.CreateBr(merge);
    m_b.SetInsertPoint(merge);
    llvm::PHINode* phi = m_b.CreatePHI(regType(self.dtype()), 2);
    phi->addIncoming(t, thenEnd);
    phi->addIncoming(f, elseEnd);
    return phi;
  }
  if (!op.condition.dtype().isScalar()) {
    // A vector select: a branch that may trap (its loads, lower_vectorize.h) is evaluated
    // for the lanes that take it only.
    llvm::Value* t = mayTrap(op.trueValue) ? underMask(c, op.trueValue) : expr(op.trueValue);
    llvm::Value* f = mayTrap(op.falseValue) ? underMask(m_b.CreateNot(c), op.falseValue) : expr(op.falseValue);
    return m_b.CreateSelect(c, t, f);
  }
  llvm::Value* t = expr(op.trueValue);
  llvm::Value* f = expr(op.falseValue);
  return m_b.CreateSelect(c, t, f);
}

llvm::Value* IrGen::underMask(llvm::Value* mask, const Expr& e) {
  llvm::Value* outer = m_laneMask;
  m_laneMask = outer ? m_b.CreateAnd(outer, mask) : mask;
  llvm::Value* v = expr(e);
  m_laneMask = outer;
  return v;
}

llvm::Value* IrGen::cast(DataType to, const Expr& valueExpr) {
  const DataType from = valueExpr.dtype();
  llvm::Value* v = expr(valueExpr);
  if (from.element() == to.element()) return v;
  llvm::Type* type = regType(to);
  if (to.isBool()) {
    if (from.isFloat()) return m_b.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    return m_b.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (to.isInteger()) {
    if (from.isFloat()) return to.isUInt() ? m_b.CreateFPToUI(v, type) : m_b.CreateFPToSI(v, type);
    if (from.bits() == to.bits()) return v; // int8 <-> uint8: the same bits
    if (from.bits() > to.bits()) return m_b.CreateTrunc(v, type);
    return from.isInt() ? m_b.CreateSExt(v, type) : m_b.CreateZExt(v, type);
  }
  // To float. The interpreter converts to float16 through float32 (two roundings).
  if (to.bits() == 16 && !(from.isFloat() && from.bits() == 32)) {
    llvm::Value* f32 = cast(DataType::float32().withLanes(to.lanes()), valueExpr);
    return m_b.CreateFPTrunc(f32, type);
  }
  if (from.isFloat()) return from.bits() < to.bits() ? m_b.CreateFPExt(v, type) : m_b.CreateFPTrunc(v, type);
  if (from.isInt()) return m_b.CreateSIToFP(v, type);
  return m_b.CreateUIToFP(v, type);
}

// ---- math calls ---------------------------------------------------------------------

llvm::Value* IrGen::call(const Call& op) {
  // float16 is computed in float and rounded once at the end, as the interpreter does.
  const bool half = op.dtype.bits() == 16;
  const DataType t = half ? DataType::float32().withLanes(op.dtype.lanes()) : op.dtype;
  llvm::Type* type = regType(t);
  std::vector<llvm::Value*> args;
  for (const Expr& a : op.args) {
    llvm::Value* v = expr(a);
    args.push_back(half ? m_b.CreateFPExt(v, type) : v);
  }
  auto unary = [&](llvm::Intrinsic::ID id, llvm::Value* x) { return m_b.CreateUnaryIntrinsic(id, x); };
  auto libm = [&](const char* f32, const char* f64, llvm::Value* x) -> llvm::Value* {
    llvm::Type* scalar = type->getScalarType();
    llvm::FunctionCallee fn = m_module.getOrInsertFunction(t.bits() == 64 ? f64 : f32, scalar, scalar);
    if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
      f->setDoesNotThrow();
      f->setDoesNotAccessMemory();
      f->setWillReturn();
    }
    if (t.lanes() == 1) return m_b.CreateCall(fn, {x});
    llvm::Value* result = llvm::PoisonValue::get(type);
    for (int i = 0; i < t.lanes(); ++i) {
      llvm::Value* lane = m_b.CreateCall(fn, {m_b.CreateExtractElement(x, static_cast<std::uint64_t>(i))});
      result = m_b.CreateInsertElement(result, lane, static_cast<std::uint64_t>(i));
    }
    return result;
  };
  llvm::Value* one = llvm::ConstantFP::get(type, 1.0);
  llvm::Value* r = nullptr;
  switch (op.op) {
  case CallOp::Exp: r = unary(llvm::Intrinsic::exp, args[0]); break;
  case CallOp::Log: r = unary(llvm::Intrinsic::log, args[0]); break;
  case CallOp::Sqrt: r = unary(llvm::Intrinsic::sqrt, args[0]); break;
  case CallOp::Rsqrt: r = m_b.CreateFDiv(one, unary(llvm::Intrinsic::sqrt, args[0])); break;
  case CallOp::Tanh: r = libm("tanhf", "tanh", args[0]); break;
  case CallOp::Sigmoid:
    r = m_b.CreateFDiv(one, m_b.CreateFAdd(one, unary(llvm::Intrinsic::exp, m_b.CreateFNeg(args[0]))));
    break;
  case CallOp::Erf: r = libm("erff", "erf", args[0]); break;
  case CallOp::Pow: r = m_b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, args[0], args[1]); break;
  case CallOp::Fabs: r = unary(llvm::Intrinsic::fabs, args[0]); break;
  case CallOp::Floor: r = unary(llvm::Intrinsic::floor, args[0]); break;
  case CallOp::Ceil: r = unary(llvm::Intrinsic::ceil, args[0]); break;
  case CallOp::Round: r = unary(llvm::Intrinsic::round, args[0]); break; // half away from zero (std::round)
  case CallOp::Fma:
    r = m_b.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {args[0], args[1], args[2]});
    break;
  }
  return half ? m_b.CreateFPTrunc(r, regType(op.dtype)) : r;
}

// ---- memory -------------------------------------------------------------------------

llvm::Value* IrGen::bufferPointer(const Buffer& buffer) {
  auto it = m_scope.buffers.find(buffer.get());
  if (it != m_scope.buffers.end()) return it->second;
  fail("codegen.unbound", fmt::format("buffer '{}' is used outside its scope (not a parameter or an Allocate)", buffer->name));
  return llvm::PoisonValue::get(llvm::PointerType::get(m_ctx, 0));
}

llvm::Value* IrGen::address(const Buffer& buffer, const std::vector<Expr>& indices, int lanes, bool& contiguous) {
  contiguous = false;
  llvm::Value* base = bufferPointer(buffer);
  llvm::Type* elem = memType(buffer->dtype);
  if (indices.size() > 1) {
    fail("codegen.unsupported",
         fmt::format("access to '{}' has {} indices; a LoweredFunc accesses flat 1-D buffers", buffer->name, indices.size()));
    return base;
  }
  if (indices.empty()) {
    contiguous = true;
    return base;
  }
  const Expr& index = indices[0];
  if (const auto* ramp = index.as<Ramp>(); ramp && isConstInt(ramp->stride, 1)) {
    contiguous = true;
    return m_b.CreateInBoundsGEP(elem, base, toIndex(expr(ramp->base), ramp->base.dtype()));
  }
  if (index.dtype().isScalar()) {
    contiguous = lanes > 1;
    return m_b.CreateInBoundsGEP(elem, base, toIndex(expr(index), index.dtype()));
  }
  return m_b.CreateInBoundsGEP(elem, base, toIndex(expr(index), index.dtype()));
}

std::vector<std::pair<int, int>> IrGen::pieces(int lanes) {
  std::vector<std::pair<int, int>> out;
  for (int offset = 0; offset < lanes;) {
    const int width = static_cast<int>(std::bit_floor(static_cast<unsigned>(lanes - offset)));
    out.emplace_back(offset, width);
    offset += width;
  }
  return out;
}

llvm::Value* IrGen::loadPieces(llvm::Type* elem, llvm::Value* ptr, llvm::Align align, int lanes) {
  const int held = heldLanes(lanes);
  llvm::Value* whole = llvm::PoisonValue::get(llvm::FixedVectorType::get(elem, static_cast<unsigned>(held)));
  for (const auto& [offset, width] : pieces(lanes)) {
    llvm::Value* at =
        offset == 0 ? ptr : m_b.CreateInBoundsGEP(elem, ptr, m_b.getInt64(static_cast<std::uint64_t>(offset)));
    llvm::Value* piece =
        width == 1 ? m_b.CreateAlignedLoad(elem, at, align)
                   : m_b.CreateAlignedLoad(llvm::FixedVectorType::get(elem, static_cast<unsigned>(width)), at, align);
    if (width == 1) {
      whole = m_b.CreateInsertElement(whole, piece, m_b.getInt64(static_cast<std::uint64_t>(offset)));
      continue;
    }
    std::vector<int> widen(static_cast<std::size_t>(held), -1);
    for (int i = 0; i < width; ++i)
      widen[static_cast<std::size_t>(i)] = i;
    llvm::Value* wide = m_b.CreateShuffleVector(piece, widen);
    std::vector<int> merge(static_cast<std::size_t>(held), -1);
    for (int i = 0; i < offset; ++i)
      merge[static_cast<std::size_t>(i)] = i;
    for (int i = 0; i < width; ++i)
      merge[static_cast<std::size_t>(offset + i)] = held + i;
    whole = offset == 0 ? wide : m_b.CreateShuffleVector(whole, wide, merge);
  }
  return whole;
}

void IrGen::storePieces(llvm::Value* value, llvm::Type* elem, llvm::Value* ptr, llvm::Align align, int lanes) {
  for (const auto& [offset, width] : pieces(lanes)) {
    llvm::Value* at =
        offset == 0 ? ptr : m_b.CreateInBoundsGEP(elem, ptr, m_b.getInt64(static_cast<std::uint64_t>(offset)));
    if (width == 1) {
      m_b.CreateAlignedStore(m_b.CreateExtractElement(value, m_b.getInt64(static_cast<std::uint64_t>(offset))), at,
                             align);
      continue;
    }
    std::vector<int> part(static_cast<std::size_t>(width));
    for (int i = 0; i < width; ++i)
      part[static_cast<std::size_t>(i)] = offset + i;
    m_b.CreateAlignedStore(m_b.CreateShuffleVector(value, part), at, align);
  }
}

llvm::Value* IrGen::load(const BufferLoad& op) {
  const int lanes = op.dtype.lanes();
  bool contiguous = false;
  llvm::Value* ptr = address(op.buffer, op.indices, lanes, contiguous);
  llvm::Type* elem = memType(op.buffer->dtype);
  const llvm::Align align(static_cast<std::uint64_t>(op.buffer->dtype.bytes()));
  llvm::Value* v = nullptr;
  if (lanes == 1) {
    if (m_laneMask) {
      // The vectorizer keeps a load every lane shares out of masked branches.
      fail("codegen.unsupported",
           fmt::format("a scalar load from '{}' in a branch of a vector select cannot be masked", op.buffer->name));
      return placeholder(op.dtype);
    }
    v = m_b.CreateAlignedLoad(elem, ptr, align);
  } else {
    auto* vecType = llvm::FixedVectorType::get(elem, static_cast<unsigned>(heldLanes(lanes)));
    regType(op.dtype);
    // Only the lanes the branch is taken for (and not the held lanes past the last) touch
    // memory; the others read 0 (outside a branch, the held lanes past the last are
    // poison: loadPieces).
    if (contiguous && !m_laneMask && tailMask(lanes))
      v = loadPieces(elem, ptr, align, lanes);
    else if (llvm::Value* mask = memoryMask(lanes))
      v = contiguous ? m_b.CreateMaskedLoad(vecType, ptr, align, mask, llvm::Constant::getNullValue(vecType))
                     : m_b.CreateMaskedGather(vecType, ptr, align, mask, llvm::Constant::getNullValue(vecType));
    else
      v = contiguous ? static_cast<llvm::Value*>(m_b.CreateAlignedLoad(vecType, ptr, align))
                     : m_b.CreateMaskedGather(vecType, ptr, align);
  }
  return fromMemory(v, op.dtype);
}

} // namespace loopscape::codegen::cpullvm::detail
