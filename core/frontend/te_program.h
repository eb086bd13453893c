// The evaluated tensor-expression program: what the evaluator (te_eval.h) produces from
// the syntax tree and the lowering (te_lower.h) turns into a PrimFunc. Tensors are kept in
// definition order; each compute keeps its lambda parameters (int32 Vars named after the
// lambda's parameters), its body as an ir::Expr over those Vars, the reduce axes' Vars and
// the placeholders/computes it reads (as the Buffers created when they were defined).
#pragma once

#include "core/ir/buffer.h"
#include "core/ir/diagnostic.h"
#include "core/ir/stmt.h"

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
};
using TensorPtr = std::shared_ptr<const TensorInfo>;

struct TeProgram {
  std::vector<TensorPtr> tensors; ///< placeholders and computes, definition order
  std::vector<TensorPtr> outputs; ///< computes that become output parameters, in order
};

} // namespace loopscape::frontend
