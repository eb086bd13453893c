// The evaluated tensor-expression program: what the evaluator (te_eval.h) produces from
// the syntax tree and the lowering (te_lower.h) turns into a PrimFunc. Tensors are kept in
// definition order; each compute keeps its lambda parameters (int32 Vars named after the
// lambda's parameters), its body as an ir::Expr over those Vars, the reduce axes' Vars and
// the placeholders/computes it reads (as the Buffers created when they were defined).
// A scan (TVM's te.scan, see ScanInfo) is a tensor of its own whose init and update
// computes and state placeholder belong to it: they are lowered only as part of the scan.
#pragma once

#include "core/ir/buffer.h"
#include "core/ir/diagnostic.h"
#include "core/ir/stmt.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loopscape::frontend {

/// A reduce_axis((lo, hi), name): the Var used in bodies and its domain [min, min+extent).
struct ReduceAxisInfo {
  std::string name;
  ir::Expr var; ///< int32 Var named `name`
  ir::Expr min, extent;
  SourceLocation loc;
};
using ReduceAxisPtr = std::shared_ptr<const ReduceAxisInfo>;

enum class Combiner { Sum, Max, Min };
/// "sum", "max", "min".
const char* combinerName(Combiner c);

/// A commutative reduction `combiner(source, axis=axes)`; only ever the top-level body of
/// a compute.
struct ReductionInfo {
  Combiner combiner = Combiner::Sum;
  ir::Expr source;
  std::vector<ReduceAxisPtr> axes;
  SourceLocation loc;
};

struct TensorInfo;
using TensorPtr = std::shared_ptr<const TensorInfo>;

/// A recurrence `scan(init, update, state_placeholder, inputs=[...])` with TVM's te.scan
/// semantics over a state of shape (m, d1, ...), whose first dimension is time:
///  * `init` (shape (k, d1, ...), k >= 1 a constant) gives time steps [0, k);
///  * `update` (shape (m, d1, ...), first lambda parameter t) gives steps [k, m) in
///    increasing t; its body reads the state only at earlier steps (index t - c with a
///    constant c in [1, k], or a constant step below k), so step t depends only on
///    steps already computed;
///  * `state` is the placeholder standing for the scan's result inside the update; it is
///    no parameter of the function.
/// Lowered, the scan's buffer (named after the scan) is written by two blocks named after
/// init and update; the update block reads the same buffer at earlier time steps.
struct ScanInfo {
  TensorPtr init, update, state;
  std::int64_t initSteps = 1; ///< k: the first dimension of init
  std::vector<TensorPtr> inputs; ///< inputs=[...] as given (informational, as in TVM)
};

struct TensorInfo {
  std::string name;
  ir::Buffer buffer; ///< created at definition; loads in later bodies refer to it
  bool isCompute = false;
  SourceLocation loc; ///< the placeholder(...) / compute(...) call
  // Computes only:
  std::vector<ir::Expr> params; ///< lambda parameter Vars, one per dimension
  ir::Expr body;                ///< the value when there is no reduction
  std::shared_ptr<const ReductionInfo> reduction;
  std::string tag;
  ir::Annotations attrs;
  // Scans only (isCompute is true, params/body/reduction are empty):
  std::shared_ptr<const ScanInfo> scan;
  /// Non-empty on the init, update and state of a scan: the scan's name. Such a tensor
  /// is lowered only as part of its scan and may not be read anywhere else.
  std::string scanOwner;
};

struct TeProgram {
  std::vector<TensorPtr> tensors; ///< placeholders and computes, definition order
  std::vector<TensorPtr> outputs; ///< computes that become output parameters, in order
};

} // namespace loopscape::frontend
