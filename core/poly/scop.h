// Scop: the polyhedral model of one PrimFunc, in PPCG's sense (ppcg_scop): the statement
// instances (iteration domains), what each instance reads and writes (access relations),
// and the original execution order as an isl schedule tree that follows the loop nest.
//
// Statements. Every block whose body holds no other block is a statement named after the
// block. A block with an init (a reduction) gives two statements: `<block>_init`, run
// when every reduce iterator is at the minimum of its domain, placed before `<block>` (the
// update) in a sequence below the innermost loop. A block that contains other blocks
// (the root, blockize's outer blocks) is a scope: its iterators are substituted into the
// bindings of the blocks inside it; its init, if any, is a statement `<block>_init`.
//
// Spaces. A statement's domain lives in `[params] -> { S[l0, ..., ln] }` where l0..ln are
// the loops enclosing it, outermost first, with the loops' own names as dimension ids
// (a loop nested in a loop of the same name gets `_1` as the printer does). Block
// iterators are affine or quasi-affine functions of these loops (`iterValues`); floordiv
// and floormod by constants (split, fuse) become isl integer divisions (existentially
// quantified variables). Symbolic sizes (size Vars of the buffer shapes and any other
// free integer Var) are isl parameters, assumed >= 1 in `context`.
//
// Exactness. A data-dependent index (a BufferLoad inside an index) or another
// non-affine index is over-approximated by the whole extent of that buffer dimension; a
// non-affine condition (block predicate, if/select in the body) is dropped, and the
// writes it guards become may-writes. Each such case is one entry of `approximations`.
// A non-affine loop bound or block binding cannot be over-approximated soundly and makes
// `extractScop` fail with the Diagnostic "poly.non-affine" naming the block and the
// expression. Buffers allocated per block instance are modelled as one array (their
// dependences are over-approximated).
//
// This header exposes isl types: it is for core/poly and its tests. The app and views
// use the isl-free descriptions (tree_description.h, report.h, legality.h).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/prim_func.h"

#include <isl/cpp.h>

#include <map>
#include <string>
#include <vector>

namespace loopscape::poly {

/// One For node of the program, in pre-order (program order).
struct ScopLoop {
  std::string name;   ///< isl dimension id of this loop in every domain below it, and the band member id
  ir::Stmt loop;      ///< the For node
  int parent = -1;    ///< index of the enclosing loop in Scop::loops, -1 at the outermost level
  int depth = 0;      ///< number of enclosing loops
  std::vector<int> statements; ///< indices of the statements executed inside this loop
};

/// One polyhedral statement: the instances of a block (or of its init).
struct ScopStatement {
  std::string name;      ///< isl tuple name: the block name, or `<block>_init`
  std::string blockName; ///< the block it comes from
  bool isInit = false;   ///< the reduction init of `blockName`
  ir::Stmt block;        ///< the Block node
  ir::Stmt realize;      ///< its BlockRealize (bindings and predicate)
  std::vector<int> loops; ///< enclosing loops (indices into Scop::loops), outermost first = domain dims
  /// The iterators that identify an instance across schedules: every block iterator for
  /// the update, the spatial ones for an init (the reduce ones are at their minimum).
  std::vector<ir::IterVar> iterators;
  /// [params] -> { name[loops] : loop bounds, block predicate, bindings within the
  /// iterator domains, reduce iterators at their minimum for an init }.
  isl::set domain;
  /// { name[loops] -> name[iterators] } on `domain`: the block iterator values of each
  /// instance (affine or quasi-affine), the stable identity of an instance.
  isl::multi_pw_aff iterValues;
  /// { name[loops] -> Buffer[indices] } on `domain`.
  isl::union_map reads;
  isl::union_map mustWrites; ///< element written by every instance of the domain
  isl::union_map mayWrites;  ///< writes under conditions or approximations (disjoint from the must ones)
  bool exact = true;         ///< no approximation was needed for this statement
};

/// What could not be represented exactly, and how it was over-approximated.
struct ScopApproximation {
  std::string statement;  ///< statement name
  std::string expression; ///< the expression as printed
  std::string what;       ///< e.g. "data-dependent index of buffer 'B' (dimension 0): whole extent"
};

struct Scop {
  std::string funcName;
  std::vector<std::string> params; ///< isl parameter names (symbolic sizes), in order of appearance
  isl::set context;                ///< [params] -> { : every param >= 1 }
  std::vector<ScopLoop> loops;     ///< every loop, pre-order
  std::vector<ScopStatement> statements; ///< program order (an init before its update)
  /// isl tuple name of each buffer (its name, `_1`... when two buffers share one) -> buffer.
  std::map<std::string, ir::Buffer> buffers;

  isl::union_set domain;       ///< union of the statement domains
  isl::union_map reads;        ///< union of the statement reads
  isl::union_map mustWrites;   ///< union of the statement must-writes
  isl::union_map mayWrites;    ///< every write, must and may (PPCG's may_writes)
  isl::union_map instances;    ///< union of the statements' `iterValues` as maps
  /// The original order: a band per loop (one member named like the loop, partial schedule
  /// { S[...] -> [loop] }), a sequence (filters) for sibling loops/blocks and for an init
  /// before its update, and a mark above the band of each non-serial loop: "parallel",
  /// "vectorized", "unroll" or "thread_binding(<tag>)".
  isl::schedule schedule;
  std::vector<ScopApproximation> approximations;

  /// The statement named `name`, or null.
  const ScopStatement* findStatement(std::string_view name) const;
  /// The isl tuple name of a buffer of the program (empty if unknown).
  std::string bufferTuple(const ir::Buffer& buffer) const;
  /// The schedule as a flat union map (isl_schedule_get_map), every range padded to one dimension.
  isl::union_map scheduleMap() const;
};

/// What extractScop builds: everything, or the structure alone (loops, statements with
/// their domains and iterator values, the schedule tree), without the access relations
/// (reads and writes stay empty, and so do the approximations of accesses). The structure
/// is what a legality check needs of the CURRENT program and what the tree view shows; on
/// tiled programs the accesses, intersected with domains bounded by min/max, are the most
/// expensive part of the extraction.
enum class ScopContent { Full, Structure };

/// Builds the Scop of `func`. Errors: "poly.non-affine" (a loop bound or block binding
/// that is not quasi-affine; names the block and the expression), "poly.unsupported"
/// (a statement shape this model does not know), "poly.isl" (isl failed).
Expected<Scop> extractScop(const ir::PrimFunc& func, ScopContent content = ScopContent::Full);

} // namespace loopscape::poly
