#include "core/ir/structural_diff.h"

#include "core/ir/printer.h"

#include <fmt/format.h>

#include <cstring>
#include <unordered_map>

namespace loopscape::ir {

namespace {

std::string dtypeText(DataType t) { return t.str(); }

class Differ {
public:
  explicit Differ(bool mapFreeVars) : m_mapFreeVars(mapFreeVars) {}

  std::optional<StructuralDifference> result;

  bool function(const PrimFunc& a, const PrimFunc& b) {
    if (a.params.size() != b.params.size())
      return differ("parameters", fmt::format("{} parameters against {}", a.params.size(), b.params.size()),
                    fmt::format("{} parameters", a.params.size()), fmt::format("{} parameters", b.params.size()));
    for (std::size_t i = 0; i < a.params.size(); ++i) {
      Scope s(*this, fmt::format("parameter {}", i + 1));
      if (!buffer(a.params[i], b.params[i])) return false;
    }
    if (!m_mapFreeVars) {
      auto sa = a.sizeVars(), sb = b.sizeVars();
      for (std::size_t i = 0; i < sa.size() && i < sb.size(); ++i) {
        const auto& na = sa[i].as<Var>()->name;
        const auto& nb = sb[i].as<Var>()->name;
        if (na != nb)
          return differ("size " + na,
                        "the symbolic sizes have different names (compare with --map-free-vars to match them by "
                        "position)",
                        na, nb);
      }
    }
    {
      Scope s(*this, "T.func_attr");
      if (!annotations(a.attrs, b.attrs)) return false;
    }
    return stmt(a.body, b.body);
  }

private:
  struct Scope {
    Scope(Differ& d, std::string step) : d(d) { d.m_path.push_back(std::move(step)); }
    ~Scope() { d.m_path.pop_back(); }
    Differ& d;
  };
  struct StmtScope {
    StmtScope(Differ& d, const StmtNode* a, const StmtNode* b) : d(d), a(d.m_stmtA), b(d.m_stmtB) {
      d.m_stmtA = a;
      d.m_stmtB = b;
    }
    ~StmtScope() {
      d.m_stmtA = a;
      d.m_stmtB = b;
    }
    Differ& d;
    const StmtNode* a;
    const StmtNode* b;
  };

  bool differ(std::string step, std::string reason, std::string lhs, std::string rhs) {
    StructuralDifference d;
    d.path = m_path;
    if (!step.empty()) d.path.push_back(std::move(step));
    d.reason = std::move(reason);
    d.lhs = std::move(lhs);
    d.rhs = std::move(rhs);
    d.lhsStmt = m_stmtA;
    d.rhsStmt = m_stmtB;
    result = std::move(d);
    return false;
  }
  bool differExpr(std::string reason, const Expr& a, const Expr& b) {
    return differ("", std::move(reason), a.defined() ? printExpr(a) : "(nothing)",
                  b.defined() ? printExpr(b) : "(nothing)");
  }
  bool differStmt(std::string reason, const Stmt& a, const Stmt& b) {
    auto firstLine = [](const Stmt& s) {
      if (!s.defined()) return std::string("(nothing)");
      std::string text = printStmt(s);
      return text.substr(0, text.find('\n'));
    };
    return differ("", std::move(reason), firstLine(a), firstLine(b));
  }

  bool dtype(DataType a, DataType b, const char* what) {
    if (a == b) return true;
    return differ(what, "the types differ", dtypeText(a), dtypeText(b));
  }

  bool exprs(const std::vector<Expr>& a, const std::vector<Expr>& b, const char* what) {
    if (a.size() != b.size())
      return differ(what, fmt::format("{} against {} {}", a.size(), b.size(), what), std::to_string(a.size()),
                    std::to_string(b.size()));
    for (std::size_t i = 0; i < a.size(); ++i) {
      Scope s(*this, fmt::format("{} {}", what, i + 1));
      if (!expr(a[i], b[i])) return false;
    }
    return true;
  }

  bool range(const Range& a, const Range& b) {
    {
      Scope s(*this, "min");
      if (!expr(a.min, b.min)) return false;
    }
    Scope s(*this, "extent");
    return expr(a.extent, b.extent);
  }

