#include "core/codegen/verify.h"

#include "core/codegen/cancel.h"
#include "core/codegen/flop_count.h"
#include "core/codegen/verify_sample.h"
#include "core/ir/visitor.h"

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <set>

namespace loopscape::codegen {

std::string Tolerance::str() const {
  if (exact()) return "exact";
  if (sumTerms > 0) return fmt::format("rtol {:g}, atol {:.3g} (widened for sums of {} terms)", rtol, atol, sumTerms);
  return fmt::format("rtol {:g}, atol {:g}", rtol, atol);
}

Tolerance sumTolerance(Tolerance base, ir::DataType dtype, double terms, double rms) {
  if (!dtype.isFloat() || !(terms > 1) || !(rms > 0) || !std::isfinite(rms)) return base;
  const int mantissa = dtype.bits() == 16 ? 11 : dtype.bits() == 64 ? 53 : 24;
  const double atol = 8 * std::sqrt(terms) * std::ldexp(1.0, -mantissa) * rms;
  if (!(atol > base.atol)) return base;
  base.atol = atol;
  base.sumTerms = std::llround(terms);
  return base;
}

double longestSum(const FlopCount& count) {
  double longest = 0;
  for (const auto& init : count.statements) {
    if (!init.init || !(init.instances > 0)) continue;
    for (const auto& update : count.statements)
      if (!update.init && update.block == init.block && update.buffer == init.buffer)
        longest = std::max(longest, update.instances / init.instances);
  }
  return longest;
}

double rootMeanSquare(const ir::NDArray& a) {
  if (!a.dtype().isFloat() || a.numel() == 0) return 0;
  double sum = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    const double v = a.getDouble(i);
    if (std::isfinite(v)) sum += v * v;
  }
  return std::sqrt(sum / static_cast<double>(a.numel()));
}

Tolerance defaultTolerance(ir::DataType dtype, const FlopCount& count, const ir::NDArray& expected) {
  return sumTolerance(defaultTolerance(dtype), dtype, longestSum(count), rootMeanSquare(expected));
}

Tolerance defaultTolerance(ir::DataType dtype) {
  if (!dtype.isFloat()) return {0, 0};
  switch (dtype.bits()) {
  case 16: return {1e-2, 1e-3};
  case 64: return {1e-9, 1e-12};
  default: return {1e-4, 1e-5};
  }
}

std::vector<std::int64_t> unflattenIndex(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] > 0 ? flat % shape[d] : 0;
    flat = shape[d] > 0 ? flat / shape[d] : 0;
  }
  return index;
}

std::string OutputCheck::str() const {
  const std::string errors =
      fmt::format("max abs error {:.3g}, max rel error {:.3g}; {}", maxAbsError, maxRelError, tolerance.str());
  if (passed()) return fmt::format("ok ({})", errors);
  std::int64_t total = 1;
  for (auto e : shape)
    total *= e;
  return fmt::format("MISMATCH: {} of {} elements differ; first at [{}]: expected {:.9g}, got {:.9g} ({})", mismatches,
                     total, fmt::join(first->index, ", "), first->expected, first->actual, errors);
}

OutputCheck compareOutput(std::string name, const ir::NDArray& actual, const ir::NDArray& expected, Tolerance tol) {
  LS_ASSERT(actual.shape() == expected.shape(), "compareOutput: {} vs {}", actual.describe(), expected.describe());
  OutputCheck c;
  c.name = std::move(name);
  c.dtype = expected.dtype();
  c.shape = expected.shape();
  c.tolerance = tol;
  const bool integer = !expected.dtype().isFloat() && !actual.dtype().isFloat();
  for (std::int64_t i = 0; i < expected.numel(); ++i) {
    bool bad = false;
    double a = 0, e = 0, diff = 0;
    if (integer) {
      const std::int64_t ai = actual.getInt(i), ei = expected.getInt(i);
      a = static_cast<double>(ai);
      e = static_cast<double>(ei);
      diff = std::fabs(a - e);
      bad = ai != ei && (tol.exact() || diff > tol.atol + tol.rtol * std::fabs(e));
    } else {
      a = actual.getDouble(i);
      e = expected.getDouble(i);
      if (std::isnan(a) || std::isnan(e)) {
        bad = std::isnan(a) != std::isnan(e);
        diff = bad ? NAN : 0;
      } else if (a == e) {
        diff = 0;
      } else {
        diff = std::fabs(a - e);
        bad = !(diff <= tol.atol + tol.rtol * std::fabs(e));
      }
    }
    if (std::isnan(diff) || diff > c.maxAbsError) c.maxAbsError = std::isnan(c.maxAbsError) ? c.maxAbsError : diff;
    if (e != 0 && !std::isnan(diff)) c.maxRelError = std::max(c.maxRelError, diff / std::fabs(e));
    if (!bad) continue;
    if (c.mismatches++ == 0) c.first = ElementMismatch{i, unflattenIndex(i, c.shape), e, a};
  }
  return c;
}

