// The Relay operator library: one table (relay_op.cpp) of OpDefs. Each op has its
// attributes with TVM's defaults and kinds, TVM's OpPattern (what FuseOps may fuse), a
// type relation (argument types and attributes -> result type, or a located error naming
// the op, the operand and the shapes), and a compute that builds TOPI-style stages
// (te-like TensorInfos, lowered by te_lower.h) named as TOPI names them (`pad_temp`,
// `conv2d_nchw`, `T_add`, `T_relu`, ...). Ops that TVM never lowers (nn.batch_norm,
// nn.dropout, nn.layer_norm) have no compute: SimplifyInference rewrites them first.
//
// Adding an op: write its relation and compute next to the similar ones
// (relay_ops_nn.cpp or relay_ops_tensor.cpp) and add one entry to the table.
#pragma once

#include "core/frontend/relay/relay_ir.h"
#include "core/frontend/te_program.h"

#include <functional>
#include <set>
#include <string_view>

namespace loopscape::frontend::relay {

/// TVM's OpPatternKind; the numeric values matter (fusion compares with <=).
enum class OpPattern : std::uint8_t {
  ElemWise = 0,
  Broadcast = 1,
  Injective = 2,
  CommReduce = 3,
  OutEWiseFusable = 4,
  Tuple = 7,
  Opaque = 8,
};
/// "elemwise", "broadcast", "injective", "comm-reduce", "out-elemwise-fusable", "tuple", "opaque".
const char* patternName(OpPattern p);

/// What values an attribute accepts (checked once, at type inference).
enum class AttrKind : std::uint8_t {
  Int,      ///< an integer
  Float,    ///< a number
  String,   ///< a string
  Bool,     ///< True/False (or 0/1)
  Ints,     ///< a list of integers (a single integer stands for a one-element list)
  OptInt,   ///< an integer or None
  OptInts,  ///< a list of integers or None
  IntLists, ///< a list of lists of integers (nn.pad's pad_width)
};

struct AttrDef {
  std::string name;
  AttrKind kind;
  AttrValue defaultValue;
};

/// The attributes of one call after validation: the written value, else the default.
class CallAttrs {
public:
  CallAttrs(const Node& call, const std::vector<AttrDef>& defs) : m_call(call), m_defs(defs) {}
  const AttrValue& get(std::string_view name) const;
  bool isNone(std::string_view name) const { return get(name).kind == AttrValue::Kind::None; }
  std::int64_t i(std::string_view name) const;
  double f(std::string_view name) const;
  const std::string& s(std::string_view name) const;
  bool b(std::string_view name) const;
  std::vector<std::int64_t> ints(std::string_view name) const;
  std::vector<std::vector<std::int64_t>> intLists(std::string_view name) const;
  /// Where `name` was written (the call when it was not).
  SourceLocation loc(std::string_view name) const;

private:
  const Node& m_call;
  const std::vector<AttrDef>& m_defs;
};

/// What a type relation sees. `args` are the argument types; an argument that is a
/// constant of unknown shape arrives Unknown and the relation may fill it in from the
/// other operands and the attributes (a conv2d weight, a bias, a broadcast operand).
struct TypeContext {
  const Node& call;
  const CallAttrs& attrs;
  std::vector<Type> args;

  /// "relay.type" error at the call.
  Unexpected error(std::string message) const;
  /// "relay.attr" error at the attribute (or the call).
  Unexpected attrError(std::string_view attr, std::string message) const;
  /// Argument `k` must be a tensor (after the relation filled unknown constants in).
  Expected<const Type*> tensorArg(std::size_t k, std::string_view role) const;
};

using TypeRelation = std::function<Expected<Type>(TypeContext&)>;

/// One input of a compute: a tensor (a placeholder or an earlier stage) or, for a scalar
/// literal, its value.
struct Operand {
  TensorPtr tensor;
  ir::Expr scalar;
  std::vector<std::int64_t> shape;
  ir::DataType dtype;
  /// The element at `indices` (a scalar ignores them).
  ir::Expr load(const std::vector<ir::Expr>& indices) const;
};

/// What a compute sees and builds: the inputs (a tuple argument's fields flattened),
/// the inferred result type, and the stages it creates, in order (block names are made
/// unique across a whole fused group).
struct ComputeContext {
  const Node& call;
  const CallAttrs& attrs;
  std::vector<Operand> inputs;
  Type outType;
  std::set<std::string>* usedNames = nullptr;
  std::vector<TensorPtr> stages;

