// Tuning records as JSON lines (records.h).
#include "core/tune/records.h"

#include "core/ir/file_read.h"
#include "core/ir/structural_equal.h"
#include "core/schedule/trace_json.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <limits>
#include <nlohmann/json.hpp>

#ifndef LOOPSCAPE_VERSION
#define LOOPSCAPE_VERSION "0.0.0"
#endif

namespace loopscape::tune {

namespace {

Diagnostic malformed(const std::string& file, int line, const std::string& why) {
  return Diagnostic::error("tune.record-malformed", fmt::format("tuning record malformed: {}", why),
                           SourceLocation{file, line, 1, 1});
}

} // namespace

std::string workloadKey(const ir::PrimFunc& func, const ir::SizeBindings& sizes) {
  std::string key = fmt::format("{}:{:016x}", func.name, ir::structuralHash(func));
  if (!sizes.empty()) {
    key += '[';
    bool first = true;
    for (const auto& [name, value] : sizes) {
      key += fmt::format("{}{}={}", first ? "" : ",", name, value);
      first = false;
    }
    key += ']';
  }
  return key;
}

double Record::medianSeconds() const {
  if (!ok()) return std::numeric_limits<double>::infinity();
  std::vector<double> s = seconds;
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double Record::throughput() const {
  if (!ok()) return 0;
  return gflops > 0 ? gflops : 1e-9 / medianSeconds();
}

std::string recordToJson(const Record& r) {
  nlohmann::ordered_json j;
  j["workload"] = r.workload;
  j["func"] = r.func;
  j["target"] = r.target;
  j["options"] = {{"threads", r.threads}, {"fast_math", r.fastMath}};
  j["family"] = r.family;
  j["sketch"] = r.sketch;
  j["trace"] = nlohmann::ordered_json::parse(schedule::traceToJson(r.trace));
  j["seconds"] = r.seconds;
  j["gflops"] = std::isfinite(r.gflops) ? r.gflops : 0.0;
  j["gbps"] = std::isfinite(r.gbps) ? r.gbps : 0.0;
  j["error"] = r.error;
  j["verified"] = r.verified;
  j["trial"] = r.trial;
  j["time"] = r.time;
  j["version"] = r.version.empty() ? std::string(LOOPSCAPE_VERSION) : r.version;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Expected<Record> recordFromJson(std::string_view text, const std::string& file, int line) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::unexpected(malformed(file, line, "not a JSON object"));
  Record r;
  try {
    r.workload = j.at("workload").get<std::string>();
    r.func = j.value("func", std::string());
    r.target = j.at("target").get<std::string>();
    if (j.contains("options")) {
      r.threads = j["options"].value("threads", 0);
      r.fastMath = j["options"].value("fast_math", false);
    }
    r.family = j.value("family", std::string());
    r.sketch = j.value("sketch", std::string());
    r.seconds = j.value("seconds", std::vector<double>{});
    r.gflops = j.value("gflops", 0.0);
    r.gbps = j.value("gbps", 0.0);
    r.error = j.value("error", std::string());
    r.verified = j.value("verified", false);
    r.trial = j.value("trial", 0);
    r.time = j.value("time", std::string());
    r.version = j.value("version", std::string());
    auto trace = schedule::traceFromJson(j.at("trace").dump(), file);
    if (!trace) return std::unexpected(malformed(file, line, "its trace: " + trace.error().message));
    r.trace = std::move(*trace);
  } catch (const nlohmann::json::exception& e) {
    return std::unexpected(malformed(file, line, e.what()));
  }
  if (std::any_of(r.seconds.begin(), r.seconds.end(), [](double s) { return !(s > 0) || !std::isfinite(s); }))
    return std::unexpected(malformed(file, line, "a time in \"seconds\" is not a positive number"));
  return r;
}

Expected<std::vector<Record>> readRecords(const std::string& path) {
  std::vector<Record> out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return out;
  auto text = ir::readSourceFile(path);
  if (!text) return std::unexpected(text.error());
  std::size_t start = 0;
  int line = 0;
  while (start < text->size()) {
    std::size_t end = text->find('\n', start);
    const bool last = end == std::string::npos;
    if (last) end = text->size();
    ++line;
    std::string_view row(text->data() + start, end - start);
    start = end + 1;
    if (row.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto record = recordFromJson(row, path, line);
    if (!record) {
      if (last) break; // a line cut short by a stopped search
      return std::unexpected(record.error());
    }
    out.push_back(std::move(*record));
  }
  return out;
}

std::optional<Record> bestRecord(const std::vector<Record>& records, const std::string& workload,
                                 const std::string& target) {
  const Record* best = nullptr;
  for (const auto& r : records) {
    if (!r.ok() || r.workload != workload || (!target.empty() && r.target != target)) continue;
    if (!best || r.medianSeconds() < best->medianSeconds()) best = &r;
  }
  return best ? std::optional(*best) : std::nullopt;
}

RecordWriter::~RecordWriter() {
  if (m_file) std::fclose(m_file);
}

Expected<void> RecordWriter::open(const std::string& path) {
  if (m_file) std::fclose(m_file);
  m_path = path;
  m_file = std::fopen(path.c_str(), "a");
  if (!m_file)
    return std::unexpected(Diagnostic::error(
        "tune.records-unwritable", fmt::format("cannot write tuning records to '{}': {}", path, std::strerror(errno))));
  return {};
}

Expected<void> RecordWriter::append(const Record& record) {
  if (!m_file) return {};
  const std::string line = recordToJson(record) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), m_file) != line.size() || std::fflush(m_file) != 0)
    return std::unexpected(
        Diagnostic::error("tune.records-unwritable",
                          fmt::format("cannot write tuning records to '{}': {}", m_path, std::strerror(errno))));
  return {};
}

std::string utcTimestamp() {
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
}

} // namespace loopscape::tune
