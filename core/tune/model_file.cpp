// The cost model file beside a tuning log (model_file.h).
#include "core/tune/model_file.h"

#include <string>
#include <system_error>

namespace loopscape::tune {

std::filesystem::path modelPathBeside(const std::filesystem::path& records, const CostModel& model) {
  std::filesystem::path path = records;
  path += "." + std::string(model.name());
  return path;
}

Expected<bool> loadModelBeside(CostModel& model, const std::filesystem::path& records) {
  const std::filesystem::path path = modelPathBeside(records, model);
  std::filesystem::path data = path;
  data += ".data";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !std::filesystem::exists(data, ec)) return false;
  if (auto ok = model.load(path); !ok) return Unexpected(ok.error());
  return true;
}

Expected<void> saveModelBeside(const CostModel& model, const std::filesystem::path& records) {
  return model.save(modelPathBeside(records, model));
}

} // namespace loopscape::tune
