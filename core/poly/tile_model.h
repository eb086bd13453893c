// The cost model behind poly_optimize (isl-free, so that its choices can be tested with
// given cache sizes): what Pluto, PPCG and Polly do after the isl scheduler, decided per
// permutable band from the band's access pattern and this machine's caches and registers.
//
// A band is described by its members (coincident or not, constant extent or not) and by
// the accesses of its statements as element-index deltas per member: how far the
// accessed element moves (per array dimension) when one member advances by one and the
// others stay (computed with isl from the access relations through the inverse band
// schedule; unknown when that is not a single vector). From those:
//   * the vector member: a coincident member along which every access is invariant or
//     stride 1 (contiguous), the one with the most stride-1 bytes; it goes innermost
//     (Pluto's intra-tile reordering) and is vectorized. Without one, the member with the
//     most stride-1 bytes still goes innermost (a reduction the compiler may vectorize);
//   * register tiling (Pluto's unroll-and-jam, Polly's register tiling): when some write
//     is invariant along a member r (an accumulator: the reduction of a matmul) and a
//     coincident member u reuses a read (invariant along u), the point band is tiled again
//     as r, u, v innermost, u unrolled by Ru and v vectorized by W lanes: Ru x W outputs
//     stay in vector registers across r (Ru * W / lanes accumulators plus W / lanes loads
//     and one broadcast fit the register file). W is 1, 2 or 4 vectors, the one with the
//     most FMAs per load (Ru * V / (Ru + V) for V vectors): 6 rows of 4 vectors with 32
//     registers, 6 of 2 with 16. Ru need not divide u's extent (the last register tile is
//     partial) unless the extent is short (under 16 Ru: then a divisor);
//   * cache tiles: r's tile is the largest whose strip (Ru rows of the reused read, W
//     columns of the streamed one) fits half of L1; the other members grow in turn while
//     the tile's footprint fits half of L2. A member with a constant extent only takes
//     sizes that divide it (no partial tiles, so the vector and unrolled loops keep
//     constant trip counts), multiples of its register tile (the unrolled member's, when
//     none divides the extent, any divisor); the outermost coincident
//     member keeps at least two tiles so that it can run in parallel. Sizes given in
//     PlanOptions::tile keep the register tile when only the unrolled member's size is not
//     a multiple of it: the last register tile of a cache tile is then partial, and
//     lowering runs the whole ones unrolled and the partial one as a loop
//     (codegen/lower_unswitch.h);
//   * with PlanOptions::wavefront, a band with no coincident member (a stencil skewed in
//     time) runs its tiles as a wavefront (Pluto): the outer tile loop is the sum of the tile loops, and the tiles
//     of one wavefront are independent (every dependence distance of a permutable band is
//     non-negative in every member, so one with a zero sum stays inside its tile).
// The footprint of an access over a tile is the box its deltas span: per array dimension
// 1 + sum over members |delta| * (size - 1) elements (an unknown delta counts the tile's
// whole volume).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::poly {

/// The parts of this machine the model sizes tiles for.
struct MachineModel {
  std::int64_t l1Bytes = 32 * 1024;  ///< L1 data cache of one core
  std::int64_t l2Bytes = 512 * 1024; ///< L2 of one core
  std::int64_t l3Bytes = 8 << 20;    ///< L3 (shared)
  int vectorBytes = 32;              ///< widest vector register (64: AVX-512, 32: AVX2, 16: SSE)
  int vectorRegisters = 16;          ///< vector registers (32 with AVX-512)

  /// This machine: cache sizes from /sys/devices/system/cpu/cpu0/cache (the defaults
  /// above where absent), vector width and register count from the CPU's features.
  static MachineModel host();
  /// "l1=48K,l2=1M,l3=32M,vector=64,registers=32" (any subset; K/M/G suffixes).
  static std::optional<MachineModel> parse(const std::string& text, std::string* error = nullptr);
  std::string str() const;
};

/// One access of a statement of the band.
struct AccessModel {
  std::string array;
  int elemBytes = 4;
  bool write = false;
  /// Per member: the element-index delta (one entry per array dimension) when the member
  /// advances by one; nullopt when it is not one vector.
  std::vector<std::optional<std::vector<std::int64_t>>> delta;
};

struct BandModel {
  std::vector<std::string> members; ///< loop names, outermost first
  std::vector<bool> coincident;
  bool permutable = false;
  std::vector<std::optional<std::int64_t>> extent; ///< trip count of each member when constant
  /// Width of each member's range (max - min + 1) when bounded, even where the band's
  /// values are not a box (a skewed band): how many tiles a size gives at most.
  std::vector<std::optional<std::int64_t>> span;
  std::vector<AccessModel> accesses;
};

