// The isl scheduler and the `poly` family of schedule primitives (isl-free API for the
// app, the CLI and tests).
//
// poly_auto runs isl's scheduler on the dependences of the current program (validity =
// coincidence = RAW + WAR + WAW, proximity = RAW) and regenerates the PrimFunc from the
// schedule tree it returns (ast_to_tir.h). Options, as PPCG and AKG set them:
//   fusion "max": schedule_whole_component = 1, schedule_maximize_coincidence = 0
//                 (fuse whole connected components, AKG's default);
//   fusion "smart": schedule_whole_component = 0, schedule_maximize_coincidence = 1
//                 (isl's incremental clustering: SCCs are fused only where no
//                 coincident member is lost; PPCG's default, and much faster than
//                 "max" on the convolutions);
//   fusion "min": schedule_serialize_sccs = 1 (no fusion across SCCs, AKG's
//                 DisableLoopFusion);
//   outer_coincidence, maximize_band_depth: the isl options of these names;
//   algorithm "isl" (Pluto-like) or "feautrier";
//   simplify_deps (default True): the constraints are gisted against the domains first,
//                 as Polly does by default (-polly-opt-simplify-deps=yes). The relations
//                 only grow, so the schedule stays valid, and the ILP loses the Farkas
//                 constraints of the domain bounds: fusion max on conv_bias_relu takes 25
//                 ms instead of 155-235 ms, conv2d 17 instead of 120, matvec_chain 2.5
//                 instead of 76. Fusion smart and min compute the same trees either way
//                 on every sample; fusion max computes other (legal) trees, with more
//                 coincident members on the convolutions and softmax. False gives PPCG's
//                 exact constraints (and isl's result on them). Should the simplified
//                 constraints admit no schedule, the exact ones are used;
//   always: schedule coefficients and constant terms bounded by 20 (Polly's defaults:
//   without the bound, fusion max "fused" matvec_chain at N = 512 by shifting one nest
//   by the other's whole extent, after 24 s in the ILP). With small extents such a shift
//   stays within the bound, so fusion max still skews small chains (the matvec_chain
//   golden at N = 6).
// The computation is bounded (isl max_operations); exceeding it is the Diagnostic
// "poly.quota".
//
// The poly primitives (registered by registerPolyInstructionKinds) are Loopscape-only:
// TVM's tir.Schedule has no such methods. Each one extracts the Scop of the current
// program (or takes it, with its dependences, from the thread's cached analysis of that
// program: program_analysis.h), edits its schedule tree (tree_transform.h), regenerates the PrimFunc and
// checks it against the dependences of the ORIGINAL program (legality.h); an illegal result is
// refused as "schedule.<primitive>.illegal" with the counterexample. Arguments are
// literals (loop names, block names, integers), so traces stay readable and replay:
//   sch.poly_auto(fusion="max", outer_coincidence=False, maximize_band_depth=True, algorithm="isl", tile=[],
//                 simplify_deps=True, target="cpu")   (target="gpu": gpu_mapping.h)
//   sch.poly_tile(band="i", sizes=[32, 32])
//   sch.poly_interchange(band="i", permutation=[1, 0])
//   sch.poly_skew(band="t", member=1, by_member=0, factor=1)
//   sch.poly_shift(statement="B", member="i", offset=1)
//   sch.poly_fuse("i", "i_1")            (sibling loops, positionally)
//   sch.poly_distribute(band="i")
//   sch.poly_mark(band="i", member=0, kind="parallel")
//   sch.poly_compute_at_tile(block="B", loop="i_0")
// A band is the band whose first member is the named loop in the current program
// (extended with the loops perfectly nested below it when more members are needed);
// `"i@C"` names the band of loop i that runs block C, for sibling nests that share loop
// names (the first in program order is taken otherwise).
//
// There is no poly_split_band: the program (the PrimFunc) is the state, and every step
// re-extracts the schedule tree from its loops, one band per loop. A band split only
// changes how members are grouped into bands, which code generation cannot show (a band
// of n members and n nested one-member bands generate the same loops), and the grouping
// is lost at the next step. The primitives that work on a sub-band (poly_tile,
// poly_interchange, poly_skew, poly_mark) take the loop that starts it and a member
// count, which is what a split would have selected.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::schedule {
class Schedule;
}

