// Verification of a compiled kernel: it runs on seeded random inputs (input number i is
// NDArray::fillRandom(seed + i), as `loopscape-cli check` does) and each output is
// compared with a reference under a stated tolerance:
//   * the reference interpreter (ir::interpret) on the unscheduled program, when the
//     program is small enough to interpret: its statement instance count (flop_count.h)
//     is at most VerifyOptions::interpretLimit (default 2e8);
//   * otherwise the unscheduled program compiled by the same target, run the same way
//     (the report says so: it checks the schedule, not the code generator), plus the
//     interpreter on a seeded sample of each output's elements (verify_sample.h: the first,
//     the last and random ones, VerifyOptions::sampleElements of them within the interpret
//     limit), which checks the code generator exactly on those elements.
// An element mismatches when |actual - expected| > atol + rtol * |expected| (NaN in only
// one side always mismatches; equal infinities and NaN on both sides never do). Default
// tolerance: float32 rtol 1e-4 / atol 1e-5, float16 1e-2 / 1e-3, float64 1e-9 / 1e-12,
// integers and bool exact; for an output computed through a sum (a reduction), atol widened
// to the rounding of that sum's terms summed in another order (sumTolerance). A stop
// requested through VerifyOptions::stop ends the verification promptly (the interpreter
// sees it in its loops) with "codegen.cancelled".
#pragma once

#include "core/codegen/flop_count.h"
#include "core/codegen/runner.h"
#include "core/codegen/verify_sample.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/prim_func.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::codegen {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
  /// The terms of the longest sum when `atol` was widened for it (sumTolerance), else 0.
  std::int64_t sumTerms = 0;
  bool exact() const { return rtol == 0 && atol == 0; }
  /// "exact", "rtol 0.0001, atol 1e-05" or "rtol 0.0001, atol 0.000183 (widened for sums
  /// of 576 terms)".
  std::string str() const;
};

Tolerance defaultTolerance(ir::DataType dtype);

/// `base` with its atol widened, where that is larger, to the rounding a reordered sum
/// shows: 8 sqrt(terms) u rms, u the dtype's unit roundoff (2^-24 for float32) and `rms` the
/// root mean square of the expected output. A schedule may sum a reduction's terms in
/// another order (split and reordered reduce loops, vector lanes, fast-math): with random
/// signs the partial sums are about the size of the result, and two orders differ by about
/// sqrt(terms / 3) u rms, so 8 sqrt(terms) u rms is about 14 such deviations. The ResNet-18
/// conv layer (576 terms, rms 8) gets atol 9.2e-5; a tuned candidate of it differed from the
/// unscheduled program by 3.3e-5 on one element of 200704, and was refused under atol 1e-5.
/// A missing or wrong term shows as an error about the size of one product (0.25 for these
/// inputs), far above. Integers stay exact.
Tolerance sumTolerance(Tolerance base, ir::DataType dtype, double terms, double rms);

/// The terms of the longest sum in a counted program: a reduction block's update instances
/// over its init's (the product of its reduce extents, its predicate counted); 0 without.
double longestSum(const FlopCount& count);

/// The root mean square of a float array's finite elements (0 for other dtypes).
double rootMeanSquare(const ir::NDArray& a);

/// The default tolerance of an output of a counted program whose reference values are
/// `expected`: the dtype's, widened for the program's longest sum (sumTolerance).
Tolerance defaultTolerance(ir::DataType dtype, const FlopCount& count, const ir::NDArray& expected);

struct ElementMismatch {
  std::int64_t flatIndex = -1;
  std::vector<std::int64_t> index; ///< multi-dimensional, row-major
  double expected = 0;
  double actual = 0;
};

/// The comparison of one output.
struct OutputCheck {
  std::string name;
  ir::DataType dtype;
  std::vector<std::int64_t> shape;
  Tolerance tolerance;
  double maxAbsError = 0; ///< max |actual - expected| (NaN when a difference is NaN)
  double maxRelError = 0; ///< max |actual - expected| / |expected| over expected != 0
  std::int64_t mismatches = 0;
  std::optional<ElementMismatch> first;

  bool passed() const { return mismatches == 0; }
  /// "ok (max abs error 1.2e-07, max rel error 3.1e-07; rtol 0.0001, atol 1e-05)" or
  /// "MISMATCH: 3 of 4096 elements differ; first at [2, 17]: expected 1.5, got 0 (max abs
  /// error 1.5, max rel error 1; rtol 0.0001, atol 1e-05)".
  std::string str() const;
};

/// Compares `actual` with `expected` (same shape) element by element.
OutputCheck compareOutput(std::string name, const ir::NDArray& actual, const ir::NDArray& expected, Tolerance tol);

/// `[2, 17]` from a flat row-major index.
std::vector<std::int64_t> unflattenIndex(std::int64_t flat, const std::vector<std::int64_t>& shape);

