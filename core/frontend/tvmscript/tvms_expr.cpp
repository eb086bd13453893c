// TVMScript expressions: literals, names, buffer loads, Python operators with TVM's typing
// (a bare literal takes the other operand's type; integers of different widths meet in the
// wider one), and the T.* expression functions. Nothing is simplified or folded, so that a
// printed program reads back as the same tree.
#include "core/frontend/tvmscript/tvms_builder.h"
#include "core/frontend/tvmscript/tvms_range.h"

#include "core/ir/op.h"
#include "core/ir/structural_equal.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace loopscape::frontend::tvms {

using syntax::Node;
using syntax::NodeKind;

namespace {

bool isLiteral(const Node& n) {
  if (n.kind == NodeKind::Int || n.kind == NodeKind::Float) return true;
  return n.kind == NodeKind::Unary && n.text == "-" && !n.kids.empty() &&
         (n.kids[0]->kind == NodeKind::Int || n.kids[0]->kind == NodeKind::Float);
}

bool fits(ir::DataType t, std::int64_t v) {
  if (t.bits() >= 64) return true;
  const std::int64_t lo = t.isUInt() ? 0 : -(std::int64_t(1) << (t.bits() - 1));
  const std::int64_t hi = t.isUInt() ? (std::int64_t(1) << t.bits()) - 1 : (std::int64_t(1) << (t.bits() - 1)) - 1;
  return v >= lo && v <= hi;
}

std::optional<ir::ExprKind> binaryKindNamed(std::string_view name) {
  static const std::pair<std::string_view, ir::ExprKind> kTable[] = {
      {"Add", ir::ExprKind::Add},
      {"Sub", ir::ExprKind::Sub},
      {"Mul", ir::ExprKind::Mul},
      {"Div", ir::ExprKind::Div},
      {"truncdiv", ir::ExprKind::Div},
      {"FloorDiv", ir::ExprKind::FloorDiv},
      {"floordiv", ir::ExprKind::FloorDiv},
      {"FloorMod", ir::ExprKind::FloorMod},
      {"floormod", ir::ExprKind::FloorMod},
      {"Min", ir::ExprKind::Min},
      {"min", ir::ExprKind::Min},
      {"Max", ir::ExprKind::Max},
      {"max", ir::ExprKind::Max},
      {"EQ", ir::ExprKind::EQ},
      {"NE", ir::ExprKind::NE},
      {"LT", ir::ExprKind::LT},
      {"LE", ir::ExprKind::LE},
      {"GT", ir::ExprKind::GT},
      {"GE", ir::ExprKind::GE},
      {"And", ir::ExprKind::And},
      {"Or", ir::ExprKind::Or},
  };
  for (const auto& [n, k] : kTable)
    if (n == name) return k;
  return std::nullopt;
}

std::optional<ir::ExprKind> binaryKindOfOperator(std::string_view op) {
  if (op == "+") return ir::ExprKind::Add;
  if (op == "-") return ir::ExprKind::Sub;
  if (op == "*") return ir::ExprKind::Mul;
  if (op == "/") return ir::ExprKind::Div;
  if (op == "//") return ir::ExprKind::FloorDiv;
  if (op == "%") return ir::ExprKind::FloorMod;
  if (op == "==") return ir::ExprKind::EQ;
  if (op == "!=") return ir::ExprKind::NE;
  if (op == "<") return ir::ExprKind::LT;
  if (op == "<=") return ir::ExprKind::LE;
  if (op == ">") return ir::ExprKind::GT;
  if (op == ">=") return ir::ExprKind::GE;
  if (op == "and" || op == "&") return ir::ExprKind::And;
  if (op == "or" || op == "|") return ir::ExprKind::Or;
  return std::nullopt;
}

/// The node of kind `k` on operands of one type, or a located type error.
ir::Expr makeBinary(ir::ExprKind k, ir::Expr a, ir::Expr b, std::string_view spelled, const SourceLocation& loc) {
  ir::matchIntegerTypes(a, b);
  if (a.dtype() != b.dtype())
    fail("type",
         fmt::format("operands of {} have different types: {} and {}; convert one with T.Cast", spelled,
                     a.dtype().str(), b.dtype().str()),
         loc);
  const ir::DataType t = a.dtype();
  const bool logical = k == ir::ExprKind::And || k == ir::ExprKind::Or;
  const bool compare = k == ir::ExprKind::EQ || k == ir::ExprKind::NE || k == ir::ExprKind::LT ||
                       k == ir::ExprKind::LE || k == ir::ExprKind::GT || k == ir::ExprKind::GE;
  if (logical && !t.isBool()) fail("type", fmt::format("{} needs bool operands, got {}", spelled, t.str()), loc);
  if (!logical && !compare && t.isBool())
    fail("type", fmt::format("{} on bool operands; convert them with T.Cast", spelled), loc);
  if ((k == ir::ExprKind::FloorDiv || k == ir::ExprKind::FloorMod) && !t.isInteger())
    fail("type", fmt::format("{} needs integer operands, got {}; for floats use T.floor(a / b)", spelled, t.str()),
         loc);
  switch (k) {
#define LS_X(name)                                                                                                     \
  case ir::ExprKind::name: return ir::name::make(std::move(a), std::move(b));
    LS_BINARY_KINDS(LS_X)
#undef LS_X
  default: break;
  }
  fail("unsupported", fmt::format("{} is not a binary operator", spelled), loc);
}

} // namespace

