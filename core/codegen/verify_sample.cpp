#include "core/codegen/verify_sample.h"

#include "core/codegen/cancel.h"
#include "core/codegen/flop_count.h"
#include "core/codegen/verify.h"
#include "core/ir/mutator.h"
#include "core/ir/op.h"
#include "core/ir/simplify.h"
#include "core/ir/structural_equal.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <random>
#include <set>

namespace loopscape::codegen {

using namespace ir;

namespace {

Diagnostic refused(const std::string& why) { return Diagnostic::error("verify.no-element-restriction", why); }

/// Where a buffer is stored to and loaded from, by innermost enclosing BlockRealize.
class AccessFinder final : public StmtVisitor {
public:
  explicit AccessFinder(const BufferNode* buffer) : m_buffer(buffer) {}

  struct Access {
    const BlockRealize* realize; ///< innermost enclosing realize (nullptr: outside blocks)
    std::vector<Expr> indices;
  };
  std::vector<Access> stores, loads;
  std::vector<const BlockRealize*> parents; ///< the enclosing realize of every realize

protected:
  void visitBlockRealize(const BlockRealize& op, const Stmt& self) override {
    parents.push_back(current());
    m_stack.push_back(&op);
    StmtVisitor::visitBlockRealize(op, self);
    m_stack.pop_back();
  }
  void visitBufferStore(const BufferStore& op, const Stmt& self) override {
    if (op.buffer.get() == m_buffer) stores.push_back({current(), op.indices});
    StmtVisitor::visitBufferStore(op, self);
  }
  void visitBufferLoad(const BufferLoad& op, const Expr& self) override {
    if (op.buffer.get() == m_buffer) loads.push_back({current(), op.indices});
    StmtVisitor::visitBufferLoad(op, self);
  }

private:
  const BlockRealize* current() const { return m_stack.empty() ? nullptr : m_stack.back(); }
  const BufferNode* m_buffer;
  std::vector<const BlockRealize*> m_stack;
};

bool sameIndices(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!structuralEqual(a[i], b[i])) return false;
  return true;
}

/// True when `s` holds no BlockRealize other than `only` and no store outside it.
bool holdsOnly(const Stmt& s, const BlockRealize* only) {
  struct Finder final : StmtVisitor {
    const BlockRealize* only;
    int depth = 0; ///< > 0 inside `only`
    bool other = false;
    void visitBlockRealize(const BlockRealize& op, const Stmt& self) override {
      if (&op != only) {
        if (depth == 0) other = true;
        return;
      }
      ++depth;
      StmtVisitor::visitBlockRealize(op, self);
      --depth;
    }
    void visitBufferStore(const BufferStore& op, const Stmt& self) override {
      if (depth == 0) other = true;
      StmtVisitor::visitBufferStore(op, self);
    }
  } finder;
  finder.only = only;
  finder(s);
  return !finder.other;
}

/// Adds the element predicate to the writer and narrows the loops around it.
class Restrictor final : public StmtMutator {
public:
  Restrictor(const BlockRealize* writer, Expr predicate, std::map<const ExprNode*, std::int64_t> coordinate,
             VarMap sizeValues)
      : m_writer(writer), m_predicate(std::move(predicate)), m_coordinate(std::move(coordinate)),
        m_sizes(std::move(sizeValues)) {}

protected:
  Stmt visitBlockRealize(const BlockRealize& op, const Stmt& self) override {
    if (&op != m_writer) return StmtMutator::visitBlockRealize(op, self);
    return BlockRealize::make(op.iterValues, m_predicate, op.block);
  }
  Stmt visitFor(const For& op, const Stmt& self) override {
    auto it = m_coordinate.find(op.loopVar.get());
    if (it == m_coordinate.end() || !holdsOnly(op.body, m_writer)) return StmtMutator::visitFor(op, self);
    auto min = asConstInt(simplify(substitute(op.min, m_sizes)));
    auto extent = asConstInt(simplify(substitute(op.extent, m_sizes)));
    if (!min || !extent) return StmtMutator::visitFor(op, self);
    // Every other iteration runs the writer with a false predicate only: drop them.
    const bool inside = *min <= it->second && it->second < *min + *extent;
    const DataType t = op.loopVar.dtype();
    return For::make(op.loopVar, intImm(inside ? it->second : *min, t), intImm(inside ? 1 : 0, t), op.forKind,
                     mutate(op.body), op.threadTag, op.annotations);
  }

private:
  const BlockRealize* m_writer;
  Expr m_predicate;
  std::map<const ExprNode*, std::int64_t> m_coordinate; ///< loop var -> the element's coordinate
  VarMap m_sizes;
};

} // namespace

