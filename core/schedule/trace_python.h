// The Python form of a Trace, as TVM's Trace.as_python() writes it: a script that is
// valid TVM when pasted after `sch = tvm.tir.Schedule(mod)`. The first line is the
// comment `# from tvm import tir`, then one statement per instruction:
//
//   b0 = sch.get_block(name="C", func_name="main")
//   l1, l2, l3 = sch.get_loops(block=b0)
//   l4, l5 = sch.split(loop=l1, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)
//   sch.reorder(l4, l2, l5)
//
// RVs print as their kind prefix (b block, l loop, v sampled integer) followed by their
// trace id (creation index). Arguments are keyword arguments named by the instruction
// kind's input names and attributes, every attribute printed (defaults included);
// variadic kinds pass their inputs positionally. A single output of a variadic-output
// kind keeps a trailing comma (`l1, = sch.get_loops(block=b0)`); instructions without
// outputs are bare calls; sampling instructions end with `decision=...`. The text reads
// back through applyScript (trace_script.h) to the same trace.
#pragma once

#include "core/schedule/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace loopscape::schedule {

/// One argument of a kind's Python signature: an input (index into the instruction's
/// inputs) or an attribute (index into its attrs), and for inputs the default value
/// when the argument may be left out.
struct PythonArgument {
  std::string_view name;
  bool isInput = true;
  std::size_t index = 0;
  std::optional<TraceValue> inputDefault; ///< optional inputs only (cache_read's consumer_blocks)
};

/// The arguments of a non-variadic kind in the order of TVM's Python signature. This is
/// the kind's inputs followed by its attributes, or its `pythonOrder` where TVM
/// interleaves them (annotate(block_or_loop, ann_key, ann_val)); an optional input
/// (InputSpec::optional, cache_read's consumer_blocks) defaults to None. Printing and
/// positional arguments of scripts both follow this order.
std::vector<PythonArgument> pythonSignature(const InstructionKind& kind);

/// `b0`, `l1`, `v2`.
std::string rvName(const RV& rv);
/// A value as a Python expression: None, True/False, ints, floats as Python's repr
/// (`1.0`, `1e-05`), double-quoted strings, RV names, `[a, b]` lists, index maps as
/// `lambda i, j: (i // 16, j, i % 16)`.
std::string pythonValue(const TraceValue& value);
/// `lambda i, j: (i // 16, j, i % 16)`; a single result keeps the tuple comma (`(i,)`).
std::string indexMapToPython(const IndexMap& map);
/// One instruction as a Python statement (no trailing newline).
std::string instructionToPython(const Instruction& inst);
/// The whole trace: `# from tvm import tir` and one line per instruction, each ending
/// with '\n'.
std::string traceToPython(const Trace& trace);

/// The index of the first instruction TVM's tir.Schedule cannot replay (a poly_* step:
/// Loopscape's own polyhedral primitives), or nullopt when TVM can replay the whole trace.
std::optional<std::size_t> firstNonTvmInstruction(const Trace& trace);

/// traceToPython of what TVM can replay: the instructions before the first poly_* step,
/// then a comment saying which steps were left out ("# left out: 3 instructions from
/// sch.poly_tile(...) on are Loopscape's polyhedral primitives, not tir.Schedule methods").
/// The whole trace when TVM can replay all of it.
std::string tvmReplayablePython(const Trace& trace);

} // namespace loopscape::schedule