  bool buffer(const Buffer& a, const Buffer& b) {
    if (!a.defined() || !b.defined()) {
      if (a.defined() == b.defined()) return true;
      return differ("", "a buffer on one side only", a ? a->name : "(none)", b ? b->name : "(none)");
    }
    auto ia = m_buffersA.find(a.get());
    auto ib = m_buffersB.find(b.get());
    const bool seenA = ia != m_buffersA.end(), seenB = ib != m_buffersB.end();
    if (seenA || seenB) {
      if (seenA && seenB && ia->second == b.get() && ib->second == a.get()) return true;
      return differ("", "different buffers (each name must stand for the same buffer throughout)", a->name, b->name);
    }
    m_buffersA.emplace(a.get(), b.get());
    m_buffersB.emplace(b.get(), a.get());
    Scope s(*this, "buffer " + a->name);
    if (!dtype(a->dtype, b->dtype, "dtype")) return false;
    if (a->scope != b->scope)
      return differ("scope", "the memory scopes differ", memoryScopeName(a->scope), memoryScopeName(b->scope));
    if (!exprs(a->shape, b->shape, "extent")) return false;
    return exprs(a->strides, b->strides, "stride");
  }

  bool regions(const std::vector<BufferRegion>& a, const std::vector<BufferRegion>& b, const char* what) {
    if (a.size() != b.size())
      return differ(what, fmt::format("{} against {} regions", a.size(), b.size()), std::to_string(a.size()),
                    std::to_string(b.size()));
    for (std::size_t i = 0; i < a.size(); ++i) {
      Scope s(*this, fmt::format("{} {}", what, i + 1));
      if (!buffer(a[i].buffer, b[i].buffer)) return false;
      if (a[i].region.size() != b[i].region.size())
        return differ("", "the regions have different ranks", std::to_string(a[i].region.size()),
                      std::to_string(b[i].region.size()));
      for (std::size_t k = 0; k < a[i].region.size(); ++k) {
        Scope d(*this, fmt::format("dimension {}", k + 1));
        if (!range(a[i].region[k], b[i].region[k])) return false;
      }
    }
    return true;
  }

  bool annotations(const Annotations& a, const Annotations& b) {
    auto ia = a.begin();
    auto ib = b.begin();
    for (; ia != a.end() && ib != b.end(); ++ia, ++ib) {
      if (ia->first != ib->first) return differ("", "the annotation keys differ", ia->first, ib->first);
      Scope s(*this, fmt::format("\"{}\"", ia->first));
      if (!expr(ia->second, ib->second)) return false;
    }
    if (ia != a.end() || ib != b.end())
      return differ("", "an annotation on one side only", ia != a.end() ? ia->first : "(none)",
                    ib != b.end() ? ib->first : "(none)");
    return true;
  }

  bool var(const Expr& a, const Expr& b) {
    auto ia = m_varsA.find(a.get());
    auto ib = m_varsB.find(b.get());
    const bool seenA = ia != m_varsA.end(), seenB = ib != m_varsB.end();
    if (!seenA && !seenB) {
      m_varsA.emplace(a.get(), b.get());
      m_varsB.emplace(b.get(), a.get());
      return true;
    }
    if (seenA && seenB && ia->second == b.get() && ib->second == a.get()) return true;
    return differExpr("different variables (each name must stand for the same variable throughout)", a, b);
  }

