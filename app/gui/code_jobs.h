// Generating code for the code view: the target plugins the workbench can use and the
// generated source (C, LLVM IR, assembly ...) of a program for one of them. Plain C++
// run inside background jobs, through the codegen pipeline (core/codegen/pipeline.h):
// the process-wide plugin registry and its per-target lock.
#pragma once

#include "core/ir/prim_func.h"
#include "views/code_view.h"

#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::gui {

/// Every plugin found, usable or not (scans on first use).
std::vector<views::TargetEntry> availableTargets();

struct CodeResult {
  bool ok = false;
  std::string text;   ///< the code, or the rendered error
  std::string status; ///< one line for the view
  views::CodeMap map; ///< the text's format and the lines each loop of `func` produced
};

/// Lowers `func` for `target` and asks the plugin for `format`, with the lines each loop
/// produced when the plugin maps them (codegen::SourceMap; keyed by the loops' Vars, which
/// are `func`'s own).
CodeResult generateCode(const ir::PrimFunc& func, const std::string& target, const std::string& format,
                        std::stop_token stop);

} // namespace loopscape::gui
