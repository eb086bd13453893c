// Marks the TVMScript reader leaves in the IR for spellings the IR has no node for, so
// that the printer writes the program back as it was written.
#pragma once

namespace loopscape::ir {

/// On the root block the reader wraps around a function body without blocks (a lowered
/// kernel): TVM's function has no root block there, and the printer writes none.
inline constexpr const char* kNoRootAnnotation = "tir.script_no_root";

} // namespace loopscape::ir