namespace loopscape::poly {

/// poly_auto's name in traces (the instruction table's Python name); the CLI's `compare`
/// takes it as a side.
inline constexpr const char* kPolyAutoName = "poly_auto";

struct PolyAutoOptions {
  std::string fusion = "max"; ///< "max", "smart" or "min"
  bool outerCoincidence = false;
  bool maximizeBandDepth = true;
  std::string algorithm = "isl"; ///< "isl" or "feautrier"
  /// Tile sizes for the outermost bands of the computed schedule (PPCG's --tile): each
  /// outermost band is tiled with its leading sizes; empty: no tiling.
  std::vector<std::int64_t> tile;
  /// Polly's dependence simplification (-polly-opt-simplify-deps, on by default there):
  /// validity, coincidence and proximity are gisted against the statement domains before
  /// scheduling. Sound (each relation only grows, so the schedule respects more pairs than
  /// the program has), and the ILP gets far fewer Farkas constraints. false: the exact
  /// dependences, as PPCG passes them.
  bool simplifyDependences = true;
  /// Bound on isl operations for the scheduler (0: the default bound).
  unsigned long maxOperations = 0;
  /// "cpu": the schedule as computed; "gpu": PPCG's mapping (gpu_mapping.h): each outermost
  /// band tiled (`tile`: leading sizes, 32 by default), its coincident tile and point loops
  /// bound to blockIdx / threadIdx, reused input tiles promoted to shared memory.
  std::string target = "cpu";
};

/// Runs the isl scheduler and regenerates `func`. Errors: "schedule.poly_auto.bad-option",
/// "poly.quota", "poly.non-affine", "poly.isl", "poly.codegen"; with target "gpu" also
/// "schedule.poly_auto.no-coincident-member", "schedule.poly_auto.no-band" (gpu_mapping.h).
Expected<ir::PrimFunc> polyAuto(const ir::PrimFunc& func, const PolyAutoOptions& options);

/// The program regenerated from its own (identity) schedule tree.
Expected<ir::PrimFunc> regenerateIdentity(const ir::PrimFunc& func);

/// Registers the poly instruction kinds in the schedule registry (idempotent).
void registerPolyInstructionKinds();

// Typed entry points of the poly primitives (they register the kinds first). Each applies
// its instruction through Schedule::apply, so the trace records `sch.poly_tile(band="i",
// sizes=[32, 32])` exactly as applying it by name does, and a refused step changes nothing.

/// poly_auto with `options` (maxOperations is not an attribute of the instruction: the
/// step runs under the default bound).
Expected<void> polyAuto(schedule::Schedule& sch, const PolyAutoOptions& options);
Expected<void> polyTile(schedule::Schedule& sch, std::string_view band, const std::vector<std::int64_t>& sizes);
Expected<void> polyInterchange(schedule::Schedule& sch, std::string_view band,
                               const std::vector<std::int64_t>& permutation);
Expected<void> polySkew(schedule::Schedule& sch, std::string_view band, std::int64_t member, std::int64_t byMember,
                        std::int64_t factor);
Expected<void> polyShift(schedule::Schedule& sch, std::string_view statement, std::string_view member,
                         std::int64_t offset);
/// Fuses sibling loops, named in program order.
Expected<void> polyFuse(schedule::Schedule& sch, const std::vector<std::string>& loops);
Expected<void> polyDistribute(schedule::Schedule& sch, std::string_view band);
/// `kind`: "parallel", "vectorized" or "unroll".
Expected<void> polyMark(schedule::Schedule& sch, std::string_view band, std::int64_t member, std::string_view kind);
Expected<void> polyComputeAtTile(schedule::Schedule& sch, std::string_view block, std::string_view loop);

} // namespace loopscape::poly
