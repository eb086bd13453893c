// A model compiled group by group through one target plugin: each group scheduled as the
// model schedule says (group_schedule.h), lowered and built by codegen::Pipeline, its
// shared library kept in the kernel cache (kernel_cache.h). Groups that are structurally
// the same (TVM's _1, _2 copies) are scheduled and built once. Progress is reported per
// group and a stop request ends the compilation between (and inside) builds.
#pragma once

#include "core/codegen/target.h"
#include "core/graph/graph_plan.h"
#include "core/graph/group_schedule.h"
#include "core/graph/kernel_cache.h"
#include "core/graph/model_schedule.h"

#include <functional>
#include <memory>
#include <stop_token>

namespace loopscape::graph {

struct CompileProgress {
  std::size_t done = 0, total = 0; ///< groups finished / all groups
  std::string group;               ///< the group just finished
  bool cached = false;             ///< its kernel came from the cache
};

struct CompileOptions {
  std::string target = "cpu-llvm";
  int threads = 0; ///< 0: all cores
  bool fastMath = false;
  bool checkLegality = true;
  std::string cacheDir; ///< empty: KernelCache::defaultDir()
  bool useCache = true;
  std::function<void(const CompileProgress&)> progress;
  std::stop_token stop;
};

struct CompiledGroup {
  std::size_t group = 0; ///< into Model::groups
  ScheduledGroup scheduled;
  std::string library, symbol; ///< the kernel's C-ABI function
  bool fromCache = false;
  double seconds = 0; ///< scheduling + building (0 from the cache)
  /// The built kernel when its library could not be cached (its file lives as long as it).
  std::shared_ptr<codegen::Kernel> keepAlive;
};

struct CompiledModel {
  std::string target;
  int threads = 0;
  GraphPlan plan;                    ///< with storage reuse
  std::vector<CompiledGroup> groups; ///< one per Model::groups entry
  std::size_t cacheHits = 0;
};

/// Compiles every group of `model`. Errors name the group ("graph.group-schedule",
/// "graph.group-build") or are codegen's (target not found, cancelled).
Expected<CompiledModel> compileModel(const Model& model, const ModelSchedule& schedule, const CompileOptions& options);

} // namespace loopscape::graph