  bool expr(const Expr& a, const Expr& b) {
    if (!a.defined() || !b.defined()) {
      if (a.defined() == b.defined()) return true;
      return differExpr("an expression on one side only", a, b);
    }
    if (a.kind() != b.kind())
      return differExpr(fmt::format("{} against {}", exprKindName(a.kind()), exprKindName(b.kind())), a, b);
    if (a.dtype() != b.dtype())
      return differExpr(fmt::format("the types differ: {} against {}", a.dtype().str(), b.dtype().str()), a, b);
    switch (a.kind()) {
    case ExprKind::IntImm:
      return a.as<IntImm>()->value == b.as<IntImm>()->value || differExpr("the constants differ", a, b);
    case ExprKind::FloatImm: {
      double x = a.as<FloatImm>()->value, y = b.as<FloatImm>()->value;
      return std::memcmp(&x, &y, sizeof x) == 0 || differExpr("the constants differ", a, b);
    }
    case ExprKind::StringImm:
      return a.as<StringImm>()->value == b.as<StringImm>()->value || differExpr("the strings differ", a, b);
    case ExprKind::Var: return var(a, b);
#define LS_X(name)                                                                                                     \
  case ExprKind::name: {                                                                                               \
    Scope s(*this, "operand a");                                                                                       \
    if (!expr(a.as<name>()->a, b.as<name>()->a)) return false;                                                         \
    m_path.back() = "operand b";                                                                                       \
    return expr(a.as<name>()->b, b.as<name>()->b);                                                                     \
  }
      LS_BINARY_KINDS(LS_X)
#undef LS_X
    case ExprKind::Not: return expr(a.as<Not>()->a, b.as<Not>()->a);
    case ExprKind::Select: {
      const auto *x = a.as<Select>(), *y = b.as<Select>();
      if (x->lazy != y->lazy)
        return differExpr(fmt::format("{} against {}", x->lazy ? "T.if_then_else" : "T.Select",
                                      y->lazy ? "T.if_then_else" : "T.Select"),
                          a, b);
      Scope s(*this, "condition");
      if (!expr(x->condition, y->condition)) return false;
      m_path.back() = "true value";
      if (!expr(x->trueValue, y->trueValue)) return false;
      m_path.back() = "false value";
      return expr(x->falseValue, y->falseValue);
    }
    case ExprKind::Cast: return expr(a.as<Cast>()->value, b.as<Cast>()->value);
    case ExprKind::Call: {
      const auto *x = a.as<Call>(), *y = b.as<Call>();
      if (x->op != y->op)
        return differExpr(fmt::format("T.{} against T.{}", callOpName(x->op), callOpName(y->op)), a, b);
      return exprs(x->args, y->args, "argument");
    }
    case ExprKind::BufferLoad: {
      const auto *x = a.as<BufferLoad>(), *y = b.as<BufferLoad>();
      if (!buffer(x->buffer, y->buffer)) return false;
      return exprs(x->indices, y->indices, "index");
    }
    case ExprKind::Ramp: {
      const auto *x = a.as<Ramp>(), *y = b.as<Ramp>();
      if (x->lanes != y->lanes) return differExpr("the lanes differ", a, b);
      return expr(x->base, y->base) && expr(x->stride, y->stride);
    }
    case ExprKind::Broadcast: {
      const auto *x = a.as<Broadcast>(), *y = b.as<Broadcast>();
      if (x->lanes != y->lanes) return differExpr("the lanes differ", a, b);
      return expr(x->value, y->value);
    }
    }
    return true;
  }

