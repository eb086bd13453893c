// TVMScript statements: declarations (sizes, T.match_buffer, T.alloc_buffer,
// T.decl_buffer), loops, blocks with their iterators and header, stores, if/else,
// T.evaluate and T.LetStmt.
#include "core/frontend/tvmscript/tvms_builder.h"
#include "core/frontend/tvmscript/tvms_range.h"

#include "core/ir/op.h"
#include "core/ir/resource_limits.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::frontend::tvms {

using syntax::Node;
using syntax::NodeKind;
using syntax::StmtKind;

namespace {

ir::Stmt orNoOp(ir::Stmt s) { return s ? s : ir::Evaluate::make(ir::intImm(0)); }

std::optional<ir::ForKind> loopKind(std::string_view fn) {
  if (fn == "serial") return ir::ForKind::Serial;
  if (fn == "parallel") return ir::ForKind::Parallel;
  if (fn == "vectorized") return ir::ForKind::Vectorized;
  if (fn == "unroll") return ir::ForKind::Unrolled;
  if (fn == "thread_binding") return ir::ForKind::ThreadBinding;
  return std::nullopt;
}

const std::string& nameTarget(const syntax::Stmt& s, std::string_view what) {
  if (s.targets.size() != 1 || s.targets[0]->kind != NodeKind::Name)
    fail("unsupported", fmt::format("{} is assigned to one name", what), s.loc);
  return s.targets[0]->text;
}

} // namespace

bool containsBlock(const ir::Stmt& s) {
  bool found = false;
  struct Finder final : ir::StmtVisitor {
    bool* found;
    void visitBlockRealize(const ir::BlockRealize&, const ir::Stmt&) override { *found = true; }
    void visitBlock(const ir::Block&, const ir::Stmt&) override { *found = true; }
  } finder;
  finder.found = &found;
  finder.visitStmt(s);
  return found;
}

ir::Stmt Builder::stmts(std::span<const syntax::Stmt> body) {
  std::vector<ir::Stmt> out;
  std::size_t i = 0;
  while (i < body.size()) {
    std::size_t used = 1;
    ir::Stmt s = stmt(body.subspan(i), used);
    if (s) out.push_back(std::move(s));
    i += used;
  }
  if (out.empty()) return {};
  return out.size() == 1 ? out.front() : ir::SeqStmt::make(std::move(out));
}

