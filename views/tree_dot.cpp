#include "views/tree_dot.h"

#include "core/ir/xml_escape.h"
#include "core/poly/tree_description.h"

#include <fmt/format.h>

#include <string_view>

namespace loopscape::views {

DotPalette lightDotPalette() {
  DotPalette p;
  p.background = "transparent";
  p.text = "#1f2328";
  p.muted = "#656d76";
  p.edge = "#8c959f";
  p.border = "#8c959f";
  p.domainFill = "#e6f4ea";
  p.bandFill = "#e8f0fe";
  p.sequenceFill = "#eef0f2";
  p.filterFill = "#f6f8fa";
  p.markFill = "#fff4d6";
  p.otherFill = "#f3e8fd";
  p.leafFill = "#8c959f";
  p.parallel = "#1a7f37";
  p.carried = "#bc4c00";
  return p;
}

DotPalette darkDotPalette() {
  DotPalette p;
  p.background = "transparent";
  p.text = "#e6edf3";
  p.muted = "#9da7b3";
  p.edge = "#6e7681";
  p.border = "#6e7681";
  p.domainFill = "#1f3a2a";
  p.bandFill = "#1c2d4a";
  p.sequenceFill = "#2d3036";
  p.filterFill = "#25282c";
  p.markFill = "#4a3b12";
  p.otherFill = "#3b2a4d";
  p.leafFill = "#8b949e";
  p.parallel = "#56d364";
  p.carried = "#ffa657";
  return p;
}

std::string bandMemberId(const std::string& bandId, int member) { return fmt::format("{}/m{}", bandId, member); }

std::string memberAnchorId(const std::string& memberId) { return "a_" + memberId; }

namespace detail {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}

/// Position of `needle` in `s` outside brackets, parentheses and braces, or npos.
std::size_t findTopLevel(std::string_view s, std::string_view needle) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '[' || c == '(' || c == '{') ++depth;
    if (c == ']' || c == ')' || c == '}') --depth;
    if (depth == 0 && s.substr(i, needle.size()) == needle) return i;
  }
  return std::string_view::npos;
}

/// `(e)` -> `e` when the parentheses enclose the whole text.
std::string_view stripParens(std::string_view s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  int depth = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) return s;
  }
  return s.substr(1, s.size() - 2);
}

} // namespace

std::vector<std::string> islPieces(const std::string& text) {
  std::string_view s = text;
  const std::size_t open = s.find('{'), close = s.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    if (trim(s).empty()) return {};
    return {std::string(trim(s))};
  }
  s = s.substr(open + 1, close - open - 1);
  std::vector<std::string> pieces;
  while (!trim(s).empty()) {
    const std::size_t semi = findTopLevel(s, ";");
    pieces.emplace_back(trim(s.substr(0, semi)));
    if (semi == std::string_view::npos) break;
    s.remove_prefix(semi + 1);
  }
  return pieces;
}

std::string scheduleExpression(const std::string& schedule) {
  std::vector<std::pair<std::string, std::string>> parts; // statement, expression
  for (const std::string& piece : islPieces(schedule)) {
    std::string_view p = piece;
    const std::size_t arrow = findTopLevel(p, "->");
    if (arrow == std::string_view::npos) return schedule;
    std::string_view rhs = p.substr(arrow + 2);
    rhs = trim(rhs.substr(0, findTopLevel(rhs, " : ")));
    if (rhs.size() >= 2 && rhs.front() == '[' && rhs.back() == ']') rhs = rhs.substr(1, rhs.size() - 2);
    parts.emplace_back(std::string(trim(p.substr(0, p.find('[')))), std::string(stripParens(trim(rhs))));
  }
  if (parts.empty()) return schedule;
  bool same = true;
  for (const auto& [stmt, expr] : parts)
    same = same && expr == parts.front().second;
  if (same) return parts.front().second;
  std::string out;
  for (const auto& [stmt, expr] : parts)
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", stmt, expr);
  return out;
}

} // namespace detail

