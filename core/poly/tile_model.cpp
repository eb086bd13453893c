// poly_optimize's cost model (see tile_model.h).
#include "core/poly/tile_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace loopscape::poly {

namespace {

enum class Stride { Invariant, Unit, Other, Unknown };

Stride strideOf(const AccessModel& a, int d) {
  if (d >= static_cast<int>(a.delta.size()) || !a.delta[d] || a.delta[d]->empty()) return Stride::Unknown;
  const auto& v = *a.delta[d];
  const bool leadingZero = std::all_of(v.begin(), v.end() - 1, [](std::int64_t x) { return x == 0; });
  if (leadingZero && v.back() == 0) return Stride::Invariant;
  if (leadingZero && v.back() == 1) return Stride::Unit;
  return Stride::Other;
}

std::string kib(std::int64_t bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= 1024) return fmt::format("{} KiB", (bytes + 1023) / 1024);
  return fmt::format("{} B", bytes);
}

/// Tile sizes a member may take: multiples of `step` dividing the extent when it is known
/// (no partial tiles); otherwise (or when none divides) step * 2^k, capped by the extent.
std::vector<std::int64_t> sizeCandidates(std::optional<std::int64_t> extent, std::int64_t step) {
  std::vector<std::int64_t> out;
  if (extent) {
    for (std::int64_t m = step; m <= *extent; m += step)
      if (*extent % m == 0) out.push_back(m);
    if (!out.empty()) return out;
  }
  const std::int64_t cap = extent ? *extent : 4096;
  for (std::int64_t m = step; m < cap && m <= 4096; m *= 2)
    out.push_back(m);
  out.push_back(extent ? *extent : std::max<std::int64_t>(step, 4096));
  return out;
}

/// The largest divisor of `extent` in [lo, hi], or 0.
std::int64_t divisorIn(std::int64_t extent, std::int64_t lo, std::int64_t hi) {
  for (std::int64_t d = hi; d >= lo; --d)
    if (d > 0 && extent % d == 0) return d;
  return 0;
}

std::string joinNames(const BandModel& band, const std::vector<int>& members) {
  std::vector<std::string> names;
  for (int d : members)
    names.push_back(band.members[d]);
  return fmt::format("{}", fmt::join(names, ", "));
}

} // namespace

std::int64_t footprintBytes(const BandModel& band, const std::vector<std::int64_t>& sizes) {
  double volume = 1;
  for (std::int64_t s : sizes)
    volume *= static_cast<double>(s);
  std::map<std::string, double> perAccess; // distinct (array, pattern): reads and writes of one element count once
  for (const auto& a : band.accesses) {
    std::string key = a.array;
    double elems = 1;
    bool known = true;
    std::size_t dims = 0;
    for (const auto& d : a.delta)
      if (d) dims = std::max(dims, d->size());
    for (std::size_t d = 0; d < a.delta.size() && d < sizes.size(); ++d) {
      if (!a.delta[d])
        known = false;
      else
        key += fmt::format("|{}", fmt::join(*a.delta[d], ","));
    }
    if (!known || dims == 0) {
      elems = volume;
    } else {
      for (std::size_t k = 0; k < dims; ++k) {
        double ext = 1;
        for (std::size_t d = 0; d < a.delta.size() && d < sizes.size(); ++d)
          ext += static_cast<double>(std::llabs((*a.delta[d])[k])) * static_cast<double>(sizes[d] - 1);
        elems *= ext;
      }
      elems = std::min(elems, volume);
    }
    perAccess[key] = std::max(perAccess[key], elems * a.elemBytes);
  }
  double total = 0;
  for (const auto& [key, bytes] : perAccess)
    total += bytes;
  return total >= 9.0e18 ? std::int64_t{9'000'000'000'000'000'000} : static_cast<std::int64_t>(total);
}

