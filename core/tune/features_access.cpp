// Memory features of one store (features.h defines them): footprints in elements and in
// 64-byte lines from the affine index forms, traffic, reuse type and distance, stride.
//
// Footprint of one affine access over a set of iterating loops: the terms |coef| * v,
// v in [0, extent), taken by increasing |coef|, grow a set of S distinct values spanning
// W: a term whose step is at least W adds disjoint copies (S *= extent); a smaller step
// overlaps them (S = min(S * extent, new span)). This is exact for row-major boxes and
// for dense sliding windows (i + r). Several accesses to one buffer unite: accesses with
// the same terms and different constant offsets count min(sum, footprint with the offsets'
// spread as one more unit-step term); accesses with different terms count the largest
// (they are taken to overlap). Both are capped by the buffer's size.
#include "core/tune/features_detail.h"

#include <algorithm>
#include <cmath>

namespace loopscape::tune::detail {

namespace {

constexpr double kLineBytes = 64;
constexpr int kSpreadKey = -2;

struct Term {
  int key;
  double coef; ///< |coefficient|, in elements
  double extent;
  friend bool operator==(const Term&, const Term&) = default;
};

struct Piece {
  std::vector<Term> terms; ///< sorted by key
  double offset = 0;
};

/// The iterating terms of `a` in `store`: loops at depth >= fromDepth with extent > 1, and
/// the lanes.
std::vector<Term> termsOf(const Program& program, const Store& store, const Access& a, int fromDepth) {
  std::vector<Term> terms;
  for (const auto& [key, c] : a.index.coef) {
    if (c == 0) continue;
    if (key == kLanesKey) {
      if (a.lanes > 1) terms.push_back({key, std::abs(c), static_cast<double>(a.lanes)});
      continue;
    }
    const int depth = program.loops[static_cast<std::size_t>(key)].depth;
    if (depth < fromDepth || depth >= static_cast<int>(store.loops.size()) ||
        store.loops[static_cast<std::size_t>(depth)] != key)
      continue;
    const double extent = store.extents[static_cast<std::size_t>(depth)];
    if (extent > 1) terms.push_back({key, std::abs(c), extent});
  }
  return terms;
}

std::vector<Term> byCoef(std::vector<Term> terms) {
  std::stable_sort(terms.begin(), terms.end(), [](const Term& x, const Term& y) { return x.coef < y.coef; });
  return terms;
}

/// Distinct elements of one access (see the file comment).
double elementFootprint(const std::vector<Term>& terms) {
  double s = 1, w = 1;
  for (const Term& t : byCoef(terms)) {
    const double span = t.coef * (t.extent - 1) + w;
    s = t.coef >= w ? s * t.extent : std::min(s * t.extent, span);
    w = span;
  }
  return s;
}

/// Distinct 64-byte lines of one access: the terms whose step is under a line make one
/// contiguous run of ceil(span / 64) lines; the larger steps repeat it as above, in lines.
double lineFootprint(const std::vector<Term>& terms, double elemBytes) {
  double innerSpan = elemBytes;
  std::vector<Term> outer;
  for (const Term& t : byCoef(terms)) {
    if (t.coef * elemBytes < kLineBytes)
      innerSpan += t.coef * elemBytes * (t.extent - 1);
    else
      outer.push_back(t);
  }
  double s = std::ceil(innerSpan / kLineBytes), w = s;
  for (const Term& t : outer) {
    const double step = t.coef * elemBytes / kLineBytes;
    const double span = step * (t.extent - 1) + w;
    s = step >= w ? s * t.extent : std::min(s * t.extent, span);
    w = span;
  }
  return s;
}

/// Union over accesses to one buffer, in elements (lines = false) or lines (true).
double unionFootprint(const std::vector<Piece>& pieces, double elemBytes, double bufferElements, bool lines) {
  auto one = [&](const std::vector<Term>& terms) {
    return lines ? lineFootprint(terms, elemBytes) : elementFootprint(terms);
  };
  std::vector<bool> done(pieces.size(), false);
  double best = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (done[i]) continue;
    std::vector<double> offsets;
    for (std::size_t j = i; j < pieces.size(); ++j) {
      if (done[j] || pieces[j].terms != pieces[i].terms) continue;
      done[j] = true;
      if (std::find(offsets.begin(), offsets.end(), pieces[j].offset) == offsets.end())
        offsets.push_back(pieces[j].offset);
    }
    double fp = one(pieces[i].terms);
    if (offsets.size() > 1) {
      auto [lo, hi] = std::minmax_element(offsets.begin(), offsets.end());
      std::vector<Term> spread = pieces[i].terms;
      spread.push_back({kSpreadKey, 1, *hi - *lo + 1});
      fp = std::min(fp * static_cast<double>(offsets.size()), one(spread));
    }
    best = std::max(best, fp);
  }
  const double cap = lines ? std::ceil(bufferElements * elemBytes / kLineBytes) : bufferElements;
  return cap > 0 ? std::min(best, cap) : best;
}

/// Unique bytes per buffer, summed, of `accesses` (each with its store) from `fromDepth`.
template <typename ForEach> double bytesOf(const Program& program, int fromDepth, ForEach forEachAccess) {
  std::vector<const ir::BufferNode*> order;
  std::unordered_map<const ir::BufferNode*, std::vector<Piece>> pieces;
  std::unordered_map<const ir::BufferNode*, double> elements;
  forEachAccess([&](const Store& store, const Access& a) {
    if (!pieces.contains(a.buffer)) order.push_back(a.buffer);
    pieces[a.buffer].push_back({termsOf(program, store, a, fromDepth), a.index.constant});
    elements[a.buffer] = a.bufferElements;
  });
  double total = 0;
  for (const auto* b : order) {
    const double eb = b->dtype.bytes();
    total += eb * unionFootprint(pieces[b], eb, elements[b], false);
  }
  return total;
}

/// Unique bytes of every buffer touched by one iteration of loop `key`'s body.
double bodyBytes(const Program& program, int key, BufferStatsCache& cache) {
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const Loop& loop = program.loops[static_cast<std::size_t>(key)];
  double bytes = bytesOf(program, loop.depth + 1, [&](auto&& fn) {
    for (int s : loop.stores)
      for (const Access& a : program.stores[static_cast<std::size_t>(s)].accesses)
        fn(program.stores[static_cast<std::size_t>(s)], a);
  });
  cache[key] = bytes;
  return bytes;
}

double coefOf(const Access& a, int key) {
  auto it = a.index.coef.find(key);
  return it == a.index.coef.end() ? 0.0 : it->second;
}

/// Lines of one access counting repeats (features.h).
double linesOf(const Store& store, const Access& a) {
  std::vector<std::pair<double, double>> levels; // (extent, |coef|), outermost first
  for (std::size_t d = 0; d < store.loops.size(); ++d)
    levels.emplace_back(store.extents[d], std::abs(coefOf(a, store.loops[d])));
  levels.emplace_back(static_cast<double>(a.lanes), std::abs(coefOf(a, kLanesKey)));
  int innermost = -1;
  for (int d = static_cast<int>(levels.size()) - 1; d >= 0 && innermost < 0; --d)
    if (levels[static_cast<std::size_t>(d)].first > 1 && levels[static_cast<std::size_t>(d)].second != 0) innermost = d;
  if (innermost < 0) return 1;
  double prod = 1;
  for (int d = 0; d <= innermost; ++d)
    prod *= levels[static_cast<std::size_t>(d)].first;
  const double eb = a.buffer->dtype.bytes();
  return prod * std::min(1.0, levels[static_cast<std::size_t>(innermost)].second * eb / kLineBytes);
}

void fillReuse(const Program& program, const Store& store, const std::vector<const Access*>& accesses, BufferStats& b,
               BufferStatsCache& cache) {
  double inner = 1;
  for (int d = static_cast<int>(store.loops.size()) - 1; d >= 0; --d) {
    const double extent = store.extents[static_cast<std::size_t>(d)];
    if (extent <= 1) continue;
    const int key = store.loops[static_cast<std::size_t>(d)];
    const bool moves =
        std::any_of(accesses.begin(), accesses.end(), [&](const Access* a) { return coefOf(*a, key) != 0; });
    if (!moves) {
      b.reuse = ReuseKind::LoopMultipleRead;
      b.reuseCt = extent;
      b.reuseDisIter = inner;
      b.reuseDisBytes = bodyBytes(program, key, cache);
      return;
    }
    int touching = 0;
    for (int s : program.loops[static_cast<std::size_t>(key)].stores) {
      const auto& other = program.stores[static_cast<std::size_t>(s)].accesses;
      touching += std::any_of(other.begin(), other.end(), [&](const Access& a) { return a.buffer == b.buffer; });
    }
    if (touching > 1) {
      b.reuse = ReuseKind::SerialReadWrite;
      b.reuseCt = touching - 1;
      b.reuseDisIter = inner;
      b.reuseDisBytes = bodyBytes(program, key, cache);
      return;
    }
    inner *= extent;
  }
}

} // namespace

