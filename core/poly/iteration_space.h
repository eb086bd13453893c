// The model behind the iteration-space view (issue 19): the instances of one statement of a
// program state in a two-dimensional slice of its iteration domain, with their execution
// order, their dependence wavefronts, the dependences between them as arrows and the
// tiles they fall into; and where a legality counterexample lies in such a slice. Plain,
// isl-free structs: the GUI view and the CLI draw them, core/poly computes them with isl
// (every instance is a point of an isl set, enumerated with isl_set_foreach_point; nothing
// is interpreted).
//
// Axes. Each axis is a loop around the statement (by name, `t`, `i_1`, or by position,
// `0` = outermost) or one of its block iterators (`v_i`): an iterator axis follows the
// original coordinate through split, tile and fuse, so a tiled loop nest is seen in the
// coordinates of the untiled one with its tiles outlined. The loops an axis depends on
// (the loop itself, or every loop the iterator's binding involves) are the slice's free
// loops; every other loop is fixed: at the value the request gives, else at its lowest
// value in the domain given the loops fixed outside it (in loop order).
//
// Sizes. Symbolic sizes (isl parameters of the Scop) must be bound to values
// (`sizes`, as the CLI's --shape); an unbound one is an error naming it.
//
// Order and wavefronts. `order` is the rank (0, 1, ...) of an instance among the slice's
// instances in the execution order of the ordering state (the state itself, or another
// state given to preview a step): the lexicographic order of the ordering state's
// schedule (Scop::scheduleMap) at the instance's first execution, instances matched
// across states by statement and block iterator values (the identity legality.h uses).
// `wavefront` is defined from the dependences, not from the loop kinds: the length of the
// longest chain of dependences (RAW, WAR or WAW arrows of this slice) that ends at the
// instance, so instances with equal wavefronts have no dependence path between them in the
// slice and may run at the same time. This is what a parallel loop or a skewed wavefront
// schedule can exploit, whatever the current marks say (a loop marked parallel is checked
// by legality.h); dependence chains through instances outside the slice (other statements,
// other fixed values) are not seen. `parallelStep` is what the ordering state's marks
// give: the rank of the instance's first execution once the loops marked parallel,
// vectorized or thread-bound are dropped from its loop vector (instances with one step
// run at the same time under the current marks); it equals `order` when nothing is marked.
//
// Cap. A slice with more than `maxInstances` instances is cut to its first
// `maxInstances` instances in the loop order of the state (its execution order), and
// `truncated` and `message` say so.
//
// Tiles. When an axis is a block iterator bound by several loops (v_i = i_0 * 4 + i_1),
// the free loops other than each axis' innermost loop (i_0; t_0 and i_0 for a tiled
// skewed band, where v_i involves t_0, i_0, t_1, i_1) are tile loops: instances with
// equal tile-loop values form one tile, drawn as its bounding box on the two axes.
//
// Threads. The functions run on any thread (each uses its thread's isl context and the
// thread's cached analysis of the states, program_analysis.h); the results are plain
// values that can be handed to the GUI thread. A view computes them in a background job
// with a generation id and a stop token.
#pragma once

#include "core/ir/counterexample.h"
#include "core/ir/diagnostic.h"
#include "core/ir/interpreter.h"
#include "core/schedule/program_state.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::poly {

struct IterationSpaceRequest {
  /// The statement: a block name (its update when it has an init) or `<block>_init`.
  std::string block;
  /// The two axes: a loop name, a loop position (`0`: outermost loop around the block) or
  /// a block iterator name. They must differ.
  std::string dimX, dimY;
  /// Values of loops that are not free (by loop name); the others take their lowest value.
  std::map<std::string, std::int64_t> fixed;
  /// Values of the symbolic sizes (every size the statement's domain uses must be bound).
  ir::SizeBindings sizes;
  std::size_t maxInstances = 4096;
  /// At most this many arrows (an over-approximated dependence can relate every pair).
  std::size_t maxArrows = 32768;
  /// When set, the loops that are neither axes nor in `fixed` take the values of this
  /// instance's first execution (a counterexample's source), so the slice shows it.
  std::optional<StatementInstance> showInstance;
};

/// One statement instance in the slice.
struct SpaceInstance {
  std::int64_t x = 0, y = 0;           ///< coordinates on the two axes
  std::vector<std::int64_t> loops;     ///< every loop value, IterationSpace::loops order
  std::vector<std::int64_t> iterators; ///< block iterator values, IterationSpace::iterators order
  std::int64_t order = 0;              ///< rank in the ordering state's execution order
  std::int64_t wavefront = 0;          ///< longest dependence chain (in the slice) ending here
  std::int64_t parallelStep = 0;       ///< rank of its time step under the ordering state's marks
};

/// A dependence between two instances of the slice (indices into IterationSpace::instances).
struct SpaceArrow {
  int source = -1, sink = -1;
  std::string kind;   ///< "RAW", "WAR", "WAW"
  std::string buffer; ///< the buffer's isl tuple name
};

