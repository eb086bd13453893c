// Statement, function and module half of the TVMScript printer (see printer.h). The
// layout decisions mirror TVM's script printer (src/script/printer/tir/*.cc):
//   * a function's static-shape, global-scope, stride-free parameters print inline as
//     `A: T.Buffer(shape, dtype)`; any other parameter becomes `var_A: T.handle` plus
//     `A = T.match_buffer(var_A, shape)` in the body, preceded by `n = T.int32()` for each
//     size variable not defined yet (TVM defines them lazily, at first use);
//   * the root block is implicit (a comment) when it binds nothing, reads and writes
//     nothing, has no init or annotations, and either allocates or contains blocks;
//   * blocks print iterators, T.where, T.reads, T.writes, T.block_attr, T.alloc_buffer,
//     T.init and the body, in that order; runs of iterators bound to enclosing loop
//     variables with the same domain collapse into one T.axis.remap;
//   * LetStmt and Allocate print concisely (`x: T.int32 = v` / `B = T.decl_buffer(...)`
//     followed by the body at the same indentation) only as the last statement of their
//     sequence, otherwise as `with ... as x:` scopes, so the text keeps the scoping.
// Free variables of the body that are neither parameters' sizes nor bound anywhere are
// declared (`n = T.int32()`) right after the parameters.

#include "core/ir/printer.h"

#include "core/ir/script_markers.h"
#include "core/ir/visitor.h"

#include <algorithm>

namespace loopscape::ir {
namespace {

using detail::NameTable;

bool isZero(const Expr& e) { return isConstInt(e, 0); }
bool isTrue(const Expr& e) { return e.dtype().isBool() && isConstInt(e, 1); }

bool usesAnyVar(const Expr& e, const std::vector<const For*>& loops) {
  bool found = false;
  forEachExpr(e, [&](const Expr& sub) {
    for (const For* l : loops)
      if (sub.sameAs(l->loopVar)) found = true;
  });
  return found;
}

bool containsBlockRealize(const Stmt& s) {
  struct Finder final : StmtVisitor {
    bool found = false;
    void visitBlockRealize(const BlockRealize&, const Stmt&) override { found = true; }
  } finder;
  finder(s);
  return finder.found;
}

// Variables used in `body` that nothing in it binds and that are not in `known`, in order
// of first appearance.
std::vector<Expr> freeVars(const Stmt& body, const std::vector<Expr>& known) {
  struct Collector final : StmtVisitor {
    std::vector<const ExprNode*> bound;
    std::vector<Expr> used;
    void visitFor(const For& op, const Stmt& s) override {
      bound.push_back(op.loopVar.get());
      StmtVisitor::visitFor(op, s);
    }
    void visitBlock(const Block& op, const Stmt& s) override {
      for (const auto& iv : op.iterVars)
        bound.push_back(iv.var.get());
      for (const auto& b : op.allocBuffers)
        shapes(b);
      StmtVisitor::visitBlock(op, s);
    }
    void visitLetStmt(const LetStmt& op, const Stmt& s) override {
      bound.push_back(op.var.get());
      StmtVisitor::visitLetStmt(op, s);
    }
    void visitAllocate(const Allocate& op, const Stmt& s) override {
      shapes(op.buffer);
      StmtVisitor::visitAllocate(op, s);
    }
    void shapes(const Buffer& b) {
      for (const auto& e : b->shape)
        visitExpr(e);
      for (const auto& e : b->strides)
        visitExpr(e);
    }
    void visitExpr(const Expr& e) override {
      if (e.is<Var>() && std::none_of(used.begin(), used.end(), [&](const Expr& u) { return u.sameAs(e); }))
        used.push_back(e);
      ExprVisitor::visitExpr(e);
    }
  } c;
  c(body);
  std::vector<Expr> result;
  for (const auto& v : c.used) {
    bool isBound = std::find(c.bound.begin(), c.bound.end(), v.get()) != c.bound.end();
    bool isKnown = std::any_of(known.begin(), known.end(), [&](const Expr& k) { return k.sameAs(v); });
    if (!isBound && !isKnown) result.push_back(v);
  }
  return result;
}

bool isSimpleParam(const Buffer& b) {
  if (!b->strides.empty() || b->scope != MemoryScope::Global) return false;
  return std::all_of(b->shape.begin(), b->shape.end(), [](const Expr& s) { return s.is<IntImm>(); });
}

/// A buffer parameter whose extents are constants or int32 size variables (TVM 0.25-0.27
/// print it as `T.Buffer(("n", 8))`; an int64 size there is a typing.TypeVar, which
/// Loopscape does not print: such a buffer stays a handle bound by T.match_buffer).
bool isSimpleSymbolicParam(const Buffer& b) {
  if (!b->strides.empty() || b->scope != MemoryScope::Global) return false;
  return std::all_of(b->shape.begin(), b->shape.end(),
                     [](const Expr& s) { return s.is<IntImm>() || (s.is<Var>() && s.dtype() == DataType::int32()); });
}

std::string iterKindLetter(IterKind k) { return k == IterKind::Spatial ? "S" : "R"; } // remap has no other kinds

class Printer {
public:
  explicit Printer(int baseIndent = 0, PrintOptions options = {}) : m_base(baseIndent), m_options(options) {}

