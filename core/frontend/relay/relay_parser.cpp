#include "core/frontend/relay/relay_parser.h"

#include "core/frontend/relay/relay_lexer.h"
#include "core/frontend/relay/relay_metadata.h"
#include "core/ir/resource_limits.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <map>

namespace loopscape::frontend::relay {

namespace {

class Parser {
public:
  Parser(std::vector<Token> tokens, std::string fileName) : m_tokens(std::move(tokens)) {
    m_module.fileName = std::move(fileName);
  }

  Expected<Module> run() {
    if (peek().kind == TokenKind::Version) {
      if (peek().text != "0.0.5")
        return fail(
            fmt::format("unsupported Relay text version \"{}\": only \"0.0.5\" (TVM 0.8-0.18) is read", peek().text),
            peek().loc);
      advance();
    }
    while (peek().kind != TokenKind::End && peek().kind != TokenKind::Metadata) {
      const Token& t = peek();
      if (t.kind == TokenKind::Ident && t.text == "def") {
        if (auto r = parseDef(); !r) return std::unexpected(r.error());
        continue;
      }
      if (t.kind == TokenKind::Ident && (t.text == "type" || t.text == "extern"))
        return fail(fmt::format("'{}' declarations (ADTs) are not supported: keep only the 'def' functions", t.text),
                    t.loc);
      return fail(fmt::format("expected 'def @name(...)' at top level, got {}", describeToken(t)), t.loc);
    }
    if (m_module.functions.empty())
      return fail("the file defines no function: add 'def @main(...) { ... }'", peek().loc);
    for (const auto& [name, loc] : m_globalUses)
      if (!m_module.find(name)) return fail(fmt::format("call of undefined function @{}", name), loc);
    for (const auto& [index, loc] : m_metaUses)
      if (static_cast<std::size_t>(index) >= m_module.constants.size()) {
        m_module.constants.resize(static_cast<std::size_t>(index) + 1);
        m_module.constantTypes.resize(static_cast<std::size_t>(index) + 1);
      }
    if (peek().kind == TokenKind::Metadata) {
      m_module.hasMetadata = true;
      m_module.metadataLoc = peek().loc;
      auto consts = decodeMetadata(peek().text, peek().loc);
      if (!consts) return std::unexpected(consts.error());
      if (consts->size() > m_module.constants.size()) {
        m_module.constants.resize(consts->size());
        m_module.constantTypes.resize(consts->size());
      }
      for (std::size_t i = 0; i < consts->size(); ++i)
        m_module.constants[i] = (*consts)[i];
    }
    return std::move(m_module);
  }

private:
  std::vector<Token> m_tokens;
  std::size_t m_pos = 0;
  Module m_module;
  std::map<std::string, NodePtr> m_env;
  std::vector<std::pair<std::string, SourceLocation>> m_globalUses;
  std::vector<std::pair<int, SourceLocation>> m_metaUses;
  Function* m_current = nullptr;
  int m_depth = 0;

  const Token& peek(std::size_t k = 0) const { return m_tokens[std::min(m_pos + k, m_tokens.size() - 1)]; }
  const Token& advance() {
    const Token& t = m_tokens[m_pos];
    if (m_pos + 1 < m_tokens.size()) ++m_pos;
    return t;
  }
  bool isIdent(std::string_view text) const { return peek().kind == TokenKind::Ident && peek().text == text; }
  Unexpected fail(std::string message, SourceLocation loc) const {
    return Unexpected(Diagnostic::error("relay.parse", std::move(message), std::move(loc)));
  }
  Expected<Token> expect(TokenKind kind, std::string_view what) {
    if (peek().kind != kind) return fail(fmt::format("expected {}, got {}", what, describeToken(peek())), peek().loc);
    return advance();
  }

  /// Counts one level of nesting; refuses past the resource limit.
  struct DepthGuard {
    int& depth;
    ~DepthGuard() { --depth; }
  };
  Expected<void> enter(const SourceLocation& loc) {
    if (++m_depth > ir::resourceLimits().maxNestingDepth) {
      --m_depth;
      return fail(fmt::format("nesting deeper than {} levels: bind inner expressions to %variables",
                              ir::resourceLimits().maxNestingDepth),
                  loc);
    }
    return {};
  }