ir::Stmt Builder::stmt(std::span<const syntax::Stmt> rest, std::size_t& used) {
  const syntax::Stmt& s = rest.front();
  used = 1;
  switch (s.kind) {
  case StmtKind::Pass: return {};
  case StmtKind::Expr: {
    const Node& v = *s.value;
    if (v.kind == NodeKind::Str) return {}; // a docstring
    auto path = v.kind == NodeKind::Call ? tirPath(*v.kids[0]) : std::nullopt;
    if (!path)
      fail("unsupported", "an expression statement does nothing here; evaluate a call with T.evaluate(...)", v.loc);
    if (*path == "func_attr") {
      if (!m_func || !loops.empty())
        fail("unsupported", "T.func_attr appears only at the top of a function's body", v.loc);
      m_func->attrs = annotations(*args(v, "T.func_attr", 1, 1, {}).positional[0]);
      return {};
    }
    if (*path == "assume") return ir::Assume::make(boolExpr(*args(v, "T.assume", 1, 1, {}).positional[0], "T.assume"));
    if (*path == "evaluate") {
      // `T.evaluate(T.assume(c))`, as TVM before 0.13 printed an assumption, is one.
      const Node& value = *args(v, "T.evaluate", 1, 1, {}).positional[0];
      if (value.kind == NodeKind::Call && tirPath(*value.kids[0]) == "assume")
        return ir::Assume::make(boolExpr(*args(value, "T.assume", 1, 1, {}).positional[0], "T.assume"));
      return ir::Evaluate::make(expr(value));
    }
    if (*path == "launch_thread") {
      used = rest.size();
      return launchThread(v, nullptr, rest.subspan(1));
    }
    if (*path == "reads" || *path == "writes" || *path == "where" || *path == "block_attr" || *path == "sblock_attr")
      fail("block", fmt::format("T.{} appears only at the start of a block, before its statements", *path), v.loc);
    fail("unsupported", fmt::format("T.{} is not a statement Loopscape reads", *path), v.kids[0]->loc);
  }
  case StmtKind::Assign: {
    if (s.targets.size() != 1) fail("unsupported", "chained assignments are not TIR", s.loc);
    const Node& target = *s.targets[0];
    if (target.kind == NodeKind::Subscript) return store(s);
    const Node& v = *s.value;
    if (s.annotation) return let(s, rest, used);
    if (target.kind == NodeKind::Tuple && v.kind == NodeKind::Tuple && target.kids.size() == v.kids.size()) {
      // `N, M = T.int32(), T.int32()`: size variables, as TVM declares several.
      for (std::size_t i = 0; i < target.kids.size(); ++i) {
        const Node& name = *target.kids[i];
        const Node& call = *v.kids[i];
        auto t = call.kind == NodeKind::Call && call.kids.size() == 1 ? tirPath(*call.kids[0]) : std::nullopt;
        auto dtype = t ? ir::DataType::parse(*t) : std::nullopt;
        if (name.kind != NodeKind::Name || !dtype || !dtype->isInteger() || !dtype->isScalar())
          fail("unsupported", "a tuple assignment declares size variables only (N, M = T.int32(), T.int32())",
               call.loc);
        bind(name.text, Binding{Binding::Kind::Value, sizeVar(name.text, *dtype, name.loc), {}, {}});
      }
      return {};
    }
    auto path = v.kind == NodeKind::Call ? tirPath(*v.kids[0]) : std::nullopt;
    if (path) {
      if (auto t = ir::DataType::parse(*path); t && t->isInteger() && t->isScalar() && v.kids.size() == 1) {
        const std::string& name = nameTarget(s, "a size variable");
        bind(name, Binding{Binding::Kind::Value, sizeVar(name, *t, target.loc), {}, {}});
        return {};
      }
      if (*path == "env_thread") {
        const std::string& name = nameTarget(s, "T.env_thread");
        const std::string tag = stringArg(*args(v, "T.env_thread", 1, 1, {}).positional[0], "a thread tag");
        if (tag.empty()) fail("loop", "the thread tag must not be empty", v.loc);
        bind(name, Binding{Binding::Kind::EnvThread, {}, {}, tag});
        return {};
      }
      if (*path == "launch_thread") {
        used = rest.size();
        return launchThread(v, &target, rest.subspan(1));
      }
      if (*path == "var") {
        const std::string& name = nameTarget(s, "a size variable");
        ir::DataType t = dtypeArg(*args(v, "T.var", 1, 1, {}).positional[0]);
        if (!t.isInteger() || !t.isScalar()) fail("unsupported", "T.var declares an integer size", v.loc);
        bind(name, Binding{Binding::Kind::Value, sizeVar(name, t, target.loc), {}, {}});
        return {};
      }
      if (*path == "match_buffer") {
        const std::string& name = nameTarget(s, "T.match_buffer");
        if (!m_matchBuffers || !loops.empty() || allocs != m_rootAllocs)
          fail("unsupported",
               "T.match_buffer appears only at the top of a function's body (a block's match buffers are not "
               "supported)",
               v.loc);
        Args a = args(
            v, "T.match_buffer", 2, 3,
            {"dtype", "strides", "scope", "offset_factor", "align", "elem_offset", "buffer_type", "axis_separators"});
        const Node& handle = *a.positional[0];
        const Binding* h = handle.kind == NodeKind::Name ? lookup(handle.text) : nullptr;
        if (!h || h->kind != Binding::Kind::Handle)
          fail("param", "the first argument of T.match_buffer must be a T.handle parameter", handle.loc);
        auto slot = std::find_if(m_matchBuffers->begin(), m_matchBuffers->end(),
                                 [&](const auto& p) { return p.first == h->path; });
        if (slot->second)
          fail("param", fmt::format("parameter '{}' is matched to a buffer twice", h->path), handle.loc);
        slot->second = bufferFromArgs(a, 1, name);
        bind(name, Binding{Binding::Kind::Buffer, {}, slot->second, {}});
        return {};
      }
      if (*path == "alloc_buffer" || *path == "sblock_alloc_buffer") {
        const std::string& name = nameTarget(s, "T.alloc_buffer");
        if (!allocs) fail("unsupported", "T.alloc_buffer appears only in a block or a function", v.loc);
        ir::Buffer b = bufferFromArgs(args(v, "T." + *path, 1, 2,
                                           {"dtype", "scope", "strides", "align", "offset_factor", "data",
                                            "elem_offset", "buffer_type", "axis_separators"}),
                                      0, name);
        allocs->push_back(b);
        bind(name, Binding{Binding::Kind::Buffer, {}, b, {}});
        return {};
      }
      if (*path == "decl_buffer") {
        // `B = T.decl_buffer(...)`: the rest of the body is the allocation's scope.
        const std::string& name = nameTarget(s, "T.decl_buffer");
        ir::Buffer b = bufferFromArgs(args(v, "T.decl_buffer", 1, 2, {"dtype", "scope", "strides", "data"}), 0, name);
        pushScope();
        bind(name, Binding{Binding::Kind::Buffer, {}, b, {}});
        ir::Stmt body = orNoOp(stmts(rest.subspan(1)));
        popScope();
        used = rest.size();
        return ir::Allocate::make(b, body);
      }
      if (path->starts_with("axis."))
        fail("block", fmt::format("T.{} declares a block iterator: it appears only at the start of a block", *path),
             v.loc);
    }
    fail("unsupported",
         "only declarations are assigned to names (n = T.int32(), A = T.match_buffer(...), "
         "A = T.alloc_buffer(...)); a store writes a buffer element (A[i] = ...)",
         s.loc);
  }
  case StmtKind::AugAssign: {
    if (s.targets.size() != 1 || s.targets[0]->kind != NodeKind::Subscript)
      fail("unsupported", "an augmented assignment must update a buffer element (A[i] += ...)", s.loc);
    return store(s);
  }
  case StmtKind::For: return forLoop(s);
  case StmtKind::If: {
    ir::Expr c = boolExpr(*s.value, "an if condition");
    pushScope();
    ir::Stmt then = orNoOp(stmts(s.body));
    popScope();
    pushScope();
    ir::Stmt otherwise = stmts(s.orelse);
    popScope();
    return ir::IfThenElse::make(c, then, otherwise);
  }
  case StmtKind::With: {
    if (s.items.size() != 1) fail("unsupported", "a with statement takes one context here", s.loc);
    const Node& ctx = *s.items[0].context;
    auto path = ctx.kind == NodeKind::Call ? tirPath(*ctx.kids[0]) : std::nullopt;
    if (!path) fail("unsupported", "expected T.block(...), T.init(), T.LetStmt(...) or T.decl_buffer(...)", ctx.loc);
    if (*path == "block" || *path == "sblock") {
      if (*path == "sblock") dialect = TvmScriptDialect::Tirx;
      if (s.items[0].target) fail("unsupported", "a block has no `as` name", s.items[0].target->loc);
      return block(s, ctx, "T." + *path);
    }
    if (*path == "init") {
      if (!m_init || *m_init)
        fail("block", m_init ? "a block has one T.init()" : "T.init() appears only directly in a block's body",
             ctx.loc);
      args(ctx, "T.init", 0, 0, {});
      pushScope();
      *m_init = orNoOp(stmts(s.body));
      popScope();
      return {};
    }
    if (*path == "launch_thread") return launchThread(ctx, s.items[0].target.get(), s.body);
    if (*path == "LetStmt") {
      Args a = args(ctx, "T.LetStmt", 1, 1, {"var"});
      ir::Expr value = expr(*a.positional[0]);
      const Node* target = s.items[0].target.get();
      if (!target || target->kind != NodeKind::Name)
        fail("unsupported", "write `with T.LetStmt(value) as x:`", ctx.loc);
      ir::Expr var = ir::Var::make(target->text, value.dtype());
      pushScope();
      bind(target->text, Binding{Binding::Kind::Value, var, {}, {}});
      ir::Stmt body = orNoOp(stmts(s.body));
      popScope();
      return ir::LetStmt::make(var, value, body);
    }
    if (*path == "decl_buffer") {
      const Node* target = s.items[0].target.get();
      if (!target || target->kind != NodeKind::Name)
        fail("unsupported", "write `with T.decl_buffer(shape, dtype) as B:`", ctx.loc);
      ir::Buffer b =
          bufferFromArgs(args(ctx, "T.decl_buffer", 1, 2, {"dtype", "scope", "strides", "data"}), 0, target->text);
      pushScope();
      bind(target->text, Binding{Binding::Kind::Buffer, {}, b, {}});
      ir::Stmt body = orNoOp(stmts(s.body));
      popScope();
      return ir::Allocate::make(b, body);
    }
    fail("unsupported", fmt::format("with T.{} is not supported", *path), ctx.loc);
  }
  case StmtKind::Return: fail("unsupported", "a prim_func does not return a value", s.loc);
  default: break;
  }
  fail("unsupported", "this statement is not part of TVMScript's TIR dialect", s.loc);
}