/// Indices of the parameters some statement stores to (the outputs), in order.
std::vector<std::size_t> outputParams(const ir::PrimFunc& func);

/// Copies of `args` whose `outputs` (parameter indices) are fresh zero arrays, so that
/// runs on them cannot see each other's results.
std::vector<ir::NDArray> freshCopies(std::span<const ir::NDArray> args, const std::vector<std::size_t>& outputs);

/// One array per parameter under `sizes`: inputs fillRandom(seed + i), outputs zero.
Expected<std::vector<ir::NDArray>> makeArguments(const ir::PrimFunc& func, const ir::SizeBindings& sizes,
                                                 std::uint64_t seed);

enum class ReferenceKind { Interpreter, CompiledUnscheduled };

/// The kernel under test against the interpreter on sampled elements of one output
/// (programs too large to interpret whole).
struct SampledCheck {
  std::string name;
  std::vector<std::vector<std::int64_t>> indices; ///< the elements interpreted (row-major order)
  double instancesPerElement = 0;                 ///< interpreter cost of one element
  /// Errors over the sampled elements only; `first` holds the element's full index.
  OutputCheck check;
  std::string skipped; ///< why no element was interpreted (empty when some were)

  bool passed() const { return check.passed(); }
  /// "interpreter on 16 sampled elements [0, 0], [3, 17], ...: ok (max abs error 0, ...)"
  /// or "... MISMATCH at 2 of them; first at [3, 17]: expected 1.5, got 0 (...)" or
  /// "interpreter on sampled elements: not run (<why>)".
  std::string str() const;
};

struct VerifyReport {
  ReferenceKind reference = ReferenceKind::Interpreter;
  /// "the reference interpreter" or "the unscheduled program compiled by the same target
  /// (too large to interpret: 1.07e+09 statement instances > 2e+08)".
  std::string referenceText;
  double instances = 0;             ///< statement instances of the unscheduled program
  std::vector<OutputCheck> outputs; ///< one per output parameter, in parameter order
  /// With CompiledUnscheduled: one per output parameter, in parameter order.
  std::vector<SampledCheck> sampled;
  std::vector<ir::NDArray> actual; ///< every argument after the kernel under test ran
  bool passed() const;
};

/// The reference's results kept across verifications of several kernels of one program
/// on the same arguments (the tuner verifies every new best): the interpreter, or the
/// compiled reference and the interpreter on sampled elements, run once. verify() fills
/// and reads it; it is keyed by the checksums of the input arguments (other inputs
/// compute the reference again).
struct ReferenceCache {
  bool filled = false;
  int hits = 0; ///< verifications that reused it
  std::vector<ir::ArrayChecksum> inputs;
  ReferenceKind kind = ReferenceKind::Interpreter;
  std::string text;
  std::vector<ir::NDArray> expected;
  std::vector<SampledElements> samples; ///< per output, with CompiledUnscheduled
};

/// Runs a kernel (or reference) on `args` in place.
using RunOnArgs = std::function<Expected<void>(std::span<ir::NDArray> args)>;

struct VerifyOptions {
  std::optional<Tolerance> tolerance; ///< empty: defaultTolerance of each output's dtype
  double interpretLimit = 2e8;        ///< most statement instances to interpret
  /// Elements of each output interpreted when the program is too large to interpret
  /// whole (all sampled elements of all outputs share the interpret limit).
  int sampleElements = 16;
  std::uint64_t sampleSeed = 1; ///< seeds which elements are sampled
  std::stop_token stop;         ///< cancels the verification (see the file comment)
  /// When set: the reference computed once and reused (ReferenceCache); the options above
  /// must stay the same across the verifications that share it.
  std::shared_ptr<ReferenceCache> reference;
  /// The target that compiles the unscheduled reference, as the report names it; empty:
  /// the kernel's own target ("compiled by the same target"). A GPU kernel's reference is
  /// compiled by a CPU target (Pipeline::verify): the unscheduled program has no bound
  /// loops, which a GPU target refuses.
  std::string compiledReferenceBy;
};

/// Verifies `underTest` against the reference for `original` (unscheduled) on copies of
/// `args` (inputs filled; outputs' contents are ignored). `compiledReference` runs the
/// unscheduled program compiled; it is used only above the interpret limit and may be
/// empty otherwise ("verify.too-large" when it is needed but empty). Failures of the
/// kernel under test (a crash) or of the reference are returned as Diagnostics; wrong
/// values are a report with failed outputs.
Expected<VerifyReport> verify(const ir::PrimFunc& original, const ir::SizeBindings& sizes,
                              std::span<const ir::NDArray> args, const RunOnArgs& underTest,
                              const RunOnArgs& compiledReference, const VerifyOptions& options = {});

} // namespace loopscape::codegen
