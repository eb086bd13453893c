// Trace scripts on the shared Python syntax (see trace_script_syntax.h): the dialect the
// shared lexer and parser read them in, and the walk that turns the common syntax tree
// into the script's statements, refusing what trace scripts do not have.
#include "core/schedule/trace_script_syntax.h"

#include "core/syntax/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

namespace loopscape::schedule::detail {

namespace {

using syntax::Node;
using syntax::NodeKind;
using syntax::Stmt;
using syntax::StmtKind;

Diagnostic syntaxError(const SourceLocation& loc, std::string message, std::optional<int> length = std::nullopt) {
  SourceLocation at = loc;
  if (length) at.length = *length;
  return Diagnostic::error("trace.syntax", std::move(message), std::move(at));
}

Diagnostic unsupportedStatement(std::string_view word, const SourceLocation& loc) {
  return syntaxError(loc,
                     fmt::format("'{}' is not supported in trace scripts (only assignments and schedule calls)", word));
}

/// Statements that are not assignments or calls are refused by their first keyword.
std::optional<Diagnostic> checkStatement(const syntax::Token& first, const syntax::Token& second) {
  static constexpr std::array<std::string_view, 11> kUnsupported = {
      "for", "if", "while", "with", "class", "return", "del", "global", "try", "assert", "print"};
  if (first.kind != syntax::TokenKind::Name ||
      std::find(kUnsupported.begin(), kUnsupported.end(), first.text) == kUnsupported.end())
    return std::nullopt;
  if (first.text == "print" && !(second.kind == syntax::TokenKind::Op && second.text == "(")) return std::nullopt;
  return unsupportedStatement(first.text, first.loc);
}

const syntax::Dialect& traceDialect() {
  static const syntax::Dialect dialect = [] {
    syntax::Dialect d;
    d.codePrefix = "trace";
    d.oneCode = true;
    d.wording = syntax::TokenWording::Brief;
    d.matchBrackets = false;
    d.rejectedChars = "&|";
    d.comprehensions = false;
    d.shallowChains = true; // the reader and the interpreter recurse over whole chains
    d.intRange = "64 bits";
    d.expectedWording = {{"';' or the end of the line", "the end of the statement"},
                         {"an attribute name after '.'", "an attribute name"},
                         {"a parameter name or ':'", "a lambda parameter name"},
                         {"',' or ':' after the lambda parameter", "',' or ':'"},
                         {"an expression or ']'", "an expression"},
                         {"an argument or ')'", "an expression"}};
    d.checkStatement = checkStatement;
    return d;
  }();
  return dialect;
}

std::shared_ptr<PyNode> pyNode(PyKind kind, const Node& from) {
  auto n = std::make_shared<PyNode>();
  n->kind = kind;
  n->line = from.loc.line;
  n->column = from.loc.column;
  n->length = from.loc.length;
  return n;
}

const char* keywordOf(StmtKind kind) {
  switch (kind) {
  case StmtKind::FunctionDef: return "def";
  case StmtKind::ClassDef: return "class";
  case StmtKind::For: return "for";
  case StmtKind::If: return "if";
  case StmtKind::With: return "with";
  case StmtKind::Return: return "return";
  case StmtKind::Import: return "import";
  case StmtKind::Assign:
  case StmtKind::AugAssign:
  case StmtKind::Expr:
  case StmtKind::Pass: break;
  }
  return "statement";
}

class Reader {
public:
  Expected<PyScript> script(const syntax::Module& module) {
    PyScript out;
    bool sawDef = false;
    for (const auto& s : module.body) {
      if (s.kind == StmtKind::Import) continue;
      if (sawDef)
        return Unexpected(syntaxError(s.loc,
                                      "statements after the apply_trace function are not supported; the function "
                                      "body is the script",
                                      1));
      if (s.kind == StmtKind::FunctionDef) {
        if (!out.statements.empty())
          return Unexpected(syntaxError(s.loc,
                                        "statements before the apply_trace function are not supported; the "
                                        "function body is the script",
                                        1));
        if (auto ok = functionDef(s, out); !ok) return Unexpected(ok.error());
        sawDef = true;
        continue;
      }
      if (auto ok = statement(s, out); !ok) return Unexpected(ok.error());
    }
    return out;
  }