  bool stmt(const Stmt& a, const Stmt& b) {
    if (!a.defined() || !b.defined()) {
      if (a.defined() == b.defined()) return true;
      return differStmt("a statement on one side only", a, b);
    }
    if (a.kind() != b.kind())
      return differStmt(fmt::format("{} against {}", stmtKindName(a.kind()), stmtKindName(b.kind())), a, b);
    switch (a.kind()) {
    case StmtKind::For: {
      const auto *x = a.as<For>(), *y = b.as<For>();
      StmtScope at(*this, x, y);
      Scope s(*this, "for " + x->loopVar.as<Var>()->name);
      if (!var(x->loopVar, y->loopVar)) return false;
      {
        Scope r(*this, "start");
        if (!expr(x->min, y->min)) return false;
        m_path.back() = "extent";
        if (!expr(x->extent, y->extent)) return false;
      }
      if (x->forKind != y->forKind)
        return differ("kind", "the loop kinds differ", forKindName(x->forKind), forKindName(y->forKind));
      if (x->threadTag != y->threadTag) return differ("thread", "the thread tags differ", x->threadTag, y->threadTag);
      {
        Scope r(*this, "annotations");
        if (!annotations(x->annotations, y->annotations)) return false;
      }
      return stmt(x->body, y->body);
    }
    case StmtKind::BlockRealize: {
      const auto *x = a.as<BlockRealize>(), *y = b.as<BlockRealize>();
      Scope s(*this, fmt::format("block \"{}\"", x->blockNode().name));
      StmtScope at(*this, x->block.get(), y->block.get());
      if (!exprs(x->iterValues, y->iterValues, "binding")) return false;
      {
        Scope r(*this, "T.where");
        if (!expr(x->predicate, y->predicate)) return false;
      }
      return stmt(x->block, y->block);
    }
    case StmtKind::Block: {
      const auto *x = a.as<Block>(), *y = b.as<Block>();
      StmtScope at(*this, x, y);
      if (x->name != y->name) return differ("name", "the block names differ", x->name, y->name);
      if (x->iterVars.size() != y->iterVars.size())
        return differ("iterators", "the blocks have different numbers of iterators", std::to_string(x->iterVars.size()),
                      std::to_string(y->iterVars.size()));
      for (std::size_t i = 0; i < x->iterVars.size(); ++i) {
        const auto &u = x->iterVars[i], &v = y->iterVars[i];
        Scope s(*this, "iterator " + u.var.as<Var>()->name);
        if (!var(u.var, v.var) || !range(u.dom, v.dom)) return false;
        if (u.kind != v.kind)
          return differ("kind", "the iterator kinds differ", iterKindName(u.kind), iterKindName(v.kind));
      }
      if (x->allocBuffers.size() != y->allocBuffers.size())
        return differ("T.alloc_buffer", "the blocks allocate different numbers of buffers",
                      std::to_string(x->allocBuffers.size()), std::to_string(y->allocBuffers.size()));
      for (std::size_t i = 0; i < x->allocBuffers.size(); ++i)
        if (!buffer(x->allocBuffers[i], y->allocBuffers[i])) return false;
      if (!regions(x->reads, y->reads, "T.reads") || !regions(x->writes, y->writes, "T.writes")) return false;
      {
        Scope s(*this, "T.init");
        if (!stmt(x->init, y->init)) return false;
      }
      if (!stmt(x->body, y->body)) return false;
      Scope s(*this, "T.block_attr");
      return annotations(x->annotations, y->annotations);
    }
    case StmtKind::BufferStore: {
      const auto *x = a.as<BufferStore>(), *y = b.as<BufferStore>();
      Scope s(*this, "store to " + x->buffer->name);
      if (!buffer(x->buffer, y->buffer)) return false;
      {
        Scope v(*this, "value");
        if (!expr(x->value, y->value)) return false;
      }
      return exprs(x->indices, y->indices, "index");
    }
    case StmtKind::SeqStmt: {
      const auto *x = a.as<SeqStmt>(), *y = b.as<SeqStmt>();
      for (std::size_t i = 0; i < x->seq.size() && i < y->seq.size(); ++i) {
        Scope s(*this, fmt::format("statement {}", i + 1));
        if (!stmt(x->seq[i], y->seq[i])) return false;
      }
      if (x->seq.size() != y->seq.size()) {
        const std::size_t n = std::min(x->seq.size(), y->seq.size());
        return differStmt(fmt::format("{} against {} statements", x->seq.size(), y->seq.size()),
                          n < x->seq.size() ? x->seq[n] : Stmt{}, n < y->seq.size() ? y->seq[n] : Stmt{});
      }
      return true;
    }
    case StmtKind::IfThenElse: {
      const auto *x = a.as<IfThenElse>(), *y = b.as<IfThenElse>();
      Scope s(*this, "if");
      if (!expr(x->condition, y->condition)) return false;
      m_path.back() = "then";
      if (!stmt(x->thenCase, y->thenCase)) return false;
      m_path.back() = "else";
      return stmt(x->elseCase, y->elseCase);
    }
    case StmtKind::Evaluate: return expr(a.as<Evaluate>()->value, b.as<Evaluate>()->value);
    case StmtKind::Assume: return expr(a.as<Assume>()->condition, b.as<Assume>()->condition);
    case StmtKind::LetStmt: {
      const auto *x = a.as<LetStmt>(), *y = b.as<LetStmt>();
      Scope s(*this, "let " + x->var.as<Var>()->name);
      if (!var(x->var, y->var) || !expr(x->value, y->value)) return false;
      return stmt(x->body, y->body);
    }
    case StmtKind::Allocate: {
      const auto *x = a.as<Allocate>(), *y = b.as<Allocate>();
      if (!buffer(x->buffer, y->buffer)) return false;
      return stmt(x->body, y->body);
    }
    }
    return true;
  }

  bool m_mapFreeVars;
  std::vector<std::string> m_path;
  const StmtNode* m_stmtA = nullptr;
  const StmtNode* m_stmtB = nullptr;
  std::unordered_map<const ExprNode*, const ExprNode*> m_varsA, m_varsB;
  std::unordered_map<const BufferNode*, const BufferNode*> m_buffersA, m_buffersB;
};

} // namespace

std::optional<StructuralDifference> firstDifference(const PrimFunc& a, const PrimFunc& b, bool mapFreeVars) {
  Differ d(mapFreeVars);
  if (d.function(a, b)) return std::nullopt;
  return d.result;
}

} // namespace loopscape::ir
