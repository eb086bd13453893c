// A trace script (TVM Python, `loopscape-cli print P.te --trace T.py`): applyScript on a
// schedule made by poly::makeSchedule with the exact legality check, on the sample the
// `# program: NAME` line names (fuzz_support.h); then the scheduled program is printed.
#include "fuzz/fuzz_support.h"

#include "core/ir/printer.h"
#include "core/poly/checked_schedule.h"
#include "core/schedule/trace_script.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopscape;
  if (size > fuzz::kMaxInputBytes) return -1;
  const auto input = fuzz::splitTraceInput(std::string_view(reinterpret_cast<const char*>(data), size), false);
  schedule::Schedule sch = poly::makeSchedule(*input.program);
  if (!schedule::applyScript(sch, input.text, "fuzz.py")) return 0;
  (void)ir::printPrimFunc(sch.func());
  return 0;
}