ir::Expr Builder::exprAs(const Node& n, ir::DataType t) {
  if (!isLiteral(n)) return expr(n);
  const bool negative = n.kind == NodeKind::Unary;
  const Node& lit = negative ? *n.kids[0] : n;
  const ir::DataType e = t.element();
  if (e.isFloat()) {
    double v = lit.kind == NodeKind::Int ? static_cast<double>(lit.ival) : lit.fval;
    return ir::FloatImm::make(e, negative ? -v : v);
  }
  if ((e.isInteger()) && lit.kind == NodeKind::Int) {
    std::int64_t v = negative ? -lit.ival : lit.ival;
    return ir::IntImm::make(fits(e, v) ? e : ir::DataType::int64(), v);
  }
  return expr(n);
}

ir::Expr Builder::expr(const Node& n) {
  switch (n.kind) {
  case NodeKind::Int:
    return fits(ir::DataType::int32(), n.ival) ? ir::intImm(n.ival) : ir::IntImm::make(ir::DataType::int64(), n.ival);
  case NodeKind::Float: return ir::FloatImm::make(ir::DataType::float32(), n.fval);
  case NodeKind::True: return ir::boolImm(true);
  case NodeKind::False: return ir::boolImm(false);
  case NodeKind::Name: {
    const Binding* b = lookup(n.text);
    if (!b && m_moduleSizes.contains(n.text)) return shapeSize(n.text, n.loc);
    if (!b) fail("undefined", fmt::format("name '{}' is not defined", quoteForMessage(n.text)), n.loc);
    switch (b->kind) {
    case Binding::Kind::Value: return b->value;
    case Binding::Kind::Buffer:
      fail("type", fmt::format("buffer '{}' is used as a value; index it ({}[...])", n.text, n.text), n.loc);
    case Binding::Kind::Handle:
      fail("type", fmt::format("'{}' is a T.handle; bind it to a buffer with T.match_buffer first", n.text), n.loc);
    case Binding::Kind::Module: fail("type", fmt::format("'{}' is a module, not a value", n.text), n.loc);
    case Binding::Kind::EnvThread:
      fail("undefined", fmt::format("thread variable '{}' is used outside T.launch_thread({}, ...)", n.text, n.text),
           n.loc);
    }
    break;
  }
  case NodeKind::Subscript: {
    ir::Buffer buffer = bufferRef(*n.kids[0]);
    std::vector<ir::Expr> indices;
    const bool zeroDim = n.kids.size() == 2 && n.kids[1]->kind == NodeKind::Tuple && n.kids[1]->kids.empty();
    if (!zeroDim)
      for (std::size_t i = 1; i < n.kids.size(); ++i) {
        if (n.kids[i]->kind == NodeKind::Slice)
          fail("slice",
               fmt::format("a slice of '{}' is a region, allowed only in T.reads and T.writes; index one element here",
                           buffer->name),
               n.kids[i]->loc);
        indices.push_back(intExpr(*n.kids[i], "an index"));
      }
    if (indices.size() != buffer->ndim())
      fail("rank",
           fmt::format("buffer '{}' has {} dimension{}, indexed with {}", buffer->name, buffer->ndim(),
                       buffer->ndim() == 1 ? "" : "s", indices.size()),
           n.loc);
    return ir::BufferLoad::make(buffer, std::move(indices));
  }
  case NodeKind::Binary:
    if (n.text == "**") {
      ir::Expr a = isLiteral(*n.kids[0]) ? exprAs(*n.kids[0], expr(*n.kids[1]).dtype()) : expr(*n.kids[0]);
      ir::Expr b = exprAs(*n.kids[1], a.dtype());
      if (!a.dtype().isFloat() || a.dtype() != b.dtype())
        fail("type",
             fmt::format("'**' needs float operands of one type, got {} and {}", a.dtype().str(), b.dtype().str()),
             n.loc);
      return ir::Call::make(a.dtype(), ir::CallOp::Pow, {a, b});
    }
    return binary(n, n.text, *n.kids[0], *n.kids[1]);
  case NodeKind::BoolOp: return binary(n, n.text, *n.kids[0], *n.kids[1]);
  case NodeKind::Compare: {
    ir::Expr all;
    for (std::size_t i = 0; i < n.ops.size(); ++i) {
      ir::Expr c = binary(n, n.ops[i], *n.kids[i], *n.kids[i + 1]);
      all = all ? ir::And::make(all, c) : c;
    }
    return all;
  }
  case NodeKind::Unary: {
    if (n.text == "not") return ir::Not::make(boolExpr(*n.kids[0], "the operand of 'not'"));
    if (n.text == "+") return expr(*n.kids[0]);
    if (isLiteral(n)) {
      const Node& lit = *n.kids[0];
      if (lit.kind == NodeKind::Float) return ir::FloatImm::make(ir::DataType::float32(), -lit.fval);
      return fits(ir::DataType::int32(), -lit.ival) ? ir::intImm(-lit.ival)
                                                    : ir::IntImm::make(ir::DataType::int64(), -lit.ival);
    }
    // TVM's PrimExpr.__neg__: x * -1 in x's type.
    ir::Expr x = expr(*n.kids[0]);
    if (x.dtype().isBool() || !x.dtype().isScalar())
      fail("type", fmt::format("unary '-' on a {} operand", x.dtype().str()), n.loc);
    return ir::Mul::make(x, ir::makeConst(x.dtype().element(), -1));
  }
  case NodeKind::Call: return call(n);
  case NodeKind::IfExp:
    fail("unsupported", "Python's `a if c else b` is not TIR: write T.if_then_else(c, a, b) or T.Select(c, a, b)",
         n.loc);
  case NodeKind::Str: fail("type", fmt::format("the string {} is not a value here", quoteForMessage(n.text)), n.loc);
  default: break;
  }
  fail("unsupported", "this expression is not part of TVMScript's TIR dialect", n.loc);
}

