// The cost model kept beside a tuning log: a search with records LOG saves its model to
// LOG.<model> ("mm.log.xgb"; the XGBoost model also writes its training data to
// "mm.log.xgb.data", xgb_model.h) when it ends, stopped or not, and a later search with
// the same LOG and model loads it before resuming. The loaded model predicts from the
// first round, and it brings what it learnt on the log's other workloads; the log's
// records of the resumed workload are then presented to it again, which changes nothing
// for programs it holds already (XgbModel keeps a program once).
#pragma once

#include "core/tune/cost_model.h"

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <string_view>

namespace loopscape::tune {

/// LOG + "." + the model's name.
std::filesystem::path modelPathBeside(const std::filesystem::path& records, const CostModel& model);

/// Loads the model saved beside `records`: true when one was loaded, false when there is
/// none; the model's own errors ("tune.model-io", "tune.model-format", "tune.xgboost")
/// leave it unchanged.
Expected<bool> loadModelBeside(CostModel& model, const std::filesystem::path& records);

/// Saves the model beside `records` ("tune.model-io", "tune.xgboost").
Expected<void> saveModelBeside(const CostModel& model, const std::filesystem::path& records);

/// Writes a small model file: one JSON object whose "model" is `name`, with `fields`
/// beside it ("tune.model-io"). The random model and the prior save themselves so.
Expected<void> writeNamedModel(const std::filesystem::path& path, std::string_view name, nlohmann::json fields);

/// Reads a file written by writeNamedModel: its object, when its "model" is `name`
/// ("tune.model-io"; "tune.model-format": "'PATH' is not a saved NAME cost model").
Expected<nlohmann::json> readNamedModel(const std::filesystem::path& path, std::string_view name);

} // namespace loopscape::tune
