// The schedule tree (core/poly's TreeDescription) as Graphviz DOT text, for the picture
// in the schedule-tree view. No Qt and no Graphviz here: this only writes text.
//
// Every tree node becomes one DOT node whose name and `id` are the node's stable id
// ("0", "0.1", "0.1.0"), so the SVG Graphviz renders has one `<g id="0.1">` per tree
// node. A band is a table with one row per member; the row of member `m` is an anchor
// whose SVG group is `a_<memberId>`, memberId = "<band id>/m<m>" (the ids the tree model
// gives member rows). The edge into node `id` has the id "edge_<id>". Labels are short
// (statement names, one expression per band member, flags); the full isl text is the
// tooltip.
#pragma once

#include <string>
#include <vector>

namespace loopscape::poly {
struct TreeNodeView;
}

namespace loopscape::views {

/// The colours of the picture (any Graphviz colour: "#rrggbb", "transparent").
struct DotPalette {
  std::string background;
  std::string text, muted, edge, border;
  std::string domainFill, bandFill, sequenceFill, filterFill, markFill, otherFill, leafFill;
  std::string parallel, carried; ///< the member flags "parallel" and "carries deps"
};

DotPalette lightDotPalette();
DotPalette darkDotPalette();

/// The id of member `member` of band `bandId` in the tree model and the picture.
std::string bandMemberId(const std::string& bandId, int member);
/// The SVG id Graphviz gives the anchor of member `memberId` ("a_" + memberId).
std::string memberAnchorId(const std::string& memberId);

/// The DOT text of the tree rooted at `root`, laid out top to bottom; band members show
/// "parallel" / "carries deps" when `dependenceFlags` (the tree's dependencesKnown).
std::string scheduleTreeDot(const poly::TreeNodeView& root, const DotPalette& palette, bool dependenceFlags = true);

namespace detail {
/// The pieces of an isl union set/map/function `[p] -> { A; B }` at nesting depth 0
/// ("A", "B"), without the parameter prefix; the whole text when it has no braces.
std::vector<std::string> islPieces(const std::string& text);
/// A member's partial schedule `{ S[i, j] -> [(i)]; T[i] -> [(i)] }` as "i" when every
/// statement has the same expression, else "S: i; T: i".
std::string scheduleExpression(const std::string& schedule);
} // namespace detail

} // namespace loopscape::views