ir::Stmt Builder::let(const syntax::Stmt& s, std::span<const syntax::Stmt> rest, std::size_t& used) {
  // `x: T.int32 = value` or `x: T.let[T.int32] = value`: a LetStmt over the rest of the body.
  const std::string& name = nameTarget(s, "an annotated assignment");
  const Node* type = s.annotation.get();
  if (type->kind == NodeKind::Subscript && tirPath(*type->kids[0]) == "let" && type->kids.size() == 2)
    type = type->kids[1].get();
  auto path = tirPath(*type);
  auto dtype = path ? ir::DataType::parse(*path) : std::nullopt;
  if (!dtype || !dtype->isScalar())
    fail("unsupported", "the annotation of a let must be a scalar type such as T.int32 or T.let[T.float32]",
         s.annotation->loc);
  ir::Expr value = exprAs(*s.value, *dtype);
  if (value.dtype() != *dtype)
    fail("type", fmt::format("'{}' is declared {} but its value is {}", name, dtype->str(), value.dtype().str()),
         s.value->loc);
  ir::Expr var = ir::Var::make(name, *dtype);
  pushScope();
  bind(name, Binding{Binding::Kind::Value, var, {}, {}});
  ir::Stmt body = orNoOp(stmts(rest.subspan(1)));
  popScope();
  used = rest.size();
  return ir::LetStmt::make(var, value, body);
}

