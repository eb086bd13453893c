// Shared by the compiled-model tests: the build tree's worker and plugins, a model from
// the source tree, and one compile-run-verify round with its checks (QtTest macros).
#pragma once

#include "core/graph/compiled_model.h"

#include <QString>

namespace graphtest {

/// The worker and plugins of this build tree (LS_WORKER_PATH, LS_RUN_PLUGIN_DIR).
void useBuildTree();
/// `file` (relative to the source tree) loaded; a failure is fatal.
loopscape::graph::Model load(const char* file, const loopscape::graph::ModelLoadOptions& options = {});
loopscape::graph::CompileOptions compileOptions(const char* target, const QString& cacheDir);
/// Compiles `file` with `schedule` through `target`, runs it, checks the outputs against
/// the whole model interpreted (when `interpretWholeModel`) and verifies every group.
void runAndCheck(const char* file, const char* target, const char* schedule, const QString& cacheDir,
                 double interpretLimit, bool interpretWholeModel,
                 const loopscape::graph::ModelLoadOptions& options = {});

} // namespace graphtest