  Expected<void> parseDef() {
    advance(); // def
    auto name = expect(TokenKind::Global, "a function name '@name' after 'def'");
    if (!name) return std::unexpected(name.error());
    if (m_module.find(name->text)) return fail(fmt::format("function @{} is defined twice", name->text), name->loc);
    Function fn;
    fn.name = name->text;
    fn.loc = name->loc;
    m_env.clear();
    if (auto r = expect(TokenKind::LParen, "'(' after the function name"); !r) return std::unexpected(r.error());
    while (peek().kind != TokenKind::RParen) {
      if (peek().kind == TokenKind::Ident && peek(1).kind == TokenKind::Equal) {
        advance(); // a function attribute such as Primitive=1: kept out of the graph
        advance();
        if (auto v = parseAttrValue(); !v) return std::unexpected(v.error());
      } else {
        auto p = expect(TokenKind::Local, "a parameter '%name' or ')'");
        if (!p) return std::unexpected(p.error());
        if (m_env.contains(p->text)) return fail(fmt::format("parameter %{} is declared twice", p->text), p->loc);
        Type type;
        if (peek().kind == TokenKind::Colon) {
          advance();
          auto t = parseType();
          if (!t) return std::unexpected(t.error());
          type = std::move(*t);
        }
        NodePtr var = makeVar(p->text, type, p->loc);
        fn.params.push_back(var);
        m_env[p->text] = var;
      }
      if (peek().kind != TokenKind::Comma) break;
      advance();
    }
    if (auto r = expect(TokenKind::RParen, "',' or ')' in the parameter list"); !r) return std::unexpected(r.error());
    if (peek().kind == TokenKind::Arrow) {
      advance();
      fn.retLoc = peek().loc;
      auto t = parseType();
      if (!t) return std::unexpected(t.error());
      fn.retType = std::move(*t);
    }
    if (auto r = expect(TokenKind::LBrace, "'{' to open the function body"); !r) return std::unexpected(r.error());
    m_current = &fn;
    auto body = parseBody();
    m_current = nullptr;
    if (!body) return std::unexpected(body.error());
    fn.body = *body;
    if (auto r = expect(TokenKind::RBrace, "'}' to close the function body"); !r) return std::unexpected(r.error());
    m_module.functions.push_back(std::move(fn));
    return {};
  }

  Expected<NodePtr> parseBody() {
    for (;;) {
      bool isLet = isIdent("let");
      if (isLet || (peek().kind == TokenKind::Local && peek(1).kind == TokenKind::Equal)) {
        if (isLet) advance();
        auto name = expect(TokenKind::Local, "a variable '%name' after 'let'");
        if (!name) return std::unexpected(name.error());
        std::optional<Type> annotation;
        SourceLocation annLoc;
        if (isLet && peek().kind == TokenKind::Colon) {
          advance();
          annLoc = peek().loc;
          auto t = parseType();
          if (!t) return std::unexpected(t.error());
          annotation = std::move(*t);
        }
        if (auto r = expect(TokenKind::Equal, "'=' in the binding"); !r) return std::unexpected(r.error());
        auto value = parseExpr();
        if (!value) return std::unexpected(value.error());
        if (auto r = expect(TokenKind::Semicolon, fmt::format("';' after the binding of %{}", name->text)); !r)
          return std::unexpected(r.error());
        if (annotation) m_current->annotations.push_back(Annotation{*value, std::move(*annotation), annLoc});
        m_env[name->text] = *value;
        continue;
      }
      return parseExpr();
    }
  }

  Expected<NodePtr> parseExpr() {
    if (auto r = enter(peek().loc); !r) return std::unexpected(r.error());
    DepthGuard guard{m_depth};
    auto e = parsePrimary();
    if (!e) return e;
    NodePtr node = *e;
    while (peek().kind == TokenKind::Dot) {
      SourceLocation dot = advance().loc;
      auto idx = expect(TokenKind::Int, "a field number after '.'");
      if (!idx) return std::unexpected(idx.error());
      int field = 0;
      auto [p, ec] = std::from_chars(idx->text.data(), idx->text.data() + idx->text.size(), field);
      if (ec != std::errc() || !idx->suffix.empty() || p != idx->text.data() + idx->text.size())
        return fail(fmt::format("bad tuple field number {}", describeToken(*idx)), idx->loc);
      auto n = std::make_shared<Node>();
      n->kind = NodeKind::TupleGetItem;
      n->args = {node};
      n->index = field;
      n->loc = dot;
      node = n;
    }
    if (peek().kind == TokenKind::LParen && node->kind != NodeKind::Call && node->kind != NodeKind::GlobalCall)
      return fail("calling a function value is not supported: call a global function '@f(...)' instead", peek().loc);
    return node;
  }

