// The TVMScript front end's entry points and its module- and function-level walk:
// imports, `@T.prim_func` functions, `@I.ir_module` classes, parameters and the root block.
#include "core/frontend/tvmscript/tvms_builder.h"

#include "core/ir/resource_limits.h"
#include "core/ir/script_markers.h"
#include "core/syntax/parser.h"

#include <fmt/format.h>

#include <algorithm>

namespace loopscape::frontend {

namespace tvms {

void fail(std::string_view kind, std::string message, const SourceLocation& loc) {
  throw Failure{Diagnostic::error(fmt::format("tvmscript.{}", kind), std::move(message), loc)};
}

const syntax::Node* Args::keyword(std::string_view name) const {
  for (const auto& [k, n] : keywords)
    if (k == name) return n;
  return nullptr;
}

const Binding* Builder::lookup(std::string_view name) const {
  for (auto it = m_scopes.rbegin(); it != m_scopes.rend(); ++it)
    if (auto f = it->find(name); f != it->end()) return &f->second;
  return nullptr;
}

std::optional<std::string> Builder::tirPath(const syntax::Node& n) const {
  if (n.kind == syntax::NodeKind::Name) {
    const Binding* b = lookup(n.text);
    if (b && b->kind == Binding::Kind::Module) return b->path == "tir" ? std::optional<std::string>("") : std::nullopt;
    return std::nullopt;
  }
  if (n.kind != syntax::NodeKind::Attribute || n.kids.empty()) return std::nullopt;
  auto base = tirPath(*n.kids[0]);
  if (!base) return std::nullopt;
  return base->empty() ? n.text : *base + "." + n.text;
}

Args Builder::args(const syntax::Node& call, std::string fn, std::size_t minPositional, std::size_t maxPositional,
                   std::initializer_list<std::string_view> keywords) const {
  Args a;
  a.fn = std::move(fn);
  a.loc = call.loc;
  for (std::size_t i = 1; i < call.kids.size(); ++i) {
    const std::string& kw = call.keywords[i - 1];
    const syntax::Node* arg = call.kids[i].get();
    if (arg->kind == syntax::NodeKind::Starred)
      fail("call", fmt::format("{} does not take *arguments", a.fn), arg->loc);
    if (kw.empty()) {
      if (!a.keywords.empty())
        fail("call", fmt::format("{}: a positional argument follows a keyword argument", a.fn), arg->loc);
      a.positional.push_back(arg);
      continue;
    }
    if (std::find(keywords.begin(), keywords.end(), kw) == keywords.end())
      fail("call", fmt::format("{} has no argument '{}'", a.fn, quoteForMessage(kw)), call.keywordLocs[i - 1]);
    if (a.keyword(kw)) fail("call", fmt::format("{}: argument '{}' given twice", a.fn, kw), call.keywordLocs[i - 1]);
    a.keywords.emplace_back(kw, arg);
  }
  if (a.positional.size() < minPositional || a.positional.size() > maxPositional) {
    std::string count = minPositional == maxPositional ? std::to_string(minPositional)
                        : maxPositional == SIZE_MAX    ? fmt::format("at least {}", minPositional)
                                                       : fmt::format("{} to {}", minPositional, maxPositional);
    fail("call",
         fmt::format("{} takes {} positional argument{}, got {}", a.fn, count,
                     minPositional == maxPositional && minPositional == 1 ? "" : "s", a.positional.size()),
         call.loc);
  }
  return a;
}

namespace {

bool isDecorator(const Builder& b, const syntax::Node& d, std::string_view path, bool* tirx = nullptr) {
  const syntax::Node* fn = d.kind == syntax::NodeKind::Call ? d.kids[0].get() : &d;
  if (path == "ir_module") {
    // I.ir_module / tvm.script.ir_module
    if (fn->kind != syntax::NodeKind::Attribute || fn->text != "ir_module") return false;
    return true;
  }
  auto p = b.tirPath(*fn);
  if (!p || *p != path) return false;
  if (tirx && d.kind == syntax::NodeKind::Call)
    for (std::size_t i = 1; i < d.kids.size(); ++i)
      if (d.keywords[i - 1] == "s_tir" && d.kids[i]->kind == syntax::NodeKind::True) *tirx = true;
  return true;
}

/// `n = TypeVar("n")`: how TVM 0.27 declares an int64 size of the functions below.
bool isTypeVarSize(const syntax::Stmt& s) {
  if (s.targets.size() != 1 || s.targets[0]->kind != syntax::NodeKind::Name || !s.value) return false;
  const syntax::Node& v = *s.value;
  if (v.kind != syntax::NodeKind::Call || v.kids.size() != 2) return false;
  const syntax::Node& fn = *v.kids[0];
  const bool typeVar = (fn.kind == syntax::NodeKind::Name && fn.text == "TypeVar") ||
                       (fn.kind == syntax::NodeKind::Attribute && fn.text == "TypeVar");
  return typeVar && v.kids[1]->kind == syntax::NodeKind::Str && v.kids[1]->text == s.targets[0]->text;
}

} // namespace

TvmScriptProgram Builder::module(const syntax::Module& m) {
  TvmScriptProgram out;
  pushScope();
  // Snippets pasted without their imports still read: T and I are TVM's usual aliases.
  bind("T", Binding{Binding::Kind::Module, {}, {}, "tir"});
  bind("I", Binding{Binding::Kind::Module, {}, {}, "ir"});
  auto addFunction = [&](const syntax::Stmt& s) {
    bool tirx = false;
    if (s.decorators.size() != 1 || !isDecorator(*this, *s.decorators[0], "prim_func", &tirx))
      fail("unsupported", fmt::format("function '{}' is not a @T.prim_func", quoteForMessage(s.name)), s.nameLoc);
    if (tirx) dialect = TvmScriptDialect::Tirx;
    for (const auto& f : out.module.functions)
      if (f.name == s.name) fail("duplicate", fmt::format("function '{}' is defined twice", s.name), s.nameLoc);
    out.module.functions.push_back(function(s));
  };
  for (const auto& s : m.body) {
    switch (s.kind) {
    case syntax::StmtKind::Import:
      for (const auto& imp : s.imports) {
        std::string_view mod = imp.module;
        if (mod.ends_with(".tirx") || mod == "tirx") {
          dialect = TvmScriptDialect::Tirx;
          bind(imp.alias, Binding{Binding::Kind::Module, {}, {}, "tir"});
        } else if (mod.ends_with(".tir") || mod == "tir") {
          bind(imp.alias, Binding{Binding::Kind::Module, {}, {}, "tir"});
        } else if (mod.ends_with(".ir") || mod == "ir") {
          bind(imp.alias, Binding{Binding::Kind::Module, {}, {}, "ir"});
        } else {
          bind(imp.alias, Binding{Binding::Kind::Module, {}, {}, std::string(mod)});
        }
      }
      break;
    case syntax::StmtKind::FunctionDef: addFunction(s); break;
    case syntax::StmtKind::ClassDef:
      if (s.decorators.size() != 1 || !isDecorator(*this, *s.decorators[0], "ir_module"))
        fail("unsupported", fmt::format("class '{}' is not an @I.ir_module", quoteForMessage(s.name)), s.nameLoc);
      for (const auto& member : s.body) {
        if (member.kind == syntax::StmtKind::FunctionDef)
          addFunction(member);
        else if (member.kind != syntax::StmtKind::Pass &&
                 !(member.kind == syntax::StmtKind::Expr && member.value->kind == syntax::NodeKind::Str))
          fail("unsupported", "an @I.ir_module class holds only @T.prim_func functions", member.loc);
      }
      break;
    case syntax::StmtKind::Pass: break;
    case syntax::StmtKind::Assign:
      if (isTypeVarSize(s)) {
        m_moduleSizes.insert_or_assign(s.targets[0]->text, ir::DataType::int64());
        break;
      }
      [[fallthrough]];
    case syntax::StmtKind::Expr:
      if (s.kind == syntax::StmtKind::Expr && s.value->kind == syntax::NodeKind::Str) break; // a docstring
      [[fallthrough]];
    default:
      fail("unsupported",
           "a TVMScript file holds imports, @T.prim_func functions and @I.ir_module classes; this statement is "
           "none of them",
           s.loc);
    }
  }
  if (out.module.functions.empty())
    fail("empty", "the file defines no @T.prim_func function", SourceLocation{m_file, 1, 1, 1});
  out.dialect = dialect;
  popScope();
  return out;
}

void Builder::scanDeclaredSizes(const syntax::Stmt& def) {
  m_declaredSizes.clear();
  auto integerType = [this](const syntax::Node* n) -> std::optional<ir::DataType> {
    if (!n) return std::nullopt;
    auto path = tirPath(n->kind == syntax::NodeKind::Call && n->kids.size() == 1 ? *n->kids[0] : *n);
    auto t = path ? ir::DataType::parse(*path) : std::nullopt;
    if (t && t->isInteger() && t->isScalar()) return t;
    return std::nullopt;
  };
  for (const auto& p : def.params)
    if (auto t = integerType(p.annotation.get())) m_declaredSizes.emplace(p.name, *t);
  for (const auto& [name, t] : m_moduleSizes)
    m_declaredSizes.emplace(name, t);
  for (const auto& s : def.body) {
    if (s.kind != syntax::StmtKind::Assign || s.targets.size() != 1 || !s.value) continue;
    const syntax::Node& target = *s.targets[0];
    const syntax::Node& value = *s.value;
    if (target.kind == syntax::NodeKind::Name && value.kind == syntax::NodeKind::Call) {
      if (auto t = integerType(&value)) m_declaredSizes.emplace(target.text, *t);
    } else if (target.kind == syntax::NodeKind::Tuple && value.kind == syntax::NodeKind::Tuple &&
               target.kids.size() == value.kids.size()) {
      for (std::size_t i = 0; i < target.kids.size(); ++i)
        if (target.kids[i]->kind == syntax::NodeKind::Name && value.kids[i]->kind == syntax::NodeKind::Call)
          if (auto t = integerType(value.kids[i].get())) m_declaredSizes.emplace(target.kids[i]->text, *t);
    }
  }
}

ir::PrimFunc Builder::function(const syntax::Stmt& def) {
  ir::PrimFunc func;
  func.name = def.name;
  m_sizeVars.clear();
  scanDeclaredSizes(def);
  pushScope();
  // Parameters: buffers, handles bound later by T.match_buffer, and scalar sizes.
  std::vector<std::pair<std::string, ir::Buffer>> params; // handle name -> buffer (set by match_buffer)
  std::vector<std::pair<std::string, SourceLocation>> scalars;
  for (const auto& p : def.params) {
    if (p.defaultValue) fail("unsupported", fmt::format("parameter '{}' has a default value", p.name), p.loc);
    if (!p.annotation)
      fail("param", fmt::format("parameter '{}' needs a type: T.Buffer(shape, dtype) or T.handle", p.name), p.loc);
    const syntax::Node& ann = *p.annotation;
    if (ann.kind == syntax::NodeKind::Call && tirPath(*ann.kids[0]) == "Buffer") {
      ir::Buffer b = bufferFromArgs(args(ann, "T.Buffer", 1, 3,
                                         {"dtype", "strides", "scope", "offset_factor", "align", "elem_offset", "data",
                                          "buffer_type", "axis_separators"}),
                                    0, p.name);
      bind(p.name, Binding{Binding::Kind::Buffer, {}, b, {}});
      params.emplace_back(p.name, b);
      continue;
    }
    if (ann.kind == syntax::NodeKind::Subscript && tirPath(*ann.kids[0]) == "Buffer") {
      // The older spelling T.Buffer[(128, 128), "float32"].
      Args a;
      a.fn = "T.Buffer";
      a.loc = ann.loc;
      for (std::size_t i = 1; i < ann.kids.size(); ++i)
        a.positional.push_back(ann.kids[i].get());
      if (a.positional.empty() || a.positional.size() > 2)
        fail("call", "T.Buffer[...] takes a shape and a dtype", ann.loc);
      ir::Buffer b = bufferFromArgs(a, 0, p.name);
      bind(p.name, Binding{Binding::Kind::Buffer, {}, b, {}});
      params.emplace_back(p.name, b);
      continue;
    }
    auto path = tirPath(ann);
    if (path == "handle") {
      bind(p.name, Binding{Binding::Kind::Handle, {}, {}, p.name});
      params.emplace_back(p.name, ir::Buffer{});
      continue;
    }
    if (path) {
      if (auto t = ir::DataType::parse(*path); t && t->isInteger() && t->isScalar()) {
        ir::Expr v = sizeVar(p.name, *t, p.loc);
        bind(p.name, Binding{Binding::Kind::Value, v, {}, {}});
        scalars.emplace_back(p.name, p.loc);
        continue;
      }
    }
    fail("param",
         fmt::format("parameter '{}': expected T.Buffer(shape, dtype), T.handle or an integer size type", p.name),
         ann.loc);
  }

  std::vector<ir::Buffer> rootAllocs;
  allocs = &rootAllocs;
  m_rootAllocs = &rootAllocs;
  m_matchBuffers = &params;
  m_func = &func;
  ir::Stmt body = stmts(def.body);
  m_func = nullptr;
  m_matchBuffers = nullptr;
  m_rootAllocs = nullptr;
  allocs = nullptr;

  for (const auto& [name, buffer] : params) {
    if (!buffer)
      fail("param", fmt::format("parameter '{}' is a T.handle that no T.match_buffer binds", name), def.nameLoc);
    func.params.push_back(buffer);
  }
  const auto sizes = func.sizeVars();
  for (const auto& [name, loc] : scalars) {
    const ir::Expr& v = m_sizeVars.at(name);
    if (std::none_of(sizes.begin(), sizes.end(), [&](const ir::Expr& s) { return s.sameAs(v); }))
      fail("param",
           fmt::format("scalar parameter '{}' is not the size of any buffer parameter: functions take buffers, and "
                       "scalars only as symbolic sizes",
                       name),
           loc);
  }
  const auto* realize = body ? body.as<ir::BlockRealize>() : nullptr;
  bool explicitRoot = realize && realize->iterValues.empty() && realize->blockNode().name == "root";
  if (explicitRoot && !rootAllocs.empty())
    fail("block", "T.alloc_buffer outside the root block of a function that spells its root block out", def.nameLoc);
  if (!explicitRoot) {
    if (!body) body = ir::Evaluate::make(ir::intImm(0));
    // TVM gives a function without blocks or root allocations no root block; Loopscape's
    // functions always have one, marked so that the printer leaves it out again.
    ir::Annotations rootAnnotations;
    if (rootAllocs.empty() && !containsBlock(body)) rootAnnotations[ir::kNoRootAnnotation] = ir::intImm(1);
    body = ir::BlockRealize::make(
        {}, ir::boolImm(true),
        ir::Block::make("root", {}, {}, {}, body, {}, std::move(rootAllocs), std::move(rootAnnotations)));
  }
  func.body = body;
  popScope();
  return func;
}

} // namespace tvms

namespace {

const syntax::Dialect& tvmScriptDialect() {
  static const syntax::Dialect dialect = [] {
    syntax::Dialect d;
    d.codePrefix = "tvmscript";
    d.wording = syntax::TokenWording::Detailed;
    d.matchBrackets = true;
    d.comprehensions = false;
    d.starredArguments = false;
    d.annotatedAssignments = true;
    d.unsupportedOperators = {"in", "not in", "is", "is not"};
    d.intRange = "int64";
    return d;
  }();
  return dialect;
}

} // namespace

Expected<TvmScriptProgram> parseTvmScript(std::string_view source, std::string fileName) {
  auto tree = syntax::parseModule(source, fileName, tvmScriptDialect());
  if (!tree) return Unexpected(std::move(tree.error()));
  try {
    tvms::Builder builder(fileName);
    return builder.module(*tree);
  } catch (tvms::Failure& f) {
    return Unexpected(std::move(f.diagnostic));
  }
}

Expected<ir::PrimFunc> selectFunction(const TvmScriptProgram& program, std::string_view name,
                                      const std::string& fileName) {
  const auto& fs = program.module.functions;
  if (name.empty()) {
    if (fs.size() == 1) return fs.front();
    name = "main";
  }
  if (const ir::PrimFunc* f = program.module.find(name)) return *f;
  std::string names;
  for (const auto& f : fs)
    names += (names.empty() ? "" : ", ") + f.name;
  return Unexpected(
      Diagnostic::error("tvmscript.no-function",
                        fmt::format("{}: no function '{}' in the module (it has {}); choose one with --func NAME",
                                    fileName, quoteForMessage(name), names)));
}

} // namespace loopscape::frontend