  /// A fresh block/buffer name: `base`, else `base_1`, `base_2`, ...
  std::string uniqueName(const std::string& base);
  /// A compute stage of `shape` named after `name`, with one loop variable per dimension
  /// (`loops`) and no body yet: what compute and reduce share.
  std::shared_ptr<TensorInfo> newStage(const std::string& name, const std::vector<std::int64_t>& shape,
                                       ir::DataType dtype, const std::vector<std::string>& loops,
                                       const std::string& tag);
  /// A stage `name[loops...] = body(loop vars)` of `shape`.
  TensorPtr compute(const std::string& name, const std::vector<std::int64_t>& shape, ir::DataType dtype,
                    const std::vector<std::string>& loopNames,
                    const std::function<ir::Expr(const std::vector<ir::Expr>&)>& body, const std::string& tag = "");
  /// A reduction stage `name[loops...] = combiner over axes of source(loop vars, axis vars)`.
  TensorPtr reduce(const std::string& name, const std::vector<std::int64_t>& shape, ir::DataType dtype,
                   const std::vector<std::string>& loopNames,
                   const std::vector<std::pair<std::string, std::int64_t>>& axes, Combiner combiner,
                   const std::function<ir::Expr(const std::vector<ir::Expr>&, const std::vector<ir::Expr>&)>& source,
                   const std::string& tag = "");
  Unexpected error(std::string message) const;
};

/// Builds the stages; returns the outputs (one, or one per tuple field).
using Compute = std::function<Expected<std::vector<TensorPtr>>(ComputeContext&)>;

struct OpDef {
  std::string name;
  int minArgs = 1, maxArgs = 1;
  std::vector<AttrDef> attrs;
  OpPattern pattern = OpPattern::Opaque;
  TypeRelation relation;
  Compute compute; ///< empty: rewritten by SimplifyInference before lowering
  /// Estimated floating-point operations of one call (empty: one per output element).
  std::function<std::int64_t(const std::vector<Type>& args, const Type& out, const CallAttrs&)> flops;
};

const OpDef* findOp(std::string_view name);
const std::vector<OpDef>& opTable();

/// Checks the written attributes of `call` against `op`: known names, value kinds.
Expected<void> checkAttrs(const Node& call, const OpDef& op);

/// The ops of each family, appended to the table.
void addNnOps(std::vector<OpDef>& table);
void addTensorOps(std::vector<OpDef>& table);
void addTransformOps(std::vector<OpDef>& table);

// Shared by relations and computes.
/// numpy broadcast of two shapes; nullopt when incompatible.
std::optional<std::vector<std::int64_t>> broadcastShapes(const std::vector<std::int64_t>& a,
                                                         const std::vector<std::int64_t>& b);
/// `axis` normalised into [0, ndim) (negative counts from the end); nullopt if out of range.
std::optional<std::int64_t> normalizeAxis(std::int64_t axis, std::size_t ndim);
/// The indices into an operand of `shape` for the broadcast output indices `out`.
std::vector<ir::Expr> broadcastIndices(const std::vector<ir::Expr>& out, const std::vector<std::int64_t>& shape);
/// `i * stride + r * dilation` without factors of 1 (TOPI's window index).
ir::Expr windowIndex(const ir::Expr& i, std::int64_t stride, const ir::Expr& r, std::int64_t dilation);
/// `flops` as int64, saturating at 2^62 (absurd shapes must not overflow).
std::int64_t saturatingFlops(double flops);
/// "ax0", "ax1", ... (TOPI's C++ computes) or "i0", "i1", ... (Python lambdas).
std::vector<std::string> loopNames(std::size_t n, const char* prefix = "ax");

} // namespace loopscape::frontend::relay