namespace {

constexpr std::size_t kLineChars = 48; ///< longest label line before it is cut with "…"
constexpr std::size_t kMaxRows = 6;    ///< statements shown per domain/filter node

/// A non-breaking space: Graphviz writes each font run as its own SVG text, and a plain
/// space at the start of a run would be dropped by SVG's whitespace rules.
constexpr std::string_view kSpace = "&#160;";

/// A DOT double-quoted string's contents.
std::string quoted(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string clip(std::string_view s, std::size_t n = kLineChars) {
  if (s.size() <= n) return std::string(s);
  return std::string(s.substr(0, n - 1)) + "\u2026";
}

std::string muted(const DotPalette& p, std::string_view text) {
  return fmt::format("<FONT COLOR=\"{}\">{}</FONT>", p.muted, ir::xmlEscape(text));
}

std::string row(std::string_view content) { return fmt::format("<TR><TD ALIGN=\"LEFT\">{}</TD></TR>", content); }

std::string table(std::string_view fill, const DotPalette& p, std::string_view rows) {
  return fmt::format("<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\" STYLE=\"rounded\" "
                     "BGCOLOR=\"{}\" COLOR=\"{}\">{}</TABLE>",
                     fill, p.border, rows);
}

std::string title(std::string_view kind, std::string_view extra, const DotPalette& p) {
  return row(fmt::format("<B>{}</B>{}", kind, extra.empty() ? "" : std::string(kSpace) + muted(p, extra)));
}

/// One row per statement piece (at most kMaxRows): the tuple, and below it the
/// constraints in the muted colour when `constraints` is set.
std::string pieceRows(const std::string& text, bool constraints, const DotPalette& p) {
  const std::vector<std::string> pieces = detail::islPieces(text);
  std::string rows;
  for (std::size_t i = 0; i < pieces.size() && i < kMaxRows; ++i) {
    std::string_view piece = pieces[i];
    const std::size_t colon = piece.find(" : ");
    rows += row(ir::xmlEscape(clip(piece.substr(0, colon))));
    if (constraints && colon != std::string_view::npos) rows += row(muted(p, clip(piece.substr(colon + 3))));
  }
  if (pieces.size() > kMaxRows) rows += row(muted(p, fmt::format("\u2026 {} more", pieces.size() - kMaxRows)));
  return rows;
}

/// The cell of band member `index`: an anchor with the member's id, filled so that the
/// anchor's SVG group covers the whole cell; "parallel" / "carries deps" when `flags`.
std::string memberCell(const poly::TreeNodeView& band, int index, const DotPalette& p, bool flags) {
  const poly::BandMemberView& m = band.members[std::size_t(index)];
  const std::string id = bandMemberId(band.id, index);
  std::string content = fmt::format("<B>{}</B>{}={}{}", ir::xmlEscape(m.name), kSpace, kSpace,
                                    ir::xmlEscape(clip(detail::scheduleExpression(m.schedule))));
  if (flags)
    content += fmt::format("{0}{0}<FONT COLOR=\"{1}\">{2}</FONT>", kSpace, m.parallel ? p.parallel : p.carried,
                           m.parallel ? "parallel" : "carries deps");
  if (m.coincident) content += fmt::format("{}{}", kSpace, muted(p, "coincident"));
  return fmt::format("<TD ALIGN=\"LEFT\" ID=\"{0}\" HREF=\"#{0}\" TOOLTIP=\"{1}\" BGCOLOR=\"{2}\">{3}</TD>", id,
                     ir::xmlEscape(m.schedule), p.bandFill, content);
}

/// A band of one member is one row (the kind, then the member); a wider band has a title
/// row and a row per member.
std::string bandRows(const poly::TreeNodeView& n, const DotPalette& p, bool flags) {
  std::string head = "<B>band</B>";
  if (n.permutable) head += fmt::format("{}{}", kSpace, muted(p, "permutable"));
  if (n.members.size() == 1) return fmt::format("<TR><TD ALIGN=\"LEFT\">{}</TD>{}</TR>", head, memberCell(n, 0, p, flags));
  std::string rows = row(head);
  for (int i = 0; i < int(n.members.size()); ++i)
    rows += "<TR>" + memberCell(n, i, p, flags) + "</TR>";
  return rows;
}

std::string label(const poly::TreeNodeView& n, const DotPalette& p, bool flags) {
  using poly::TreeNodeKind;
  const char* kind = poly::treeNodeKindName(n.kind);
  switch (n.kind) {
  case TreeNodeKind::Domain: return table(p.domainFill, p, title(kind, "", p) + pieceRows(n.text, true, p));
  case TreeNodeKind::Band: return table(p.bandFill, p, bandRows(n, p, flags));
  case TreeNodeKind::Sequence:
  case TreeNodeKind::Set: return table(p.sequenceFill, p, title(kind, "", p));
  case TreeNodeKind::Filter: return table(p.filterFill, p, title(kind, "", p) + pieceRows(n.text, true, p));
  case TreeNodeKind::Mark: return table(p.markFill, p, title(kind, "\"" + n.mark + "\"", p));
  case TreeNodeKind::Extension:
  case TreeNodeKind::Expansion:
  case TreeNodeKind::Context:
  case TreeNodeKind::Guard: return table(p.otherFill, p, title(kind, "", p) + pieceRows(n.text, true, p));
  case TreeNodeKind::Leaf: return {};
  }
  return {};
}

void emit(const poly::TreeNodeView& n, const DotPalette& p, bool flags, std::string& out) {
  const std::string tooltip =
      n.text.empty() ? poly::treeNodeKindName(n.kind) : fmt::format("{}: {}", poly::treeNodeKindName(n.kind), n.text);
  if (n.kind == poly::TreeNodeKind::Leaf)
    out += fmt::format("  \"{0}\" [id=\"{0}\", shape=point, width=0.09, color=\"{1}\", tooltip=\"leaf\"];\n", n.id,
                       p.leafFill);
  else
    out += fmt::format("  \"{0}\" [id=\"{0}\", shape=plain, label=<{1}>, tooltip=\"{2}\"];\n", n.id, label(n, p, flags),
                       quoted(tooltip));
  for (const poly::TreeNodeView& c : n.children) {
    out += fmt::format("  \"{0}\" -> \"{1}\" [id=\"edge_{1}\"];\n", n.id, c.id);
    emit(c, p, flags, out);
  }
}

} // namespace

std::string scheduleTreeDot(const poly::TreeNodeView& root, const DotPalette& palette, bool dependenceFlags) {
  std::string out = "digraph schedule_tree {\n";
  out += fmt::format("  graph [id=\"schedule_tree\", bgcolor=\"{}\", ordering=out, nodesep=0.25, ranksep=0.2, "
                     "pad=0.1];\n",
                     palette.background);
  out += fmt::format("  node [fontname=\"DejaVu Sans\", fontsize=10, fontcolor=\"{}\"];\n", palette.text);
  out += fmt::format("  edge [color=\"{}\", arrowsize=0.6];\n", palette.edge);
  emit(root, palette, dependenceFlags, out);
  out += "}\n";
  return out;
}

} // namespace loopscape::views