  Expected<NodePtr> parsePrimary() {
    const Token& t = peek();
    switch (t.kind) {
    case TokenKind::Local: {
      advance();
      auto it = m_env.find(t.text);
      if (it == m_env.end()) return fail(fmt::format("undefined variable %{}", t.text), t.loc);
      return it->second;
    }
    case TokenKind::Global: {
      Token name = advance();
      if (peek().kind != TokenKind::LParen)
        return fail(fmt::format("expected '(' after @{}: functions are only called", name.text), peek().loc);
      m_globalUses.emplace_back(name.text, name.loc);
      auto n = std::make_shared<Node>();
      n->kind = NodeKind::GlobalCall;
      n->name = name.text;
      n->loc = name.loc;
      if (auto r = parseArgs(*n); !r) return std::unexpected(r.error());
      if (!n->attrs.empty())
        return fail(fmt::format("function @{} takes no attributes", name.text), n->attrs.front().loc);
      return NodePtr(n);
    }
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::Minus: return parseLiteral();
    case TokenKind::LParen: return parseTuple();
    case TokenKind::Ident: break;
    default: return fail(fmt::format("expected an expression, got {}", describeToken(t)), t.loc);
    }
    if (t.text == "True" || t.text == "False") {
      Token b = advance();
      return scalarConstant(ir::DataType::boolean(), b.text == "True" ? 1.0 : 0.0, b.loc);
    }
    if (t.text == "meta") return parseMeta();
    static const char* kUnsupported[] = {"fn", "if", "match", "ref", "ref_read", "ref_write", "free_var", "let"};
    for (const char* k : kUnsupported)
      if (t.text == k)
        return fail(fmt::format("'{}' is not supported here: write the graph as %bindings of operator calls", k),
                    t.loc);
    Token name = advance();
    if (peek().kind != TokenKind::LParen)
      return fail(fmt::format("expected '(' after the operator name '{}'", name.text), peek().loc);
    auto n = std::make_shared<Node>();
    n->kind = NodeKind::Call;
    n->name = name.text;
    n->loc = name.loc;
    if (auto r = parseArgs(*n); !r) return std::unexpected(r.error());
    return NodePtr(n);
  }

  Expected<void> parseArgs(Node& call) {
    advance(); // '('
    while (peek().kind != TokenKind::RParen) {
      if (peek().kind == TokenKind::Ident && peek(1).kind == TokenKind::Equal) {
        Token name = advance();
        advance();
        for (const auto& a : call.attrs)
          if (a.name == name.text) return fail(fmt::format("attribute '{}' is given twice", name.text), name.loc);
        auto v = parseAttrValue();
        if (!v) return std::unexpected(v.error());
        call.attrs.push_back(Attr{name.text, std::move(*v), name.loc});
      } else {
        if (!call.attrs.empty())
          return fail("positional argument after an attribute: put the operands first", peek().loc);
        if (isIdent("meta") && peek(2).kind == TokenKind::Ident && peek(2).text.starts_with("relay.attrs"))
          return fail(fmt::format("meta attribute objects ({}) are not supported: write the attributes as name=value",
                                  peek(2).text),
                      peek().loc);
        auto e = parseExpr();
        if (!e) return std::unexpected(e.error());
        call.args.push_back(*e);
      }
      if (peek().kind != TokenKind::Comma) break;
      advance();
    }
    if (auto r = expect(TokenKind::RParen, "',' or ')' in the argument list"); !r) return std::unexpected(r.error());
    return {};
  }

  Expected<NodePtr> parseTuple() {
    SourceLocation open = advance().loc;
    std::vector<NodePtr> fields;
    bool trailingComma = false;
    while (peek().kind != TokenKind::RParen) {
      auto e = parseExpr();
      if (!e) return e;
      fields.push_back(*e);
      trailingComma = false;
      if (peek().kind != TokenKind::Comma) break;
      advance();
      trailingComma = true;
    }
    if (auto r = expect(TokenKind::RParen, "',' or ')' in the tuple"); !r) return std::unexpected(r.error());
    if (fields.size() == 1 && !trailingComma) return fields.front(); // parenthesised expression
    auto n = std::make_shared<Node>();
    n->kind = NodeKind::Tuple;
    n->args = std::move(fields);
    n->loc = open;
    return NodePtr(n);
  }

