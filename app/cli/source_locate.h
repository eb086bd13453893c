// Where in a .te program a failure of the interpreter happened. The IR keeps no source
// positions, so the failure's block (named after its compute) and buffer are looked up in
// the program's syntax tree: the access `NAME[...]` of that buffer inside that compute, the
// integer division or modulo inside it, or else the compute(...) call itself.
#pragma once

#include "core/ir/diagnostic.h"

#include <string>
#include <string_view>

namespace loopscape::cli {

/// Codes of interpreter failures that are the program's fault (an out-of-bounds access,
/// a division by zero, an out-of-range cast, a size beyond the limits): bad input.
bool isProgramFault(const Diagnostic& d);

/// The location in `source` (the .te file `path`) of the access, division or compute
/// that `d` (an interpreter diagnostic naming a block and maybe a buffer) is about;
/// invalid when the program does not parse or names no such block.
SourceLocation locateFault(std::string_view source, const std::string& path, const Diagnostic& d);

} // namespace loopscape::cli
