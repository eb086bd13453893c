// The reference interpreter: executes any scalar PrimFunc on NDArrays with the exact
// sequential semantics of stmt.h/expr.h. It is the oracle every schedule primitive,
// lowering pass and backend is checked against, so it defines the arithmetic:
//  * integers are computed in int64 and wrapped to the node's type after every
//    operation; Div truncates toward zero, FloorDiv/FloorMod round toward -inf;
//    integer division by zero is the Diagnostic "interp.division-by-zero";
//  * float32 (and float16) operations are computed in float, float64 in double; float16
//    results are rounded to binary16 after every operation. Results are bit-identical
//    to a C++ loop performing the same float operations in the same order;
//  * Cast has C semantics (float->int truncates; out of range is the Diagnostic
//    "interp.cast-out-of-range"); Call uses the std:: function of the call's type
//    (sigmoid = 1/(1+exp(-x)), rsqrt = 1/sqrt(x), fma = std::fma, round = std::round);
//  * Select evaluates only the chosen branch; And/Or short-circuit; Min/Max of floats
//    are `a < b ? a : b` / `a > b ? a : b`;
//  * every loop kind runs sequentially in order; a BlockRealize evaluates its bindings,
//    skips the instance when the predicate is false, checks each binding lies in its
//    iterator's domain ("interp.binding-out-of-domain"), runs `init` first exactly when
//    every Reduce iterator is at its domain minimum, and allocates the block's
//    alloc_buffers zero-filled for the duration of the instance (Allocate likewise);
//  * every BufferLoad/BufferStore is bounds-checked ("interp.out-of-bounds", naming the
//    buffer, the index tuple, the shape and the block instance).
// Vector types (Ramp, Broadcast, multi-lane values) are refused ("interp.unsupported").
// The function is compiled once per call into a tree of small node objects (variables
// in frame slots, buffer strides precomputed, loops as plain C++ loops).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/ndarray.h"
#include "core/ir/prim_func.h"

#include <cstdint>
#include <map>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::ir {

/// Values of symbolic size variables, keyed by the variable's name.
using SizeBindings = std::map<std::string, std::int64_t>;

/// The concrete shape of `buffer` under `sizes`, computed with checked arithmetic. Errors:
/// "interp.unbound-size" naming the buffer and the variable; "interp.negative-extent";
/// "interp.size-too-large" (an extent overflows its type or 64 bits: names the
/// expression and the sizes bound).
Expected<std::vector<std::int64_t>> evalShape(const Buffer& buffer, const SizeBindings& sizes);

/// Binds the size variables of `func` from the shapes of `args` (parameter order): a
/// dimension that is exactly a size Var binds it. Errors: "interp.arg-count",
/// "interp.rank-mismatch", "interp.size-conflict" (a variable bound to two values: names
/// the buffer, the dimension and both values).
Expected<SizeBindings> inferSizes(const PrimFunc& func, std::span<const NDArray> args);

/// Runs `func` on `args` (parameter order); outputs are written in place. `sizes` may
/// pre-bind size variables (for sizes no argument shape determines); the rest are
/// inferred. Errors name the parameter: "interp.arg-count", "interp.dtype-mismatch",
/// "interp.rank-mismatch", "interp.shape-mismatch", "interp.size-conflict"; then any
/// runtime diagnostic described above. Allocations are checked against
/// resourceLimits().maxBufferBytes, alone (NDArray::create's "ndarray.too-large") and
/// together with the arguments and the other live allocations ("interp.too-large").
/// A stop requested through `stop` ends the run at the
/// next loop iteration with "interp.cancelled" (outputs are then partly written).
Expected<void> interpret(const PrimFunc& func, std::span<NDArray> args, const SizeBindings& sizes = {},
                         std::stop_token stop = {});

} // namespace loopscape::ir
