// Statements: immutable, reference-counted nodes behind the `Stmt` handle, built by
// checking `make()` functions. The block structure follows TensorIR: a BlockRealize binds
// a Block's iterators to values computed from the enclosing loops and guards it with a
// predicate; the Block declares its iterators (domain, spatial/reduce), the regions it
// reads and writes, the buffers it allocates, an optional reduction init and its body.
// Sequential meaning: loops of every kind run their iterations in order; a block's init
// runs when every reduce iterator is at the minimum of its domain.
#pragma once

#include "core/ir/buffer.h"

#include <map>
#include <string>
#include <vector>

namespace loopscape::ir {

enum class StmtKind : std::uint8_t {
#define LS_X(name) name,
  LS_STMT_KINDS(LS_X)
#undef LS_X
};
const char* stmtKindName(StmtKind kind);

/// Loop and block annotations: key -> IntImm, FloatImm or StringImm; ordered by key.
using Annotations = std::map<std::string, Expr>;

struct StmtNode {
  StmtKind kind;

protected:
  explicit StmtNode(StmtKind k) : kind(k) {}
  ~StmtNode() = default;
};

class Stmt {
public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> node) : m_node(std::move(node)) {}

  bool defined() const { return m_node != nullptr; }
  explicit operator bool() const { return defined(); }
  StmtKind kind() const { return m_node->kind; }
  const StmtNode* get() const { return m_node.get(); }
  bool sameAs(const Stmt& other) const { return m_node == other.m_node; }

  template <typename T> const T* as() const {
    return m_node && m_node->kind == T::kKind ? static_cast<const T*>(m_node.get()) : nullptr;
  }
  template <typename T> bool is() const { return as<T>() != nullptr; }

private:
  std::shared_ptr<const StmtNode> m_node;
};

enum class ForKind : std::uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };
/// "serial", "parallel", "vectorized", "unroll", "thread_binding".
const char* forKindName(ForKind kind);

/// The annotation that marks a ThreadBinding loop read from TVM's `T.launch_thread` (its
/// thread_extent attribute: the same meaning as a thread-bound loop from 0); the printer
/// writes such a loop back as `T.launch_thread` and never prints the annotation.
inline constexpr const char* kLaunchThreadAnnotation = "tir.launch_thread";

struct For final : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  Expr loopVar; ///< a Var
  Expr min, extent;
  ForKind forKind = ForKind::Serial;
  std::string threadTag; ///< "threadIdx.x", ... when forKind == ThreadBinding
  Stmt body;
  Annotations annotations;
  static Stmt make(Expr loopVar, Expr min, Expr extent, ForKind forKind, Stmt body,
                   std::string threadTag = {}, Annotations annotations = {});
  For() : StmtNode(kKind) {}
};

/// TensorIR's block iterator kinds. Scan (an ordered iterator whose iterations depend on one
/// another) and opaque (nothing known) iterators are neither data-parallel nor reductions:
/// primitives that need one of those refuse them.
enum class IterKind : std::uint8_t { Spatial, Reduce, Scan, Opaque };
/// "spatial", "reduce", "scan", "opaque".
const char* iterKindName(IterKind kind);

/// A block iterator: a Var with its domain and kind.
struct IterVar {
  Expr var;
  Range dom;
  IterKind kind = IterKind::Spatial;
};

struct Block final : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Block;
  std::string name;
  std::vector<IterVar> iterVars;
  std::vector<BufferRegion> reads, writes;
  std::vector<Buffer> allocBuffers;
  Stmt init; ///< may be undefined; only meaningful with reduce iterators
  Stmt body;
  Annotations annotations;
  static Stmt make(std::string name, std::vector<IterVar> iterVars, std::vector<BufferRegion> reads,
                   std::vector<BufferRegion> writes, Stmt body, Stmt init = {},
                   std::vector<Buffer> allocBuffers = {}, Annotations annotations = {});
  Block() : StmtNode(kKind) {}
};

struct BlockRealize final : StmtNode {
  static constexpr StmtKind kKind = StmtKind::BlockRealize;
  std::vector<Expr> iterValues; ///< one per block iterator
  Expr predicate;               ///< bool; `true` when unconditional
  Stmt block;                   ///< a Block
  static Stmt make(std::vector<Expr> iterValues, Expr predicate, Stmt block);
  BlockRealize() : StmtNode(kKind) {}
  const Block& blockNode() const { return *block.as<Block>(); }
};

struct BufferStore final : StmtNode {
  static constexpr StmtKind kKind = StmtKind::BufferStore;
  Buffer buffer;
  Expr value;
  std::vector<Expr> indices;
  /// The value's type must equal the buffer's dtype; one index per dimension.
  static Stmt make(Buffer buffer, Expr value, std::vector<Expr> indices);
  BufferStore() : StmtNode(kKind) {}
};

struct SeqStmt final : StmtNode {
  static constexpr StmtKind kKind = StmtKind::SeqStmt;
  std::vector<Stmt> seq;
  /// Flattens nested SeqStmts; a single statement is returned as itself.
  static Stmt make(std::vector<Stmt> seq);
  SeqStmt() : StmtNode(kKind) {}
};

struct IfThenElse final : StmtNode {
  static constexpr StmtKind kKind = StmtKind::IfThenElse;
  Expr condition;
  Stmt thenCase, elseCase; ///< elseCase may be undefined
  static Stmt make(Expr condition, Stmt thenCase, Stmt elseCase = {});
  IfThenElse() : StmtNode(kKind) {}
};

struct Evaluate final : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Evaluate;
  Expr value;
  static Stmt make(Expr value);
  Evaluate() : StmtNode(kKind) {}
};

/// TVM's `T.assume(condition)`: a fact the program states (about its sizes or its data) that
/// compilers may use. Loopscape's interpreter checks it: a false assumption is an error, not
/// undefined behaviour.
struct Assume final : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Assume;
  Expr condition; ///< bool
  static Stmt make(Expr condition);
  Assume() : StmtNode(kKind) {}
};

struct LetStmt final : StmtNode {
  static constexpr StmtKind kKind = StmtKind::LetStmt;
  Expr var; ///< a Var of the value's type
  Expr value;
  Stmt body;
  static Stmt make(Expr var, Expr value, Stmt body);
  LetStmt() : StmtNode(kKind) {}
};

/// Allocates `buffer` (by its scope) for the duration of `body`.
struct Allocate final : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Allocate;
  Buffer buffer;
  Stmt body;
  static Stmt make(Buffer buffer, Stmt body);
  Allocate() : StmtNode(kKind) {}
};

} // namespace loopscape::ir
