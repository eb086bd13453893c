// A Relay model ready to compile: the file parsed and type-checked, its constants given
// values, the graph passes run, FuseOps' groups lowered to PrimFuncs, and the static
// memory plan. Every group is an ordinary PrimFunc (the workbench, the tuner and the
// codegen pipeline work on it unchanged); `GraphPlan` (graph_plan.h) says which tensors
// each group reads and writes.
#pragma once

#include "core/frontend/relay/relay_fuse.h"
#include "core/frontend/relay/relay_memory.h"
#include "core/frontend/relay/relay_passes.h"
#include "core/ir/ndarray.h"
#include "core/ir/prim_func.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace loopscape::graph {

/// One fused group with an operator call (tuple-only groups are not lowered).
struct ModelGroup {
  std::size_t index = 0;  ///< among the lowered groups (`relay groups` numbering)
  std::string name;       ///< tvmgen_default_fused_...; unique in the model
  std::string pattern;    ///< OpPattern name of the group ("out_elemwise_fusable", ...)
  std::string ops;        ///< the member ops, producers first: "nn.conv2d add nn.relu"
  std::string outputType; ///< "Tensor[(1, 64, 56, 56), float32]"
  ir::PrimFunc func;      ///< the group lowered (te.create_prim_func)
  std::int64_t flops = 0;
  std::string workload;                               ///< tune::workloadKey(func): tuning records
  const frontend::relay::FusedGroup* fused = nullptr; ///< into Model::fusion
};

/// Move-only: the groups point into `fusion`.
struct Model {
  Model() = default;
  Model(Model&&) = default;
  Model& operator=(Model&&) = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  std::string path;                ///< the .relay file
  std::string source;              ///< its text (diagnostics render against it)
  frontend::relay::Module module;  ///< after the passes; constants have values
  std::size_t sourceConstants = 0; ///< meta constants of the file (folding appends more)
  frontend::relay::FusionResult fusion;
  frontend::relay::MemoryPlan plan;
  std::vector<ModelGroup> groups;
  const frontend::relay::Function& main() const { return module.functions.front(); }
  /// The group named `name`, or null.
  const ModelGroup* group(std::string_view name) const;
  std::int64_t totalFlops() const;
};

struct ModelLoadOptions {
  std::string paramsDir;                           ///< const_<i>.npy values of meta constants (else seeded random)
  std::uint64_t seed = 0;                          ///< of the random constants
  std::function<void(const std::string&)> passLog; ///< one line per graph pass
  frontend::relay::PassOptions passes;             ///< AlterOpLayout and its block size
  /// Lower every group to its PrimFunc (Model::groups). Off: the graph, its fusion and
  /// memory plan only (`relay groups|print|run --interpret` need no PrimFunc, and a
  /// group whose op has no compute yet does not stop them).
  bool lower = true;
};

/// The graph passes' options for this machine: AlterOpLayout when `alterLayout`, with
/// blocks of the fp32 lanes of the host's vectors (16 with AVX-512, 8 with AVX2).
frontend::relay::PassOptions hostPassOptions(bool alterLayout);

/// Loads `path` (a Relay text file) or `text` when given. Errors are the importer's
/// (relay.lex/parse/type, located in the file) and relay.lower naming the group.
Expected<Model> loadModel(const std::string& path, const ModelLoadOptions& options = {});
Expected<Model> loadModelText(std::string text, const std::string& path, const ModelLoadOptions& options = {});

/// The model's inputs (main's parameters, in order): `inputsDir`/<name>.npy or
/// `paramsDir`/<name>.npy when such a file exists (dtype and shape must match:
/// "graph.bad-input"), else fillRandom(seed + k).
Expected<std::vector<ir::NDArray>> modelInputs(const Model& model, const std::string& inputsDir,
                                               const std::string& paramsDir, std::uint64_t seed);

} // namespace loopscape::graph
