// The JSON form of a Trace: the canonical file format (sessions, tuning records,
// `loopscape-cli --trace T.json`), close to TVM's Trace.as_json():
//
//   [
//     [
//       ["GetBlock", [], ["C", "main"], ["b0"]],
//       ["GetLoops", ["b0"], [], ["l1", "l2", "l3"]],
//       ["Split", ["l1", [null, 32]], [true, false], ["l4", "l5"]],
//       ["SamplePerfectTile", ["l2"], [2, 16], ["v6", "v7"]]
//     ],
//     [
//       [3, [4, 8]]
//     ]
//   ]
//
// The document is `[instructions, decisions]`. Each instruction is `[kind, inputs, attrs,
// outputs]`: `kind` the instruction's JSON name (instruction.h); `outputs` the names of
// the RVs it defines (b = block, l = loop, v = sampled integer, followed by the RV id);
// `attrs` the attribute values in the kind's order (trailing ones may be left out and
// take their defaults). Values: null = None, true/false, integers, floats (always with a
// '.' or an exponent), strings, arrays = lists, and an index map as the object
// `{"index_map": "lambda i, j: (i // 16, j, i % 16)"}` (its Python text). Inside
// `inputs`, a string is an RV name (it must be defined by an earlier instruction) and a
// string literal is written with its Python quotes, `"\"shared\""`, as TVM does. Each
// decision is `[instruction index, value]` for a sampling instruction. The text is
// printed with one instruction and one decision per line.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/schedule/schedule.h"

#include <string>
#include <string_view>

namespace loopscape::schedule {

/// The trace as JSON text (ends with '\n').
std::string traceToJson(const Trace& trace);

/// Parses a JSON trace. Errors ("trace.json-syntax", "trace.json-malformed",
/// "trace.json-too-deep" for arrays nested deeper than ir::resourceLimits().maxNestingDepth,
/// "trace.json-number" for a number beyond a double's range, "trace.unknown-kind",
/// "trace.undefined-rv") carry the file and, where known, the line and column; messages
/// name the instruction by index and kind. No exception of the JSON library escapes.
Expected<Trace> traceFromJson(std::string_view text, const std::string& fileName);

/// Parses a JSON trace and applies it to `sch` instruction by instruction (recorded
/// decisions are reused). A refused instruction returns the schedule's Diagnostic with
/// its location set to that instruction's line in the file; `sch` is left as it was
/// before that instruction.
Expected<void> applyJsonTrace(Schedule& sch, std::string_view text, const std::string& fileName);

} // namespace loopscape::schedule
