#include "source_locate.h"

#include "core/frontend/te_eval.h"
#include "core/frontend/te_parser.h"

#include <functional>
#include <map>

namespace loopscape::cli {

namespace {
namespace ast = frontend::ast;

bool sameStart(const SourceLocation& a, const SourceLocation& b) { return a.line == b.line && a.column == b.column; }

/// Calls `f` on `n` and every node below it, in source order, until `f` returns true.
bool walk(const ast::Node* n, const std::function<bool(const ast::Node&)>& f) {
  if (!n) return false;
  if (f(*n)) return true;
  for (const auto& k : n->kids)
    if (walk(k.get(), f)) return true;
  for (const auto& g : n->generators) {
    if (walk(g.target.get(), f) || walk(g.iter.get(), f)) return true;
    for (const auto& c : g.conditions)
      if (walk(c.get(), f)) return true;
  }
  return false;
}

bool walkStmts(const std::vector<ast::Stmt>& stmts, const std::function<bool(const ast::Node&)>& f) {
  for (const auto& s : stmts) {
    for (const auto& t : s.targets)
      if (walk(t.get(), f)) return true;
    if (walk(s.value.get(), f) || walkStmts(s.body, f) || walkStmts(s.orelse, f)) return true;
  }
  return false;
}

/// The name a call calls: "compute" for te.compute(...), "floordiv" for tvm.tir.floordiv(...).
std::string calleeName(const ast::Node& call) {
  if (call.kind != ast::NodeKind::Call || call.kids.empty()) return {};
  const ast::Node& f = *call.kids[0];
  if (f.kind == ast::NodeKind::Name) return f.text;
  if (f.kind == ast::NodeKind::Attribute) return f.text;
  return {};
}
} // namespace

bool isProgramFault(const Diagnostic& d) {
  return d.code == "interp.out-of-bounds" || d.code == "interp.division-by-zero" ||
         d.code == "interp.cast-out-of-range" || d.code == "interp.negative-extent" ||
         d.code == "interp.too-large" || d.code == "interp.size-too-large" || d.code == "ndarray.too-large" ||
         d.code == "ndarray.out-of-memory" || d.code == "ndarray.negative-extent";
}

SourceLocation locateFault(std::string_view source, const std::string& path, const Diagnostic& d) {
  std::string block, buffer;
  for (const auto& r : d.references) {
    if (r.kind == IrReference::Kind::Block && block.empty()) block = r.name;
    if (r.kind == IrReference::Kind::Buffer && buffer.empty()) buffer = r.name;
  }
  if (block.empty()) return {};
  auto module = frontend::parseTeModule(source, path);
  if (!module) return {};
  auto program = frontend::evaluateTe(*module, path);
  if (!program) return {};
  const frontend::TensorInfo* compute = nullptr;
  for (const auto& t : program->tensors)
    if (t->name == block) compute = t.get();
  if (!compute) return {};

  // Which Python names hold which tensors: `A = te.placeholder(..., name="X")` binds A to X.
  std::map<std::string, std::string> tensorOfName;
  for (const auto& s : module->body) {
    if (s.kind != ast::StmtKind::Assign || !s.value || s.value->kind != ast::NodeKind::Call) continue;
    for (const auto& t : program->tensors)
      if (sameStart(t->loc, s.value->loc))
        for (const auto& target : s.targets)
          if (target->kind == ast::NodeKind::Name) tensorOfName[target->text] = t->name;
  }
  auto bufferOf = [&](const std::string& pyName) {
    auto it = tensorOfName.find(pyName);
    return it == tensorOfName.end() ? pyName : it->second;
  };

  const ast::Node* call = nullptr;
  walkStmts(module->body, [&](const ast::Node& n) {
    if (n.kind != ast::NodeKind::Call || !sameStart(n.loc, compute->loc)) return false;
    call = &n;
    return true;
  });
  SourceLocation found = compute->loc;
  found.file = path;
  if (!call) return found;
  const bool division = d.code == "interp.division-by-zero";
  walk(call, [&](const ast::Node& n) {
    if (division) {
      const std::string callee = calleeName(n);
      if ((n.kind == ast::NodeKind::Binary && (n.text == "//" || n.text == "%" || n.text == "/")) ||
          callee.find("div") != std::string::npos || callee.find("mod") != std::string::npos) {
        found = n.loc;
        return true;
      }
      return false;
    }
    if (buffer.empty() || n.kind != ast::NodeKind::Subscript || n.kids.empty() ||
        n.kids[0]->kind != ast::NodeKind::Name || bufferOf(n.kids[0]->text) != buffer)
      return false;
    found = n.loc;
    return true;
  });
  found.file = path;
  return found;
}

} // namespace loopscape::cli