  Expected<NodePtr> parseMeta() {
    SourceLocation loc = advance().loc;
    if (auto r = expect(TokenKind::LBracket, "'[' after 'meta'"); !r) return std::unexpected(r.error());
    auto kind = expect(TokenKind::Ident, "'relay.Constant' in meta[...]");
    if (!kind) return std::unexpected(kind.error());
    if (kind->text != "relay.Constant")
      return fail(fmt::format("meta[{}] is not supported: only meta[relay.Constant][i] constants are", kind->text),
                  kind->loc);
    if (auto r = expect(TokenKind::RBracket, "']'"); !r) return std::unexpected(r.error());
    if (auto r = expect(TokenKind::LBracket, "'[' before the constant's index"); !r) return std::unexpected(r.error());
    auto idx = expect(TokenKind::Int, "the constant's index");
    if (!idx) return std::unexpected(idx.error());
    int index = 0;
    auto [p, ec] = std::from_chars(idx->text.data(), idx->text.data() + idx->text.size(), index);
    if (ec != std::errc() || p != idx->text.data() + idx->text.size() || index > 1'000'000)
      return fail(fmt::format("constant index {} is out of range", idx->text), idx->loc);
    auto close = expect(TokenKind::RBracket, "']' after the constant's index");
    if (!close) return std::unexpected(close.error());
    loc.length = close->loc.line == loc.line ? close->loc.column - loc.column + 1 : loc.length;
    m_metaUses.emplace_back(index, loc);
    auto n = std::make_shared<Node>();
    n->kind = NodeKind::Constant;
    n->index = index;
    n->loc = loc;
    return NodePtr(n);
  }

  NodePtr scalarConstant(ir::DataType dtype, double value, SourceLocation loc) {
    auto n = std::make_shared<Node>();
    n->kind = NodeKind::Constant;
    n->loc = std::move(loc);
    n->type = Type::tensor({}, dtype);
    n->value = ir::NDArray({}, dtype);
    n->value.setDouble(0, value);
    return n;
  }

  /// A number token (after an optional '-') as dtype and value.
  struct Number {
    ir::DataType dtype;
    double f = 0;
    std::int64_t i = 0;
    bool isFloat = false;
    SourceLocation loc;
  };
  Expected<Number> parseNumber() {
    bool negative = false;
    SourceLocation loc = peek().loc;
    if (peek().kind == TokenKind::Minus) {
      negative = true;
      advance();
    }
    if (peek().kind != TokenKind::Int && peek().kind != TokenKind::Float)
      return fail(fmt::format("expected a number, got {}", describeToken(peek())), peek().loc);
    Token t = advance();
    if (negative)
      loc.length = t.loc.column + t.loc.length - loc.column;
    else
      loc = t.loc;
    Number n;
    n.loc = loc;
    if (t.kind == TokenKind::Float) {
      n.isFloat = true;
      n.dtype = t.suffix == "f16"   ? ir::DataType::float16()
                : t.suffix == "f64" ? ir::DataType::float64()
                                    : ir::DataType::float32();
      n.f = std::strtod(t.text.c_str(), nullptr);
      if (!std::isfinite(n.f)) return fail(fmt::format("float literal {} is out of range", t.text), loc);
      if (negative) n.f = -n.f;
      return n;
    }
    std::string s = t.suffix.empty() ? "i32" : t.suffix;
    n.dtype = *ir::DataType::parse((s[0] == 'i' ? "int" : "uint") + s.substr(1));
    std::uint64_t magnitude = 0;
    auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), magnitude);
    bool fits = ec == std::errc() && p == t.text.data() + t.text.size();
    if (fits) {
      if (n.dtype.isUInt()) {
        fits = !negative && (n.dtype.bits() == 64 || magnitude < (std::uint64_t{1} << n.dtype.bits()));
      } else {
        std::uint64_t limit = std::uint64_t{1} << (n.dtype.bits() - 1);
        fits = negative ? magnitude <= limit : magnitude < limit;
      }
    }
    if (!fits)
      return fail(fmt::format("integer literal {}{} does not fit in {}", negative ? "-" : "", t.text, n.dtype.str()),
                  loc);
    n.i = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
    n.f = static_cast<double>(n.i);
    return n;
  }

  Expected<NodePtr> parseLiteral() {
    auto n = parseNumber();
    if (!n) return std::unexpected(n.error());
    auto node = std::make_shared<Node>();
    node->kind = NodeKind::Constant;
    node->loc = n->loc;
    node->type = Type::tensor({}, n->dtype);
    node->value = ir::NDArray({}, n->dtype);
    if (n->isFloat)
      node->value.setDouble(0, n->f);
    else
      node->value.setInt(0, n->i);
    return NodePtr(node);
  }

