// Internal to the interpreter (interpreter*.cpp only): the runtime frame, the compiled
// node interfaces and the compiler entry points. Runtime failures inside the node tree
// throw InterpError, which never leaves interpret()/evalShape().
#pragma once

#include "core/ir/interpreter.h"

#include <memory>
#include <stop_token>

namespace loopscape::ir::interp {

struct InterpError {
  Diagnostic diag;
};

/// A buffer as seen at run time: element strides, extents, and its storage.
struct RtBuffer {
  std::byte* data = nullptr;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  NDArray owned; ///< storage of alloc_buffers / Allocate; empty for parameters
};

/// Variable slots (integers and bools in `ints`, floats in `floats`) and buffer slots,
/// all resolved at compile time.
struct Frame {
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
  std::vector<RtBuffer> buffers;
  std::stop_token stop; ///< checked once per loop iteration ("interp.cancelled")
  /// Bytes held by the arguments and the live allocations, checked against
  /// resourceLimits().maxBufferBytes at every allocation ("interp.too-large").
  std::int64_t allocatedBytes = 0;
};

/// The block a node belongs to, for error messages (name and iterator slots).
struct BlockContext {
  std::string name;
  std::vector<std::pair<std::string, int>> iters; ///< iterator name, int slot
  /// `in block "C" at v_i=3, v_j=0` (values from `frame`).
  std::string describe(const Frame& frame) const;
};

/// Throws InterpError with `message` + " " + ctx->describe(frame).
[[noreturn]] void raise(const Frame& frame, const BlockContext* ctx, std::string code, std::string message,
                        std::vector<IrReference> refs = {});

template <typename T> struct Eval {
  virtual ~Eval() = default;
  virtual T eval(Frame& f) const = 0;
};
using IntEval = Eval<std::int64_t>;

struct Exec {
  virtual ~Exec() = default;
  virtual void exec(Frame& f) const = 0;
};

/// How a parameter buffer's layout is computed once the size slots are set.
struct ParamLayout {
  int slot = 0;
  std::vector<std::unique_ptr<IntEval>> strides; ///< empty: row-major
};

struct Program {
  std::unique_ptr<Exec> body;
  int numInts = 0, numFloats = 0, numBuffers = 0;
  std::vector<ParamLayout> params;                        ///< parameter order
  std::vector<std::pair<std::string, int>> sizeSlots;     ///< size var name -> int slot
  std::vector<std::unique_ptr<BlockContext>> contexts;    ///< owned by the program
};

/// Compiles `func`; free variables resolve by name against `sizes`.
Expected<Program> compileProgram(const PrimFunc& func, const SizeBindings& sizes);
/// Evaluates an integer expression whose only free variables are sizes in `sizes`.
/// Errors: "interp.unbound-size" naming `what` and the variable.
Expected<std::int64_t> evalSizeExpr(const Expr& e, const SizeBindings& sizes, const std::string& what);

} // namespace loopscape::ir::interp