std::vector<std::size_t> outputParams(const ir::PrimFunc& func) {
  struct Collector final : ir::StmtVisitor {
    std::set<const ir::BufferNode*> written;
    void visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
      written.insert(op.buffer.get());
      StmtVisitor::visitBufferStore(op, self);
    }
  } collector;
  collector(func.body);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < func.params.size(); ++i)
    if (collector.written.contains(func.params[i].get())) out.push_back(i);
  return out;
}

Expected<std::vector<ir::NDArray>> makeArguments(const ir::PrimFunc& func, const ir::SizeBindings& sizes,
                                                 std::uint64_t seed) {
  const auto outputs = outputParams(func);
  std::vector<ir::NDArray> args;
  for (std::size_t i = 0; i < func.params.size(); ++i) {
    auto shape = ir::evalShape(func.params[i], sizes);
    if (!shape) return Unexpected(shape.error());
    auto a = ir::NDArray::create(*shape, func.params[i]->dtype, func.params[i]->name);
    if (!a) return Unexpected(a.error());
    if (std::find(outputs.begin(), outputs.end(), i) == outputs.end()) a->fillRandom(seed + i);
    args.push_back(std::move(*a));
  }
  return args;
}

bool VerifyReport::passed() const {
  return std::all_of(outputs.begin(), outputs.end(), [](const OutputCheck& c) { return c.passed(); }) &&
         std::all_of(sampled.begin(), sampled.end(), [](const SampledCheck& c) { return c.passed(); });
}

std::string SampledCheck::str() const {
  if (!skipped.empty()) return fmt::format("interpreter on sampled elements: not run ({})", skipped);
  std::vector<std::string> where;
  for (const auto& index : indices)
    where.push_back(fmt::format("[{}]", fmt::join(index, ", ")));
  const std::string head = fmt::format("interpreter on {} sampled element{} {}: ", indices.size(),
                                       indices.size() == 1 ? "" : "s", fmt::join(where, ", "));
  const std::string errors = fmt::format("max abs error {:.3g}, max rel error {:.3g}; {}", check.maxAbsError,
                                         check.maxRelError, check.tolerance.str());
  if (passed()) return head + fmt::format("ok ({})", errors);
  return head + fmt::format("MISMATCH at {} of them; first at [{}]: expected {:.9g}, got {:.9g} ({})", check.mismatches,
                            fmt::join(check.first->index, ", "), check.first->expected, check.first->actual, errors);
}

std::vector<ir::NDArray> freshCopies(std::span<const ir::NDArray> args, const std::vector<std::size_t>& outputs) {
  std::vector<ir::NDArray> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool isOutput = std::find(outputs.begin(), outputs.end(), i) != outputs.end();
    out.push_back(isOutput ? ir::NDArray(args[i].shape(), args[i].dtype()) : args[i].clone());
  }
  return out;
}

