// The cost model file beside a tuning log (model_file.h).
#include "core/tune/model_file.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
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

Expected<void> writeNamedModel(const std::filesystem::path& path, std::string_view name, nlohmann::json fields) {
  fields["model"] = name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << fields.dump() << "\n";
  out.close();
  if (!out)
    return Unexpected(Diagnostic::error("tune.model-io",
                                        "cannot write the cost model file '" + quoteForMessage(path.string()) + "'"));
  return {};
}

Expected<nlohmann::json> readNamedModel(const std::filesystem::path& path, std::string_view name) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in)
    return Unexpected(
        Diagnostic::error("tune.model-io", "cannot read the cost model file '" + quoteForMessage(path.string()) + "'"));
  auto j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("model") || j["model"] != name)
    return Unexpected(Diagnostic::error("tune.model-format", "'" + quoteForMessage(path.string()) +
                                                                 "' is not a saved " + std::string(name) +
                                                                 " cost model"));
  return j;
}

} // namespace loopscape::tune
