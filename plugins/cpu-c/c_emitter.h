// The C source of a LoweredFunc (cpu-c plugin).
//
// The kernel is one C11 (GNU dialect) function
//
//   void <name>(T0* restrict <param0>, ..., Tn* restrict <paramN>, int64_t <size0>, ...);
//
// one pointer per PrimFunc parameter in parameter order (flat, row-major data of the
// parameter's dtype: float, double, _Float16, int8_t ... int64_t, uint8_t, bool), then one
// int64_t per symbolic size in LoweredFunc::sizeVars order. A second entry point
//
//   void <name>_packed(void* const* buffers, const int64_t* sizes);
//
// takes the same arguments as arrays (what Kernel::run calls). The code:
//   * block markers become `// block C` comments (`// block C (init)` for inits);
//   * Parallel loops get `#pragma omp parallel for` (with num_threads(N) when the build
//     asks for N threads); the loop body is a static function <name>_par<N> taking the
//     buffers it uses as `restrict` pointers and the variables it uses (GCC's OpenMP
//     outlining passes pointers through a struct and loses the kernel's `restrict`, which
//     kept accumulators from staying in registers);
//   * a vector statement (Ramp/Broadcast) whose value is contiguous loads (Ramp stride 1),
//     Broadcasts and + - * (and float /) of float32/float64/int32/int64 becomes GCC
//     vector-type statements, one per chunk of at most 64 bytes (`*(ls_f32x16*)&C[i] =
//     ...`); the value may load the stored buffer only at the stored elements, so the
//     chunks' order cannot matter. Other vector statements become `#pragma omp simd`
//     loops over a lane variable, each lane computing the scalar expression (Ramp(b, s, n)
//     is b + s * lane). Both are the vector semantics exactly. (Vector types let GCC keep
//     a register tile in registers across a loop: lane loops disappear only after its
//     store motion has run, so it stored every accumulator on every iteration);
//   * integer arithmetic is exact: the code is compiled with -fwrapv (wrapping int32/int64),
//     narrower results are cast back to their type after every operation, floordiv and
//     floormod use helpers that round toward negative infinity, min/max are `a < b ? a : b`
//     like the interpreter;
//   * loop and lane variables are int64_t (int32 IR loop variables included) and indices
//     (buffer offsets, loop bounds) are computed in int64_t: int32 index arithmetic on
//     them is not wrapped back to 32 bits. GCC then sees contiguous accesses in `omp simd`
//     loops (a wrapping int32 offset sign-extended to 64 bits made it emit gathers: 0.5
//     instead of 7 GFLOP/s for the tuned 1024^3 matmul). This differs from the IR only
//     when an index computation overflows int32 (then the IR's wrapped index and the true
//     one cannot both be in bounds). Outside indices, int32 arithmetic on a loop variable
//     is cast back to int32_t, so stored values and conditions wrap exactly like the IR;
//   * float32 math calls use the `f` functions of <math.h> (expf, fmaf ...); float16 values
//     are _Float16 computed in float and rounded back after every operation, like the
//     interpreter;
//   * Allocate: a Local buffer of constant size up to 64 KiB lives on the stack (64-byte
//     aligned), every other one on the heap (aligned_alloc(64), freed at scope end); both
//     are zero-filled, as in the interpreter and cpu-llvm, so a program that reads an
//     intermediate element it never wrote gets 0 on every backend.
#pragma once

#include "core/codegen/target.h"

#include <string>
#include <vector>

namespace loopscape::codegen::cpu_c {

/// C type of a scalar dtype ("float", "int32_t", "_Float16", "bool").
std::string cType(ir::DataType t);

/// The whole translation unit. `threads` > 0 adds num_threads(threads) to parallel loops.
/// With `loops`, also the lines each For of `func.body` produced (SourceMap's order): the
/// `for` line (with its `#pragma omp parallel for`) through its closing brace, and for a
/// parallel loop also its outlined function. Loops unrolled or vectorized by the lowering
/// are no For any more and have no lines.
std::string emitC(const LoweredFunc& func, int threads = 0, std::vector<LoopLines>* loops = nullptr);

} // namespace loopscape::codegen::cpu_c
