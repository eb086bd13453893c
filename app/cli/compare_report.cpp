#include "app/cli/compare_report.h"

#include "core/codegen/pipeline.h"
#include "core/ir/program_diff.h"
#include "core/poly/report.h"
#include "core/poly/tree_description.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace loopscape::compare {

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : sep) + p;
  return out;
}

// ---- schedule trees --------------------------------------------------------------------

namespace {

/// Statement names of a band's partial schedule (`[n] -> { S[i] -> [(i)]; T[i, j] -> ... }`).
std::vector<std::string> statementsOf(const std::string& schedule) {
  static const std::regex statement(R"((?:\{|;)\s*([A-Za-z_][A-Za-z0-9_]*)\[)");
  std::vector<std::string> out;
  for (std::sregex_iterator it(schedule.begin(), schedule.end(), statement), end; it != end; ++it)
    if (std::find(out.begin(), out.end(), (*it)[1].str()) == out.end()) out.push_back((*it)[1].str());
  return out;
}

void collect(const poly::TreeNodeView& node, std::vector<Band>& out) {
  if (node.kind == poly::TreeNodeKind::Band) {
    Band band;
    band.id = node.id;
    band.permutable = node.permutable;
    for (const auto& m : node.members) {
      band.members.push_back(m.name);
      if (m.coincident) band.coincident.push_back(m.name);
      for (const auto& s : statementsOf(m.schedule))
        if (std::find(band.statements.begin(), band.statements.end(), s) == band.statements.end())
          band.statements.push_back(s);
    }
    out.push_back(std::move(band));
  }
  for (const auto& child : node.children)
    collect(child, out);
}

} // namespace

std::string BandPair::why() const {
  if (!a || !b) return std::string("only in ") + (a ? "A" : "B");
  std::string out = sharedMembers.empty() ? "no shared loop" : "shared loops " + join(sharedMembers);
  if (sameStatements) out += ", same statements";
  return out;
}

std::vector<Band> collectBands(const poly::TreeNodeView& root) {
  std::vector<Band> out;
  collect(root, out);
  return out;
}

Expected<std::vector<Band>> scheduleBands(const ir::PrimFunc& func) {
  auto tree = poly::describeScheduleTree(func);
  if (!tree) return std::unexpected(tree.error());
  return collectBands(tree->root);
}

std::vector<BandPair> pairBands(const std::vector<Band>& a, const std::vector<Band>& b) {
  std::vector<BandPair> pairs;
  std::vector<bool> usedA(a.size()), usedB(b.size());
  for (;;) {
    int best = 0;
    std::size_t bi = 0, bj = 0;
    BandPair bestPair;
    for (std::size_t i = 0; i < a.size(); ++i)
      for (std::size_t j = 0; j < b.size() && !usedA[i]; ++j) {
        if (usedB[j]) continue;
        BandPair p;
        for (const auto& m : a[i].members)
          if (std::find(b[j].members.begin(), b[j].members.end(), m) != b[j].members.end())
            p.sharedMembers.push_back(m);
        p.sameStatements = std::set(a[i].statements.begin(), a[i].statements.end()) ==
                           std::set(b[j].statements.begin(), b[j].statements.end());
        const int score = 2 * static_cast<int>(p.sharedMembers.size()) + (p.sameStatements ? 1 : 0);
        if (score > best) {
          best = score;
          bi = i;
          bj = j;
          bestPair = std::move(p);
        }
      }
    if (best == 0) break;
    usedA[bi] = usedB[bj] = true;
    bestPair.a = a[bi];
    bestPair.b = b[bj];
    pairs.push_back(std::move(bestPair));
  }
  // In the first tree's order, then the second's bands left over.
  std::stable_sort(pairs.begin(), pairs.end(), [&](const BandPair& x, const BandPair& y) {
    auto index = [&](const BandPair& p) {
      return std::find_if(a.begin(), a.end(), [&](const Band& band) { return band.id == p.a->id; }) - a.begin();
    };
    return index(x) < index(y);
  });
  std::vector<BandPair> out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (usedA[i]) {
      out.push_back(pairs[next++]);
      continue;
    }
    out.push_back(BandPair{a[i], std::nullopt, {}, false});
  }
  for (std::size_t j = 0; j < b.size(); ++j)
    if (!usedB[j]) out.push_back(BandPair{std::nullopt, b[j], {}, false});
  return out;
}

std::string bandText(const Band& band) {
  std::string out = fmt::format("band {} [{}]", band.id, join(band.members));
  if (band.permutable) out += " permutable";
  if (!band.coincident.empty()) out += "; coincident " + join(band.coincident);
  out += "; statements " + join(band.statements);
  return out;
}

// ---- loops and dependences -------------------------------------------------------------

LoopFacts loopFacts(const ir::PrimFunc& func) {
  LoopFacts facts;
  auto report = poly::analyzeDependences(func);
  if (!report) {
    facts.summary = "not available: " + report.error().message;
    return facts;
  }
  std::map<std::string, int> count;
  for (const auto& d : report->dependences)
    ++count[d.kind];
  facts.summary = fmt::format("{} dependences (RAW {}, WAR {}, WAW {})", report->dependences.size(), count["RAW"],
                              count["WAR"], count["WAW"]);
  // The loops of the report are the program's loops in program order.
  const auto loops = ir::programLoops(func);
  for (std::size_t i = 0; i < report->loops.size(); ++i) {
    const auto& l = report->loops[i];
    LoopRow row;
    row.name = l.name;
    row.depth = l.depth;
    row.parallel = l.parallel;
    if (i < loops.size() && loops[i].name == l.name) row.kind = ir::forKindName(loops[i].kind);
    std::vector<std::string> carried;
    for (int d : l.carried) {
      const auto& dep = report->dependences[static_cast<std::size_t>(d)];
      carried.push_back(dep.kind + " " + dep.source + " -> " + dep.sink);
    }
    row.carries = carried.empty() ? "-" : join(carried);
    row.marked = !l.parallel && (row.kind == "parallel" || row.kind == "vectorized");
    facts.loops.push_back(std::move(row));
  }
  return facts;
}

