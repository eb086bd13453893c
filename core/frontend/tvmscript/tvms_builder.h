// Internal to the TVMScript front end: the Builder walks the common syntax tree
// (core/syntax/ast.h) and builds the IR, with Python's scoping of names (a loop variable,
// block iterator or buffer lives until the end of the body that defined it). Failures
// are thrown as a Failure and become the Diagnostic parseTvmScript returns.
#pragma once

#include "core/frontend/tvmscript/tvmscript.h"
#include "core/syntax/ast.h"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace loopscape::frontend::tvms {

struct Failure {
  Diagnostic diagnostic;
};

/// Throws the Diagnostic "tvmscript.<kind>" at `loc`.
[[noreturn]] void fail(std::string_view kind, std::string message, const SourceLocation& loc);

/// What a name stands for.
struct Binding {
  enum class Kind : std::uint8_t { Value, Buffer, Handle, Module, EnvThread } kind = Kind::Value;
  ir::Expr value;    ///< Value: a Var (loop, iterator, size) or any expression
  ir::Buffer buffer; ///< Buffer
  std::string path;  ///< Module: "tir" or "ir"; Handle: the parameter's name; EnvThread: its tag
};

/// A call's arguments by position and keyword.
struct Args {
  std::string fn; ///< "T.grid", for messages
  SourceLocation loc;
  std::vector<const syntax::Node*> positional;
  std::vector<std::pair<std::string, const syntax::Node*>> keywords;
  const syntax::Node* keyword(std::string_view name) const;
};

class Builder {
public:
  explicit Builder(std::string fileName) : m_file(std::move(fileName)) {}

  TvmScriptProgram module(const syntax::Module& m);

  // ---- names (tvms_builder.cpp)
  void pushScope() { m_scopes.emplace_back(); }
  void popScope() { m_scopes.pop_back(); }
  void bind(const std::string& name, Binding b) { m_scopes.back()[name] = std::move(b); }
  const Binding* lookup(std::string_view name) const;
  /// "grid", "axis.remap", ... when `n` is `T.<path>` with T a TIR alias.
  std::optional<std::string> tirPath(const syntax::Node& n) const;
  /// The call's arguments, checked against the function's positional count and keywords.
  Args args(const syntax::Node& call, std::string fn, std::size_t minPositional, std::size_t maxPositional,
            std::initializer_list<std::string_view> keywords) const;

  // ---- expressions (tvms_expr.cpp)
  ir::Expr expr(const syntax::Node& n);
  /// `n` in type `t` when it is a bare literal (`0`, `1.5`, `-1`), else expr(n).
  ir::Expr exprAs(const syntax::Node& n, ir::DataType t);
  ir::Expr intExpr(const syntax::Node& n, std::string_view what);
  ir::Expr boolExpr(const syntax::Node& n, std::string_view what);
  std::string stringArg(const syntax::Node& n, std::string_view what) const;
  ir::DataType dtypeArg(const syntax::Node& n) const;
  ir::Buffer bufferRef(const syntax::Node& n) const;
  ir::BufferRegion region(const syntax::Node& n);
  std::vector<ir::BufferRegion> regions(const Args& a);
  ir::Annotations annotations(const syntax::Node& dict);
  /// A shape: a tuple or list (or one extent); a string entry is a symbolic size by name.
  std::vector<ir::Expr> shape(const syntax::Node& n);
  /// The size Var called `name` (made on first use, int32 unless `dtype` says otherwise).
  ir::Expr sizeVar(const std::string& name, ir::DataType dtype, const SourceLocation& loc);
  /// `T.Buffer(...)`, `T.match_buffer(h, ...)`, `T.alloc_buffer(...)`, `T.decl_buffer(...)`:
  /// shape, dtype, scope and strides from the arguments from `first` on.
  ir::Buffer bufferFromArgs(const Args& a, std::size_t first, const std::string& name);

  // ---- statements (tvms_stmt.cpp)
  ir::Stmt stmts(std::span<const syntax::Stmt> body);
  ir::Stmt block(const syntax::Stmt& with, const syntax::Node& call, const std::string& fn);

  const std::string& file() const { return m_file; }

  TvmScriptDialect dialect = TvmScriptDialect::Tir;
  /// Enclosing loops, innermost last: T.axis.remap takes its domains from them.
  struct Loop {
    ir::Expr var, min, extent;
  };
  std::vector<Loop> loops;
  /// Buffers the enclosing block (or the function's root) allocates with T.alloc_buffer.
  std::vector<ir::Buffer>* allocs = nullptr;

private:
  ir::PrimFunc function(const syntax::Stmt& def);
  ir::Expr binary(const syntax::Node& n, std::string_view op, const syntax::Node& a, const syntax::Node& b);
  ir::Expr call(const syntax::Node& n);
  ir::Stmt stmt(std::span<const syntax::Stmt> rest, std::size_t& used);
  ir::Stmt forLoop(const syntax::Stmt& s);
  ir::Stmt store(const syntax::Stmt& s);
  ir::Stmt let(const syntax::Stmt& s, std::span<const syntax::Stmt> rest, std::size_t& used);
  /// `T.launch_thread(tag or env thread, extent)` over `body` (the rest of the scope or a
  /// with body), named `name` when the script names it.
  ir::Stmt launchThread(const syntax::Node& call, const syntax::Node* name, std::span<const syntax::Stmt> body);

  std::string m_file;
  std::vector<std::map<std::string, Binding, std::less<>>> m_scopes;
  std::map<std::string, ir::Expr, std::less<>> m_sizeVars; ///< of the function being built
  /// The integer type each size variable of the function is declared with (`n: T.int64`
  /// parameters, `n = T.int64()` and `N, M = T.int32(), T.int32()` at the top of its
  /// body), read before its signature: TVM prints a size first as a string in a shape
  /// (`T.Buffer(("n", 8))`), then by name, and declares its type after the signature.
  std::map<std::string, ir::DataType, std::less<>> m_declaredSizes;
  /// Sizes the module declares for every function: TVM 0.27 writes an int64 size as
  /// `n = TypeVar("n")` before the functions that use it.
  std::map<std::string, ir::DataType, std::less<>> m_moduleSizes;
  void scanDeclaredSizes(const syntax::Stmt& def);
  /// A size variable named in a shape (string or name): declared or already created.
  ir::Expr shapeSize(const std::string& name, const SourceLocation& loc);
  /// The function being built and its parameters (handle name -> the buffer T.match_buffer
  /// gives it); set while its top-level statements are walked.
  ir::PrimFunc* m_func = nullptr;
  std::vector<std::pair<std::string, ir::Buffer>>* m_matchBuffers = nullptr;
  std::vector<ir::Buffer>* m_rootAllocs = nullptr; ///< the function's root allocations
  /// The init of the block whose body is being walked (`with T.init():` sets it).
  ir::Stmt* m_init = nullptr;
};

/// Whether `s` holds a block.
bool containsBlock(const ir::Stmt& s);

/// A block's read and write regions as its body accesses them (for a block without
/// T.reads/T.writes): one point region per buffer with one distinct index tuple, the hull
/// of constant offsets, else the whole dimension; reads leave out the buffers it writes.
std::pair<std::vector<ir::BufferRegion>, std::vector<ir::BufferRegion>> inferRegions(const ir::Stmt& body,
                                                                                     const ir::Stmt& init);

} // namespace loopscape::frontend::tvms