PackPlan planPack(const PackCandidate& c, const MachineModel& machine) {
  PackPlan plan;
  const int n = static_cast<int>(c.shape.size());
  std::int64_t stride = 1;
  for (int d = c.dim + 1; d < n; ++d)
    stride *= c.shape[d];
  const std::int64_t lanes = std::max(1, machine.vectorBytes / std::max(1, c.elemBytes));
  const std::string what = fmt::format("{} ({}) read by {} with stride {} along {}", c.buffer,
                                       fmt::join(c.shape, " x "), c.block, stride, c.vectorIter);
  if (c.reuse < kPackMinReuse) {
    plan.note = fmt::format("not packed: {}: each element is read {} time{} ({}), fewer than {}: the copy would "
                            "not pay",
                            what, c.reuse, c.reuse == 1 ? "" : "s",
                            c.reuseIters.empty() ? std::string("no other iterator")
                                                 : fmt::format("{}", fmt::join(c.reuseIters, ", ")),
                            kPackMinReuse);
    return plan;
  }
  if (c.vectorExtent < lanes) {
    plan.note = fmt::format("not packed: {}: {} spans {} elements, less than one vector of {} lanes", what,
                            c.vectorIter, c.vectorExtent, lanes);
    return plan;
  }
  for (int d = 0; d < n; ++d)
    if (d != c.dim) plan.order.push_back(d);
  plan.order.push_back(c.dim);
  std::vector<std::int64_t> packed;
  for (int d : plan.order)
    packed.push_back(c.shape[d]);
  plan.pack = true;
  plan.note = fmt::format("pack: {}: copied first into {} ({}, dimension {} last), read with stride 1 along {}; "
                          "each element is read {} times ({}), the copy moves it once ({})",
                          what, c.buffer + "_global", fmt::join(packed, " x "), c.dim, c.vectorIter, c.reuse,
                          fmt::join(c.reuseIters, ", "), kib(c.elemBytes * [&] {
                            std::int64_t e = 1;
                            for (std::int64_t s : c.shape)
                              e *= s;
                            return e;
                          }()));
  return plan;
}