ir::Expr Builder::binary(const Node& n, std::string_view op, const Node& a, const Node& b) {
  auto kind = binaryKindOfOperator(op);
  if (!kind) fail("unsupported", fmt::format("operator '{}' is not supported", op), n.loc);
  ir::Expr x, y;
  if (isLiteral(a) && !isLiteral(b)) {
    y = expr(b);
    x = exprAs(a, y.dtype());
  } else if (isLiteral(b) && !isLiteral(a)) {
    x = expr(a);
    y = exprAs(b, x.dtype());
  } else {
    x = expr(a);
    y = expr(b);
  }
  return makeBinary(*kind, std::move(x), std::move(y), fmt::format("'{}'", op), n.loc);
}

ir::Expr Builder::call(const Node& n) {
  auto path = tirPath(*n.kids[0]);
  if (!path) {
    if (n.kids[0]->kind == NodeKind::Name && !lookup(n.kids[0]->text))
      fail("undefined", fmt::format("name '{}' is not defined", quoteForMessage(n.kids[0]->text)), n.kids[0]->loc);
    fail("unknown", "only T.* functions can be called in a TIR expression", n.kids[0]->loc);
  }
  const std::string& f = *path;
  const std::string fn = "T." + f;
  if (auto t = ir::DataType::parse(f); t && t->isScalar()) {
    Args a = args(n, fn, 0, 1, {});
    if (a.positional.empty())
      fail("call", fmt::format("{}() declares a variable: assign it to a name (n = {}())", fn, fn), n.loc);
    const Node& v = *a.positional[0];
    if (v.kind == NodeKind::Str && t->isFloat()) {
      double x = v.text == "inf"    ? std::numeric_limits<double>::infinity()
                 : v.text == "-inf" ? -std::numeric_limits<double>::infinity()
                 : v.text == "nan"  ? std::numeric_limits<double>::quiet_NaN()
                                    : 0.0;
      if (x == 0.0)
        fail("call",
             fmt::format("{} of the string {}: expected \"inf\", \"-inf\" or \"nan\"", fn, quoteForMessage(v.text)),
             v.loc);
      return ir::FloatImm::make(*t, x);
    }
    if (t->isBool() && (v.kind == NodeKind::True || v.kind == NodeKind::False)) return expr(v);
    if (isLiteral(v) && !t->isBool()) {
      if (t->isInteger() && v.kind != NodeKind::Int && !(v.kind == NodeKind::Unary && v.kids[0]->kind == NodeKind::Int))
        fail("call", fmt::format("{} of a float literal; write an integer", fn), v.loc);
      ir::Expr e = exprAs(v, *t);
      if (e.dtype() != *t) fail("call", fmt::format("{} of a literal out of its range", fn), v.loc);
      return e;
    }
    ir::Expr e = expr(v);
    return e.dtype() == *t ? e : ir::Cast::make(*t, e);
  }
  if (f == "Cast" || f == "cast") {
    Args a = args(n, fn, 2, 2, {});
    const bool typeFirst = f == "Cast";
    ir::DataType t = dtypeArg(*a.positional[typeFirst ? 0 : 1]);
    ir::Expr v = expr(*a.positional[typeFirst ? 1 : 0]);
    if (v.dtype().lanes() != t.lanes())
      fail("type", fmt::format("{} from {} to {} changes the number of lanes", fn, v.dtype().str(), t.str()), n.loc);
    return ir::Cast::make(t, v);
  }
  if (f == "Select" || f == "if_then_else") {
    Args a = args(n, fn, 3, 3, {"dtype"});
    ir::Expr c = boolExpr(*a.positional[0], fmt::format("the condition of {}", fn));
    ir::Expr x, y;
    if (const Node* d = a.keyword("dtype")) {
      const ir::DataType t = dtypeArg(*d);
      x = exprAs(*a.positional[1], t);
      y = exprAs(*a.positional[2], t);
      if (x.dtype() != t || y.dtype() != t)
        fail("type",
             fmt::format("{} with dtype=\"{}\" of {} and {} values", fn, t.str(), x.dtype().str(), y.dtype().str()),
             n.loc);
    } else if (isLiteral(*a.positional[1]) && !isLiteral(*a.positional[2])) {
      y = expr(*a.positional[2]);
      x = exprAs(*a.positional[1], y.dtype());
    } else {
      x = expr(*a.positional[1]);
      y = exprAs(*a.positional[2], x.dtype());
    }
    ir::matchIntegerTypes(x, y);
    if (x.dtype() != y.dtype())
      fail("type",
           fmt::format("the two values of {} have different types: {} and {}", fn, x.dtype().str(), y.dtype().str()),
           n.loc);
    return ir::Select::make(c, x, y, f == "if_then_else");
  }
  if (f == "min_value" || f == "max_value") {
    const ir::DataType t = dtypeArg(*args(n, fn, 1, 1, {}).positional[0]);
    const bool max = f == "max_value";
    if (t.isFloat()) {
      const double big = t.bits() == 16 ? 65504.0 : t.bits() == 32 ? 3.4028234663852886e38 : 1.7976931348623157e308;
      return ir::FloatImm::make(t, max ? big : -big);
    }
    if (t.isInteger() && t.isScalar()) {
      if (t.isUInt()) return ir::IntImm::make(t, max ? (t.bits() >= 64 ? -1 : (std::int64_t(1) << t.bits()) - 1) : 0);
      const std::int64_t hi =
          t.bits() >= 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t(1) << (t.bits() - 1)) - 1;
      return ir::IntImm::make(t, max ? hi : -hi - 1);
    }
    fail("type", fmt::format("{} of {}", fn, t.str()), n.loc);
  }
  if (f == "Not") return ir::Not::make(boolExpr(*args(n, fn, 1, 1, {}).positional[0], "the operand of T.Not"));
  if (auto kind = binaryKindNamed(f)) {
    Args a = args(n, fn, 2, 2, {});
    ir::Expr x, y;
    if (isLiteral(*a.positional[0]) && !isLiteral(*a.positional[1])) {
      y = expr(*a.positional[1]);
      x = exprAs(*a.positional[0], y.dtype());
    } else {
      x = expr(*a.positional[0]);
      y = exprAs(*a.positional[1], x.dtype());
    }
    return makeBinary(*kind, std::move(x), std::move(y), fn, n.loc);
  }
  for (int op = 0; op <= static_cast<int>(ir::CallOp::Fma); ++op) {
    const auto callOp = static_cast<ir::CallOp>(op);
    if (f != ir::callOpName(callOp)) continue;
    const auto arity = static_cast<std::size_t>(ir::callOpArity(callOp));
    Args a = args(n, fn, arity, arity, {"dtype"});
    // The type: dtype= when given, else that of the first argument that is not a bare
    // literal (float32 if all are).
    ir::DataType t = ir::DataType::float32();
    if (const Node* d = a.keyword("dtype"))
      t = dtypeArg(*d);
    else
      for (const Node* arg : a.positional)
        if (!isLiteral(*arg)) {
          t = expr(*arg).dtype();
          break;
        }
    std::vector<ir::Expr> values;
    for (const Node* arg : a.positional) {
      ir::Expr v = exprAs(*arg, t);
      if (v.dtype() != t || !t.isFloat())
        fail("type", fmt::format("{} needs float arguments of one type, got {}", fn, v.dtype().str()), arg->loc);
      values.push_back(v);
    }
    return ir::Call::make(t, callOp, std::move(values));
  }
  if (f == "Ramp") {
    Args a = args(n, fn, 3, 3, {});
    ir::Expr base = intExpr(*a.positional[0], "the base of T.Ramp");
    ir::Expr stride = exprAs(*a.positional[1], base.dtype());
    const Node& lanes = *a.positional[2];
    if (lanes.kind != NodeKind::Int || lanes.ival < 2 || lanes.ival > 64)
      fail("call", "the lanes of T.Ramp must be an integer literal from 2 to 64", lanes.loc);
    if (stride.dtype() != base.dtype()) fail("type", "the stride of T.Ramp must have the base's type", lanes.loc);
    return ir::Ramp::make(base, stride, static_cast<int>(lanes.ival));
  }
  if (f == "Broadcast") {
    Args a = args(n, fn, 2, 2, {});
    ir::Expr v = expr(*a.positional[0]);
    if (!v.dtype().isScalar()) fail("type", "T.Broadcast of a vector value", a.positional[0]->loc);
    const Node& lanes = *a.positional[1];
    if (lanes.kind != NodeKind::Int || lanes.ival < 2 || lanes.ival > 64)
      fail("call", "the lanes of T.Broadcast must be an integer literal from 2 to 64", lanes.loc);
    return ir::Broadcast::make(v, static_cast<int>(lanes.ival));
  }
  fail("unknown", fmt::format("{} is not a TIR expression function Loopscape reads", fn), n.kids[0]->loc);
}

