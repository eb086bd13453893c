// The reference interpreter on a sample of output elements, for programs too large to
// interpret whole (verify.h compares those with the unscheduled program compiled by the
// same target, which checks the schedule but not the code generator; the sample checks
// the code generator on a few elements, exactly).
//
// One element is computed by interpreting the program restricted to it: the block that
// writes the output gets the extra predicate "its store index == the element", and every
// loop around it (holding no other block) whose variable is that index in some dimension
// runs only the element's coordinate. Loop iterations dropped that way are exactly those
// whose block instance the predicate would skip, so the element's value is the one the
// whole program computes, bit for bit; stages that do not write the output still run in
// full. A reduction `C[i, j] = C[i, j] + ...` costs its reduction length per element.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/prim_func.h"

#include <cstdint>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::codegen {

/// `func` computing only element `index` of parameter `param` exactly (see above).
/// Refused ("verify.no-element-restriction", the message says why) when the output is
/// not written by exactly one block, is read anywhere except by that block at the index
/// it stores to (scans, stencils reading their own output), the block has nested blocks,
/// or its stores use different indices.
Expected<ir::PrimFunc> restrictToElement(const ir::PrimFunc& func, std::size_t param,
                                         const std::vector<std::int64_t>& index, const ir::SizeBindings& sizes);

/// `count` distinct flat indices in [0, numel), ascending: the first and the last element
/// and the rest drawn from std::mt19937_64(seed) (fewer when numel is smaller).
std::vector<std::int64_t> sampleFlatIndices(std::int64_t numel, int count, std::uint64_t seed);

struct SampledElements {
  std::vector<std::int64_t> flatIndices; ///< the elements interpreted, ascending
  ir::NDArray values;                    ///< the interpreter's value of each (shape {k}, the output's dtype)
  double instancesPerElement = 0;        ///< statement instances of one restricted run
  std::string skipped;                   ///< why no element was interpreted (then flatIndices is empty)
};

/// Interprets up to `count` sampled elements of output `param` of `func` on `args`
/// (inputs filled; outputs' contents are ignored), within `instanceLimit` statement
/// instances in all: fewer elements when one costs more than limit / count, none (with
/// `skipped` saying why) when one costs more than the limit or restriction is refused.
/// Errors: a failure of the interpreter itself; "codegen.cancelled" when `stop` is
/// requested (seen inside the interpreter's loops).
Expected<SampledElements> interpretSampledElements(const ir::PrimFunc& func, const ir::SizeBindings& sizes,
                                                   std::span<const ir::NDArray> args, std::size_t param, int count,
                                                   std::uint64_t seed, double instanceLimit, std::stop_token stop = {});

} // namespace loopscape::codegen