  Expected<AttrValue> parseAttrValue() {
    if (auto r = enter(peek().loc); !r) return std::unexpected(r.error());
    DepthGuard guard{m_depth};
    const Token& t = peek();
    switch (t.kind) {
    case TokenKind::String: return AttrValue::string(advance().text);
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::Minus: {
      auto n = parseNumber();
      if (!n) return std::unexpected(n.error());
      return n->isFloat ? AttrValue::real(n->f) : AttrValue::integer(n->i);
    }
    case TokenKind::LBracket: {
      advance();
      AttrValue list;
      list.kind = AttrValue::Kind::List;
      while (peek().kind != TokenKind::RBracket) {
        auto v = parseAttrValue();
        if (!v) return v;
        list.list.push_back(std::move(*v));
        if (peek().kind != TokenKind::Comma) break;
        advance();
      }
      if (auto r = expect(TokenKind::RBracket, "',' or ']' in the list"); !r) return std::unexpected(r.error());
      return list;
    }
    case TokenKind::Ident:
      if (t.text == "True" || t.text == "False") return AttrValue::boolean(advance().text == "True");
      if (t.text == "None") {
        advance();
        return AttrValue::none();
      }
      break;
    default: break;
    }
    return fail(fmt::format("expected an attribute value (number, string, True/False, None or a list), got {}",
                            describeToken(t)),
                t.loc);
  }

  Expected<Type> parseType() {
    if (auto r = enter(peek().loc); !r) return std::unexpected(r.error());
    DepthGuard guard{m_depth};
    const Token& t = peek();
    if (t.kind == TokenKind::LParen) {
      advance();
      std::vector<Type> fields;
      while (peek().kind != TokenKind::RParen) {
        auto f = parseType();
        if (!f) return f;
        fields.push_back(std::move(*f));
        if (peek().kind != TokenKind::Comma) break;
        advance();
      }
      if (auto r = expect(TokenKind::RParen, "',' or ')' in the tuple type"); !r) return std::unexpected(r.error());
      return Type::tuple(std::move(fields));
    }
    if (t.kind != TokenKind::Ident) return fail(fmt::format("expected a type, got {}", describeToken(t)), t.loc);
    if (t.text != "Tensor") {
      auto dt = ir::DataType::parse(t.text);
      if (!dt || !dt->isScalar())
        return fail(fmt::format("unknown type '{}': expected Tensor[(...), dtype] or a dtype such as float32", t.text),
                    t.loc);
      advance();
      return Type::tensor({}, *dt);
    }
    advance();
    if (auto r = expect(TokenKind::LBracket, "'[' after Tensor"); !r) return std::unexpected(r.error());
    if (auto r = expect(TokenKind::LParen, "'(' to open the shape"); !r) return std::unexpected(r.error());
    std::vector<std::int64_t> shape;
    while (peek().kind != TokenKind::RParen) {
      if (peek().kind == TokenKind::Question)
        return fail("dynamic dimensions '?' are not supported: give every extent as a number", peek().loc);
      auto d = expect(TokenKind::Int, "an extent");
      if (!d) return std::unexpected(d.error());
      std::int64_t v = 0;
      auto [p, ec] = std::from_chars(d->text.data(), d->text.data() + d->text.size(), v);
      if (ec != std::errc() || p != d->text.data() + d->text.size() || v > (std::int64_t{1} << 40))
        return fail(fmt::format("extent {} is too large", d->text), d->loc);
      shape.push_back(v);
      if (peek().kind != TokenKind::Comma) break;
      advance();
    }
    if (auto r = expect(TokenKind::RParen, "',' or ')' in the shape"); !r) return std::unexpected(r.error());
    if (auto r = expect(TokenKind::Comma, "',' before the dtype"); !r) return std::unexpected(r.error());
    auto dt = expect(TokenKind::Ident, "a dtype such as float32");
    if (!dt) return std::unexpected(dt.error());
    auto dtype = ir::DataType::parse(dt->text);
    if (!dtype || !dtype->isScalar()) return fail(fmt::format("unknown dtype '{}'", dt->text), dt->loc);
    if (auto r = expect(TokenKind::RBracket, "']' to close the tensor type"); !r) return std::unexpected(r.error());
    return Type::tensor(std::move(shape), *dtype);
  }
};

} // namespace

Expected<Module> parseRelay(std::string_view source, std::string fileName) {
  if (static_cast<std::int64_t>(source.size()) > ir::resourceLimits().maxSourceFileBytes)
    return std::unexpected(
        Diagnostic::error("relay.parse", fmt::format("{}: the file has {} bytes, more than the limit of {}", fileName,
                                                     source.size(), ir::resourceLimits().maxSourceFileBytes)));
  auto tokens = lexRelay(source, fileName);
  if (!tokens) return std::unexpected(tokens.error());
  return Parser(std::move(*tokens), std::move(fileName)).run();
}

} // namespace loopscape::frontend::relay
