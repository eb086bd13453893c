#include "core/graph/model.h"

#include "core/frontend/relay/relay_exec.h"
#include "core/frontend/relay/relay_parser.h"
#include "core/frontend/relay/relay_passes.h"
#include "core/frontend/relay/relay_type_infer.h"
#include "core/ir/file_read.h"
#include "core/ir/npy.h"
#include "core/poly/tile_model.h"
#include "core/tune/records.h"

#include <fmt/format.h>

#include <filesystem>

namespace loopscape::graph {

namespace relay = frontend::relay;

const ModelGroup* Model::group(std::string_view name) const {
  for (const auto& g : groups)
    if (g.name == name) return &g;
  return nullptr;
}

std::int64_t Model::totalFlops() const {
  std::int64_t total = 0;
  for (const auto& g : groups)
    total += g.flops;
  return total;
}

relay::PassOptions hostPassOptions(bool alterLayout) {
  relay::PassOptions o;
  o.alterLayout = alterLayout;
  o.lanes = static_cast<int>(poly::MachineModel::host().vectorBytes / 4);
  return o;
}

Expected<Model> loadModel(const std::string& path, const ModelLoadOptions& options) {
  auto text = ir::readSourceFile(path);
  if (!text) return std::unexpected(text.error());
  return loadModelText(std::move(*text), path, options);
}

Expected<Model> loadModelText(std::string text, const std::string& path, const ModelLoadOptions& options) {
  Model m;
  m.path = path;
  m.source = std::move(text);
  auto parsed = relay::parseRelay(m.source, path);
  if (!parsed) return std::unexpected(parsed.error());
  auto typed = relay::inferTypes(*parsed);
  if (!typed) return std::unexpected(typed.error());
  m.sourceConstants = typed->constants.size();
  if (auto r = relay::materializeConstants(*typed, options.paramsDir, options.seed); !r)
    return std::unexpected(r.error());
  auto passed = relay::runPasses(*typed, options.passLog, options.passes);
  if (!passed) return std::unexpected(passed.error());
  m.module = std::move(*passed);
  m.fusion = relay::fuseOps(m.main());
  m.plan = relay::planMemory(m.main(), m.fusion);
  if (!options.lower) return m;
  for (const auto& g : m.fusion.groups) {
    if (!g.hasCall()) continue;
    auto func = relay::lowerGroup(g);
    if (!func) return std::unexpected(func.error());
    ModelGroup mg;
    mg.index = m.groups.size();
    mg.name = g.name;
    mg.pattern = relay::patternName(g.pattern);
    for (const auto& n : g.nodes)
      if (n->kind == relay::NodeKind::Call) mg.ops += (mg.ops.empty() ? "" : " ") + n->name;
    mg.outputType = relay::typeStr(g.root()->type);
    mg.flops = relay::groupFlops(g);
    mg.workload = tune::workloadKey(*func);
    mg.func = std::move(*func);
    mg.fused = &g;
    m.groups.push_back(std::move(mg));
  }
  return m;
}

Expected<std::vector<ir::NDArray>> modelInputs(const Model& model, const std::string& inputsDir,
                                               const std::string& paramsDir, std::uint64_t seed) {
  std::vector<ir::NDArray> inputs;
  const auto& params = model.main().params;
  for (std::size_t k = 0; k < params.size(); ++k) {
    const auto& param = params[k];
    std::string path;
    for (const auto& dir : {paramsDir, inputsDir}) {
      std::string candidate = dir.empty() ? "" : fmt::format("{}/{}.npy", dir, param->name);
      if (path.empty() && !candidate.empty() && std::filesystem::exists(candidate)) path = candidate;
    }
    if (path.empty() && !inputsDir.empty())
      return std::unexpected(
          Diagnostic::error("graph.bad-input", fmt::format("no input for %{}: '{}/{}.npy' does not exist", param->name,
                                                           inputsDir, param->name)));
    if (path.empty()) {
      ir::NDArray a(param->type.shape, param->type.dtype);
      a.fillRandom(seed + k);
      inputs.push_back(std::move(a));
      continue;
    }
    auto a = ir::loadNpy(path);
    if (!a) return std::unexpected(a.error());
    if (a->shape() != param->type.shape || a->dtype() != param->type.dtype)
      return std::unexpected(
          Diagnostic::error("graph.bad-input", fmt::format("input %{} must be {}, '{}' holds {}", param->name,
                                                           relay::typeStr(param->type), path, a->describe())));
    inputs.push_back(std::move(*a));
  }
  return inputs;
}

} // namespace loopscape::graph