// ---- generated code --------------------------------------------------------------------

Expected<std::string> generatedSource(const ir::PrimFunc& func, const std::string& targetName,
                                      const std::string& format, std::stop_token stop) {
  const codegen::Pipeline pipeline;
  auto target = pipeline.findTarget(targetName);
  if (!target) return std::unexpected(target.error());
  auto lowered = pipeline.lower(**target, func, stop);
  if (!lowered) return std::unexpected(lowered.error());
  return pipeline.source(**target, *lowered, format, codegen::BuildOptions{}, stop);
}

// ---- line diff -------------------------------------------------------------------------

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<LineDiffEntry> diffLines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t n = a.size(), m = b.size();
  std::size_t head = 0;
  while (head < n && head < m && a[head] == b[head])
    ++head;
  std::size_t tail = 0;
  while (tail < n - head && tail < m - head && a[n - 1 - tail] == b[m - 1 - tail])
    ++tail;
  std::vector<LineDiffEntry> out;
  auto same = [&](std::size_t i, std::size_t j) {
    out.push_back({LineOp::Same, static_cast<int>(i + 1), static_cast<int>(j + 1)});
  };
  for (std::size_t i = 0; i < head; ++i)
    same(i, i);
  const std::size_t rn = n - head - tail, rm = m - head - tail;
  auto removed = [&](std::size_t i) { out.push_back({LineOp::Removed, static_cast<int>(i + 1), 0}); };
  auto added = [&](std::size_t j) { out.push_back({LineOp::Added, 0, static_cast<int>(j + 1)}); };
  if (rn * rm > 20'000'000) {
    for (std::size_t i = 0; i < rn; ++i)
      removed(head + i);
    for (std::size_t j = 0; j < rm; ++j)
      added(head + j);
  } else {
    // lcs[i][j]: the longest common subsequence of the middles' suffixes from i and j.
    std::vector<std::uint32_t> lcs((rn + 1) * (rm + 1), 0);
    auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (rm + 1) + j]; };
    for (std::size_t i = rn; i-- > 0;)
      for (std::size_t j = rm; j-- > 0;)
        at(i, j) = a[head + i] == b[head + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    std::size_t i = 0, j = 0;
    std::vector<LineDiffEntry> adds; // additions of the current change, after its removals
    auto flush = [&] {
      out.insert(out.end(), adds.begin(), adds.end());
      adds.clear();
    };
    while (i < rn || j < rm) {
      if (i < rn && j < rm && a[head + i] == b[head + j]) {
        flush();
        same(head + i, head + j);
        ++i;
        ++j;
      } else if (j < rm && (i == rn || at(i, j + 1) >= at(i + 1, j))) {
        adds.push_back({LineOp::Added, 0, static_cast<int>(head + j + 1)});
        ++j;
      } else {
        removed(head + i);
        ++i;
      }
    }
    flush();
  }
  for (std::size_t k = 0; k < tail; ++k)
    same(n - tail + k, m - tail + k);
  return out;
}

std::string renderUnifiedDiff(const std::string& textA, const std::string& textB, const std::string& nameA,
                              const std::string& nameB, int context) {
  const auto a = splitLines(textA), b = splitLines(textB);
  const auto entries = diffLines(a, b);
  const bool equal =
      std::all_of(entries.begin(), entries.end(), [](const LineDiffEntry& e) { return e.op == LineOp::Same; });
  if (equal) return "no difference\n";
  std::string out = fmt::format("--- A: {}\n+++ B: {}\n", nameA, nameB);
  const int count = static_cast<int>(entries.size());
  int k = 0;
  while (k < count) {
    // The next change, and the hunk around it: changes closer than 2 * context lines join.
    while (k < count && entries[static_cast<std::size_t>(k)].op == LineOp::Same)
      ++k;
    if (k == count) break;
    const int start = std::max(0, k - context);
    int end = k; // one past the hunk's last change
    for (int g = k; g < count; ++g) {
      if (entries[static_cast<std::size_t>(g)].op != LineOp::Same) {
        end = g + 1;
        continue;
      }
      if (g - end >= 2 * context) break;
    }
    const int stop = std::min(count, end + context);
    int firstA = 0, firstB = 0, linesA = 0, linesB = 0;
    // The line before the hunk on each side, for an empty side's start (as diff -u).
    int beforeA = 0, beforeB = 0;
    for (int g = 0; g < start; ++g) {
      const auto& e = entries[static_cast<std::size_t>(g)];
      if (e.a) beforeA = e.a;
      if (e.b) beforeB = e.b;
    }
    std::string body;
    for (int g = start; g < stop; ++g) {
      const auto& e = entries[static_cast<std::size_t>(g)];
      if (e.a) {
        if (!firstA) firstA = e.a;
        ++linesA;
      }
      if (e.b) {
        if (!firstB) firstB = e.b;
        ++linesB;
      }
      const char sign = e.op == LineOp::Same ? ' ' : e.op == LineOp::Removed ? '-' : '+';
      body += sign;
      body += e.op == LineOp::Added ? b[static_cast<std::size_t>(e.b - 1)] : a[static_cast<std::size_t>(e.a - 1)];
      body += '\n';
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", linesA ? firstA : beforeA, linesA, linesB ? firstB : beforeB, linesB);
    out += body;
    k = stop;
  }
  return out;
}

} // namespace loopscape::compare