Expected<PrimFunc> restrictToElement(const PrimFunc& func, std::size_t param, const std::vector<std::int64_t>& index,
                                     const SizeBindings& sizes) {
  LS_ASSERT(param < func.params.size(), "restrictToElement: parameter {} of {}", param, func.params.size());
  const Buffer& out = func.params[param];
  LS_ASSERT(index.size() == out->shape.size(), "restrictToElement: index rank {} for {}", index.size(), out->name);
  AccessFinder finder(out.get());
  finder(func.body);

  // 1. Exactly one block writes the output, always at the same index.
  if (finder.stores.empty()) return Unexpected(refused(fmt::format("nothing stores to '{}'", out->name)));
  const BlockRealize* writer = finder.stores[0].realize;
  const std::vector<Expr>& stored = finder.stores[0].indices;
  for (const auto& s : finder.stores) {
    if (s.realize != writer)
      return Unexpected(refused(fmt::format("'{}' is written by more than one block", out->name)));
    if (!sameIndices(s.indices, stored))
      return Unexpected(refused(fmt::format("the block writing '{}' stores at different indices", out->name)));
  }
  if (!writer || writer->blockNode().iterVars.empty())
    return Unexpected(refused(fmt::format("'{}' is written outside a block with iterators", out->name)));
  // 2. Nobody else reads it (a reduction reads the element it updates).
  for (const auto& l : finder.loads)
    if (l.realize != writer || !sameIndices(l.indices, stored))
      return Unexpected(refused(fmt::format("'{}' is read at other elements than the one being written (a scan or "
                                            "a stencil over its own output)",
                                            out->name)));
  // 3. The writer holds no nested block.
  if (std::find(finder.parents.begin(), finder.parents.end(), writer) != finder.parents.end())
    return Unexpected(refused(fmt::format("the block writing '{}' has nested blocks", out->name)));

  // The element predicate over the loop variables (block iterators replaced by bindings).
  const Block& block = writer->blockNode();
  VarMap bind;
  for (std::size_t k = 0; k < block.iterVars.size(); ++k) bind[block.iterVars[k].var.get()] = writer->iterValues[k];
  Expr predicate = writer->predicate;
  std::map<const ExprNode*, std::int64_t> coordinate;
  for (std::size_t d = 0; d < stored.size(); ++d) {
    Expr at = substitute(stored[d], bind);
    predicate = predicate && (at == intImm(index[d], at.dtype()));
    if (at.is<Var>()) coordinate.emplace(at.get(), index[d]);
  }
  VarMap sizeValues;
  for (const Expr& v : func.sizeVars())
    if (auto it = sizes.find(v.as<Var>()->name); it != sizes.end()) sizeValues[v.get()] = intImm(it->second, v.dtype());

  PrimFunc restricted = func;
  restricted.body = Restrictor(writer, predicate, std::move(coordinate), std::move(sizeValues)).mutate(func.body);
  return restricted;
}

std::vector<std::int64_t> sampleFlatIndices(std::int64_t numel, int count, std::uint64_t seed) {
  std::set<std::int64_t> picked;
  if (numel <= 0 || count <= 0) return {};
  if (numel <= count) {
    for (std::int64_t i = 0; i < numel; ++i) picked.insert(i);
    return {picked.begin(), picked.end()};
  }
  picked.insert(0);
  if (count > 1) picked.insert(numel - 1);
  std::mt19937_64 random(seed);
  while (static_cast<int>(picked.size()) < count)
    picked.insert(static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(numel)));
  return {picked.begin(), picked.end()};
}

Expected<SampledElements> interpretSampledElements(const PrimFunc& func, const SizeBindings& sizes,
                                                   std::span<const NDArray> args, std::size_t param, int count,
                                                   std::uint64_t seed, double instanceLimit, std::stop_token stop) {
  SampledElements result;
  const NDArray& output = args[param];
  const std::vector<std::int64_t>& shape = output.shape();
  auto unflatten = [&](std::int64_t flat) {
    std::vector<std::int64_t> index(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
      index[d] = flat % shape[d];
      flat /= shape[d];
    }
    return index;
  };
  if (output.numel() == 0 || count <= 0) {
    result.skipped = "no element to sample";
    return result;
  }

  // What one element costs (the same for every element up to the narrowed loops' bounds).
  auto probe = restrictToElement(func, param, unflatten(0), sizes);
  if (!probe) {
    result.skipped = probe.error().message;
    return result;
  }
  auto cost = countFlops(*probe, sizes);
  if (!cost) return Unexpected(cost.error());
  result.instancesPerElement = std::max(cost->instances, 1.0);
  const double affordable = std::floor(instanceLimit / result.instancesPerElement);
  if (affordable < 1) {
    result.skipped = fmt::format("one element costs {:.3g} statement instances > {:.3g}", result.instancesPerElement,
                                 instanceLimit);
    return result;
  }
  const int k = static_cast<int>(std::min<double>(count, affordable));
  std::vector<std::int64_t> flat = sampleFlatIndices(output.numel(), k, seed);

  result.values = NDArray({static_cast<std::int64_t>(flat.size())}, output.dtype());
  const std::size_t bytes = static_cast<std::size_t>(output.dtype().bytes());
  const auto outputs = outputParams(func);
  for (std::size_t s = 0; s < flat.size(); ++s) {
    auto restricted = restrictToElement(func, param, unflatten(flat[s]), sizes);
    if (!restricted) return Unexpected(restricted.error());
    std::vector<NDArray> work = freshCopies(args, outputs); // as verify() gives every run
    if (auto ran = interpret(*restricted, work, sizes, stop); !ran) {
      if (stop.stop_requested()) return Unexpected(cancelledDiagnostic("verifying"));
      Diagnostic d = ran.error();
      d.message = fmt::format("the reference interpreter failed on a sampled element: {}", d.message);
      return Unexpected(d);
    }
    std::memcpy(result.values.rawData() + s * bytes, work[param].rawData() + flat[s] * static_cast<std::int64_t>(bytes),
                bytes);
  }
  result.flatIndices = std::move(flat);
  return result;
}

} // namespace loopscape::codegen