ir::Expr Builder::intExpr(const Node& n, std::string_view what) {
  ir::Expr e = expr(n);
  if (!e.dtype().isInteger() || !e.dtype().isScalar())
    fail("type", fmt::format("{} must be an integer, got {}", what, e.dtype().str()), n.loc);
  return e;
}

ir::Expr Builder::boolExpr(const Node& n, std::string_view what) {
  ir::Expr e = expr(n);
  if (!e.dtype().isBool()) fail("type", fmt::format("{} must be a bool, got {}", what, e.dtype().str()), n.loc);
  return e;
}

std::string Builder::stringArg(const Node& n, std::string_view what) const {
  if (n.kind != NodeKind::Str) fail("call", fmt::format("{} must be a string", what), n.loc);
  return n.text;
}

ir::DataType Builder::dtypeArg(const Node& n) const {
  const std::string s = stringArg(n, "a dtype");
  auto t = ir::DataType::parse(s);
  if (!t) fail("dtype", fmt::format("unknown dtype '{}'", quoteForMessage(s)), n.loc);
  return *t;
}

ir::Buffer Builder::bufferRef(const Node& n) const {
  if (n.kind != NodeKind::Name) fail("type", "expected a buffer name", n.loc);
  const Binding* b = lookup(n.text);
  if (!b) fail("undefined", fmt::format("name '{}' is not defined", quoteForMessage(n.text)), n.loc);
  if (b->kind != Binding::Kind::Buffer) fail("type", fmt::format("'{}' is not a buffer", n.text), n.loc);
  return b->buffer;
}

