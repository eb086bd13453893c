#include "core/frontend/relay/relay_te_printer.h"

#include "core/ir/buffer.h"

#include <fmt/format.h>

#include <unordered_map>

namespace loopscape::frontend::relay {

namespace {

class TePrinter {
public:
  std::unordered_map<const ir::ExprNode*, std::string> varNames;

  std::string expr(const ir::Expr& e) {
    using K = ir::ExprKind;
    switch (e.kind()) {
    case K::IntImm: {
      auto v = e.as<ir::IntImm>()->value;
      if (e.dtype() == ir::DataType::int32()) return std::to_string(v);
      if (e.dtype().isBool()) return v ? "True" : "False";
      return fmt::format("const({}, \"{}\")", v, e.dtype().str());
    }
    case K::FloatImm: return fmt::format("const({}, \"{}\")", e.as<ir::FloatImm>()->value, e.dtype().str());
    case K::StringImm: return fmt::format("\"{}\"", e.as<ir::StringImm>()->value);
    case K::Var: {
      auto it = varNames.find(e.get());
      return it != varNames.end() ? it->second : e.as<ir::Var>()->name;
    }
    case K::Add: return bin(e.as<ir::Add>()->a, "+", e.as<ir::Add>()->b);
    case K::Sub: return bin(e.as<ir::Sub>()->a, "-", e.as<ir::Sub>()->b);
    case K::Mul: return bin(e.as<ir::Mul>()->a, "*", e.as<ir::Mul>()->b);
    case K::Div: return bin(e.as<ir::Div>()->a, "/", e.as<ir::Div>()->b);
    case K::FloorDiv: return call("floordiv", {e.as<ir::FloorDiv>()->a, e.as<ir::FloorDiv>()->b});
    case K::FloorMod: return call("floormod", {e.as<ir::FloorMod>()->a, e.as<ir::FloorMod>()->b});
    case K::Min: return call("min", {e.as<ir::Min>()->a, e.as<ir::Min>()->b});
    case K::Max: return call("max", {e.as<ir::Max>()->a, e.as<ir::Max>()->b});
    case K::EQ: return bin(e.as<ir::EQ>()->a, "==", e.as<ir::EQ>()->b);
    case K::NE: return bin(e.as<ir::NE>()->a, "!=", e.as<ir::NE>()->b);
    case K::LT: return bin(e.as<ir::LT>()->a, "<", e.as<ir::LT>()->b);
    case K::LE: return bin(e.as<ir::LE>()->a, "<=", e.as<ir::LE>()->b);
    case K::GT: return bin(e.as<ir::GT>()->a, ">", e.as<ir::GT>()->b);
    case K::GE: return bin(e.as<ir::GE>()->a, ">=", e.as<ir::GE>()->b);
    case K::And: return call("all", {e.as<ir::And>()->a, e.as<ir::And>()->b});
    case K::Or: return call("any", {e.as<ir::Or>()->a, e.as<ir::Or>()->b});
    case K::Not: return fmt::format("(not {})", expr(e.as<ir::Not>()->a));
    case K::Select: {
      auto* s = e.as<ir::Select>();
      return call("if_then_else", {s->condition, s->trueValue, s->falseValue});
    }
    case K::Cast: return call(e.dtype().str(), {e.as<ir::Cast>()->value});
    case K::Call: {
      auto* c = e.as<ir::Call>();
      return call(ir::callOpName(c->op), c->args);
    }
    case K::BufferLoad: {
      auto* l = e.as<ir::BufferLoad>();
      std::string out = l->buffer->name + "[";
      for (std::size_t k = 0; k < l->indices.size(); ++k)
        out += (k ? ", " : "") + expr(l->indices[k]);
      return out + "]";
    }
    case K::Ramp:
    case K::Broadcast: return "None"; // never produced by the op library
    }
    return "None";
  }

private:
  std::string bin(const ir::Expr& a, const char* op, const ir::Expr& b) {
    return fmt::format("({} {} {})", expr(a), op, expr(b));
  }
  std::string call(const std::string& fn, const std::vector<ir::Expr>& args) {
    std::string out = fn + "(";
    for (std::size_t k = 0; k < args.size(); ++k)
      out += (k ? ", " : "") + expr(args[k]);
    return out + ")";
  }
};

std::string shapeTuple(const ir::Buffer& b) {
  std::string out = "(";
  for (std::size_t k = 0; k < b->shape.size(); ++k)
    out += (k ? ", " : "") + std::to_string(*ir::asConstInt(b->shape[k]));
  return out + (b->shape.size() == 1 ? ",)" : ")");
}

} // namespace

std::string printTeProgram(const TeProgram& program, const std::string& title) {
  std::string out = "# " + title + "\n# written by `loopscape-cli relay extract`; the te front end reads it back.\n";
  TePrinter p;
  int axisCount = 0;
  for (const auto& t : program.tensors) {
    if (!t->isCompute) {
      out += fmt::format("{} = placeholder({}, \"{}\", name=\"{}\")\n", t->name, shapeTuple(t->buffer),
                         t->buffer->dtype.str(), t->name);
      continue;
    }
    std::string value;
    if (t->reduction) {
      std::string axes;
      for (const auto& ax : t->reduction->axes) {
        std::string var = fmt::format("{}_{}", ax->name, axisCount++);
        p.varNames[ax->var.get()] = var;
        out += fmt::format("{} = reduce_axis((0, {}), name=\"{}\")\n", var, *ir::asConstInt(ax->extent), ax->name);
        axes += (axes.empty() ? "" : ", ") + var;
      }
      value =
          fmt::format("{}({}, axis=[{}])", combinerName(t->reduction->combiner), p.expr(t->reduction->source), axes);
    } else {
      value = p.expr(t->body);
    }
    std::string params;
    for (const auto& v : t->params)
      params += (params.empty() ? "" : ", ") + v.as<ir::Var>()->name;
    out += fmt::format("{} = compute({}, lambda {}: {}, name=\"{}\")\n", t->name, shapeTuple(t->buffer), params, value,
                       t->name);
  }
  std::string outs;
  for (const auto& t : program.outputs)
    outs += (outs.empty() ? "" : ", ") + t->name;
  out += fmt::format("outputs = [{}]\n", outs);
  return out;
}

} // namespace loopscape::frontend::relay
