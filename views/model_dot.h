// The DOT text of a Relay model's graph for the Model view (model_view.h): one cluster per
// fused group (its SVG id groupElementId(i), labelled with the group's name and pattern),
// one node per operator call (op name and output shape) and per model input, the model's
// output, and edges labelled with the shape of the tensor they carry. Constants (weights,
// folded values, scalar literals) are folded away: neither nodes nor edges. After a run,
// each group's cluster is filled by its share of the measured time (`shares`, 0..1 per
// group; empty before a run).
#pragma once

#include "views/tree_dot.h"

#include <string>
#include <vector>

namespace loopscape::graph {
struct Model;
}

namespace loopscape::views {

/// The SVG id of group `index`'s cluster (and of its nodes' anchor), "group<i>".
std::string groupElementId(std::size_t index);
/// The group index of an id made by groupElementId, -1 for any other id.
int groupIndexOfElementId(const std::string& id);

/// The fill of a group with `share` (0..1) of the measured time: the palette's band fill
/// at 0, through amber to red at 1.
std::string shareColor(double share, bool dark);

std::string modelGraphDot(const graph::Model& model, const std::vector<double>& shares, const DotPalette& palette,
                          bool dark);

} // namespace loopscape::views