ir::BufferRegion Builder::region(const Node& n) {
  if (n.kind == NodeKind::Name) {
    ir::Buffer b = bufferRef(n);
    ir::BufferRegion r{b, {}};
    for (const auto& e : b->shape)
      r.region.push_back(ir::Range::fromMinExtent(ir::makeConst(e.dtype(), 0), e));
    return r;
  }
  if (n.kind != NodeKind::Subscript) fail("region", "expected a buffer region such as A[i, 0:16]", n.loc);
  ir::Buffer b = bufferRef(*n.kids[0]);
  ir::BufferRegion r{b, {}};
  const bool zeroDim = n.kids.size() == 2 && n.kids[1]->kind == NodeKind::Tuple && n.kids[1]->kids.empty();
  for (std::size_t i = 1; !zeroDim && i < n.kids.size(); ++i) {
    const Node& k = *n.kids[i];
    const std::size_t dim = i - 1;
    if (k.kind != NodeKind::Slice) {
      ir::Expr at = intExpr(k, "a region index");
      r.region.push_back(ir::Range::fromMinExtent(at, ir::makeConst(at.dtype(), 1)));
      continue;
    }
    if (k.kids.size() > 2 && k.kids[2]) fail("region", "a region slice has no step", k.kids[2]->loc);
    if (dim >= b->ndim()) break;
    ir::Expr lo = k.kids[0] ? intExpr(*k.kids[0], "a region start") : ir::makeConst(b->shape[dim].dtype(), 0);
    ir::Expr hi = k.kids[1] ? exprAs(*k.kids[1], lo.dtype()) : b->shape[dim];
    if (!hi.dtype().isInteger()) fail("type", "a region end must be an integer", k.loc);
    ir::matchIntegerTypes(lo, hi);
    ir::Expr extent = extentBetween(lo, hi);
    if (!extent.defined()) fail("type", "a region's start and end have different types", k.loc);
    r.region.push_back(ir::Range::fromMinExtent(lo, extent));
  }
  const std::size_t given = zeroDim ? 0 : n.kids.size() - 1;
  if (given != b->ndim())
    fail("rank",
         fmt::format("buffer '{}' has {} dimension{}, region has {}", b->name, b->ndim(), b->ndim() == 1 ? "" : "s",
                     given),
         n.loc);
  return r;
}