ir::Stmt Builder::store(const syntax::Stmt& s) {
  const Node& target = *s.targets[0];
  ir::Buffer buffer = bufferRef(*target.kids[0]);
  // The indices as a load would read them (so rank and slice errors read the same).
  ir::Expr load = expr(target);
  std::vector<ir::Expr> indices = load.as<ir::BufferLoad>()->indices;
  ir::Expr value = exprAs(*s.value, buffer->dtype);
  if (s.kind == StmtKind::AugAssign) {
    static const std::pair<std::string_view, ir::ExprKind> kOps[] = {
        {"+", ir::ExprKind::Add}, {"-", ir::ExprKind::Sub}, {"*", ir::ExprKind::Mul}, {"/", ir::ExprKind::Div}};
    auto it = std::find_if(std::begin(kOps), std::end(kOps), [&](const auto& p) { return p.first == s.op; });
    if (it == std::end(kOps)) fail("unsupported", fmt::format("'{}=' is not supported", s.op), s.loc);
    if (value.dtype() != load.dtype())
      fail("type",
           fmt::format("'{}=' of a {} value into {} buffer '{}'", s.op, value.dtype().str(), load.dtype().str(),
                       buffer->name),
           s.value->loc);
    switch (it->second) {
    case ir::ExprKind::Add: value = ir::Add::make(load, value); break;
    case ir::ExprKind::Sub: value = ir::Sub::make(load, value); break;
    case ir::ExprKind::Mul: value = ir::Mul::make(load, value); break;
    default: value = ir::Div::make(load, value); break;
    }
  }
  if (value.dtype().element() != buffer->dtype)
    fail("type",
         fmt::format("storing a {} value into {} buffer '{}'; convert it with T.Cast", value.dtype().str(),
                     buffer->dtype.str(), buffer->name),
         s.value->loc);
  return ir::BufferStore::make(buffer, value, std::move(indices));
}

