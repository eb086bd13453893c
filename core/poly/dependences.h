// Dependences of a Scop, computed with isl's flow analysis (isl_union_access_info /
// isl_union_flow, PPCG's recipes) against the Scop's schedule tree, over every written
// buffer at once, split by buffer afterwards (the element in isl's full dependences names
// it). Two flows:
//   RAW (flow):   sink = reads,  must source = must-writes, may source = may-writes;
//   WAW + WAR:    sink = writes, must source = must-writes, may source = may-writes and
//                 reads; a pair is a WAW (output) when its source writes the element, a
//                 WAR (anti) when it reads it. The same pairs as a WAW flow (must source =
//                 must-writes, may source = may-writes) and a WAR flow (may source = reads,
//                 kill = must-writes) would give.
// Each dependence is value-based (last writer / reads since the last write), so they are
// not transitive: together they order every pair of conflicting accesses through chains.
// A dependence is listed per (kind, buffer, source statement, sink statement).
//
// Loops and dependences: a dependence is carried by a loop L (at depth p) when both its
// statements lie inside L and some pair of instances agrees on every loop outside L but
// not on L. A loop that carries no dependence is parallel.
//
// isl types: for core/poly and its tests (report.h has the isl-free view).
#pragma once

#include "core/poly/scop.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscape::poly {

enum class DependenceKind : std::uint8_t { Raw, War, Waw };
/// "RAW", "WAR", "WAW".
const char* dependenceKindName(DependenceKind kind);

struct Dependence {
  DependenceKind kind = DependenceKind::Raw;
  std::string buffer; ///< isl tuple name of the buffer (Scop::buffers)
  std::string source; ///< statement name
  std::string sink;   ///< statement name
  isl::map relation;  ///< { source[loops] -> sink[loops] }: every dependent pair of instances
  /// Loops enclosing both statements (indices into Scop::loops), outermost first.
  std::vector<int> commonLoops;
  /// sink - source over the common loops when it is the same vector for every pair.
  std::optional<std::vector<std::int64_t>> distance;
  /// The set of distances over the common loops, as isl text (`{ [1, i] : -1 <= i <= 1 }`).
  std::string distances;
};

struct Dependences {
  std::vector<Dependence> list; ///< RAW, then WAR, then WAW; per kind by buffer, source, sink
  isl::union_map raw, war, waw; ///< unions over every buffer, { S[loops] -> T[loops] }
  isl::union_map all() const { return raw.unite(war).unite(waw); }
};

/// Errors: "poly.isl".
Expected<Dependences> computeDependences(const Scop& scop);

/// The part of `relation` (between two statements whose first `pos + 1` loops are common)
/// whose pairs agree on the loops 0..pos-1 and differ on loop `pos`: what loop `pos`
/// carries. Throws isl exceptions (internal helper).
isl::map carriedPart(const isl::map& relation, int pos);

/// For a loop of the Scop: whether it is parallel and which dependences it carries.
struct LoopDependences {
  int loop = -1;             ///< index into Scop::loops
  bool parallel = true;      ///< carries no dependence
  std::vector<int> carried;  ///< indices into Dependences::list
};
/// One entry per loop of `scop`, in Scop::loops order. Errors: "poly.isl".
Expected<std::vector<LoopDependences>> loopDependences(const Scop& scop, const Dependences& deps);

} // namespace loopscape::poly