BandPlan planBand(const BandModel& band, const MachineModel& machine, const PlanOptions& options,
                  const std::vector<std::int64_t>* decided) {
  BandPlan plan;
  const int n = static_cast<int>(band.members.size());
  plan.tile.assign(n, 1);
  plan.registerTile.assign(n, 1);
  if (n == 0) return plan;

  // 1. The member to put innermost: a coincident one with only contiguous or invariant
  // accesses (vectorizable), the one with the most stride-1 bytes (writes count twice).
  auto unitBytes = [&](int d, bool requireVectorizable) -> std::int64_t {
    std::int64_t score = 0;
    for (const auto& a : band.accesses) {
      const Stride s = strideOf(a, d);
      if (requireVectorizable && (s == Stride::Other || s == Stride::Unknown)) return 0;
      if (s == Stride::Unit) score += a.elemBytes * (a.write ? 2 : 1);
    }
    return score;
  };
  int vector = -1;
  std::int64_t best = 0;
  for (int d = 0; d < n; ++d) {
    if (!band.coincident[d]) continue;
    const std::int64_t score = unitBytes(d, true);
    if (score > 0 && score >= best) vector = d, best = score;
  }
  int inner = vector;
  if (inner < 0) {
    best = 0;
    for (int d = 0; d < n; ++d)
      if (const std::int64_t score = unitBytes(d, false); score > 0 && score >= best) inner = d, best = score;
  }
  if (vector >= 0 && !options.vectorize) {
    plan.notes.push_back(
        fmt::format("{} would be vectorized (contiguous accesses); vectorization is off", band.members[vector]));
    vector = -1;
  } else if (vector < 0) {
    plan.notes.push_back(
        inner >= 0
            ? fmt::format("no member is vectorized: no coincident member has only contiguous or invariant accesses; "
                          "{} goes innermost for its stride-1 accesses",
                          band.members[inner])
            : std::string("no member is vectorized: no member has a stride-1 access"));
  }

  if (!band.permutable) {
    for (int d = 0; d < n && options.parallel; ++d)
      if (band.coincident[d]) {
        plan.parallelMember = d;
        break;
      }
    plan.notes.push_back(fmt::format("band ({}) is not permutable: not tiled, its loops keep isl's order",
                                     fmt::join(band.members, ", ")));
    if (plan.parallelMember >= 0) plan.notes.push_back(fmt::format("parallel: {}", band.members[plan.parallelMember]));
    return plan;
  }
  plan.innerMember = inner;
  plan.vectorMember = vector;

  // 2. Register tile: r keeps an accumulator (a write invariant along it), u reuses a read
  // (a read invariant along it, the write not), v is vectorized.
  int elemBytes = 4;
  for (const auto& a : band.accesses)
    if (a.write) {
      elemBytes = a.elemBytes;
      break;
    }
  const std::int64_t lanes = std::max(1, machine.vectorBytes / std::max(1, elemBytes));
  int r = -1, u = -1;
  if (vector >= 0) {
    for (int d = 0; d < n; ++d) {
      if (d == vector) continue;
      for (const auto& a : band.accesses)
        if (a.write && strideOf(a, d) == Stride::Invariant && (r < 0 || (band.coincident[r] && !band.coincident[d])))
          r = d;
    }
    std::int64_t reuse = 0;
    for (int d = 0; d < n && r >= 0; ++d) {
      if (d == vector || d == r || !band.coincident[d]) continue;
      std::int64_t invariantReads = 0;
      bool writeMoves = false;
      for (const auto& a : band.accesses) {
        const Stride s = strideOf(a, d);
        if (!a.write && s == Stride::Invariant) invariantReads += a.elemBytes;
        if (a.write && s != Stride::Invariant) writeMoves = true;
      }
      if (writeMoves && invariantReads > reuse) u = d, reuse = invariantReads;
    }
    std::int64_t w = 0, ru = 0;
    if (!options.unrollJam.empty()) {
      ru = options.unrollJam[0];
      w = options.unrollJam.size() > 1 ? options.unrollJam[1] : lanes * 2;
    } else {
      const auto& ev = band.extent[vector];
      // `vectors` vectors of lanes, else the largest power of two dividing the extent (the
      // vector loop needs a constant trip count, and odd widths such as 20 lanes are
      // legalised lane by lane: 5x slower than 4-lane vectors on gemm 200 x 220 x 240).
      auto widthFor = [&](std::int64_t vectors) {
        std::int64_t width = lanes * vectors;
        if (ev)
          while (width >= 4 && *ev % width != 0)
            width /= 2;
        return width;
      };
      // Rows of `width` lanes whose accumulators fit beside the width's loads, one
      // broadcast and one spare register (8 at most: the unrolled code's size).
      auto rowsFor = [&](std::int64_t width) {
        const std::int64_t v = (width + lanes - 1) / lanes;
        return std::clamp<std::int64_t>((machine.vectorRegisters - v - 2) / v, 1, 8);
      };
      // With an unroll-and-jam, the width with the most FMAs per load: a step of r loads
      // V vectors and broadcasts Ru values for Ru * V FMAs (6 rows of 4 vectors with 32
      // registers: 2.4, where 8 of 2 make 1.6; 6 of 2 with 16 registers).
      auto perLoad = [&](std::int64_t width) {
        const double v = static_cast<double>((width + lanes - 1) / lanes), rows = static_cast<double>(rowsFor(width));
        return rows * v / (rows + v);
      };
      w = widthFor(2);
      if (r >= 0 && u >= 0)
        for (std::int64_t vectors : {std::int64_t{4}, std::int64_t{1}})
          if (const std::int64_t width = widthFor(vectors); width >= 4 && perLoad(width) > perLoad(w)) w = width;
      if (w < 4) {
        plan.notes.push_back(fmt::format("{} is not vectorized: its extent {} has no power-of-two divisor of 4 or more",
                                         band.members[vector], *ev));
        plan.innerMember = vector;
        plan.vectorMember = vector = -1;
      } else {
        ru = rowsFor(w);
        // Rows that do not divide u's extent leave a partial register tile (lowering runs
        // it as a loop); on a short extent that is a large part, and a divisor is taken.
        if (u >= 0 && band.extent[u] && *band.extent[u] % ru != 0 && *band.extent[u] < 16 * ru)
          if (std::int64_t d = divisorIn(*band.extent[u], 2, ru)) ru = d;
      }
    }
    if (vector >= 0) {
      plan.registerTile[vector] = w;
      if (r >= 0 && u >= 0 && ru > 1) {
        plan.registerTile[u] = ru;
        plan.unrollMember = u;
        plan.reductionMember = r;
      }
    }
  }

  // 3. Cache tiles.
  auto& T = plan.tile;
  auto& R = plan.registerTile;
  if (decided && static_cast<int>(decided->size()) == 2 * n) {
    std::copy(decided->begin(), decided->begin() + n, T.begin());
    std::copy(decided->begin() + n, decided->end(), R.begin());
  } else if (!options.tile.empty()) {
    for (int d = 0; d < n; ++d) {
      T[d] = d < static_cast<int>(options.tile.size()) ? options.tile[d] : band.extent[d].value_or(4096);
      // The unrolled member's last register tile may be partial (lowering versions it:
      // lower_unswitch.h); the vector loop needs a constant trip count.
      if ((T[d] % R[d] != 0 && d != plan.unrollMember) || (d == plan.reductionMember && T[d] < 1)) {
        plan.notes.push_back(
            fmt::format("tile size {} of {} is not a multiple of its register tile {}: no register tiling", T[d],
                        band.members[d], R[d]));
        std::fill(R.begin(), R.end(), 1);
        plan.unrollMember = plan.reductionMember = plan.vectorMember = -1;
        break;
      }
    }
    if (plan.reductionMember >= 0) R[plan.reductionMember] = T[plan.reductionMember];
  } else {
    // A member's tile sizes; the unrolled member's need not be multiples of its register
    // tile (rows of 6 over 1024: tiles that divide 1024, each with a partial register tile).
    auto tileCandidates = [&](int d) {
      std::vector<std::int64_t> sizes = sizeCandidates(band.extent[d], R[d]);
      const auto& e = band.extent[d];
      if (d != plan.unrollMember || !e || *e % sizes.front() == 0) return sizes;
      std::vector<std::int64_t> divisors;
      for (std::int64_t c : sizeCandidates(e, 1))
        if (c >= R[d]) divisors.push_back(c);
      return divisors.empty() ? sizes : divisors;
    };
    T = R;
    const std::int64_t l1Budget = machine.l1Bytes / 2, l2Budget = machine.l2Bytes / 2;
    if (plan.reductionMember >= 0) {
      const int rm = plan.reductionMember;
      for (std::int64_t c : sizeCandidates(band.extent[rm], 1)) {
        std::vector<std::int64_t> strip = R;
        strip[rm] = c;
        if (c > 1 && footprintBytes(band, strip) > l1Budget) break;
        T[rm] = R[rm] = c;
      }
    }
    for (bool grown = true; grown;) {
      grown = false;
      for (int d = 0; d < n; ++d) {
        if (d == plan.reductionMember) continue;
        for (std::int64_t c : tileCandidates(d)) {
          if (c <= T[d]) continue;
          std::vector<std::int64_t> bigger = T;
          bigger[d] = c;
          if (footprintBytes(band, bigger) <= l2Budget) T[d] = c, grown = true;
          break;
        }
      }
    }
  }
  plan.tiled = true;
  if (plan.reductionMember >= 0) plan.l1Footprint = footprintBytes(band, R); // R[r] is r's whole tile

  // 4. Parallel: the outermost coincident member with at least two tiles (a mark on a
  // tile loop of one iteration would pass to the loop generated below it).
  auto span = [&](int d) { return d < static_cast<int>(band.span.size()) ? band.span[d] : band.extent[d]; };
  auto twoTiles = [&](int d) { return span(d) && (*span(d) + T[d] - 1) / T[d] >= 2; };
  for (int d = 0; d < n && options.parallel; ++d) {
    if (!band.coincident[d]) continue;
    const auto& e = band.extent[d];
    if (e && *e / T[d] < 2 && !decided && options.tile.empty()) {
      for (std::int64_t c : sizeCandidates(e, R[d]))
        if (c <= *e / 2) T[d] = c;
    }
    if (twoTiles(d)) {
      plan.parallelMember = d;
      plan.parallelCount = 1;
      break;
    }
  }
  // Parallel depth: the next tile loops join the parallel one while they are coincident
  // and have two tiles (a loop of one tile is not generated: nothing to fuse).
  if (plan.parallelMember >= 0)
    for (int d = plan.parallelMember + 1; d < n && plan.parallelCount < options.parallelDepth; ++d) {
      if (!band.coincident[d] || !twoTiles(d)) {
        plan.notes.push_back(fmt::format("parallel depth {}: the tile loop of {} is not fused into the parallel loop "
                                         "({})",
                                         options.parallelDepth, band.members[d],
                                         band.coincident[d] ? "it has one tile" : "it carries a dependence"));
        break;
      }
      ++plan.parallelCount;
    }
  // A wavefront needs two tiles along the first two members: the sum would otherwise
  // determine member 1 and leave no loop to run in parallel.
  if (plan.parallelMember < 0 && options.parallel && options.wavefront && n >= 2 && !decided && options.tile.empty() &&
      std::none_of(band.coincident.begin(), band.coincident.end(), [](bool c) { return c; }) && span(0) &&
      *span(0) >= 2 && !twoTiles(0)) {
    while (T[0] > 1 && !twoTiles(0))
      T[0] /= 2;
  }
  if (plan.parallelMember < 0 && options.parallel && options.wavefront && n >= 2 &&
      std::none_of(band.coincident.begin(), band.coincident.end(), [](bool c) { return c; }) && twoTiles(0) &&
      twoTiles(1)) {
    plan.wavefront = true;
    plan.parallelMember = 1;
  }
  plan.l2Footprint = footprintBytes(band, T);

  // Notes.
  std::vector<int> coincident;
  for (int d = 0; d < n; ++d)
    if (band.coincident[d]) coincident.push_back(d);
  plan.notes.insert(plan.notes.begin(),
                    fmt::format("band ({}): permutable, coincident: {}", fmt::join(band.members, ", "),
                                coincident.empty() ? std::string("none") : joinNames(band, coincident)));
  plan.notes.push_back(fmt::format("cache tile {}: {} per tile (L2 {})", fmt::join(T, " x "), kib(plan.l2Footprint),
                                   kib(machine.l2Bytes)));
  if (vector >= 0)
    plan.notes.push_back(
        fmt::format("innermost: {} vectorized by {} (contiguous accesses; {} lanes of {}-byte elements)",
                    band.members[vector], R[vector], lanes, elemBytes));
  else if (inner >= 0)
    plan.notes.push_back(fmt::format("innermost: {} (stride-1 accesses)", band.members[inner]));
  if (plan.unrollMember >= 0) {
    const std::int64_t accumulators = R[plan.unrollMember] * ((R[vector] + lanes - 1) / lanes);
    plan.notes.push_back(fmt::format(
        "register tile: {} outside, {} unrolled by {} and jammed: {} vector accumulators of "
        "{} registers; strip over {}: {} (L1 {})",
        band.members[plan.reductionMember], band.members[plan.unrollMember], R[plan.unrollMember], accumulators,
        machine.vectorRegisters, band.members[plan.reductionMember], kib(plan.l1Footprint), kib(machine.l1Bytes)));
  } else if (vector >= 0) {
    plan.notes.push_back("no unroll-and-jam: no write is invariant along another member with a reused read");
  }
  if (plan.wavefront)
    plan.notes.push_back(fmt::format("parallel: tiles in wavefronts ({} summed over the tile loops), the tile loop of "
                                     "{} parallel within a wavefront",
                                     band.members[0], band.members[1]));
  else
    plan.notes.push_back(
        plan.parallelCount > 1 ? fmt::format(
                                     "parallel: the tile loops of {} fused into one parallel loop of {} tiles",
                                     [&] {
                                       std::vector<int> fused;
                                       for (int k = 0; k < plan.parallelCount; ++k)
                                         fused.push_back(plan.parallelMember + k);
                                       return joinNames(band, fused);
                                     }(),
                                     [&] {
                                       std::int64_t tiles = 1;
                                       for (int k = 0; k < plan.parallelCount; ++k) {
                                         const int d = plan.parallelMember + k;
                                         tiles *= (*span(d) + T[d] - 1) / T[d];
                                       }
                                       return tiles;
                                     }())
        : plan.parallelMember >= 0 ? fmt::format("parallel: the tile loop of {}", band.members[plan.parallelMember])
        : coincident.empty() && n >= 2 && options.parallel
            ? std::string("not parallel: no member is coincident (wavefront=True runs the tiles in "
                          "wavefronts)")
            : std::string("not parallel: no coincident member has two tiles or more"));
  return plan;
}

} // namespace loopscape::poly