ir::Stmt Builder::forLoop(const syntax::Stmt& s) {
  const Node& target = *s.targets[0];
  const Node& it = *s.value;
  std::vector<const Node*> names;
  if (target.kind == NodeKind::Name)
    names.push_back(&target);
  else if (target.kind == NodeKind::Tuple)
    for (const auto& k : target.kids)
      names.push_back(k.get());
  for (const Node* n : names)
    if (n->kind != NodeKind::Name) fail("unsupported", "a loop variable must be a name", n->loc);
  if (names.empty()) fail("unsupported", "a loop variable must be a name", target.loc);
  if (it.kind != NodeKind::Call) fail("loop", "expected range(...), T.grid(...) or T.serial(...) after 'in'", it.loc);

  struct Header {
    ir::Expr min, extent;
    ir::ForKind kind = ir::ForKind::Serial;
    std::string thread;
    ir::Annotations annotations;
  };
  std::vector<Header> headers;
  auto bounds = [&](const Args& a) {
    Header h;
    if (a.positional.size() == 1) {
      h.extent = intExpr(*a.positional[0], "a loop extent");
      h.min = ir::makeConst(h.extent.dtype(), 0);
    } else {
      h.min = intExpr(*a.positional[0], "a loop start");
      ir::Expr stop = exprAs(*a.positional[1], h.min.dtype());
      if (!stop.dtype().isInteger()) fail("type", "a loop end must be an integer", a.positional[1]->loc);
      h.extent = extentBetween(h.min, stop);
      if (!h.extent.defined()) fail("type", "a loop's start and end have different types", a.positional[1]->loc);
    }
    ir::matchIntegerTypes(h.min, h.extent);
    if (h.min.dtype() != h.extent.dtype())
      fail("type",
           fmt::format("a loop's start and extent have different types: {} and {}", h.min.dtype().str(),
                       h.extent.dtype().str()),
           a.positional[0]->loc);
    return h;
  };
  const bool isRange = it.kids[0]->kind == NodeKind::Name && it.kids[0]->text == "range" && !lookup("range");
  auto path = tirPath(*it.kids[0]);
  if (isRange) {
    headers.push_back(bounds(args(it, "range", 1, 2, {})));
  } else if (path == "grid") {
    Args a = args(it, "T.grid", 1, SIZE_MAX, {});
    if (a.positional.size() != names.size())
      fail("loop",
           fmt::format("T.grid has {} extents for {} loop variable{}", a.positional.size(), names.size(),
                       names.size() == 1 ? "" : "s"),
           it.loc);
    for (const Node* e : a.positional) {
      Args one;
      one.positional = {e};
      headers.push_back(bounds(one));
    }
  } else if (path && loopKind(*path)) {
    const ir::ForKind kind = *loopKind(*path);
    Args a = args(it, "T." + *path, 1, 2, {"annotations", "thread"});
    Header h = bounds(a);
    h.kind = kind;
    if (const Node* ann = a.keyword("annotations")) h.annotations = annotations(*ann);
    if (kind == ir::ForKind::ThreadBinding) {
      const Node* thread = a.keyword("thread");
      if (!thread) fail("loop", "T.thread_binding needs thread=\"threadIdx.x\" (or another tag)", it.loc);
      h.thread = stringArg(*thread, "a thread tag");
      if (h.thread.empty()) fail("loop", "the thread tag must not be empty", thread->loc);
    } else if (a.keyword("thread")) {
      fail("call", fmt::format("T.{} has no argument 'thread'", *path), it.loc);
    }
    headers.push_back(std::move(h));
  } else {
    fail("loop",
         "expected range(...), T.grid(...), T.serial(...), T.parallel(...), T.vectorized(...), "
         "T.unroll(...) or T.thread_binding(...) after 'in'",
         it.kids[0]->loc);
  }
  if (headers.size() != names.size())
    fail("loop", fmt::format("one loop has one variable, got {}", names.size()), target.loc);
  if (loops.size() + headers.size() > static_cast<std::size_t>(ir::resourceLimits().maxNestingDepth))
    fail("too-deep", fmt::format("loops nest deeper than {}", ir::resourceLimits().maxNestingDepth), s.loc);

  pushScope();
  std::vector<ir::Expr> vars;
  for (std::size_t i = 0; i < names.size(); ++i) {
    ir::Expr v = ir::Var::make(names[i]->text, headers[i].extent.dtype());
    bind(names[i]->text, Binding{Binding::Kind::Value, v, {}, {}});
    loops.push_back({v, headers[i].min, headers[i].extent});
    vars.push_back(v);
  }
  ir::Stmt* savedInit = m_init;
  m_init = nullptr;
  ir::Stmt body = orNoOp(stmts(s.body));
  m_init = savedInit;
  loops.resize(loops.size() - names.size());
  popScope();
  for (std::size_t i = names.size(); i-- > 0;) {
    const Header& h = headers[i];
    body = ir::For::make(vars[i], h.min, h.extent, h.kind, body, h.thread, h.annotations);
  }
  return body;
}