  /// A syntax node as the trace script's expression.
  Expected<PyPtr> expression(const Node& n) {
    switch (n.kind) {
    case NodeKind::Name:
    case NodeKind::None:
    case NodeKind::True:
    case NodeKind::False: {
      auto p = pyNode(n.kind == NodeKind::Name   ? PyKind::Name
                      : n.kind == NodeKind::None ? PyKind::None
                      : n.kind == NodeKind::True ? PyKind::True
                                                 : PyKind::False,
                      n);
      p->text = n.text;
      return PyPtr(p);
    }
    case NodeKind::Int: {
      auto p = pyNode(PyKind::Int, n);
      p->intValue = n.ival;
      return PyPtr(p);
    }
    case NodeKind::Float: {
      auto p = pyNode(PyKind::Float, n);
      p->floatValue = n.fval;
      return PyPtr(p);
    }
    case NodeKind::Str: {
      auto p = pyNode(PyKind::String, n);
      p->text = n.text;
      return PyPtr(p);
    }
    case NodeKind::Tuple:
    case NodeKind::List: {
      auto p = pyNode(n.kind == NodeKind::Tuple ? PyKind::Tuple : PyKind::List, n);
      if (auto ok = items(n, *p); !ok) return Unexpected(ok.error());
      return PyPtr(p);
    }
    case NodeKind::Attribute: {
      auto p = pyNode(PyKind::Attribute, n);
      p->text = n.text;
      if (auto ok = items(n, *p); !ok) return Unexpected(ok.error());
      return PyPtr(p);
    }
    case NodeKind::Subscript: return subscript(n);
    case NodeKind::Call: return call(n);
    case NodeKind::Lambda: {
      auto p = pyNode(PyKind::Lambda, n);
      p->params = n.params;
      if (auto ok = items(n, *p); !ok) return Unexpected(ok.error());
      return PyPtr(p);
    }
    case NodeKind::Binary: {
      static constexpr std::array<std::string_view, 6> kOps = {"+", "-", "*", "/", "//", "%"};
      if (std::find(kOps.begin(), kOps.end(), n.text) == kOps.end())
        return Unexpected(syntaxError(n.loc, fmt::format("operator '{}' is not supported in trace scripts", n.text)));
      auto p = pyNode(PyKind::BinOp, n);
      p->text = n.text;
      if (auto ok = items(n, *p); !ok) return Unexpected(ok.error());
      return PyPtr(p);
    }
    case NodeKind::Unary: {
      if (n.text == "not") return Unexpected(syntaxError(n.loc, "'not' is not supported in trace scripts", 3));
      auto operand = expression(*n.kids[0]);
      if (!operand || n.text == "+") return operand;
      auto p = pyNode(PyKind::Neg, n);
      p->items.push_back(*operand);
      return PyPtr(p);
    }
    case NodeKind::Dict: return Unexpected(syntaxError(n.loc, "dictionaries are not supported in trace scripts", 1));
    case NodeKind::Slice: return Unexpected(syntaxError(n.opLocs[0], "slices are not supported"));
    case NodeKind::Starred: return Unexpected(syntaxError(n.loc, "'*' is only supported in call arguments", 1));
    case NodeKind::BoolOp: return unsupported(n.loc, fmt::format("'{}' is", n.text));
    case NodeKind::Compare: return unsupported(n.opLocs[0], "comparisons are");
    case NodeKind::IfExp: return unsupported(n.loc, "conditional expressions are");
    case NodeKind::ListComp: break; // not in the trace grammar
    }
    return unsupported(n.loc, "this expression is");
  }

private:
  static Unexpected unsupported(const SourceLocation& loc, std::string_view what) {
    return Unexpected(syntaxError(loc, fmt::format("{} not supported in trace scripts", what)));
  }

  Expected<void> items(const Node& n, PyNode& out) {
    for (std::size_t i = 0; i < n.kids.size(); ++i) {
      auto item = expression(*n.kids[i]);
      if (!item) return Unexpected(item.error());
      out.items.push_back(*item);
    }
    return {};
  }

  /// `object[index]`; several indices make a tuple index.
  Expected<PyPtr> subscript(const Node& n) {
    auto p = pyNode(PyKind::Subscript, n);
    if (auto ok = items(n, *p); !ok) return Unexpected(ok.error());
    if (p->items.size() > 2) {
      auto index = pyNode(PyKind::Tuple, *n.kids[1]);
      index->items.assign(p->items.begin() + 1, p->items.end());
      p->items = {p->items[0], index};
    }
    return PyPtr(p);
  }

