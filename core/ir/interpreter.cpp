// The interpreter's public entry points: size inference, argument checking, running the
// compiled tree, and the rendering of runtime diagnostics (block instance, indices).
#include "core/ir/interpreter.h"

#include "core/ir/checked_arith.h"
#include "core/ir/interpreter_nodes.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace loopscape::ir {

namespace interp {

namespace {
std::string tuple(const std::vector<std::int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}
} // namespace

std::string BlockContext::describe(const Frame& frame) const {
  std::string s = fmt::format("in block \"{}\"", name);
  for (std::size_t i = 0; i < iters.size(); ++i)
    s += fmt::format("{}{}={}", i ? ", " : " at ", iters[i].first, frame.ints[iters[i].second]);
  return s;
}

void raise(const Frame& frame, const BlockContext* ctx, std::string code, std::string message,
           std::vector<IrReference> refs) {
  Diagnostic d = Diagnostic::error(std::move(code), std::move(message));
  if (ctx) {
    d.message += " " + ctx->describe(frame);
    d.references.push_back({IrReference::Kind::Block, ctx->name});
  }
  for (auto& r : refs) d.references.push_back(std::move(r));
  throw InterpError{std::move(d)};
}

void raiseDivByZero(Frame& f, const BlockContext* ctx, ExprKind kind) {
  const char* op = kind == ExprKind::Div ? "Div" : kind == ExprKind::FloorDiv ? "FloorDiv" : "FloorMod";
  raise(f, ctx, "interp.division-by-zero", fmt::format("integer division by zero ({})", op));
}

void raiseCastRange(Frame& f, const BlockContext* ctx, double v, DataType from, DataType to) {
  raise(f, ctx, "interp.cast-out-of-range",
        fmt::format("cast of {} {} to {} is out of range", from.str(), v, to.str()));
}

void Access::outOfBounds(Frame& f) const {
  const RtBuffer& b = f.buffers[slot];
  std::vector<std::int64_t> idx;
  for (const auto& i : indices) idx.push_back(i.get(f)); // pure: same values again
  std::string at;
  for (std::size_t d = 0; d < idx.size(); ++d) at += (d ? ", " : "") + std::to_string(idx[d]);
  raise(f, ctx, "interp.out-of-bounds",
        fmt::format("out-of-bounds {} {}[{}] (shape {})", isStore ? "store" : "load", bufferName, at, tuple(b.shape)),
        {{IrReference::Kind::Buffer, bufferName}});
}

} // namespace interp

Expected<std::vector<std::int64_t>> evalShape(const Buffer& buffer, const SizeBindings& sizes) {
  std::vector<std::int64_t> shape;
  for (std::size_t d = 0; d < buffer->ndim(); ++d) {
    auto v = interp::evalSizeExpr(buffer->shape[d], sizes, fmt::format("shape of buffer {}", buffer->name));
    if (!v) return Unexpected(v.error());
    if (*v < 0)
      return Unexpected(Diagnostic::error("interp.negative-extent",
                                          fmt::format("buffer {} has negative extent {} in dimension {}", buffer->name,
                                                      *v, d)));
    shape.push_back(*v);
  }
  return shape;
}

namespace {
Expected<void> bindSizes(const PrimFunc& func, std::span<const NDArray> args, SizeBindings& sizes) {
  if (args.size() != func.params.size())
    return Unexpected(Diagnostic::error("interp.arg-count", fmt::format("{} takes {} buffer arguments, got {}",
                                                                        func.name, func.params.size(), args.size())));
  for (std::size_t p = 0; p < args.size(); ++p) {
    const Buffer& b = func.params[p];
    if (args[p].ndim() != b->ndim())
      return Unexpected(Diagnostic::error(
          "interp.rank-mismatch", fmt::format("parameter {} of {} has {} dimensions but the argument has {} {}",
                                              b->name, func.name, b->ndim(), args[p].ndim(), args[p].describe())));
    for (std::size_t d = 0; d < b->ndim(); ++d) {
      const auto* v = b->shape[d].as<Var>();
      if (!v) continue;
      const std::int64_t actual = args[p].shape()[d];
      auto [it, inserted] = sizes.emplace(v->name, actual);
      if (!inserted && it->second != actual)
        return Unexpected(Diagnostic::error(
            "interp.size-conflict",
            fmt::format("size variable '{}' is {} but dimension {} of parameter {} is {}", v->name, it->second, d,
                        b->name, actual)));
    }
  }
  return {};
}
} // namespace

