#include "source_locate.h"

#include "core/frontend/te_eval.h"
#include "core/frontend/te_parser.h"
#include "core/ir/checked_arith.h"

#include <charconv>
#include <functional>
#include <map>
#include <optional>

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

/// The values in the interpreter's message: the indices of `BUF[4, 0]` and the block
/// iterators of `at v_i=3, v_j=0` (interpreter.cpp writes both).
struct FaultValues {
  std::vector<std::int64_t> indices;
  std::map<std::string, std::int64_t> iters;
};

FaultValues faultValues(const std::string& message, const std::string& buffer) {
  FaultValues v;
  auto parseInt = [](std::string_view t, std::int64_t& out) {
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && p == t.data() + t.size();
  };
  auto trim = [](std::string_view t) {
    while (!t.empty() && t.front() == ' ')
      t.remove_prefix(1);
    while (!t.empty() && t.back() == ' ')
      t.remove_suffix(1);
    return t;
  };
  if (auto open = message.find(" " + buffer + "["); !buffer.empty() && open != std::string::npos) {
    const auto start = open + buffer.size() + 2, close = message.find(']', start);
    std::string_view list = std::string_view(message).substr(start, close - start);
    while (close != std::string::npos && !list.empty()) {
      const auto comma = list.find(',');
      std::int64_t i = 0;
      if (!parseInt(trim(list.substr(0, comma)), i)) break;
      v.indices.push_back(i);
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  if (auto at = message.rfind(" at "); at != std::string::npos) {
    std::string_view rest = std::string_view(message).substr(at + 4);
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      std::string_view item = trim(rest.substr(0, comma));
      const auto eq = item.find('=');
      std::int64_t value = 0;
      if (eq == std::string_view::npos || !parseInt(item.substr(eq + 1), value)) break;
      v.iters[std::string(item.substr(0, eq))] = value;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return v;
}

/// The value of an index expression of the source under the block's iterator values (a
/// lambda parameter or reduce axis `i` is the iterator `v_i`); nullopt when it is not
/// plain integer arithmetic on those.
std::optional<std::int64_t> evalIndex(const ast::Node& n, const std::map<std::string, std::int64_t>& iters) {
  switch (n.kind) {
  case ast::NodeKind::Int: return n.ival;
  case ast::NodeKind::Name: {
    auto it = iters.find("v_" + n.text);
    if (it == iters.end()) return std::nullopt;
    return it->second;
  }
  case ast::NodeKind::Unary: {
    auto a = evalIndex(*n.kids[0], iters);
    if (!a || n.text != "-") return n.text == "+" ? a : std::nullopt;
    return ir::checkedSub(0, *a);
  }
  case ast::NodeKind::Binary: {
    auto a = evalIndex(*n.kids[0], iters), b = evalIndex(*n.kids[1], iters);
    if (!a || !b) return std::nullopt;
    if (n.text == "+") return ir::checkedAdd(*a, *b);
    if (n.text == "-") return ir::checkedSub(*a, *b);
    if (n.text == "*") return ir::checkedMul(*a, *b);
    if ((n.text == "//" || n.text == "%") && *b > 0) {
      const std::int64_t q = *a / *b - ((*a % *b != 0 && *a < 0) ? 1 : 0);
      return n.text == "//" ? q : *a - q * *b;
    }
    return std::nullopt;
  }
  default: return std::nullopt;
  }
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
         d.code == "interp.cast-out-of-range" || d.code == "interp.negative-extent" || d.code == "interp.too-large" ||
         d.code == "interp.size-too-large" || d.code == "ndarray.too-large" || d.code == "ndarray.out-of-memory" ||
         d.code == "ndarray.negative-extent";
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
  const FaultValues values = faultValues(d.message, buffer);
  bool first = true;
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
    // The first access of the buffer, unless a later one evaluates to the faulting indices.
    if (first) found = n.loc;
    first = false;
    if (n.kids.size() - 1 != values.indices.size()) return false;
    for (std::size_t i = 1; i < n.kids.size(); ++i)
      if (evalIndex(*n.kids[i], values.iters) != values.indices[i - 1]) return false;
    found = n.loc;
    return true;
  });
  found.file = path;
  return found;
}

} // namespace loopscape::cli