  Expected<PyPtr> call(const Node& n) {
    auto p = pyNode(PyKind::Call, n);
    const Node& calleeNode = *n.kids[0];
    // A call over several lines is located at its callee.
    if (calleeNode.loc.line == n.loc.line) p->length = std::max(p->length, calleeNode.loc.length);
    auto callee = expression(calleeNode);
    if (!callee) return callee;
    p->items.push_back(*callee);
    for (std::size_t i = 1; i < n.kids.size(); ++i) {
      const Node& value = *n.kids[i];
      PyArg arg;
      arg.keyword = n.keywords[i - 1];
      arg.line = n.keywordLocs[i - 1].line;
      arg.column = n.keywordLocs[i - 1].column;
      if (value.kind == NodeKind::Starred) {
        if (value.text == "**") return Unexpected(syntaxError(value.loc, "'**' arguments are not supported", 2));
        auto star = pyNode(PyKind::Starred, value);
        if (auto ok = items(value, *star); !ok) return Unexpected(ok.error());
        arg.value = star;
      } else {
        auto v = expression(value);
        if (!v) return Unexpected(v.error());
        arg.value = *v;
      }
      p->args.push_back(std::move(arg));
    }
    return PyPtr(p);
  }

  /// `def NAME(sch[: annotation]) [-> annotation]:` and its body, the script.
  Expected<void> functionDef(const Stmt& def, PyScript& out) {
    if (!def.decorators.empty())
      return Unexpected(syntaxError(def.decorators[0]->loc, "decorators are not supported in trace scripts"));
    if (def.params.size() != 1)
      return Unexpected(syntaxError(def.params.size() > 1 ? def.params[1].loc : def.nameLoc,
                                    "the apply_trace function takes one parameter, the schedule", 1));
    out.scheduleName = def.params[0].name;
    for (const auto& s : def.body) {
      if (s.kind == StmtKind::Import) continue;
      if (auto ok = statement(s, out); !ok) return ok;
    }
    return {};
  }

  /// One statement; `pass` and docstrings have no effect and add nothing.
  Expected<void> statement(const Stmt& s, PyScript& out) {
    PyStmt stmt;
    stmt.line = s.loc.line;
    stmt.column = s.loc.column;
    switch (s.kind) {
    case StmtKind::Pass: return {};
    case StmtKind::AugAssign:
      return Unexpected(syntaxError(s.opLocs[0], fmt::format("augmented assignment '{}=' is not supported", s.op)));
    case StmtKind::Assign:
      if (s.targets.size() > 1) return Unexpected(syntaxError(s.opLocs[1], "chained assignment is not supported", 1));
      if (auto ok = targets(*s.targets[0], stmt); !ok) return ok;
      break;
    case StmtKind::Expr:
      if (s.value->kind == NodeKind::Str) return {}; // docstring
      break;
    case StmtKind::Return:
    case StmtKind::Import:
    case StmtKind::FunctionDef:
    case StmtKind::ClassDef:
    case StmtKind::For:
    case StmtKind::If:
    case StmtKind::With: {
      SourceLocation at = s.loc;
      at.length = static_cast<int>(std::string_view(keywordOf(s.kind)).size());
      return Unexpected(unsupportedStatement(keywordOf(s.kind), at));
    }
    }
    auto value = expression(*s.value);
    if (!value) return Unexpected(value.error());
    stmt.value = *value;
    out.statements.push_back(std::move(stmt));
    return {};
  }

  Expected<void> targets(const Node& lhs, PyStmt& stmt) {
    auto single = [&](const Node& n) -> Expected<void> {
      if (n.kind != NodeKind::Name)
        return Unexpected(syntaxError(n.loc, "cannot assign to this expression; assignment targets are names"));
      stmt.targets.push_back({n.text, n.loc.line, n.loc.column});
      return {};
    };
    if (lhs.kind == NodeKind::Tuple || lhs.kind == NodeKind::List) {
      stmt.tupleTarget = true;
      for (const auto& item : lhs.kids)
        if (auto ok = single(*item); !ok) return ok;
      return {};
    }
    return single(lhs);
  }
};

} // namespace

Expected<PyScript> parsePyScript(std::string_view text, const std::string& fileName) {
  auto module = syntax::parseModule(text, fileName, traceDialect());
  if (!module) return Unexpected(module.error());
  return Reader().script(*module);
}

Expected<PyPtr> parsePyExpression(std::string_view text, const std::string& fileName) {
  auto e = syntax::parseExpression(text, fileName, traceDialect());
  if (!e) return Unexpected(e.error());
  return Reader().expression(**e);
}

} // namespace loopscape::schedule::detail
