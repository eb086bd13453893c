#include "core/tune/random_model.h"

#include "core/tune/model_file.h"

#include <nlohmann/json.hpp>

namespace loopscape::tune {

RandomModel::RandomModel(std::uint64_t seed) : m_seed(seed), m_engine(seed) {}

std::vector<double> RandomModel::predict(std::span<const codegen::LoweredFunc* const> candidates) {
  std::vector<double> scores;
  scores.reserve(candidates.size());
  // The top 53 bits of a raw draw, scaled to [0, 1): exact and platform-independent
  // (std::uniform_real_distribution is not).
  for (std::size_t i = 0; i < candidates.size(); ++i)
    scores.push_back(static_cast<double>(m_engine() >> 11) * 0x1.0p-53);
  return scores;
}

void RandomModel::update(std::span<const codegen::LoweredFunc* const>, std::span<const double>) {}

Expected<void> RandomModel::save(const std::filesystem::path& path) const {
  return writeNamedModel(path, "random", {{"seed", m_seed}});
}

Expected<void> RandomModel::load(const std::filesystem::path& path) {
  auto j = readNamedModel(path, "random");
  if (!j) return Unexpected(j.error());
  if (!j->contains("seed") || !(*j)["seed"].is_number_unsigned())
    return Unexpected(Diagnostic::error("tune.model-format",
                                        "'" + quoteForMessage(path.string()) + "' is not a saved random cost model"));
  m_seed = (*j)["seed"].get<std::uint64_t>();
  m_engine.seed(m_seed);
  return {};
}

} // namespace loopscape::tune
