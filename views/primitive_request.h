// PrimitiveRequest: what the primitive panel asks the session to apply. Inputs name IR
// nodes of the snapshot the request was built against (loops and blocks by node
// identity), or literal trace values; the session turns nodes into trace RVs (reusing an
// RV that already refers to the node, else adding get_block / get_loops lookups) and
// applies the instruction to a copy of its schedule.
#pragma once

#include "core/schedule/trace.h"
#include "views/program_snapshot.h"

#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace loopscape::views {

struct RequestArg {
  /// A literal value, one IR node (loop or block), or a list of nodes.
  std::variant<schedule::TraceValue, const ir::StmtNode*, std::vector<const ir::StmtNode*>> value;
};

struct PrimitiveRequest {
  std::string kind;                 ///< instruction kind, Python name ("split")
  std::vector<RequestArg> inputs;   ///< in the kind's input order
  std::vector<schedule::TraceValue> attrs; ///< in the kind's attribute order
  std::shared_ptr<const ProgramSnapshot> snapshot; ///< the state the nodes belong to
};

/// The factors of a split written as "None, 32" or "[8, None, 4]": ints and at most
/// anything the user typed; None entries stay None. Error text for a malformed list.
std::variant<schedule::TraceList, std::string> parseFactorList(const std::string& text);
/// What a split of a loop of `extent` by `factors` gives: the factors with None
/// replaced by the inferred value, as text ("[32, 32]"), plus a note when the product
/// exceeds the extent (a predicate guards the tail). Empty when it cannot be inferred.
std::string describeSplit(std::optional<std::int64_t> extent, const schedule::TraceList& factors);
/// A Python literal typed in a form: None, True/False, ints, floats, quoted or bare strings.
schedule::TraceValue parseLiteral(const std::string& text);

} // namespace loopscape::views