/// The instances with the same values of the tile loops, and their bounding box.
struct SpaceTile {
  std::vector<std::int64_t> key; ///< values of IterationSpace::tileLoops
  std::int64_t xMin = 0, xMax = 0, yMin = 0, yMax = 0;
  std::vector<int> instances; ///< indices into IterationSpace::instances
};

struct IterationSpace {
  std::string statement;              ///< the statement (block, or `<block>_init`)
  std::string block;                  ///< its block
  std::vector<std::string> loops;     ///< loops around it, outermost first
  std::vector<std::string> iterators; ///< its block iterators
  std::string xName, yName;           ///< the axes (loop or iterator names)
  /// Per loop: whether an axis depends on it (free), else the value it is fixed at.
  std::vector<bool> free;
  std::vector<std::int64_t> fixedValues; ///< per loop (0 for a free loop)
  /// Loops whose values split the instances into tiles: the free loops but each axis'
  /// innermost one (i_0 for v_i = i_0 * 4 + i_1). Empty: no tiles.
  std::vector<std::string> tileLoops;
  /// Instances in execution order (instances[k].order == k).
  std::vector<SpaceInstance> instances;
  std::vector<SpaceArrow> arrows;                        ///< per kind and buffer, then in source, sink order
  std::vector<SpaceTile> tiles;                          ///< in order of their first instance
  std::int64_t xMin = 0, xMax = -1, yMin = 0, yMax = -1; ///< bounds of the instances (empty: max < min)
  std::int64_t wavefronts = 0;                           ///< number of distinct wavefront levels
  std::int64_t parallelSteps = 0;                        ///< number of distinct parallel steps
  bool truncated = false;
  bool arrowsTruncated = false; ///< more dependences than maxArrows (the first ones kept)
  std::string message;          ///< why the slice is truncated or empty; empty otherwise
  ir::SizeBindings sizes;       ///< the size bindings it was computed with

  /// Index of the instance with these loop values, or -1.
  int findInstance(const std::vector<std::int64_t>& loops) const;
};

/// The slice of `state` described by `request`, ordered by `state`'s schedule, or by
/// `orderedBy`'s (a later state: the preview of a step) when given. Errors:
/// "space.unknown-block", "space.unknown-dimension" (names the block, the dimension and
/// the loops it could be), "space.same-dimension", "space.unknown-loop" (a fixed loop that
/// is not around the block), "space.not-free" (a fixed value for an axis' loop),
/// "space.unbound-size" (names the size), "space.unbounded", "space.other-statement" and
/// "space.not-executed" (`showInstance`), "space.not-in-order" (an
/// instance that `orderedBy` does not execute), those of the analysis ("poly.non-affine",
/// ...), "poly.isl", "cancelled".
/// A stop requested on `stop` (from any thread) ends the computation with "cancelled".
Expected<IterationSpace> iterationSpace(const schedule::ProgramState& state, const IterationSpaceRequest& request,
                                        const schedule::ProgramState* orderedBy = nullptr, std::stop_token stop = {});

/// One instance of a counterexample placed in a slice.
struct PlacedInstance {
  StatementInstance instance;
  bool inSlice = false;            ///< it is one of the slice's instances
  int index = -1;                  ///< into IterationSpace::instances when shown
  std::vector<std::int64_t> loops; ///< its loop values in the slice's state (first execution)
  /// When not in the slice: the fixed values that would show it (`t=1`), or why it cannot
  /// be shown (another statement, cut by the cap, not executed).
  std::string hint;
};

struct PlacedCounterexample {
  PlacedInstance source, sink;
  int arrow = -1;      ///< the slice's arrow of this dependence (kind, pair), -1 if not shown
  std::string message; ///< one line: where both are, or what to fix to see them
};

/// Places the counterexample of a refused step (legality.h, taken in `state`, the state
/// before the step) in `space` (a slice of `state`). Errors: "poly.isl", those of the
/// analysis.
Expected<PlacedCounterexample> placeCounterexample(const schedule::ProgramState& state, const IterationSpace& space,
                                                   const Counterexample& counterexample);

/// The slice as text (the CLI's `print --format space`): a header line, the execution
/// order and the wavefronts as grids (columns: x, rows: y; `.` where the slice has no
/// instance), the parallel steps when loops are marked, every arrow as
/// `RAW A: (x, y) -> (x, y)`, the tiles with their boxes, and the message. With a placed
/// counterexample: its message, a grid with its source `S` and sink `T` among the other
/// instances (`o`), and its arrow marked `(violated)`.
std::string renderIterationSpace(const IterationSpace& space, const PlacedCounterexample* counterexample = nullptr);

/// The slice as a standalone SVG picture: x to the right, y downwards, one dot per
/// instance coloured by its wavefront and labelled with its execution order, dependence
/// arrows (RAW grey, WAR blue, WAW green; the counterexample's red, its pair ringed red),
/// tiles as dashed boxes, the axes' values along the top and left. A slice too large to
/// draw (as for the text grids) gives a picture with the reason.
std::string renderIterationSpaceSvg(const IterationSpace& space, const PlacedCounterexample* counterexample = nullptr);

} // namespace loopscape::poly