Expected<VerifyReport> verify(const ir::PrimFunc& original, const ir::SizeBindings& sizes,
                              std::span<const ir::NDArray> args, const RunOnArgs& underTest,
                              const RunOnArgs& compiledReference, const VerifyOptions& options) {
  // Every failure after a stop request is the cancellation (the stop may be what made the
  // interpreter, the kernel or the reference fail).
  const std::stop_token& stop = options.stop;
  const auto cancelled = [] { return Unexpected(cancelledDiagnostic("verifying")); };
  if (stop.stop_requested()) return cancelled();
  const auto outputs = outputParams(original);
  VerifyReport report;
  auto work = countFlops(original, sizes);
  if (!work) return Unexpected(work.error());
  report.instances = work->instances;

  // The reference: from the cache when it holds this program's results on these inputs.
  ReferenceCache* cache = options.reference.get();
  std::vector<ir::ArrayChecksum> inputs;
  if (cache) {
    for (std::size_t i = 0; i < args.size(); ++i)
      if (std::find(outputs.begin(), outputs.end(), i) == outputs.end()) inputs.push_back(args[i].checksum());
    if (cache->filled && cache->inputs != inputs) cache->filled = false;
  }
  const bool cached = cache && cache->filled;
  std::vector<ir::NDArray> expected = cached ? cache->expected : freshCopies(args, outputs);
  if (cached) {
    ++cache->hits;
    report.reference = cache->kind;
    report.referenceText = cache->text;
  } else if (report.instances <= options.interpretLimit) {
    report.reference = ReferenceKind::Interpreter;
    report.referenceText = "the reference interpreter";
    if (auto ran = ir::interpret(original, expected, sizes, stop); !ran) {
      if (stop.stop_requested()) return cancelled();
      Diagnostic d = ran.error();
      d.message = fmt::format("the reference interpreter failed: {}", d.message);
      return Unexpected(d);
    }
  } else {
    report.reference = ReferenceKind::CompiledUnscheduled;
    report.referenceText = fmt::format(
        "the unscheduled program compiled by {} (too large to interpret: {:.3g} statement instances > {:.3g})",
        options.compiledReferenceBy.empty() ? "the same target" : options.compiledReferenceBy, report.instances,
        options.interpretLimit);
    if (!compiledReference)
      return Unexpected(Diagnostic::error(
          "verify.too-large", fmt::format("the program is too large to interpret ({:.3g} statement instances > {:.3g}) "
                                          "and no compiled reference is available",
                                          report.instances, options.interpretLimit)));
    if (auto ran = compiledReference(expected); !ran) {
      if (stop.stop_requested()) return cancelled();
      Diagnostic d = ran.error();
      d.message = fmt::format("the compiled unscheduled program failed: {}", d.message);
      return Unexpected(d);
    }
  }

  if (cache && !cached) {
    cache->inputs = inputs;
    cache->kind = report.reference;
    cache->text = report.referenceText;
    cache->expected = expected;
    cache->samples.clear();
  }

  if (stop.stop_requested()) return cancelled();
  report.actual = freshCopies(args, outputs);
  if (auto ran = underTest(report.actual); !ran) return stop.stop_requested() ? cancelled() : Unexpected(ran.error());
  std::vector<Tolerance> tolerances; // each output's, for its sampled elements too
  for (std::size_t i : outputs) {
    const auto& param = original.params[i];
    tolerances.push_back(options.tolerance.value_or(defaultTolerance(param->dtype, *work, expected[i])));
    report.outputs.push_back(compareOutput(param->name, report.actual[i], expected[i], tolerances.back()));
  }
  if (report.reference == ReferenceKind::CompiledUnscheduled) {
    // The interpreter on sampled elements; the outputs share the interpret limit.
    const double limit = options.interpretLimit / static_cast<double>(std::max<std::size_t>(outputs.size(), 1));
    for (std::size_t n = 0; n < outputs.size(); ++n) {
      const std::size_t i = outputs[n];
      const auto& param = original.params[i];
      Expected<SampledElements> sample =
          cached ? Expected<SampledElements>(cache->samples[n])
                 : interpretSampledElements(original, sizes, args, i, options.sampleElements, options.sampleSeed + i,
                                            limit, stop);
      if (!sample) return Unexpected(sample.error());
      if (cache && !cached) cache->samples.push_back(*sample);
      SampledCheck c;
      c.name = param->name;
      c.instancesPerElement = sample->instancesPerElement;
      c.skipped = sample->skipped;
      const Tolerance tol = tolerances[n];
      const auto k = static_cast<std::int64_t>(sample->flatIndices.size());
      ir::NDArray actual({k}, param->dtype);
      const std::size_t bytes = static_cast<std::size_t>(param->dtype.bytes());
      for (std::int64_t s = 0; s < k; ++s) {
        std::memcpy(actual.rawData() + s * bytes, report.actual[i].rawData() + sample->flatIndices[s] * bytes, bytes);
        c.indices.push_back(unflattenIndex(sample->flatIndices[s], report.actual[i].shape()));
      }
      c.check = k > 0 ? compareOutput(param->name, actual, sample->values, tol) : OutputCheck{};
      c.check.tolerance = tol;
      c.check.shape = report.actual[i].shape();
      if (c.check.first) {
        c.check.first->flatIndex = sample->flatIndices[c.check.first->flatIndex];
        c.check.first->index = unflattenIndex(c.check.first->flatIndex, c.check.shape);
      }
      report.sampled.push_back(std::move(c));
    }
  }
  if (cache) cache->filled = true;
  return report;
}

} // namespace loopscape::codegen
