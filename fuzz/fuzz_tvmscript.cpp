// A TVMScript file (`loopscape-cli print F.py`): parseTvmScript, then every function is
// printed, and the printed text must read back and print the same (print ∘ parse ∘ print
// = print); anything else aborts, so that a round-trip failure counts as a finding.
#include "fuzz/fuzz_support.h"

#include "core/frontend/tvmscript/tvmscript.h"
#include "core/ir/printer.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopscape;
  if (size > fuzz::kMaxInputBytes) return -1;
  auto program = frontend::parseTvmScript(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.py");
  if (!program) return 0;
  for (const auto& func : program->module.functions) {
    const std::string printed = ir::printPrimFunc(func);
    auto back = frontend::parseTvmScript(printed, "printed.py");
    if (!back || back->module.functions.size() != 1 || ir::printPrimFunc(back->module.functions.front()) != printed) {
      std::fprintf(stderr, "fuzz_tvmscript: the printed function does not read back the same:\n%s\n%s\n",
                   printed.c_str(), back ? "(prints differently)" : renderDiagnostic(back.error(), printed).c_str());
      std::abort();
    }
  }
  return 0;
}