std::vector<BufferStats> bufferStats(const Program& program, const Store& store, BufferStatsCache& cache) {
  double prod = 1;
  for (double e : store.extents)
    prod *= e;
  std::vector<const ir::BufferNode*> order;
  for (const Access& a : store.accesses)
    if (std::find(order.begin(), order.end(), a.buffer) == order.end()) order.push_back(a.buffer);

  std::vector<BufferStats> result;
  for (const ir::BufferNode* buffer : order) {
    BufferStats b;
    b.buffer = buffer;
    const double eb = buffer->dtype.bytes();
    std::vector<const Access*> accesses;
    std::vector<Piece> pieces;
    std::vector<std::pair<std::vector<Term>, double>> distinct; // for lines: all-loop terms, offset
    for (const Access& a : store.accesses) {
      if (a.buffer != buffer) continue;
      accesses.push_back(&a);
      (a.write ? b.write : b.read) = true;
      b.bytes += prod * a.lanes * eb;
      pieces.push_back({termsOf(program, store, a, 0), a.index.constant});
      std::pair<std::vector<Term>, double> id{pieces.back().terms, a.index.constant};
      if (std::find(distinct.begin(), distinct.end(), id) == distinct.end()) {
        distinct.push_back(std::move(id));
        b.lines += linesOf(store, a);
      }
      // Stride: the innermost iterating level, the lanes when the store is a vector.
      double stride = 0;
      if (store.lanes > 1) {
        stride = std::abs(coefOf(a, kLanesKey));
      } else {
        for (int d = static_cast<int>(store.loops.size()) - 1; d >= 0; --d) {
          if (store.extents[static_cast<std::size_t>(d)] <= 1) continue;
          stride = std::abs(coefOf(a, store.loops[static_cast<std::size_t>(d)]));
          break;
        }
      }
      b.stride = std::max(b.stride, stride);
    }
    const double elements = accesses.front()->bufferElements;
    b.uniqueBytes = eb * unionFootprint(pieces, eb, elements, false);
    b.uniqueLines = unionFootprint(pieces, eb, elements, true);
    fillReuse(program, store, accesses, b, cache);
    result.push_back(b);
  }
  std::stable_sort(result.begin(), result.end(),
                   [](const BufferStats& x, const BufferStats& y) { return x.bytes > y.bytes; });
  return result;
}

double storeBytesFrom(const Program& program, const Store& store, int level) {
  return bytesOf(program, level, [&](auto&& fn) {
    for (const Access& a : store.accesses)
      fn(store, a);
  });
}

} // namespace loopscape::tune::detail