std::vector<ir::BufferRegion> Builder::regions(const Args& a) {
  std::vector<ir::BufferRegion> out;
  auto add = [&](const Node& n) {
    if (n.kind == NodeKind::List || n.kind == NodeKind::Tuple) {
      for (const auto& k : n.kids)
        out.push_back(region(*k));
      return;
    }
    out.push_back(region(n));
  };
  for (const Node* n : a.positional)
    add(*n);
  return out;
}

ir::Annotations Builder::annotations(const Node& dict) {
  if (dict.kind != NodeKind::Dict) fail("call", "expected a dict of annotations {\"key\": value}", dict.loc);
  ir::Annotations out;
  for (std::size_t i = 0; i + 1 < dict.kids.size(); i += 2) {
    std::string key = stringArg(*dict.kids[i], "an annotation key");
    const Node& v = *dict.kids[i + 1];
    ir::Expr value;
    if (v.kind == NodeKind::Str)
      value = ir::StringImm::make(v.text);
    else if (v.kind == NodeKind::True || v.kind == NodeKind::False)
      value = ir::boolImm(v.kind == NodeKind::True);
    else
      value = expr(v);
    if (!value.is<ir::IntImm>() && !value.is<ir::FloatImm>() && !value.is<ir::StringImm>())
      fail("call", fmt::format("annotation '{}' must be a constant (a number, a bool or a string)", key), v.loc);
    if (key == "tirx.noalias") key = "tir.noalias";
    out[key] = value;
  }
  return out;
}

