// diffPrograms: collect the loops and blocks of both programs in pre-order, match them
// (blocks by name; loops by name among those enclosing a common block, then leftover
// loops at the same depth with the same extent as renamed), describe each matched pair's
// differences with the first program's loop and iterator variables renamed to their
// partners', and merge the entries in program order.
#include "core/ir/program_diff.h"

#include "core/ir/assert.h"
#include "core/ir/substitute.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <unordered_map>

namespace loopscape::ir {

const char* diffKindSign(DiffKind kind) {
  switch (kind) {
  case DiffKind::Removed: return "-";
  case DiffKind::Added: return "+";
  case DiffKind::Changed: return "~";
  }
  LS_UNREACHABLE("bad DiffKind");
}

namespace {

struct Item {
  DiffItem item = DiffItem::Loop;
  std::string name; ///< loop variable or block name
  int depth = 0;
  const For* loop = nullptr;
  const BlockRealize* realize = nullptr;  ///< blocks only
  std::vector<std::string> blocks;        ///< loops: the blocks inside, in order
  std::vector<const For*> enclosingLoops; ///< blocks: the loops around, outermost first
  bool hasNestedStructure = false;        ///< blocks: the body holds loops or blocks
  int partner = -1;
};

class Collector {
public:
  std::vector<Item> items;

  void visit(const Stmt& s) {
    if (!s) return;
    switch (s.kind()) {
    case StmtKind::For: {
      const auto* f = s.as<For>();
      markNested();
      Item item;
      item.name = f->loopVar.as<Var>()->name;
      item.depth = static_cast<int>(m_loops.size());
      item.loop = f;
      m_loops.push_back(static_cast<int>(items.size()));
      items.push_back(std::move(item));
      visit(f->body);
      m_loops.pop_back();
      return;
    }
    case StmtKind::BlockRealize: {
      const auto* r = s.as<BlockRealize>();
      const Block& b = r->blockNode();
      markNested();
      Item item;
      item.item = DiffItem::Block;
      item.name = b.name;
      item.depth = static_cast<int>(m_loops.size());
      item.realize = r;
      for (int l : m_loops) {
        item.enclosingLoops.push_back(items[static_cast<std::size_t>(l)].loop);
        items[static_cast<std::size_t>(l)].blocks.push_back(b.name);
      }
      m_blocks.push_back(static_cast<int>(items.size()));
      items.push_back(std::move(item));
      visit(b.init);
      visit(b.body);
      m_blocks.pop_back();
      return;
    }
    case StmtKind::Block: visit(s.as<Block>()->body); return;
    case StmtKind::SeqStmt:
      for (const auto& x : s.as<SeqStmt>()->seq)
        visit(x);
      return;
    case StmtKind::IfThenElse:
      visit(s.as<IfThenElse>()->thenCase);
      visit(s.as<IfThenElse>()->elseCase);
      return;
    case StmtKind::LetStmt: visit(s.as<LetStmt>()->body); return;
    case StmtKind::Allocate: visit(s.as<Allocate>()->body); return;
    case StmtKind::BufferStore:
    case StmtKind::Evaluate:
    case StmtKind::Assume: return;
    }
    LS_UNREACHABLE("bad StmtKind");
  }

private:
  /// A loop or block inside a block's body: the blocks around it hold structure that is
  /// diffed item by item, not as body text.
  void markNested() {
    for (int b : m_blocks)
      items[static_cast<std::size_t>(b)].hasNestedStructure = true;
  }