ir::Stmt Builder::launchThread(const Node& call, const Node* name, std::span<const syntax::Stmt> body) {
  // TVM's thread_extent attribute: the body runs once per thread of the tag, with the
  // variable its index: a thread-bound loop from 0, marked to print back as written.
  Args a = args(call, "T.launch_thread", 2, 2, {});
  const Node& thread = *a.positional[0];
  std::string tag, varName;
  if (thread.kind == NodeKind::Str) {
    tag = thread.text;
  } else {
    const Binding* env = thread.kind == NodeKind::Name ? lookup(thread.text) : nullptr;
    if (!env || env->kind != Binding::Kind::EnvThread)
      fail("loop", "T.launch_thread takes a thread tag (\"threadIdx.x\") or a variable from T.env_thread", thread.loc);
    tag = env->path;
    varName = thread.text;
  }
  if (tag.empty()) fail("loop", "the thread tag must not be empty", thread.loc);
  if (name && name->kind != NodeKind::Name) fail("unsupported", "a launched thread is named by one name", name->loc);
  if (name && !varName.empty() && name->text != varName)
    fail("loop", fmt::format("T.launch_thread({}, ...) is named '{}'", varName, name->text), name->loc);
  if (name) varName = name->text;
  if (varName.empty()) {
    varName = tag;
    std::replace(varName.begin(), varName.end(), '.', '_');
  }
  ir::Expr extent = intExpr(*a.positional[1], "a thread extent");
  if (loops.size() + 1 > static_cast<std::size_t>(ir::resourceLimits().maxNestingDepth))
    fail("too-deep", fmt::format("loops nest deeper than {}", ir::resourceLimits().maxNestingDepth), call.loc);
  pushScope();
  ir::Expr var = ir::Var::make(varName, extent.dtype());
  const ir::Expr zero = ir::makeConst(extent.dtype(), 0);
  bind(varName, Binding{Binding::Kind::Value, var, {}, {}});
  loops.push_back({var, zero, extent});
  ir::Stmt* savedInit = m_init;
  m_init = nullptr;
  ir::Stmt inner = orNoOp(stmts(body));
  m_init = savedInit;
  loops.pop_back();
  popScope();
  return ir::For::make(var, zero, extent, ir::ForKind::ThreadBinding, inner, tag,
                       {{ir::kLaunchThreadAnnotation, ir::intImm(1)}});
}