std::vector<ir::Expr> Builder::shape(const Node& n) {
  std::vector<const Node*> dims;
  if (n.kind == NodeKind::Tuple || n.kind == NodeKind::List)
    for (const auto& k : n.kids)
      dims.push_back(k.get());
  else
    dims.push_back(&n);
  std::vector<ir::Expr> out;
  for (const Node* d : dims) {
    if (d->kind == NodeKind::Str) {
      out.push_back(shapeSize(d->text, d->loc));
      continue;
    }
    if (d->kind == NodeKind::Name && !lookup(d->text) &&
        (m_sizeVars.contains(d->text) || m_declaredSizes.contains(d->text))) {
      out.push_back(shapeSize(d->text, d->loc));
      continue;
    }
    ir::Expr e = intExpr(*d, "a buffer extent");
    if (auto c = ir::asConstInt(e); c && *c < 0)
      fail("shape", fmt::format("a buffer extent must not be negative, got {}", *c), d->loc);
    out.push_back(e);
  }
  return out;
}

ir::Expr Builder::shapeSize(const std::string& name, const SourceLocation& loc) {
  auto declared = m_declaredSizes.find(name);
  return sizeVar(name, declared != m_declaredSizes.end() ? declared->second : ir::DataType::int32(), loc);
}

ir::Expr Builder::sizeVar(const std::string& name, ir::DataType dtype, const SourceLocation& loc) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    fail("shape", fmt::format("{} is not a size variable name", quoteForMessage(name)), loc);
  if (auto it = m_sizeVars.find(name); it != m_sizeVars.end()) {
    if (it->second.dtype() != dtype)
      fail("shape", fmt::format("size '{}' is declared as {} and as {}", name, it->second.dtype().str(), dtype.str()),
           loc);
    return it->second;
  }
  ir::Expr v = ir::Var::make(name, dtype);
  m_sizeVars.emplace(name, v);
  return v;
}

ir::Buffer Builder::bufferFromArgs(const Args& a, std::size_t first, const std::string& name) {
  if (a.positional.size() <= first) fail("call", fmt::format("{} needs a shape", a.fn), a.loc);
  std::vector<ir::Expr> dims = shape(*a.positional[first]);
  ir::DataType dtype = ir::DataType::float32();
  if (a.positional.size() > first + 1) dtype = dtypeArg(*a.positional[first + 1]);
  if (const Node* d = a.keyword("dtype")) dtype = dtypeArg(*d);
  ir::MemoryScope scope = ir::MemoryScope::Global;
  if (const Node* s = a.keyword("scope")) {
    std::string text = stringArg(*s, "a memory scope");
    auto parsed = ir::parseMemoryScope(text);
    if (!parsed)
      fail("scope",
           fmt::format("unknown memory scope {}: expected \"global\", \"shared\" or \"local\"", quoteForMessage(text)),
           s->loc);
    scope = *parsed;
  }
  std::vector<ir::Expr> strides;
  if (const Node* s = a.keyword("strides")) {
    strides = shape(*s);
    if (strides.size() != dims.size())
      fail("shape", fmt::format("{} strides for {} dimensions", strides.size(), dims.size()), s->loc);
  }
  return ir::makeBuffer(name, dtype, std::move(dims), scope, std::move(strides));
}

} // namespace loopscape::frontend::tvms