  std::string text() && { return std::move(m_out); }
  std::vector<PrintedSpan> spans() && { return std::move(m_spans); }

  void header(bool module) {
    if (module) emitRaw("# from tvm.script import ir as I");
    emitRaw(tirx() ? "# from tvm.script import tirx as T" : "# from tvm.script import tir as T");
    if (tirx()) emitRaw("# from tvm.tirx.layout import Axis"); // TVM 0.27 prints it on every script
    emitRaw("");
  }
  void emitRaw(std::string_view text) {
    m_out.append(text);
    m_out.push_back('\n');
    ++m_line;
  }

  void function(const PrimFunc& func);
  /// TVM's AsDocBody: a SeqStmt prints its children, concise scoping only for the last.
  void body(const Stmt& s, int indent);

private:
  int emit(int indent, std::string_view text) {
    if (!text.empty()) m_out.append(static_cast<std::size_t>(4 * (m_base + indent)), ' ');
    m_out.append(text);
    m_out.push_back('\n');
    return ++m_line;
  }
  void record(const StmtNode* node, int line, int indent, int offset, std::size_t length) {
    m_spans.push_back({node, line, 4 * (m_base + indent) + offset + 1, static_cast<int>(length)});
  }

  std::string expr(const Expr& e) { return detail::printExpr(e, m_names, m_options.dialect); }
  bool tirx() const { return m_options.dialect == ScriptDialect::Tirx; }
  /// T.block / T.sblock, T.alloc_buffer / T.sblock_alloc_buffer, ... in the dialect.
  std::string blockFn(std::string_view fn) const {
    if (!tirx()) return std::string(fn);
    if (fn == "block") return "sblock";
    if (fn == "block_attr") return "sblock_attr";
    return "sblock_" + std::string(fn);
  }
  std::string tuple(const std::vector<Expr>& items) {
    std::string out = "(";
    for (std::size_t i = 0; i < items.size(); ++i)
      out += (i ? ", " : "") + expr(items[i]);
    return out + (items.size() == 1 ? ",)" : ")");
  }
  /// An annotation dictionary. In T.func_attr (`function`), TVM 0.25-0.27 spell "tir."
  /// keys "tirx." and booleans True/False.
  std::string annotations(const Annotations& ann, bool function = false) {
    const bool tirxAttrs = function && tirx();
    std::string out = "{";
    bool first = true;
    for (const auto& [key, value] : ann) {
      const std::string k = tirxAttrs && key.starts_with("tir.") ? "tirx." + key.substr(4) : key;
      const std::string v = tirxAttrs && value.dtype().isBool() && value.is<IntImm>()
                                ? (isConstInt(value, 1) ? "True" : "False")
                                : expr(value);
      out += (first ? "" : ", ") + quoteString(k) + ": " + v;
      first = false;
    }
    return out + "}";
  }
  /// `T.<fn>([data, ]shape[, dtype][, strides=...][, scope=...])`.
  std::string bufferCall(std::string_view fn, const Buffer& b, std::string_view data = {}) {
    std::string out = fmt::format("T.{}(", fn);
    if (!data.empty()) out += std::string(data) + ", ";
    out += tuple(b->shape);
    if (b->dtype != DataType::float32()) out += ", " + quoteString(b->dtype.str());
    if (!b->strides.empty()) out += ", strides=" + tuple(b->strides);
    if (b->scope != MemoryScope::Global) out += ", scope=" + quoteString(memoryScopeName(b->scope));
    return out + ")";
  }
  std::string region(const BufferRegion& r) {
    std::string out = m_names.nameOf(r.buffer.get(), r.buffer->name) + "[";
    if (r.region.empty()) out += "()";
    for (std::size_t i = 0; i < r.region.size(); ++i) {
      const Range& range = r.region[i];
      if (i) out += ", ";
      if (isConstInt(range.extent, 1))
        out += expr(range.min);
      else
        out += expr(range.min) + ":" + expr(detail::addFolded(range.min, range.extent));
    }
    return out + "]";
  }
  void defineSizeVars(const Buffer& b) {
    auto define = [&](const Expr& e) {
      forEachExpr(e, [&](const Expr& sub) {
        if (!sub.is<Var>() || m_names.isDefined(sub.get())) return;
        std::string name = m_names.define(sub.get(), sub.as<Var>()->name);
        emit(1, fmt::format("{} = T.{}()", name, sub.dtype().str()));
      });
    };
    for (const auto& s : b->shape)
      define(s);
    for (const auto& s : b->strides)
      define(s);
  }