ir::Stmt Builder::block(const syntax::Stmt& with, const Node& call, const std::string& fn) {
  Args a = args(call, fn, 1, 1, {"no_realize"});
  const std::string name = stringArg(*a.positional[0], "a block name");
  if (name.empty()) fail("block", "a block needs a name", a.positional[0]->loc);
  const Node* noRealizeArg = a.keyword("no_realize");
  const bool noRealize = noRealizeArg && noRealizeArg->kind == NodeKind::True;

  std::vector<ir::IterVar> iterVars;
  std::vector<ir::Expr> values;
  ir::Expr predicate = ir::boolImm(true);
  std::optional<std::vector<ir::BufferRegion>> reads, writes;
  ir::Annotations annotations;
  std::vector<ir::Buffer> blockAllocs;
  ir::Stmt init;

  pushScope();
  auto* savedAllocs = allocs;
  auto* savedInit = m_init;
  allocs = &blockAllocs;
  m_init = &init;

  // The header: iterators, T.where, T.reads, T.writes, T.block_attr, in any order.
  std::size_t i = 0;
  for (; i < with.body.size(); ++i) {
    const syntax::Stmt& st = with.body[i];
    const Node* v = st.value.get();
    auto path = v && v->kind == NodeKind::Call ? tirPath(*v->kids[0]) : std::nullopt;
    if (!path) break;
    if (st.kind == StmtKind::Assign && path->starts_with("axis.")) {
      const std::string axis = path->substr(5);
      std::vector<const Node*> targets;
      if (st.targets.size() == 1 && st.targets[0]->kind == NodeKind::Tuple)
        for (const auto& k : st.targets[0]->kids)
          targets.push_back(k.get());
      else if (st.targets.size() == 1)
        targets.push_back(st.targets[0].get());
      for (const Node* t : targets)
        if (t->kind != NodeKind::Name) fail("block", "a block iterator must be a name", t->loc);
      std::vector<std::pair<const Node*, ir::IterVar>> made;
      if (axis == "remap") {
        Args r = args(*v, "T.axis.remap", 2, 2, {});
        const std::string kinds = stringArg(*r.positional[0], "the iterator kinds (\"SSR\")");
        const Node& list = *r.positional[1];
        if (list.kind != NodeKind::List && list.kind != NodeKind::Tuple)
          fail("block", "T.axis.remap takes a list of loop variables", list.loc);
        if (kinds.size() != list.kids.size() || kinds.size() != targets.size())
          fail("block",
               fmt::format("T.axis.remap: {} kinds, {} loop variables and {} iterators must be as many", kinds.size(),
                           list.kids.size(), targets.size()),
               v->loc);
        for (std::size_t k = 0; k < kinds.size(); ++k) {
          if (kinds[k] != 'S' && kinds[k] != 'R')
            fail(
                "block",
                fmt::format("iterator kind '{}' of T.axis.remap: expected S or R", quoteForMessage(kinds.substr(k, 1))),
                r.positional[0]->loc);
          ir::Expr value = expr(*list.kids[k]);
          auto loop = std::find_if(loops.rbegin(), loops.rend(), [&](const Loop& l) { return l.var.sameAs(value); });
          if (loop == loops.rend())
            fail("block", "T.axis.remap binds iterators to enclosing loop variables; this is not one",
                 list.kids[k]->loc);
          ir::IterVar iv{ir::Var::make(targets[k]->text, value.dtype()),
                         ir::Range::fromMinExtent(loop->min, loop->extent),
                         kinds[k] == 'S' ? ir::IterKind::Spatial : ir::IterKind::Reduce};
          made.emplace_back(targets[k], iv);
          values.push_back(value);
        }
      } else if (axis == "spatial" || axis == "reduce" || axis == "scan" || axis == "opaque" || axis == "S" ||
                 axis == "R") {
        if (targets.size() != 1) fail("block", fmt::format("T.axis.{} declares one iterator", axis), st.loc);
        Args r = args(*v, "T.axis." + axis, noRealize ? 1 : 2, 2, {});
        const Node& dom = *r.positional[0];
        ir::Range range;
        if (dom.kind == NodeKind::Tuple && dom.kids.size() == 2) {
          ir::Expr lo = intExpr(*dom.kids[0], "an iterator domain start");
          ir::Expr extent = extentBetween(lo, exprAs(*dom.kids[1], lo.dtype()));
          if (!extent.defined()) fail("type", "an iterator domain's start and end have different types", dom.loc);
          range = ir::Range::fromMinExtent(lo, extent);
        } else {
          ir::Expr extent = intExpr(dom, "an iterator domain");
          range = ir::Range::fromMinExtent(ir::makeConst(extent.dtype(), 0), extent);
        }
        ir::matchIntegerTypes(range.min, range.extent);
        if (range.min.dtype() != range.extent.dtype())
          fail("type", "an iterator domain's start and end have different types", dom.loc);
        const ir::DataType t = range.extent.dtype();
        if (r.positional.size() == 2) {
          ir::Expr value = exprAs(*r.positional[1], t);
          if (!value.dtype().isInteger()) fail("type", "an iterator's value must be an integer", r.positional[1]->loc);
          values.push_back(value.dtype() == t ? value : ir::Cast::make(t, value));
        }
        const ir::IterKind kind = axis == "spatial" || axis == "S"  ? ir::IterKind::Spatial
                                  : axis == "reduce" || axis == "R" ? ir::IterKind::Reduce
                                  : axis == "scan"                  ? ir::IterKind::Scan
                                                                    : ir::IterKind::Opaque;
        made.emplace_back(targets[0], ir::IterVar{ir::Var::make(targets[0]->text, t), range, kind});
      } else {
        fail("unknown",
             fmt::format("unknown iterator kind T.axis.{} (expected spatial, reduce, scan, opaque or remap)", axis),
             v->loc);
      }
      for (auto& [target, iv] : made) {
        bind(target->text, Binding{Binding::Kind::Value, iv.var, {}, {}});
        iterVars.push_back(iv);
      }
      continue;
    }
    if (st.kind != StmtKind::Expr) break;
    if (*path == "where") {
      predicate = boolExpr(*args(*v, "T.where", 1, 1, {}).positional[0], "the condition of T.where");
    } else if (*path == "reads" || *path == "writes") {
      if ((*path == "reads" ? reads : writes).has_value())
        fail("block", fmt::format("T.{} is given twice", *path), v->loc);
      (*path == "reads" ? reads : writes) = regions(args(*v, "T." + *path, 0, SIZE_MAX, {}));
    } else if (*path == "block_attr" || *path == "sblock_attr") {
      annotations = this->annotations(*args(*v, "T.block_attr", 1, 1, {}).positional[0]);
    } else {
      break;
    }
  }
  if (noRealize && !values.empty()) fail("block", "a block with no_realize=True binds no iterator values", call.loc);
  ir::Stmt body = orNoOp(stmts(std::span(with.body).subspan(i)));
  allocs = savedAllocs;
  m_init = savedInit;
  popScope();

  if (!reads || !writes) {
    if (containsBlock(body))
      fail("block", fmt::format("block '{}' holds other blocks: give its T.reads and T.writes", name), call.loc);
    auto [r, w] = inferRegions(body, init);
    if (!reads) reads = std::move(r);
    if (!writes) writes = std::move(w);
  }
  ir::Stmt blk = ir::Block::make(name, std::move(iterVars), std::move(*reads), std::move(*writes), body, init,
                                 std::move(blockAllocs), std::move(annotations));
  if (noRealize) return blk;
  return ir::BlockRealize::make(std::move(values), predicate, blk);
}

} // namespace loopscape::frontend::tvms