struct PlanOptions {
  bool vectorize = true;
  bool parallel = true;
  /// A band with no coincident member runs its tiles in wavefronts (off by default: the
  /// exact legality check of a wavefront-tiled stencil takes 10 s and more).
  bool wavefront = false;
  /// Register tile {Ru, W} (rows unrolled, vector lanes); empty: from the machine; {1, 1}: off.
  std::vector<std::int64_t> unrollJam;
  /// Cache tile sizes given by the user (leading members); empty: from the model.
  std::vector<std::int64_t> tile;
  /// How many coincident tile loops, from the parallel one inward, are fused into one
  /// parallel loop (PPCG's and Pluto's --parallel): 1 keeps the outermost alone.
  int parallelDepth = 1;
};

/// What poly_optimize does to one band. Sizes are per member, in the band's order.
struct BandPlan {
  bool tiled = false;
  std::vector<std::int64_t> tile;         ///< cache tile sizes (when tiled)
  std::vector<std::int64_t> registerTile; ///< register tile sizes (1: none; the reduction member's = its tile)
  int vectorMember = -1;                  ///< vectorized member, or -1
  int innerMember = -1;                   ///< the member placed innermost (the vector member, or the stride-1 one)
  int unrollMember = -1;                  ///< unrolled-and-jammed member, or -1
  int reductionMember = -1;               ///< the accumulator's member kept outside the register tile, or -1
  int parallelMember = -1;                ///< member whose outermost loop is parallel, or -1
  /// Tile loops of members parallelMember .. parallelMember + parallelCount - 1 (all
  /// coincident, each with two tiles or more) are fused into the one parallel loop.
  int parallelCount = 0;
  /// No member is coincident (a time-iterated stencil skewed by isl): the tile loops run
  /// as a wavefront, Pluto's pipelined parallelism: the first tile loop becomes the sum of
  /// all of them, and the tiles of one wavefront (member parallelMember = 1) are parallel.
  bool wavefront = false;
  std::int64_t l1Footprint = 0;           ///< bytes of the register strip over r's tile
  std::int64_t l2Footprint = 0;           ///< bytes of one cache tile
  std::vector<std::string> notes;         ///< why, in words (one line each)

  bool registerTiled() const { return unrollMember >= 0 || vectorMember >= 0; }
};

/// Memory promotion / packing (Polly's packing of matmul operands, PPCG's local copies on
/// a CPU): an input that a reduction reads with a non-unit stride along the output's
/// contiguous iterator v (the NT dense `C[i, j] += A[i, k] * W[j, k]`: W moves by a whole
/// row when j advances) is copied once, before the nest, into a buffer whose dimensions
/// are permuted so that v's dimension is last; the reduction then reads the copy with
/// stride 1 along v, and v can be the vector member. The copy moves every element once;
/// it pays when each element is read `reuse` times (the extents of the reduction's
/// iterators the read does not depend on) with reuse >= kPackMinReuse, and when v spans at
/// least one vector.
struct PackCandidate {
  std::string buffer;              ///< the input
  std::string block;               ///< the reduction reading it
  std::vector<std::int64_t> shape; ///< the input's shape
  int elemBytes = 4;
  int dim = 0;                         ///< the input dimension v indexes (not the last one)
  std::string vectorIter;              ///< v
  std::int64_t vectorExtent = 0;       ///< v's extent
  std::vector<std::string> reuseIters; ///< the reduction's iterators the read does not depend on
  std::int64_t reuse = 1;              ///< the product of their extents
};

inline constexpr std::int64_t kPackMinReuse = 8;

struct PackPlan {
  bool pack = false;
  std::vector<int> order; ///< the copy's dimension d is the input's dimension order[d]
  std::string note;       ///< the decision (or the refusal) in words
};

PackPlan planPack(const PackCandidate& c, const MachineModel& machine);

/// The byte footprint of one tile of `sizes` (see the file comment).
std::int64_t footprintBytes(const BandModel& band, const std::vector<std::int64_t>& sizes);

/// Plans one band. `decided` (from a recorded trace) fixes the tile and register sizes:
/// 2n values, tile then register tile.
BandPlan planBand(const BandModel& band, const MachineModel& machine, const PlanOptions& options,
                  const std::vector<std::int64_t>* decided = nullptr);

} // namespace loopscape::poly
