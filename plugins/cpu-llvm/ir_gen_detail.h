// Internal to ir_gen*.cpp: the IrGen class that walks one LoweredFunc and emits LLVM IR.
// Expressions are in ir_gen_expr.cpp, statements, loops, outlining and the module in
// ir_gen_stmt.cpp. The first error is kept in m_error; generation continues with
// placeholder values so that the walk stays simple, and generateModule returns the error.
#pragma once

#include "ir_gen.h"

#include "core/ir/stmt.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <optional>
#include <unordered_map>

namespace loopscape::codegen::cpullvm::detail {

/// What a name means inside the function being emitted: variables (keyed by the Var
/// node) and buffers (keyed by the buffer node) with their LLVM values.
struct Scope {
  std::unordered_map<const ir::ExprNode*, llvm::Value*> vars;
  std::unordered_map<const ir::BufferNode*, llvm::Value*> buffers;
};

class IrGen {
public:
  IrGen(llvm::Module& module, const GenOptions& options);

  /// Emits the kernel and its packed entry; the error, if any, afterwards.
  std::optional<Diagnostic> emitKernel(const LoweredFunc& func);

  // ---- types ---------------------------------------------------------------------------
  /// Register type of `t` (bool -> i1, float16 -> half; vectors for lanes > 1).
  llvm::Type* regType(ir::DataType t);
  /// Lanes an IR vector of `lanes` lanes is held in. Where it is wider than a vector
  /// register of float32 and its lanes are not a power of two, the next power of two:
  /// LLVM 16's x86 backend splits such a vector into pieces and joins them again around
  /// each loop-carried value and masked load (a <28 x float> accumulator on AVX-512:
  /// inserts and spills in every iteration, 3-5x slower). The held lanes past the last
  /// touch no memory (loadPieces, storePieces; masked in a branch's loads, memoryMask) and
  /// never divide (tailMask). Narrower vectors are
  /// left to LLVM, which holds them in one register (held as the next power of two
  /// themselves, with masked accesses, they ran 1.3-2.6x slower).
  int heldLanes(int lanes) const;
  /// Memory type of one element of `t` (bool -> i8).
  llvm::Type* memType(ir::DataType t);

  // ---- expressions (ir_gen_expr.cpp) ---------------------------------------------------
  llvm::Value* expr(const ir::Expr& e);

private:
  llvm::Value* binary(const ir::Expr& e);
  llvm::Value* intBinary(ir::ExprKind kind, ir::DataType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* floatBinary(ir::ExprKind kind, llvm::Value* a, llvm::Value* b);
  llvm::Value* compare(ir::ExprKind kind, ir::DataType operandType, llvm::Value* a, llvm::Value* b);
  llvm::Value* logical(const ir::Expr& e);
  llvm::Value* select(const ir::Select& op, const ir::Expr& self);
  /// `e` with its vector loads masked by `mask` (and the masks around it).
  llvm::Value* underMask(llvm::Value* mask, const ir::Expr& e);
  /// The constant mask of a vector's `lanes` lanes among its held lanes; null when they
  /// are all of them.
  llvm::Value* tailMask(int lanes);
  /// The lanes of a vector of `lanes` lanes that a load may touch: the branch's lanes
  /// (m_laneMask) and the tail mask; null for all.
  llvm::Value* memoryMask(int lanes);
  llvm::Value* cast(ir::DataType to, const ir::Expr& value);
  llvm::Value* call(const ir::Call& op);
  llvm::Value* load(const ir::BufferLoad& op);
  /// A contiguous vector of `lanes` lanes held in more (heldLanes) moves as plain loads
  /// and stores of its exact lanes, in pieces of powers of two (56: 32, 16, 8), each
  /// (offset, width); loadPieces joins them into the held vector, storePieces takes them
  /// out of it. A masked access of the held width would do in one instruction, but LLVM
  /// takes it to touch the whole held width: an accumulator row of 56 lanes then overlaps
  /// the next row's, and every update of a register tile of such rows went through memory
  /// (a conv tile of 4 rows x 56 lanes: 3.6x slower).
  static std::vector<std::pair<int, int>> pieces(int lanes);
  llvm::Value* loadPieces(llvm::Type* elem, llvm::Value* ptr, llvm::Align align, int lanes);
  void storePieces(llvm::Value* value, llvm::Type* elem, llvm::Value* ptr, llvm::Align align, int lanes);
  /// Pointer (scalar) or vector of pointers (gather/scatter) for a flat access; `contiguous`
  /// is set when the access covers `lanes` consecutive elements from the returned pointer.
  llvm::Value* address(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices, int lanes, bool& contiguous);
  llvm::Value* bufferPointer(const ir::Buffer& buffer);
  llvm::Value* toIndex(llvm::Value* v, ir::DataType t);
  llvm::Value* splat(llvm::Value* v, int lanes);
  llvm::Value* toMemory(llvm::Value* v, ir::DataType t);
  llvm::Value* fromMemory(llvm::Value* v, ir::DataType t);
  /// Evaluates `e` only when `cond` holds (else `otherwise`), with a branch.
  llvm::Value* guarded(llvm::Value* cond, const ir::Expr& e, llvm::Value* otherwise, bool whenTrue);
  llvm::Value* placeholder(ir::DataType t);

  // ---- statements (ir_gen_stmt.cpp) ----------------------------------------------------
  void stmt(const ir::Stmt& s);
  void forLoop(const ir::For& op);
  void serialLoop(const ir::Expr& loopVar, llvm::Value* begin, llvm::Value* end, llvm::Value* offset,
                  const ir::Stmt& body);
  void parallelLoop(const ir::For& op);
  void store(const ir::BufferStore& op);
  void allocate(const ir::Allocate& op);
  void ifThenElse(const ir::IfThenElse& op);
  llvm::AllocaInst* entryAlloca(llvm::Type* type, llvm::Value* count, unsigned align, const std::string& name);
  llvm::FunctionCallee runtimeFunction(const char* name);

public:
  void fail(std::string code, std::string message, std::string loop = {});
  bool failed() const { return m_error.has_value(); }

private:
  llvm::Module& m_module;
  llvm::LLVMContext& m_ctx;
  GenOptions m_options;
  llvm::IRBuilder<> m_b;
  llvm::Function* m_function = nullptr;
  Scope m_scope;
  int m_outlined = 0;
  unsigned m_maxVectorBits = 0;
  /// The lanes a vector expression is evaluated for (null: all): its vector loads load only
  /// those (a branch of a vector Select, lower_vectorize.h).
  llvm::Value* m_laneMask = nullptr;
  std::optional<Diagnostic> m_error;
};

} // namespace loopscape::codegen::cpullvm::detail
