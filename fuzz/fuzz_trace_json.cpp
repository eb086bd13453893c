// A JSON trace (`loopscape-cli print P.te --trace T.json`): applyJsonTrace on a schedule
// made by poly::makeSchedule with the exact legality check, on the sample a leading
// `# program: NAME` line names (stripped before parsing; fuzz_support.h). An applied
// trace must print to JSON that parses back to as many instructions.
#include "fuzz/fuzz_support.h"

#include "core/ir/printer.h"
#include "core/poly/checked_schedule.h"
#include "core/schedule/trace_json.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopscape;
  if (size > fuzz::kMaxInputBytes) return -1;
  const auto input = fuzz::splitTraceInput(std::string_view(reinterpret_cast<const char*>(data), size), true);
  schedule::Schedule sch = poly::makeSchedule(*input.program);
  if (!schedule::applyJsonTrace(sch, input.text, "fuzz.json")) return 0;
  (void)ir::printPrimFunc(sch.func());
  const std::string printed = schedule::traceToJson(sch.trace());
  auto reread = schedule::traceFromJson(printed, "printed.json");
  if (!reread) fuzz::propertyFailed("an applied trace's JSON does not parse back: " + reread.error().message);
  if (reread->instructions.size() != sch.trace().instructions.size())
    fuzz::propertyFailed("an applied trace's JSON parses back to a different number of instructions");
  return 0;
}
