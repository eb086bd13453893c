// Exporting a kernel from the workbench (File → Export kernel…): what `loopscape-cli
// export` does (core/codegen/export.h through the pipeline) for the current program, as
// plain C++ run inside a background job. A target that produces no C source (cpu-llvm,
// cuda) exports through cpu-c instead, and the result says so.
#pragma once

#include "core/ir/prim_func.h"

#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::gui {

struct KernelExportResult {
  bool ok = false;
  std::string target;             ///< the target that exported (may differ from the one asked for)
  std::string message;            ///< one line: what was written where, or why not
  std::vector<std::string> files; ///< full paths written, when ok
  std::string code;               ///< the diagnostic's code, when not ok
  std::string detail;             ///< the rendered diagnostic, when not ok
};

/// Lowers `func` for `target` and writes the export directory `dir` (created if missing);
/// `origin` is the README's and header's line naming where the kernel came from.
KernelExportResult exportKernelFiles(const ir::PrimFunc& func, const std::string& target, const std::string& dir,
                                     const std::string& origin, std::stop_token stop);

} // namespace loopscape::gui
