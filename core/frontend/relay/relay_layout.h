// Tensor layouts as TVM writes them: "NCHW", "NHWC", and blocked ones such as "NCHW16c"
// (the channel axis split, 16 innermost) or "OIHW3i16o". Each axis is a primal letter
// (upper case) or a sub-axis (lower case, after its factor) of a primal axis.
#pragma once

#include "core/ir/ndarray.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::frontend::relay {

struct LayoutAxis {
  char primal;         ///< upper case
  std::int64_t factor; ///< 0 for a primal axis, else the sub-axis's extent
};
using Layout = std::vector<LayoutAxis>;

/// The axes of `s`, or nullopt when it is not a layout (a primal axis twice, a sub-axis
/// whose primal axis is missing, a factor without a letter).
std::optional<Layout> parseLayout(const std::string& s);

/// The product of the sub-axis factors of `primal` (1 when it is not split).
std::int64_t subFactor(const Layout& l, char primal);

/// The position of `primal`'s primal axis in `l`, or -1.
int primalIndex(const Layout& l, char primal);

/// The whole extent of each primal axis of a shape in layout `l`.
std::map<char, std::int64_t> primalExtents(const Layout& l, const std::vector<std::int64_t>& shape);

/// `in` (in layout `src`) copied into layout `dst` as layout_transform computes it, to
/// `out` (already of the result's shape and dtype): FoldConstant's fast path for weights.
void relayout(const ir::NDArray& in, const Layout& src, const Layout& dst, ir::NDArray& out);

} // namespace loopscape::frontend::relay
