// The Relay graph IR: what the Relay text parser (relay_parser.h) produces and every
// graph pass, the type inference, the printer and the fusion partitioner work on. A
// function is a DAG of immutable nodes shared through `NodePtr` (graph-normal form: a
// `%N = ...;` binding or a `let` only names a node; a name used twice is the same node).
// Every node keeps the source location it was written at, so that a later stage (type
// inference, a pass, lowering) can still point at the binding it is about.
//
// Types: a node's `type` is Unknown until inference (relay_type_infer.h) rebuilds the
// graph with every type filled in; parameters and lets carry their written annotation.
// Constants are scalar literals (`0f`, `2i64`, `True`: the value is known) or
// `meta[relay.Constant][i]` (the module's constant table, whose entry may be unknown until
// a metadata section, a parameter file or a consumer's shape relation fills it in).
#pragma once

#include "core/ir/data_type.h"
#include "core/ir/diagnostic.h"
#include "core/ir/ndarray.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::frontend::relay {

/// A Relay type: a tensor type of static shape, a tuple of types, or not yet known.
struct Type {
  enum class Kind : std::uint8_t { Unknown, Tensor, Tuple };
  Kind kind = Kind::Unknown;
  std::vector<std::int64_t> shape; ///< Tensor: extents (empty: a scalar)
  ir::DataType dtype = ir::DataType::float32();
  std::vector<Type> fields; ///< Tuple

  static Type tensor(std::vector<std::int64_t> shape, ir::DataType dtype) {
    Type t;
    t.kind = Kind::Tensor;
    t.shape = std::move(shape);
    t.dtype = dtype;
    return t;
  }
  static Type tuple(std::vector<Type> fields) {
    Type t;
    t.kind = Kind::Tuple;
    t.fields = std::move(fields);
    return t;
  }
  bool known() const { return kind != Kind::Unknown; }
  bool isTensor() const { return kind == Kind::Tensor; }
  std::int64_t numel() const;
  friend bool operator==(const Type&, const Type&) = default;
};

/// `Tensor[(1, 3, 224, 224), float32]` (`Tensor[(64), float32]` in 1-D, as TVM prints
/// it), `float32` for a scalar, `(T1, T2)` for a tuple,
/// `?` when unknown.
std::string typeStr(const Type& t);
/// `(1, 3, 224, 224)`, `(64,)` (numpy's spelling, for messages).
std::string shapeStr(const std::vector<std::int64_t>& shape);

/// An attribute value as written: `2`, `1e-05f`, `"NCHW"`, `True`, `None`, `[1, 1]`.
struct AttrValue {
  enum class Kind : std::uint8_t { None, Int, Float, String, Bool, List };
  Kind kind = Kind::None;
  std::int64_t i = 0;
  double f = 0;
  std::string s;
  bool b = false;
  std::vector<AttrValue> list;

  static AttrValue none() { return {}; }
  static AttrValue integer(std::int64_t v) {
    AttrValue a;
    a.kind = Kind::Int;
    a.i = v;
    return a;
  }
  static AttrValue real(double v) {
    AttrValue a;
    a.kind = Kind::Float;
    a.f = v;
    return a;
  }
  static AttrValue string(std::string v) {
    AttrValue a;
    a.kind = Kind::String;
    a.s = std::move(v);
    return a;
  }
  static AttrValue boolean(bool v) {
    AttrValue a;
    a.kind = Kind::Bool;
    a.b = v;
    return a;
  }
  static AttrValue ints(const std::vector<std::int64_t>& v);
  friend bool operator==(const AttrValue&, const AttrValue&) = default;
};

/// The value as the Relay printer writes it.
std::string attrValueStr(const AttrValue& v);

/// One `name=value` of a call, where it was written.
struct Attr {
  std::string name;
  AttrValue value;
  SourceLocation loc;
};

struct OpDef;
struct Node;
using NodePtr = std::shared_ptr<const Node>;

enum class NodeKind : std::uint8_t {
  Var,          ///< a function parameter, `%name`
  Constant,     ///< a scalar literal or `meta[relay.Constant][index]`
  Call,         ///< an operator call `op(args, attrs)`
  Tuple,        ///< `(a, b, ...)`
  TupleGetItem, ///< `a.index`
  GlobalCall,   ///< a call of another function of the module, `@f(args)`
};

struct Node {
  NodeKind kind = NodeKind::Var;
  SourceLocation loc;
  /// Var: the name without '%'; Call: the op name; GlobalCall: the function name without '@'.
  std::string name;
  std::vector<NodePtr> args;
  std::vector<Attr> attrs; ///< Call: as written (inference checks them against the op)
  /// TupleGetItem: the field; Constant: the meta index (-1 for a scalar literal).
  int index = -1;
  Type type;
  /// Constant scalar literal: its value (a 0-d array).
  ir::NDArray value;
  /// Call: the op (null before inference).
  const OpDef* op = nullptr;

  /// The attribute named `name`, if written.
  const Attr* attr(std::string_view attrName) const;
};

NodePtr makeVar(std::string name, Type type, SourceLocation loc);
NodePtr makeCall(std::string op, std::vector<NodePtr> args, std::vector<Attr> attrs, SourceLocation loc);

/// A written `let %x: T = e;` type, checked against e's inferred type.
struct Annotation {
  NodePtr node;
  Type type;
  SourceLocation loc;
};

struct Function {
  std::string name; ///< without '@'
  std::vector<NodePtr> params;
  NodePtr body;
  Type retType; ///< the `-> T` annotation, or the inferred type
  SourceLocation loc;
  SourceLocation retLoc; ///< where the `-> T` annotation was written
  std::vector<Annotation> annotations;
};

struct Module {
  std::string fileName;
  std::vector<Function> functions; ///< in definition order
  /// meta[relay.Constant][i]: the value when known (metadata, parameter file, folding).
  std::vector<ir::NDArray> constants;
  /// meta[relay.Constant][i]: the type when known (after inference).
  std::vector<Type> constantTypes;
  /// Whether the text carried a `#[metadata]` section, and where.
  bool hasMetadata = false;
  SourceLocation metadataLoc;

  const Function* find(std::string_view name) const;
};

/// The nodes reachable from `root`, each once, producers before consumers.
std::vector<NodePtr> postOrder(const NodePtr& root);

} // namespace loopscape::frontend::relay
