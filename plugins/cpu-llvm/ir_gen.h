// LoweredFunc -> LLVM IR, built with IRBuilder (internal to the cpu-llvm plugin; LLVM
// types never leave plugins/cpu-llvm).
//
// The kernel is `void <name>(ptr noalias p0, ..., i64 size0, ...)`: one pointer per
// buffer parameter in LoweredFunc order, then one int64 per size variable (the C ABI of
// the cpu-c plugin). A second function `void <name>_packed(ptr buffers, ptr sizes)` takes
// the same arguments as two arrays; Kernel::run calls it.
//
// Semantics follow the reference interpreter exactly (core/ir/interpreter.h):
//  * integers wrap at their width (no nsw/nuw flags except on loop counters, which cannot
//    overflow); Div truncates, FloorDiv/FloorMod round toward -inf, x / -1 is the wrapped
//    negation (never the INT_MIN / -1 trap); uint8 uses unsigned division and compares;
//  * float ops carry fast-math flags only when GenOptions::fastMath is set, so by default
//    nothing is contracted or reassociated and float32 results are bit-identical to the
//    interpreter's float arithmetic; Min/Max are `a < b ? a : b` / `a > b ? a : b`;
//  * math calls are LLVM intrinsics (exp, log, sqrt, fabs, floor, ceil, round = half away
//    from zero like std::round, pow, fma) or libm (tanhf/erff and their double and
//    vector forms); sigmoid = 1 / (1 + exp(-x)), rsqrt = 1 / sqrt(x);
//  * And/Or, and Select whose operands may trap (loads, integer division), evaluate the
//    second operand only when needed, as the interpreter does;
//  * bool is i1 in registers and one byte in memory; float16 is `half`;
//  * Ramp/Broadcast are LLVM vectors; a load/store whose index is a Ramp of stride 1 is
//    one vector access (alignment of the element), any other vector index a gather/scatter;
//  * Allocate: a Local buffer of constant size up to kMaxStackBytes is an alloca in the
//    entry block of the enclosing function, anything else aligned_alloc(64)/free; both are
//    zero-filled where the Allocate starts, like the interpreter's allocations;
//  * a Parallel loop is outlined into `internal void(i64 begin, i64 end, ptr closure)`
//    (captured variables and buffer pointers travel in a stack struct) and becomes a call
//    of the runtime's loopscape_parallel_for(i64 extent, ptr body, ptr closure, i32 threads).
#pragma once

#include "core/codegen/lowered_func.h"
#include "core/ir/diagnostic.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace loopscape::codegen::cpullvm {

/// Name of the runtime function Parallel loops call (parallel_runtime.c).
inline constexpr const char* kParallelForSymbol = "loopscape_parallel_for";
/// Largest Local allocation placed on the stack; larger ones go to the heap.
inline constexpr std::int64_t kMaxStackBytes = 64 * 1024;

struct GenOptions {
  bool fastMath = false;
  int threads = 0;          ///< passed to every loopscape_parallel_for call
  std::string cpu;          ///< "target-cpu" function attribute (empty: none)
  std::string features;     ///< "target-features" function attribute
  /// "prefer-vector-width" function attribute (0: none). LLVM's X86 backend prefers
  /// 256-bit vectors on Intel AVX-512 CPUs (sapphirerapids, icelake...) but not on AMD
  /// ones; the plugin asks for the host's full width so the loop vectorizer and the
  /// kernels' performance do not depend on the vendor.
  int preferVectorBits = 0;
};

/// The symbol of the kernel function (`func.name`, sanitised to a C identifier).
std::string kernelSymbol(const LoweredFunc& func);
/// The symbol of the packed entry point of `func` (`<kernel symbol>_packed`).
std::string packedSymbol(const LoweredFunc& func);

/// Builds the (unoptimised, verified) module holding the kernel and its packed entry.
/// Errors: "codegen.thread-binding" (a ThreadBinding loop, naming it), "codegen.unsupported"
/// (a node a LoweredFunc may not contain: Block, BlockRealize, StringImm, a multi-index
/// access...), "codegen.unbound" (a variable or buffer used outside its scope),
/// "codegen.invalid-ir" (LLVM's verifier refused the result; a plugin bug).
Expected<std::unique_ptr<llvm::Module>> generateModule(const LoweredFunc& func, const GenOptions& options,
                                                       llvm::LLVMContext& context);

} // namespace loopscape::codegen::cpullvm