Expected<SizeBindings> inferSizes(const PrimFunc& func, std::span<const NDArray> args) {
  SizeBindings sizes;
  if (auto ok = bindSizes(func, args, sizes); !ok) return Unexpected(ok.error());
  return sizes;
}

Expected<void> interpret(const PrimFunc& func, std::span<NDArray> args, const SizeBindings& given,
                         std::stop_token stop) {
  SizeBindings sizes = given;
  if (auto ok = bindSizes(func, std::span<const NDArray>(args.data(), args.size()), sizes); !ok)
    return Unexpected(ok.error());
  for (std::size_t p = 0; p < args.size(); ++p) {
    const Buffer& b = func.params[p];
    if (!args[p].defined() || args[p].dtype() != b->dtype)
      return Unexpected(Diagnostic::error(
          "interp.dtype-mismatch", fmt::format("parameter {} of {} has dtype {} but the argument is {}", b->name,
                                               func.name, b->dtype.str(),
                                               args[p].defined() ? args[p].describe() : "undefined")));
    auto shape = evalShape(b, sizes);
    if (!shape) return Unexpected(shape.error());
    for (std::size_t d = 0; d < shape->size(); ++d)
      if ((*shape)[d] != args[p].shape()[d])
        return Unexpected(Diagnostic::error(
            "interp.shape-mismatch", fmt::format("parameter {} of {}: dimension {} must be {} but the argument is {}",
                                                 b->name, func.name, d, (*shape)[d], args[p].describe())));
  }
  auto program = interp::compileProgram(func, sizes);
  if (!program) return Unexpected(program.error());

  interp::Frame frame;
  frame.stop = std::move(stop);
  frame.ints.assign(program->numInts, 0);
  frame.floats.assign(program->numFloats, 0.0);
  frame.buffers.resize(program->numBuffers);
  for (const auto& [name, slot] : program->sizeSlots) frame.ints[slot] = sizes.at(name);
  for (const auto& a : args)
    frame.allocatedBytes += static_cast<std::int64_t>(a.nbytes());
  try {
    for (std::size_t p = 0; p < args.size(); ++p) {
      const auto& layout = program->params[p];
      interp::RtBuffer& rb = frame.buffers[layout.slot];
      rb.data = args[p].rawData();
      rb.shape = args[p].shape();
      rb.strides.resize(rb.shape.size());
      if (layout.strides.empty()) {
        std::int64_t stride = 1;
        for (std::size_t d = rb.shape.size(); d-- > 0;) {
          rb.strides[d] = stride;
          stride *= rb.shape[d];
        }
        continue;
      }
      std::optional<std::int64_t> last = 0;
      bool empty = false;
      for (std::size_t d = 0; d < rb.shape.size(); ++d) {
        rb.strides[d] = layout.strides[d]->eval(frame);
        empty = empty || rb.shape[d] == 0;
        auto reach = checkedMul(rb.shape[d] - 1, rb.strides[d]);
        last = last && reach ? checkedAdd(*last, *reach) : std::nullopt;
      }
      const Buffer& b = func.params[p];
      if (!last) last = std::numeric_limits<std::int64_t>::max();
      if (!empty && (*last >= args[p].numel() ||
                     std::any_of(rb.strides.begin(), rb.strides.end(), [](std::int64_t s) { return s < 0; })))
        return Unexpected(Diagnostic::error(
            "interp.shape-mismatch",
            fmt::format("parameter {} of {}: its strides {} reach element {} but the argument {} has {} elements",
                        b->name, func.name, interp::tuple(rb.strides), *last, args[p].describe(), args[p].numel())));
    }
    program->body->exec(frame);
  } catch (interp::InterpError& e) {
    return Unexpected(std::move(e.diag));
  }
  return {};
}

} // namespace loopscape::ir