  std::vector<int> m_loops;  ///< indices of the loops around the current statement
  std::vector<int> m_blocks; ///< indices of the blocks around the current statement
};

std::vector<Item> collect(const PrimFunc& func) {
  Collector c;
  c.visit(func.body);
  return std::move(c.items);
}

bool intersects(const std::vector<std::string>& x, const std::vector<std::string>& y) {
  return std::any_of(x.begin(), x.end(),
                     [&](const std::string& s) { return std::find(y.begin(), y.end(), s) != y.end(); });
}

std::string join(const std::vector<std::string>& parts, const char* sep = ", ") {
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string kindText(const For& f) {
  if (f.forKind == ForKind::ThreadBinding) return std::string("thread_binding(\"") + f.threadTag + "\")";
  return forKindName(f.forKind);
}

std::string rangeText(const Range& r) {
  if (const auto* e = r.extent.as<IntImm>(); e && e->value == 1) return printExpr(r.min);
  return printExpr(r.min) + ":" + printExpr(detail::addFolded(r.min, r.extent));
}

std::string regionText(const BufferRegion& r) {
  std::vector<std::string> dims;
  for (const auto& range : r.region)
    dims.push_back(rangeText(range));
  return r.buffer->name + "[" + join(dims) + "]";
}

std::string regionsText(const std::vector<BufferRegion>& regions, const VarMap& rename) {
  std::vector<std::string> parts;
  for (const auto& r : regions) {
    BufferRegion renamed{r.buffer, {}};
    for (const auto& range : r.region)
      renamed.region.push_back(Range::fromMinExtent(substitute(range.min, rename), substitute(range.extent, rename)));
    parts.push_back(regionText(renamed));
  }
  return parts.empty() ? "(none)" : join(parts);
}

std::string annotationText(const Expr& value) { return printExpr(value); }

void diffAnnotations(const Annotations& a, const Annotations& b, std::vector<std::string>& changes) {
  for (const auto& [key, value] : a) {
    auto it = b.find(key);
    if (it == b.end())
      changes.push_back("annotation " + key + " removed (was " + annotationText(value) + ")");
    else if (annotationText(value) != annotationText(it->second))
      changes.push_back("annotation " + key + ": " + annotationText(value) + " -> " + annotationText(it->second));
  }
  for (const auto& [key, value] : b)
    if (!a.contains(key)) changes.push_back("annotation " + key + " added: " + annotationText(value));
}

/// `s` printed on one line when it prints as one, else the number of lines.
std::string stmtText(const Stmt& s) {
  std::string text = printStmt(s);
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

void diffText(const std::string& what, const std::string& a, const std::string& b, std::vector<std::string>& changes) {
  if (a == b) return;
  if (a.find('\n') == std::string::npos && b.find('\n') == std::string::npos)
    changes.push_back(what + ": " + a + " -> " + b);
  else
    changes.push_back(what + " changed");
}

class Differ {
public:
  Differ(const PrimFunc& a, const PrimFunc& b, const PrintOptions& options)
      : m_a(collect(a)), m_b(collect(b)), m_printedA(printPrimFuncWithSpans(a, options)),
        m_printedB(printPrimFuncWithSpans(b, options)) {}

  ProgramDiff run() {
    matchBlocks();
    matchLoops();
    buildRenames();
    return merge();
  }

private:
  std::vector<Item> m_a, m_b;
  PrintedProgram m_printedA, m_printedB;
  VarMap m_rename; ///< the first program's loop and iterator variables -> their partners'
  std::unordered_map<const StmtNode*, const StmtNode*> m_loopPartner; ///< first program's loop -> partner

  void pair(std::size_t i, std::size_t j) {
    m_a[i].partner = static_cast<int>(j);
    m_b[j].partner = static_cast<int>(i);
  }

  void matchBlocks() {
    for (std::size_t i = 0; i < m_a.size(); ++i) {
      if (m_a[i].item != DiffItem::Block) continue;
      for (std::size_t j = 0; j < m_b.size(); ++j)
        if (m_b[j].item == DiffItem::Block && m_b[j].partner < 0 && m_b[j].name == m_a[i].name) {
          pair(i, j);
          break;
        }
    }
  }

  /// The first unpaired loop of the second program that `accept` takes, preferring one
  /// that encloses the same blocks.
  template <typename Accept> std::optional<std::size_t> findLoop(const Item& x, Accept accept) const {
    std::optional<std::size_t> any;
    for (std::size_t j = 0; j < m_b.size(); ++j) {
      const Item& y = m_b[j];
      if (y.item != DiffItem::Loop || y.partner >= 0 || !intersects(x.blocks, y.blocks) || !accept(y)) continue;
      if (y.blocks == x.blocks) return j;
      if (!any) any = j;
    }
    return any;
  }

  void matchLoops() {
    // Two schedules of one program share the variables of the loops a primitive left in
    // place (compute_at keeps the consumer's loops): the same variable is the same loop.
    for (std::size_t i = 0; i < m_a.size(); ++i) {
      const Item& x = m_a[i];
      if (x.item != DiffItem::Loop) continue;
      if (auto j = findLoop(x, [&](const Item& y) { return y.loop->loopVar.sameAs(x.loop->loopVar); })) pair(i, *j);
    }
    for (std::size_t i = 0; i < m_a.size(); ++i) {
      const Item& x = m_a[i];
      if (x.item != DiffItem::Loop || x.partner >= 0) continue;
      if (auto j = findLoop(x, [&](const Item& y) { return y.name == x.name; })) pair(i, *j);
    }
    // Renamed loops: same place, same extent.
    for (std::size_t i = 0; i < m_a.size(); ++i) {
      const Item& x = m_a[i];
      if (x.item != DiffItem::Loop || x.partner >= 0) continue;
      if (auto j = findLoop(x, [&](const Item& y) {
            return y.depth == x.depth && printExpr(y.loop->extent) == printExpr(x.loop->extent);
          }))
        pair(i, *j);
    }
  }

  void buildRenames() {
    for (const Item& x : m_a) {
      if (x.partner < 0) continue;
      const Item& y = m_b[static_cast<std::size_t>(x.partner)];
      if (x.item == DiffItem::Loop) {
        m_rename[x.loop->loopVar.get()] = y.loop->loopVar;
        m_loopPartner[x.loop] = y.loop;
        continue;
      }
      const Block& bx = x.realize->blockNode();
      const Block& by = y.realize->blockNode();
      for (std::size_t k = 0; k < std::min(bx.iterVars.size(), by.iterVars.size()); ++k)
        m_rename[bx.iterVars[k].var.get()] = by.iterVars[k].var;
    }
  }

  static DiffLocation locate(const Item& item, const PrintedProgram& printed) {
    DiffLocation loc;
    loc.depth = item.depth;
    loc.node =
        item.loop ? static_cast<const StmtNode*>(item.loop) : static_cast<const StmtNode*>(item.realize->block.get());
    for (const auto& span : printed.spans) {
      if (span.node != loc.node) continue;
      loc.line = span.line;
      loc.column = span.column;
      loc.length = span.length;
      std::size_t start = 0;
      for (int l = 1; l < span.line && start != std::string::npos; ++l) {
        start = printed.text.find('\n', start);
        if (start != std::string::npos) ++start;
      }
      if (start == std::string::npos) break;
      std::string line = printed.text.substr(start, printed.text.find('\n', start) - start);
      line.erase(0, line.find_first_not_of(' '));
      loc.text = std::move(line);
      break;
    }
    return loc;
  }

  std::vector<std::string> loopChanges(const Item& x, const Item& y) const {
    std::vector<std::string> changes;
    const For& fx = *x.loop;
    const For& fy = *y.loop;
    if (x.name != y.name) changes.push_back("renamed " + x.name + " -> " + y.name);
    diffText("min", printExpr(substitute(fx.min, m_rename)), printExpr(fy.min), changes);
    diffText("extent", printExpr(substitute(fx.extent, m_rename)), printExpr(fy.extent), changes);
    diffText("kind", kindText(fx), kindText(fy), changes);
    diffAnnotations(fx.annotations, fy.annotations, changes);
    if (x.depth != y.depth) changes.push_back("depth " + std::to_string(x.depth) + " -> " + std::to_string(y.depth));
    if (x.blocks != y.blocks) changes.push_back("encloses " + join(x.blocks) + " -> " + join(y.blocks));
    return changes;
  }

  std::vector<std::string> blockChanges(const Item& x, const Item& y) const {
    std::vector<std::string> changes;
    const BlockRealize& rx = *x.realize;
    const BlockRealize& ry = *y.realize;
    const Block& bx = rx.blockNode();
    const Block& by = ry.blockNode();
    auto loopNames = [](const Item& item) {
      std::vector<std::string> names;
      for (const For* f : item.enclosingLoops)
        names.push_back(f->loopVar.as<Var>()->name);
      return names.empty() ? std::string("(none)") : join(names);
    };
    // The loops around the block changed when they are not the partners of the first
    // program's loops, in the same order (renamed loops are the same loops).
    std::vector<const StmtNode*> mapped;
    for (const For* f : x.enclosingLoops) {
      auto it = m_loopPartner.find(f);
      mapped.push_back(it == m_loopPartner.end() ? f : it->second);
    }
    if (mapped != std::vector<const StmtNode*>(y.enclosingLoops.begin(), y.enclosingLoops.end())) {
      std::string line = "loops " + loopNames(x) + " -> " + loopNames(y);
      // Same names, other loops (a fused loop split apart): say which.
      if (loopNames(x) == loopNames(y)) {
        std::vector<std::string> others;
        for (std::size_t k = 0; k < mapped.size(); ++k)
          if (mapped[k] != y.enclosingLoops[k]) others.push_back(y.enclosingLoops[k]->loopVar.as<Var>()->name);
        line += " (another loop " + join(others) + ")";
      }
      changes.push_back(std::move(line));
    }
    const std::size_t common = std::min(bx.iterVars.size(), by.iterVars.size());
    if (bx.iterVars.size() != by.iterVars.size())
      changes.push_back("iterators " + std::to_string(bx.iterVars.size()) + " -> " +
                        std::to_string(by.iterVars.size()));
    for (std::size_t k = 0; k < common; ++k) {
      const IterVar& ix = bx.iterVars[k];
      const IterVar& iy = by.iterVars[k];
      const std::string nx = ix.var.as<Var>()->name, ny = iy.var.as<Var>()->name;
      if (nx != ny) changes.push_back("iterator " + nx + " renamed -> " + ny);
      auto domain = [](const IterVar& v, const VarMap& map) {
        return std::string(iterKindName(v.kind)) + " " +
               rangeText(Range::fromMinExtent(substitute(v.dom.min, map), substitute(v.dom.extent, map)));
      };
      diffText("iterator " + ny, domain(ix, m_rename), domain(iy, {}), changes);
      if (k < rx.iterValues.size() && k < ry.iterValues.size())
        diffText("binding " + ny, printExpr(substitute(rx.iterValues[k], m_rename)), printExpr(ry.iterValues[k]),
                 changes);
    }
    diffText("predicate", printExpr(substitute(rx.predicate, m_rename)), printExpr(ry.predicate), changes);
    diffText("reads", regionsText(bx.reads, m_rename), regionsText(by.reads, {}), changes);
    diffText("writes", regionsText(bx.writes, m_rename), regionsText(by.writes, {}), changes);
    auto allocs = [](const Block& b) {
      std::vector<std::string> names;
      for (const auto& buf : b.allocBuffers)
        names.push_back(buf->name);
      return names.empty() ? std::string("(none)") : join(names);
    };
    diffText("allocates", allocs(bx), allocs(by), changes);
    diffAnnotations(bx.annotations, by.annotations, changes);
    if (bx.init && !by.init)
      changes.push_back("init removed");
    else if (!bx.init && by.init)
      changes.push_back("init added");
    else if (bx.init && !x.hasNestedStructure && !y.hasNestedStructure)
      diffText("init", stmtText(substitute(bx.init, m_rename)), stmtText(by.init), changes);
    if (!x.hasNestedStructure && !y.hasNestedStructure)
      diffText("body", stmtText(substitute(bx.body, m_rename)), stmtText(by.body), changes);
    return changes;
  }

  ProgramDiffEntry entry(DiffKind kind, const Item* x, const Item* y) const {
    ProgramDiffEntry e;
    e.kind = kind;
    const Item& first = x ? *x : *y;
    e.item = first.item;
    if (first.item == DiffItem::Loop) {
      e.loop = first.name;
      e.block = first.blocks.empty() ? std::string() : first.blocks.front();
    } else {
      e.block = first.name;
    }
    if (x) e.a = locate(*x, m_printedA);
    if (y) e.b = locate(*y, m_printedB);
    return e;
  }

  ProgramDiff merge() const {
    ProgramDiff diff;
    std::vector<bool> doneA(m_a.size(), false);
    std::size_t ia = 0;
    auto flushA = [&] {
      for (; ia < m_a.size() && (m_a[ia].partner < 0 || doneA[ia]); ++ia)
        if (m_a[ia].partner < 0) diff.entries.push_back(entry(DiffKind::Removed, &m_a[ia], nullptr));
    };
    for (std::size_t ib = 0; ib < m_b.size(); ++ib) {
      flushA();
      const Item& y = m_b[ib];
      if (y.partner < 0) {
        diff.entries.push_back(entry(DiffKind::Added, nullptr, &y));
        continue;
      }
      const auto pa = static_cast<std::size_t>(y.partner);
      doneA[pa] = true;
      const Item& x = m_a[pa];
      auto changes = x.item == DiffItem::Loop ? loopChanges(x, y) : blockChanges(x, y);
      if (changes.empty()) continue;
      auto e = entry(DiffKind::Changed, &x, &y);
      e.changes = std::move(changes);
      diff.entries.push_back(std::move(e));
    }
    flushA();
    return diff;
  }
};

} // namespace

ProgramDiff diffPrograms(const PrimFunc& a, const PrimFunc& b, const PrintOptions& options) {
  return Differ(a, b, options).run();
}

std::string renderProgramDiff(const ProgramDiff& diff) {
  if (diff.empty()) return "no structural difference\n";
  std::string out;
  for (const auto& e : diff.entries) {
    const DiffLocation& loc = e.kind == DiffKind::Removed ? e.a : e.b; // merged order follows B
    const std::string indent(static_cast<std::size_t>(2 * loc.depth), ' ');
    out += diffKindSign(e.kind);
    out += " " + indent;
    out += e.item == DiffItem::Loop ? "loop " + e.loop + " (block " + e.block + ")" : "block " + e.block;
    std::vector<std::string> lines;
    if (e.a.line > 0) lines.push_back("A line " + std::to_string(e.a.line));
    if (e.b.line > 0) lines.push_back("B line " + std::to_string(e.b.line));
    if (!lines.empty()) out += " [" + join(lines) + "]";
    if (e.kind != DiffKind::Changed) {
      out += ": " + loc.text + "\n";
      continue;
    }
    out += "\n";
    for (const auto& c : e.changes)
      out += "  " + indent + "    " + c + "\n";
  }
  return out;
}

std::vector<LoopSummary> programLoops(const PrimFunc& func) {
  std::vector<LoopSummary> loops;
  for (const Item& item : collect(func)) {
    if (item.item != DiffItem::Loop) continue;
    loops.push_back({item.name, item.depth, printExpr(item.loop->extent), item.loop->forKind, item.loop->threadTag,
                     item.blocks, item.loop});
  }
  return loops;
}

} // namespace loopscape::ir