  void stmt(const Stmt& s, int indent, bool concise);
  void forLoop(const For& op, int indent);
  void launchThread(const For& op, int indent, bool concise);
  void block(const Block& blk, const BlockRealize* realize, int indent);
  void iterVars(const Block& blk, const BlockRealize* realize, int indent);

  int m_base;
  PrintOptions m_options;
  int m_line = 0;
  std::string m_out;
  std::vector<PrintedSpan> m_spans;
  NameTable m_names;
  std::vector<const For*> m_loops; ///< enclosing loops, outermost first
};

void Printer::function(const PrimFunc& func) {
  emit(0, tirx() ? "@T.prim_func(s_tir=True)" : "@T.prim_func");
  m_names = NameTable();
  m_names.pushScope();
  // Parameters.
  std::string params;
  std::vector<std::pair<Buffer, std::string>> matched; // buffer, handle name
  std::vector<Expr> namedByString;                     // tirx: sizes first named in a shape
  for (const auto& b : func.params) {
    if (!params.empty()) params += ", ";
    if (isSimpleParam(b)) {
      std::string name = m_names.define(b.get(), b->name);
      params += fmt::format("{}: T.Buffer({}, {})", name, tuple(b->shape), quoteString(b->dtype.str()));
    } else if (tirx() && isSimpleSymbolicParam(b)) {
      // TVM 0.25-0.27: an undefined size is a string at its first use, a name after it.
      std::vector<std::string> dims;
      for (const auto& d : b->shape) {
        if (d.is<Var>() && !m_names.isDefined(d.get())) {
          dims.push_back(quoteString(m_names.define(d.get(), d.as<Var>()->name)));
          namedByString.push_back(d);
        } else {
          dims.push_back(expr(d));
        }
      }
      std::string name = m_names.define(b.get(), b->name);
      params += fmt::format("{}: T.Buffer(({}{}), {})", name, fmt::join(dims, ", "), dims.size() == 1 ? "," : "",
                            quoteString(b->dtype.str()));
    } else {
      std::string handle = m_names.define(&b->shape, "var_" + b->name); // a stand-in node for the handle
      params += handle + ": T.handle";
      matched.emplace_back(b, handle);
    }
  }
  emit(0, fmt::format("def {}({}):", func.name, params));
  for (const auto& v : namedByString)
    emit(1, fmt::format("{} = T.{}()", m_names.nameOf(v.get(), v.as<Var>()->name), v.dtype().str()));
  if (!func.attrs.empty()) emit(1, "T.func_attr(" + annotations(func.attrs, true) + ")");
  for (const auto& [b, handle] : matched) {
    defineSizeVars(b);
    std::string rhs = bufferCall("match_buffer", b, handle);
    emit(1, m_names.define(b.get(), b->name) + " = " + rhs);
  }
  for (const auto& v : freeVars(func.body, func.sizeVars()))
    emit(1, fmt::format("{} = T.{}()", m_names.define(v.get(), v.as<Var>()->name), v.dtype().str()));

  // Body: the implicit root block, as TVM decides it.
  const auto* realize = func.body.as<BlockRealize>();
  const Block* root = realize ? realize->block.as<Block>() : nullptr;
  bool implicitRoot = false, noRoot = false;
  if (root && realize->iterValues.empty() && isTrue(realize->predicate) && root->reads.empty() &&
      root->writes.empty() && !root->init.defined()) {
    const auto* inner = root->body.as<BlockRealize>();
    if (root->annotations.empty())
      implicitRoot = !root->allocBuffers.empty() || (inner && !inner->blockNode().iterVars.empty()) ||
                     (!inner && containsBlockRealize(root->body));
    // The root the reader put around a body without blocks: TVM's function has none.
    noRoot = root->annotations.size() == 1 && root->annotations.contains(kNoRootAnnotation) &&
             root->allocBuffers.empty() && !containsBlockRealize(root->body);
  }
  if (noRoot) {
    body(root->body, 1);
  } else if (implicitRoot) {
    std::string comment = fmt::format("with T.{}({}):", blockFn("block"), quoteString(root->name));
    record(root, emit(1, "# " + comment), 1, 2, comment.size());
    for (const auto& b : root->allocBuffers) {
      std::string rhs = bufferCall(blockFn("alloc_buffer"), b);
      emit(1, m_names.define(b.get(), b->name) + " = " + rhs);
    }
    body(root->body, 1);
  } else {
    body(func.body, 1);
  }
  m_names.popScope();
}

void Printer::body(const Stmt& s, int indent) {
  if (const auto* seq = s.as<SeqStmt>()) {
    // TVM 0.25-0.27 scope a sequence's statements fully (a sole body statement is concise);
    // earlier versions let the last statement of a sequence be concise too.
    for (std::size_t i = 0; i < seq->seq.size(); ++i)
      stmt(seq->seq[i], indent, i + 1 == seq->seq.size() && !tirx());
    return;
  }
  stmt(s, indent, true);
}

void Printer::stmt(const Stmt& s, int indent, bool concise) {
  switch (s.kind()) {
  case StmtKind::For: {
    const For& op = *s.as<For>();
    if (op.forKind == ForKind::ThreadBinding && isZero(op.min) && op.annotations.size() == 1 &&
        op.annotations.contains(kLaunchThreadAnnotation))
      return launchThread(op, indent, concise);
    return forLoop(op, indent);
  }
  case StmtKind::BlockRealize: {
    const auto* r = s.as<BlockRealize>();
    return block(r->blockNode(), r, indent);
  }
  case StmtKind::Block: return block(*s.as<Block>(), nullptr, indent);
  case StmtKind::BufferStore: {
    const auto* op = s.as<BufferStore>();
    std::string lhs = m_names.nameOf(op->buffer.get(), op->buffer->name) + detail::printIndices(op->indices, m_names);
    emit(indent, lhs + " = " + expr(op->value));
    return;
  }
  case StmtKind::SeqStmt: return body(s, indent);
  case StmtKind::IfThenElse: {
    const auto* op = s.as<IfThenElse>();
    emit(indent, "if " + expr(op->condition) + ":");
    m_names.pushScope();
    body(op->thenCase, indent + 1);
    m_names.popScope();
    if (op->elseCase.defined()) {
      emit(indent, "else:");
      m_names.pushScope();
      body(op->elseCase, indent + 1);
      m_names.popScope();
    }
    return;
  }
  case StmtKind::Evaluate: {
    const auto* op = s.as<Evaluate>();
    emit(indent, op->value.is<Call>() ? expr(op->value) : "T.evaluate(" + expr(op->value) + ")");
    return;
  }
  case StmtKind::Assume: emit(indent, "T.assume(" + expr(s.as<Assume>()->condition) + ")"); return;
  case StmtKind::LetStmt: {
    const auto* op = s.as<LetStmt>();
    std::string rhs = expr(op->value);
    std::string type = "T." + op->var.dtype().str();
    bool redefined = m_names.isDefined(op->var.get());
    m_names.pushScope();
    if (redefined) {
      emit(indent, fmt::format("with T.LetStmt({}, var={}):", rhs, expr(op->var)));
      body(op->body, indent + 1);
    } else {
      std::string lhs = m_names.define(op->var.get(), op->var.as<Var>()->name);
      // TVM 0.25-0.27 have no T.LetStmt: a let is a flat binding (tirx.Bind) there.
      if (concise || tirx()) {
        emit(indent, fmt::format("{}: {} = {}", lhs, type, rhs));
        body(op->body, indent);
      } else {
        emit(indent, fmt::format("with T.LetStmt({}) as {}:", rhs, lhs));
        body(op->body, indent + 1);
      }
    }
    m_names.popScope();
    return;
  }
  case StmtKind::Allocate: {
    const auto* op = s.as<Allocate>();
    std::string rhs = bufferCall("decl_buffer", op->buffer);
    m_names.pushScope();
    std::string lhs = m_names.define(op->buffer.get(), op->buffer->name);
    if (concise || tirx()) { // flat in TVM 0.25-0.27, as lets are
      emit(indent, lhs + " = " + rhs);
      body(op->body, indent);
    } else {
      emit(indent, fmt::format("with {} as {}:", rhs, lhs));
      body(op->body, indent + 1);
    }
    m_names.popScope();
    return;
  }
  }
  LS_UNREACHABLE("bad StmtKind");
}

void Printer::forLoop(const For& op, int indent) {
  // A T.grid: consecutive serial, unannotated, zero-based loops, each the sole body of the
  // previous one, whose extents do not use the grid's own variables.
  std::vector<const For*> grid;
  for (const For* l = &op; l; l = l->body.as<For>()) {
    if (l->forKind != ForKind::Serial || !isZero(l->min) || !l->annotations.empty() || usesAnyVar(l->extent, grid))
      break;
    grid.push_back(l);
  }
  m_names.pushScope();
  const For* last = &op;
  if (grid.size() > 1) {
    std::string vars, extents;
    // A loop of a grid is marked by its variable name in the header ("k" of
    // "for i, j, k in T.grid(...)"), so error marks and clicks single it out.
    std::vector<std::pair<std::size_t, std::size_t>> varSpans;
    for (std::size_t i = 0; i < grid.size(); ++i) {
      if (i) vars += ", ";
      const std::string name = m_names.define(grid[i]->loopVar.get(), grid[i]->loopVar.as<Var>()->name);
      varSpans.emplace_back(4 + vars.size(), name.size());
      vars += name;
      extents += (i ? ", " : "") + expr(grid[i]->extent);
    }
    std::string header = fmt::format("for {} in T.grid({}):", vars, extents);
    int line = emit(indent, header);
    for (std::size_t i = 0; i < grid.size(); ++i)
      record(grid[i], line, indent, static_cast<int>(varSpans[i].first), varSpans[i].second);
    last = grid.back();
  } else {
    std::string var = m_names.define(op.loopVar.get(), op.loopVar.as<Var>()->name);
    std::string args =
        isZero(op.min) ? expr(op.extent) : expr(op.min) + ", " + expr(detail::addFolded(op.min, op.extent));
    if (op.forKind == ForKind::ThreadBinding) args += ", thread=" + quoteString(op.threadTag);
    if (!op.annotations.empty()) args += ", annotations=" + annotations(op.annotations);
    std::string fn;
    switch (op.forKind) {
    case ForKind::Serial: fn = op.annotations.empty() ? "range" : "T.serial"; break;
    case ForKind::Parallel: fn = "T.parallel"; break;
    case ForKind::Vectorized: fn = "T.vectorized"; break;
    case ForKind::Unrolled: fn = "T.unroll"; break;
    case ForKind::ThreadBinding: fn = "T.thread_binding"; break;
    }
    std::string header = fmt::format("for {} in {}({}):", var, fn, args);
    record(&op, emit(indent, header), indent, 0, header.size());
    grid = {&op};
  }
  m_loops.insert(m_loops.end(), grid.begin(), grid.end());
  body(last->body, indent + 1);
  m_loops.resize(m_loops.size() - grid.size());
  m_names.popScope();
}

// TVM 0.13+ print a thread_extent attribute as `x = T.launch_thread("threadIdx.x", 32)`
// followed by its body where concise scoping is allowed (see body()), else as a
// `with ... as x:` scope.
void Printer::launchThread(const For& op, int indent, bool concise) {
  m_names.pushScope();
  const std::string var = m_names.define(op.loopVar.get(), op.loopVar.as<Var>()->name);
  const std::string call = fmt::format("T.launch_thread({}, {})", quoteString(op.threadTag), expr(op.extent));
  const std::string header = concise ? var + " = " + call : fmt::format("with {} as {}:", call, var);
  record(&op, emit(indent, header), indent, 0, header.size());
  m_loops.push_back(&op);
  body(op.body, concise ? indent : indent + 1);
  m_loops.pop_back();
  m_names.popScope();
}

void Printer::iterVars(const Block& blk, const BlockRealize* realize, int indent) {
  auto remappable = [&](std::size_t i) {
    if (!realize) return false;
    const IterVar& iv = blk.iterVars[i];
    const Expr& value = realize->iterValues[i];
    if (!value.is<Var>() || (iv.kind != IterKind::Spatial && iv.kind != IterKind::Reduce)) return false;
    return std::any_of(m_loops.begin(), m_loops.end(), [&](const For* l) {
      return l->loopVar.sameAs(value) && detail::exprEqual(l->min, iv.dom.min) &&
             detail::exprEqual(l->extent, iv.dom.extent);
    });
  };
  auto single = [&](std::size_t i) {
    const IterVar& iv = blk.iterVars[i];
    std::string dom = isZero(iv.dom.min)
                          ? expr(iv.dom.extent)
                          : "(" + expr(iv.dom.min) + ", " + expr(detail::addFolded(iv.dom.min, iv.dom.extent)) + ")";
    std::string args = realize ? dom + ", " + expr(realize->iterValues[i]) : dom;
    std::string kind = iterKindName(iv.kind);
    std::string lhs = m_names.define(iv.var.get(), iv.var.as<Var>()->name);
    emit(indent, fmt::format("{} = T.axis.{}({})", lhs, kind, args));
  };
  std::vector<std::size_t> run;
  auto flush = [&] {
    if (run.size() == 1) single(run.front());
    if (run.size() > 1) {
      std::string lhs, values, kinds;
      for (std::size_t k = 0; k < run.size(); ++k) {
        const IterVar& iv = blk.iterVars[run[k]];
        lhs += (k ? ", " : "") + m_names.define(iv.var.get(), iv.var.as<Var>()->name);
        values += (k ? ", " : "") + expr(realize->iterValues[run[k]]);
        kinds += iterKindLetter(iv.kind);
      }
      emit(indent, fmt::format("{} = T.axis.remap({}, [{}])", lhs, quoteString(kinds), values));
    }
    run.clear();
  };
  for (std::size_t i = 0; i < blk.iterVars.size(); ++i) {
    if (remappable(i)) {
      run.push_back(i);
      continue;
    }
    flush();
    single(i);
  }
  flush();
}

void Printer::block(const Block& blk, const BlockRealize* realize, int indent) {
  std::string header = realize
                           ? fmt::format("with T.{}({}):", blockFn("block"), quoteString(blk.name))
                           : fmt::format("with T.{}({}, no_realize=True):", blockFn("block"), quoteString(blk.name));
  record(&blk, emit(indent, header), indent, 0, header.size());
  m_names.pushScope();
  int in = indent + 1;
  iterVars(blk, realize, in);
  if (realize && !isTrue(realize->predicate)) emit(in, "T.where(" + expr(realize->predicate) + ")");
  auto regions = [&](const char* fn, const std::vector<BufferRegion>& rs) {
    std::string out = fmt::format("T.{}(", fn);
    for (std::size_t i = 0; i < rs.size(); ++i)
      out += (i ? ", " : "") + region(rs[i]);
    emit(in, out + ")");
  };
  regions("reads", blk.reads);
  regions("writes", blk.writes);
  if (!blk.annotations.empty()) emit(in, "T." + blockFn("block_attr") + "(" + annotations(blk.annotations) + ")");
  for (const auto& b : blk.allocBuffers) {
    std::string rhs = bufferCall(blockFn("alloc_buffer"), b);
    emit(in, m_names.define(b.get(), b->name) + " = " + rhs);
  }
  if (blk.init.defined()) {
    emit(in, "with T.init():");
    m_names.pushScope();
    body(blk.init, in + 1);
    m_names.popScope();
  }
  body(blk.body, in);
  m_names.popScope();
}

} // namespace

PrintedProgram printPrimFuncWithSpans(const PrimFunc& func, const PrintOptions& options) {
  Printer p(0, options);
  p.header(false);
  p.function(func);
  PrintedProgram out;
  out.spans = std::move(p).spans();
  out.text = std::move(p).text();
  return out;
}

std::string printPrimFunc(const PrimFunc& func, const PrintOptions& options) {
  return printPrimFuncWithSpans(func, options).text;
}

std::string printModule(const IRModule& module, const PrintOptions& options) {
  std::vector<const PrimFunc*> funcs;
  for (const auto& f : module.functions)
    funcs.push_back(&f);
  // TVM prints "main" first, then the other functions by name.
  std::stable_sort(funcs.begin(), funcs.end(), [](const PrimFunc* a, const PrimFunc* b) {
    std::string_view x = a->name == "main" ? std::string_view() : std::string_view(a->name);
    std::string_view y = b->name == "main" ? std::string_view() : std::string_view(b->name);
    return x < y;
  });
  Printer p(1, options);
  p.header(true);
  p.emitRaw("@I.ir_module");
  p.emitRaw("class Module:");
  for (std::size_t i = 0; i < funcs.size(); ++i) {
    if (i) p.emitRaw("");
    p.function(*funcs[i]);
  }
  return std::move(p).text();
}

std::string printStmt(const Stmt& s) {
  Printer p;
  p.body(s, 0);
  return std::move(p).text();
}

} // namespace loopscape::ir
