// Schedule-tree edits behind the `poly` family of primitives, on the tree of a Scop
// (isl types: core/poly internal). A band is addressed by the LOOP name of its first
// member (the Scop names every band member after its loop; code generation keeps the
// names, tiling adds `_0`/`_1`). The Scop of a program has one band per loop, so an edit
// that needs a band of n members first widens the band at the named loop with the bands
// perfectly nested below it (a band whose only child is the next band).
//
// Every edit returns the new schedule or a schedule error "schedule.<primitive>.<reason>"
// naming the loops/blocks involved; legality is NOT checked here (poly_primitives.cpp
// checks each regenerated program against the original dependences).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/poly/scop.h"

#include <isl/cpp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace loopscape::poly {

/// The band whose first member is the loop `loop`, widened to at least `members`
/// members. Errors: "<prim>.no-band", "<prim>.not-perfectly-nested".
Expected<isl::schedule_node> findBand(const isl::schedule& s, const std::string& loop, int members,
                                      std::string_view prim);

/// Tiles the band at `loop` with `sizes` (tile loops `<m>_0` over point loops `<m>_1`,
/// point loops starting at 0). Errors: no-band, not-perfectly-nested, bad-size.
Expected<isl::schedule> tileBand(const isl::schedule& s, const std::string& loop, const std::vector<std::int64_t>& sizes,
                                 std::string_view prim = "poly_tile");
/// Tiles every outermost band with the leading `sizes` (the sizes of its members).
Expected<isl::schedule> tileOutermostBands(const isl::schedule& s, const std::vector<std::int64_t>& sizes);
/// Reorders the members: new member i is old member permutation[i]. Errors: no-band,
/// not-perfectly-nested, bad-permutation.
Expected<isl::schedule> interchangeBand(const isl::schedule& s, const std::string& loop,
                                        const std::vector<std::int64_t>& permutation);
/// member := member + factor * by_member. Errors: no-band, not-perfectly-nested, bad-member, bad-factor.
Expected<isl::schedule> skewBand(const isl::schedule& s, const std::string& loop, std::int64_t member,
                                 std::int64_t byMember, std::int64_t factor);
/// Shifts `statement`'s instances by `offset` along the loop `member`. Errors: no-band,
/// no-statement, not-in-band.
Expected<isl::schedule> shiftStatement(const isl::schedule& s, const Scop& scop, const std::string& statement,
                                       const std::string& member, std::int64_t offset);
/// Fuses sibling loops (consecutive children of one sequence) into one loop.
/// Errors: no-band, too-few, not-siblings.
Expected<isl::schedule> fuseBands(const isl::schedule& s, const std::vector<std::string>& loops);
/// Distributes the loop over the children of the sequence below it. Errors: no-band, not-over-sequence.
Expected<isl::schedule> distributeBand(const isl::schedule& s, const std::string& loop);
/// Puts a mark ("parallel", "vectorized", "unroll") on member `member` of the band.
/// Errors: no-band, not-perfectly-nested, bad-kind.
Expected<isl::schedule> markMember(const isl::schedule& s, const std::string& loop, std::int64_t member,
                                   const std::string& kind);
// Node-level edits (poly_optimize builds its tree with them). Each returns the node at
// the position `band` had; they throw isl exceptions (or detail::IslError) on failure.

/// Tiles the band (tile members `<m>_0` over point members `<m>_1` starting at 0).
isl::schedule_node tileBandNode(const isl::schedule_node& band, const std::vector<std::int64_t>& sizes);
/// New member i is old member permutation[i]; the permutable flag, the coincident flags
/// (which follow their members) and the names are kept.
isl::schedule_node permuteBandNode(const isl::schedule_node& band, const std::vector<int>& permutation);
/// Puts the mark on member `member`: the band is split before it and the mark inserted
/// above the part that starts with it.
isl::schedule_node markBandMemberNode(const isl::schedule_node& band, int member, const std::string& mark);

/// AKG's post-tiling fusion: the instances of `producer` needed by the statements inside
/// loop `loop` are computed inside it (an extension node grafted before the loop's body;
/// tiles overlap where the footprint needs it), and removed from their old place.
/// Errors: no-band, no-statement, not-needed.
Expected<isl::schedule> computeAtTile(const isl::schedule& s, const Scop& scop, const std::string& producer,
                                      const std::string& loop);

} // namespace loopscape::poly
