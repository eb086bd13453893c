#include "core/graph/model_schedule.h"

#include "core/ir/file_read.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace loopscape::graph {

namespace fs = std::filesystem;
using nlohmann::json;

std::string_view scheduleSourceName(ScheduleSource source) {
  switch (source) {
  case ScheduleSource::Default: return "default";
  case ScheduleSource::Poly: return "poly";
  case ScheduleSource::Tuned: return "tuned";
  case ScheduleSource::Trace: return "trace";
  }
  return "default";
}

std::string GroupChoice::describe() const {
  switch (source) {
  case ScheduleSource::Default: return "default";
  case ScheduleSource::Poly: return fmt::format("poly(fusion={})", fusion);
  case ScheduleSource::Tuned: return fmt::format("tuned:{}", log);
  case ScheduleSource::Trace: return traceFile.empty() ? "trace (inline)" : fmt::format("trace {}", traceFile);
  }
  return "default";
}

const GroupChoice& ModelSchedule::choiceFor(const std::string& group) const {
  auto it = groups.find(group);
  return it == groups.end() ? fallback : it->second;
}

std::string resolvePath(const std::string& baseDir, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute() || baseDir.empty()) return path;
  return (fs::path(baseDir) / path).string();
}

namespace {

Diagnostic malformed(const std::string& file, const std::string& what) {
  return Diagnostic::error("graph.schedule-malformed", fmt::format("{}: {}", file, what));
}

Expected<GroupChoice> choiceFromJson(const json& j, const std::string& file, const std::string& where) {
  if (!j.is_object()) return std::unexpected(malformed(file, fmt::format("{} must be an object", where)));
  GroupChoice c;
  const auto source = j.value("source", std::string("default"));
  auto text = [&](const char* key) -> Expected<std::string> {
    if (!j.contains(key)) return std::string();
    if (!j[key].is_string()) return std::unexpected(malformed(file, fmt::format("{}.{} must be a string", where, key)));
    return j[key].get<std::string>();
  };
  if (source == "default") {
    c.source = ScheduleSource::Default;
  } else if (source == "poly") {
    c.source = ScheduleSource::Poly;
    auto fusion = text("fusion");
    if (!fusion) return std::unexpected(fusion.error());
    if (!fusion->empty()) c.fusion = *fusion;
    if (c.fusion != "max" && c.fusion != "smart" && c.fusion != "min")
      return std::unexpected(
          malformed(file, fmt::format("{}.fusion is '{}'; it must be max, smart or min", where, c.fusion)));
  } else if (source == "tuned") {
    c.source = ScheduleSource::Tuned;
    auto log = text("log");
    if (!log) return std::unexpected(log.error());
    if (log->empty()) return std::unexpected(malformed(file, fmt::format("{} is tuned but names no log", where)));
    c.log = *log;
  } else if (source == "trace") {
    c.source = ScheduleSource::Trace;
    auto traceFile = text("file");
    if (!traceFile) return std::unexpected(traceFile.error());
    c.traceFile = *traceFile;
    if (j.contains("trace")) c.traceJson = j["trace"].dump();
    if (c.traceFile.empty() == c.traceJson.empty())
      return std::unexpected(
          malformed(file, fmt::format("{} is a trace: give either \"file\" or an inline \"trace\"", where)));
  } else {
    return std::unexpected(
        malformed(file, fmt::format("{}.source is '{}'; it must be default, poly, tuned or trace", where, source)));
  }
  return c;
}

json choiceToJson(const GroupChoice& c) {
  json j;
  j["source"] = std::string(scheduleSourceName(c.source));
  if (c.source == ScheduleSource::Poly) j["fusion"] = c.fusion;
  if (c.source == ScheduleSource::Tuned) j["log"] = c.log;
  if (c.source == ScheduleSource::Trace) {
    if (!c.traceFile.empty())
      j["file"] = c.traceFile;
    else
      j["trace"] = json::parse(c.traceJson, nullptr, false);
  }
  return j;
}

} // namespace

Expected<ModelSchedule> parseModelSchedule(std::string_view text, const std::string& fileName) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return std::unexpected(malformed(fileName, "not a JSON object (a model schedule is {\"version\": 1, ...})"));
  if (j.value("version", 0) != 1) return std::unexpected(malformed(fileName, "\"version\" must be 1"));
  ModelSchedule s;
  if (j.contains("model") && j["model"].is_string()) s.model = j["model"].get<std::string>();
  if (j.contains("alter_layout")) {
    if (!j["alter_layout"].is_boolean())
      return std::unexpected(malformed(fileName, "\"alter_layout\" must be true or false"));
    s.alterLayout = j["alter_layout"].get<bool>();
  }
  if (j.contains("default")) {
    auto c = choiceFromJson(j["default"], fileName, "default");
    if (!c) return std::unexpected(c.error());
    s.fallback = *c;
  }
  if (j.contains("groups")) {
    if (!j["groups"].is_object()) return std::unexpected(malformed(fileName, "\"groups\" must be an object"));
    for (const auto& [name, value] : j["groups"].items()) {
      auto c = choiceFromJson(value, fileName, fmt::format("groups.{}", name));
      if (!c) return std::unexpected(c.error());
      s.groups[name] = *c;
    }
  }
  return s;
}

Expected<ModelSchedule> readModelSchedule(const std::string& path) {
  auto text = ir::readSourceFile(path);
  if (!text) return std::unexpected(text.error());
  auto s = parseModelSchedule(*text, path);
  if (s) s->baseDir = fs::path(path).parent_path().string();
  return s;
}

std::string modelScheduleToJson(const ModelSchedule& schedule) {
  json j;
  j["version"] = 1;
  if (!schedule.model.empty()) j["model"] = schedule.model;
  if (schedule.alterLayout) j["alter_layout"] = true;
  j["default"] = choiceToJson(schedule.fallback);
  j["groups"] = json::object();
  for (const auto& [name, c] : schedule.groups)
    j["groups"][name] = choiceToJson(c);
  return j.dump(2) + "\n";
}

Expected<void> writeModelSchedule(const std::string& path, const ModelSchedule& schedule) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << modelScheduleToJson(schedule);
    if (!out.flush())
      return std::unexpected(Diagnostic::error("graph.cannot-write", fmt::format("cannot write '{}'", path)));
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec)
    return std::unexpected(
        Diagnostic::error("graph.cannot-write", fmt::format("cannot write '{}': {}", path, ec.message())));
  return {};
}

Expected<ModelSchedule> scheduleFromOption(const std::string& option) {
  ModelSchedule s;
  if (option.empty() || option == "default") return s;
  if (option == "poly" || option.starts_with("poly:")) {
    s.fallback.source = ScheduleSource::Poly;
    if (option.size() > 5) s.fallback.fusion = option.substr(5);
    if (s.fallback.fusion != "max" && s.fallback.fusion != "smart" && s.fallback.fusion != "min")
      return std::unexpected(Diagnostic::error(
          "graph.bad-schedule", fmt::format("--schedule {}: the fusion must be max, smart or min", option)));
    return s;
  }
  if (option.starts_with("tuned:")) {
    s.fallback.source = ScheduleSource::Tuned;
    s.fallback.log = option.substr(6);
    return s;
  }
  if (fs::path(option).extension() == ".json") return readModelSchedule(option);
  return std::unexpected(Diagnostic::error(
      "graph.bad-schedule",
      fmt::format("--schedule '{}': give default, poly, poly:FUSION, tuned:LOG or a model schedule FILE.json",
                  option)));
}

} // namespace loopscape::graph
