// A tuning log (`loopscape-cli tune --records LOG`, `--trace best:LOG`): every line through
// recordFromJson, as readRecords reads them. A record that parses must print back to a
// line that parses to the same record (same line again), and its trace's JSON must parse
// back to as many instructions; bestRecord over what parsed must be one of them.
#include "fuzz/fuzz_support.h"

#include "core/schedule/trace_json.h"
#include "core/tune/records.h"

#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopscape;
  if (size > fuzz::kMaxInputBytes) return -1;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<tune::Record> records;
  std::size_t start = 0;
  for (int line = 1; start <= text.size(); ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto record = tune::recordFromJson(text.substr(start, end - start), "fuzz.log", line);
    start = end + 1;
    if (!record) continue;
    const std::string printed = tune::recordToJson(*record);
    auto again = tune::recordFromJson(printed, "printed.log", 1);
    if (!again) fuzz::propertyFailed("a record's own line does not parse back: " + again.error().message);
    if (tune::recordToJson(*again) != printed) fuzz::propertyFailed("a record does not print back to the same line");
    auto trace = schedule::traceFromJson(schedule::traceToJson(record->trace), "trace.json");
    if (!trace || trace->instructions.size() != record->trace.instructions.size())
      fuzz::propertyFailed("a record's trace does not print back to the same trace");
    records.push_back(std::move(*record));
  }
  if (!records.empty()) {
    auto best = tune::bestRecord(records, records.front().workload);
    if (best && !best->ok()) fuzz::propertyFailed("the best record is a failed one");
  }
  return 0;
}
